// Collectives (dart_barrier, dart_bcast ... dart_reduce) of
// dart_communication.h: the C entry points. Its two-sided messages are in
// dart_communication_p2p.cpp, the element helpers both share in elements.hpp.
//
// Collectives run on the team's communicator, Team::comm(), with roots and
// block positions in team order, which is that communicator's rank order.
//
// Types. Collectives and messages take contiguous types (basic or custom);
// a custom type is one MPI element of its size (a contiguous run of bytes)
// so that counts stay in DART elements and MPI hands a user reduction
// whole elements. dart_alltoall accepts custom types too, although DASH
// takes only basic ones (the spec allows the superset).
//
// Behind them, one file per concern:
//   collectives.*  each collective's path: node engine, or the agreement
//                  packet (small calls travel in it whole) and then MPI or
//                  the node leaders
//   agreement.*    the packet: bad or differing arguments fail the call on
//                  every member (DART_COLLECTIVE_CHECKS)
//   node_coll.*    a team on one node: meetings in shared memory, slots
//                  and single copy; node_reduce.cpp its reductions
//   leaders.*      a team across nodes: data through one unit per node
//   mpi_paths.*    the MPI calls that move data, cut into pieces
//   reduction.*    operations, the fold in team order, the MPI reduction
//   pieces.*       counts cut to MPI's int, buffer offsets, sizes, roots
#include <dash/dart/if/dart_communication.h>

#include "coll/collectives.hpp"
#include "core/error.hpp"

namespace coll = dart::coll;
using dart::entry;

extern "C" {

dart_ret_t dart_barrier(dart_team_t team) {
  return entry("dart_barrier", [&] { coll::barrier(team); });
}

dart_ret_t dart_bcast(void* buf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t team) {
  return entry("dart_bcast", [&] { coll::bcast(buf, nelem, dtype, root, team); });
}

dart_ret_t dart_scatter(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
                        dart_team_t team) {
  return entry("dart_scatter", [&] { coll::scatter(sendbuf, recvbuf, nelem, dtype, root, team); });
}

dart_ret_t dart_gather(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
                       dart_team_t team) {
  return entry("dart_gather", [&] { coll::gather(sendbuf, recvbuf, nelem, dtype, root, team); });
}

dart_ret_t dart_allgather(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_t team) {
  return entry("dart_allgather", [&] { coll::allgather(sendbuf, recvbuf, nelem, dtype, team); });
}

dart_ret_t dart_allgatherv(const void* sendbuf, size_t nsendelem, dart_datatype_t dtype, void* recvbuf,
                           const size_t* nrecvelem, const size_t* recvdispls, dart_team_t teamid) {
  return entry("dart_allgatherv",
               [&] { coll::allgatherv(sendbuf, nsendelem, dtype, recvbuf, nrecvelem, recvdispls, teamid); });
}

dart_ret_t dart_allreduce(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_operation_t op,
                          dart_team_t team) {
  return entry("dart_allreduce", [&] { coll::reduce(sendbuf, recvbuf, nelem, dtype, op, nullptr, team); });
}

dart_ret_t dart_alltoall(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_t team) {
  return entry("dart_alltoall", [&] { coll::alltoall(sendbuf, recvbuf, nelem, dtype, team); });
}

dart_ret_t dart_reduce(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_operation_t op,
                       dart_team_unit_t root, dart_team_t team) {
  return entry("dart_reduce", [&] { coll::reduce(sendbuf, recvbuf, nelem, dtype, op, &root, team); });
}

}  // extern "C"
