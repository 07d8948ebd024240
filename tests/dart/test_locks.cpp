// Team locks of DART (dart_synchronization.h, spec 3.7) on DART_TEAM_ALL:
// dart_team_lock_init / dart_team_lock_destroy (DART_LOCK_NULL afterwards,
// NULL and DART_LOCK_NULL accepted, repeated cycles), dart_lock_initialized,
// mutual exclusion of dart_lock_acquire / dart_lock_release across all units
// and across 3 threads per unit when DART_THREAD_MULTIPLE is granted (exact
// final counters updated by get / +1 / put / flush inside the critical
// section, plus an occupancy word that must never see two holders),
// dart_lock_try_acquire (0 while another unit or another thread of the same
// unit holds the lock, 1 when free), independence of two locks, and release
// without holding (DART_ERR_INVAL, lock state unaffected). Not covered:
// FIFO order (not forced across processes by anything the test can
// observe), recursive acquisition (erroneous), locks on teams other than
// DART_TEAM_ALL and after team destruction, log lines of rejected calls
// (test_rma_bad_input.cpp). The .rma variants force the MPI path with
// DART_SHARED_MEMORY=0.
#include "dart_checks.hpp"
#include "dart_patterns.hpp"

#include <dash/dart/if/dart.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

using dartcheck::at;
using dartcheck::QuietDart;
using dartcheck::slow_ranks;

struct LockFixture : dartcheck::DartFixture {
  // A new lock on DART_TEAM_ALL (collective).
  dart_lock_t new_lock() const {
    dart_lock_t l = DART_LOCK_NULL;
    REQUIRE_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
    REQUIRE_RANK(l != DART_LOCK_NULL);
    return l;
  }
};

using dartpattern::own;

