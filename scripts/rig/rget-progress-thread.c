// Plain-MPI reproducer: request-based gets across hosts with a second
// thread polling MPI, the pattern of DART's progress thread
// (dart/src/core/activity.hpp).
//
// Every rank issues 2000 one-int MPI_Rget to its left neighbour, waits for
// them with MPI_Waitall, checks them, and meets the others in a barrier it
// polls (MPI_Ibarrier + MPI_Test + sched_yield), for ROUNDS rounds.
// MODE says what a second thread does, which calls MPI_Test on a standing
// receive every 100 us:
//   0  no thread
//   1  polls all the time
//   2  holds off during MPI_Waitall
//   3  holds off while the gets are issued and during MPI_Waitall
//   4  excluded from every MPI_Rget and MPI_Waitall call, one call at a
//      time (the two sides announce themselves and check the other)
// Measured on the 3-host rig (6 ranks, Open MPI 4.1.4, osc/ucx, UCX 1.13
// over TCP, 100 rounds): modes 1 and 2 hung in 3 of 3 runs each (one rank
// in MPI_Waitall forever while every other rank polled), and so did a
// thread held off during MPI_Waitall and the barrier but polling while the
// gets were issued; modes 0, 3 and 4 passed 3 of 3 (mode 4 then waited in
// enter() with a pause loop, not sched_yield).
//
//   mpicc.openmpi -O2 -pthread -o /tmp/rget rget-progress-thread.c
//   RIG_PPN=2 scripts/rig/run-multihost.sh openmpi /tmp/rget ROUNDS MODE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int in_mpi, polling, hold, stop;
static MPI_Comm poll_comm;
static int mode;

static void enter(void) {
  if (mode != 4) return;
  atomic_fetch_add(&in_mpi, 1);
  while (atomic_load(&polling)) sched_yield();
}
static void leave(void) {
  if (mode == 4) atomic_fetch_sub(&in_mpi, 1);
}

static void* poller(void* arg) {
  (void)arg;
  MPI_Request r;
  MPI_Irecv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 0, poll_comm, &r);
  while (!atomic_load(&stop)) {
    int flag;
    atomic_store(&polling, 1);
    if (!atomic_load(&hold) && atomic_load(&in_mpi) == 0) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    atomic_store(&polling, 0);
    usleep(100);
  }
  MPI_Cancel(&r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  return NULL;
}

static void polled_barrier(void) {
  MPI_Request b;
  MPI_Ibarrier(MPI_COMM_WORLD, &b);
  for (int done = 0; !done; sched_yield()) MPI_Test(&b, &done, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  int provided, me, n;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int rounds = argc > 1 ? atoi(argv[1]) : 100;
  mode = argc > 2 ? atoi(argv[2]) : 1;
  MPI_Comm_dup(MPI_COMM_WORLD, &poll_comm);
  pthread_t thread;
  if (mode != 0) pthread_create(&thread, NULL, poller, NULL);

  enum { N = 2000 };
  int* base;
  MPI_Win win;
  MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < N; ++i) base[i] = me * 100000 + i;
  MPI_Win_lock_all(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  const int left = (me + n - 1) % n;
  static int got[N];
  static MPI_Request req[N];
  for (int round = 0; round < rounds; ++round) {
    if (mode == 3) atomic_store(&hold, 1);
    for (int k = 0; k < N; ++k) {
      enter();
      MPI_Rget(&got[k], 1, MPI_INT, left, k, 1, MPI_INT, win, &req[k]);
      leave();
    }
    if (mode == 2) atomic_store(&hold, 1);
    enter();
    MPI_Waitall(N, req, MPI_STATUSES_IGNORE);
    leave();
    atomic_store(&hold, 0);
    for (int k = 0; k < N; ++k)
      if (got[k] != left * 100000 + k) {
        fprintf(stderr, "rank %d: wrong value at %d\n", me, k);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    polled_barrier();
  }
  if (me == 0) printf("mode %d: %d rounds passed\n", mode, rounds);
  atomic_store(&stop, 1);
  if (mode != 0) pthread_join(thread, NULL);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
