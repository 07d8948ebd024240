// Teams across nodes: data through the node leaders.
//
// A team across nodes has a node engine per node (node_step_sync) and a
// communicator of one unit per node (its leaders).
// Its agreement already meets that way (allreduce_packet). Its data can
// too: on each node the units meet in shared memory, and only the leaders
// call MPI, so each node sends its data across the network once instead of
// once per unit. Whether that beats one MPI call over the whole team
// depends on the call and the size (and needs some node to hold more than
// one unit of the team); through_leaders decides.

#pragma once

#include <dash/dart/if/dart_types.h>

#include "coll/elements.hpp"
#include "coll/node_sync.hpp"
#include "coll/reduction.hpp"

#include <cstddef>
#include <vector>

namespace dart {
class Team;
}

namespace dart::coll {

// Whether a call of `bytes` (bcast: the buffer; reductions: the whole
// vector) on a team across nodes moves its data through the leaders.
// Measured with tests/perf/bench_collectives on the rig (scripts/rig: 2
// hosts x 2 units on this 2-core machine, Open MPI over UCX's TCP, with
// --mca mpi_yield_when_idle 1), DART_COLLECTIVE_CHECKS=0 so that only the
// data path differs: µs per call, median of 4 runs (each best of 5 or 11
// rounds), the whole team's MPI call / through the leaders
// (DART_COLLECTIVE_HIERARCHY=off / on):
//
//   call          8 B          1 KiB        64 KiB        1 MiB
//   bcast      8.6 / 15.1   9.4 / 20.0   226 / 147     663 / 978
//   allreduce 42.4 / 35.2  41.2 / 37.5   266 / 237    1932 / 1958
//   reduce    13.7 / 18.2  15.1 / 22.0   106 / 144    1122 / 1263
//
// MPI's own figures on the rig vary up to 10x between runs (4 busy units
// on 2 shared cores), so only a clear difference decides: the leaders
// carry a bcast of 64 KiB (0.65x, faster in every pair of runs), where
// one crossing per node beats MPI's tree; at 1 MiB the node rounds and the
// leaders' call run one after the other while MPI pipelines, and small
// rooted calls lose the root's early return. An allreduce through the
// leaders was 0.83-1.01x, but not faster in every pair of runs; a reduce
// 1.13-1.46x (the root's early return again): both stay with MPI. Between
// measured sizes the boundary is their geometric middle, so the leaders
// carry broadcasts from 8 KiB to below 256 KiB. Small calls with checks on travel in the agreement
// packet, which is combined through the leaders anyway.
bool through_leaders(const NodeSync* hs, Call call, std::size_t bytes);

// dart_bcast through the leaders, after the agreement: root's node first
// (the root hands the data to its node, leader included), then the leaders
// from the root's node, then every other node from its leader.
void bcast_leaders(NodeSync& hs, const Team& team, void* buf, std::size_t nelem, const Elem& e, int root);

// dart_reduce / dart_allreduce through the leaders, after the agreement,
// for predefined operations (user operations may not commute, and folding
// by node would reorder their operands): each node's contributions are
// folded at its leader in node order, in rounds of a slot; the leaders
// reduce the nodes' results with MPI; the result goes to every unit of
// every node (allreduce) or from the root node's leader to the root.
// Every unit gets the same bits: those of the leaders' MPI call.
void reduce_leaders(NodeSync& hs, const Team& team, const void* sendbuf, void* recvbuf, bool in_place,
                    const Reduction& red, dart_datatype_t dtype, dart_operation_t op, int root,
                    std::vector<unsigned char>& spare);

}  // namespace dart::coll
