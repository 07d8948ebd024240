/*
 * shmem_work_queue: a work queue in OpenSHMEM without a central server.
 *
 * PE 0 holds the queue's head, a counter. Every PE (PE 0 too) takes the
 * next item with shmem_atomic_fetch_inc on it until the items run out,
 * computes the item's result and returns it into PE 0's result array with
 * shmem_put_signal, whose signal adds 1 to a count of results beside it.
 * Each PE also counts, on PE 0, how often each item was taken, and when it
 * finds the queue empty it adds how many items it did to PE 0's total and
 * says it is finished. PE 0 waits for every result (shmem_signal_wait_until)
 * and for every PE (shmem_wait_until), then checks that every item was
 * done exactly once, with the right result.
 *
 * Build: oshcc -o shmem_work_queue shmem_work_queue.c
 * Run:   oshrun -n 4 ./shmem_work_queue [items]
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Symmetric, used on PE 0. */
static long next_item;      /* the queue's head */
static uint64_t results_in; /* signal: results returned so far */
static int finished;        /* PEs that found the queue empty */
static long items_done;     /* the sum of each PE's count */

/* Some work: a value every PE can recompute. */
static long work(long item) {
  unsigned long x = (unsigned long)item * 2654435761UL + 12345;
  for (int r = 0; r < 50; ++r) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return (long)(x >> 33);
}

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const long items = argc > 1 ? atol(argv[1]) : 1000;
  if (items < 1) {
    if (me == 0) fprintf(stderr, "usage: shmem_work_queue [items >= 1]\n");
    shmem_finalize();
    return 1;
  }
  /* On PE 0: each item's result and how often it was taken. */
  long* result = shmem_malloc((size_t)items * sizeof(long));
  int* taken = shmem_calloc((size_t)items, sizeof(int));
  if (!result || !taken) {
    fprintf(stderr, "shmem_work_queue: PE %d: the symmetric heap is too small\n", me);
    shmem_global_exit(1);
  }
  for (long i = 0; i < items; ++i) result[i] = -1;
  shmem_barrier_all(); /* PE 0's arrays are ready */

  long mine = 0;
  for (;;) {
    const long item = shmem_atomic_fetch_inc(&next_item, 0);
    if (item >= items) break;
    const long r = work(item);
    shmem_atomic_inc(&taken[item], 0);
    shmem_put_signal(&result[item], &r, 1, &results_in, 1, SHMEM_SIGNAL_ADD, 0);
    ++mine;
  }
  /* My counts are delivered before I say I am finished. */
  shmem_atomic_add(&items_done, mine, 0);
  shmem_quiet();
  shmem_atomic_inc(&finished, 0);
  printf("shmem_work_queue: PE %d did %ld items\n", me, mine);
  fflush(stdout);

  int status = 0;
  if (me == 0) {
    const uint64_t got = shmem_signal_wait_until(&results_in, SHMEM_CMP_GE, (uint64_t)items);
    shmem_wait_until(&finished, SHMEM_CMP_EQ, n);
    long wrong = 0, twice = 0, missing = 0;
    for (long i = 0; i < items; ++i) {
      const int t = shmem_int_atomic_fetch(&taken[i], 0);
      if (t == 0) ++missing;
      else if (t > 1) ++twice;
      else if (result[i] != work(i)) ++wrong;
    }
    const long done = shmem_long_atomic_fetch(&items_done, 0);
    const uint64_t signals = shmem_signal_fetch(&results_in);
    if (got >= (uint64_t)items && signals == (uint64_t)items && done == items && !wrong && !twice && !missing) {
      printf("shmem_work_queue: %ld items done by %d PEs, each exactly once: OK\n", items, n);
    } else {
      printf(
          "shmem_work_queue: %ld items, %d PEs: %llu results, %ld counted, %ld missing, %ld taken twice, "
          "%ld wrong: FAIL\n",
          items, n, (unsigned long long)signals, done, missing, twice, wrong);
      status = 1;
    }
    fflush(stdout);
  }
  shmem_barrier_all();
  shmem_free(taken);
  shmem_free(result);
  shmem_finalize();
  return status;
}
