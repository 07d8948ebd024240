// The MPI data paths of mpi_paths.hpp.
#include "coll/mpi_paths.hpp"

#include "coll/pieces.hpp"
#include "core/activity.hpp"
#include "core/error.hpp"
#include "team/team.hpp"

#include <vector>

namespace dart::coll {

void bcast_pieces(MPI_Comm comm, void* buf, std::size_t nelem, const Elem& e, int root) {
  for_each_piece(nelem, piece_limit(e, 1), [&](std::size_t first, int n) {
    activity::InMpi in_mpi;
    mpi_check(MPI_Bcast(at(buf, first, e), n, e.type, root, comm), "MPI_Bcast");
  });
}

void scatter_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e, int r,
                 bool in_place) {
  const bool at_root = team.myid() == r;
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece src = at_root ? block_piece(e, nelem, n) : plain_piece(e, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Scatter(at(sendbuf, first, e), src.count, src.type, in_place ? MPI_IN_PLACE : at(recvbuf, first, e),
                          n, e.type, r, team.comm()),
              "MPI_Scatter");
  });
}

void gather_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e, int r,
                bool in_place) {
  const bool at_root = team.myid() == r;
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece dst = at_root ? block_piece(e, nelem, n) : plain_piece(e, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Gather(in_place ? MPI_IN_PLACE : at(sendbuf, first, e), n, e.type, at(recvbuf, first, e), dst.count,
                         dst.type, r, team.comm()),
              "MPI_Gather");
  });
}

void allgather_mpi(const Team& team, void* recvbuf, std::size_t nelem, const Elem& e) {
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece dst = block_piece(e, nelem, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Allgather(MPI_IN_PLACE, n, e.type, at(recvbuf, first, e),
                            dst.count, dst.type, team.comm()),
              "MPI_Allgather");
  });
}

void alltoall_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e) {
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece blk = block_piece(e, nelem, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Alltoall(at(sendbuf, first, e), blk.count, blk.type, at(recvbuf, first, e),
                           blk.count, blk.type, team.comm()),
              "MPI_Alltoall");
  });
}

void allgatherv_mpi(const Team& team, const void* sendbuf, std::size_t nsendelem, const Elem& e, void* recvbuf,
                    const std::size_t* nrecvelem, const std::size_t* recvdispls, std::size_t span) {
  const int size = team.size();
  const auto me = static_cast<std::size_t>(team.myid());
  char* own = at(recvbuf, recvdispls[me], e);
  const bool in_place = !sendbuf || sendbuf == recvbuf || sendbuf == own;
  // MPI wants MPI_IN_PLACE on all members or none, DART lets each choose:
  // every member puts its block in place first.
  if (!in_place && nsendelem > 0) std::memmove(own, sendbuf, nsendelem * e.bytes);
  if (span <= piece_limit(e, 1)) {
    // Every count and displacement fits in int: one MPI call.
    std::vector<int> counts(static_cast<std::size_t>(size));
    std::vector<int> displs(static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < counts.size(); ++i) {
      counts[i] = static_cast<int>(nrecvelem[i]);
      displs[i] = nrecvelem[i] == 0 ? 0 : static_cast<int>(recvdispls[i]);
    }
    activity::InMpi in_mpi;
    mpi_check(MPI_Allgatherv(MPI_IN_PLACE, counts[me], e.type, recvbuf, counts.data(),
                             displs.data(), e.type, team.comm()),
              "MPI_Allgatherv");
    return;
  }
  // Beyond int, MPI-3's allgatherv cannot address the blocks: every member
  // broadcasts its block in turn, each broadcast cut into pieces.
  for (int i = 0; i < size; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (nrecvelem[u] > 0) bcast_pieces(team.comm(), at(recvbuf, recvdispls[u], e), nrecvelem[u], e, i);
  }
}

}  // namespace dart::coll
