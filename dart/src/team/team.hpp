// Teams, their symmetric heaps and their segments.
//
// A Team owns a private duplicate of its MPI communicator, the node-local
// sub-communicator (units that share memory), the chunks of its symmetric
// heap and the table of its live segments. Every lookup a put, get or
// atomic needs (team -> segment -> chunk -> address or window) is an array
// index; nothing on that path allocates, hashes or locks.
#pragma once

#include "coll/node_sync.hpp"
#include "core/mpi_handles.hpp"
#include "core/per_unit.hpp"
#include "memory/range_allocator.hpp"

#include <dash/dart/if/dart_types.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace dart {

struct Config;

// One block of global memory: `bytes` on every unit of a team. A team on
// one node keeps it in one MPI shared-memory window, through which every
// unit also reaches every other unit by load/store. A team across nodes
// keeps it in one window allocated over the team (see make_chunk).
struct Chunk {
  std::size_t bytes = 0;           // per unit
  mpi::Window shm_win;             // teams on one node: over the node communicator
  mpi::Window team_win;            // teams across nodes: over the team communicator
  PerUnit<std::size_t> team_disp;  // per team unit: displacement of its aligned part in team_win
  char* my_base = nullptr;         // this unit's part
  std::vector<char*> node_base;    // aligned part of each unit of the node, by node rank
  // node_base[r] == node_base[0] + r * node_stride for every node rank r,
  // or 0 when the parts are not evenly spaced (or not all mapped). MPI
  // lays a shared window's parts out one after the other, and every unit
  // asks for the same size, so this holds in practice; the fast path then
  // computes a part's address instead of loading it from node_base.
  std::size_t node_stride = 0;
  // Displacement of node_base[r] within unit r's part of shm_win (the
  // alignment padding), for RMA through the shared window.
  std::vector<std::size_t> node_disp;
  RangeAllocator ranges;  // symmetric offsets of heap segments

  explicit Chunk(std::size_t n) : bytes(n), ranges(n) {}
  // Heap bytes of the bookkeeping beyond the object itself.
  [[nodiscard]] std::size_t metadata_bytes() const noexcept;
};

enum class SegmentKind { LocalPool, Heap, Registered };

struct Segment {
  // What the load/store fast path (direct() in rma/access.hpp) needs, copied
  // into the direct-access cache by Team::publish when the caller maps the
  // segment's memory of every unit of its node, those units are team units
  // first .. first+units-1 and their parts are evenly spaced
  // (Chunk::node_stride); `base` is null otherwise (registered memory,
  // DART_SHARED_MEMORY=0, zero bytes, a scattered node).
  struct Direct {
    char* base = nullptr;    // the segment in the part of node rank 0
    std::size_t stride = 0;  // from one node rank's part to the next
    std::size_t bytes = 0;   // every unit's portion
    int first = 0;           // team unit of node rank 0
    int units = 0;           // node ranks
    int team_size = 0;
    bool cpu_atomics = false;  // the team is on one node (rma/dart_communication_atomics.cpp)
    // The chunk's windows' "something issued through MPI" flags: a flush
    // with both clear owes only a fence.
    const std::atomic<bool>* issued[2] = {nullptr, nullptr};
  } direct;
  std::uint64_t direct_key = 0;  // its key in the cache, 0 when not cached
  SegmentKind kind = SegmentKind::Heap;
  int16_t id = 0;
  // Heap and local pool: the chunk holding the memory and the segment's
  // offset inside every unit's part of it.
  Chunk* chunk = nullptr;
  std::unique_ptr<Chunk> own_chunk;  // a chunk used by this segment alone
  std::size_t chunk_offset = 0;
  // Bytes of every unit's portion (heap: the largest request of the team,
  // reserved on every unit; local pool: the pool size).
  std::size_t bytes = 0;
  // Registered memory (see Team::kDynamicRegistration): the window the
  // buffers are reached through (own_win, or one of the team's dynamic
  // windows), and each unit's registered size and displacement (the
  // buffer's offset from its window base, or its address in a dynamic
  // window).
  mpi::Window* reg_win = nullptr;
  mpi::Window own_win;
  int reg_window = -1;  // index of reg_win among the team's dynamic windows
  PerUnit<std::size_t> unit_bytes;
  PerUnit<std::uint64_t> unit_disp;
  char* my_base = nullptr;  // start of the caller's portion
  std::atomic<uint16_t> flags{0};

