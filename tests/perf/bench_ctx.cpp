// Communication contexts (ext/dart_ctx.h) under threads: N = 1 and 2
// threads of unit 0, each doing 8-byte puts to unit 1 with a quiet after
// every put, through
//   - a private context per thread (DART_CTX_PRIVATE: no lock),
//   - one context shared by the N threads (options 0: a mutex around its
//     pending set),
//   - the default context (shared by all threads),
//   - no context: dart_put + dart_flush (the plain interface),
// against raw MPI in the same run: MPI_Put + MPI_Win_flush on an
// MPI_Win_allocate window, by the same N threads. Each thread writes its
// own cache line of the target. On one node (the default) a context's put
// is a store and its quiet a fence; with DART_SHARED_MEMORY=0 both go
// through MPI (MPI_Put, MPI_Win_flush of the pairs the context recorded).
//
// Figures: operations (put + quiet) per second over all threads, and the
// ratio to the same candidate's one-thread figure (2.0 would be perfect
// scaling; this machine may have fewer cores than threads + ranks, see the
// header line). Best of --rounds; the candidates rotate within each
// round. Unit 1 waits inside MPI (a non-blocking barrier polled with a
// yield between polls). After every timed run
// unit 1 checks that each thread's last value arrived; a mismatch makes
// the program exit non-zero.
//
// Output: '#' comment lines, then rows:
//   row <candidate> <threads> <ops/s> <x 1 thread> <ns per op per thread> <ours/raw MPI>
// Usage: mpirun -np 2 bench_ctx [--iterations N] [--rounds N]
#include <dash/dart/ext/dart_ctx.h>
#include <dash/dart/ext/dart_direct.h>
#include <dash/dart/if/dart.h>

#include <mpi.h>

#include "bench_options.hpp"
#include "bench_session.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

constexpr int kMaxThreads = 2;
constexpr std::size_t kLine = 64;  // each thread's slot: its own cache line
constexpr std::size_t kBytes = kLine * kMaxThreads;

enum Candidate { PrivateCtx, SharedCtx, DefaultCtx, PlainDart, RawMpi, kCandidates };
const char* const kNames[kCandidates] = {"private ctx each", "one shared ctx", "DART_CTX_DEFAULT",
                                          "dart_put+dart_flush", "raw MPI_Put+flush"};

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool g_ok = true;

}  // namespace

