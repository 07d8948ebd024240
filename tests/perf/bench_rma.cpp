// Cost of one-sided access from rank 0 (origin) to a target rank at
// message sizes from 8 B to 4 MiB, against the baselines measured in the
// same run. The target is the first rank on another node when the ranks
// span nodes (across hosts, whatever the placement: 2 hosts x 2 units
// placed by host target rank 2), else rank 1.
//   - dart_put_blocking / dart_get_blocking, dart_put / dart_get each
//     followed by dart_flush, and dart_put_handle / dart_get_handle each
//     followed by dart_wait, against MPI_Put / MPI_Get + MPI_Win_flush;
//   - dart_fetch_and_op (8 B, LONGLONG, SUM) and dart_compare_and_swap
//     (8 B), each + dart_flush, against MPI_Fetch_and_op /
//     MPI_Compare_and_swap + MPI_Win_flush;
//   - with node-local shared memory (the default), "ld/st": a plain memcpy,
//     or a CPU atomic, on the target's address from MPI_Win_shared_query,
//     the floor of any on-node path.
// The MPI baseline uses the window kind DART uses for the target, with
// DART's window hints (dart/src/core/mpi_handles.cpp), parts page-aligned as
// DART aligns them, and one MPI_Win_lock_all for the whole run:
// MPI_Win_allocate_shared over MPI_COMM_WORLD by default; with
// DART_SHARED_MEMORY=0 (every unit its own node: DART then allocates each
// heap chunk with MPI_Win_allocate over the team and reaches every unit
// by RMA) MPI_Win_allocate over MPI_COMM_WORLD. Without shared memory
// there is no ld/st baseline; the third column is then the same call on an
// MPI_Win_create window over a malloc'ed buffer (the kind DART used for
// this path before, and what a library exposing user memory gets). A last
// line compares an 8-byte dart_put_blocking with MPI_Put + MPI_Win_flush on
// an MPI_Win_allocate window, the reference for on-node targets.
// Each figure is the mean per call over a round of --iterations calls
// (fewer above 4 KiB, inversely to the size, at least 20), best of
// --rounds after a warm-up. Every round times our call and its baselines
// back to back, in an order that rotates, so all of them see the same
// machine (RMA that MPI emulates with messages stalls for milliseconds
// whenever the target is not scheduled; a baseline measured a second
// earlier or later is not comparable); a line stops after 1.5 s once 5
// rounds are done, which bounds the run when that happens. Only rank 0
// works while it is timed; every other rank waits in MPI_Barrier (inside
// MPI, so an MPI that needs the target's progress gets it). Results are
// checked: the atomics on every call, the data of a final put/get round
// trip at the end.
//
// Usage: mpirun -np 2 bench_rma [--iterations N] [--rounds N] [--max-bytes N]
#include <dash/dart/ext/dart_stats.h>
#include <dash/dart/if/dart.h>

#include <mpi.h>

#include "bench_session.hpp"

#include "bench_options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using bench::check;

using bench::human;
using bench::Options;

Options parse(int argc, char** argv) {
  Options o = bench::parse_options(argc, argv, Options{1000, 30, std::size_t(4) << 20});
  // One MPI call per transfer, and MPI counts are int.
  o.max_bytes = std::clamp<std::size_t>(o.max_bytes, 8, std::size_t(1) << 30);
  return o;
}

constexpr std::size_t kPage = 4096;
constexpr std::size_t kSizes[] = {8, 64, 512, 4096, 32768, 262144, std::size_t(4) << 20};
constexpr int kOrigin = 0;
// The target rank (see the head of the file); set once in main().
int g_target = 1;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// The sizes of kSizes up to --max-bytes, and --max-bytes itself.
std::vector<std::size_t> sizes(const Options& o) {
  std::vector<std::size_t> out;
  for (std::size_t s : kSizes)
    if (s <= o.max_bytes) out.push_back(s);
  if (out.empty() || out.back() != o.max_bytes) out.push_back(o.max_bytes);
  return out;
}

