// Counts and buffers of a collective, as every path sees them: cutting a
// count into pieces that MPI's int counts can carry, a piece of every
// member's block as one MPI element, and the sizes and roots that each
// collective validates before it communicates.
//
// Counts. DART counts are size_t, MPI-3 counts int (Open MPI 4.1 has no
// MPI-4 large-count calls). Every collective is cut into pieces by one
// function, for_each_piece, small enough that no MPI call moves more than
// INT_MAX bytes in total, which also keeps us off the large-message paths
// of MPI libraries. A piece of per-unit blocks (scatter, gather, allgather,
// alltoall) is one element of a resized type whose extent is the whole
// block, so piece k of every unit's block travels in one call. allgatherv,
// whose per-unit counts and displacements can exceed int independently,
// falls back to one (cut) broadcast per member when its receive buffer
// spans more than INT_MAX bytes. So every call supports any count; the
// exceptions are two-sided messages, capped at INT_MAX elements by the spec.
#pragma once

#include <dash/dart/if/dart_team_group.h>
#include <dash/dart/if/dart_types.h>

#include "coll/elements.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dart {
class Team;
}

namespace dart::coll {

// Elements per block that one MPI call may carry when it moves `blocks`
// blocks (one per member for scatter, gather, allgather and alltoall; one
// for broadcasts and reductions): the most for which every count and the
// call's byte total fit in an int, and at least one.
inline std::size_t piece_limit(const Elem& e, int blocks) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(INT_MAX) / (e.bytes * static_cast<std::size_t>(blocks)));
}

// The one place counts are cut: fn(first, n) for consecutive pieces
// [first, first + n) that cover [0, count), with 0 < n <= limit <= INT_MAX.
// Every member computes the same pieces from the same count and limit.
template <class Fn>
void for_each_piece(std::size_t count, std::size_t limit, Fn&& fn) {
  for (std::size_t first = 0; first < count; first += limit)
    fn(first, static_cast<int>(std::min(limit, count - first)));
}

// Element `first` of a buffer; NULL stays NULL (buffers MPI ignores on
// this unit may be NULL). Offsets stay inside buffers whose byte size was
// checked for overflow.
inline char* at(void* buf, std::size_t first, const Elem& e) {
  return buf ? static_cast<char*>(buf) + first * e.bytes : nullptr;
}
inline const char* at(const void* buf, std::size_t first, const Elem& e) {
  return buf ? static_cast<const char*>(buf) + first * e.bytes : nullptr;
}

// Piece [first, first + n) of each of the consecutive per-member blocks of
// `block` elements in a buffer, as `count` elements of `type` starting at
// element `first`. A piece that is the whole block is n plain elements; a
// partial one is one element of a type holding its n elements, resized to
// the block's extent so that MPI finds member i's piece i blocks further on.
struct BlockPiece {
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  mpi::Datatype owned;
};

BlockPiece block_piece(const Elem& e, std::size_t block, int n);

// A piece of this unit's own block: n plain elements.
inline BlockPiece plain_piece(const Elem& e, int n) {
  BlockPiece p;
  p.count = n;
  p.type = e.type;
  return p;
}

// The root's index in the team, checked against the team's size.
int root_of(const Team& team, dart_team_unit_t root);

// Bytes of `blocks` blocks of `nelem` elements, checked for overflow.
std::size_t blocks_bytes(std::size_t nelem, int blocks, const Elem& e);

// Bytes of one element of a contiguous type (without making its MPI type).
std::size_t elem_bytes(dart_datatype_t dtype);

// Copies `bytes` unless they are already there.
inline void copy_bytes(void* to, const void* from, std::size_t bytes) {
  if (bytes > 0 && to != from) std::memmove(to, from, bytes);
}

// Elements from recvbuf to the end of the furthest non-empty block of an
// allgatherv, checking the sums; `largest` receives the largest block,
// `total` (if given) the elements of all blocks.
std::size_t allgatherv_span(const std::size_t* nrecvelem, const std::size_t* recvdispls, int size,
                            std::size_t* largest, std::size_t* total_out = nullptr);

// FNV-1a over allgatherv's counts, which must be the same on every member
// (the displacements are each member's own layout).
std::uint64_t counts_hash(const std::size_t* counts, int size);

}  // namespace dart::coll
