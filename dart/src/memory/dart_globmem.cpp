// dart_globmem.h: global pointers, local and team allocations, registration,
// and the per-team pool allocator.
#include <dash/dart/ext/dart_globals.h>
#include <dash/dart/if/dart_globmem.h>

#include "coll/node_sync.hpp"
#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"
#include "rma/access.hpp"

#include <link.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

using namespace dart;

namespace {

bool is_null(const dart_gptr_t& g) { return DART_GPTR_ISNULL(g); }

dart_gptr_t make_gptr(dart_team_t team, int unit, int16_t segid, std::uint64_t offset) {
  dart_gptr_t g = DART_GPTR_NULL;
  g.teamid = team;
  g.unitid = unit;
  g.segid = segid;
  g.flags = 0;
  g.addr_or_offs.offset = offset;
  return g;
}

// Agreement step of a collective allocation: every member contributes its
// byte count, the segment id it drew and whether its own arguments were
// valid; all get the maximum byte count, whether the ids agree and whether
// anyone failed. One agreement (coll::agree); a member with bad arguments still takes
// part, so its peers never wait for it.
struct Agreement {
  std::int64_t max_bytes;
  bool ids_agree;
  bool anyone_failed;
};

Agreement agree(Team& team, std::int64_t bytes, int16_t segid, bool ok) {
  std::int64_t in[4] = {bytes, segid, -static_cast<std::int64_t>(segid), ok ? 0 : 1};
  std::int64_t out[4] = {0, 0, 0, 0};
  coll::agree(team, coll::Call::TeamMemalloc, coll::Combine::Max, in, out, 4);
  return {out[0], out[1] == -out[2], out[3] != 0};
}

// A collective allocation on `teamid`. `error` carries a problem the caller
// already found in its own arguments: like every local validation failure
// it travels with the agreement, so all members fail together instead of
// the others waiting for a member that returned early. Only an unknown team
// fails at once (there is nobody to agree with).
void team_alloc(dart_team_t teamid, std::size_t nelem, dart_datatype_t dtype, dart_gptr_t* gptr,
                std::string error = {}) {
  if (gptr) *gptr = DART_GPTR_NULL;
  Team& team = rt().team(teamid);

  std::size_t bytes = 0;
  try {
    if (!gptr) invalid("gptr is NULL");
    bytes = checked_bytes(nelem, basic_type_size(dtype));
    if (bytes > static_cast<std::size_t>(INT64_MAX)) invalid("allocation too large");
  } catch (const Error& e) {
    if (error.empty()) error = e.what();
  }
  const int16_t segid = error.empty() ? team.segment_ids().take(false) : int16_t{0};
  if (error.empty() && segid == 0) error = "team " + std::to_string(teamid) + " has no free segment id left";

  const Agreement a = agree(team, static_cast<std::int64_t>(bytes), segid, error.empty());
  if (!error.empty() || a.anyone_failed || !a.ids_agree) {
    if (segid != 0) team.segment_ids().give_back(segid);
    if (!error.empty()) invalid(error);
    if (a.anyone_failed) invalid("another member of team " + std::to_string(teamid) + " passed invalid arguments");
    fail(DART_ERR_OTHER, "members of team " + std::to_string(teamid) +
                             " disagree on the segment id: collective calls were issued in different orders");
  }

  auto seg = std::make_unique<Segment>();
  seg->kind = SegmentKind::Heap;
  seg->id = segid;
  seg->bytes = static_cast<std::size_t>(a.max_bytes);
  try {
    if (seg->bytes > 0) team.heap_allocate(*seg, seg->bytes);
  } catch (...) {
    team.segment_ids().give_back(segid);
    throw;
  }
  seg->my_base = seg->chunk ? seg->chunk->my_base + seg->chunk_offset : nullptr;
  team.publish(std::move(seg));
  *gptr = make_gptr(teamid, 0, segid, 0);
}

// A collective free. Every member checks its pointer and all agree before
// anything is freed: if any member's pointer is bad, or the members name
// different segments, the call fails on every member and the segment stays
// allocated everywhere, so the team's segments and ids stay in step. A
// NULL pointer is a local no-op; an unknown team fails at once (there is
// nobody to agree with).
void team_free(dart_gptr_t gptr) {
  if (is_null(gptr)) return;
  Team& team = rt().team(gptr.teamid);
  std::string error;
  try {
    const Segment& seg = find_segment(gptr);
    if (seg.kind != SegmentKind::Heap)
      invalid("segment " + std::to_string(gptr.segid) + " was not made by dart_team_memalloc_aligned" +
              (seg.kind == SegmentKind::Registered ? " (use dart_team_memderegister)" : ""));
  } catch (const Error& e) {
    error = e.what();
  }
  const std::int64_t mine[3] = {error.empty() ? 0 : 1, gptr.segid, -std::int64_t{gptr.segid}};
  std::int64_t agreed[3] = {0, 0, 0};
  coll::agree(team, coll::Call::TeamMemfree, coll::Combine::Max, mine, agreed, 3);
  if (!error.empty()) invalid(error);
  if (agreed[0] != 0)
    invalid("another member of team " + std::to_string(gptr.teamid) + " passed an invalid pointer; segment " +
            std::to_string(gptr.segid) + " stays allocated on every member");
  if (agreed[1] != -agreed[2])
    invalid("members of team " + std::to_string(gptr.teamid) +
            " name different segments; nothing was freed (collective calls in different orders?)");
  // Out of the direct-access cache first: another thread of this unit must
  // not reach the range through a slot once the range can be reused.
  std::unique_ptr<Segment> owned = team.unpublish(gptr.segid);
  team.heap_release(*owned);
  team.segment_ids().give_back(gptr.segid);
}

constexpr std::size_t kRegisterAlign = 64;

// Registration (dart_team_memregister[_aligned]).
//
// The contract, as DASH's dynamic containers use it: every member of the
// team calls it, in the same order as its other collective calls, each
// with a size of its own (zero, with any address, is fine). Every member
// gets the same global pointer (unit 0, offset 0, one segment id) and
// reaches every member's buffer through it, bounded by that member's size.
// dart_team_memderegister is local: it ends the caller's use of the
// segment and detaches the caller's buffer (which it may free at once);
// other members keep the segment until they deregister it themselves, in
// whatever order. Accessing a member's buffer after that member has
// deregistered it is an error of the program (MPI reports it, or it reads
// or writes whatever now lives at that address on the owner).
//
// How deregistration stays local on each MPI: Team::kDynamicRegistration.
void team_register(dart_team_t teamid, std::size_t nelem, dart_datatype_t dtype, void* addr, dart_gptr_t* gptr) {
  if (gptr) *gptr = DART_GPTR_NULL;
  Team& team = rt().team(teamid);

  // As in team_alloc, local validation failures travel with the agreement.
  std::string error;
  std::size_t bytes = 0;
  try {
    if (!gptr) invalid("gptr is NULL");
    bytes = checked_bytes(nelem, basic_type_size(dtype));
    if (bytes > 0 && !addr) invalid("addr is NULL but " + std::to_string(nelem) + " elements are registered");
    if (bytes > static_cast<std::size_t>(INT64_MAX)) invalid("registration too large");
  } catch (const Error& e) {
    error = e.what();
  }
  char* base = bytes > 0 ? static_cast<char*>(addr) : nullptr;
  int16_t segid = error.empty() ? team.segment_ids().take(true) : int16_t{0};
  // Every member runs out of ids at the same registration (ids are drawn
  // and returned collectively): then the reclaim below may free some.
  const bool exhausted = error.empty() && segid == 0;

  // Agreement in one reduction (MAX over values and their negations gives
  // maximum and minimum at once): any failure, the same segment id
  // everywhere, the range of ids retired by local deregistrations, and how
  // full each dynamic window is on its fullest member.
  const auto [rlo, rhi] = team.retired_range();
  const int windows = team.dynamic_windows();
  std::vector<std::int64_t> mine{error.empty() ? 0 : 1, segid, -std::int64_t{segid}, rhi,
                                 rlo > 0 ? -std::int64_t{rlo} : -std::int64_t{INT32_MAX}};
  for (int w = 0; w < windows; ++w) mine.push_back(team.attach_load(w, base, bytes));
  std::vector<std::int64_t> agreed(mine.size());
  coll::agree(team, coll::Call::TeamMemregister, coll::Combine::Max, mine.data(), agreed.data(),
              static_cast<int>(mine.size()));
  // Ids every member has deregistered return here, the next point at which
  // all members meet, whatever else this call decides.
  if (agreed[3] > 0) team.reclaim_registrations(static_cast<int>(-agreed[4]), static_cast<int>(agreed[3]));
  if (exhausted) segid = team.segment_ids().take(true);
  if (error.empty() && segid == 0)
    error = "team " + std::to_string(teamid) + " has 32768 registrations that some unit has not deregistered";
  const bool anyone_failed = agreed[0] != 0;
  const bool ids_agree = exhausted || agreed[1] == -agreed[2];
  if (!error.empty() || anyone_failed || !ids_agree) {
    if (segid != 0) team.segment_ids().give_back(segid);
    if (!error.empty()) invalid(error);
    if (anyone_failed) invalid("another member of team " + std::to_string(teamid) + " passed invalid arguments");
    fail(DART_ERR_OTHER, "members of team " + std::to_string(teamid) +
                             " disagree on the segment id: collective calls were issued in different orders");
  }

  // Accesses to registered memory may need the target to call MPI (Open
  // MPI's osc/ucx for windows over user memory, MPICH always), so
  // registered memory needs the progress thread.
  rt().ensure_progress();
  std::string attach_error;
  mpi::Window* win = nullptr;
  mpi::Window own;
  int w = -1;
  std::uint64_t disp = 0;
  if (Team::kDynamicRegistration) {
    // The first dynamic window with room for every member's buffer, or a
    // new one; a displacement is the buffer's address.
    w = 0;
    while (w < windows && agreed[5 + static_cast<std::size_t>(w)] >= Team::kAttachMax) ++w;
    try {
      if (w == windows) team.add_dynamic_window();
      win = &team.attach(w, base, bytes);
    } catch (const Error& e) {
      attach_error = e.what();
    }
    MPI_Aint where = 0;
    if (base) MPI_Get_address(base, &where);
    disp = static_cast<std::uint64_t>(where);
  } else {
    // A window of its own, starting at the buffer rounded down to
    // kRegisterAlign (a user may well register &a[1]); the displacement is
    // the buffer's shift from that base.
    disp = base ? reinterpret_cast<std::uintptr_t>(base) % kRegisterAlign : 0;
    try {
      own = mpi::Window::create(base ? base - disp : nullptr, static_cast<MPI_Aint>(bytes > 0 ? bytes + disp : 0),
                                team.comm());
    } catch (const Error& e) {
      attach_error = e.what();
    }
  }
  // Every member needs every member's size and displacement, and whether
  // its window or attach succeeded: one allgather.
  const std::size_t n = static_cast<std::size_t>(team.size());
  const std::int64_t triple[3] = {static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(disp),
                                  attach_error.empty() ? 0 : 1};
  std::vector<std::int64_t> all(3 * n);
  activity::InMpi in_mpi;
  const int rc = MPI_Allgather(triple, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, team.comm());
  bool attached_everywhere = rc == MPI_SUCCESS;
  for (std::size_t u = 0; attached_everywhere && u < n; ++u) attached_everywhere = all[3 * u + 2] == 0;
  if (!attached_everywhere) {
    if (win && base) team.detach(w, base);
    team.segment_ids().give_back(segid);
    mpi_check(rc, "MPI_Allgather");
    if (!attach_error.empty()) throw Error(DART_ERR_OTHER, attach_error);
    fail(DART_ERR_OTHER, "another member of team " + std::to_string(teamid) + " could not attach its buffer");
  }
  std::vector<std::size_t> sizes(n);
  std::vector<std::uint64_t> disps(n);
  for (std::size_t u = 0; u < n; ++u) {
    sizes[u] = static_cast<std::size_t>(all[3 * u]);
    disps[u] = static_cast<std::uint64_t>(all[3 * u + 1]);
  }
  auto seg = std::make_unique<Segment>();
  seg->kind = SegmentKind::Registered;
  seg->id = segid;
  seg->my_base = base;
  seg->own_win = std::move(own);
  seg->reg_win = win ? win : &seg->own_win;
  seg->reg_window = w;
  seg->unit_bytes = PerUnit<std::size_t>(std::move(sizes));
  seg->unit_disp = PerUnit<std::uint64_t>(std::move(disps));
  team.publish(std::move(seg));
  *gptr = make_gptr(teamid, 0, segid, 0);
}

}  // namespace

