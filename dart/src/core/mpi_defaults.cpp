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
// MPICH 4.0 over UCX (ch4:ucx), in MPI_Finalize, closes every endpoint with
// ucp_disconnect_nb (a close in flush mode), drives UCX until all closes
// complete, and only then enters the PMI barrier. Across hosts over TCP a
// close can need the peer's progress, and a peer whose own closes completed
// first waits in the PMI barrier, blocked in a socket read, driving nothing:
// the job hangs in MPI_Finalize (30-75 % of 4-unit runs on 2 rig hosts,
// reproduced with raw MPI by tests/multihost/mpich_finalize_hang.sh). The
// close is not needed there: after the PMI barrier MPICH destroys the UCX
// worker, which releases its endpoints, and every MPI operation of every
// rank is complete by then (dart_exit's collective teardown precedes
// MPI_Finalize). So libdart interposes ucp_disconnect_nb (libdart comes
// before libucp in the program's symbol lookup, as a direct dependency of
// the program while libucp is one of libmpich) and, once a DART job was
// found to span hosts, answers "closed" without closing. Everything else is
// passed to UCX's own function. A program that loads libdart with dlopen
// (RTLD_LOCAL) does not get this.
#include "core/config.hpp"
#include "core/mpi_defaults.hpp"

#include <mpi.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>

namespace {

#ifdef OPEN_MPI
__attribute__((constructor)) void dart_set_mpi_defaults() {
  if (!dart::read_mpi_defaults_flag()) return;
  setenv("OMPI_MCA_osc", "^rdma", /*overwrite=*/0);
}
#endif

std::atomic<bool> g_skip_ucx_disconnect{false};

}  // namespace

namespace dart {

void note_job_spans_hosts(bool spans) noexcept {
#if defined(MPICH) && !defined(OPEN_MPI)
  if (spans && read_mpi_defaults_flag()) g_skip_ucx_disconnect.store(true, std::memory_order_release);
#else
  (void)spans;
#endif
}

}  // namespace dart

#if defined(MPICH) && !defined(OPEN_MPI)
// UCX's own signature: ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep), both
// pointers; NULL is UCS_OK (done, no request to wait for).
extern "C" __attribute__((visibility("default"))) void* ucp_disconnect_nb(void* ep) {
  if (g_skip_ucx_disconnect.load(std::memory_order_acquire)) return nullptr;
  using Fn = void* (*)(void*);
  static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "ucp_disconnect_nb"));
  if (!real) return nullptr;  // unreachable: only UCX calls this, so UCX is loaded
  return real(ep);
}
#endif
