// MPICH 4.0 over UCX (ch4:ucx), in MPI_Finalize, closes every endpoint with
// ucp_disconnect_nb (a close in flush mode), drives UCX until all closes
// complete, and only then enters the PMI barrier. Across hosts over TCP a
// close can need the peer's progress, and a peer whose own closes completed
// first waits in the PMI barrier, blocked in a socket read, driving nothing:
// the job hangs in MPI_Finalize (6 of 8 runs of a 4-unit all-to-all on 2
// rig hosts, reproduced in raw MPI by tests/multihost/mpich_finalize_hang).
// The closes are not needed there: after the PMI barrier MPICH destroys the
// UCX worker, which releases its endpoints, and every MPI operation of
// every rank is complete by then. So the project's libraries interpose
// ucp_disconnect_nb: each comes before libucp in the program's symbol
// lookup (a direct dependency of the program, while libucp is one of
// libmpich's), and once a job was found to span hosts the close is answered
// "done" without closing. Everything else goes to UCX's own function. A
// program that loads the libraries with dlopen (RTLD_LOCAL) does not get
// this.
//
// libdart and libregistry each carry this file. The function and the flag
// are exported from both under the same names, so the dynamic linker binds
// every reference, from either library, to the first definition in the
// program's lookup order: one flag per process, whichever library set it.
#include "ucx_close.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#if defined(MPICH) && !defined(OPEN_MPI)
#define DART_MPIFIX_UCX_CLOSE 1
#else
#define DART_MPIFIX_UCX_CLOSE 0
#endif

#if DART_MPIFIX_UCX_CLOSE
// Read and written through the GOT (default visibility, exported), so that
// both libraries' copies resolve to one object.
extern "C" {
__attribute__((visibility("default"))) int dart_mpifix_skip_ucx_close = 0;
}

// UCX's own signature: ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep), both
// pointers; NULL is UCS_OK (done, no request to wait for).
extern "C" __attribute__((visibility("default"))) void* ucp_disconnect_nb(void* ep) {
  if (__atomic_load_n(&dart_mpifix_skip_ucx_close, __ATOMIC_ACQUIRE) != 0) return nullptr;
  using Fn = void* (*)(void*);
  static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "ucp_disconnect_nb"));
  if (!real) return nullptr;  // unreachable: only UCX calls this, so UCX is loaded
  return real(ep);
}
#endif

namespace dart::mpifix {

bool defaults_enabled() noexcept {
  const char* v = std::getenv("DART_MPI_DEFAULTS");
  return !(v && std::strcmp(v, "0") == 0);
}

void note_job_spans_hosts(bool spans, bool enabled) noexcept {
#if DART_MPIFIX_UCX_CLOSE
  if (spans && enabled) __atomic_store_n(&dart_mpifix_skip_ucx_close, 1, __ATOMIC_RELEASE);
#else
  (void)spans;
  (void)enabled;
#endif
}

int note_comm_placement(MPI_Comm comm, bool enabled) noexcept {
#if DART_MPIFIX_UCX_CLOSE
  if (!enabled) return MPI_SUCCESS;
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm host = MPI_COMM_NULL;
  const int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  if (rc != MPI_SUCCESS) return rc;
  int host_size = 0;
  MPI_Comm_size(host, &host_size);
  MPI_Comm_free(&host);
  note_job_spans_hosts(host_size != size, true);
#else
  (void)comm;
  (void)enabled;
#endif
  return MPI_SUCCESS;
}

}  // namespace dart::mpifix
