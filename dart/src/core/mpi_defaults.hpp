// Settings libdart gives the MPI library (core/mpi_defaults.cpp).
#pragma once

namespace dart {

// Called once the world team knows whether the job spans hosts: under
// MPICH it arms the workaround of MPICH's finalize hang across hosts.
void note_job_spans_hosts(bool spans) noexcept;

}  // namespace dart
