// One-sided transfers into other kinds of global memory, last part of the
// dart_onesided executable: targets in the dart_memalloc pool and in
// registered memory (dart_team_memregister_aligned, also at bases that are
// only naturally aligned, and dart_team_memregister with a different size
// per unit); many outstanding operations; and puts/gets from several
// threads when DART_THREAD_MULTIPLE is available.
// Not covered here: atomics (test_atomics.cpp), transfers above INT_MAX
// elements (test_large_transfer.cpp), invalid arguments
// (test_rma_bad_input.cpp), target-side progress (test_progress.cpp), teams
// other than DART_TEAM_ALL, and ordering of unflushed puts/gets (undefined
// by the spec). The .rma variants force the MPI RMA path with
// DART_SHARED_MEMORY=0; real multi-node runs are not covered.
#include "onesided_common.hpp"

#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <sstream>

using namespace onesidedtest;

BOOST_FIXTURE_TEST_SUITE(onesided, DartFixture)

// ---- other kinds of global memory ------------------------------------------------------

BOOST_AUTO_TEST_CASE(local_pool_and_registered_memory) {
  using T = long;
  constexpr std::size_t kN = 256;
  // dart_memalloc blocks, addressed by their owners' gptrs.
  dart_gptr_t block = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(kN, DART_TYPE_LONG, &block));
  const std::vector<dart_gptr_t> blocks = allgather(block);
  T* mine = own<T>(block, me);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = sentinel<T>(me, i, 100);
  barrier();
  std::vector<T> src(kN);
  for (std::size_t i = 0; i < kN; ++i) src[i] = pattern<T>(me, i, 100);
  const dart_gptr_t rb = blocks[static_cast<std::size_t>(right)];
  CHECK_OK(dart_put(at(rb, rb.unitid, 16 * sizeof(T)), src.data(), 200, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_flush(rb));
  barrier();
  auto pool_expect = [&](int owner, int writer) {
    return [=](std::size_t i) {
      return (i >= 16 && i < 216) ? pattern<T>(writer, i - 16, 100) : sentinel<T>(owner, i, 100);
    };
  };
  verify(mine, kN, pool_expect(me, left), me, "own dart_memalloc block after the left neighbour's dart_put");
  std::vector<T> got(kN, -1);
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_get_handle(got.data(), blocks[static_cast<std::size_t>(left)], kN, DART_TYPE_LONG, DART_TYPE_LONG, &h));
  CHECK_OK(dart_wait_local(&h));
  verify(got.data(), kN, pool_expect(left, (left + n - 1) % n), me, "left neighbour's dart_memalloc block");
  barrier();
  CHECK_OK(dart_memfree(block));

  // Registered memory.
  std::vector<T> buf(kN);
  for (std::size_t i = 0; i < kN; ++i) buf[i] = sentinel<T>(me, i, 101);
  dart_gptr_t reg = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, kN, DART_TYPE_LONG, buf.data(), &reg);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_team_memregister_aligned returned " << rc);
  if (!mpitest::all_ranks(rc == DART_OK)) return;
  for (std::size_t i = 0; i < kN; ++i) src[i] = pattern<T>(me, i, 102);
  CHECK_OK(dart_put_handle(at(reg, right, 8 * sizeof(T)), src.data(), 100, DART_TYPE_LONG, DART_TYPE_LONG, &h));
  CHECK_OK(dart_wait(&h));
  CHECK_OK(dart_put(at(reg, right, 150 * sizeof(T)), src.data() + 100, 100, DART_TYPE_LONG, DART_TYPE_LONG));
  // Every 4th element of [110, 150) by a strided put whose handle is freed;
  // the flush completes it.
  const Type every4 = Type::strided(DART_TYPE_LONG, 4, 1);
  std::vector<T> s4(10);
  for (std::size_t k = 0; k < 10; ++k) s4[k] = pattern<T>(me, 300 + k, 102);
  CHECK_OK(dart_put_handle(at(reg, right, 110 * sizeof(T)), s4.data(), 10, DART_TYPE_LONG, every4, &h));
  CHECK_OK(dart_handle_free(&h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  CHECK_OK(dart_flush_all(reg));
  barrier();
  auto reg_expect = [&](int owner, int writer) {
    return [=](std::size_t i) {
      if (i >= 8 && i < 108) return pattern<T>(writer, i - 8, 102);
      if (i >= 150 && i < 250) return pattern<T>(writer, 100 + i - 150, 102);
      if (i >= 110 && i < 150 && (i - 110) % 4 == 0) return pattern<T>(writer, 300 + (i - 110) / 4, 102);
      return sentinel<T>(owner, i, 101);
    };
  };
  verify(buf.data(), kN, reg_expect(me, left), me, "own registered buffer after the left neighbour's puts");
  std::fill(got.begin(), got.end(), -1);
  CHECK_OK(dart_get(got.data(), at(reg, left), kN, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_flush_local_all(reg));
  verify(got.data(), kN, reg_expect(left, (left + n - 1) % n), me, "left neighbour's registered buffer");
  barrier();
  CHECK_OK(dart_team_memderegister(reg));

  // dart_team_memregister: every unit registers its own number of elements,
  // (unit + 1) * 16; each fills its right neighbour's whole buffer.
  const auto count_of = [](int u) { return static_cast<std::size_t>(u + 1) * 16; };
  std::vector<T> own_buf(count_of(me), T{-1});
  dart_gptr_t var = DART_GPTR_NULL;
  const dart_ret_t rc2 = dart_team_memregister(DART_TEAM_ALL, own_buf.size(), DART_TYPE_LONG, own_buf.data(), &var);
  BOOST_CHECK_MESSAGE(rc2 == DART_OK, "rank " << me << ": dart_team_memregister returned " << rc2);
  if (!mpitest::all_ranks(rc2 == DART_OK)) return;
  std::vector<T> fill_right(count_of(right));
  for (std::size_t i = 0; i < fill_right.size(); ++i) fill_right[i] = pattern<T>(me, i, 103);
  CHECK_OK(dart_put(at(var, right), fill_right.data(), fill_right.size(), DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_flush(at(var, right)));
  barrier();
  verify(
      own_buf.data(), own_buf.size(), [&](std::size_t i) { return pattern<T>(left, i, 103); }, me,
      "own buffer of " + std::to_string(own_buf.size()) + " elements registered by dart_team_memregister");
  std::vector<T> from_left(count_of(left), T{-1});
  CHECK_OK(dart_get_handle(from_left.data(), at(var, left), from_left.size(), DART_TYPE_LONG, DART_TYPE_LONG, &h));
  CHECK_OK(dart_wait(&h));
  verify(
      from_left.data(), from_left.size(), [&](std::size_t i) { return pattern<T>((left + n - 1) % n, i, 103); }, me,
      "left neighbour's buffer registered by dart_team_memregister");
  barrier();
  CHECK_OK(dart_team_memderegister(var));
}

// Registered memory need not start on any boundary beyond the element
// type's own alignment (a user may register a struct member or &a[1]):
// registrations 0, 8 and 24 bytes past a 64-byte boundary, ring put and get.
BOOST_AUTO_TEST_CASE(registered_memory_at_natural_alignment_only) {
  using T = long;
  constexpr std::size_t kN = 64;
  int salt = 130;
  for (const std::size_t shift : {std::size_t{0}, std::size_t{8}, std::size_t{24}}) {
    ++salt;
    std::vector<unsigned char> storage(kN * sizeof(T) + 128);
    auto base = reinterpret_cast<std::uintptr_t>(storage.data());
    base = ((base + 63) & ~std::uintptr_t{63}) + shift;
    T* buf = reinterpret_cast<T*>(base);
    for (std::size_t i = 0; i < kN; ++i) buf[i] = sentinel<T>(me, i, salt);
    const std::string what = "registration " + std::to_string(shift) + " bytes past a 64-byte boundary";
    dart_gptr_t reg = DART_GPTR_NULL;
    const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, kN, DART_TYPE_LONG, buf, &reg);
    BOOST_CHECK_MESSAGE(rc == DART_OK,
                        "rank " << me << ": " << what << ": dart_team_memregister_aligned returned " << rc);
    if (!mpitest::all_ranks(rc == DART_OK)) continue;
    std::vector<T> src(20);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<T>(me, i, salt);
    CHECK_OK(dart_put(at(reg, right, 3 * sizeof(T)), src.data(), src.size(), DART_TYPE_LONG, DART_TYPE_LONG));
    CHECK_OK(dart_flush(at(reg, right)));
    barrier();
    auto expected = [&](int owner, int writer) {
      return [=](std::size_t i) {
        return (i >= 3 && i < 23) ? pattern<T>(writer, i - 3, salt) : sentinel<T>(owner, i, salt);
      };
    };
    verify(buf, kN, expected(me, left), me, "own " + what + " after the left neighbour's dart_put");
    std::vector<T> got(kN, T{-1});
    CHECK_OK(dart_get_blocking(got.data(), at(reg, left), kN, DART_TYPE_LONG, DART_TYPE_LONG));
    verify(got.data(), kN, expected(left, (left + n - 1) % n), me,
           "left neighbour's " + what + " by dart_get_blocking");
    barrier();
    CHECK_OK(dart_team_memderegister(reg));
  }
}

BOOST_AUTO_TEST_CASE(many_outstanding_operations) {
  using T = int;
  constexpr std::size_t kN = 2000;
  const dart_gptr_t seg = team_alloc<T>(kN, DART_TYPE_INT);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = sentinel<T>(me, i, 110);
  barrier();
  // One element per put, in reverse order, one flush for all of them.
  std::vector<T> src(kN);
  for (std::size_t i = 0; i < kN; ++i) src[i] = pattern<T>(me, i, 110);
  for (std::size_t k = kN; k-- > 0;)
    CHECK_OK(dart_put(at(seg, right, k * sizeof(T)), &src[k], 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_flush_all(seg));
  barrier();
  verify(
      mine, kN, [&](std::size_t i) { return pattern<T>(left, i, 110); }, me,
      "own portion after 2000 single-element puts");
  // One element per get_handle, all completed by one dart_waitall.
  std::vector<T> got(kN, -1);
  std::vector<dart_handle_t> hs(kN, DART_HANDLE_NULL);
  for (std::size_t k = 0; k < kN; ++k)
    CHECK_OK(dart_get_handle(&got[k], at(seg, left, k * sizeof(T)), 1, DART_TYPE_INT, DART_TYPE_INT, &hs[k]));
  CHECK_OK(dart_waitall(hs.data(), hs.size()));
  CHECK_RANK(all_null(hs));
  verify(
      got.data(), kN, [&](std::size_t i) { return pattern<T>((left + n - 1) % n, i, 110); }, me,
      "2000 single-element get_handles");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_SUITE_END()

// ---- threads -----------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(threads_put_and_get_concurrently, DartThreadFixture) {
  if (!multiple) {
    BOOST_TEST_MESSAGE("rank " << me << ": DART_THREAD_MULTIPLE not available; thread part skipped");
    return;
  }
  using T = long;
  constexpr int kThreads = 3;
  constexpr std::size_t kPerThread = 600, kLen = 6;  // 100 puts of 6 elements per thread
  constexpr std::size_t kPortion = kThreads * kPerThread;
  const dart_gptr_t seg = team_alloc<T>(kPortion, DART_TYPE_LONG);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < kPortion; ++i) mine[i] = sentinel<T>(me, i, 120);
  barrier();

  std::vector<T> src(kPortion);
  for (std::size_t i = 0; i < kPortion; ++i) src[i] = pattern<T>(me, i, 120);
  std::atomic<int> failures{0};
  auto putter = [&](int t) {
    const std::size_t base = static_cast<std::size_t>(t) * kPerThread;
    for (std::size_t k = 0; k < kPerThread; k += kLen) {
      if (dart_put(at(seg, right, (base + k) * sizeof(T)), &src[base + k], kLen, DART_TYPE_LONG, DART_TYPE_LONG) !=
          DART_OK)
        ++failures;
    }
    if (dart_flush(at(seg, right)) != DART_OK) ++failures;
  };
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t) ts.emplace_back(putter, t);
    for (auto& th : ts) th.join();
  }
  CHECK_EQ(failures.load(), 0);
  barrier();
  verify(
      mine, kPortion, [&](std::size_t i) { return pattern<T>(left, i, 120); }, me,
      "own portion after puts from 3 threads of the left neighbour");

  std::vector<T> got(kPortion, -1);
  auto getter = [&](int t) {
    const std::size_t base = static_cast<std::size_t>(t) * kPerThread;
    std::vector<dart_handle_t> hs;
    for (std::size_t k = 0; k < kPerThread; k += 60) {
      dart_handle_t h = DART_HANDLE_NULL;
      if (dart_get_handle(&got[base + k], at(seg, left, (base + k) * sizeof(T)), 60, DART_TYPE_LONG, DART_TYPE_LONG,
                          &h) != DART_OK)
        ++failures;
      hs.push_back(h);
    }
    if (dart_waitall(hs.data(), hs.size()) != DART_OK) ++failures;
  };
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t) ts.emplace_back(getter, t);
    for (auto& th : ts) th.join();
  }
  CHECK_EQ(failures.load(), 0);
  verify(
      got.data(), kPortion, [&](std::size_t i) { return pattern<T>((left + n - 1) % n, i, 120); }, me,
      "left neighbour's portion by get_handles from 3 threads");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

