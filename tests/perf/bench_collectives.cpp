// DART collectives against the raw MPI collective on the same ranks, in
// one run: barrier, bcast, scatter, gather, allgather, allgatherv,
// allreduce, alltoall and reduce on DART_TEAM_ALL (whose communicator is a
// duplicate of MPI_COMM_WORLD) against the MPI call on MPI_COMM_WORLD, at
// 8 B, 1 KiB, 64 KiB and 1 MiB. "Bytes" is the whole buffer of bcast and
// the reductions (doubles, SUM) and one unit's block of the others (BYTE).
// Each DART call is timed right after its MPI baseline in every round
// (back to back, so both see the same load), best of --rounds. The table
// is measured twice: with DART_COLLECTIVE_CHECKS=1 (the default: one
// agreement allreduce that also carries small calls) and =0 (MPI called
// directly); dart_init reads the variable, and the program initialises MPI
// itself so it can run dart_init/dart_exit twice. Then team creation:
// dart_team_create + dart_team_destroy of a team of all units against
// MPI_Comm_split + MPI_Comm_free, in µs per pair. Last, on one node, the
// floor under any barrier there: a bare flag barrier in shared memory.
//
// Usage: mpirun -np <n> bench_collectives [--iterations N] [--rounds N] [--max-bytes N]
// --iterations is the count at small sizes; larger ones run fewer.
#include <dash/dart/if/dart.h>
#include <sched.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_session.hpp"

#include "bench_options.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace {

using bench::check;

using bench::Options;

Options parse(int argc, char** argv) {
  Options o = bench::parse_options(argc, argv, Options{2000, 7, std::size_t(1) << 20});
  return o;
}

// Seconds per call of `op`, `iters` calls in lockstep, slowest rank.
double run(int iters, const std::function<void()>& op) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) op();
  const double mine = (MPI_Wtime() - t0) / iters;
  double slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

struct Pair {
  double ours = std::numeric_limits<double>::max();
  double mpi = std::numeric_limits<double>::max();
};

// Best of `rounds` of DART and MPI, measured back to back in each round.
Pair compare(const Options& o, int iters, const std::function<void()>& ours, const std::function<void()>& mpi) {
  for (int i = 0; i < std::min(iters, 20); ++i) {
    ours();
    mpi();
  }
  Pair p;
  for (int r = 0; r < o.rounds; ++r) {
    p.mpi = std::min(p.mpi, run(iters, mpi));
    p.ours = std::min(p.ours, run(iters, ours));
  }
  return p;
}

struct Row {
  std::string op;
  std::size_t bytes;
  Pair on, off;
};

