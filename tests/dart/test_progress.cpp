// Target-side progress (spec 3.6.2, 3.6.3, 3.6.6): one-sided operations
// aimed at a unit that computes without calling MPI or DART must complete.
// Unit 0 spins in a pure CPU loop, polling flags in its own global memory
// through the address from dart_gptr_getaddr (atomic loads, no MPI/DART
// call, deadline 20 s on a steady clock). Meanwhile every other unit, as
// origin, (1) writes data (dart_put_blocking, dart_put + dart_flush,
// dart_put_handle + dart_wait), accumulates, fetches-and-adds, swaps and
// takes and releases a team lock whose tail lives on unit 0, then raises
// its flag with dart_put_blocking; (2) in a second case reads unit 0's data
// (dart_get_blocking, dart_get + dart_flush_local, dart_get_handle +
// dart_wait, fetch-and-op NO_OP) and raises its flag with an accumulate +
// flush; (3) writes data and atomics into memory unit 0 registered
// (dart_team_memregister_aligned) and raises its flag there. Unit 0 must
// see every flag before its deadline, and all data and counters must be
// exact. Without target-side progress (e.g. an MPI library
// that executes remote atomics only inside the target's MPI calls) the test
// fails after the deadline instead of hanging (the origins' blocked calls
// complete once unit 0 enters the closing barrier); the harness timeout is
// the last resort. Not covered: progress of two-sided messages and
// collectives, progress while the target blocks in a non-MPI system call,
// and more than one node. Needs 2 or more units (registered for 2 and 3).
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

using dartcheck::at;

constexpr double kDeadlineSeconds = 20.0;
// After one case has run into its deadline, later ones wait this long only,
// so a run without target-side progress stays within the harness timeout.
constexpr double kDeadlineAfterTimeout = 8.0;
bool g_timed_out = false;                             // on unit 0
constexpr std::size_t kData = std::size_t(64) << 10;  // bytes each origin moves per step

// Layout of every unit's portion (only unit 0's is used).
constexpr std::size_t kFlags1 = 0;               // int64 per unit: case 1 done
constexpr std::size_t kFlags2 = 512;             // int64 per unit: case 2 done
constexpr std::size_t kAcc = 1024;               // int64: accumulate SUM target
constexpr std::size_t kFetch = 1032;             // int64: fetch-and-op SUM target
constexpr std::size_t kCas = 1536;               // int64 per unit: CAS target
constexpr std::size_t kRead = 3072;              // int64: fetch-and-op NO_OP target
constexpr std::size_t kSource = 4096;            // kData bytes unit 0 provides for reads
constexpr std::size_t kSinks = kSource + kData;  // 3 * kData bytes per origin
constexpr std::size_t kMaxUnits = 64;

std::size_t portion_bytes(int n) { return kSinks + 3 * kData * static_cast<std::size_t>(n); }

using ProgressFixture = dartcheck::PlainDartFixture;

unsigned char byte_pattern(int writer, std::size_t i, int salt) {
  std::uint64_t x = (static_cast<std::uint64_t>(writer + 3) << 40) ^ (static_cast<std::uint64_t>(salt) << 32) ^ i;
  x *= 0x9e3779b97f4a7c15ull;
  return static_cast<unsigned char>(x >> 56);
}

// Counts bytes of p[0..count) that differ from byte_pattern(writer, i, salt).
std::size_t mismatches(const unsigned char* p, std::size_t count, int writer, int salt) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < count; ++i) bad += p[i] != byte_pattern(writer, i, salt);
  return bad;
}