  Segment() = default;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  // Leaves the direct-access cache if Team::unpublish did not (members are
  // destroyed after the body, so an own chunk's memory goes after this).
  ~Segment();

  // Bytes of `unit`'s portion.
  [[nodiscard]] std::size_t portion_bytes(int unit) const {
    return kind == SegmentKind::Registered ? unit_bytes[static_cast<std::size_t>(unit)] : bytes;
  }
  // Heap bytes of the segment's own bookkeeping (not its memory, not MPI's).
  [[nodiscard]] std::size_t metadata_bytes() const noexcept;
};

// The direct-access cache: mapped segments of every team, each with a
// copy of its Segment::Direct in a slot of one cache line, found from a
// global pointer's team and segment id. A put then costs one load of the
// slot before the store: the slot's address is computed from the pointer
// alone, the target's address from the slot (base + node rank * stride),
// so nothing but the slot can miss the cache (a large copy evicts the
// slot's neighbours, and each further dependent load was a miss then).
// Direct-mapped; a segment whose slot is taken is simply not cached and
// takes resolve().
//
// Threads of one unit read slots while others allocate and free, so a
// slot is a sequence lock: its word holds the key (0 bits: empty) and a
// generation that every change of the slot advances. A reader loads the
// word, reads the fields it needs (racy(): relaxed, so a concurrent change
// is no data race), and accepts them only if the word is unchanged after
// an acquire fence (still()). A slot whose segment is freed meanwhile then
// reads as a miss, never as a mix of two segments' fields. Writers hold a
// mutex. A segment leaves the cache (Team::unpublish) before its memory
// is released.
namespace direct_cache {
constexpr std::size_t kSlots = 1024;
constexpr std::uint64_t kKeyMask = (std::uint64_t(1) << 33) - 1;  // below: key; above: generation
constexpr std::uint64_t kGeneration = std::uint64_t(1) << 33;
struct alignas(64) Entry {
  std::atomic<std::uint64_t> word{0};  // generation | key(team, segid); key bits 0: empty
  Segment::Direct d;                   // written only with the key bits 0
};
static_assert(sizeof(Entry) == 64, "a slot is one cache line");
// Hidden: reached PC-relative, not through the GOT (one load less per put).
extern Entry g_slots[kSlots] __attribute__((visibility("hidden")));
[[nodiscard]] constexpr std::uint64_t key(int16_t team, int16_t segid) noexcept {
  return (std::uint64_t(1) << 32) | (std::uint64_t(static_cast<uint16_t>(team)) << 16) | static_cast<uint16_t>(segid);
}
[[nodiscard]] constexpr std::size_t slot(std::uint64_t key) noexcept {
  return ((key & 0xffff) ^ ((key >> 16) & 0xffff) * 61) & (kSlots - 1);
}
// A field of a slot, read while a writer may change it; valid only if
// still() confirms the word read before.
template <class T>
[[nodiscard, gnu::always_inline]] inline T racy(const T& field) noexcept {
  return __atomic_load_n(&field, __ATOMIC_RELAXED);
}
// Whether the slot still holds what `word` said when its fields were read.
[[nodiscard, gnu::always_inline]] inline bool still(const Entry& e, std::uint64_t word) noexcept {
  std::atomic_thread_fence(std::memory_order_acquire);
  return e.word.load(std::memory_order_relaxed) == word;
}
// Caches `seg` (direct.base set) under `key` when its slot is free; sets
// seg->direct_key then.
void insert(Segment* seg, std::uint64_t key) noexcept;
// Removes `seg` if it is cached and clears seg->direct_key.
void erase(Segment* seg) noexcept;
}  // namespace direct_cache