// Spins until `flag` holds `value`; false after 20 s.
bool wait_for(const std::atomic<int>& flag, int value) {
  const double deadline = MPI_Wtime() + 20.0;
  while (flag.load() != value) {
    if (MPI_Wtime() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Runs `body` on `count` threads (on the calling thread when count is 1
// and threads are not allowed) and waits for them at most `seconds`. A
// thread stuck inside DART (a lost hand-over, a deadlock in the lock) cannot
// be cancelled, so on timeout the job is aborted with a message naming the
// rank and `progress()`, instead of running into the harness timeout.
template <class Body, class Progress>
void run_bounded(bool use_threads, int count, Body body, double seconds, const std::string& what, Progress progress) {
  if (!use_threads) {
    body();
    return;
  }
  std::atomic<int> finished{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < count; ++t)
    ts.emplace_back([&] {
      body();
      ++finished;
    });
  const double deadline = MPI_Wtime() + seconds;
  while (finished.load() < count && MPI_Wtime() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (finished.load() < count) {
    BOOST_ERROR("rank " << mpitest::world_rank() << ": " << what << ": " << count - finished.load() << " of " << count
                        << " threads still inside DART after " << seconds << " s (" << progress()
                        << "); aborting the job");
    std::cout << std::flush;
    std::fprintf(stderr, "[rank %d] %s: threads stuck after %.0f s (%s); aborting\n", mpitest::world_rank(),
                 what.c_str(), seconds, progress().c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  for (auto& th : ts) th.join();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(locks, LockFixture)

BOOST_AUTO_TEST_CASE(init_destroy_and_initialized) {
  CHECK_RANK(!dart_lock_initialized(DART_LOCK_NULL));
  dart_lock_t a = new_lock();
  dart_lock_t b = new_lock();
  CHECK_RANK(a != b);
  CHECK_RANK(dart_lock_initialized(a));
  CHECK_RANK(dart_lock_initialized(b));
  // Destroyed in the other order than created.
  CHECK_OK(dart_team_lock_destroy(&a));
  CHECK_RANK(a == DART_LOCK_NULL);
  CHECK_RANK(!dart_lock_initialized(a));
  CHECK_RANK(dart_lock_initialized(b));
  CHECK_OK(dart_team_lock_destroy(&b));
  CHECK_RANK(b == DART_LOCK_NULL);
  // NULL and DART_LOCK_NULL are no-ops (not collective, not an error).
  CHECK_OK(dart_team_lock_destroy(nullptr));
  CHECK_OK(dart_team_lock_destroy(&b));
  CHECK_RANK(b == DART_LOCK_NULL);

  // A copy of a destroyed handle is detected, never dereferenced (under
  // AddressSanitizer this was a heap use after free).
  dart_lock_t c = new_lock();
  const dart_lock_t copy = c;
  CHECK_OK(dart_team_lock_destroy(&c));
  {
    dartcheck::QuietDart quiet;
    int32_t got = -1;
    CHECK_RANK(!dart_lock_initialized(copy));
    CHECK_EQ(dart_lock_acquire(copy), DART_ERR_INVAL);
    CHECK_EQ(dart_lock_try_acquire(copy, &got), DART_ERR_INVAL);
    CHECK_EQ(got, 0);
    CHECK_EQ(dart_lock_release(copy), DART_ERR_INVAL);
    dart_lock_t again = copy;
    CHECK_EQ(dart_team_lock_destroy(&again), DART_ERR_INVAL);
  }

  // Repeated cycles, each lock used once.
  const int cycles = slow_ranks() ? 20 : 100;
  for (int c = 0; c < cycles; ++c) {
    dart_lock_t l = DART_LOCK_NULL;
    CHECK_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
    if (l == DART_LOCK_NULL) break;
    if (c % n == me) {
      CHECK_OK(dart_lock_acquire(l));
      CHECK_OK(dart_lock_release(l));
    }
    CHECK_OK(dart_team_lock_destroy(&l));
    CHECK_RANK(l == DART_LOCK_NULL);
  }
}

// Every unit, with T threads each, increments counters K times under the
// lock; inside the critical section an occupancy word (atomics) and a
// per-unit std::atomic must show exactly one holder.
BOOST_AUTO_TEST_CASE(mutual_exclusion_across_units_and_threads) {
  const int threads = multiple ? 3 : 1;
  if (!multiple) BOOST_TEST_MESSAGE("rank " << me << ": DART_THREAD_MULTIPLE not available; one thread per unit");
  const int iterations = slow_ranks() ? 25 : 100;
  dart_lock_t lock = new_lock();

  // Counter A and the occupancy word in unit 0's part of a team segment;
  // counter B in a dart_memalloc block of the last unit.
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2, DART_TYPE_LONG, &seg));
  long* mine = own<long>(seg, me);
  mine[0] = mine[1] = 0;
  dart_gptr_t block = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(1, DART_TYPE_LONGLONG, &block));
  *own<long long>(block, me) = 0;
  std::vector<dart_gptr_t> blocks(static_cast<std::size_t>(n));
  MPI_Allgather(&block, sizeof block, MPI_BYTE, blocks.data(), sizeof block, MPI_BYTE, MPI_COMM_WORLD);
  barrier();
  const dart_gptr_t counter_a = at(seg, 0, 0);
  const dart_gptr_t occupancy = at(seg, 0, sizeof(long));
  const dart_gptr_t counter_b = blocks[static_cast<std::size_t>(n - 1)];

  std::atomic<int> in_unit{0};
  std::atomic<int> errors{0}, overlaps{0};
  std::atomic<long> done{0};
  auto worker = [&]() {
    const long one = 1, minus_one = -1;
    for (int k = 0; k < iterations; ++k) {
      if (dart_lock_acquire(lock) != DART_OK) {
        ++errors;
        return;
      }
      if (in_unit.fetch_add(1) != 0) ++overlaps;
      long occ = -1;
      if (dart_fetch_and_op(occupancy, &one, &occ, DART_TYPE_LONG, DART_OP_SUM) != DART_OK ||
          dart_flush(occupancy) != DART_OK)
        ++errors;
      if (occ != 0) ++overlaps;
      // A: blocking read-modify-write.
      long a = -1;
      if (dart_get_blocking(&a, counter_a, 1, DART_TYPE_LONG, DART_TYPE_LONG) != DART_OK) ++errors;
      ++a;
      if (dart_put_blocking(counter_a, &a, 1, DART_TYPE_LONG, DART_TYPE_LONG) != DART_OK ||
          dart_flush(counter_a) != DART_OK)
        ++errors;
      // B: non-blocking read-modify-write, completed by flushes.
      long long b = -1;
      if (dart_get(&b, counter_b, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG) != DART_OK ||
          dart_flush_local(counter_b) != DART_OK)
        ++errors;
      ++b;
      if (dart_put(counter_b, &b, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG) != DART_OK ||
          dart_flush(counter_b) != DART_OK)
        ++errors;
      if (dart_fetch_and_op(occupancy, &minus_one, &occ, DART_TYPE_LONG, DART_OP_SUM) != DART_OK ||
          dart_flush(occupancy) != DART_OK)
        ++errors;
      if (occ != 1) ++overlaps;
      in_unit.fetch_sub(1);
      if (dart_lock_release(lock) != DART_OK) {
        ++errors;
        return;
      }
      ++done;
    }
  };
  run_bounded(multiple, threads, worker, 60.0, "locked increments",
              [&] { return std::to_string(done.load()) + " increments done on this unit"; });
  CHECK_EQ(errors.load(), 0);
  CHECK_EQ(overlaps.load(), 0);
  CHECK_EQ(done.load(), static_cast<long>(threads) * iterations);
  barrier();

  // Threads per unit may differ in principle; add up what was done.
  long total = 0, mine_done = done.load();
  MPI_Allreduce(&mine_done, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) {
    CHECK_EQ(mine[0], total);
    CHECK_EQ(mine[1], 0L);
  }
  if (me == n - 1) CHECK_EQ(*own<long long>(block, me), static_cast<long long>(total));
  long a = -1;
  long long b = -1;
  CHECK_OK(dart_get_blocking(&a, counter_a, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_get_blocking(&b, counter_b, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  BOOST_CHECK_MESSAGE(a == total && b == total, "rank " << me << ": counters " << a << " and " << b << " after "
                                                        << total << " locked increments");
  barrier();
  CHECK_OK(dart_memfree(block));
  CHECK_OK(dart_team_memfree(seg));
  CHECK_OK(dart_team_lock_destroy(&lock));
  CHECK_RANK(lock == DART_LOCK_NULL);
}

BOOST_AUTO_TEST_CASE(try_acquire_while_another_unit_holds) {
  dart_lock_t lock = new_lock();
  int32_t r = -1;
  if (me == 0) {
    CHECK_OK(dart_lock_acquire(lock));
    if (multiple) {
      // Another thread of the holding unit does not get it either.
      std::atomic<int> tried{-1};
      std::thread other([&] {
        int32_t x = -1;
        if (dart_lock_try_acquire(lock, &x) != DART_OK) x = -2;
        tried = x;
      });
      other.join();
      BOOST_CHECK_MESSAGE(tried.load() == 0, "rank " << me
                                                     << ": try_acquire by a second thread of the holding unit gave "
                                                     << tried.load() << ", expected 0");
    }
  }
  barrier();
  if (me != 0) {
    // Several units try at once; all must fail.
    for (int k = 0; k < 5; ++k) {
      r = -1;
      CHECK_OK(dart_lock_try_acquire(lock, &r));
      BOOST_CHECK_MESSAGE(r == 0, "rank " << me << ": try_acquire while unit 0 holds the lock gave " << r);
      if (r == 1) CHECK_OK(dart_lock_release(lock));
    }
  }
  barrier();
  if (me == 0) CHECK_OK(dart_lock_release(lock));
  barrier();
  // Free now: each unit in turn gets it by try_acquire.
  for (int u = 0; u < n; ++u) {
    if (u == me) {
      r = -1;
      CHECK_OK(dart_lock_try_acquire(lock, &r));
      BOOST_CHECK_MESSAGE(r == 1, "rank " << me << ": try_acquire of the free lock gave " << r);
      if (r == 1) CHECK_OK(dart_lock_release(lock));
    }
    barrier();
  }
  CHECK_OK(dart_team_lock_destroy(&lock));
}

BOOST_AUTO_TEST_CASE(try_acquire_while_another_thread_holds) {
  if (!multiple) {
    BOOST_TEST_MESSAGE("rank " << me << ": DART_THREAD_MULTIPLE not available; thread part skipped");
    return;
  }
  dart_lock_t lock = new_lock();
  // Units take turns so that the lock is contended only within a unit.
  for (int u = 0; u < n; ++u) {
    if (u == me) {
      std::atomic<int> state{0};  // 1: holder has it, 2: may release, 3: released
      std::atomic<int> holder_errors{0};
      std::thread holder([&] {
        if (dart_lock_acquire(lock) != DART_OK) ++holder_errors;
        state = 1;
        if (!wait_for(state, 2)) ++holder_errors;
        if (dart_lock_release(lock) != DART_OK) ++holder_errors;
        state = 3;
      });
      if (!wait_for(state, 1)) {
        // The holder is stuck inside dart_lock_acquire: nothing to join.
        BOOST_ERROR("rank " << me << ": holder thread did not get the free lock in 20 s; aborting the job");
        std::cout << std::flush;
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      int32_t r = -1;
      CHECK_OK(dart_lock_try_acquire(lock, &r));
      BOOST_CHECK_MESSAGE(r == 0,
                          "rank " << me << ": try_acquire while another thread of this unit holds the lock gave " << r);
      if (r == 1) CHECK_OK(dart_lock_release(lock));
      state = 2;
      if (!wait_for(state, 3)) {
        BOOST_ERROR("rank " << me << ": holder thread did not return from dart_lock_release in 20 s; aborting the job");
        std::cout << std::flush;
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      holder.join();
      CHECK_EQ(holder_errors.load(), 0);
      r = -1;
      CHECK_OK(dart_lock_try_acquire(lock, &r));
      BOOST_CHECK_MESSAGE(r == 1, "rank " << me << ": try_acquire after the other thread released gave " << r);
      if (r == 1) CHECK_OK(dart_lock_release(lock));
    }
    barrier();
  }
  CHECK_OK(dart_team_lock_destroy(&lock));
}

BOOST_AUTO_TEST_CASE(two_locks_are_independent) {
  dart_lock_t a = new_lock();
  dart_lock_t b = new_lock();
  if (me == 0) CHECK_OK(dart_lock_acquire(a));
  barrier();
  const int last = n - 1;
  if (me == last) {
    int32_t r = -1;
    CHECK_OK(dart_lock_try_acquire(b, &r));
    BOOST_CHECK_MESSAGE(r == 1, "rank " << me << ": lock B not free while only lock A is held (" << r << ")");
    if (r == 1) CHECK_OK(dart_lock_release(b));
    if (me != 0) {
      r = -1;
      CHECK_OK(dart_lock_try_acquire(a, &r));
      BOOST_CHECK_MESSAGE(r == 0, "rank " << me << ": lock A free although unit 0 holds it (" << r << ")");
      if (r == 1) CHECK_OK(dart_lock_release(a));
    }
  }
  barrier();
  if (me == 0) CHECK_OK(dart_lock_release(a));
  barrier();
  CHECK_OK(dart_team_lock_destroy(&b));
  CHECK_OK(dart_team_lock_destroy(&a));
}

BOOST_AUTO_TEST_CASE(release_without_holding_is_rejected) {
  dart_lock_t lock = new_lock();
  {
    QuietDart quiet;
    CHECK_EQ(dart_lock_release(lock), DART_ERR_INVAL);  // never acquired
  }
  barrier();
  if (me == 0) {
    CHECK_OK(dart_lock_acquire(lock));
    CHECK_OK(dart_lock_release(lock));
    QuietDart quiet;
    CHECK_EQ(dart_lock_release(lock), DART_ERR_INVAL);  // released twice
  }
  barrier();
  // Unit 0 holds it; the others' releases are rejected and change nothing.
  if (me == 0) CHECK_OK(dart_lock_acquire(lock));
  barrier();
  if (me != 0) {
    {
      QuietDart quiet;
      CHECK_EQ(dart_lock_release(lock), DART_ERR_INVAL);
    }
    int32_t r = -1;
    CHECK_OK(dart_lock_try_acquire(lock, &r));
    BOOST_CHECK_MESSAGE(r == 0, "rank " << me << ": lock free after a rejected release by a non-holder (" << r << ")");
    if (r == 1) CHECK_OK(dart_lock_release(lock));
  }
  barrier();
  if (me == 0) CHECK_OK(dart_lock_release(lock));
  barrier();
  // Still a working lock.
  CHECK_OK(dart_lock_acquire(lock));
  CHECK_OK(dart_lock_release(lock));
  barrier();
  CHECK_OK(dart_team_lock_destroy(&lock));
}

BOOST_AUTO_TEST_SUITE_END()
