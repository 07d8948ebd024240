// Registration of user memory (dart_team_memregister[_aligned] and
// dart_team_memderegister) the way DASH's dynamic containers use it
// (GlobHeapMem behind dash::List and dash::UnorderedMap): every member takes
// part in each registration, with a size of its own (often zero, with a NULL
// address), while deregistration is local: a unit deregisters the buckets it
// shrinks, when it shrinks them, in its own order, and the others do not.
// Checked on every unit:
// - unbalanced sizes, empty units, read and written by every other unit;
// - deregistration on one unit only: no hang, later registrations agree on
//   their id everywhere, the segment stays usable among the units that keep
//   it, and dart_exit / dart_team_destroy still end cleanly;
// - deregistration in a different order on every unit, interleaved with new
//   registrations, on DART_TEAM_ALL and on a sub-team;
// - many cycles with every unit lagging differently, after which the kept
//   windows are all freed (dart_stats_metadata's retired_registrations).
// Every registration's data is written by a neighbour and checked by its
// owner, so a registration that lands on another's memory is caught.
#include "dart_checks.hpp"

#include <dash/dart/ext/dart_stats.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace {

using dartcheck::raw_at;

// Whether every unit of MPI_COMM_WORLD holds the same segment id in `g`.
bool same_segid_everywhere(const dart_gptr_t& g) {
  const int mine[2] = {g.segid, -g.segid};
  int out[2] = {0, 0};
  MPI_Allreduce(mine, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out[0] == -out[1];
}

// Value of byte `i` of the bucket that `owner` registered as number `tag`.
unsigned char byte_of(int owner, std::size_t i, int tag) {
  return static_cast<unsigned char>(owner * 131 + static_cast<int>(i) * 7 + tag * 29 + 1);
}

// One registered bucket: the memory and its global pointer.
struct Bucket {
  std::vector<unsigned char> mem;
  dart_gptr_t gptr = DART_GPTR_NULL;
  int tag = 0;
};

// Registers a bucket of `bytes` on this unit (zero: NULL address, as DASH's
// padding buckets), filled with the owner pattern. Collective.
Bucket register_bucket(dart_team_t team, std::size_t bytes, int tag, int me) {
  Bucket b;
  b.tag = tag;
  b.mem.resize(bytes);
  for (std::size_t i = 0; i < bytes; ++i) b.mem[i] = byte_of(me, i, tag);
  REQUIRE_OK(dart_team_memregister(team, bytes, DART_TYPE_BYTE, bytes ? b.mem.data() : nullptr, &b.gptr));
  return b;
}

// Reads every unit's portion of `g` (sizes[u] bytes) and checks it against
// its owner's pattern.
void check_all_portions(const dart_gptr_t& g, int tag, int me, int n, const std::vector<std::size_t>& sizes,
                        const std::string& what) {
  for (int u = 0; u < n; ++u) {
    const std::size_t bytes = sizes[static_cast<std::size_t>(u)];
    if (bytes == 0) continue;
    std::vector<unsigned char> got(bytes, 0);
    CHECK_OK(dart_get_blocking(got.data(), raw_at(g, u), bytes, DART_TYPE_BYTE, DART_TYPE_BYTE));
    std::size_t bad = bytes;
    for (std::size_t i = 0; i < bytes && bad == bytes; ++i)
      if (got[i] != byte_of(u, i, tag)) bad = i;
    BOOST_CHECK_MESSAGE(bad == bytes, "rank " << me << ": " << what << ": byte " << bad << " of unit " << u << "'s "
                                              << bytes << "-byte portion is " << (bad < bytes ? int{got[bad]} : -1)
                                              << ", expected " << (bad < bytes ? int{byte_of(u, bad, tag)} : -1));
  }
}

dart_metadata_t metadata() {
  dart_metadata_t md{};
  CHECK_OK(dart_stats_metadata(&md));
  return md;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(registration, dartcheck::DartFixture)

// Sizes differ by unit; every second unit registers nothing (NULL). Every
// unit reads every portion, then writes its right neighbour's, which the
// owner checks in its own buffer.
BOOST_AUTO_TEST_CASE(unbalanced_sizes_and_empty_units) {
  auto size_of = [](int u) -> std::size_t { return u % 2 == 1 ? 0 : 1000 + 333 * static_cast<std::size_t>(u); };
  std::vector<std::size_t> sizes;
  for (int u = 0; u < n; ++u) sizes.push_back(size_of(u));
  Bucket b = register_bucket(DART_TEAM_ALL, size_of(me), 1, me);
  REQUIRE_RANK(mpitest::all_ranks(same_segid_everywhere(b.gptr)));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  check_all_portions(b.gptr, 1, me, n, sizes, "unbalanced registration");
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  std::vector<unsigned char> src(size_of(right));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = byte_of(me, i, 2);
  if (!src.empty())
    CHECK_OK(dart_put_blocking(raw_at(b.gptr, right), src.data(), src.size(), DART_TYPE_BYTE, DART_TYPE_BYTE));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  for (std::size_t i = 0; i < b.mem.size(); ++i)
    if (b.mem[i] != byte_of(left, i, 2)) {
      BOOST_ERROR("rank " << me << ": byte " << i << " of the own bucket after the left neighbour's put is wrong");
      break;
    }
  // Beyond a unit's own size is out of bounds, even when others have more.
  if (n > 1) {
    dartcheck::QuietDart quiet;
    unsigned char x = 0;
    const int empty_unit = 1;
    CHECK_EQ(dart_get_blocking(&x, raw_at(b.gptr, empty_unit), 1, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_ERR_INVAL);
  }
  CHECK_OK(dart_team_memderegister(b.gptr));
}

// Unit 0 alone deregisters; the others keep the segment and go on using
// it among themselves, and later registrations agree on their ids.
BOOST_AUTO_TEST_CASE(deregistration_on_one_unit_only) {
  const std::size_t bytes = 4096 + 64 * static_cast<std::size_t>(me);
  std::vector<std::size_t> sizes;
  for (int u = 0; u < n; ++u) sizes.push_back(4096 + 64 * static_cast<std::size_t>(u));
  Bucket a = register_bucket(DART_TEAM_ALL, bytes, 3, me);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) {
    CHECK_OK(dart_team_memderegister(a.gptr));
    // Gone for the caller: a clear error, not an access.
    dartcheck::QuietDart quiet;
    unsigned char x = 0;
    CHECK_EQ(dart_get_blocking(&x, raw_at(a.gptr, n - 1), 1, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_ERR_INVAL);
  }
  // A new registration after the unbalanced deregistration.
  Bucket b = register_bucket(DART_TEAM_ALL, bytes, 4, me);
  CHECK_RANK(mpitest::all_ranks(same_segid_everywhere(b.gptr)));
  CHECK_RANK(b.gptr.segid != a.gptr.segid);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  check_all_portions(b.gptr, 4, me, n, sizes, "registration after unit 0 deregistered alone");
  // The units that kept `a` still reach each other's portions of it.
  if (me != 0) {
    std::vector<std::size_t> kept = sizes;
    kept[0] = 0;
    check_all_portions(a.gptr, 3, me, n, kept, "segment kept by units 1..n-1");
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memderegister(b.gptr));
  // Units other than 0 never deregister `a`: dart_exit must still end.
}

// Six buckets; each unit deregisters them in its own order (rotated by its
// id, reversed on odd units), registering a new bucket after each
// deregistration. Every new bucket must get one id on all units, distinct
// from every bucket some unit still holds, and carry the right data.
BOOST_AUTO_TEST_CASE(deregistration_in_different_orders) {
  constexpr int kBuckets = 6;
  auto size_of = [](int u, int k) -> std::size_t {
    return (u + k) % 3 == 0 ? 0 : 256 * static_cast<std::size_t>(k + 1) + 8 * static_cast<std::size_t>(u);
  };
  std::vector<Bucket> old;
  for (int k = 0; k < kBuckets; ++k) old.push_back(register_bucket(DART_TEAM_ALL, size_of(me, k), 10 + k, me));
  std::vector<int> order(kBuckets);
  for (int k = 0; k < kBuckets; ++k) order[static_cast<std::size_t>(k)] = (k + me) % kBuckets;
  if (me % 2 == 1) std::reverse(order.begin(), order.end());

  std::vector<int16_t> held;  // ids this unit still holds
  for (const Bucket& b : old) held.push_back(b.gptr.segid);
  std::vector<Bucket> fresh;
  for (int step = 0; step < kBuckets; ++step) {
    const Bucket& gone = old[static_cast<std::size_t>(order[static_cast<std::size_t>(step)])];
    CHECK_OK(dart_team_memderegister(gone.gptr));
    held.erase(std::find(held.begin(), held.end(), gone.gptr.segid));
    const int tag = 20 + step;
    fresh.push_back(register_bucket(DART_TEAM_ALL, size_of(me, step + 1), tag, me));
    const dart_gptr_t& g = fresh.back().gptr;
    CHECK_RANK(mpitest::all_ranks(same_segid_everywhere(g)));
    // No unit may still hold the id the new bucket got.
    const bool clash = std::find(held.begin(), held.end(), g.segid) != held.end();
    BOOST_CHECK_MESSAGE(mpitest::all_ranks(!clash),
                        "rank " << me << ": step " << step << ": new id " << g.segid << " is still held by some unit");
    held.push_back(g.segid);
    std::vector<std::size_t> sizes;
    for (int u = 0; u < n; ++u) sizes.push_back(size_of(u, step + 1));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    check_all_portions(g, tag, me, n, sizes, "bucket registered at step " + std::to_string(step));
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  for (const Bucket& b : fresh) CHECK_OK(dart_team_memderegister(b.gptr));
}

// Many commit-like cycles: register one bucket each, deregister the bucket
// of `me + 1` cycles ago, so every unit lags by a different amount. At the
// end everything is deregistered everywhere; one more registration frees
// every kept window.
BOOST_AUTO_TEST_CASE(many_cycles_with_staggered_deregistration) {
  const long cycles = mpitest::scaled(300);
  std::deque<Bucket> live;
  for (long c = 0; c < cycles; ++c) {
    const int tag = static_cast<int>(c % 97);
    const std::size_t bytes = static_cast<std::size_t>((c * 37 + me * 11) % 200);
    live.push_back(register_bucket(DART_TEAM_ALL, bytes, tag, me));
    if (live.size() > static_cast<std::size_t>(me + 1)) {
      CHECK_OK(dart_team_memderegister(live.front().gptr));
      live.pop_front();
    }
    if (c % 50 == 0) {
      REQUIRE_RANK(mpitest::all_ranks(same_segid_everywhere(live.back().gptr)));
      std::vector<std::size_t> sizes;
      for (int u = 0; u < n; ++u) sizes.push_back(static_cast<std::size_t>((c * 37 + u * 11) % 200));
      CHECK_OK(dart_barrier(DART_TEAM_ALL));
      check_all_portions(live.back().gptr, tag, me, n, sizes, "cycle " + std::to_string(c));
      CHECK_OK(dart_barrier(DART_TEAM_ALL));
    }
  }
  while (!live.empty()) {
    CHECK_OK(dart_team_memderegister(live.front().gptr));
    live.pop_front();
  }
  Bucket last = register_bucket(DART_TEAM_ALL, 64, 99, me);
  CHECK_EQ(metadata().retired_registrations, 0u);
  CHECK_OK(dart_team_memderegister(last.gptr));
  // Deregistered here, not yet everywhere (until the next registration).
  CHECK_EQ(metadata().retired_registrations, 1u);
}

// The same on a sub-team (every unit but the last, or all of one), which is
// then destroyed while its members hold different sets of registrations.
BOOST_AUTO_TEST_CASE(sub_team_destroyed_after_unbalanced_deregistration) {
  dart_group_t group = nullptr;
  REQUIRE_OK(dart_group_create(&group));
  const int members = n > 1 ? n - 1 : 1;
  for (int u = 0; u < members; ++u) REQUIRE_OK(dart_group_addmember(group, dart_global_unit_t{u}));
  dart_team_t team = DART_TEAM_NULL;
  REQUIRE_OK(dart_team_create(DART_TEAM_ALL, group, &team));
  CHECK_OK(dart_group_destroy(&group));
  if (team != DART_TEAM_NULL) {
    dart_team_unit_t my{};
    REQUIRE_OK(dart_team_myid(team, &my));
    std::vector<Bucket> buckets;
    for (int k = 0; k < 4; ++k)
      buckets.push_back(register_bucket(team, 128 * static_cast<std::size_t>(k + my.id), 40 + k, my.id));
    // Unit k of the team deregisters buckets 0..k-1; nobody deregisters all.
    for (int k = 0; k < std::min(my.id, 3); ++k)
      CHECK_OK(dart_team_memderegister(buckets[static_cast<std::size_t>(k)].gptr));
    Bucket more = register_bucket(team, 100, 50, my.id);
    std::vector<std::size_t> sizes(static_cast<std::size_t>(members), 100);
    CHECK_OK(dart_barrier(team));
    check_all_portions(more.gptr, 50, my.id, members, sizes, "sub-team registration after unbalanced deregistration");
    CHECK_OK(dart_barrier(team));
    CHECK_OK(dart_team_destroy(&team));
  }
  // DART_TEAM_ALL is unaffected.
  Bucket after = register_bucket(DART_TEAM_ALL, 32, 60, me);
  CHECK_RANK(mpitest::all_ranks(same_segid_everywhere(after.gptr)));
  CHECK_OK(dart_team_memderegister(after.gptr));
}

BOOST_AUTO_TEST_SUITE_END()
