// The workaround of MPICH 4.0's finalize hang across hosts, shared by every
// library of the project that an MPI program may use on its own (libdart,
// libregistry). See ucx_close.cpp.
#pragma once

#include <mpi.h>

namespace dart::mpifix {

// DART_MPI_DEFAULTS: false when it is "0" (the settings and workarounds the
// project's libraries apply to MPI are then left out). Read when called.
bool defaults_enabled() noexcept;

// Collective over `comm`: finds whether its ranks span hosts and, under
// MPICH, if they do, arms the workaround for this process's MPI_Finalize.
// `enabled` false (DART_MPI_DEFAULTS=0) leaves MPI as it is. Returns the
// MPI error code of the one call it makes (MPI_Comm_split_type), else
// MPI_SUCCESS.
int note_comm_placement(MPI_Comm comm, bool enabled) noexcept;

// As above, for a caller that already knows.
void note_job_spans_hosts(bool spans, bool enabled) noexcept;

}  // namespace dart::mpifix
