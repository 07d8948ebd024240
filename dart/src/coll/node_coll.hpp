// The node engine's collectives: a team whose members share a node meets
// through shared memory (coll/node_sync.hpp) instead of calling MPI.
//
// A team whose members share a node meets through shared memory
// (coll/node_sync.hpp): a collective is one meeting, which carries the
// agreement and the first slot's worth of data, and as many further
// meetings as the data need (NodeSync::slot(), up to 256 KiB per member
// and meeting); the rounds overlap one member's copy into its slot with
// the others' copies out of the last round. Blocks from 16 KiB on skip the
// slots where the node allows single copy (kSingleCopyFrom below): the
// first meeting carries buffer addresses, and a second one ends the call.
// Reductions take single copy too (reduce_direct), from 16 KiB of vector.
// Measured with tests/perf/bench_collectives on 2 units under Open MPI,
// 1 KiB calls take 0.4-0.6x MPI's time and 64 KiB and 1 MiB calls
// 0.78-1.0x, but for dart_reduce of 1 MiB (1.1-1.2x).
// Reductions fold every element of the members' parts in team order, one
// member per element, so every unit gets the same bits, those of a
// left-to-right evaluation (user operations: right to left,
// c0 op (c1 op ...)). With DART_COLLECTIVE_CHECKS=0 a member whose own
// arguments are bad returns without taking part, as with MPI; everything
// else is the same.
#pragma once

#include <dash/dart/if/dart_types.h>

#include "coll/node_sync.hpp"
#include "coll/reduction.hpp"
#include "core/runtime.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>

namespace dart::coll {

// ---- the entry points: one per collective -----------------------------------------

void bcast_node(NodeSync& ns, Team& team, void* buf, std::size_t nelem, dart_datatype_t dtype,
                dart_team_unit_t root);
void scatter_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                  dart_datatype_t dtype, dart_team_unit_t root);
void gather_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                 dart_datatype_t dtype, dart_team_unit_t root);
void allgather_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                    dart_datatype_t dtype);
void allgatherv_node(NodeSync& ns, Team& team, const void* sendbuf, std::size_t nsendelem, dart_datatype_t dtype,
                     void* recvbuf, const std::size_t* nrecvelem, const std::size_t* recvdispls);
void alltoall_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                   dart_datatype_t dtype);
// dart_reduce (root_arg given) and dart_allreduce (root_arg NULL), in
// node_reduce.cpp.
void reduce_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                 dart_datatype_t dtype, dart_operation_t op, const dart_team_unit_t* root_arg);

// ---- what they share (and the leaders' path, leaders.cpp) --------------------------

// Runs `prepare` (validation; it fills the fingerprint and writes this
// member's payload into ns.out()) and then the meeting; throws what this
// member must report.
template <class Prepare>
void meet(NodeSync& ns, Call call, Prepare&& prepare) {
  Fingerprint fp;
  std::exception_ptr mine;
  try {
    prepare(fp);
  } catch (...) {
    if (!rt().config().collective_checks) throw;
    mine = std::current_exception();
  }
  const NodeSync::Verdict v = ns.meet(call, fp, !mine);
  if (mine) {
    (void)ns.break_on(v);  // as the others do in throw_on
    std::rethrow_exception(mine);
  }
  ns.throw_on(v, call);
}

// A fingerprint word: the root (-1: none) and, above bit 32, one more
// field that must match (a reduction's operation).
inline std::uint64_t root_word(int root, std::size_t extra = 0) {
  return static_cast<std::uint64_t>(root + 1) | (extra << 32);
}

// A further round of a collective whose data take several meetings: the
// first meeting agreed on everything, so the later ones only carry data.
inline void next_round(NodeSync& ns, Call call) { (void)ns.meet(call, Fingerprint{}, true); }

// Single copy (NodeSync::single_copy): from this many bytes per block on,
// a collective's first meeting carries each sending member's buffer
// address instead of data, every receiver copies what it needs straight
// from the senders' buffers (process_vm_readv), and a second meeting holds
// the senders until every copy is done: two meetings whatever the size,
// one copy, and no cache line that one core has just written read by
// another. The slots copy twice and pass every byte from core to core;
// with 2 units on 2 CPUs whose cache-line hand-off cost 0.31 us, a 1 MiB
// bcast took 413 us through them against MPI's single-copy 81 us
// (tests/perf/bench_collectives; 95 us where the hand-off cost 0.07 us).
constexpr std::size_t kSingleCopyFrom = std::size_t(16) << 10;

inline bool single_copy(const NodeSync& ns, std::size_t block) {
  return ns.single_copy() && block >= kSingleCopyFrom;
}

// This member's buffer address, for the others to copy from.
inline void publish(NodeSync& ns, const void* p) {
  const auto a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  std::memcpy(ns.out(sizeof a), &a, sizeof a);
}

// The address member m published in the last meeting, plus `offset` bytes.
inline const char* published(const NodeSync& ns, int m, std::size_t offset = 0) {
  std::uint64_t a = 0;
  std::memcpy(&a, ns.in(m, sizeof a), sizeof a);
  return reinterpret_cast<const char*>(static_cast<std::uintptr_t>(a)) + offset;
}

// Copies of one single-copy collective on one member. A failed copy is
// remembered, so the call still reaches its second meeting, where every
// member learns of it.
struct SingleCopy {
  NodeSync& ns;
  int err = 0;
  int refused_by = -1;  // the member whose buffer this member could not read, or -1
  void from(int m, const char* remote, void* local, std::size_t bytes) {
    if (err == 0 && bytes > 0 && !ns.read_from(m, remote, local, bytes)) {
      err = errno;
      refused_by = m;
    }
  }
  // This member cannot go on by single copy for a reason of its own (no
  // memory for its scratch blocks): as a refusal, the call goes through
  // the slots.
  void give_up(int e) {
    if (err == 0) err = e;
  }
  // The second meeting: senders may reuse their buffers after it. False
  // when some member's copy was refused: the probe passed, but the kernel
  // can still refuse (a seccomp filter installed after the probe, a
  // ptrace policy changed), or a member ran out of memory. Every member
  // sees it in the same meeting, turns single copy off for the team's
  // later calls, and runs the call again through the slots (plain loads
  // and stores); no member has written anything a sender reads. A copy
  // that faulted (EFAULT: a range not mapped, such as a buffer shorter
  // than the call says, or memory the kernel will not pin, such as some
  // device mappings; the two look alike) fails the call on every member
  // instead: the slots would read the same range with loads.
  [[nodiscard]] bool finish(Call call);
};

// A broadcast of `bytes` among the members of a node engine from member
// `src`, in rounds of one slot (none if bytes is 0); `dst` is the one
// member that takes the data (the others only take part), or -1 for all.
// The source fills the next round while the others still copy out of the
// last one.
void slot_bcast(NodeSync& ns, Call call, char* buf, std::size_t bytes, int src, int dst = -1);

// The fold of the parts of the last meeting (cnt elements of red each)
// into acc, in team order (fold_in_order), in node_reduce.cpp.
void fold_slots(const NodeSync& ns, const Reduction& red, dart_datatype_t dtype, dart_operation_t op,
                unsigned char* acc, std::size_t cnt);

}  // namespace dart::coll
