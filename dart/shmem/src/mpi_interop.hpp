// MPI and OpenSHMEM in one program, in either order (OpenSHMEM 1.5, annex
// on interoperability): shmem_init before or after MPI_Init, shmem_finalize
// before or after MPI_Finalize. See mpi_interop.cpp.
#pragma once

namespace dshmem::mpi_interop {

// Before the runtime starts: when MPI is not yet initialised, initialises
// it (MPI_THREAD_MULTIPLE, the level DART asks for) and holds it for
// OpenSHMEM. False (logged) when MPI cannot be initialised.
bool hold();

// After the runtime stopped: carries out the program's MPI_Finalize if it
// was deferred while OpenSHMEM ran; otherwise MPI stays up, so that a
// later shmem_init can start the runtime again.
void release();
// At process exit (after the last shmem_finalize): finalises MPI if
// shmem_init initialised it and nobody has finalised it since.
void release_at_exit();

}  // namespace dshmem::mpi_interop