// ---- allocator --------------------------------------------------------------

struct dart_allocator_struct {
  dart_team_t team;
  dart_gptr_t pool;  // the team segment that backs the pool
  std::mutex mutex;
  RangeAllocator ranges;
  dart_allocator_struct(dart_team_t t, dart_gptr_t p, std::size_t bytes) : team(t), pool(p), ranges(bytes) {}
};

namespace {
constexpr std::size_t kAllocatorAlign = 16;

std::size_t next_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p < n) {
    if (p > (SIZE_MAX >> 1)) invalid("pool size " + std::to_string(n) + " cannot be rounded up to a power of two");
    p <<= 1;
  }
  return p;
}
}  // namespace

extern "C" {

dart_ret_t dart_gptr_getaddr(const dart_gptr_t gptr, void** addr) {
  return entry("dart_gptr_getaddr", [&] {
    require(addr, "addr");
    Team* team = nullptr;
    Segment& seg = find_segment(gptr, &team);
    if (gptr.unitid == team->myid() && seg.kind == SegmentKind::LocalPool &&
        Extents::names_extent(gptr.addr_or_offs.offset))
      *addr = rt().extents().own_address(gptr.addr_or_offs.offset);
    else if (gptr.unitid == team->myid() && seg.my_base) *addr = seg.my_base + gptr.addr_or_offs.offset;
    else *addr = nullptr;  // another unit's memory is never handed out
  });
}

dart_ret_t dart_gptr_setaddr(dart_gptr_t* gptr, void* addr) {
  return entry("dart_gptr_setaddr", [&] {
    require(gptr, "gptr");
    Team* team = nullptr;
    Segment& seg = find_segment(*gptr, &team);
    const char* base = seg.my_base;
    const char* a = static_cast<const char*>(addr);
    const std::size_t portion = seg.portion_bytes(team->myid());
    if (seg.kind == SegmentKind::LocalPool && (!base || a < base || a > base + portion)) {
      if (auto off = rt().extents().own_offset(a)) {
        gptr->addr_or_offs.offset = *off;
        return;
      }
    }
    if (!base || a < base || a > base + portion)
      invalid("address " + std::to_string(reinterpret_cast<std::uintptr_t>(addr)) +
              " is not inside the caller's portion of segment " + std::to_string(gptr->segid));
    gptr->addr_or_offs.offset = static_cast<std::uint64_t>(a - base);
  });
}

dart_ret_t dart_gptr_getflags(dart_gptr_t gptr, uint16_t* flags) {
  return entry("dart_gptr_getflags", [&] {
    require(flags, "flags");
    *flags = 0;
    *flags = find_segment(gptr).flags.load(std::memory_order_relaxed);
  });
}

dart_ret_t dart_gptr_setflags(dart_gptr_t* gptr, uint16_t flags) {
  return entry("dart_gptr_setflags", [&] {
    require(gptr, "gptr");
    find_segment(*gptr).flags.store(flags, std::memory_order_relaxed);
    gptr->flags = flags & 0xffu;
  });
}

dart_ret_t dart_memalloc(size_t nelem, dart_datatype_t dtype, dart_gptr_t* gptr) {
  return entry("dart_memalloc", [&] {
    require(gptr, "gptr");
    *gptr = DART_GPTR_NULL;
    Runtime& r = rt();
    const std::size_t bytes = checked_bytes(nelem, basic_type_size(dtype));
    std::size_t offset = 0;
    // A zero-byte request still yields a distinct, freeable pointer. The
    // pool first (the fast path), then the extents beyond it.
    std::uint64_t at = 0;
    if (r.local_allocate(bytes > 0 ? bytes : 1, &offset)) at = offset;
    else at = r.extents().allocate(bytes > 0 ? bytes : 1);
    *gptr = make_gptr(DART_TEAM_ALL, r.myid(), DART_SEGMENT_LOCAL, at);
  });
}

dart_ret_t dart_memfree(dart_gptr_t gptr) {
  return entry("dart_memfree", [&] {
    if (is_null(gptr)) return;
    Runtime& r = rt();
    if (gptr.teamid != DART_TEAM_ALL || gptr.segid != DART_SEGMENT_LOCAL)
      invalid("pointer (team " + std::to_string(gptr.teamid) + ", segment " + std::to_string(gptr.segid) +
              ") was not made by dart_memalloc");
    if (gptr.unitid != r.myid())
      invalid("unit " + std::to_string(gptr.unitid) + " owns this block; only the owner may free it");
    const std::uint64_t offset = gptr.addr_or_offs.offset;
    if (!(Extents::names_extent(offset) ? r.extents().release(offset) : r.local_release(offset)))
      invalid("offset " + std::to_string(gptr.addr_or_offs.offset) +
              " is not the start of a live block (double free, or never allocated)");
  });
}

dart_ret_t dart_team_memalloc_aligned(dart_team_t teamid, size_t nelem, dart_datatype_t dtype, dart_gptr_t* gptr) {
  return entry("dart_team_memalloc_aligned", [&] { team_alloc(teamid, nelem, dtype, gptr); });
}

dart_ret_t dart_team_memfree(dart_gptr_t gptr) {
  return entry("dart_team_memfree", [&] { team_free(gptr); });
}

dart_ret_t dart_team_memregister_aligned(dart_team_t teamid, size_t nelem, dart_datatype_t dtype, void* addr,
                                         dart_gptr_t* gptr) {
  return entry("dart_team_memregister_aligned", [&] { team_register(teamid, nelem, dtype, addr, gptr); });
}

dart_ret_t dart_team_memregister(dart_team_t teamid, size_t nlelem, dart_datatype_t dtype, void* addr,
                                 dart_gptr_t* gptr) {
  return entry("dart_team_memregister", [&] { team_register(teamid, nlelem, dtype, addr, gptr); });
}

namespace {

// The executable's global and static variables: its writable PT_LOAD
// segment (.data and .bss) without the part the dynamic linker makes
// read-only after relocation (PT_GNU_RELRO: the GOT and relocated
// constants). The main program is the first object dl_iterate_phdr
// reports.
struct Globals {
  char* base = nullptr;
  std::size_t bytes = 0;
};

Globals find_globals() {
  Globals g;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* out = static_cast<Globals*>(data);
        std::uintptr_t lo = 0, hi = 0, relro_end = 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && ph.p_memsz > 0 && hi == 0) {
            lo = start;
            hi = start + ph.p_memsz;
          } else if (ph.p_type == PT_GNU_RELRO) {
            relro_end = start + ph.p_memsz;
          }
        }
        if (relro_end > lo && relro_end <= hi) lo = relro_end;
        if (hi > lo) {
          out->base = reinterpret_cast<char*>(lo);
          out->bytes = hi - lo;
        }
        return 1;  // the main program only
      },
      &g);
  return g;
}

