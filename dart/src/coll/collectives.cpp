// The collectives of collectives.hpp: which path a call takes, and the
// agreement packet's fused small calls.
#include "coll/collectives.hpp"

#include "coll/agreement.hpp"
#include "coll/leaders.hpp"
#include "coll/mpi_paths.hpp"
#include "coll/node_coll.hpp"
#include "coll/pieces.hpp"
#include "coll/reduction.hpp"
#include "core/activity.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"
#include "team/team.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace dart::coll {

void barrier(dart_team_t teamid) {
  Team& t = rt().team(teamid);
  // Stores to the caller's own portion made before the barrier must be
  // visible to loads and gets of other units after it. On one node the
  // meeting's release store and acquire loads order them (a unit that
  // sees a member arrive sees that member's earlier stores); elsewhere
  // the MPI calls do not promise it for shared windows, hence the fences.
  if (NodeSync* ns = node_sync(t)) {
    ns->throw_on(ns->meet(Call::Barrier, Fingerprint{}, true), Call::Barrier);
    return;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (node_step_sync(t)) {
    // Across nodes: the barrier is an agreement with nothing to carry.
    Packet pk;
    agree(t, true, pk, [&] { pk.fingerprint(Kind::Barrier, -1, false, 0, 0, 0); });
  } else {
    activity::InMpi in_mpi;
    mpi_check(MPI_Barrier(t.comm()), "MPI_Barrier");
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void bcast(void* buf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return bcast_node(*ns, team, buf, nelem, dtype, root);
  const bool agreeing = checks_on(team);
  Packet pk;
  int r = 0;
  Elem e;
  std::size_t bytes = 0;
  bool fused = false;
  agree(team, agreeing, pk, [&] {
    r = root_of(team, root);
    e = elem_of(dtype);
    bytes = checked_bytes(nelem, e.bytes);
    require_buf(buf, nelem, bytes, "buf");
    if (!agreeing) return;
    fused = bytes <= kPayloadBytes;
    pk.fingerprint(Kind::Bcast, r, false, 0, bytes, 0);
    if (fused && team.myid() == r) copy_bytes(pk.payload(), buf, bytes);
  });
  if (fused) {
    if (team.myid() != r) copy_bytes(buf, pk.payload(), bytes);
    return;
  }
  if (NodeSync* hs = node_step_sync(team); through_leaders(hs, Call::Bcast, bytes))
    return bcast_leaders(*hs, team, buf, nelem, e, r);
  bcast_pieces(team.comm(), buf, nelem, e, r);
}

void scatter(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
             dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return scatter_node(*ns, team, sendbuf, recvbuf, nelem, dtype, root);
  const bool agreeing = checks_on(team);
  Packet pk;
  int r = 0;
  Elem e;
  bool at_root = false, in_place = false, fused = false;
  std::size_t block = 0;
  agree(team, agreeing, pk, [&] {
    r = root_of(team, root);
    e = elem_of(dtype);
    const std::size_t total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    at_root = team.myid() == r;
    // sendbuf is read at the root only. A root whose recvbuf is its own
    // block of sendbuf receives in place (MPI rejects aliased buffers).
    if (at_root) require_buf(sendbuf, nelem, total, "sendbuf (at the root)");
    in_place = at_root && recvbuf && recvbuf == at(sendbuf, static_cast<std::size_t>(r) * nelem, e);
    require_buf(recvbuf, nelem, block, "recvbuf");
    if (!agreeing) return;
    fused = total <= kPayloadBytes;
    pk.fingerprint(Kind::Scatter, r, false, 0, block, 0);
    if (fused && at_root) copy_bytes(pk.payload(), sendbuf, total);
  });
  if (fused) {
    if (!in_place) copy_bytes(recvbuf, pk.payload() + static_cast<std::size_t>(team.myid()) * block, block);
    return;
  }
  scatter_mpi(team, sendbuf, recvbuf, nelem, e, r, in_place);
}

void gather(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
            dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return gather_node(*ns, team, sendbuf, recvbuf, nelem, dtype, root);
  const bool agreeing = checks_on(team);
  Packet pk;
  int r = 0;
  Elem e;
  bool at_root = false, in_place = false, fused = false;
  std::size_t block = 0, total = 0;
  agree(team, agreeing, pk, [&] {
    r = root_of(team, root);
    e = elem_of(dtype);
    total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    at_root = team.myid() == r;
    // recvbuf is written at the root only. A root whose sendbuf is its own
    // block of recvbuf sends in place.
    if (at_root) require_buf(recvbuf, nelem, total, "recvbuf (at the root)");
    in_place = at_root && sendbuf && sendbuf == at(recvbuf, static_cast<std::size_t>(r) * nelem, e);
    require_buf(sendbuf, nelem, block, "sendbuf");
    if (!agreeing) return;
    fused = total <= kPayloadBytes;
    pk.fingerprint(Kind::Gather, r, false, 0, block, 0);
    if (fused && !in_place) copy_bytes(pk.payload() + static_cast<std::size_t>(team.myid()) * block, sendbuf, block);
  });
  if (fused) {
    // The root's own block is in place or was copied from its sendbuf.
    if (at_root) {
      for (int i = 0; i < team.size(); ++i) {
        const std::size_t off = static_cast<std::size_t>(i) * block;
        if (i != r || !in_place) copy_bytes(static_cast<char*>(recvbuf) + off, pk.payload() + off, block);
      }
    }
    return;
  }
  gather_mpi(team, sendbuf, recvbuf, nelem, e, r, in_place);
}

void allgather(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return allgather_node(*ns, team, sendbuf, recvbuf, nelem, dtype);
  const bool agreeing = checks_on(team);
  Packet pk;
  Elem e;
  bool in_place = false, fused = false;
  std::size_t block = 0, total = 0;
  const auto me = static_cast<std::size_t>(team.myid());
  agree(team, agreeing, pk, [&] {
    e = elem_of(dtype);
    total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    require_buf(recvbuf, nelem, total, "recvbuf");
    // In place (spec): sendbuf NULL or recvbuf; also when it is the caller's
    // own block of recvbuf, which MPI would reject as aliased.
    in_place = !sendbuf || sendbuf == recvbuf || sendbuf == at(recvbuf, me * nelem, e);
    if (!agreeing) return;
    fused = total <= kPayloadBytes;
    pk.fingerprint(Kind::Allgather, -1, false, 0, block, 0);
    if (fused) copy_bytes(pk.payload() + me * block, in_place ? at(recvbuf, me * nelem, e) : sendbuf, block);
  });
  if (fused) {
    copy_bytes(recvbuf, pk.payload(), total);
    return;
  }
  // MPI wants MPI_IN_PLACE on all members or none, DART lets each choose:
  // every member puts its block in place first.
  if (!in_place) copy_bytes(at(recvbuf, me * nelem, e), sendbuf, block);
  allgather_mpi(team, recvbuf, nelem, e);
}

void allgatherv(const void* sendbuf, std::size_t nsendelem, dart_datatype_t dtype, void* recvbuf,
                const std::size_t* nrecvelem, const std::size_t* recvdispls, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team))
    return allgatherv_node(*ns, team, sendbuf, nsendelem, dtype, recvbuf, nrecvelem, recvdispls);
  const bool agreeing = checks_on(team);
  const int size = team.size();
  const auto me = static_cast<std::size_t>(team.myid());
  Packet pk;
  Elem e;
  std::size_t span = 0, total = 0;
  bool fused = false;
  agree(team, agreeing, pk, [&] {
    e = elem_of(dtype);
    require(nrecvelem, "nrecvelem");
    require(recvdispls, "recvdispls");
    if (nsendelem != nrecvelem[me])
      invalid("nsendelem " + std::to_string(nsendelem) + " differs from nrecvelem[" + std::to_string(me) + "] " +
              std::to_string(nrecvelem[me]));
    std::size_t largest = 0;
    span = allgatherv_span(nrecvelem, recvdispls, size, &largest, &total);
    require_buf(recvbuf, span, checked_bytes(span, e.bytes), "recvbuf");
    if (!agreeing) return;
    const std::size_t total_bytes = checked_bytes(total, e.bytes);
    fused = total_bytes <= kPayloadBytes;
    pk.fingerprint(Kind::Allgatherv, -1, false, 0, total_bytes, counts_hash(nrecvelem, size) ^ e.bytes);
    if (!fused) return;
    // Packed in team order, whatever the displacements.
    std::size_t off = 0;
    for (std::size_t i = 0; i < me; ++i) off += nrecvelem[i];
    const bool in_place = !sendbuf || sendbuf == recvbuf;
    copy_bytes(pk.payload() + off * e.bytes, in_place ? at(recvbuf, recvdispls[me], e) : sendbuf, nsendelem * e.bytes);
  });
  if (fused) {
    std::size_t off = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(size); ++i) {
      if (nrecvelem[i] > 0)
        copy_bytes(at(recvbuf, recvdispls[i], e), pk.payload() + off * e.bytes, nrecvelem[i] * e.bytes);
      off += nrecvelem[i];
    }
    return;
  }
  if (span == 0) return;  // every block is empty, on every member
  allgatherv_mpi(team, sendbuf, nsendelem, e, recvbuf, nrecvelem, recvdispls, span);
}