// Bytes this node can still back: memory (MemAvailable + SwapFree) or, as
// MPIs and extents place memory in /dev/shm, the room there; the smaller.
// UINT64_MAX when neither is known.
[[nodiscard]] std::uint64_t node_memory_available();

// Live segments of a team, indexed by segment id (int16_t). Two levels of
// 256 slots so an idle team costs 2 KiB; reads are lock-free so a put may
// run while another thread allocates on the same team.
class SegmentTable {
 public:
  SegmentTable() = default;
  SegmentTable(const SegmentTable&) = delete;
  SegmentTable& operator=(const SegmentTable&) = delete;
  ~SegmentTable();

  [[nodiscard]] Segment* find(int16_t id) const noexcept {
    const auto key = static_cast<uint16_t>(id);
    const Page* page = pages_[key >> 8].load(std::memory_order_acquire);
    return page ? page->slot[key & 0xff].load(std::memory_order_acquire) : nullptr;
  }
  // Publishes a fully built segment. The table owns it from here on.
  void insert(std::unique_ptr<Segment> seg);
  // Unpublishes and returns the segment with `id` (nullptr if none).
  std::unique_ptr<Segment> remove(int16_t id);
  // Ids of all live segments in ascending order of their 16-bit pattern
  // (the same order on every member).
  [[nodiscard]] std::vector<int16_t> ids() const;
  // Heap bytes of the table itself (its pages).
  [[nodiscard]] std::size_t metadata_bytes() const noexcept;

 private:
  struct Page {
    std::array<std::atomic<Segment*>, 256> slot{};
  };
  std::array<std::atomic<Page*>, 256> pages_{};
};

// Segment ids of one team: allocations take 1, 2, ..., registrations
// -1, -2, ...; freed ids are reused first (LIFO). All members issue the
// same collective calls in the same order, so they draw the same ids. A
// registration id returns to the pool only when every member has
// deregistered it (Team::reclaim_registrations), never at a local
// deregistration, so ids stay the same on every member whatever order the
// members deregister in.
class SegmentIds {
 public:
  // Next id of the kind, or 0 when the kind is exhausted.
  [[nodiscard]] int16_t take(bool registered);
  void give_back(int16_t id);

 private:
  int next_alloc_ = 1;
  int next_reg_ = -1;
  std::vector<int16_t> free_alloc_;
  std::vector<int16_t> free_reg_;
};

class Team {
 public:
  // Collective over `comm`, which the team takes over (the caller made it
  // for the team alone): splits off the node-local part and a duplicate
  // for two-sided messages.
  Team(dart_team_t id, mpi::Comm comm, const Config& cfg);
  // The runtime's configuration (also while the runtime is being built).
  [[nodiscard]] const Config& config() const noexcept { return cfg_; }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  // Collective: frees every segment and chunk in the same order everywhere.
  ~Team();

  [[nodiscard]] dart_team_t id() const noexcept { return id_; }
  // Distinguishes this team from earlier teams with the same id (ids are
  // reused after dart_team_destroy); unique within the process.
  [[nodiscard]] std::uint64_t serial() const noexcept { return serial_; }
  // Global unit ids of the members in team order (ascending).
  [[nodiscard]] std::vector<int> global_units() const { return members_.values(); }
  // Team unit id of global unit `g`, or -1 when it is not a member.
  [[nodiscard]] int team_unit_of(int global) const noexcept;
  [[nodiscard]] MPI_Comm comm() const noexcept { return comm_.get(); }
  [[nodiscard]] MPI_Comm node_comm() const noexcept { return node_comm_.get(); }
  // The communicator of dart_send/dart_recv/dart_sendrecv: the user's
  // messages live here alone, so no tag of theirs can match a message of
  // the runtime's (which uses comm() and communicators of its own). Only
  // DART_TEAM_ALL has one (MPI_COMM_NULL elsewhere): the calls name global
  // units.
  [[nodiscard]] MPI_Comm p2p_comm() const noexcept { return p2p_comm_.get(); }
  [[nodiscard]] int myid() const noexcept { return myid_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] bool single_node() const noexcept { return single_node_; }
  // Members on the caller's node (the caller included).
  [[nodiscard]] int node_size() const noexcept { return node_size_; }
  // Whether all units run on one host, whatever DART_SHARED_MEMORY says
  // (MPI libraries pick their window implementation by this).
  [[nodiscard]] bool on_one_host() const noexcept { return on_one_host_; }
  // Whether units of one node reach each other by load/store (the
  // DART_SHARED_MEMORY switch); when false even the caller's own memory is
  // accessed through MPI RMA, so that path can be tested on one node.
  [[nodiscard]] bool load_store() const noexcept { return load_store_; }
  // Node rank of team unit `unit`, or -1 when it is on another node.
  [[nodiscard]] int node_rank_of(int unit) const noexcept { return node_members_.index_of(unit); }

