// Each collective of dart_communication.h for a team, behind its C entry
// point: a team on one node goes to the node engine (node_coll.hpp); any
// other team agrees through the packet (agreement.hpp), which carries small
// calls whole, and moves larger ones through MPI (mpi_paths.hpp,
// reduction.hpp) or its node leaders (leaders.hpp).
#pragma once

#include <dash/dart/if/dart_types.h>

#include <cstddef>

namespace dart::coll {

void barrier(dart_team_t teamid);
void bcast(void* buf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t teamid);
void scatter(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
             dart_team_t teamid);
void gather(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
            dart_team_t teamid);
void allgather(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_t teamid);
void allgatherv(const void* sendbuf, std::size_t nsendelem, dart_datatype_t dtype, void* recvbuf,
                const std::size_t* nrecvelem, const std::size_t* recvdispls, dart_team_t teamid);
void alltoall(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_t teamid);
// dart_reduce (root_arg given) and dart_allreduce (root_arg NULL).
void reduce(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_operation_t op,
            const dart_team_unit_t* root_arg, dart_team_t teamid);

}  // namespace dart::coll