// The direct-access cache under threads: while the main thread of every
// unit allocates and frees segments of changing sizes (so slots are
// emptied and refilled, and segment ids reused), two more threads put,
// get and fetch-and-add through a long-lived segment, and put into and
// flush each transient segment once before the main thread frees it (it
// waits for their word; using a segment while it is freed is a program
// error). Every access must succeed and read back what it wrote, the
// bytes nobody writes must keep their sentinels, every fetch-and-add
// must land once, and each helper must see the counter grow. Under TSan
// this also shows the slot reads race-free.
BOOST_FIXTURE_TEST_CASE(direct_cache_under_concurrent_alloc_free_and_access, DartThreadFixture) {
  if (!multiple) {
    BOOST_TEST_MESSAGE("rank " << me << ": DART_THREAD_MULTIPLE not available; thread part skipped");
    return;
  }
  using T = long;
  constexpr int kHelpers = 2;
  constexpr std::size_t kSlice = 64, kGuard = 64;  // per helper; untouched guard between slices
  constexpr std::size_t kLong = kHelpers * (kSlice + kGuard) + 1;  // last element: fetch-and-add counter
  // Oversubscribed MPICH and cross-host runs pay milliseconds per access;
  // both cuts apply together (a 3 x 2 rig under MPICH is both).
  const bool slow = dartcheck::slow_ranks();
  const long rounds = std::max(4L, mpitest::scaled(slow ? 40 : 300));
  // Accesses of each helper per round after its handshake: enough to
  // overlap the main thread's free and the next allocation, bounded so the
  // helpers cannot starve the main thread's collectives of MPI (MPICH's
  // global lock is not fair: two helpers looping on RMA across hosts kept
  // a barrier waiting past its deadline).
  const long per_round = slow || mpitest::scaled(1000) < 1000 ? 4 : 200;
  // A placeholder first, so the transient segments fall in front of the
  // long-lived one once it is freed.
  const dart_gptr_t placeholder = team_alloc<T>(4096, DART_TYPE_LONG);
  const dart_gptr_t longlived = team_alloc<T>(kLong, DART_TYPE_LONG);
  CHECK_OK(dart_team_memfree(placeholder));
  T* mine = own<T>(longlived, me);
  for (std::size_t i = 0; i < kLong; ++i) mine[i] = (i + 1 == kLong) ? 0 : sentinel<T>(me, i, 130);
  barrier();

  // The helpers' view of the main thread's progress, under `state_mutex`.
  // A helper with nothing left to do waits on `next_round` for the next
  // round or the end: woken by the main thread, not by a timer.
  std::mutex state_mutex;
  std::condition_variable next_round;
  dart_gptr_t current = DART_GPTR_NULL;  // the transient segment of round `round`
  long round = -1;
  bool stop = false;
  std::atomic<long> acks{0};
  std::atomic<long> failures{0}, adds{0};
  std::atomic<long> tids[kHelpers] = {};  // for the diagnosis of a stall
  std::atomic<long> seen_round[kHelpers];
  for (auto& s : seen_round) s = -1;
  auto helper = [&](int t) {
    tids[t] = mpitest::thread_id();
    const std::size_t base = static_cast<std::size_t>(t) * (kSlice + kGuard);
    std::vector<T> out(kSlice), in(kSlice);
    long seen = -1, left_this_round = 0;
    T last_before = -1;
    for (long it = 0;; ++it) {
      for (std::size_t i = 0; i < kSlice; ++i) out[i] = pattern<T>(me * 16 + t, i + static_cast<std::size_t>(it), 131);
      bool fresh = false;
      dart_gptr_t g = DART_GPTR_NULL;
      {
        std::unique_lock<std::mutex> lock(state_mutex);
        if (left_this_round == 0) next_round.wait(lock, [&] { return stop || round != seen; });
        if (stop) break;
        if (round != seen) {
          seen = round;
          g = current;
          fresh = true;
        }
      }
      // A new round first: touch its transient segment and ack, so the
      // accesses below overlap the main thread's free and next allocation.
      if (fresh) {
        seen_round[t] = seen;
        left_this_round = per_round;
        if (dart_put_blocking(at(g, right, static_cast<std::uint64_t>(t) * sizeof(T)), &out[0], 1, DART_TYPE_LONG,
                              DART_TYPE_LONG) != DART_OK ||
            dart_flush(g) != DART_OK)
          ++failures;
        acks.fetch_add(1, std::memory_order_release);
      }
      --left_this_round;
      const dart_gptr_t dst = at(longlived, right, base * sizeof(T));
      if (dart_put_blocking(dst, out.data(), kSlice, DART_TYPE_LONG, DART_TYPE_LONG) != DART_OK) ++failures;
      if (dart_get_blocking(in.data(), dst, kSlice, DART_TYPE_LONG, DART_TYPE_LONG) != DART_OK) ++failures;
      if (in != out) {
        ++failures;
        std::size_t i = 0;
        while (in[i] == out[i]) ++i;
        BOOST_TEST_MESSAGE("rank " << me << " thread " << t << " iteration " << it << ": element " << i
                                   << " read back " << show(in[i]) << ", wrote " << show(out[i]) << " (the value of iteration "
                                   << [&] {
                                        for (long j = it; j >= 0 && j > it - 100000; --j)
                                          if (pattern<T>(me * 16 + t, i + static_cast<std::size_t>(j), 131) == in[i]) return j;
                                        return -1L;
                                      }()
                                   << ")");
      }
      // dart_fetch_and_op is non-blocking: MPI may read `one` and write
      // `before` until the flush. Without it, under MPICH with load/store
      // off, the old value landed after this scope, in the stack slot the
      // compiler gave next to the timespec of the helper's idle sleep: the
      // sleep then asked the kernel for tv_sec 67443 (scripts/hang-loop.sh
      // read it from the hung thread's memory).
      const dart_gptr_t counter = at(longlived, right, (kLong - 1) * sizeof(T));
      const T one = 1;
      T before = -1;
      if (dart_fetch_and_op(counter, &one, &before, DART_TYPE_LONG, DART_OP_SUM) != DART_OK ||
          dart_flush_local(counter) != DART_OK) {
        ++failures;
        continue;
      }
      ++adds;
      // The counter only grows, so each helper's fetches see it grow.
      if (before <= last_before) {
        ++failures;
        BOOST_TEST_MESSAGE("rank " << me << " thread " << t << " iteration " << it << ": fetch-and-add returned "
                                   << before << " after " << last_before);
      }
      last_before = before;
    }
  };
  // How long the main thread waits for the helpers' acks of a round: one
  // put and flush each, milliseconds on one node. Oversubscribed MPICH and
  // cross-host runs get longer (a 20 s deadline once passed at 3 x 2 under
  // MPICH, when unbounded helpers starved the main thread of MPICH's lock).
  const double ack_seconds = slow || mpitest::scaled(1000) < 1000 ? 60 : 20;
  std::vector<std::thread> ts;
  for (long r = 0; r < rounds; ++r) {
    const std::size_t elems = 16 + static_cast<std::size_t>(r % 7) * 500;  // sizes change, ids repeat
    dart_gptr_t g = DART_GPTR_NULL;
    if (dart_team_memalloc_aligned(DART_TEAM_ALL, elems, DART_TYPE_LONG, &g) != DART_OK) {
      ++failures;
      break;
    }
    std::fill_n(own<T>(g, me), elems, T{-1});
    {
      std::lock_guard<std::mutex> lock(state_mutex);
      current = g;
      round = r;
    }
    next_round.notify_all();
    if (r == 0)
      for (int t = 0; t < kHelpers; ++t) ts.emplace_back(helper, t);
    // The helpers' accesses to g are done (they ack after the flush)
    // before any unit frees it: wait for this unit's, then barrier.
    if (!poll_until([&] { return acks.load(std::memory_order_acquire) >= kHelpers * (r + 1); }, ack_seconds)) {
      // A helper that does not ack within the bound is stuck where it
      // cannot be interrupted or joined: say where each stands, then end
      // the job now rather than at the test's timeout.
      std::ostringstream why;
      for (int t = 0; t < kHelpers; ++t)
        why << "\n  helper " << t << " (last round seen " << seen_round[t] << "): " << mpitest::thread_state(tids[t]);
      std::cout << std::flush;
      std::fprintf(stderr, "[rank %d] the helpers did not ack round %ld within %.0f s; aborting the job:%s\n", me, r,
                   ack_seconds, why.str().c_str());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    barrier();
    if (dart_team_memfree(g) != DART_OK) ++failures;
  }
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    stop = true;
  }
  next_round.notify_all();
  for (auto& th : ts) th.join();
  CHECK_EQ(failures.load(), 0L);
  barrier();
  // The left neighbour's helpers wrote the slices; nothing else changed.
  std::size_t stray = 0;
  for (int t = 0; t < kHelpers; ++t) {
    const std::size_t base = static_cast<std::size_t>(t) * (kSlice + kGuard);
    for (std::size_t i = base + kSlice; i < base + kSlice + kGuard; ++i)
      if (mine[i] != sentinel<T>(me, i, 130)) ++stray;
  }
  CHECK_EQ(stray, std::size_t{0});
  // Every fetch-and-add of the left neighbour landed once.
  long left_adds = 0, my_adds = adds.load();
  MPI_Sendrecv(&my_adds, 1, MPI_LONG, right, 7, &left_adds, 1, MPI_LONG, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK_EQ(static_cast<long>(mine[kLong - 1]), left_adds);
  BOOST_TEST_MESSAGE("rank " << me << ": " << rounds << " rounds, " << my_adds << " fetch-and-adds");
  barrier();
  CHECK_OK(dart_team_memfree(longlived));
}
