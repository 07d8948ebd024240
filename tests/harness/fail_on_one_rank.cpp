// Harness self-test: a check that fails on rank 2 only (at 4 ranks) must
// make the run fail. Registered WILL_FAIL. Covers failure propagation, not
// fatal failures (those abort the job, see mpi_test_main.cpp).
#include "mpi_test.hpp"

BOOST_AUTO_TEST_CASE(check_fails_on_rank_two_only) {
  const int rank = mpitest::world_rank();
  BOOST_CHECK_MESSAGE(rank != 2, "deliberate failure on rank " << rank);
  // The other ranks must still get past this point normally.
  MPI_Barrier(MPI_COMM_WORLD);
}
