// MPI and OpenSHMEM in one program, in either order.
//
// MPI allows one MPI_Init and one MPI_Finalize per process, and the
// runtime under OpenSHMEM needs MPI from shmem_init to the end of
// shmem_finalize. So the library counts two holders of MPI: OpenSHMEM
// (when shmem_init found MPI not yet initialised and initialised it) and
// the program (its own MPI_Init). libdartshmem defines MPI_Init,
// MPI_Init_thread and MPI_Finalize, which come before the MPI library's
// in the program's symbol lookup when libdartshmem is linked before it
// (oshcc and oshc++ do, as does DART::shmem with MPI named after it), and
// call the MPI library through its profiling names (PMPI_*):
//
//   MPI_Init* after shmem_init     MPI is up already: the program becomes
//                                  a holder; the provided level is MPI's.
//   MPI_Finalize before            deferred: shmem_finalize finalises MPI
//     shmem_finalize               once the runtime has stopped.
//   the last shmem_finalize        keeps MPI up when OpenSHMEM initialised
//                                  it: MPI cannot be initialised twice in
//                                  a process, and a later shmem_init
//                                  (OpenSHMEM 1.6's counted initialisation)
//                                  starts the runtime again on it. MPI is
//                                  finalised when the process exits
//                                  (release_at_exit), unless the program
//                                  finalises it first (MPI_Finalize then
//                                  is the MPI library's).
//   anything else                  the MPI library's own routine.
//
// The runtime itself never owns MPI under OpenSHMEM: dart_init finds it
// initialised and leaves it to these rules. DART calls of its own (a
// program that uses DART without OpenSHMEM) pass straight through.
#include "mpi_interop.hpp"

#include "internal.hpp"

#include <mpi.h>

#include <cstdio>
#include <mutex>

namespace dshmem::mpi_interop {
namespace {

std::mutex g_mutex;
bool g_shmem_holds = false;      // shmem_init initialised MPI (held until exit)
bool g_program_holds = false;    // the program called MPI_Init* while MPI was up for OpenSHMEM
bool g_finalize_pending = false; // the program called MPI_Finalize while OpenSHMEM ran

bool shmem_running() { return st.initialized && !st.finalized; }

}  // namespace

bool hold() {
  std::lock_guard<std::mutex> lock(g_mutex);
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (finalized) {
    std::fprintf(stderr, "shmem: shmem_init: MPI has been finalised; OpenSHMEM cannot start (or start again) after "
                 "MPI_Finalize\n");
    return false;
  }
  if (initialized) return true;
  int provided = MPI_THREAD_SINGLE;
  if (PMPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "shmem: shmem_init: MPI_Init_thread failed\n");
    return false;
  }
  g_shmem_holds = true;
  return true;
}

void release() {
  std::lock_guard<std::mutex> lock(g_mutex);
  // The program's own MPI_Finalize, deferred while OpenSHMEM ran, is
  // carried out now; after it OpenSHMEM cannot start again (hold() says
  // so). Otherwise MPI stays up for a restart.
  if (!g_finalize_pending) return;
  g_shmem_holds = false;
  g_finalize_pending = false;
  PMPI_Finalize();
}

void release_at_exit() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_shmem_holds) return;
  g_shmem_holds = false;
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (!finalized) PMPI_Finalize();
}

}  // namespace dshmem::mpi_interop

using namespace dshmem::mpi_interop;

extern "C" {

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_shmem_holds && !g_program_holds) {
      g_program_holds = true;
      return PMPI_Query_thread(provided);
    }
  }
  return PMPI_Init_thread(argc, argv, required, provided);
}

int MPI_Init(int* argc, char*** argv) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_shmem_holds && !g_program_holds) {
      g_program_holds = true;
      return MPI_SUCCESS;
    }
  }
  return PMPI_Init(argc, argv);
}

int MPI_Finalize(void) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (shmem_running()) {
      g_finalize_pending = true;
      return MPI_SUCCESS;
    }
    // After shmem_finalize kept MPI for the program: this is the end.
    g_program_holds = false;
  }
  return PMPI_Finalize();
}

}  // extern "C"