void alltoall(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return alltoall_node(*ns, team, sendbuf, recvbuf, nelem, dtype);
  const bool agreeing = checks_on(team);
  const auto size = static_cast<std::size_t>(team.size());
  const auto me = static_cast<std::size_t>(team.myid());
  Packet pk;
  Elem e;
  bool in_place = false, fused = false;
  std::size_t block = 0;
  // MPI wants MPI_IN_PLACE on all members or none, DART lets each choose:
  // a member in place sends from a copy of recvbuf instead (made before
  // the agreement, so running out of memory fails the call everywhere).
  std::vector<char> staged;
  agree(team, agreeing, pk, [&] {
    e = elem_of(dtype);
    const std::size_t total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    require_buf(recvbuf, nelem, total, "recvbuf");
    in_place = !sendbuf || sendbuf == recvbuf;
    if (in_place && !(agreeing && total <= kPayloadBytes / size))
      staged.assign(static_cast<const char*>(recvbuf), static_cast<const char*>(recvbuf) + total);
    if (!agreeing) return;
    fused = total <= kPayloadBytes / size;  // size x size blocks
    pk.fingerprint(Kind::Alltoall, -1, false, 0, block, 0);
    // Row `me` of the matrix of blocks: block j goes to member j.
    if (fused) copy_bytes(pk.payload() + me * total, in_place ? recvbuf : sendbuf, total);
  });
  if (fused) {
    // Block i of recvbuf: what member i sent to me, row i, column me.
    for (std::size_t i = 0; i < size; ++i)
      copy_bytes(static_cast<char*>(recvbuf) + i * block, pk.payload() + (i * size + me) * block, block);
    return;
  }
  alltoall_mpi(team, in_place ? staged.data() : sendbuf, recvbuf, nelem, e);
}

