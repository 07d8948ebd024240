// MPI and OpenSHMEM in one program, in either order (OpenSHMEM 1.5, annex
// on interoperability): shmem_init before or after MPI_Init, shmem_finalize
// before or after MPI_Finalize. See mpi_interop.cpp.
#pragma once

namespace dshmem::mpi_interop {

// Before the runtime starts: when MPI is not yet initialised, initialises
// it (MPI_THREAD_MULTIPLE, the level DART asks for) and holds it for
// OpenSHMEM. False (logged) when MPI cannot be initialised.
bool hold();

// After the runtime stopped: finalises MPI unless the program still
// holds it (it called MPI_Init itself and not yet MPI_Finalize).
void release();

}  // namespace dshmem::mpi_interop
