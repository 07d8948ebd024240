// The program's global and static variables, shared with the PEs of the
// node by load/store (see globals.cpp).
#pragma once

#include <cstddef>

namespace dshmem::globals {

// Collective over the world team, in shmem_init before the globals are
// registered with DART: moves this PE's global variables [base, base +
// bytes) into a shared-memory object mapped at the same addresses and maps
// the objects of the PEs whose heaps this PE maps (st.direct), into
// st.glob_direct. Every PE shares or none does (agreed): a PE that cannot
// keeps the others on the MPI path, logged once. Does nothing with
// DART_SHARED_MEMORY=0 (no PE maps another) or SHMEM_SHARE_GLOBALS=0.
void share(char* base, std::size_t bytes);

// In shmem_finalize: unmaps the other PEs' globals (this PE's own stay
// where they are, in the shared object, until the process ends).
void unshare();

}  // namespace dshmem::globals
