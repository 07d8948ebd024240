// The leaders' path of leaders.hpp.
#include "coll/leaders.hpp"

#include "coll/mpi_paths.hpp"
#include "coll/node_coll.hpp"
#include "core/runtime.hpp"
#include "team/team.hpp"

#include <algorithm>
#include <cstring>

namespace dart::coll {

bool through_leaders(const NodeSync* hs, Call call, std::size_t bytes) {
  // With one unit of the team per node, the leaders are the whole team.
  if (!hs || !hs->nodes_shared()) return false;
  switch (rt().config().collective_hierarchy) {
    case Config::Hierarchy::On: return true;
    case Config::Hierarchy::Off: return false;
    case Config::Hierarchy::Auto: break;
  }
  constexpr std::size_t kBcastFrom = std::size_t(8) << 10, kBcastBelow = std::size_t(256) << 10;
  return call == Call::Bcast && bytes >= kBcastFrom && bytes < kBcastBelow;
}

void bcast_leaders(NodeSync& hs, const Team& team, void* buf, std::size_t nelem, const Elem& e, int root) {
  auto* b = static_cast<char*>(buf);
  const std::size_t bytes = nelem * e.bytes;
  const int root_node = hs.node_of(root);
  const bool on_root_node = hs.node_of(team.myid()) == root_node;
  if (on_root_node) slot_bcast(hs, Call::NodeStep, b, bytes, hs.rank_on_node(root));
  if (hs.leaders() != MPI_COMM_NULL) bcast_pieces(hs.leaders(), buf, nelem, e, root_node);
  if (!on_root_node) slot_bcast(hs, Call::NodeStep, b, bytes, 0);
}

void reduce_leaders(NodeSync& hs, const Team& team, const void* sendbuf, void* recvbuf, bool in_place,
                    const Reduction& red, dart_datatype_t dtype, dart_operation_t op, int root,
                    std::vector<unsigned char>& spare) {
  const std::size_t eb = red.elem.bytes;
  const std::size_t bytes = red.count * eb;
  const bool leader = hs.leaders() != MPI_COMM_NULL;
  const bool result_here = root < 0 || team.myid() == root;
  // The leader folds into the result where it has one, else into `spare`
  // (allocated by the caller before the agreement).
  unsigned char* acc = nullptr;
  if (leader) acc = result_here ? static_cast<unsigned char*>(recvbuf) : spare.data();
  const auto* src = static_cast<const unsigned char*>(in_place ? recvbuf : sendbuf);
  const std::size_t per_round = std::max<std::size_t>(1, hs.slot() / eb);
  for (std::size_t first = 0; first < red.count; first += per_round) {
    const std::size_t cnt = std::min(per_round, red.count - first);
    const std::size_t c = cnt * eb;
    // In place, the contribution is in the slot before the result overwrites it.
    std::memcpy(hs.out(c), src + first * eb, c);
    next_round(hs, Call::NodeStep);
    if (!leader) continue;
    fold_slots(hs, red, dtype, op, acc + first * eb, cnt);
  }
  const int root_node = root < 0 ? -1 : hs.node_of(root);
  if (leader) {
    const bool at_root_leader = root_node < 0 || hs.node_of(team.myid()) == root_node;
    mpi_reduce_pieces(hs.leaders(), acc, at_root_leader ? acc : nullptr, at_root_leader, red, root_node);
  }
  // The leader sends from what it folded; the others receive into recvbuf.
  auto* buf = reinterpret_cast<char*>(leader ? acc : static_cast<unsigned char*>(recvbuf));
  if (root < 0) slot_bcast(hs, Call::NodeStep, buf, bytes, 0);
  else if (hs.node_of(team.myid()) == root_node && hs.rank_on_node(root) != 0)
    slot_bcast(hs, Call::NodeStep, buf, bytes, 0, hs.rank_on_node(root));
}

}  // namespace dart::coll