  // Global unit id (rank in DART_TEAM_ALL) of team unit `unit`.
  [[nodiscard]] int global_unit(int unit) const noexcept { return members_[unit]; }

  // Heap bytes of the runtime's bookkeeping for this team (not the memory
  // it holds, not MPI's): the team with its heap chunks and segment table,
  // and its live segments.
  struct Metadata {
    std::size_t team_bytes = 0;
    std::size_t segments = 0;
    std::size_t segment_bytes = 0;
    std::size_t retired = 0;  // registrations retired here, windows kept
  };
  [[nodiscard]] Metadata metadata() const;

  SegmentTable& segments() noexcept { return segments_; }
  [[nodiscard]] const SegmentTable& segments() const noexcept { return segments_; }
  // Makes a fully built segment reachable (its fast-path fields filled in)
  // and hands it to the segment table.
  void publish(std::unique_ptr<Segment> seg);
  // The reverse: takes segment `id` out of the direct-access cache, then
  // out of the segment table, and returns it (nullptr if none). Callers
  // release its memory only after this.
  std::unique_ptr<Segment> unpublish(int16_t id);
  SegmentIds& segment_ids() noexcept { return segment_ids_; }

  // Creates a chunk of `bytes` per unit. Collective over the team; fails
  // with DART_ERR_NOMEM on every unit when some node cannot back it.
  std::unique_ptr<Chunk> make_chunk(std::size_t bytes);

  // Reserves `bytes` (> 0, the same on every member) in the symmetric heap
  // and fills seg.chunk / chunk_offset / own_chunk. Collective only when the
  // heap has to grow, and then on every member at once because every member
  // runs the same deterministic allocator on the same input.
  void heap_allocate(Segment& seg, std::size_t bytes);
  // Returns a heap segment's range. Local; never communicates.
  void heap_release(Segment& seg);

  // ---- registered memory ----
  // Registration is collective; deregistration is local (DASH's containers
  // deregister buckets on one unit, in any order). Two ways to honour that,
  // one per MPI, because each MPI fails at the other:
  // - MPICH: dynamic windows, where attach and detach are local, created as
  //   needed and kept until the team ends. A window per registration does
  //   not work there: once a deregistered buffer's memory is reused for a
  //   new registration while the old window still exists, MPICH 4.0
  //   (ch4:ucx) reads the new window's data from stale memory.
  // - Open MPI: a window per registration (MPI_Win_create); a deregistered
  //   one is retired and freed collectively once every member has
  //   deregistered it (reclaim_registrations). Open MPI 4.1's osc/ucx
  //   dynamic windows cost 5-8 us per access instead of 0.4, take at most
  //   31 buffers, and corrupt their region table when buffers are attached
  //   out of address order after a detach.
#ifdef OPEN_MPI
  static constexpr bool kDynamicRegistration = false;
#else
  static constexpr bool kDynamicRegistration = true;
#endif
  static constexpr int kAttachMax = 1 << 20;  // buffers per dynamic window and unit
  // Number of dynamic windows (the same on every member).
  [[nodiscard]] int dynamic_windows() const noexcept { return static_cast<int>(dynamic_.size()); }
  // How full window `w` is for a buffer [addr, addr+bytes) of this member:
  // its number of attached buffers, or kAttachMax when the buffer would
  // overlap one (MPI forbids overlapping attachments).
  [[nodiscard]] int attach_load(int w, const char* addr, std::size_t bytes) const;
  // Collective: appends a new dynamic window.
  void add_dynamic_window();
  // Local: attaches/detaches a buffer (bytes > 0) to/from window `w`.
  mpi::Window& attach(int w, char* addr, std::size_t bytes);
  void detach(int w, char* addr);