void register_globals(dart_team_t teamid, dart_gptr_t* gptr) {
  if (gptr) *gptr = DART_GPTR_NULL;
  Team& team = rt().team(teamid);
  const Globals g = find_globals();
  // An empty range still takes part in the collective registration; the
  // agreement on the size below then fails it everywhere.
  team_register(teamid, g.bytes, DART_TYPE_BYTE, g.base, gptr);
  const std::int64_t mine[2] = {static_cast<std::int64_t>(g.bytes), -static_cast<std::int64_t>(g.bytes)};
  std::int64_t agreed[2] = {0, 0};
  coll::agree(team, coll::Call::RegisterGlobals, coll::Combine::Max, mine, agreed, 2);
  if (agreed[0] != -agreed[1] || g.bytes == 0) {
    const dart_gptr_t seg = *gptr;
    *gptr = DART_GPTR_NULL;
    (void)dart_team_memderegister(seg);
    invalid(g.bytes == 0
                ? "the program has no writable global variables to register"
                : "the units run different executables (their global variables take " + std::to_string(-agreed[1]) +
                      " to " + std::to_string(agreed[0]) + " bytes): globals are only symmetric in one executable");
  }
}

}  // namespace

dart_ret_t dart_team_memregister_globals(dart_team_t teamid, dart_gptr_t* gptr) {
  return entry("dart_team_memregister_globals", [&] { register_globals(teamid, gptr); });
}

