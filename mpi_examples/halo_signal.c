/*
 * halo_signal: a 1-D heat equation on a ring of units whose halo exchange
 * needs no barrier. Each step, a unit puts its edge cells into its
 * neighbours' ghost cells with dart_put_signal, each put adding 1 to a
 * step counter beside the ghost cell, and then waits (dart_signal_wait_until)
 * until both of its own counters say its ghosts for this step are there.
 *
 * Ghost cells alternate between two slots by step parity. A unit writes a
 * slot again two steps later, and it gets that far only after the
 * neighbour has sent its next edge, which the neighbour does after
 * computing with the old value: no slot is overwritten before it is read.
 *
 * At the end every unit compares its cells with the same computation done
 * by one process (bit for bit: the same operations in the same order).
 *
 * Run:  mpirun -np 4 ./halo_signal [cells-per-unit] [steps]
 */
#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/if/dart.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                 \
  do {                                                              \
    dart_ret_t rc_ = (call);                                        \
    if (rc_ != DART_OK) {                                           \
      fprintf(stderr, "%s failed with code %d\n", #call, (int)rc_); \
      dart_abort(DART_EXIT_ABORT);                                  \
    }                                                               \
  } while (0)

/* Each unit's part of the segment: the step counters first (their own
 * cache lines), then ghost[parity][side]. side 0 = from the left
 * neighbour, 1 = from the right. */
struct halo {
  uint64_t arrived[2]; /* per side: ghosts received so far */
  char pad[48];
  double ghost[2][2];
};

static double initial(long i, long n) { return (i % 17 == 0 || i == n / 2) ? 100.0 : 0.0; }

/* One step of the stencil on cells u[1..m] with ghosts u[0] and u[m+1]. */
static void step(const double* u, double* v, long m) {
  for (long i = 1; i <= m; ++i) v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

int main(int argc, char** argv) {
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me_g;
  size_t nunits;
  CHECK(dart_myid(&me_g));
  CHECK(dart_size(&nunits));
  const int me = me_g.id, n = (int)nunits;
  const long m = argc > 1 ? atol(argv[1]) : 64;
  const long steps = argc > 2 ? atol(argv[2]) : 200;
  const int left = (me + n - 1) % n, right = (me + 1) % n;

  dart_gptr_t seg;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, sizeof(struct halo), DART_TYPE_BYTE, &seg));
  dart_gptr_t mine_g = seg;
  CHECK(dart_gptr_setunit(&mine_g, DART_TEAM_UNIT_ID(me)));
  void* addr = NULL;
  CHECK(dart_gptr_getaddr(mine_g, &addr));
  struct halo* h = (struct halo*)addr;
  memset(h, 0, sizeof *h);
  CHECK(dart_barrier(DART_TEAM_ALL)); /* every unit's counters are zero */

  /* Pointers into a neighbour's part. */
  dart_gptr_t to_left = seg, to_right = seg;
  CHECK(dart_gptr_setunit(&to_left, DART_TEAM_UNIT_ID(left)));
  CHECK(dart_gptr_setunit(&to_right, DART_TEAM_UNIT_ID(right)));

  double* u = malloc((size_t)(m + 2) * sizeof *u);
  double* v = malloc((size_t)(m + 2) * sizeof *v);
  for (long i = 1; i <= m; ++i) u[i] = initial(me * m + i - 1, n * m);

  for (long s = 0; s < steps; ++s) {
    const int p = (int)(s % 2);
    /* My left edge is my left neighbour's ghost from the right (side 1). */
    dart_gptr_t g = to_left, sig = to_left;
    CHECK(dart_gptr_incaddr(&g, (int64_t)(offsetof(struct halo, ghost) + (size_t)(2 * p + 1) * sizeof(double))));
    CHECK(dart_gptr_incaddr(&sig, (int64_t)(offsetof(struct halo, arrived) + sizeof(uint64_t))));
    CHECK(dart_put_signal(g, &u[1], 1, DART_TYPE_DOUBLE, sig, 1, DART_SIGNAL_ADD));
    g = to_right;
    sig = to_right;
    CHECK(dart_gptr_incaddr(&g, (int64_t)(offsetof(struct halo, ghost) + (size_t)(2 * p) * sizeof(double))));
    CHECK(dart_gptr_incaddr(&sig, (int64_t)offsetof(struct halo, arrived)));
    CHECK(dart_put_signal(g, &u[m], 1, DART_TYPE_DOUBLE, sig, 1, DART_SIGNAL_ADD));
    CHECK(dart_flush_all(seg)); /* the puts and signals are on their way to completion */

    /* Both ghosts of step s are here once each counter reaches s + 1. */
    for (int side = 0; side < 2; ++side) {
      dart_gptr_t mine_sig = mine_g;
      CHECK(dart_gptr_incaddr(&mine_sig, (int64_t)(offsetof(struct halo, arrived) + (size_t)side * sizeof(uint64_t))));
      CHECK(dart_signal_wait_until(mine_sig, DART_CMP_GE, (uint64_t)(s + 1), NULL));
    }
    u[0] = h->ghost[p][0];
    u[m + 1] = h->ghost[p][1];
    step(u, v, m);
    double* t = u;
    u = v;
    v = t;
  }

  /* The same computation in one process, for the whole ring. */
  const long total = n * m;
  double* a = malloc((size_t)(total + 2) * sizeof *a);
  double* b = malloc((size_t)(total + 2) * sizeof *b);
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
  for (long i = 1; i <= m; ++i) wrong += u[i] != a[me * m + i];
  printf("unit %d: %ld cells, %ld steps, %ld differ from the single-process run%s\n", me, m, steps, wrong,
         wrong ? " MISMATCH" : "");
  int64_t all_wrong = 0, my_wrong = wrong;
  CHECK(dart_allreduce(&my_wrong, &all_wrong, 1, DART_TYPE_LONGLONG, DART_OP_SUM, DART_TEAM_ALL));
  if (me == 0) printf("halo_signal: %d units, %ld steps: %s\n", n, steps, all_wrong == 0 ? "OK" : "FAIL");
  fflush(stdout);

  free(a);
  free(b);
  free(u);
  free(v);
  CHECK(dart_barrier(DART_TEAM_ALL));
  CHECK(dart_team_memfree(seg));
  CHECK(dart_exit());
  return 0;
}