std::int64_t load(const std::int64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

// Unit 0's computation: a pure CPU loop (no MPI, no DART) until every
// other unit's flag at `flags` is nonzero or the deadline has passed.
// Returns the seconds it took, or minus the deadline on timeout.
double compute_until_flags(const std::int64_t* flags, int n) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const double limit = g_timed_out ? kDeadlineAfterTimeout : kDeadlineSeconds;
  const auto deadline = start + std::chrono::duration<double>(limit);
  std::uint64_t x = 88172645463325252ull;
  for (;;) {
    bool all = true;
    for (int u = 1; u < n; ++u) all = all && load(&flags[u]) != 0;
    if (all) break;
    for (int i = 0; i < 20000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;  // work
    if (clock::now() > deadline) {
      g_timed_out = true;
      return -limit;
    }
  }
  volatile std::uint64_t sink = x;
  (void)sink;
  return std::chrono::duration<double>(clock::now() - start).count();
}

std::string missing_flags(const std::int64_t* flags, int n) {
  std::ostringstream os;
  for (int u = 1; u < n; ++u)
    if (load(&flags[u]) == 0) os << " " << u;
  return os.str();
}

// Collects each origin's step timings (seconds since its start, -1 for a
// step not reached) on unit 0 and renders them for a failure message.
// Collective.
std::string origin_timings(const std::vector<double>& mine, const std::vector<const char*>& steps) {
  const int n = mpitest::world_size();
  const std::size_t k = steps.size();
  std::vector<double> all(k * static_cast<std::size_t>(n), -1.0);
  MPI_Gather(mine.data(), static_cast<int>(k), MPI_DOUBLE, all.data(), static_cast<int>(k), MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  std::ostringstream os;
  for (int u = 1; u < n; ++u) {
    os << "; unit " << u << ":";
    for (std::size_t s = 0; s < k; ++s)
      os << " " << steps[s] << " done after " << all[static_cast<std::size_t>(u) * k + s] << " s";
  }
  return os.str();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(progress, ProgressFixture)

BOOST_AUTO_TEST_CASE(writes_atomics_and_lock_complete_while_target_computes) {
  if (n < 2 || n > static_cast<int>(kMaxUnits)) {
    BOOST_TEST_MESSAGE("needs 2.." << kMaxUnits << " units; nothing to do with " << n);
    return;
  }
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, portion_bytes(n), DART_TYPE_BYTE, &seg));
  dart_lock_t lock = DART_LOCK_NULL;
  REQUIRE_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  void* base = nullptr;
  REQUIRE_OK(dart_gptr_getaddr(at(seg, me), &base));
  auto* mine = static_cast<unsigned char*>(base);
  for (std::size_t i = 0; i < portion_bytes(n); ++i) mine[i] = 0;
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  const int salt = 1;
  const std::vector<const char*> steps = {"puts", "atomics", "lock", "flag put"};
  std::vector<double> times(steps.size(), -1.0);
  double took = 0;
  std::string missing;
  if (me == 0) {
    const auto* flags = reinterpret_cast<const std::int64_t*>(mine + kFlags1);
    took = compute_until_flags(flags, n);
    missing = missing_flags(flags, n);
  } else {
    const double t0 = MPI_Wtime();
    std::vector<unsigned char> src(3 * kData);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = byte_pattern(me, i, salt);
    const std::size_t sink = kSinks + 3 * kData * static_cast<std::size_t>(me);
    // Data: blocking, non-blocking + flush, handle + wait.
    CHECK_OK(dart_put_blocking(at(seg, 0, sink), src.data(), kData, DART_TYPE_BYTE, DART_TYPE_BYTE));
    CHECK_OK(dart_put(at(seg, 0, sink + kData), src.data() + kData, kData, DART_TYPE_BYTE, DART_TYPE_BYTE));
    CHECK_OK(dart_flush(at(seg, 0)));
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_put_handle(at(seg, 0, sink + 2 * kData), src.data() + 2 * kData, kData, DART_TYPE_BYTE,
                             DART_TYPE_BYTE, &h));
    CHECK_OK(dart_wait(&h));
    times[0] = MPI_Wtime() - t0;
    // Atomics: 10 accumulates of `me`, one fetch-and-add, one CAS 0 -> me.
    const std::int64_t v = me;
    for (int k = 0; k < 10; ++k) CHECK_OK(dart_accumulate(at(seg, 0, kAcc), &v, 1, DART_TYPE_LONGLONG, DART_OP_SUM));
    CHECK_OK(dart_flush(at(seg, 0)));
    const std::int64_t one = 1, zero = 0;
    std::int64_t old = -1, seen = -1;
    CHECK_OK(dart_fetch_and_op(at(seg, 0, kFetch), &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM));
    CHECK_OK(dart_compare_and_swap(at(seg, 0, kCas + 8 * static_cast<std::size_t>(me)), &v, &zero, &seen,
                                   DART_TYPE_LONGLONG));
    CHECK_OK(dart_flush(at(seg, 0)));
    BOOST_CHECK_MESSAGE(old >= 0 && old < n - 1, "rank " << me << ": fetch-and-add on unit 0 returned " << old);
    CHECK_EQ(seen, std::int64_t{0});
    times[1] = MPI_Wtime() - t0;
    // The lock's tail word lives on unit 0.
    CHECK_OK(dart_lock_acquire(lock));
    CHECK_OK(dart_lock_release(lock));
    times[2] = MPI_Wtime() - t0;
    const std::int64_t flag = 1;
    CHECK_OK(dart_put_blocking(at(seg, 0, kFlags1 + 8 * static_cast<std::size_t>(me)), &flag, 1, DART_TYPE_LONGLONG,
                               DART_TYPE_LONGLONG));
    times[3] = MPI_Wtime() - t0;
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  const std::string timings = origin_timings(times, steps);
  if (me == 0) {
    BOOST_CHECK_MESSAGE(took >= 0, "rank 0: computing unit 0 did not see the done flags of unit(s)"
                                       << missing << " within " << -took
                                       << " s: puts/atomics/locks aimed at a unit that does not call MPI did not "
                                          "complete (no target-side progress)"
                                       << timings);
    BOOST_TEST_MESSAGE("rank 0: computing for " << took << " s" << timings);
  }

  if (me == 0) {
    for (int u = 1; u < n; ++u) {
      const std::size_t sink = kSinks + 3 * kData * static_cast<std::size_t>(u);
      const std::size_t bad = mismatches(mine + sink, 3 * kData, u, salt);
      BOOST_CHECK_MESSAGE(bad == 0,
                          "rank 0: " << bad << " of " << 3 * kData << " bytes written by unit " << u << " are wrong");
      const auto* cas = reinterpret_cast<const std::int64_t*>(mine + kCas);
      CHECK_EQ(cas[u], std::int64_t{u});
    }
    const auto* acc = reinterpret_cast<const std::int64_t*>(mine + kAcc);
    const auto* fetch = reinterpret_cast<const std::int64_t*>(mine + kFetch);
    CHECK_EQ(*acc, std::int64_t{10} * n * (n - 1) / 2);
    CHECK_EQ(*fetch, std::int64_t{n - 1});
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_lock_destroy(&lock));
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(reads_complete_while_target_computes) {
  if (n < 2 || n > static_cast<int>(kMaxUnits)) {
    BOOST_TEST_MESSAGE("needs 2.." << kMaxUnits << " units; nothing to do with " << n);
    return;
  }
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, portion_bytes(n), DART_TYPE_BYTE, &seg));
  void* base = nullptr;
  REQUIRE_OK(dart_gptr_getaddr(at(seg, me), &base));
  auto* mine = static_cast<unsigned char*>(base);
  const int salt = 2;
  for (std::size_t i = 0; i < portion_bytes(n); ++i) mine[i] = 0;
  for (std::size_t i = 0; i < kData; ++i) mine[kSource + i] = byte_pattern(me, i, salt);
  *reinterpret_cast<std::int64_t*>(mine + kRead) = 4242 + me;
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  const std::vector<const char*> steps = {"gets", "fetch NO_OP", "flag accumulate"};
  std::vector<double> times(steps.size(), -1.0);
  double took = 0;
  std::string missing;
  if (me == 0) {
    const auto* flags = reinterpret_cast<const std::int64_t*>(mine + kFlags2);
    took = compute_until_flags(flags, n);
    missing = missing_flags(flags, n);
  } else {
    const double t0 = MPI_Wtime();
    std::vector<unsigned char> got(kData, 0);
    CHECK_OK(dart_get_blocking(got.data(), at(seg, 0, kSource), kData, DART_TYPE_BYTE, DART_TYPE_BYTE));
    std::size_t bad = mismatches(got.data(), kData, 0, salt);
    BOOST_CHECK_MESSAGE(bad == 0,
                        "rank " << me << ": dart_get_blocking from computing unit 0: " << bad << " wrong bytes");
    std::fill(got.begin(), got.end(), 0);
    CHECK_OK(dart_get(got.data(), at(seg, 0, kSource), kData, DART_TYPE_BYTE, DART_TYPE_BYTE));
    CHECK_OK(dart_flush_local(at(seg, 0)));
    bad = mismatches(got.data(), kData, 0, salt);
    BOOST_CHECK_MESSAGE(bad == 0,
                        "rank " << me << ": dart_get + flush_local from computing unit 0: " << bad << " wrong bytes");
    std::fill(got.begin(), got.end(), 0);
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_get_handle(got.data(), at(seg, 0, kSource), kData, DART_TYPE_BYTE, DART_TYPE_BYTE, &h));
    CHECK_OK(dart_wait(&h));
    bad = mismatches(got.data(), kData, 0, salt);
    BOOST_CHECK_MESSAGE(bad == 0,
                        "rank " << me << ": dart_get_handle from computing unit 0: " << bad << " wrong bytes");
    times[0] = MPI_Wtime() - t0;
    std::int64_t value = -1;
    const std::int64_t ignored = 0;
    CHECK_OK(dart_fetch_and_op(at(seg, 0, kRead), &ignored, &value, DART_TYPE_LONGLONG, DART_OP_NO_OP));
    CHECK_OK(dart_flush(at(seg, 0)));
    CHECK_EQ(value, std::int64_t{4242});
    times[1] = MPI_Wtime() - t0;
    const std::int64_t flag = 1;
    CHECK_OK(dart_accumulate(at(seg, 0, kFlags2 + 8 * static_cast<std::size_t>(me)), &flag, 1, DART_TYPE_LONGLONG,
                             DART_OP_REPLACE));
    CHECK_OK(dart_flush(at(seg, 0)));
    times[2] = MPI_Wtime() - t0;
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  const std::string timings = origin_timings(times, steps);
  if (me == 0) {
    BOOST_CHECK_MESSAGE(took >= 0, "rank 0: computing unit 0 did not see the done flags of unit(s)"
                                       << missing << " within " << -took
                                       << " s: gets/atomics aimed at a unit that does not call MPI did not complete "
                                          "(no target-side progress)"
                                       << timings);
    BOOST_TEST_MESSAGE("rank 0: computing for " << took << " s" << timings);
  }
  CHECK_OK(dart_team_memfree(seg));
}

