/*
 * OpenSHMEM operations on a static variable against the same operation on
 * the symmetric heap, in one run, on PE 0 and PE 1 (other PEs wait in
 * shmem_barrier_all). OpenSHMEM programs keep flags, counters and pSync
 * arrays in static memory; on one node a static should cost what the heap
 * costs.
 *   put8+quiet   shmem_long_put of 1 element + shmem_quiet
 *   get8         shmem_long_g
 *   fetch_add    shmem_long_atomic_fetch_add
 *   ping-pong    round trip of shmem_long_atomic_set on the peer's flag and
 *                shmem_long_wait_until on one's own
 * Each figure is ns per operation (per round trip), the median of 16
 * batches, best of --rounds; heap and static alternate. The results are
 * checked: "data check: passed" or "data check: FAILED" (exit status 1).
 * Output rows: row <operation> <heap ns> <static ns> <static/heap>
 * Usage: oshrun -n 2 bench_shmem_static [--iterations N] [--rounds N]
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long s_word, s_flag, s_counter;
static int ok = 1, me, iterations = 20000, rounds = 5;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* ns per operation of `op` on (word, flag, counter), median of 16 batches. */
static double timed(int op, long* word, long* flag, long* counter, long* seq, long* next_add) {
  double t[16];
  const int n = op == 3 ? iterations / 20 + 1 : iterations / 16 + 1;
  for (int b = 0; b < 16; ++b) {
    shmem_barrier_all();
    const double t0 = now_ns();
    if (me < 2) {
      for (int i = 0; i < n; ++i) {
        switch (op) {
          case 0:
            if (me == 0) {
              const long v = i;
              shmem_long_put(word, &v, 1, 1);
              shmem_quiet();
            }
            break;
          case 1:
            if (me == 0 && shmem_long_g(word, 1) < 0) ok = 0;
            break;
          case 2:
            if (me == 0 && shmem_long_atomic_fetch_add(counter, 1, 1) != (*next_add)++) ok = 0;
            break;
          default: {
            const long s = ++*seq;
            if (me == 1) shmem_long_wait_until(flag, SHMEM_CMP_GE, s);
            shmem_long_atomic_set(flag, s, 1 - me);
            if (me == 0) shmem_long_wait_until(flag, SHMEM_CMP_GE, s);
          }
        }
      }
    }
    t[b] = (now_ns() - t0) / n;
  }
  shmem_barrier_all();
  qsort(t, 16, sizeof t[0], cmp_double);
  return (t[7] + t[8]) / 2;
}

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--iterations") == 0) iterations = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
  }
  if (iterations < 16 || rounds < 1) {
    fprintf(stderr, "usage: bench_shmem_static [--iterations N>=16] [--rounds N>0]\n");
    return 2;
  }
  shmem_init();
  me = shmem_my_pe();
  if (shmem_n_pes() < 2) {
    if (me == 0) fprintf(stderr, "bench_shmem_static: needs 2 PEs\n");
    shmem_finalize();
    return 2;
  }
  long* h = shmem_calloc(3 * 8, sizeof(long)); /* word, flag, counter on their own lines */
  long seq_h = 0, seq_s = 0, add_h = 0, add_s = 0;
  const char* names[4] = {"put8+quiet", "get8", "fetch_add", "ping-pong round trip"};
  if (me == 0) {
    printf("# bench_shmem_static: %d PEs; ns per operation, median of 16 batches, best of %d rounds\n",
           shmem_n_pes(), rounds);
    printf("# %-24s %10s %10s %8s\n", "operation", "heap", "static", "ratio");
  }
  for (int op = 0; op < 4; ++op) {
    double best_h = 1e300, best_s = 1e300;
    for (int r = 0; r < rounds; ++r) {
      const int heap_first = r % 2 == 0;
      for (int k = 0; k < 2; ++k) {
        if ((k == 0) == heap_first) {
          const double t = timed(op, &h[0], &h[8], &h[16], &seq_h, &add_h);
          if (t < best_h) best_h = t;
        } else {
          const double t = timed(op, &s_word, &s_flag, &s_counter, &seq_s, &add_s);
          if (t < best_s) best_s = t;
        }
      }
    }
    if (me == 0) printf("row %-24s %10.1f %10.1f %8.2f\n", names[op], best_h, best_s, best_s / best_h);
  }
  shmem_barrier_all();
  /* Every fetch-add landed once. */
  if (me == 0 && (shmem_long_g(&h[16], 1) != add_h || shmem_long_g(&s_counter, 1) != add_s)) ok = 0;
  static int all;
  static int mine;
  mine = ok;
  shmem_int_min_reduce(SHMEM_TEAM_WORLD, &all, &mine, 1);
  if (me == 0) printf(all ? "data check: passed\n" : "data check: FAILED\n");
  shmem_free(h);
  shmem_finalize();
  return all ? 0 : 1;
}
