// The agreement on a collective's arguments among the members of a team
// that meets through MPI.
//
// Teams on one node. A team whose members share a node (and
// DART_SHARED_MEMORY=1) does not use the agreement packet: each call is a
// meeting in shared memory (coll/node_sync.hpp, coll/node_coll.hpp) that
// carries the same checks and the data. Teams across nodes combine the
// packet hierarchically where their units share nodes (allreduce_packet).
//
// Bad arguments. With DART_COLLECTIVE_CHECKS=1 (Config::collective_checks,
// the default) every collective but dart_barrier on a team of two or more
// members starts with one MPI_Allreduce of a 128-byte Packet (below):
// each member's validity flag and a fingerprint of what must match
// (collective, root, counts, type, operation; a hash of allgatherv's
// counts), combined by OR. A member whose arguments were bad
// returns DART_ERR_INVAL with its own reason; every other member returns
// DART_ERR_INVAL with "another member passed invalid arguments"; arguments
// that are valid but differ between members fail on all of them too. The
// packet's 64-byte payload carries calls that small (bcast, scatter,
// gather, allgather(v), alltoall by OR of disjoint slots; reductions of
// basic types with predefined operations by the operation itself), so for
// them the agreement is the whole collective: one MPI call, as without
// checks. Larger calls pay one small allreduce more (a few µs on a shared
// node; measured by tests/perf/bench_collectives.cpp). A non-member or a
// unit that does not know the team cannot take part and fails alone.
// DART_COLLECTIVE_CHECKS=0 calls MPI directly: then a mistake only one unit
// can see makes that unit return DART_ERR_INVAL without entering MPI while
// the others wait in the collective, as in MPI. Nothing crashes: every
// pointer is checked before MPI sees it.
#pragma once

#include "coll/node_sync.hpp"
#include "core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>

namespace dart {
class Team;
}

namespace dart::coll {

// With checks on (Config::collective_checks) and more than one member, a
// collective starts with one MPI_Allreduce of a Packet of fixed size: a
// header with this unit's validity and a fingerprint of what must match
// across the members, and a payload that carries the data of small calls,
// so that for them the agreement IS the collective (one MPI call, as
// without checks). Everything a member validates before it communicates
// is in the packet, so a bad argument on any member fails the call on all
// of them, and arguments that differ between members (root, counts, type,
// operation, even the collective called) fail it too, instead of hanging.

using Kind = Call;  // the fingerprint names the call as the node engine does

constexpr std::size_t kHeaderWords = 8;
constexpr std::size_t kPayloadBytes = 64;  // a 128-byte packet costs what an 8-byte allreduce does
constexpr std::size_t kPacketWords = kHeaderWords + kPayloadBytes / 8;

// Header: w[0] bit 0 = some member's arguments were invalid; w[1..6] = three
// fingerprint words f and their complements ~f, combined by OR: f | f' and
// ~f | ~f' share a set bit exactly when f != f' (as team creation does).
// fp0 = kind | (root + 1) << 8 | payload mode << 40 | operation << 48,
// fp1 = bytes (per block; reductions: elements), fp2 = type (reductions) or
// a hash of allgatherv's counts. The payload is combined by OR, except in a
// fused reduction, whose members all sent the same header (mode 1): then
// with the operation on the type named by the header.
struct alignas(16) Packet {
  std::uint64_t w[kPacketWords] = {};

  unsigned char* payload() noexcept { return reinterpret_cast<unsigned char*>(w + kHeaderWords); }
  void fingerprint(Kind kind, int root, bool reduce_payload, std::uint64_t op, std::uint64_t f1, std::uint64_t f2) {
    const std::uint64_t f0 = static_cast<std::uint64_t>(kind) | (static_cast<std::uint64_t>(root + 1) << 8) |
                             (static_cast<std::uint64_t>(reduce_payload ? 1 : 0) << 40) | (op << 48);
    const std::uint64_t f[3] = {f0, f1, f2};
    for (int i = 0; i < 3; ++i) {
      w[1 + 2 * i] = f[i];
      w[2 + 2 * i] = ~f[i];
    }
  }
  void mark_invalid() noexcept {
    std::memset(w, 0, sizeof w);
    w[0] = 1;
  }
};

constexpr std::uint64_t kUserOpCode = 0xffff;  // a dart_op_create operation in fp0

// Whether collectives on `team` start with the agreement
// (DART_COLLECTIVE_CHECKS and more than one member).
bool checks_on(const Team& team);

// The packet combined over the whole team. On a team across nodes whose
// units share nodes, the units of a node meet in shared memory, the first
// of them combines their packets and combines the node's with the other
// nodes' in one MPI_Allreduce among one unit per node, and its node meets
// again to read the result: one message across the network per node
// instead of one per unit (measured across the rig's hosts with
// tests/perf/bench_collectives). Elsewhere one MPI_Allreduce over the team.
void allreduce_packet(Team& team, Packet& pk);

// Runs `prepare` (validation; with `agreeing` it also fills the packet),
// then, with `agreeing`, the agreement: every member leaves with the same
// verdict. A member whose own arguments were bad throws its own error;
// the others throw DART_ERR_INVAL.
template <class Prepare>
void agree(Team& team, bool agreeing, Packet& pk, Prepare&& prepare) {
  if (!agreeing) {
    prepare();
    return;
  }
  std::exception_ptr mine;
  try {
    prepare();
  } catch (...) {
    mine = std::current_exception();
    pk.mark_invalid();
  }
  allreduce_packet(team, pk);
  if (mine) std::rethrow_exception(mine);
  if (pk.w[0] & 1) invalid("another member passed invalid arguments");
  if ((pk.w[1] & pk.w[2]) | (pk.w[3] & pk.w[4]) | (pk.w[5] & pk.w[6]))
    invalid("the members passed different roots, counts, types or operations (or called different collectives)");
}

}  // namespace dart::coll
