// Settings libdart gives the MPI library before the program initialises it.
//
// Open MPI 4.1 prefers its osc/rdma component for windows over existing
// memory (MPI_Win_create, used for registered memory and for teams that
// span nodes). On this class of machine (btl/vader, no RDMA network) that
// component segfaults in a 64-bit MPI_Compare_and_swap (in the emulated
// atomics of btl/vader) and cannot create a window on a one-process
// communicator while osc/ucx is also loaded. Excluding it leaves osc/sm for
// shared-memory windows and osc/ucx for the others, both correct.
//
// MCA parameters are read from the environment in MPI_Init, which the
// program may call before dart_init; so the default is set when libdart is
// loaded, before main(). It is only a default: a user who chose osc
// components (OMPI_MCA_osc, e.g. from `mpirun --mca osc ...`) keeps them,
// and DART_MPI_DEFAULTS=0 turns this off altogether (read by
// read_mpi_defaults_flag in core/config.cpp, like every other variable).
//
// MPICH 4.0 over UCX needs UCX_MEM_MMAP_HOOK_MODE=none (README, "Working
// around the MPI"), but UCX reads its configuration in its own library
// constructor, which runs before libdart's: dartrun and the test harness
// set it at launch instead.
//
// MPICH's finalize hang across hosts is worked around in mpifix/ucx_close.cpp,
// which libregistry carries too.
#include "core/config.hpp"

#include <mpi.h>

#include <cstdlib>

namespace {

#ifdef OPEN_MPI
__attribute__((constructor)) void dart_set_mpi_defaults() {
  if (!dart::read_mpi_defaults_flag()) return;
  setenv("OMPI_MCA_osc", "^rdma", /*overwrite=*/0);
}
#endif

}  // namespace
