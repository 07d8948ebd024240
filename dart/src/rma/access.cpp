#include "rma/access.hpp"

#include "core/error.hpp"
#include "core/runtime.hpp"

#include <dash/dart/ext/dart_direct.h>

#include <string>

namespace dart {

char* direct_extent(const dart_gptr_t& g, std::size_t bytes) noexcept {
  const ExtentTable* table = g_extent_table.load(std::memory_order_acquire);
  const std::uint64_t offset = g.addr_or_offs.offset;
  const std::uint64_t n = offset >> Extents::kShift, byte = offset & Extents::kByteMask;
  if (!table || g.teamid != DART_TEAM_ALL || g.segid != DART_SEGMENT_LOCAL || n == 0 ||
      n > static_cast<std::uint64_t>(Extents::kMax))
    return nullptr;
  const auto node_rank = static_cast<unsigned>(g.unitid - table->first);
  if (node_rank >= static_cast<unsigned>(table->units)) return nullptr;
  const ExtentTable::Entry& x = table->entries[node_rank * Extents::kMax + (n - 1)];
  char* base = x.base.load(std::memory_order_acquire);
  if (!base || byte > x.size || bytes > x.size - byte) return nullptr;
  return base + byte;
}

Segment& find_segment(const dart_gptr_t& g, Team** team_out) {
  Runtime& r = rt();
  Team& team = r.team(g.teamid);
  if (g.segid == DART_SEGMENT_LOCAL && g.teamid != DART_TEAM_ALL)
    invalid("segment 0 (DART_SEGMENT_LOCAL) exists only on DART_TEAM_ALL, not on team " + std::to_string(g.teamid));
  Segment* seg = team.segments().find(g.segid);
  if (!seg)
    invalid("no segment " + std::to_string(g.segid) + " on team " + std::to_string(g.teamid) +
            " (never allocated, or already freed)");
  if (team_out) *team_out = &team;
  return *seg;
}

Target resolve(const dart_gptr_t& g) {
  Target t;
  t.seg = &find_segment(g, &t.team);
  const int unit = g.unitid;
  if (unit < 0 || unit >= t.team->size())
    invalid("unit " + std::to_string(unit) + " is out of range for team " + std::to_string(g.teamid) + " of " +
            std::to_string(t.team->size()) + " units");
  const std::uint64_t offset = g.addr_or_offs.offset;
  if (t.seg->kind == SegmentKind::LocalPool && Extents::names_extent(offset)) {
    rt().extents().resolve(unit, offset, t);
    return t;
  }
  const std::size_t portion = t.seg->portion_bytes(unit);
  if (offset > portion)
    invalid("offset " + std::to_string(offset) + " lies beyond the " + std::to_string(portion) +
            "-byte portion of unit " + std::to_string(unit) + " in segment " + std::to_string(g.segid));
  t.avail = portion - offset;
  t.unit = unit;

  if (t.seg->kind == SegmentKind::Registered) {
    // Other units' buffers are only ever reached through the dynamic
    // window, where a displacement is an address.
    t.window = t.seg->reg_win;
    t.win = t.window->get();
    t.rank = unit;
    t.disp = static_cast<MPI_Aint>(t.seg->unit_disp[static_cast<std::size_t>(unit)] + offset);
    if (unit == t.team->myid()) t.mine = t.seg->my_base + offset;
    if (t.team->load_store()) t.local = t.mine;
    return t;
  }

  if (!t.seg->chunk) return t;  // every unit contributed zero bytes
  Chunk& chunk = *t.seg->chunk;
  const std::size_t pos = t.seg->chunk_offset + offset;
  const int node_rank = t.team->node_rank_of(unit);
  char* base = node_rank >= 0 && t.team->load_store() ? chunk.node_base[static_cast<std::size_t>(node_rank)] : nullptr;
  if (base) t.local = base + pos;
  if (unit == t.team->myid()) t.mine = chunk.my_base + pos;
  if (chunk.team_win.get() != MPI_WIN_NULL) {
    t.window = &chunk.team_win;
    t.win = t.window->get();
    t.rank = unit;
    t.disp = static_cast<MPI_Aint>(chunk.team_disp[static_cast<std::size_t>(unit)] + pos);
    return t;
  }
  // The team lives on one node: the shared window reaches every unit, and
  // node rank == team rank.
  t.window = &chunk.shm_win;
  t.win = t.window->get();
  t.rank = node_rank;
  t.disp = static_cast<MPI_Aint>(chunk.node_disp[static_cast<std::size_t>(node_rank)] + pos);
  return t;
}

}  // namespace dart

extern "C" dart_ret_t dart_gptr_direct(dart_gptr_t gptr, void** addr) {
  if (addr) *addr = nullptr;
  return dart::entry("dart_gptr_direct", [&] {
    dart::require(addr, "addr");
    const dart::Target t = dart::resolve(gptr);
    // The caller's own memory has an address with load/store off as well.
    *addr = t.local ? t.local : t.mine;
  });
}
