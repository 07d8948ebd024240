// The MPI data paths of the collectives that move data without reducing
// it, after the agreement: each call cut into pieces (pieces.hpp). Shared
// by both ways of agreeing: MPI's agreement packet (collectives.cpp) and
// the node leaders (leaders.cpp), which hand calls to MPI after their
// meeting.
#pragma once

#include "coll/elements.hpp"

#include <mpi.h>

#include <cstddef>

namespace dart {
class Team;
}

namespace dart::coll {

// MPI_Bcast of nelem elements from `root` on `comm`, cut into pieces.
void bcast_pieces(MPI_Comm comm, void* buf, std::size_t nelem, const Elem& e, int root);

// MPI_Scatter of per-member blocks of nelem elements from member r.
void scatter_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e, int r,
                 bool in_place);

// MPI_Gather of per-member blocks of nelem elements to member r.
void gather_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e, int r,
                bool in_place);

// In place: every member's own block is already in recvbuf.
void allgather_mpi(const Team& team, void* recvbuf, std::size_t nelem, const Elem& e);

// MPI_Alltoall of per-member blocks of nelem elements.
void alltoall_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e);

// MPI_Allgatherv of blocks whose counts and displacements may exceed
// int; `span` is allgatherv_span's.
void allgatherv_mpi(const Team& team, const void* sendbuf, std::size_t nsendelem, const Elem& e, void* recvbuf,
                    const std::size_t* nrecvelem, const std::size_t* recvdispls, std::size_t span);

}  // namespace dart::coll
