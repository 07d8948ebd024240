// Resolving a global pointer: the one place that decides how a target is
// reached. Every put, get, flush, accumulate and atomic calls resolve().
#pragma once

#include "team.hpp"

#include <dash/dart/if/dart_globmem.h>

#include <mpi.h>

#include <cstddef>

namespace dart {

struct Target {
  Team* team = nullptr;
  Segment* seg = nullptr;
  MPI_Win win = MPI_WIN_NULL;  // window that reaches the target by RMA
  mpi::Window* window = nullptr;  // the same, with its issued-operation flags
  int unit = -1;               // the target's unit id in `team`
  int rank = -1;               // the target's rank in `win`
  MPI_Aint disp = 0;           // byte displacement of gptr's offset in `win`
  char* local = nullptr;       // load/store address when the target shares memory with us
  std::size_t avail = 0;       // bytes from the offset to the end of the target's portion
};

// Validates `g` (team known and caller a member, unit in range, segment
// alive, offset inside the target's portion) and resolves it. Throws
// DART_ERR_INVAL with the reason otherwise.
Target resolve(const dart_gptr_t& g);

// The segment a collective free or a flag query names (offset and unit
// ignored). Throws DART_ERR_INVAL.
Segment& find_segment(const dart_gptr_t& g, Team** team_out = nullptr);

}  // namespace dart
