/*
 * Counted initialisation (OpenSHMEM 1.6): nested shmem_init and
 * shmem_init_thread calls, each matched by a shmem_finalize that is a
 * barrier until the last one, shmem_query_initialized before, between and
 * after, calls after the last finalize refused with one line, and the
 * library started a second time in the same process (the runtime again on
 * the MPI kept up), with the symmetric heap, globals, RMA and a collective
 * working there as the first time. Not covered: MPI_Finalize by the
 * program between the two runs (test_shmem_hybrid's orders).
 */
#include "shmem_check.h"

#include <string.h>

static long ring[4];
static long count_before_barrier;

/* One run's checks: a ring of puts into a global and into the heap, and a
 * reduction; returns the failures seen. */
static void one_run(int round) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(me >= 0 && n >= 1, "round %d: PE %d of %d", round, me, n);
  long* heap = shmem_malloc(4 * sizeof(long));
  CHECK(heap != NULL, "round %d: malloc", round);
  if (!heap) return;
  memset(ring, 0, sizeof ring);
  memset(heap, 0, 4 * sizeof(long));
  shmem_barrier_all();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  shmem_long_p(&ring[round], 100L * round + me, right);
  shmem_long_p(&heap[round], 200L * round + me, right);
  shmem_barrier_all();
  CHECK(ring[round] == 100L * round + left, "round %d: global from the left: %ld", round, ring[round]);
  CHECK(heap[round] == 200L * round + left, "round %d: heap from the left: %ld", round, heap[round]);
  static long one = 1, sum;
  CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum, &one, 1) == 0 && sum == n, "round %d: reduction", round);
  shmem_free(heap);
}

int main(void) {
  int init = -1;
  shmem_query_initialized(&init);
  if (init != 0) return 1;
  shmem_init();
  int provided = -1;
  /* Nested: the second initialisation keeps the first's thread level. */
  if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) return 1;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(provided == SHMEM_THREAD_SINGLE, "nested init_thread provides %d", provided);
  shmem_query_thread(&provided);
  CHECK(provided == SHMEM_THREAD_SINGLE, "query_thread %d", provided);
  one_run(0);
  /* Two finalizes of three: barriers, the library stays up. The left
   * neighbour's put before the finalize is complete after it. */
  count_before_barrier = 0;
  shmem_barrier_all();
  shmem_long_atomic_add(&count_before_barrier, 1, (me + 1) % n);
  shmem_finalize();
  CHECK(count_before_barrier == 1, "a finalize that is not the last is a barrier: %ld", count_before_barrier);
  shmem_query_initialized(&init);
  CHECK(init == 1, "initialized after the first of three finalizes");
  shmem_finalize();
  shmem_query_initialized(&init);
  CHECK(init == 1, "initialized after the second of three finalizes");
  CHECK(shmem_my_pe() == me, "my_pe still answers");
  shmem_finalize();
  shmem_query_initialized(&init);
  if (init != 0) {
    fprintf(stderr, "FAIL PE %d: still initialized after the last finalize\n", me);
    return 1;
  }
  if (shmem_my_pe() != -1 || shmem_n_pes() != -1) {
    fprintf(stderr, "FAIL PE %d: my_pe/n_pes answer after the last finalize\n", me);
    return 1;
  }
  /* A routine after the last finalize: refused with one line, no crash. */
  shmem_long_p(&ring[0], 1, 0);
  if (shmemx_last_error() != SHMEMX_ERR_NOT_INITIALIZED) {
    fprintf(stderr, "FAIL PE %d: a put after the last finalize was not refused\n", me);
    return 1;
  }
  shmem_finalize(); /* one too many: nothing happens */
  /* The second run. */
  shmem_init();
  shmem_query_initialized(&init);
  CHECK(init == 1, "initialized again");
  CHECK(shmem_my_pe() == me && shmem_n_pes() == n, "the same PE numbers in the second run");
  CHECK(shmemx_heap_used() == 0, "the second run starts with an empty heap (%zu bytes used)", shmemx_heap_used());
  one_run(1);
  return check_finish("test_shmem_reinit");
}
