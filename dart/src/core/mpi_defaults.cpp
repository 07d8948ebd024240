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
// MPICH 4.0 first tries to map every shared window at the same address in
// all processes of the node ("symmetric heap"). To find a free range it
// probes the candidate range page by page with msync, on every process,
// and retries up to MPIR_CVAR_SHM_SYMHEAP_RETRY times: measured here with
// a raw MPI_Win_allocate_shared on 2 processes, 27 ms for 16 MiB per
// process and 109 ms for 64 MiB, against 0.07 ms without the attempt.
// DART never relies on equal addresses (it asks MPI_Win_shared_query for
// each unit's base), and the path without the attempt is the one MPICH
// takes whenever the attempt fails. With it off, dart_init + dart_exit on
// 2 units (a 16 MiB heap chunk and the collective engine's window) went
// from 39 to 8.7 ms. A user's own setting of the variable is kept.
//
// MPICH 4.0's own MPI_Reduce across nodes (its ch4 device collective,
// which composes an intra-node and an inter-node step) can return wrong
// results: on the rig (2 hosts x 2 processes, placed by host), a reduce of
// 1024 or more ints (MPI_SUM) over ranks 1-3 of MPI_COMM_WORLD (one
// process on the first host, two on the second) left 1023 of 1024
// elements wrong at the root, whichever the root; smaller counts, and
// MPI_COMM_WORLD and ranks 0-2 (two, then one), were right. DART's flat reduce is that
// call, so dart_reduce across hosts was wrong too
// (multihost.dart_collectives_sizes.h2x2 shows it). With
// MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE=0, MPICH takes its generic
// algorithms and every result is right; on one node (2 processes) a raw
// MPI_Reduce then took 0.19 instead of 0.34 us at 8 bytes and about 10%
// longer at 1 MiB (tests/perf/bench_collectives, MPI column, 2 runs each).
// A user's own setting is kept.
//
// MPICH 4.0 over UCX needs UCX_MEM_MMAP_HOOK_MODE=none (docs/mpi-workarounds.md, "Working
// around the MPI"), but UCX reads its configuration in its own library
// constructor, which runs before libdart's: dartrun and the test harness
// set it at launch instead.
//
// MPICH's finalize hang across hosts is worked around in mpifix/ucx_close.cpp,
// which libregistry carries too.
#include "core/config.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string>

namespace {

#if defined(MPICH_VERSION)
// Sets MPICH's control variable `name` (without prefix) to `value` unless
// the user set it under any of the three prefixes MPICH accepts.
void mpich_default(const char* name, const char* value) {
  for (const char* prefix : {"MPIR_CVAR_", "MPICH_", "MPIR_PARAM_"})
    if (std::getenv((std::string(prefix) + name).c_str())) return;
  setenv((std::string("MPIR_CVAR_") + name).c_str(), value, /*overwrite=*/0);
}
#endif

// One constructor, one reading of DART_MPI_DEFAULTS, each MPI's defaults.
__attribute__((constructor)) void dart_set_mpi_defaults() {
  if (!dart::read_mpi_defaults_flag()) return;
#if defined(OPEN_MPI)
  setenv("OMPI_MCA_osc", "^rdma", /*overwrite=*/0);
#elif defined(MPICH_VERSION)
  mpich_default("SHM_SYMHEAP_RETRY", "0");
  mpich_default("REDUCE_DEVICE_COLLECTIVE", "0");
#endif
}

}  // namespace
