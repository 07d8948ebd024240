/*
 * MPI and OpenSHMEM in one program, in each of the four orders the
 * interoperability annex allows (argv[1]):
 *   mpi-first-mpi-last     MPI_Init, shmem_init, ..., shmem_finalize, MPI_Finalize
 *   mpi-first-shmem-last   MPI_Init, shmem_init, ..., MPI_Finalize, shmem_finalize
 *   shmem-first-mpi-last   shmem_init, MPI_Init, ..., shmem_finalize, MPI_Finalize
 *   shmem-first-shmem-last shmem_init, MPI_Init, ..., MPI_Finalize, shmem_finalize
 * In between, both interfaces are used on every PE and checked: PE numbers
 * are MPI_COMM_WORLD ranks, a put and a barrier of OpenSHMEM, an
 * MPI_Allreduce of what each PE received, and MPI's thread level (the
 * level MPI_Init_thread reports is the one in effect). Prints
 * "hybrid <order>: ok on N PEs" on PE 0 and exits 0 when every check held
 * on every PE.
 */
#include <mpi.h>
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long inbox;

int main(int argc, char** argv) {
  const char* order = argc > 1 ? argv[1] : "";
  const int mpi_first = strncmp(order, "mpi-first", 9) == 0;
  const int shmem_last = strstr(order, "shmem-last") != NULL;
  if (!mpi_first && strncmp(order, "shmem-first", 11) != 0) {
    fprintf(stderr, "usage: test_shmem_hybrid {mpi,shmem}-first-{mpi,shmem}-last\n");
    return 2;
  }
  int provided = -1, initialized = 0, ok = 1;
  if (mpi_first) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    shmem_init();
  } else {
    shmem_init();
    MPI_Initialized(&initialized);  /* true: OpenSHMEM started MPI */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  }
  int rank = -1, size = 0, level = -2;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Query_thread(&level);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (me != rank || n != size) {
    fprintf(stderr, "PE %d: MPI rank %d of %d, PE %d of %d\n", me, rank, size, me, n);
    ok = 0;
  }
  if (!mpi_first && !initialized) {
    fprintf(stderr, "PE %d: MPI_Initialized said 0 after shmem_init\n", me);
    ok = 0;
  }
  if (level != provided) {
    fprintf(stderr, "PE %d: MPI_Init_thread provided %d, MPI_Query_thread says %d\n", me, provided, level);
    ok = 0;
  }
  shmem_long_p(&inbox, 100 + me, (me + 1) % n);
  shmem_barrier_all();
  long sum = 0;
  MPI_Allreduce(&inbox, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const long want = 100L * n + (long)n * (n - 1) / 2;
  if (sum != want) {
    fprintf(stderr, "PE %d: MPI_Allreduce of the received values: %ld, expected %ld\n", me, sum, want);
    ok = 0;
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (me == 0) {
    printf(all ? "hybrid %s: ok on %d PEs\n" : "hybrid %s: FAILED on %d PEs\n", order, n);
    fflush(stdout);
  }
  if (shmem_last) {
    MPI_Finalize();
    shmem_finalize();
  } else {
    shmem_finalize();
    MPI_Finalize();
  }
  return all ? 0 : 1;
}
