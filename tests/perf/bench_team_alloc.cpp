// Cost of a collective allocation: dart_team_memalloc_aligned followed by
// dart_team_memfree, against the baselines measured in the same run:
//   - MPI_Barrier on MPI_COMM_WORLD (the floor of any collective),
//   - MPI_Win_allocate_shared + MPI_Win_free of the same size (what a
//     runtime that creates a window per allocation pays).
// Each figure is the mean per pair over --iterations, best of --rounds
// (the best round filters out noise from other jobs on a shared machine).
//
// Usage: mpirun -np <n> bench_team_alloc [--bytes N] [--iterations N] [--rounds N]
#include <dash/dart/if/dart.h>

#include <mpi.h>

#include "bench_session.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

namespace {

using bench::check;

struct Options {
  std::size_t bytes = 4096;
  int iterations = 2000;
  int rounds = 5;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--bytes")) o.bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--iterations")) o.iterations = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds")) o.rounds = std::atoi(argv[i + 1]);
  }
  return o;
}

// Mean seconds per call of `op` (all ranks in lockstep), best of `rounds`;
// rank 0's figure is the one reported, taken as the max over ranks.
double time_op(const Options& o, const std::function<void()>& op) {
  for (int i = 0; i < std::min(o.iterations, 50); ++i) op();  // warm-up
  double best = std::numeric_limits<double>::max();
  for (int r = 0; r < o.rounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < o.iterations; ++i) op();
    double mine = (MPI_Wtime() - t0) / o.iterations;
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = std::min(best, slowest);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Session session(argc, argv, "bench_team_alloc", bench::Session::Mpi::program);
  session.start();
  const int rank = session.rank, size = session.size;
  const Options o = parse(argc, argv);

  const double t_dart = time_op(o, [&] {
    dart_gptr_t g;
    check(dart_team_memalloc_aligned(DART_TEAM_ALL, o.bytes, DART_TYPE_BYTE, &g), "dart_team_memalloc_aligned");
    check(dart_team_memfree(g), "dart_team_memfree");
  });
  const double t_barrier = time_op(o, [&] { MPI_Barrier(MPI_COMM_WORLD); });
  Options win_opts = o;
  win_opts.iterations = std::max(1, o.iterations / 10);  // window creation is slow
  const double t_win = time_op(win_opts, [&] {
    void* base = nullptr;
    MPI_Win w;
    MPI_Win_allocate_shared(static_cast<MPI_Aint>(o.bytes), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    MPI_Win_free(&w);
  });

  if (rank == 0) {
    std::printf("# bench_team_alloc: %d ranks, %zu bytes per unit, %s\n", size, o.bytes, bench::mpi_library().c_str());
    std::printf("%-44s %12s %14s\n", "operation", "us per op", "ours/baseline");
    std::printf("%-44s %12.2f %14s\n", "dart_team_memalloc_aligned+free (ours)", t_dart * 1e6, "");
    std::printf("%-44s %12.2f %14.3f\n", "MPI_Barrier (baseline)", t_barrier * 1e6, t_dart / t_barrier);
    std::printf("%-44s %12.2f %14.3f\n", "MPI_Win_allocate_shared+free (baseline)", t_win * 1e6, t_dart / t_win);
    std::printf("speedup over a window per allocation: %.1fx\n", t_win / t_dart);
  }
  return 0;
}
