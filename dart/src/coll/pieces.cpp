// The sizes and MPI element types of pieces.hpp that are not inline.
#include "coll/pieces.hpp"

#include "coll/types.hpp"
#include "core/error.hpp"
#include "team/team.hpp"

#include <string>

namespace dart::coll {

BlockPiece block_piece(const Elem& e, std::size_t block, int n) {
  BlockPiece p;
  if (static_cast<std::size_t>(n) == block) {
    p.count = n;
    p.type = e.type;
    return p;
  }
  MPI_Datatype run = MPI_DATATYPE_NULL;
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_contiguous(n, e.type, &run), "MPI_Type_contiguous");
  const int rc = MPI_Type_create_resized(run, 0, static_cast<MPI_Aint>(block * e.bytes), &resized);
  MPI_Type_free(&run);
  mpi_check(rc, "MPI_Type_create_resized");
  p.owned = commit_type(resized);
  p.count = 1;
  p.type = p.owned.get();
  return p;
}

int root_of(const Team& team, dart_team_unit_t root) {
  if (root.id < 0 || root.id >= team.size())
    invalid("root " + std::to_string(root.id) + " is outside [0, " + std::to_string(team.size()) + ") of team " +
            std::to_string(team.id()));
  return root.id;
}

std::size_t blocks_bytes(std::size_t nelem, int blocks, const Elem& e) {
  return checked_bytes(checked_bytes(nelem, static_cast<std::size_t>(blocks)), e.bytes);
}

std::size_t elem_bytes(dart_datatype_t dtype) {
  const TypeDesc& d = type_desc(dtype);
  if (!d.contiguous())
    invalid("data type " + type_name(dtype) + " is not contiguous (only basic and custom types are allowed here)");
  return d.elem_size;
}

// Elements from recvbuf to the end of the furthest non-empty block of an
// allgatherv, checking the sums; `largest` receives the largest block,
// `total` (if given) the elements of all blocks.
std::size_t allgatherv_span(const std::size_t* nrecvelem, const std::size_t* recvdispls, int size,
                            std::size_t* largest, std::size_t* total_out) {
  std::size_t span = 0, total = 0;
  *largest = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(size); ++i) {
    if (nrecvelem[i] == 0) continue;
    std::size_t end = 0;
    if (__builtin_add_overflow(recvdispls[i], nrecvelem[i], &end) ||
        __builtin_add_overflow(total, nrecvelem[i], &total))
      invalid("recvdispls[" + std::to_string(i) + "] + nrecvelem[" + std::to_string(i) + "] overflows size_t");
    span = std::max(span, end);
    *largest = std::max(*largest, nrecvelem[i]);
  }
  if (total_out) *total_out = total;
  return span;
}

std::uint64_t counts_hash(const std::size_t* counts, int size) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < size; ++i) {
    h ^= static_cast<std::uint64_t>(counts[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace dart::coll