std::vector<Row> measure(const Options& o, int rank, int size) {
  std::vector<Row> rows;
  const auto n = static_cast<std::size_t>(size);
  const dart_team_unit_t root = DART_TEAM_UNIT_ID(0);
  const MPI_Comm world = MPI_COMM_WORLD;
  auto add = [&](const char* name, std::size_t bytes, int iters, const std::function<void()>& ours,
                 const std::function<void()>& mpi) {
    rows.push_back(Row{name, bytes, compare(o, iters, ours, mpi), Pair{}});
  };
  add(
      "barrier", 0, o.iterations, [&] { check(dart_barrier(DART_TEAM_ALL), "dart_barrier"); },
      [&] { MPI_Barrier(world); });
  for (const std::size_t bytes : {std::size_t(8), std::size_t(1) << 10, std::size_t(64) << 10, std::size_t(1) << 20}) {
    if (bytes > o.max_bytes) break;
    const int iters = std::max(5, static_cast<int>(o.iterations / (1 + bytes / 4096)));
    const int cnt = static_cast<int>(bytes);
    std::vector<unsigned char> a(bytes * n, static_cast<unsigned char>(rank)), b(bytes * n);
    add(
        "bcast", bytes, iters,
        [&] { check(dart_bcast(a.data(), bytes, DART_TYPE_BYTE, root, DART_TEAM_ALL), "bcast"); },
        [&] { MPI_Bcast(a.data(), cnt, MPI_BYTE, 0, world); });
    add(
        "scatter", bytes, iters,
        [&] { check(dart_scatter(a.data(), b.data(), bytes, DART_TYPE_BYTE, root, DART_TEAM_ALL), "scatter"); },
        [&] { MPI_Scatter(a.data(), cnt, MPI_BYTE, b.data(), cnt, MPI_BYTE, 0, world); });
    add(
        "gather", bytes, iters,
        [&] { check(dart_gather(a.data(), b.data(), bytes, DART_TYPE_BYTE, root, DART_TEAM_ALL), "gather"); },
        [&] { MPI_Gather(a.data(), cnt, MPI_BYTE, b.data(), cnt, MPI_BYTE, 0, world); });
    add(
        "allgather", bytes, iters,
        [&] { check(dart_allgather(a.data(), b.data(), bytes, DART_TYPE_BYTE, DART_TEAM_ALL), "allgather"); },
        [&] { MPI_Allgather(a.data(), cnt, MPI_BYTE, b.data(), cnt, MPI_BYTE, world); });
    std::vector<std::size_t> counts(n, bytes), displs(n);
    std::vector<int> icounts(n, cnt), idispls(n);
    for (std::size_t u = 0; u < n; ++u) {
      displs[u] = u * bytes;
      idispls[u] = static_cast<int>(u * bytes);
    }
    add(
        "allgatherv", bytes, iters,
        [&] {
          check(dart_allgatherv(a.data(), bytes, DART_TYPE_BYTE, b.data(), counts.data(), displs.data(), DART_TEAM_ALL),
                "allgatherv");
        },
        [&] { MPI_Allgatherv(a.data(), cnt, MPI_BYTE, b.data(), icounts.data(), idispls.data(), MPI_BYTE, world); });
    std::vector<double> x(bytes / sizeof(double), 1.0 + rank), y(bytes / sizeof(double));
    const int dn = static_cast<int>(x.size());
    add(
        "allreduce", bytes, iters,
        [&] {
          check(dart_allreduce(x.data(), y.data(), x.size(), DART_TYPE_DOUBLE, DART_OP_SUM, DART_TEAM_ALL),
                "allreduce");
        },
        [&] { MPI_Allreduce(x.data(), y.data(), dn, MPI_DOUBLE, MPI_SUM, world); });
    add(
        "alltoall", bytes, iters,
        [&] { check(dart_alltoall(a.data(), b.data(), bytes, DART_TYPE_BYTE, DART_TEAM_ALL), "alltoall"); },
        [&] { MPI_Alltoall(a.data(), cnt, MPI_BYTE, b.data(), cnt, MPI_BYTE, world); });
    add(
        "reduce", bytes, iters,
        [&] {
          check(dart_reduce(x.data(), y.data(), x.size(), DART_TYPE_DOUBLE, DART_OP_SUM, root, DART_TEAM_ALL),
                "reduce");
        },
        [&] { MPI_Reduce(x.data(), y.data(), dn, MPI_DOUBLE, MPI_SUM, 0, world); });
  }
  return rows;
}

Pair team_create(const Options& o, int rank) {
  dart_group_t group = nullptr;
  check(dart_team_get_group(DART_TEAM_ALL, &group), "dart_team_get_group");
  const int iters = std::max(5, o.iterations / 10);
  Pair p = compare(
      o, iters,
      [&] {
        dart_team_t t = DART_TEAM_NULL;
        check(dart_team_create(DART_TEAM_ALL, group, &t), "dart_team_create");
        check(dart_team_destroy(&t), "dart_team_destroy");
      },
      [&] {
        MPI_Comm c = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
        MPI_Comm_free(&c);
      });
  check(dart_group_destroy(&group), "dart_group_destroy");
  return p;
}

