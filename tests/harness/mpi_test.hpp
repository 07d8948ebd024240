// Helpers shared by the MPI test suites.
//
// Every test executable links dart_test_main, whose main() initialises MPI
// (MPI_THREAD_MULTIPLE when available), runs Boost.Test on every rank and
// combines the ranks' verdicts. Test files include this header and write
// ordinary BOOST_AUTO_TEST_CASEs; each rank runs every case.
#pragma once

#include <boost/test/unit_test.hpp>
#include <mpi.h>

namespace mpitest {

// Rank and size of the job, read once by the harness after MPI_Init.
int world_rank();
int world_size();

// True on exactly one rank of the job, for output that should appear once.
inline bool is_root() { return world_rank() == 0; }

// Logical AND of `value` over all ranks of MPI_COMM_WORLD, so a check can
// assert that something held everywhere (and fail on every rank if not).
bool all_ranks(bool value);

}  // namespace mpitest