  // A deregistered segment leaves the table at once, but its id (and its
  // own window, if it has one) stays until every member has deregistered
  // it: another member may still hold the segment, and a new registration
  // must not get its id.
  void retire(std::unique_ptr<Segment> seg);
  // Range of the retired registration ids of this member, as magnitudes
  // (-id, 1 .. 32768); {0, 0} when none.
  [[nodiscard]] std::pair<int, int> retired_range() const noexcept;
  // Collective over the team (every member calls it at the same point, with
  // the team-wide range [lo, hi] of retired magnitudes): frees the windows
  // of the registrations every member has retired and returns their ids to
  // the pool, in ascending order of magnitude. One MPI_Allreduce of
  // (hi-lo)/64+1 words.
  void reclaim_registrations(int lo, int hi);

  // ---- a team out of step ----
  // A team is broken once its members were found in different collectives
  // (or the team it was made from broke): from there on each member's
  // calls would meet the others' calls one off, so every later collective
  // on it fails at once instead (require_intact), the way MPI's
  // fault-tolerance proposal revokes a communicator. Its members learn it
  // in one meeting, so all of them break it at the same call.
  // Point-to-point and one-sided calls do not depend on it.
  void mark_broken(const std::string& why);
  [[nodiscard]] bool broken() const noexcept { return broken_.load(std::memory_order_acquire); }
  [[nodiscard]] std::string broken_reason() const;
  // Throws DART_ERR_OTHER with the reason if the team is broken.
  void require_intact() const;
  // Serials of the teams this one was made from, its parent first.
  [[nodiscard]] const std::vector<std::uint64_t>& ancestors() const noexcept { return ancestors_; }
  void set_parent(const Team& parent);

  // The shared-memory engine of the team's collectives (coll/node_sync.hpp),
  // made by coll::node_sync at the first collective that uses it.
  std::unique_ptr<coll::NodeSync, coll::NodeSyncDeleter>& node_sync_slot() noexcept { return node_sync_; }

 private:
  void require_backing(std::size_t bytes_per_unit);

  dart_team_t id_;
  std::uint64_t serial_;
  const Config& cfg_;
  mpi::Comm comm_;
  mpi::Comm node_comm_;
  mpi::Comm p2p_comm_;
  int myid_ = 0;
  int size_ = 0;
  int node_size_ = 0;
  int node_rank_ = 0;
  bool single_node_ = true;
  bool on_one_host_ = true;
  bool load_store_ = true;
  // Node rank -> team rank and team rank -> global unit. Both are kept as a
  // formula when they follow one (docs/metadata.md, "Metadata"), so a team costs
  // O(units on the node) plus O(1), not O(units in the team).
  RankMap node_members_;
  RankMap members_;
  std::vector<std::unique_ptr<Chunk>> heap_;
  SegmentTable segments_;
  SegmentIds segment_ids_;
  struct DynamicWindow {
    mpi::Window win;
    std::map<std::uintptr_t, std::uintptr_t> attached;  // this member's buffers: start -> end
  };
  std::vector<std::unique_ptr<DynamicWindow>> dynamic_;
  // Registrations deregistered here, possibly held elsewhere, by magnitude
  // of the id (-id); ordered, so every member walks them in one order.
  std::map<int, std::unique_ptr<Segment>> retired_;
  std::vector<std::uint64_t> ancestors_;
  // Another thread of the unit may run a collective on a team made from
  // this one while a meeting here breaks both: the reason is written once
  // under the mutex, before the flag.
  std::atomic<bool> broken_{false};
  mutable std::mutex broken_mutex_;
  std::string broken_reason_;
  // Last, so it goes first: its window is freed while every member is in
  // the collective destructor.
  std::unique_ptr<coll::NodeSync, coll::NodeSyncDeleter> node_sync_;
};

}  // namespace dart