int main(int argc, char** argv) {
  bench::Session session(argc, argv, "bench_ctx", bench::Session::Mpi::program_multiple);
  const bench::Options o = bench::parse_options(argc, argv, bench::Options{200000, 5, 0});
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  bench::check(dart_init_thread(&argc, &argv, &level), "dart_init_thread");
  const int rank = session.rank;
  if (!session.require(2, false, "needs at least 2 ranks")) {
    bench::check(dart_exit(), "dart_exit");
    return 2;
  }
  const bool threads_ok = level == DART_THREAD_MULTIPLE;
  const int max_threads = threads_ok ? kMaxThreads : 1;

  dart_gptr_t g = DART_GPTR_NULL;
  bench::check(dart_team_memalloc_aligned(DART_TEAM_ALL, kBytes, DART_TYPE_BYTE, &g), "dart_team_memalloc_aligned");
  dart_gptr_t mine_g = g, peer_g = g;
  mine_g.unitid = rank;
  peer_g.unitid = 1;
  void* mine_v = nullptr;
  bench::check(dart_gptr_getaddr(mine_g, &mine_v), "dart_gptr_getaddr");
  std::memset(mine_v, 0, kBytes);
  void* direct = nullptr;
  bench::check(dart_gptr_direct(peer_g, &direct), "dart_gptr_direct");
  // Load/store path from unit 0 to unit 1 (unit 0 decides: unit 1 always
  // has an address for its own memory).
  int on_node_i = direct != nullptr ? 1 : 0;
  MPI_Bcast(&on_node_i, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const bool on_node = on_node_i != 0;

  MPI_Win win = MPI_WIN_NULL;
  void* wbase = nullptr;
  MPI_Win_allocate(kBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
  std::memset(wbase, 0, kBytes);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);

  // Values keep rising over the run, so each timed run's last value is
  // new; both units count the same way.
  std::uint64_t stamp = 0;

  // One timed run of `n` put+quiet per thread on `threads` threads of
  // unit 0; seconds. Unit 1 waits inside MPI, then checks the last values.
  auto run = [&](Candidate c, int threads, int n) {
    const std::uint64_t base = stamp;
    stamp += static_cast<std::uint64_t>(n) + 1;
    double t = 0;
    if (rank == 0) {
      dart_ctx_t shared = DART_CTX_DEFAULT;
      if (c == SharedCtx) bench::check(dart_ctx_create(0, &shared), "dart_ctx_create");
      std::atomic<int> ready{0};
      std::atomic<bool> go{false};
      auto worker = [&](int tid) {
        dart_ctx_t ctx = c == SharedCtx ? shared : DART_CTX_DEFAULT;
        if (c == PrivateCtx) bench::check(dart_ctx_create(DART_CTX_PRIVATE, &ctx), "dart_ctx_create");
        dart_gptr_t dst = peer_g;
        dst.addr_or_offs.offset += static_cast<std::uint64_t>(tid) * kLine;
        const MPI_Aint disp = static_cast<MPI_Aint>(tid) * static_cast<MPI_Aint>(kLine);
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) {
        }
        for (int i = 1; i <= n; ++i) {
          const std::uint64_t v = base + static_cast<std::uint64_t>(i);
          if (c == RawMpi) {
            MPI_Put(&v, 8, MPI_BYTE, 1, disp, 8, MPI_BYTE, win);
            MPI_Win_flush(1, win);
          } else if (c == PlainDart) {
            bench::check(dart_put(dst, &v, 1, DART_TYPE_ULONGLONG, DART_TYPE_ULONGLONG), "dart_put");
            bench::check(dart_flush(dst), "dart_flush");
          } else {
            bench::check(dart_ctx_put(ctx, dst, &v, 1, DART_TYPE_ULONGLONG), "dart_ctx_put");
            bench::check(dart_ctx_quiet(ctx), "dart_ctx_quiet");
          }
        }
        if (c == PrivateCtx) bench::check(dart_ctx_destroy(&ctx), "dart_ctx_destroy");
      };
      std::vector<std::thread> ts;
      for (int k = 1; k < threads; ++k) ts.emplace_back(worker, k);
      while (ready.load() < threads - 1) std::this_thread::yield();
      // The calling thread is worker 0 (its private context, if any, is
      // created on the clock: one allocation, negligible against n calls).
      const double t0 = seconds_now();
      go.store(true, std::memory_order_release);
      ready.fetch_add(1);
      worker(0);
      for (auto& th : ts) th.join();
      t = seconds_now() - t0;
      if (c == SharedCtx) bench::check(dart_ctx_destroy(&shared), "dart_ctx_destroy");
    }
    // Every unit in one non-blocking barrier; unit 1 polls it, yielding its
    // core between polls (MPICH applies RMA to unit 1's memory only while
    // unit 1 is inside MPI, so it must keep polling).
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (int done = 0; !done;) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (!done && rank == 1) std::this_thread::yield();
    }
    if (rank == 1) {
      MPI_Win_sync(win);
      const char* base_p = c == RawMpi ? static_cast<const char*>(wbase) : static_cast<const char*>(mine_v);
      for (int k = 0; k < threads; ++k) {
        std::uint64_t got = 0;
        std::memcpy(&got, base_p + static_cast<std::size_t>(k) * kLine, sizeof got);
        if (got != base + static_cast<std::uint64_t>(n)) {
          if (g_ok)
            std::fprintf(stderr, "bench_ctx: %s, %d threads: thread %d's last value %llu, expected %llu\n", kNames[c],
                         threads, k, static_cast<unsigned long long>(got),
                         static_cast<unsigned long long>(base + static_cast<std::uint64_t>(n)));
          g_ok = false;
        }
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double tt = t;
    MPI_Bcast(&tt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return tt;
  };

  // Calls per thread, per candidate: as many as take about 0.2 s on one
  // thread (from a short calibration run), at most --iterations; the
  // figures run from tens of nanoseconds (load/store) to hundreds of
  // microseconds (RMA that waits for the target's progress).
  std::vector<int> n(kCandidates, 10);
  for (int c = 0; c < kCandidates; ++c) {
    (void)run(static_cast<Candidate>(c), 1, 20);  // warm-up
    const double per_op = run(static_cast<Candidate>(c), 1, 200) / 200;
    n[static_cast<std::size_t>(c)] =
        static_cast<int>(std::max(20.0, std::min(static_cast<double>(o.iterations), 0.2 / std::max(per_op, 1e-9))));
  }
  std::vector<std::vector<double>> best(kCandidates, std::vector<double>(max_threads + 1, 1e300));
  for (int r = 0; r < o.rounds; ++r)
    for (int threads = 1; threads <= max_threads; ++threads)
      for (int k = 0; k < kCandidates; ++k) {
        const std::size_t c = static_cast<std::size_t>((k + r) % kCandidates);
        best[c][static_cast<std::size_t>(threads)] =
            std::min(best[c][static_cast<std::size_t>(threads)], run(static_cast<Candidate>(c), threads, n[c]) / n[c]);
      }

  if (rank == 0) {
    std::printf("# bench_ctx: unit 0 -> unit 1 of %d, %s, %s, %ld cores online%s\n", session.size,
                on_node ? "one node (load/store path)" : "MPI RMA path (DART_SHARED_MEMORY=0 or across nodes)",
                bench::mpi_library().c_str(), sysconf(_SC_NPROCESSORS_ONLN),
                threads_ok ? "" : ", no DART_THREAD_MULTIPLE: 1 thread only");
    std::printf("# 8-byte put + quiet per operation, up to %d per thread and run, best of %d rounds\n", o.iterations,
                o.rounds);
    std::printf("# %-20s %7s %12s %10s %12s %8s\n", "candidate", "threads", "ops/s", "x 1 thread", "ns/op/thread",
                "/raw MPI");
    for (int threads = 1; threads <= max_threads; ++threads)
      for (std::size_t c = 0; c < kCandidates; ++c) {
        const double t = best[c][static_cast<std::size_t>(threads)];  // seconds per op of one thread
        const double ops = threads / t;
        const double ops1 = 1 / best[c][1];
        const double mpi_ops = threads / best[RawMpi][static_cast<std::size_t>(threads)];
        std::printf("row %-22s %5d %12.0f %10.2f %12.1f %8.2f\n", ('"' + std::string(kNames[c]) + '"').c_str(), threads,
                    ops, ops / ops1, t * 1e9, ops / mpi_ops);
      }
  }
  int ok = g_ok ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("# data check: %s\n", all_ok ? "passed" : "FAILED");
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  bench::check(dart_team_memfree(g), "dart_team_memfree");
  bench::check(dart_exit(), "dart_exit");
  return all_ok ? 0 : 1;
}