// The same for memory the units registered themselves (MPI libraries may
// serve registrations by another window kind than allocations).
BOOST_AUTO_TEST_CASE(registered_memory_is_served_while_target_computes) {
  if (n < 2 || n > static_cast<int>(kMaxUnits)) {
    BOOST_TEST_MESSAGE("needs 2.." << kMaxUnits << " units; nothing to do with " << n);
    return;
  }
  // int64 words: [0, kMaxUnits) flags, [kMaxUnits] accumulate target,
  // [kMaxUnits + 1] fetch-and-add target, then kData bytes per origin.
  const std::size_t words = 2 * kMaxUnits + kData / 8 * static_cast<std::size_t>(n);
  std::vector<std::int64_t> mem(words, 0);
  dart_gptr_t reg = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, words, DART_TYPE_LONGLONG, mem.data(), &reg);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_team_memregister_aligned returned " << rc);
  if (!mpitest::all_ranks(rc == DART_OK)) return;
  const int salt = 3;
  const std::vector<const char*> steps = {"put", "atomics", "flag put"};
  std::vector<double> times(steps.size(), -1.0);
  double took = 0;
  std::string missing;
  const std::size_t data_word = 2 * kMaxUnits;
  if (me == 0) {
    took = compute_until_flags(mem.data(), n);
    missing = missing_flags(mem.data(), n);
  } else {
    const double t0 = MPI_Wtime();
    std::vector<unsigned char> src(kData);
    for (std::size_t i = 0; i < kData; ++i) src[i] = byte_pattern(me, i, salt);
    const std::size_t off = 8 * (data_word + kData / 8 * static_cast<std::size_t>(me));
    CHECK_OK(dart_put_blocking(at(reg, 0, off), src.data(), kData / 8, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
    times[0] = MPI_Wtime() - t0;
    const std::int64_t v = me, one = 1;
    std::int64_t old = -1;
    CHECK_OK(dart_accumulate(at(reg, 0, 8 * kMaxUnits), &v, 1, DART_TYPE_LONGLONG, DART_OP_SUM));
    CHECK_OK(dart_fetch_and_op(at(reg, 0, 8 * (kMaxUnits + 1)), &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM));
    CHECK_OK(dart_flush(at(reg, 0)));
    BOOST_CHECK_MESSAGE(old >= 0 && old < n - 1, "rank " << me << ": fetch-and-add on unit 0 returned " << old);
    times[1] = MPI_Wtime() - t0;
    CHECK_OK(dart_put_blocking(at(reg, 0, 8 * static_cast<std::size_t>(me)), &one, 1, DART_TYPE_LONGLONG,
                               DART_TYPE_LONGLONG));
    times[2] = MPI_Wtime() - t0;
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  const std::string timings = origin_timings(times, steps);
  if (me == 0) {
    BOOST_CHECK_MESSAGE(took >= 0, "rank 0: computing unit 0 did not see the done flags of unit(s)"
                                       << missing << " within " << -took
                                       << " s: puts/atomics aimed at registered memory of a unit that does not call "
                                          "MPI did not complete (no target-side progress)"
                                       << timings);
    BOOST_TEST_MESSAGE("rank 0: computing for " << took << " s" << timings);
    CHECK_EQ(mem[kMaxUnits], std::int64_t{n} * (n - 1) / 2);
    CHECK_EQ(mem[kMaxUnits + 1], std::int64_t{n - 1});
    for (int u = 1; u < n; ++u) {
      const auto* p = reinterpret_cast<const unsigned char*>(&mem[data_word + kData / 8 * static_cast<std::size_t>(u)]);
      const std::size_t bad = mismatches(p, kData, u, salt);
      BOOST_CHECK_MESSAGE(bad == 0, "rank 0: " << bad << " of " << kData << " bytes unit " << u
                                               << " wrote into registered memory are wrong");
    }
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memderegister(reg));
}

BOOST_AUTO_TEST_SUITE_END()
