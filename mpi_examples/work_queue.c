/*
 * work_queue: tasks handed out by a shared counter, results collected
 * with put with signal, completion seen by a wait instead of a barrier.
 *
 * Unit 0 owns the queue: a task counter, a result slot per task and a
 * "done" counter. Every unit (unit 0 too) takes the next task with an
 * atomic fetch-and-add on the task counter until the tasks run out,
 * computes it (the number of Collatz steps of the task's number), and puts
 * the result into the task's slot with dart_put_signal, adding 1 to the
 * done counter. Unit 0 waits with dart_signal_wait_until until all tasks
 * are done, then checks every result against its own computation. Units
 * finish at their own pace: a unit that takes slow tasks takes fewer.
 *
 * Run:  mpirun -np 4 ./work_queue [tasks]
 */
#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/if/dart.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                 \
  do {                                                              \
    dart_ret_t rc_ = (call);                                        \
    if (rc_ != DART_OK) {                                           \
      fprintf(stderr, "%s failed with code %d\n", #call, (int)rc_); \
      dart_abort(DART_EXIT_ABORT);                                  \
    }                                                               \
  } while (0)

static long collatz_steps(uint64_t x) {
  long k = 0;
  for (; x != 1; ++k) x = (x % 2) ? 3 * x + 1 : x / 2;
  return k;
}

/* The numbers the tasks work on. */
static uint64_t task_input(long t) { return 1000003ULL * (uint64_t)t % 1000000ULL + 1; }

int main(int argc, char** argv) {
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t nunits;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&nunits));
  const long tasks = argc > 1 ? atol(argv[1]) : 2000;

  /* The queue on unit 0: [0] next task, [1] tasks done, then one result
   * per task. Every unit allocates the same size (collective). */
  const size_t words = 2 + (size_t)tasks;
  dart_gptr_t queue;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, words, DART_TYPE_LONGLONG, &queue));
  if (me.id == 0) {
    void* addr = NULL;
    CHECK(dart_gptr_getaddr(queue, &addr)); /* queue names unit 0 */
    long long* q = (long long*)addr;
    for (size_t i = 0; i < words; ++i) q[i] = i < 2 ? 0 : -1;
  }
  CHECK(dart_barrier(DART_TEAM_ALL));

  dart_gptr_t next = queue, done = queue;
  CHECK(dart_gptr_incaddr(&done, (int64_t)sizeof(long long)));
  long taken = 0;
  for (;;) {
    const long long one = 1;
    long long t = 0;
    CHECK(dart_fetch_and_op(next, &one, &t, DART_TYPE_LONGLONG, DART_OP_SUM));
    CHECK(dart_flush(next)); /* the fetched value is valid after the flush */
    if (t >= tasks) break;
    const long long result = collatz_steps(task_input((long)t));
    dart_gptr_t slot = queue;
    CHECK(dart_gptr_incaddr(&slot, (int64_t)((2 + t) * (long long)sizeof(long long))));
    CHECK(dart_put_signal(slot, &result, 1, DART_TYPE_LONGLONG, done, 1, DART_SIGNAL_ADD));
    ++taken;
  }
  CHECK(dart_flush(done));
  printf("unit %d took %ld tasks\n", me.id, taken);

  if (me.id == 0) {
    uint64_t finished = 0;
    CHECK(dart_signal_wait_until(done, DART_CMP_EQ, (uint64_t)tasks, &finished));
    void* addr = NULL;
    CHECK(dart_gptr_getaddr(queue, &addr));
    const long long* q = (const long long*)addr;
    long wrong = 0;
    for (long t = 0; t < tasks; ++t) wrong += q[2 + t] != collatz_steps(task_input(t));
    printf("work_queue: %ld tasks done by %zu units, %ld wrong results: %s\n", tasks, nunits, wrong,
           wrong == 0 ? "OK" : "FAIL");
  }
  fflush(stdout);
  CHECK(dart_barrier(DART_TEAM_ALL));
  CHECK(dart_team_memfree(queue));
  CHECK(dart_exit());
  return 0;
}
