// dart_memalloc's memory beyond the pool: extents, made by one unit alone.
//
// The pool (segment DART_SEGMENT_LOCAL of DART_TEAM_ALL) is a collective
// window of DART_LOCAL_POOL_SIZE per unit, made in dart_init; it stays the
// fast path. When it has no room, the unit creates an extent on its own,
// without a collective:
//   - the memory is a POSIX shared-memory object (/dev/shm) of at least the
//     request and at least twice the previous extent, reserved with
//     posix_fallocate so a node that cannot back it gives DART_ERR_NOMEM
//     instead of SIGBUS on first touch;
//   - units of the same node map it by name the first time they touch it
//     and then reach it by load/store, as the pool;
//   - units elsewhere (and every unit with DART_SHARED_MEMORY=0, except
//     under Open MPI on one host: see host_maps_) reach it through one
//     dynamic window over DART_TEAM_ALL, created in dart_init only when
//     some unit needs it; the owner attaches each extent (a local
//     call) and never detaches it before dart_exit (Open MPI 4.1's osc/ucx
//     mishandles attach after detach and takes at most 31 regions, so
//     there are at most kMax extents, growing geometrically, each attached
//     below the ones before, the one order osc/ucx files correctly);
//   - the owner publishes each extent's address and size in a directory of
//     kMax entries at a fixed offset of its pool part, where a unit that
//     cannot map the extent reads it (by RMA).
// A global pointer into extent n (n >= 1) carries offset (n << kShift) +
// the byte within the extent; the pool's offsets are below 1 << kShift.
// Freed blocks return to their extent's allocator and are reused; extents
// live until dart_exit.
#pragma once

#include "core/mpi_handles.hpp"
#include "memory/range_allocator.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dart {

class Team;
struct Target;

// The load/store fast path into extents (rma/access.hpp): the base and
// size of extent n of every unit of the caller's node that the caller has
// mapped, by node rank, for lookups without a lock. An entry's base is
// stored (release) after its size and never changes until dart_exit.
struct ExtentTable {
  struct Entry {
    std::atomic<char*> base{nullptr};
    std::size_t size = 0;
  };
  int first = 0;                     // unit of node rank 0 (DART_TEAM_ALL)
  int units = 0;                     // node ranks
  std::unique_ptr<Entry[]> entries;  // [node rank * kMax + n - 1]
};
// Set while an Extents object lives whose units map each other's extents.
extern std::atomic<const ExtentTable*> g_extent_table __attribute__((visibility("hidden")));

class Extents {
 public:
  static constexpr int kShift = 40;
  static constexpr std::uint64_t kByteMask = (std::uint64_t(1) << kShift) - 1;
  static constexpr int kMax = 24;
  // Bytes of the directory in every unit's pool part.
  static constexpr std::size_t kDirectoryBytes = kMax * 2 * sizeof(std::uint64_t);

  [[nodiscard]] static bool names_extent(std::uint64_t offset) noexcept { return (offset >> kShift) != 0; }

  // Collective over `world`: agrees on the job's name prefix and creates
  // the dynamic window when some unit cannot map another's memory.
  // `directory_offset`: where the directory lies in every pool part;
  // `pool_bytes`: the pool's size (the first extent is at least that big).
  // `job_key`: Config::job_key (0: unit 0 draws one).
  Extents(Team& world, std::size_t directory_offset, std::size_t pool_bytes, std::uint64_t job_key);
  Extents(const Extents&) = delete;
  Extents& operator=(const Extents&) = delete;
  // Collective (the window); unmaps everything and removes the names.
  ~Extents();

  // A block of `bytes` in the caller's extents (a new extent when none
  // has room); returns its global-pointer offset. Throws DART_ERR_NOMEM.
  [[nodiscard]] std::uint64_t allocate(std::size_t bytes);
  // Returns a block; false when `offset` is not the start of a live one.
  [[nodiscard]] bool release(std::uint64_t offset);
  // The caller's own address of `offset`, or nullptr when it names no
  // extent of the caller (dart_gptr_getaddr).
  [[nodiscard]] char* own_address(std::uint64_t offset) const;
  // The offset of an address inside one of the caller's extents.
  [[nodiscard]] std::optional<std::uint64_t> own_offset(const char* addr) const;
  // Fills t.window/win/rank/disp/local/avail for team unit `unit` of
  // DART_TEAM_ALL at `offset` (t.seg and t.team are the pool's). Throws
  // DART_ERR_INVAL when the unit has no such extent.
  void resolve(int unit, std::uint64_t offset, Target& t);

  // Extents this unit created, and bytes in them.
  [[nodiscard]] int count() const;
  [[nodiscard]] std::size_t bytes() const;

 private:
  struct Own {
    char* base = nullptr;
    std::size_t size = 0;
    std::unique_ptr<RangeAllocator> ranges;
  };
  struct Mapped {
    char* base = nullptr;    // in this process; nullptr when not mapped
    std::uint64_t addr = 0;  // in the owner's process (dynamic-window displacement)
    std::size_t size = 0;
  };

  [[nodiscard]] std::string name(int unit, int n) const;
  // Enters a mapped extent into table_ (when `unit` is on this node).
  void publish(int unit, int n, char* base, std::size_t size) noexcept;
  void create(std::size_t at_least);
  // Extent n of unit `unit` as this unit reaches it (maps it on first use).
  Mapped peer(int unit, int n);
  // Address and size of extent n of `unit`, from its directory.
  std::pair<std::uint64_t, std::size_t> read_directory(int unit, int n);

  Team& world_;
  std::size_t directory_offset_;
  std::size_t pool_bytes_;
  bool load_store_;
  bool host_maps_;  // units that share a host map each other's extents
  // Whether this unit reaches `unit`'s extents by load/store.
  [[nodiscard]] bool maps(int unit) const;
  std::string prefix_;        // "/dart-<job key>-", the same on every unit
  mpi::Window win_;           // dynamic; null when every unit maps every other
  char* reserved_ = nullptr;  // address range of the caller's extents
  std::size_t reserved_size_ = 0;
  mutable std::mutex mutex_;
  std::vector<Own> own_;                   // index n-1
  std::map<std::uint64_t, Mapped> peers_;  // key: unit << 8 | n
  ExtentTable table_;
};

}  // namespace dart