dart_ret_t dart_globals_range(void** begin, size_t* bytes) {
  return entry("dart_globals_range", [&] {
    require(begin, "begin");
    require(bytes, "bytes");
    const Globals g = find_globals();
    *begin = g.base;
    *bytes = g.bytes;
  });
}

dart_ret_t dart_team_memderegister(dart_gptr_t gptr) {
  return entry("dart_team_memderegister", [&] {
    if (is_null(gptr)) return;
    Team* team = nullptr;
    Segment& seg = find_segment(gptr, &team);
    if (seg.kind != SegmentKind::Registered)
      invalid("segment " + std::to_string(gptr.segid) + " is not a registration");
    // Local: the caller's buffer leaves its dynamic window at once; the id
    // (and a window of its own) stays until every member has deregistered
    // it (Team::retire).
    std::unique_ptr<Segment> owned = team->unpublish(gptr.segid);
    if (owned->reg_window >= 0 && owned->my_base) team->detach(owned->reg_window, owned->my_base);
    team->retire(std::move(owned));
  });
}

dart_ret_t dart_allocator_new(size_t pool_size, dart_team_t team, dart_allocator_t* new_allocator) {
  return entry("dart_allocator_new", [&] {
    if (new_allocator) *new_allocator = nullptr;
    // Argument errors join the collective allocation's agreement (see
    // team_alloc) so one member's mistake cannot strand the others.
    std::string error;
    std::size_t bytes = 0;
    try {
      require(new_allocator, "new_allocator");
      if (pool_size == 0) invalid("pool size 0");
      bytes = next_pow2(pool_size);
    } catch (const Error& e) {
      error = e.what();
    }
    dart_gptr_t pool = DART_GPTR_NULL;
    team_alloc(team, bytes, DART_TYPE_BYTE, &pool, error);
    try {
      *new_allocator = new dart_allocator_struct(team, pool, bytes);
    } catch (...) {
      team_free(pool);
      throw;
    }
  });
}