void reduce(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_operation_t op,
            const dart_team_unit_t* root_arg, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return reduce_node(*ns, team, sendbuf, recvbuf, nelem, dtype, op, root_arg);
  const bool agreeing = checks_on(team);
  Packet pk;
  Reduction red;
  int root = -1;
  bool result_here = false, in_place = false, fused = false, via_leaders = false;
  std::size_t bytes = 0;
  NodeSync* hs = node_step_sync(team);
  std::vector<unsigned char> spare;  // a leader's partial result, if it has no recvbuf
  agree(team, agreeing, pk, [&] {
    if (root_arg) root = root_of(team, *root_arg);
    red = reduction_of(dtype, op, nelem);
    bytes = checked_bytes(red.count, red.elem.bytes);
    result_here = root < 0 || team.myid() == root;
    if (result_here) require_buf(recvbuf, nelem, bytes, root < 0 ? "recvbuf" : "recvbuf (at the root)");
    // The spec lets an implementation treat sendbuf == recvbuf as in place.
    in_place = result_here && sendbuf == recvbuf;
    if (!in_place) require_buf(sendbuf, nelem, bytes, "sendbuf");
    // Allocated here, so that running out of memory fails the call on
    // every member instead of leaving the leader's node waiting for it.
    via_leaders = op < DART_OP_LAST && through_leaders(hs, root_arg ? Call::Reduce : Call::Allreduce, bytes);
    if (via_leaders && hs->leaders() != MPI_COMM_NULL && !result_here) spare.resize(bytes);
    if (!agreeing) return;
    // Small reductions of basic types with predefined operations travel in
    // the packet: the agreement computes them.
    const bool user = op >= DART_OP_LAST;
    const bool basic = is_basic_type(dtype);
    fused = !user && basic && bytes <= kPayloadBytes;
    pk.fingerprint(root_arg ? Kind::Reduce : Kind::Allreduce, root, fused,
                   user ? kUserOpCode : static_cast<std::uint64_t>(op), nelem,
                   basic ? static_cast<std::uint64_t>(dtype) : ((std::uint64_t{1} << 62) | red.elem.bytes));
    if (fused) copy_bytes(pk.payload(), sendbuf, bytes);
  });
  if (fused) {
    if (result_here) copy_bytes(recvbuf, pk.payload(), bytes);
    return;
  }
  // MPI ignores recvbuf elsewhere; passing NULL keeps its alias checks quiet.
  void* result = result_here ? recvbuf : nullptr;
  if (via_leaders) return reduce_leaders(*hs, team, sendbuf, result, in_place, red, dtype, op, root, spare);
  mpi_reduce_pieces(team.comm(), sendbuf, result, in_place, red, root);
  if (result && team.size() == 1 && is_logical_op(op)) to_truth_values(result, nelem, dtype);
}

}  // namespace dart::coll
