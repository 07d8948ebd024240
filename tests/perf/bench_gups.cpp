// GUPS (random-access updates of a distributed table) on DART against the
// same kernel in raw MPI, in one run, alternating: the kernel of
// mpi_examples/gups.
//
// The table holds 2^--log2-size 64-bit words per unit, block-distributed,
// initially t[i] = i. In a round, every unit applies --updates updates
// t[k] ^= v from its own pseudo-random stream, each an atomic fetch-and-op
// complete on return:
//   ours     dart_fetch_and_op(DART_OP_BXOR) + dart_flush on the word's
//            global pointer (what mpi_examples/gups's table[k] ^= v does);
//   raw MPI  MPI_Fetch_and_op(MPI_BXOR) + MPI_Win_flush on an
//            MPI_Win_allocate window over MPI_COMM_WORLD, one
//            MPI_Win_lock_all for the run.
// A round's time is the slowest unit's. Rounds alternate between the two
// (--rounds each); each figure is the best round, in million updates per
// second over all units, and ours/MPI is the ratio of times. Both tables
// are then checked against a replay of every unit's streams: "data check:
// passed" or "data check: FAILED" (exit status 1).
//
// Usage: mpirun -np N bench_gups [--log2-size 16] [--updates 20000] [--rounds 5]
#include <dash/dart/if/dart.h>

#include <mpi.h>

#include "bench_session.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using Word = unsigned long long;

// Update stream of a unit in a round of one variant: any unit can replay it.
std::mt19937_64 stream(int unit, int round, int variant) {
  return std::mt19937_64(0x9e3779b97f4a7c15ull ^ (static_cast<Word>(unit) << 32) ^ (static_cast<Word>(round) << 8) ^
                         static_cast<Word>(variant));
}

}  // namespace

int main(int argc, char** argv) {
  bench::Session session(argc, argv, "bench_gups", bench::Session::Mpi::program_multiple);
  session.start();
  int log2_size = 16, rounds = 5;
  std::size_t updates = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--log2-size")) log2_size = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--updates")) updates = std::stoull(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds")) rounds = std::stoi(argv[i + 1]);
  }
  if (log2_size < 1 || log2_size > 30 || rounds < 1) {
    if (session.rank == 0) std::fprintf(stderr, "bench_gups: --log2-size 1..30, --rounds >= 1\n");
    return 2;
  }
  const int me = session.rank, units = session.size;
  const std::size_t per_unit = std::size_t{1} << log2_size, size = per_unit * static_cast<std::size_t>(units);

  dart_gptr_t table = DART_GPTR_NULL;
  bench::check(dart_team_memalloc_aligned(DART_TEAM_ALL, per_unit, DART_TYPE_ULONGLONG, &table),
               "dart_team_memalloc_aligned");
  dart_gptr_t mine_g = table;
  mine_g.unitid = me;
  void* mine_v = nullptr;
  bench::check(dart_gptr_getaddr(mine_g, &mine_v), "dart_gptr_getaddr");
  Word* ours = static_cast<Word*>(mine_v);
  Word* raw = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(static_cast<MPI_Aint>(per_unit * sizeof(Word)), sizeof(Word), MPI_INFO_NULL, MPI_COMM_WORLD, &raw,
                   &win);
  for (std::size_t i = 0; i < per_unit; ++i) ours[i] = raw[i] = static_cast<Word>(me) * per_unit + i;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  bench::check(dart_barrier(DART_TEAM_ALL), "dart_barrier");

  auto run = [&](int variant, int round) {
    std::mt19937_64 rng = stream(me, round, variant);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (std::size_t j = 0; j < updates; ++j) {
      const Word v = rng();
      const std::size_t k = static_cast<std::size_t>(v % size);
      const int owner = static_cast<int>(k / per_unit);
      const std::size_t at = k % per_unit;
      Word old = 0;
      if (variant == 0) {
        dart_gptr_t g = table;
        g.unitid = owner;
        g.addr_or_offs.offset += at * sizeof(Word);
        bench::check(dart_fetch_and_op(g, &v, &old, DART_TYPE_ULONGLONG, DART_OP_BXOR), "dart_fetch_and_op");
        bench::check(dart_flush(g), "dart_flush");
      } else {
        MPI_Fetch_and_op(&v, &old, MPI_UNSIGNED_LONG_LONG, owner, static_cast<MPI_Aint>(at), MPI_BXOR, win);
        MPI_Win_flush(owner, win);
      }
    }
    double t = MPI_Wtime() - t0, slowest = 0;
    // Everybody's updates have landed before anybody reads a table.
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    bench::check(dart_barrier(DART_TEAM_ALL), "dart_barrier");
    return slowest;
  };
  double best[2] = {1e300, 1e300};
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < 2; ++k) {
      const int variant = (k + r) % 2;
      best[variant] = std::min(best[variant], run(variant, r));
    }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);

  // Replay every unit's streams of every round on the entries I hold.
  long long errors[2] = {0, 0};
  for (int variant = 0; variant < 2; ++variant) {
    std::vector<Word> expect(per_unit);
    for (std::size_t i = 0; i < per_unit; ++i) expect[i] = static_cast<Word>(me) * per_unit + i;
    for (int u = 0; u < units; ++u)
      for (int r = 0; r < rounds; ++r) {
        std::mt19937_64 rng = stream(u, r, variant);
        for (std::size_t j = 0; j < updates; ++j) {
          const Word v = rng();
          const std::size_t k = static_cast<std::size_t>(v % size);
          if (k / per_unit == static_cast<std::size_t>(me)) expect[k % per_unit] ^= v;
        }
      }
    const Word* t = variant == 0 ? ours : raw;
    for (std::size_t i = 0; i < per_unit; ++i) errors[variant] += t[i] != expect[i];
  }
  long long wrong[2] = {0, 0};
  const int node_units = bench::node_size();  // collective: before rank 0's report
  MPI_Allreduce(errors, wrong, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  const long long all_errors = wrong[0] + wrong[1];
  if (me == 0) {
    const double total = static_cast<double>(updates) * units;
    std::printf("# bench_gups: %d units (%d on rank 0's node), 2^%d words per unit, %zu updates per unit per round, "
                "best of %d rounds, %s\n",
                units, node_units, log2_size, updates, rounds, bench::mpi_library().c_str());
    std::printf("# %-10s %12s %12s\n", "", "s/round", "Mupdates/s");
    std::printf("row ours     %12.4f %12.3f\n", best[0], total / best[0] / 1e6);
    std::printf("row raw_MPI  %12.4f %12.3f\n", best[1], total / best[1] / 1e6);
    std::printf("ours/MPI (time): %.2f\n", best[0] / best[1]);
    if (all_errors == 0) std::printf("data check: passed\n");
    else std::printf("data check: FAILED (wrong entries: %lld of ours, %lld of raw MPI)\n", wrong[0], wrong[1]);
  }
  MPI_Win_free(&win);
  bench::check(dart_team_memfree(table), "dart_team_memfree");
  return all_errors == 0 ? 0 : 1;
}