// Iterations per round: all of them up to 4 KiB, then fewer in proportion
// to the size so every size costs about the same, but at least 20.
int iterations_for(const Options& o, std::size_t bytes) {
  if (bytes <= 4096) return o.iterations;
  const auto scaled = static_cast<int>(static_cast<double>(o.iterations) * 4096.0 / static_cast<double>(bytes));
  return std::max(std::min(20, o.iterations), scaled);
}

// Keeps the compiler from merging or dropping the plain memory accesses of
// the ld/st baseline between iterations.
inline void clobber() { asm volatile("" ::: "memory"); }

// A line stops once it has run this long and has this many rounds.
constexpr double kLineBudgetSeconds = 1.5;
constexpr int kMinRounds = 5;

// Mean seconds per call over `iterations` calls. One untimed call comes
// first: our call and the baselines work on different memory, and at the
// large sizes a round that starts with a cache full of another call's
// data would pay for that (the 4 MiB copies fit the cache only one at a
// time on this class of machine).
template <class Op>
double mean_seconds(int iterations, Op& op) {
  op();
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) op();
  return (MPI_Wtime() - t0) / iterations;
}

// A round of `op` behind one indirect call per round; the calls inside the
// round stay inlined.
template <class Op>
std::function<double(int)> round_of(Op& op) {
  return [&op](int iterations) { return mean_seconds(iterations, op); };
}

// Best mean seconds per call of each of `ops` (our call first, then its
// baselines), timed in turn within every round, after a warm-up of each.
// The order rotates from round to round so that no call always follows
// the same one.
// The other ranks wait in the barrier meanwhile. Meaningful on rank 0 only.
template <class... Ops>
std::array<double, sizeof...(Ops)> compare(int rank, const Options& o, int iterations, Ops... ops) {
  constexpr std::size_t n = sizeof...(Ops);
  std::array<double, n> best;
  best.fill(std::numeric_limits<double>::max());
  if (rank == kOrigin) {
    const std::array<std::function<double(int)>, n> timed = {round_of(ops)...};
    for (const auto& round : timed) (void)round(std::max(1, iterations / 10));
    const double start = MPI_Wtime();
    for (int r = 0; r < o.rounds; ++r) {
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t k = (static_cast<std::size_t>(r) + j) % n;
        best[k] = std::min(best[k], timed[k](iterations));
      }
      if (r + 1 >= kMinRounds && MPI_Wtime() - start > kLineBudgetSeconds) break;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return best;
}

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "bench_rma: %s failed: %d\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

char* page_aligned(void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<char*>((a + kPage - 1) & ~std::uintptr_t(kPage - 1));
}

// The hints DART gives every window (dart/src/core/mpi_handles.cpp), so the
// baseline differs from DART only in the code path, not the window.
MPI_Info dart_hints() {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "false");
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  MPI_Info_set(info, "same_disp_unit", "true");
  return info;
}

// A raw MPI window over `bytes` per rank, in one lock_all epoch, and where
// rank 1's page-aligned part is: its displacement and, for a shared
// window, its address in this process.
struct RawWindow {
  enum class Kind { AllocateShared, Create, Allocate };
  MPI_Win win = MPI_WIN_NULL;
  MPI_Aint disp = 0;          // of the target's part
  char* target = nullptr;     // ld/st address of the target's part (shared only)
  std::vector<char> storage;  // Create: the exposed memory

  RawWindow(Kind kind, std::size_t bytes) {
    MPI_Info info = dart_hints();
    char* mine = nullptr;
    if (kind == Kind::AllocateShared) {
      void* base = nullptr;
      check_mpi(MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes + kPage), 1, info, MPI_COMM_WORLD, &base, &win),
                "MPI_Win_allocate_shared");
      mine = page_aligned(base);
      MPI_Aint size = 0;
      int disp_unit = 0;
      void* peer = nullptr;
      check_mpi(MPI_Win_shared_query(win, g_target, &size, &disp_unit, &peer), "MPI_Win_shared_query");
      target = page_aligned(peer);
      disp = target - static_cast<char*>(peer);
    } else if (kind == Kind::Create) {
      storage.resize(bytes + kPage);
      mine = page_aligned(storage.data());
      check_mpi(MPI_Win_create(mine, static_cast<MPI_Aint>(bytes), 1, info, MPI_COMM_WORLD, &win), "MPI_Win_create");
    } else {
      void* base = nullptr;
      check_mpi(MPI_Win_allocate(static_cast<MPI_Aint>(bytes + kPage), 1, info, MPI_COMM_WORLD, &base, &win),
                "MPI_Win_allocate");
      mine = page_aligned(base);
      // Each rank's padding differs; everybody needs the target's.
      long long pad = mine - static_cast<char*>(base);
      MPI_Bcast(&pad, 1, MPI_LONG_LONG, g_target, MPI_COMM_WORLD);
      disp = static_cast<MPI_Aint>(pad);
    }
    MPI_Info_free(&info);
    std::memset(mine, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all");
  }
  RawWindow(const RawWindow&) = delete;
  RawWindow& operator=(const RawWindow&) = delete;
  ~RawWindow() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
};

