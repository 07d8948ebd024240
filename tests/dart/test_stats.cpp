// Path counters (dash/dart/ext/dart_stats.h): a put, a get, a fetch-and-op
// and a flush aimed at the right neighbour are counted on the load/store
// path when units share memory (DART_SHARED_MEMORY unset) and on the MPI
// path otherwise (the .rma variant); reset zeroes them; bad input fails.
// The metadata report shows that a segment costs the same on a team of all
// units as on a team of one, and that only registrations whose sizes differ
// keep a table per unit.
#include "dart_checks.hpp"

#include <dash/dart/ext/dart_stats.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

BOOST_FIXTURE_TEST_SUITE(stats, dartcheck::DartFixture)

// Which world ranks share this process's host (and so its memory).
std::vector<bool> my_host() {
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  MPI_Group world_group = MPI_GROUP_NULL, host_group = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(host, &host_group);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size)), there(ranks.size());
  for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
  MPI_Group_translate_ranks(world_group, size, ranks.data(), host_group, there.data());
  MPI_Group_free(&world_group);
  MPI_Group_free(&host_group);
  MPI_Comm_free(&host);
  std::vector<bool> out;
  for (int t : there) out.push_back(t != MPI_UNDEFINED);
  return out;
}

// On one host every operation on the right neighbour goes by load/store
// (unless DART_SHARED_MEMORY=0). Across hosts (the multi-host rig) a
// neighbour on the next host is reached through MPI, one on the same host
// still by load/store for puts and gets, while atomics of a team that spans
// hosts all go through MPI (a CPU atomic would not be atomic with respect
// to the MPI ones from other hosts).
BOOST_AUTO_TEST_CASE(counters_show_the_path) {
  const char* shm = std::getenv("DART_SHARED_MEMORY");
  const std::vector<bool> host = my_host();
  const bool shared = !shm || std::strcmp(shm, "0") != 0;
  const bool load_store = shared && host[static_cast<std::size_t>((me + 1) % n)];
  const bool cpu_atomics = load_store && std::count(host.begin(), host.end(), true) == n;
  BOOST_TEST_MESSAGE("unit " << me << ": right neighbour by " << (load_store ? "load/store" : "MPI RMA")
                             << ", atomics by " << (cpu_atomics ? "CPU" : "MPI"));
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_LONG, &seg));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_stats_reset());
  dart_gptr_t right = seg;
  right.unitid = (me + 1) % n;
  long v = me, got = -1, old = -1;
  const long one = 1;
  CHECK_OK(dart_put_blocking(right, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_get_blocking(&got, right, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  dart_gptr_t counter = right;
  counter.addr_or_offs.offset = 8 * sizeof(long);
  CHECK_OK(dart_fetch_and_op(counter, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
  CHECK_OK(dart_flush(counter));
  dart_stats_t s;
  std::memset(&s, 0xff, sizeof s);
  CHECK_OK(dart_stats_get(&s));
  if (load_store) {
    CHECK_EQ(s.local_puts, 1u);
    CHECK_EQ(s.local_gets, 1u);
    CHECK_EQ(s.local_bytes, 2 * sizeof(long));
    CHECK_EQ(s.rma_puts + s.rma_gets + s.rma_bytes, 0u);
  } else {
    CHECK_EQ(s.rma_puts, 1u);
    CHECK_EQ(s.rma_gets, 1u);
    CHECK_EQ(s.rma_bytes, 2 * sizeof(long));
    CHECK_EQ(s.local_puts + s.local_gets + s.local_bytes, 0u);
  }
  if (cpu_atomics) {
    CHECK_EQ(s.cpu_atomics, 1u);
    CHECK_EQ(s.rma_atomics, 0u);
    CHECK_EQ(s.mpi_flushes, 0u);
    CHECK_EQ(s.skipped_flushes, 1u);
  } else {
    CHECK_EQ(s.rma_atomics, 1u);
    CHECK_EQ(s.cpu_atomics, 0u);
    CHECK_EQ(s.mpi_flushes, 1u);
  }
  CHECK_EQ(s.emulated_atomics, 0u);
  CHECK_OK(dart_stats_reset());
  CHECK_OK(dart_stats_get(&s));
  CHECK_EQ(s.local_puts + s.rma_puts + s.cpu_atomics + s.rma_atomics + s.mpi_flushes + s.skipped_flushes, 0u);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(seg));
  dartcheck::QuietDart quiet;
  CHECK_EQ(dart_stats_get(nullptr), DART_ERR_INVAL);
}

namespace {
dart_metadata_t metadata() {
  dart_metadata_t md;
  std::memset(&md, 0xff, sizeof md);
  BOOST_REQUIRE_EQUAL(dart_stats_metadata(&md), DART_OK);
  return md;
}

// Bookkeeping bytes one symmetric allocation of `bytes` adds on `team`.
std::uint64_t segment_cost(dart_team_t team, std::size_t bytes) {
  const dart_metadata_t before = metadata();
  dart_gptr_t g = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(team, bytes, DART_TYPE_BYTE, &g), DART_OK);
  const dart_metadata_t after = metadata();
  BOOST_CHECK_EQUAL(after.segments, before.segments + 1);
  BOOST_REQUIRE_EQUAL(dart_team_memfree(g), DART_OK);
  BOOST_CHECK_EQUAL(metadata().segments, before.segments);
  return after.segment_bytes - before.segment_bytes;
}

// Bookkeeping bytes of a registration of `elems` longs on DART_TEAM_ALL.
std::uint64_t registration_cost(std::vector<long>& buf, std::size_t elems) {
  const dart_metadata_t before = metadata();
  dart_gptr_t g = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memregister(DART_TEAM_ALL, elems, DART_TYPE_LONG, buf.data(), &g), DART_OK);
  const std::uint64_t cost = metadata().segment_bytes - before.segment_bytes;
  BOOST_REQUIRE_EQUAL(dart_team_memderegister(g), DART_OK);
  return cost;
}
}  // namespace

BOOST_AUTO_TEST_CASE(segment_metadata_does_not_grow_with_units) {
  const dart_metadata_t idle = metadata();
  CHECK_EQ(idle.teams, 1u);
  CHECK_EQ(idle.segments, 1u);  // segment 0, the local pool
  BOOST_CHECK_GT(idle.team_bytes, 0u);
  BOOST_CHECK_GT(idle.runtime_bytes, 0u);

  // A team of all units (made from a group, as users make teams) and a
  // team of one unit per unit (from the split of that group) cost the
  // same: members that follow a formula keep the formula.
  dart_group_t all = nullptr;
  REQUIRE_OK(dart_team_get_group(DART_TEAM_ALL, &all));
  dart_team_t everyone = DART_TEAM_NULL;
  REQUIRE_OK(dart_team_create(DART_TEAM_ALL, all, &everyone));
  const dart_metadata_t with_everyone = metadata();
  std::vector<dart_group_t> singles(static_cast<std::size_t>(n), nullptr);
  size_t got = 0;
  REQUIRE_OK(dart_group_split(all, static_cast<size_t>(n), &got, singles.data()));
  REQUIRE_EQ(got, static_cast<size_t>(n));
  dart_team_t mine = DART_TEAM_NULL;
  for (int u = 0; u < n; ++u) {
    dart_team_t t = DART_TEAM_NULL;
    REQUIRE_OK(dart_team_create(DART_TEAM_ALL, singles[static_cast<std::size_t>(u)], &t));
    if (u == me) mine = t;
  }
  REQUIRE_RANK(mine != DART_TEAM_NULL);
  size_t size = 0;
  REQUIRE_OK(dart_team_size(mine, &size));
  REQUIRE_EQ(size, 1u);
  const dart_metadata_t with_teams = metadata();
  CHECK_EQ(with_teams.teams, 3u);
  BOOST_TEST_CONTEXT("unit " << me << " of " << n) {
    BOOST_CHECK_GT(with_everyone.team_bytes, idle.team_bytes);
    BOOST_CHECK_EQUAL(with_teams.team_bytes - with_everyone.team_bytes, with_everyone.team_bytes - idle.team_bytes);
  }

  // The same allocation costs the same on n units as on one: nothing per unit.
  for (std::size_t bytes : {std::size_t{64}, std::size_t{1} << 22}) {
    const std::uint64_t on_all = segment_cost(DART_TEAM_ALL, bytes);
    const std::uint64_t on_one = segment_cost(mine, bytes);
    BOOST_TEST_CONTEXT("unit " << me << " of " << n << ", " << bytes << " bytes per unit") {
      BOOST_CHECK_EQUAL(on_all, on_one);
      BOOST_CHECK_GT(on_all, 0u);
    }
  }
  // A registration of the same size everywhere keeps one size and one
  // shift; sizes that differ need a table of them, 8 bytes per unit.
  std::vector<long> buf(static_cast<std::size_t>(n) + 8);
  const std::uint64_t uniform = registration_cost(buf, 4);
  const std::uint64_t varied = registration_cost(buf, static_cast<std::size_t>(me) + 1);
  BOOST_TEST_CONTEXT("unit " << me << " of " << n) {
    if (n > 1) BOOST_CHECK_GE(varied, uniform + sizeof(std::size_t) * static_cast<std::uint64_t>(n));
    else BOOST_CHECK_EQUAL(varied, uniform);
  }

  REQUIRE_OK(dart_team_destroy(&mine));
  REQUIRE_OK(dart_team_destroy(&everyone));
  for (auto& g : singles) CHECK_OK(dart_group_destroy(&g));
  CHECK_OK(dart_group_destroy(&all));
  CHECK_EQ(metadata().teams, 1u);
  dartcheck::QuietDart quiet;
  CHECK_EQ(dart_stats_metadata(nullptr), DART_ERR_INVAL);
}

BOOST_AUTO_TEST_SUITE_END()
