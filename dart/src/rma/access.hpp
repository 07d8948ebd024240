// Resolving a global pointer: the one place that decides how a target is
// reached. Every put, get, flush, accumulate and atomic calls resolve().
#pragma once

#include "memory/local_extents.hpp"
#include "team/team.hpp"

#include <dash/dart/if/dart_globmem.h>

#include <mpi.h>

#include <cstddef>

namespace dart {

struct Target {
  Team* team = nullptr;
  Segment* seg = nullptr;
  MPI_Win win = MPI_WIN_NULL;     // window that reaches the target by RMA
  mpi::Window* window = nullptr;  // the same, with its issued-operation flags
  int unit = -1;                  // the target's unit id in `team`
  int rank = -1;                  // the target's rank in `win`
  MPI_Aint disp = 0;              // byte displacement of gptr's offset in `win`
  char* local = nullptr;          // load/store address when the target shares memory with us
  char* mine = nullptr;           // the same when the target is the caller, with or without load/store
  std::size_t avail = 0;          // bytes from the offset to the end of the target's portion
  bool dynamic = false;           // reached through a dynamic window (extents of dart_memalloc)
};

// activity::Reach::Self when `t` is the caller: completing RMA there is
// not a sign that the caller drives its own progress (core/progress.cpp).
[[nodiscard]] inline activity::Reach reach(const Target& t) noexcept {
  return t.mine ? activity::Reach::Self : activity::Reach::Others;
}

// mpi::flush and mpi::flush_local of `t`'s rank and window, saying whether
// `t` is the caller.
inline void flush_target(const Target& t) { mpi::flush(t.rank, t.win, reach(t)); }
inline void flush_local_target(const Target& t) { mpi::flush_local(t.rank, t.win, reach(t)); }

// Validates `g` (team known and caller a member, unit in range, segment
// alive, offset inside the target's portion) and resolves it. Throws
// DART_ERR_INVAL with the reason otherwise.
Target resolve(const dart_gptr_t& g);

// The fast path of resolve(). The direct-access cache's slot of the
// mapped segment `g` names (team/team.hpp), with the slot's word in
// `word`, or nullptr, and then the caller takes resolve(), which explains
// any error. Fields read from the slot count only once still(*e, word).
[[nodiscard, gnu::always_inline]] inline const direct_cache::Entry* direct_entry(const dart_gptr_t& g,
                                                                                 std::uint64_t& word) noexcept {
  const std::uint64_t key = direct_cache::key(g.teamid, g.segid);
  const direct_cache::Entry& e = direct_cache::g_slots[direct_cache::slot(key)];
  word = e.word.load(std::memory_order_acquire);
  return (word & direct_cache::kKeyMask) == key ? &e : nullptr;
}

// The load/store address of `bytes` at `g` when the caller maps the
// target's memory and the access is certainly valid (a heap or pool
// segment, the target on the caller's node, the range inside its portion);
// nullptr otherwise. One cache line (the slot) and predictable branches;
// the caller confirms the slot with still().
[[nodiscard, gnu::always_inline]] inline char* direct_in(const direct_cache::Entry& e, const dart_gptr_t& g,
                                                         std::size_t bytes) noexcept {
  using direct_cache::racy;
  const Segment::Direct& d = e.d;
  const auto node_rank = static_cast<unsigned>(g.unitid - racy(d.first));
  const std::uint64_t offset = g.addr_or_offs.offset;
  const std::size_t seg_bytes = racy(d.bytes);
  if (node_rank >= static_cast<unsigned>(racy(d.units)) || offset > seg_bytes || bytes > seg_bytes - offset)
    return nullptr;
  return racy(d.base) + node_rank * racy(d.stride) + offset;
}

// The load/store address of `bytes` at `g` in an extent of dart_memalloc
// that the caller has mapped (ExtentTable), or nullptr. Out of line, and
// tried only when direct() failed: a branch for it inside direct() cost the
// pool's 8-byte put 1.4 ns.
[[nodiscard]] char* direct_extent(const dart_gptr_t& g, std::size_t bytes) noexcept;

[[nodiscard, gnu::always_inline]] inline char* direct(const dart_gptr_t& g, std::size_t bytes) noexcept {
  std::uint64_t word;
  const direct_cache::Entry* e = direct_entry(g, word);
  if (!e) return nullptr;
  char* p = direct_in(*e, g, bytes);
  return direct_cache::still(*e, word) ? p : nullptr;
}

// Whether `g` points into memory of dart_memalloc beyond the pool (an
// extent: memory/local_extents.hpp), which has its own window.
[[nodiscard]] inline bool names_extent(const dart_gptr_t& g) noexcept {
  return g.teamid == DART_TEAM_ALL && g.segid == DART_SEGMENT_LOCAL && Extents::names_extent(g.addr_or_offs.offset);
}

// The segment a collective free or a flag query names (offset and unit
// ignored). Throws DART_ERR_INVAL.
Segment& find_segment(const dart_gptr_t& g, Team** team_out = nullptr);

}  // namespace dart
