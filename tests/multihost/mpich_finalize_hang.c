/* The defect behind mpifix/ucx_close.cpp's ucp_disconnect_nb, in raw MPI
 * (no DART): MPICH 4.0 over UCX hangs in MPI_Finalize across hosts in a
 * share of runs once ranks have talked to each other. Each rank says when it
 * enters and when it leaves MPI_Finalize, so mpich_finalize_hang.sh can
 * tell a hang there from any other failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Traffic between every pair: a barrier alone rarely hangs (0 of 10 runs
   * measured), an all-to-all of 4 KiB per pair in most runs. */
  const int count = 1024;
  int *out = calloc((size_t)size * count, sizeof *out);
  int *in = calloc((size_t)size * count, sizeof *in);
  if (!out || !in) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < size * count; ++i) out[i] = rank;
  MPI_Alltoall(out, count, MPI_INT, in, count, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size * count; ++i) {
    if (in[i] != i / count) {
      fprintf(stderr, "rank %d: wrong data from rank %d\n", rank, i / count);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  free(out);
  free(in);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: entering MPI_Finalize\n", rank);
  fflush(stdout);
  MPI_Finalize();
  printf("rank %d: left MPI_Finalize\n", rank);
  fflush(stdout);
  return 0;
}
