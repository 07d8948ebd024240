// Ending the job from one unit so that its last words reach the user. See
// abort.cpp.
#pragma once

#include <mpi.h>

namespace dart::mpifix {

// MPI_Abort(comm, code), once the launcher has read what this process wrote
// to stdout and stderr (waiting for that at most about a second). Does not
// return.
[[noreturn]] void abort_job(MPI_Comm comm, int code) noexcept;

}  // namespace dart::mpifix