// The floor under any barrier of the units of one node: each unit stores
// the barrier's generation into its own 128-byte line of a shared window
// (two lines per unit, used in turn, so a store does not contend with the
// readers of the last barrier) and spins until every other unit's line
// shows it too, yielding after a while as the runtime does on a busy node.
// No argument check, no call, no verdict: what the cache-coherence traffic
// alone costs on this machine, which a barrier, and an 8-byte call that
// must hear from every member before it can report success, cannot beat.
// Seconds per barrier, or a negative value when the units do not share one
// node or outnumber its CPUs (then every wait is a trip through the
// scheduler, and how the waiting gives way decides, not the hardware).
double flag_barrier_floor(const Options& o, int rank, int size) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  int all_here = node_size == size && sysconf(_SC_NPROCESSORS_ONLN) >= size ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_here, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (all_here == 0) {
    MPI_Comm_free(&node);
    return -1;
  }
  constexpr MPI_Aint kLine = 128;
  void* mine = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate_shared(2 * kLine, 1, MPI_INFO_NULL, node, &mine, &win);
  std::vector<std::atomic<std::uint64_t>*> flags(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    MPI_Aint bytes = 0;
    int disp = 0;
    void* p = nullptr;
    MPI_Win_shared_query(win, r, &bytes, &disp, &p);
    flags[static_cast<std::size_t>(r)] = static_cast<std::atomic<std::uint64_t>*>(p);
  }
  new (mine) std::atomic<std::uint64_t>(0);
  new (static_cast<char*>(mine) + kLine) std::atomic<std::uint64_t>(0);
  MPI_Barrier(node);
  std::uint64_t g = 0;
  constexpr std::size_t kStride = kLine / sizeof(std::atomic<std::uint64_t>);
  auto barrier = [&] {
    ++g;
    const std::size_t p = (g & 1) * kStride;
    flags[static_cast<std::size_t>(rank)][p].store(g, std::memory_order_release);
    for (int r = 0; r < size; ++r)
      for (int spin = 0; flags[static_cast<std::size_t>(r)][p].load(std::memory_order_acquire) < g; ++spin) {
        if (spin < 2048) __builtin_ia32_pause();
        else sched_yield();
      }
  };
  for (int i = 0; i < 20; ++i) barrier();
  double best = std::numeric_limits<double>::max();
  for (int r = 0; r < o.rounds; ++r) best = std::min(best, run(o.iterations, barrier));
  MPI_Barrier(node);
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Session session(argc, argv, "bench_collectives", bench::Session::Mpi::program_multiple);
  const int rank = session.rank, size = session.size;
  const Options o = parse(argc, argv);

  setenv("DART_COLLECTIVE_CHECKS", "1", 1);
  session.start();
  std::vector<Row> rows = measure(o, rank, size);
  const Pair team = team_create(o, rank);
  session.stop();

  setenv("DART_COLLECTIVE_CHECKS", "0", 1);
  session.start();
  const std::vector<Row> off = measure(o, rank, size);
  session.stop();
  for (std::size_t i = 0; i < rows.size() && i < off.size(); ++i) rows[i].off = off[i].on;
  const double floor = flag_barrier_floor(o, rank, size);

  if (rank == 0) {
    std::printf("collectives on %d ranks, µs per call, best of %d rounds (MPI: best of both passes)\n", size, o.rounds);
    std::printf("%-11s %8s %10s %10s %10s %9s %9s\n", "collective", "bytes", "dart", "dart-nochk", "MPI", "ratio",
                "ratio-nc");
    double worst_small = 0;
    for (const Row& r : rows) {
      const double mpi = std::min(r.on.mpi, r.off.mpi);
      std::printf("%-11s %8zu %10.2f %10.2f %10.2f %8.2fx %8.2fx\n", r.op.c_str(), r.bytes, r.on.ours * 1e6,
                  r.off.ours * 1e6, mpi * 1e6, r.on.ours / mpi, r.off.ours / mpi);
      worst_small = std::max(worst_small, r.on.ours / mpi);
    }
    std::printf("dart_team_create+destroy %10.2f µs per pair; MPI_Comm_split+free %10.2f µs; ratio %.2fx\n",
                team.ours * 1e6, team.mpi * 1e6, team.ours / team.mpi);
    if (floor > 0) {
      const double mpi_barrier = std::min(rows[0].on.mpi, rows[0].off.mpi);
      std::printf("floor: a bare shared-memory flag barrier (one line per unit, nothing checked) %.2f µs; "
                  "dart_barrier %.2fx of it, MPI_Barrier %.2fx\n",
                  floor * 1e6, rows[0].on.ours / floor, mpi_barrier / floor);
    }
  }
  return 0;
}
