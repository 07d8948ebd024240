// The state of an initialised runtime and the lookups every call starts with.
#pragma once

#include "core/config.hpp"
#include "core/progress.hpp"
#include "memory/local_extents.hpp"
#include "team/team.hpp"

#include <dash/dart/if/dart_globmem.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dart {

class Runtime {
 public:
  // `thread_multiple`: the application asked for concurrent calls and MPI
  // grants them. `mpi_multiple`: MPI runs at MPI_THREAD_MULTIPLE (which
  // the progress thread needs).
  Runtime(const Config& cfg, bool owns_mpi, bool thread_multiple, bool mpi_multiple);
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  ~Runtime();

  [[nodiscard]] const Config& config() const noexcept { return cfg_; }
  [[nodiscard]] bool owns_mpi() const noexcept { return owns_mpi_; }
  [[nodiscard]] bool thread_multiple() const noexcept { return thread_multiple_; }
  [[nodiscard]] int myid() const noexcept { return world_->myid(); }
  [[nodiscard]] int size() const noexcept { return world_->size(); }
  Team& world() noexcept { return *world_; }
  [[nodiscard]] const Team& world() const noexcept { return *world_; }

  // The team with `id` of which the caller is a member, or nullptr.
  [[nodiscard]] Team* find_team(dart_team_t id) const noexcept {
    if (id < 0 || static_cast<std::size_t>(id) >= teams_.size()) return nullptr;
    return teams_[static_cast<std::size_t>(id)];
  }
  // As find_team, but throws DART_ERR_INVAL naming the id.
  Team& team(dart_team_t id) const;
  // Ids of 0 ... kMaxTeams-1; a bit per id is what creation agrees on.
  static constexpr std::size_t kMaxTeams = 32768;
  // Ids of the live teams the caller belongs to, DART_TEAM_ALL excluded.
  [[nodiscard]] std::vector<dart_team_t> team_ids() const;
  // Heap bytes of the runtime's tables of fixed size (dart_stats_metadata).
  [[nodiscard]] std::size_t fixed_metadata_bytes() const noexcept;
  // Makes `team` known under its id (the caller is a member).
  void add_team(std::unique_ptr<Team> team);
  // Destroys a team created by add_team. Collective over its members.
  void remove_team(dart_team_t id);
  // Breaks `team` (Team::mark_broken) for `why`, and every live team of
  // the caller made from it: their members are all members of `team`, so
  // all of them break those teams at the same point too.
  void break_team(Team& team, const std::string& why);

  // dart_memalloc's pool: allocation and release under one lock (the
  // functions are thread-safe), in the caller's part of segment 0.
  [[nodiscard]] bool local_allocate(std::size_t bytes, std::size_t* offset);
  [[nodiscard]] bool local_release(std::size_t offset);
  // dart_memalloc's memory beyond the pool.
  Extents& extents() noexcept { return *extents_; }

  // Offset in every unit's part of segment 0 of a 64-bit word the runtime
  // keeps for itself: the lock of emulated atomics (rma/dart_communication_atomics.cpp).
  [[nodiscard]] std::size_t runtime_word_offset() const noexcept { return runtime_word_offset_; }

  // Requests of handles released by dart_handle_free before they completed.
  // MPI cannot free RMA requests early (Open MPI 4.1 rejects it), so the
  // runtime keeps them and completes them in later flushes and at exit.
  void adopt_requests(std::vector<MPI_Request>& requests);
  void reap_requests(bool wait);

  // Starts the progress thread (core/progress.hpp) unless it runs already, is
  // switched off, or MPI lacks MPI_THREAD_MULTIPLE (then warns once).
  void ensure_progress();
  // A communicator nobody sends on, for ProgressPoller (core/progress.hpp).
  [[nodiscard]] MPI_Comm progress_comm() const noexcept { return progress_comm_.get(); }

 private:
  Config cfg_;
  bool owns_mpi_;
  bool thread_multiple_;
  bool mpi_multiple_;
  std::mutex progress_mutex_;
  mpi::Comm progress_comm_;  // made at init (collective); outlives progress_
  std::unique_ptr<ProgressThread> progress_;
  bool progress_warned_ = false;
  std::unique_ptr<Team> world_;
  // Indexed by team id; an entry is set only on members of that team.
  std::vector<Team*> teams_;
  std::map<dart_team_t, std::unique_ptr<Team>> owned_teams_;  // all but DART_TEAM_ALL
  std::mutex local_pool_mutex_;
  std::mutex orphans_mutex_;
  std::vector<MPI_Request> orphans_;
  std::unique_ptr<RangeAllocator> local_pool_;
  std::unique_ptr<Extents> extents_;
  std::size_t runtime_word_offset_ = 0;
};

// The runtime, or nullptr before dart_init / after dart_exit. Inline: every
// put and get asks first.
extern std::atomic<Runtime*> g_runtime __attribute__((visibility("hidden")));
inline Runtime* runtime() noexcept { return g_runtime.load(std::memory_order_acquire); }
// Whether the runtime holds requests of freed handles (Runtime::
// adopt_requests), which flushes must complete: a flag outside the runtime
// object so a flush's fast path reads it without loading g_runtime first.
extern std::atomic<bool> g_have_orphans __attribute__((visibility("hidden")));
[[nodiscard]] inline bool have_orphans() noexcept { return g_have_orphans.load(std::memory_order_acquire); }
// The runtime; throws DART_ERR_NOTINIT when DART is not initialised.
Runtime& rt();

// Set by dart_init/dart_exit.
void install_runtime(std::unique_ptr<Runtime> r) noexcept;
std::unique_ptr<Runtime> uninstall_runtime() noexcept;

// Global unit id of the caller for log lines; -1 when unknown.
int log_rank() noexcept;

}  // namespace dart
