// Plain-MPI latencies of one-sided operations from rank 0 to the first
// rank on another host, for comparing an MPI's one-sided components and
// transports on the rig (scripts/rig/osc-components.sh runs it under each
// choice). No DART: what the MPI itself gives under a setting is what
// DART's defaults can choose from.
//
// Window: MPI_Win_allocate over MPI_COMM_WORLD (the kind DART uses for a
// team across hosts), one MPI_Win_lock_all for the run, the thread level
// of argv[1] ("multiple", the default, as DART asks for; or "single").
// Operations, each the mean of --iterations after a warm-up, best of 5:
//   put8    MPI_Put 8 B + MPI_Win_flush
//   get8    MPI_Get 8 B + MPI_Win_flush
//   put64k  MPI_Put 64 KiB + MPI_Win_flush
//   fadd    MPI_Fetch_and_op (MPI_INT64_T, MPI_SUM) + MPI_Win_flush
//   cas     MPI_Compare_and_swap (MPI_INT64_T) + MPI_Win_flush
// The target waits in MPI_Barrier meanwhile (inside MPI, so an MPI that
// needs the target's progress gets it). Every fetched value is checked,
// and the final counter on the target; a wrong one prints "FAILED" and
// exits 1.
//
//   mpicc.openmpi -O2 -o /tmp/osc-latency scripts/rig/osc-latency.c
//   RIG_PPN=1 scripts/rig/run-multihost.sh openmpi /tmp/osc-latency multiple 2000
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed = 0;

static void check(int cond, const char* what, long long got, long long want) {
  if (!cond && !failed) fprintf(stderr, "osc-latency: FAILED: %s: got %lld, want %lld\n", what, got, want);
  if (!cond) failed = 1;
}

int main(int argc, char** argv) {
  const int want_level =
      (argc > 1 && strcmp(argv[1], "single") == 0) ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
  const int iterations = argc > 2 ? atoi(argv[2]) : 2000;
  int level = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, want_level, &level);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // The target: the lowest rank that does not share rank 0's node.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_zeros_node = (rank == 0);
  MPI_Allreduce(MPI_IN_PLACE, &on_zeros_node, 1, MPI_INT, MPI_MAX, node);
  int candidate = on_zeros_node ? size : rank, target = size;
  MPI_Allreduce(&candidate, &target, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const int remote = target < size;
  if (!remote) target = size > 1 ? 1 : 0;  // one node: the next rank

  const MPI_Aint bytes = 64 * 1024 + 64;
  char* base = NULL;
  MPI_Win win;
  MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, 0, (size_t)bytes);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);

  static char buf[64 * 1024];
  memset(buf, 7, sizeof buf);
  const char* names[] = {"put8", "get8", "put64k", "fadd", "cas"};
  double best[5];
  long long adds = 0;
  for (int op = 0; op < 5; ++op) {
    best[op] = 1e30;
    for (int round = 0; round < 6; ++round) {  // round 0 warms up
      const int n = op == 2 ? iterations / 10 + 1 : iterations;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (rank == 0) {
        for (int i = 0; i < n; ++i) {
          int64_t v = i, r = -1, cmp = 0;
          switch (op) {
            case 0: MPI_Put(buf, 8, MPI_BYTE, target, 64, 8, MPI_BYTE, win); break;
            case 1: MPI_Get(&r, 8, MPI_BYTE, target, 64, 8, MPI_BYTE, win); break;
            case 2: MPI_Put(buf, sizeof buf, MPI_BYTE, target, 64, sizeof buf, MPI_BYTE, win); break;
            case 3:
              v = 1;
              MPI_Fetch_and_op(&v, &r, MPI_INT64_T, target, 0, MPI_SUM, win);
              break;
            case 4:
              // Swap 0 for 0: the word stays as fetch-add leaves it, the
              // result is checked against it.
              cmp = adds;
              v = adds;
              MPI_Compare_and_swap(&v, &cmp, &r, MPI_INT64_T, target, 0, win);
              break;
          }
          MPI_Win_flush(target, win);
          if (op == 3) {
            check(r == adds, "fetch-and-add result", r, adds);
            ++adds;
          }
          if (op == 4) check(r == adds, "compare-and-swap result", r, adds);
        }
      }
      double us = (MPI_Wtime() - t0) * 1e6 / n;
      MPI_Barrier(MPI_COMM_WORLD);
      if (round > 0 && us < best[op]) best[op] = us;
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(&adds, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == target) {
    int64_t counter;
    memcpy(&counter, base, sizeof counter);
    check(counter == adds, "target's counter", counter, adds);
  }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("osc-latency: %d ranks, rank 0 -> rank %d (%s), thread level %d of %d\n", size, target,
           remote ? "another node" : "same node", level,
           want_level);
    for (int op = 0; op < 5; ++op) printf("row %s %.2f us\n", names[op], best[op]);
    printf("osc-latency: %s\n", failed ? "FAILED" : "checks passed");
  }
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return failed;
}