// The table head; the third baseline is ld/st with shared memory and
// MPI_Win_create without.
void header_row(bool shared) {
  std::printf("%-28s %8s %10s %10s %10s %9s %10s %11s\n", "operation", "size", "ours us", "ours GB/s", "MPI us",
              "ours/MPI", shared ? "ld/st us" : "create us", shared ? "ours/ldst" : "ours/create");
}

// One table line.
void row(const char* op, std::size_t bytes, double ours, double mpi, double third) {
  char gbs[32] = "-";
  if (bytes >= 4096) std::snprintf(gbs, sizeof gbs, "%.2f", static_cast<double>(bytes) / ours * 1e-9);
  std::printf("%-28s %8s %10.3f %10s %10.3f %9.2f %10.3f %11.2f\n", op, human(bytes).c_str(), ours * 1e6, gbs,
              mpi * 1e6, ours / mpi, third * 1e6, ours / third);
  std::fflush(stdout);
}

// Whether DART reaches unit `target` by load/store, that is whether it runs
// with node-local shared memory (DART_SHARED_MEMORY): one put through a
// scratch segment, and DART's own path counters say which way it went.
// Asked of DART rather than parsed from the environment again, so the
// baselines follow whatever DART decided. Collective; rank 0 probes.
bool dart_stores_to(int target, int rank) {
  dart_gptr_t scratch;
  check(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &scratch), "dart_team_memalloc_aligned");
  int local = 0;
  if (rank == 0) {
    dart_stats_t before{}, after{};
    check(dart_stats_get(&before), "dart_stats_get");
    dart_gptr_t g = scratch;
    g.unitid = target;
    const std::uint64_t zero = 0;
    check(dart_put_blocking(g, &zero, 8, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_put_blocking");
    check(dart_stats_get(&after), "dart_stats_get");
    local = after.local_puts > before.local_puts ? 1 : 0;
  }
  MPI_Bcast(&local, 1, MPI_INT, 0, MPI_COMM_WORLD);
  check(dart_team_memfree(scratch), "dart_team_memfree");
  return local != 0;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Session session(argc, argv, "bench_rma", bench::Session::Mpi::program);
  const Options o = parse(argc, argv);
  session.start();
  const int rank = session.rank, size = session.size;
  if (!session.require(2, false, "needs at least 2 ranks (rank 0 = origin, rank 1 = target)"))
    MPI_Abort(MPI_COMM_WORLD, 1);

  const char* shm_env = std::getenv("DART_SHARED_MEMORY");
  const int remote = bench::first_remote_rank();
  if (remote > 0) g_target = remote;
  const int per_node = bench::node_size();
  const bool shared = dart_stores_to(g_target, rank);
  if (shared && !session.require(2, true, "all ranks must share one node (or set DART_SHARED_MEMORY=0)"))
    MPI_Abort(MPI_COMM_WORLD, 1);

  // Every window holds the largest message, then two cache lines for the
  // fetch-and-op counter and the compare-and-swap word.
  const std::size_t atom_off = round_up(o.max_bytes, 64);
  const std::size_t cas_off = atom_off + 64;
  const std::size_t win_bytes = atom_off + 128;

  dart_gptr_t seg;
  check(dart_team_memalloc_aligned(DART_TEAM_ALL, win_bytes, DART_TYPE_BYTE, &seg), "dart_team_memalloc_aligned");
  {
    dart_gptr_t mine = seg;
    mine.unitid = rank;
    void* addr = nullptr;
    check(dart_gptr_getaddr(mine, &addr), "dart_gptr_getaddr");
    std::memset(addr, 0, win_bytes);
    check(dart_barrier(DART_TEAM_ALL), "dart_barrier");
  }
  dart_gptr_t g = seg;
  g.unitid = g_target;
  dart_gptr_t g_fao = g, g_cas = g;
  g_fao.addr_or_offs.offset = atom_off;
  g_cas.addr_or_offs.offset = cas_off;

  auto raw =
      std::make_unique<RawWindow>(shared ? RawWindow::Kind::AllocateShared : RawWindow::Kind::Allocate, win_bytes);
  const MPI_Win w = raw->win;
  const MPI_Aint d = raw->disp;
  // Without shared memory, the third baseline's window.
  std::unique_ptr<RawWindow> created;
  if (!shared) created = std::make_unique<RawWindow>(RawWindow::Kind::Create, win_bytes);
  const MPI_Win wc = created ? created->win : MPI_WIN_NULL;

  // The origin buffer, page-aligned like every target part.
  std::vector<char> buf_storage(round_up(o.max_bytes, kPage) + kPage);
  char* buf = page_aligned(buf_storage.data());
  for (std::size_t i = 0; i < o.max_bytes; ++i) buf[i] = static_cast<char>(i * 131 + 7);

  if (rank == 0) {
    const std::string libname = bench::mpi_library();
    std::printf("# bench_rma: %d ranks, %d on rank 0's node (origin 0, target %d on %s node), %s\n", size, per_node,
                g_target, remote > 0 ? "another" : "the same", libname.c_str());
    std::printf("# DART_SHARED_MEMORY=%s: %s\n", shm_env ? shm_env : "(unset)",
                shared ? "on-node targets by load/store; MPI baseline: MPI_Win_allocate_shared over "
                         "MPI_COMM_WORLD; ld/st = memcpy or CPU atomic on MPI_Win_shared_query's address"
                       : "every access through MPI RMA; MPI baseline: MPI_Win_allocate over MPI_COMM_WORLD (as "
                         "DART's heap); no ld/st (memcpy) baseline; create = MPI_Win_create over a malloc'ed buffer");
#ifdef OPEN_MPI
    const char* osc = std::getenv("OMPI_MCA_osc");
    std::printf("# OMPI_MCA_osc=%s (libdart's default applies to the baselines too)\n", osc ? osc : "(unset)");
#endif
    // Other jobs on the machine skew every figure; say how busy it was.
    double load[1] = {-1};
    std::printf("# %ld CPUs online, load average %.2f at the start\n", sysconf(_SC_NPROCESSORS_ONLN),
                getloadavg(load, 1) == 1 ? load[0] : -1.0);
    std::printf(
        "# mean per call, best of up to %d rounds of %d calls (fewer above 4 KiB), our call and its "
        "baselines back to back in every round\n",
        o.rounds, o.iterations);
    header_row(shared);
  }

  // One table line: our call against the MPI baseline and, with shared
  // memory, the ld/st floor, without it the MPI_Win_create window.
  auto line = [&](const char* name, std::size_t bytes, int iterations, auto ours, auto mpi, auto ldst, auto create) {
    const auto r =
        shared ? compare(rank, o, iterations, ours, mpi, ldst) : compare(rank, o, iterations, ours, mpi, create);
    if (rank == 0) row(name, bytes, r[0], r[1], r[2]);
  };

  // Gets land in a second buffer, so buf keeps the pattern for the check.
  std::vector<char> in_storage(round_up(o.max_bytes, kPage) + kPage);
  char* in = page_aligned(in_storage.data());
  std::memset(in, 0, o.max_bytes);
  char* const t = raw->target;  // null without shared memory; the ld/st calls then never run
  const MPI_Aint dc = created ? created->disp : 0;
  const std::vector<std::size_t> ns = sizes(o);

  // A put's (or a get's) three baselines for n bytes: MPI on DART's kind
  // of window, ld/st, MPI on the created window. Only our call differs
  // between the blocking and the flushed form.
  auto put_line = [&](const char* name, std::size_t n, auto ours) {
    const int c = static_cast<int>(n);
    line(
        name, n, iterations_for(o, n), ours,
        [&] {
          MPI_Put(buf, c, MPI_BYTE, g_target, d, c, MPI_BYTE, w);
          MPI_Win_flush(g_target, w);
        },
        [&] {
          std::memcpy(t, buf, n);
          clobber();
        },
        [&] {
          MPI_Put(buf, c, MPI_BYTE, g_target, dc, c, MPI_BYTE, wc);
          MPI_Win_flush(g_target, wc);
        });
  };
  auto get_line = [&](const char* name, std::size_t n, auto ours) {
    const int c = static_cast<int>(n);
    line(
        name, n, iterations_for(o, n), ours,
        [&] {
          MPI_Get(in, c, MPI_BYTE, g_target, d, c, MPI_BYTE, w);
          MPI_Win_flush(g_target, w);
        },
        [&] {
          std::memcpy(in, t, n);
          clobber();
        },
        [&] {
          MPI_Get(in, c, MPI_BYTE, g_target, dc, c, MPI_BYTE, wc);
          MPI_Win_flush(g_target, wc);
        });
  };
  for (const std::size_t n : ns)
    put_line("dart_put_blocking", n,
             [&] { check(dart_put_blocking(g, buf, n, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_put_blocking"); });
  for (const std::size_t n : ns)
    put_line("dart_put+dart_flush", n, [&] {
      check(dart_put(g, buf, n, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_put");
      check(dart_flush(g), "dart_flush");
    });
  for (const std::size_t n : ns)
    put_line("dart_put_handle+dart_wait", n, [&] {
      dart_handle_t h = DART_HANDLE_NULL;
      check(dart_put_handle(g, buf, n, DART_TYPE_BYTE, DART_TYPE_BYTE, &h), "dart_put_handle");
      check(dart_wait(&h), "dart_wait");
    });
  for (const std::size_t n : ns)
    get_line("dart_get_blocking", n,
             [&] { check(dart_get_blocking(in, g, n, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_get_blocking"); });
  for (const std::size_t n : ns)
    get_line("dart_get+dart_flush", n, [&] {
      check(dart_get(in, g, n, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_get");
      check(dart_flush(g), "dart_flush");
    });

  for (const std::size_t n : ns)
    get_line("dart_get_handle+dart_wait", n, [&] {
      dart_handle_t h = DART_HANDLE_NULL;
      check(dart_get_handle(in, g, n, DART_TYPE_BYTE, DART_TYPE_BYTE, &h), "dart_get_handle");
      check(dart_wait(&h), "dart_wait");
    });

  // Atomics. Each path has its own word and its own expected value, so
  // every result is checked: a counter returns 0, 1, 2, ...; a
  // compare-and-swap word flips between 0 and 1 and returns the old value.
  // The CPU-atomic words share the cache line of the MPI compare-and-swap
  // word but are never touched by MPI.
  bool atomics_ok = true;
  const long long one = 1;
  {
    long long next_dart = 0, next_mpi = 0, next_cpu = 0, next_create = 0;
    auto* word = shared ? reinterpret_cast<long long*>(t + cas_off + 32) : nullptr;
    line(
        "dart_fetch_and_op+flush", 8, o.iterations,
        [&] {
          long long old = -1;
          check(dart_fetch_and_op(g_fao, &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM), "dart_fetch_and_op");
          check(dart_flush(g_fao), "dart_flush");
          atomics_ok &= old == next_dart++;
        },
        [&] {
          long long old = -1;
          MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, g_target, d + static_cast<MPI_Aint>(atom_off), MPI_SUM, w);
          MPI_Win_flush(g_target, w);
          atomics_ok &= old == next_mpi++;
        },
        [&] { atomics_ok &= __atomic_fetch_add(word, one, __ATOMIC_SEQ_CST) == next_cpu++; },
        [&] {
          long long old = -1;
          MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, g_target, dc + static_cast<MPI_Aint>(atom_off), MPI_SUM, wc);
          MPI_Win_flush(g_target, wc);
          atomics_ok &= old == next_create++;
        });
  }
  {
    long long cur_dart = 0, cur_mpi = 0, cur_cpu = 0, cur_create = 0;
    auto* word = shared ? reinterpret_cast<long long*>(t + cas_off + 40) : nullptr;
    line(
        "dart_compare_and_swap+flush", 8, o.iterations,
        [&] {
          const long long want = cur_dart ^ 1;
          long long old = -1;
          check(dart_compare_and_swap(g_cas, &want, &cur_dart, &old, DART_TYPE_LONGLONG), "dart_compare_and_swap");
          check(dart_flush(g_cas), "dart_flush");
          atomics_ok &= old == cur_dart;
          cur_dart = want;
        },
        [&] {
          const long long want = cur_mpi ^ 1;
          long long old = -1;
          MPI_Compare_and_swap(&want, &cur_mpi, &old, MPI_LONG_LONG, g_target, d + static_cast<MPI_Aint>(cas_off), w);
          MPI_Win_flush(g_target, w);
          atomics_ok &= old == cur_mpi;
          cur_mpi = want;
        },
        [&] {
          long long expected = cur_cpu;
          atomics_ok &=
              __atomic_compare_exchange_n(word, &expected, cur_cpu ^ 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
          cur_cpu ^= 1;
        },
        [&] {
          const long long want = cur_create ^ 1;
          long long old = -1;
          MPI_Compare_and_swap(&want, &cur_create, &old, MPI_LONG_LONG, g_target, dc + static_cast<MPI_Aint>(cas_off),
                               wc);
          MPI_Win_flush(g_target, wc);
          atomics_ok &= old == cur_create;
          cur_create = want;
        });
  }

  // The reference for on-node targets: an 8-byte put to a window that
  // MPI_Win_allocate made (where MPI need not use load/store).
  {
    RawWindow alloc(RawWindow::Kind::Allocate, kPage);
    const MPI_Win wa = alloc.win;
    const auto r = compare(
        rank, o, o.iterations,
        [&] { check(dart_put_blocking(g, buf, 8, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_put_blocking"); },
        [&] {
          MPI_Put(buf, 8, MPI_BYTE, g_target, alloc.disp, 8, MPI_BYTE, wa);
          MPI_Win_flush(g_target, wa);
        });
    if (rank == 0)
      std::printf(
          "reference, 8 B: dart_put_blocking %.3f us, MPI_Put+MPI_Win_flush on an MPI_Win_allocate "
          "window %.3f us: speedup %.2fx\n",
          r[0] * 1e6, r[1] * 1e6, r[1] / r[0]);
  }

  // Data check: a put of the whole pattern, read by the target itself, and
  // a get back into a cleared buffer.
  int ok = atomics_ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == kOrigin)
    check(dart_put_blocking(g, buf, o.max_bytes, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_put_blocking");
  check(dart_barrier(DART_TEAM_ALL), "dart_barrier");
  int data_ok = 1;
  if (rank == g_target) {
    dart_gptr_t mine = g;
    mine.addr_or_offs.offset = 0;
    void* addr = nullptr;
    check(dart_gptr_getaddr(mine, &addr), "dart_gptr_getaddr");
    const char* p = static_cast<const char*>(addr);
    for (std::size_t i = 0; i < o.max_bytes; ++i) data_ok &= p[i] == static_cast<char>(i * 131 + 7);
  }
  if (rank == kOrigin) {
    std::memset(in, 0, o.max_bytes);
    check(dart_get_blocking(in, g, o.max_bytes, DART_TYPE_BYTE, DART_TYPE_BYTE), "dart_get_blocking");
    data_ok &= std::memcmp(in, buf, o.max_bytes) == 0 ? 1 : 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &data_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  ok &= data_ok;
  if (rank == 0) std::printf(ok ? "data check: passed\n" : "data check: FAILED\n");

  created.reset();
  raw.reset();
  check(dart_team_memfree(seg), "dart_team_memfree");
  return ok ? 0 : 1;
}
