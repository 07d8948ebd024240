/* An OpenSHMEM program as programs written for other implementations are:
 * the legacy include path, MPI beside OpenSHMEM (MPI first, finalised
 * last), the math library, and the deprecated type-generic atomics that
 * OpenSHMEM 1.5 still lists. Built with nothing but the installed oshcc. */
#include <math.h>
#include <mpi.h>
#include <mpp/shmem.h>
#include <stdio.h>

static long counter;
static int word;
static double real;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  shmem_init();
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const double t0 = MPI_Wtime();
  /* powl lives in libm; a wrapper that does not link it fails here. */
  volatile long double base = 2.0L;
  const long bits = (long)powl(base, 10.0L);
  int ok = me == rank && n == size && bits == 1024;

  /* Every PE adds to PE 0's counter with each deprecated name. */
  shmem_add(&counter, 2L, 0);
  shmem_inc(&counter, 0);
  (void)shmem_fadd(&counter, 3L, 0);
  (void)shmem_finc(&counter, 0);
  shmem_barrier_all();
  if (me == 0) ok &= shmem_fetch(&counter, 0) == 7L * n;
  /* PE 0 sets its right neighbour's word; the neighbour swaps it back. */
  if (me == 0) shmem_set(&word, 41, (me + 1) % n);
  shmem_barrier_all();
  if (me == 1 % n) ok &= shmem_swap(&word, 0, me) == 41 && shmem_cswap(&word, 0, 5, me) == 0 && word == 5;
  shmem_set(&real, 0.5 * me, me);
  shmem_barrier_all();
  ok &= shmem_fetch(&real, (me + 1) % n) == 0.5 * ((me + 1) % n);

  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "legacy consumer ok on %d PEs (%.0f s)\n" : "legacy consumer FAILED on %d PEs (%.0f s)\n", n,
           MPI_Wtime() - t0);
  shmem_finalize();
  MPI_Finalize();
  return all ? 0 : 1;
}