dart_ret_t dart_allocator_alloc(size_t nelem, dart_datatype_t dtype, dart_gptr_t* gptr, dart_allocator_t allocator) {
  return entry("dart_allocator_alloc", [&] {
    require(gptr, "gptr");
    *gptr = DART_GPTR_NULL;
    require(allocator, "allocator");
    Team& team = rt().team(allocator->team);
    const std::size_t bytes = checked_bytes(nelem, basic_type_size(dtype));
    std::optional<std::size_t> off;
    {
      std::lock_guard<std::mutex> lock(allocator->mutex);
      off = allocator->ranges.allocate(bytes > 0 ? bytes : 1, kAllocatorAlign);
    }
    if (!off)
      fail(DART_ERR_NOMEM, "allocator pool of " + std::to_string(allocator->ranges.capacity()) +
                               " bytes has no free block of " + std::to_string(bytes) + " bytes");
    *gptr = make_gptr(allocator->team, team.myid(), allocator->pool.segid, *off);
  });
}

dart_ret_t dart_allocator_free(dart_gptr_t* gptr, dart_allocator_t allocator) {
  return entry("dart_allocator_free", [&] {
    require(gptr, "gptr");
    require(allocator, "allocator");
    Team& team = rt().team(allocator->team);
    if (gptr->teamid != allocator->team || gptr->segid != allocator->pool.segid)
      invalid("pointer (team " + std::to_string(gptr->teamid) + ", segment " + std::to_string(gptr->segid) +
              ") does not belong to this allocator");
    if (gptr->unitid != team.myid())
      invalid("unit " + std::to_string(gptr->unitid) + " allocated this block; only it may free it");
    bool released = false;
    {
      std::lock_guard<std::mutex> lock(allocator->mutex);
      released = allocator->ranges.release(gptr->addr_or_offs.offset);
    }
    if (!released)
      invalid("offset " + std::to_string(gptr->addr_or_offs.offset) +
              " is not the start of a live block (double free, or never allocated)");
    *gptr = DART_GPTR_NULL;
  });
}

dart_ret_t dart_allocator_destroy(dart_allocator_t* allocator) {
  return entry("dart_allocator_destroy", [&] {
    require(allocator, "allocator");
    if (!*allocator) return;
    std::unique_ptr<dart_allocator_struct> owned(*allocator);
    *allocator = nullptr;
    team_free(owned->pool);
  });
}

}  // extern "C"
