// Point-to-point synchronisation (ext/dart_signal.h, ext/dart_wait.h,
// ext/dart_atomic_handle.h) between unit 0 and its partner (unit 1, or
// across nodes the first unit on another node), against baselines
// measured in the same run and round:
//   - ping-pong: a round trip of 8 data bytes plus a flag. Ours:
//     dart_put_signal, then dart_signal_wait_until on the reply. Limit (one
//     node only): the same by plain stores through direct pointers
//     (dart_gptr_direct) into the same segment, an atomic release store of
//     the flag and an acquire-load spin: two cache-line hand-offs between
//     the cores, on the same memory. Raw MPI: MPI_Put +
//     MPI_Win_flush + MPI_Accumulate(MPI_REPLACE) of the flag + flush, the
//     waiter spinning on its own flag with MPI_Win_sync.
//   - fetch-add: dart_fetch_and_op(SUM) + dart_flush on unit 1's word;
//     limit: __atomic_fetch_add on a word of unit 1 through its direct
//     pointer; raw MPI:
//     MPI_Fetch_and_op + MPI_Win_flush.
//   - fetch-add, non-blocking: 64 dart_fetch_and_op_handle + dart_waitall
//     per batch, per operation; against 64 MPI_Fetch_and_op + one flush.
// Each figure is the mean per round trip / operation over --iterations,
// best of --rounds, the candidates in rotating order. The data and every
// fetched value are checked; a mismatch makes the program exit non-zero.
//
// Output: '#' comment lines, then rows:
//   row <operation> <ours ns> <limit ns or -> <raw MPI ns> <ours/limit> <ours/MPI>
// Usage: mpirun -np 2 bench_p2p_sync [--iterations N] [--rounds N]
#include <dash/dart/ext/dart_atomic_handle.h>
#include <dash/dart/ext/dart_direct.h>
#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/ext/dart_wait.h>
#include <dash/dart/if/dart.h>

#include <mpi.h>

#include "bench_options.hpp"
#include "bench_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

bool g_ok = true;

void expect(bool cond, const char* what) {
  if (!cond && g_ok) std::fprintf(stderr, "bench_p2p_sync: check failed: %s\n", what);
  if (!cond) g_ok = false;
}

// Layout of the words of each unit (DART segment and raw windows alike).
constexpr std::size_t kData = 0;     // 8 data bytes
constexpr std::size_t kFlag = 64;    // uint64 flag / signal, own cache line
constexpr std::size_t kCount = 128;  // fetch-add counter
constexpr std::size_t kLimit = 256;  // the limit's data and flag: two lines of one 128-byte pair, as ours
constexpr std::size_t kBytes = 384;
constexpr int kBatch = 64;

double seconds_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Row {
  std::string op;
  double ours = 0, limit = -1, mpi = 0;
};

}  // namespace

