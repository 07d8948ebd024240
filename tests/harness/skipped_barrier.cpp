// Harness self-test: rank 0 skips a barrier its peers enter, so they wait
// forever; the harness's timeout must end the run. Registered WILL_FAIL.
#include "mpi_test.hpp"

BOOST_AUTO_TEST_CASE(rank_zero_skips_a_barrier) {
  if (mpitest::world_rank() != 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    // Rank 0 waits for a message nobody sends, so the job cannot finish
    // by accident.
    int x = 0;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  BOOST_CHECK(true);
}
