/*
 * shmem_halo: a 1-D heat equation on a ring of PEs in OpenSHMEM, whose
 * halo exchange needs no barrier. Each step, a PE puts its edge cells into
 * its neighbours' ghost cells with shmem_put_signal, each put adding 1 to
 * a step counter beside the ghost cell (SHMEM_SIGNAL_ADD), and then waits
 * with shmem_signal_wait_until until both of its own counters say that
 * this step's ghosts are there.
 *
 * Ghost cells alternate between two slots by step parity. A PE writes a
 * slot again two steps later, and it gets that far only after the
 * neighbour has sent its next edge, which the neighbour does after
 * computing with the old value: no slot is overwritten before it is read.
 *
 * At the end PE 0 collects every PE's cells and compares them with the same
 * computation done serially (bit for bit: the same operations in the same
 * order).
 *
 * Build: oshcc -o shmem_halo shmem_halo.c
 * Run:   oshrun -n 4 ./shmem_halo [cells-per-PE] [steps]
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Symmetric: each PE's step counters (signal words, one per side: 0 from
 * the left neighbour, 1 from the right) and ghost cells [parity][side]. */
static uint64_t arrived[2];
static double ghost[2][2];

static double initial(long i, long n) { return (i % 17 == 0 || i == n / 2) ? 100.0 : 0.0; }

/* One step of the stencil on cells u[1..m] with ghosts u[0] and u[m+1]. */
static void step(const double* u, double* v, long m) {
  for (long i = 1; i <= m; ++i) v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const long m = argc > 1 ? atol(argv[1]) : 64;
  const long steps = argc > 2 ? atol(argv[2]) : 200;
  const int left = (me + n - 1) % n, right = (me + 1) % n;
  if (m < 1 || steps < 0) {
    if (me == 0) fprintf(stderr, "usage: shmem_halo [cells-per-PE >= 1] [steps >= 0]\n");
    shmem_finalize();
    return 1;
  }

  /* The cells live on the symmetric heap so that PE 0 can collect them. */
  double* cells = shmem_malloc((size_t)m * sizeof(double));
  double* u = malloc((size_t)(m + 2) * sizeof *u);
  double* v = malloc((size_t)(m + 2) * sizeof *v);
  if (!cells || !u || !v) {
    fprintf(stderr, "shmem_halo: PE %d: out of memory\n", me);
    shmem_global_exit(1);
  }
  for (long i = 1; i <= m; ++i) u[i] = initial(me * m + i - 1, n * m);

  for (long s = 0; s < steps; ++s) {
    const int p = (int)(s % 2);
    /* My left edge is my left neighbour's ghost from the right (side 1),
     * my right edge my right neighbour's ghost from the left (side 0). */
    shmem_put_signal(&ghost[p][1], &u[1], 1, &arrived[1], 1, SHMEM_SIGNAL_ADD, left);
    shmem_put_signal(&ghost[p][0], &u[m], 1, &arrived[0], 1, SHMEM_SIGNAL_ADD, right);
    /* Both ghosts of step s are here once each counter reaches s + 1. */
    shmem_signal_wait_until(&arrived[0], SHMEM_CMP_GE, (uint64_t)(s + 1));
    shmem_signal_wait_until(&arrived[1], SHMEM_CMP_GE, (uint64_t)(s + 1));
    u[0] = ghost[p][0];
    u[m + 1] = ghost[p][1];
    step(u, v, m);
    double* t = u;
    u = v;
    v = t;
  }

  /* PE 0 collects the ring and compares it with the serial computation. */
  for (long i = 0; i < m; ++i) cells[i] = u[i + 1];
  shmem_barrier_all();
  int status = 0;
  if (me == 0) {
    const long total = n * m;
    double* all = malloc((size_t)total * sizeof *all);
    double* a = malloc((size_t)(total + 2) * sizeof *a);
    double* b = malloc((size_t)(total + 2) * sizeof *b);
    if (!all || !a || !b) {
      fprintf(stderr, "shmem_halo: out of memory\n");
      shmem_global_exit(1);
    }
    for (int pe = 0; pe < n; ++pe) shmem_double_get(&all[pe * m], cells, (size_t)m, pe);
    for (long i = 1; i <= total; ++i) a[i] = initial(i - 1, total);
    for (long s = 0; s < steps; ++s) {
      a[0] = a[total];
      a[total + 1] = a[1];
      step(a, b, total);
      double* t = a;
      a = b;
      b = t;
    }
    long wrong = 0;
    for (long i = 0; i < total; ++i) wrong += all[i] != a[i + 1];
    if (wrong == 0)
      printf("shmem_halo: %d PEs, %ld steps: each of the %ld cells matches the serial computation\n", n, steps, total);
    else
      printf("shmem_halo: %d PEs, %ld steps: %ld of %ld cells differ from the serial computation: MISMATCH\n", n, steps,
             wrong, total);
    fflush(stdout);
    status = wrong != 0;
    free(all);
    free(a);
    free(b);
  }
  shmem_barrier_all();
  free(u);
  free(v);
  shmem_free(cells);
  shmem_finalize();
  return status;
}