int main(int argc, char** argv) {
  bench::Session session(argc, argv, "bench_p2p_sync", bench::Session::Mpi::dart);
  const bench::Options o = bench::parse_options(argc, argv, bench::Options{20000, 7, 0});
  const int rank = session.rank;
  if (!session.require(2, false, "needs at least 2 ranks")) return 2;
  const bool one_node = bench::node_size() == session.size;
  // Unit 0 and its partner: the first unit on another node when the units
  // span nodes (whatever their placement), else unit 1.
  const int remote = bench::first_remote_rank();
  const int partner = remote > 0 ? remote : 1;
  const bool active = rank == 0 || rank == partner;
  const int peer = rank == 0 ? partner : 0;

  dart_gptr_t g = DART_GPTR_NULL;
  bench::check(dart_team_memalloc_aligned(DART_TEAM_ALL, kBytes, DART_TYPE_BYTE, &g), "dart_team_memalloc_aligned");
  dart_gptr_t mine_g = g, peer_g = g;
  mine_g.unitid = rank;
  peer_g.unitid = peer;
  void* mine_v = nullptr;
  bench::check(dart_gptr_getaddr(mine_g, &mine_v), "dart_gptr_getaddr");
  char* mine = static_cast<char*>(mine_v);
  std::memset(mine, 0, kBytes);
  auto at = [](dart_gptr_t p, std::size_t off) {
    p.addr_or_offs.offset += off;
    return p;
  };

  // The limit's ping-pong and atomics run in the DART segment, through
  // direct pointers.
  char* lim_mine = mine + kLimit;
  char* lim_peer = nullptr;
  if (one_node) {
    void* p = nullptr;
    bench::check(dart_gptr_direct(at(peer_g, kLimit), &p), "dart_gptr_direct");
    lim_peer = static_cast<char*>(p);
  }
  const bool limit = lim_peer != nullptr;  // not with DART_SHARED_MEMORY=0

  // The raw MPI baseline's window (the library picks its best component
  // for an allocated window).
  MPI_Win win = MPI_WIN_NULL;
  void* wbase = nullptr;
  MPI_Win_allocate(kBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
  char* win_mine = static_cast<char*>(wbase);
  std::memset(win_mine, 0, kBytes);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);

  // Ping-pong candidates; both active ranks run the same sequence. `seq`
  // numbers keep rising across rounds, so no flag is ever reset.
  std::uint64_t seq[3] = {0, 0, 0};
  std::uint64_t payload = 0;
  auto pingpong_dart = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const std::uint64_t s = ++seq[0];
      if (rank == 0) {
        payload = s;
        bench::check(dart_put_signal(at(peer_g, kData), &payload, 1, DART_TYPE_ULONGLONG, at(peer_g, kFlag), s,
                                     DART_SIGNAL_SET),
                     "dart_put_signal");
        bench::check(dart_signal_wait_until(at(mine_g, kFlag), DART_CMP_GE, s, nullptr), "dart_signal_wait_until");
      } else {
        bench::check(dart_signal_wait_until(at(mine_g, kFlag), DART_CMP_GE, s, nullptr), "dart_signal_wait_until");
        std::uint64_t got;
        std::memcpy(&got, mine + kData, sizeof got);
        expect(got == s, "ping-pong data arrives with its signal (DART)");
        payload = s;
        bench::check(dart_put_signal(at(peer_g, kData), &payload, 1, DART_TYPE_ULONGLONG, at(peer_g, kFlag), s,
                                     DART_SIGNAL_SET),
                     "dart_put_signal");
      }
    }
  };
  auto wait_flag = [](const char* base, std::uint64_t s) {
    const auto* f = reinterpret_cast<const std::uint64_t*>(base + kFlag);
    while (__atomic_load_n(f, __ATOMIC_ACQUIRE) < s) __builtin_ia32_pause();
  };
  // (data at +0, flag at +64 of the limit's region)
  auto pingpong_limit = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const std::uint64_t s = ++seq[1];
      if (rank == partner) {
        wait_flag(lim_mine, s);
        std::uint64_t got;
        std::memcpy(&got, lim_mine, sizeof got);
        expect(got == s, "ping-pong data arrives with its flag (limit)");
      }
      std::memcpy(lim_peer, &s, sizeof s);
      __atomic_store_n(reinterpret_cast<std::uint64_t*>(lim_peer + kFlag), s, __ATOMIC_RELEASE);
      if (rank == 0) wait_flag(lim_mine, s);
    }
  };
  auto wait_flag_mpi = [&](std::uint64_t s) {
    const auto* f = reinterpret_cast<const std::uint64_t*>(win_mine + kFlag);
    // MPI_Win_sync orders the loads; the probe lets libraries that apply
    // RMA only inside the target's MPI calls do so.
    for (unsigned k = 0; __atomic_load_n(f, __ATOMIC_ACQUIRE) < s; ++k) {
      MPI_Win_sync(win);
      if (k % 64 == 63) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      }
    }
  };
  auto pingpong_mpi = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const std::uint64_t s = ++seq[2];
      if (rank == partner) {
        wait_flag_mpi(s);
        std::uint64_t got;
        std::memcpy(&got, win_mine + kData, sizeof got);
        expect(got == s, "ping-pong data arrives with its flag (raw MPI)");
      }
      payload = s;
      MPI_Put(&payload, 8, MPI_BYTE, peer, kData, 8, MPI_BYTE, win);
      MPI_Win_flush(peer, win);
      MPI_Accumulate(&payload, 1, MPI_UINT64_T, peer, kFlag, 1, MPI_UINT64_T, MPI_REPLACE, win);
      MPI_Win_flush(peer, win);
      if (rank == 0) wait_flag_mpi(s);
    }
  };

  // Times `fn(n)` on both active ranks (a barrier of the two before), rank 0's clock.
  auto timed = [&](const std::function<void(int)>& fn, int n) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = seconds_now();
    if (active) fn(n);
    const double t = (seconds_now() - t0) * 1e9 / n;
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
  };
  auto best_of = [&](std::vector<std::function<void(int)>*> fns, int n) {
    std::vector<double> best(fns.size(), 1e300);
    for (auto* f : fns)
      if (*f) (void)timed(*f, std::max(1, n / 10));
    for (int r = 0; r < o.rounds; ++r)
      for (std::size_t k = 0; k < fns.size(); ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(r)) % fns.size();
        if (*fns[i]) best[i] = std::min(best[i], timed(*fns[i], n));
      }
    return best;
  };

  std::vector<Row> rows;
  const int pp_n = std::max(10, o.iterations / (one_node ? 4 : 400));
  {
    std::function<void(int)> a = pingpong_dart, b, c = pingpong_mpi;
    if (limit) b = pingpong_limit;
    const auto t = best_of({&a, &b, &c}, pp_n);
    rows.push_back({"put_signal+wait round trip", t[0], limit ? t[1] : -1, t[2]});
  }

  // Atomics from rank 0 on rank 1's counter; rank 1 only waits.
  long expected_dart = 0, expected_limit = 0, expected_mpi = 0;
  std::function<void(int)> fa_dart = [&](int n) {
    if (rank != 0) return;
    for (int i = 0; i < n; ++i) {
      long one = 1, old = -1;
      bench::check(dart_fetch_and_op(at(peer_g, kCount), &one, &old, DART_TYPE_LONG, DART_OP_SUM), "dart_fetch_and_op");
      bench::check(dart_flush(peer_g), "dart_flush");
      expect(old == expected_dart++, "fetch-add returns the previous value (DART)");
    }
  };
  std::function<void(int)> fa_limit;
  if (limit)
    fa_limit = [&](int n) {
      if (rank != 0) return;
      for (int i = 0; i < n; ++i) {
        const long old = __atomic_fetch_add(reinterpret_cast<long*>(lim_peer + 8), 1L, __ATOMIC_SEQ_CST);
        expect(old == expected_limit++, "fetch-add returns the previous value (limit)");
      }
    };
  std::function<void(int)> fa_mpi = [&](int n) {
    if (rank != 0) return;
    for (int i = 0; i < n; ++i) {
      long one = 1, old = -1;
      MPI_Fetch_and_op(&one, &old, MPI_LONG, peer, kCount, MPI_SUM, win);
      MPI_Win_flush(peer, win);
      expect(old == expected_mpi++, "fetch-add returns the previous value (raw MPI)");
    }
  };
  const int at_n = std::max(10, o.iterations / (one_node ? 1 : 100));
  {
    const auto t = best_of({&fa_dart, &fa_limit, &fa_mpi}, at_n);
    rows.push_back({"fetch_and_op+flush", t[0], limit ? t[1] : -1, t[2]});
  }

  // Non-blocking fetch-adds in batches, per operation.
  std::vector<long> results(kBatch);
  std::vector<dart_handle_t> hs(kBatch);
  std::function<void(int)> nbi_dart = [&](int n) {
    if (rank != 0) return;
    for (int b = 0; b < n; ++b) {
      const long one = 1;
      for (int i = 0; i < kBatch; ++i)
        bench::check(dart_fetch_and_op_handle(at(peer_g, kCount), &one, &results[static_cast<std::size_t>(i)],
                                              DART_TYPE_LONG, DART_OP_SUM, &hs[static_cast<std::size_t>(i)]),
                     "dart_fetch_and_op_handle");
      bench::check(dart_waitall(hs.data(), hs.size()), "dart_waitall");
      for (int i = 0; i < kBatch; ++i) expect(results[static_cast<std::size_t>(i)] == expected_dart++, "nbi fetch-add");
    }
  };
  std::function<void(int)> nbi_limit;
  std::function<void(int)> nbi_mpi = [&](int n) {
    if (rank != 0) return;
    for (int b = 0; b < n; ++b) {
      const long one = 1;
      for (int i = 0; i < kBatch; ++i)
        MPI_Fetch_and_op(&one, &results[static_cast<std::size_t>(i)], MPI_LONG, peer, kCount, MPI_SUM, win);
      MPI_Win_flush(peer, win);
      for (int i = 0; i < kBatch; ++i)
        expect(results[static_cast<std::size_t>(i)] == expected_mpi++, "nbi fetch-add (raw MPI)");
    }
  };
  {
    const int nb = std::max(2, at_n / kBatch);
    const auto t = best_of({&nbi_dart, &nbi_limit, &nbi_mpi}, nb);
    rows.push_back({"fetch_and_op_handle x64, per op", t[0] / kBatch, -1, t[2] / kBatch});
  }

  if (rank == 0) {
    std::printf("# bench_p2p_sync: units 0 and %d of %d, %s, %s\n", partner, session.size,
                one_node ? "one node" : "across nodes", bench::mpi_library().c_str());
    std::printf("# ns per round trip / operation, best of %d rounds\n", o.rounds);
    std::printf("# %-34s %10s %10s %10s %8s %8s\n", "operation", "ours", "limit", "raw MPI", "/limit", "/MPI");
    for (const Row& r : rows) {
      char lim[32] = "-", rl[32] = "-";
      if (r.limit > 0) {
        std::snprintf(lim, sizeof lim, "%.1f", r.limit);
        std::snprintf(rl, sizeof rl, "%.2f", r.ours / r.limit);
      }
      std::printf("row %-34s %10.1f %10s %10.1f %8s %8.2f\n", ('"' + r.op + '"').c_str(), r.ours, lim, r.mpi, rl,
                  r.ours / r.mpi);
    }
  }
  int ok = g_ok ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("# data check: %s\n", all_ok ? "passed" : "FAILED");
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  bench::check(dart_team_memfree(g), "dart_team_memfree");
  return all_ok ? 0 : 1;
}
