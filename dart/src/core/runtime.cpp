#include "core/runtime.hpp"

#include "coll/node_sync.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "ucx_close.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace dart {

namespace {
// A plain pointer, not a static unique_ptr: a process that exits without
// dart_exit (a unit calling exit(3) while the others wait in a barrier)
// must not run the runtime's destructor from exit's static destruction,
// where its collective frees would wait for units that never come and the
// launcher would never see the exit. The OS reclaims the memory; MPI's
// launcher sees a process that ended without finalizing and ends the job.
Runtime* g_owner = nullptr;
constexpr std::size_t kLocalAlign = 64;
}  // namespace

Runtime::Runtime(const Config& cfg, bool owns_mpi, bool thread_multiple, bool mpi_multiple)
    : cfg_(cfg), owns_mpi_(owns_mpi), thread_multiple_(thread_multiple), mpi_multiple_(mpi_multiple) {
  world_ = std::make_unique<Team>(DART_TEAM_ALL, mpi::Comm::dup(MPI_COMM_WORLD), cfg_);
  mpifix::note_job_spans_hosts(!world_->on_one_host(), read_mpi_defaults_flag());
  teams_.assign(kMaxTeams, nullptr);
  teams_[0] = world_.get();
  // DART_TEAM_ALL's collective engine now, while every unit is here: made
  // at a first collective instead, a unit that skipped that collective
  // would leave the others in MPI's window creation, where no timeout
  // can name it. Other teams make theirs at their first collective, which
  // keeps team creation as cheap as the communicator split.
  coll::node_sync(*world_);

  // dart_memalloc's pool: segment DART_SEGMENT_LOCAL of DART_TEAM_ALL,
  // exposed now so allocating from it never needs a collective.
  auto seg = std::make_unique<Segment>();
  seg->kind = SegmentKind::LocalPool;
  seg->id = DART_SEGMENT_LOCAL;
  seg->bytes = cfg_.local_pool_bytes;
  seg->own_chunk = world_->make_chunk(cfg_.local_pool_bytes);
  seg->chunk = seg->own_chunk.get();
  seg->my_base = seg->chunk->my_base;
  local_pool_ = std::make_unique<RangeAllocator>(cfg_.local_pool_bytes);
  world_->publish(std::move(seg));
  // The runtime's own word, at the same offset on every unit. It is zeroed
  // before the first collective that follows dart_init, and only used
  // after one.
  if (!local_allocate(kLocalAlign, &runtime_word_offset_))
    fail(DART_ERR_NOMEM, "DART_LOCAL_POOL_SIZE is too small for the runtime's own word");
  std::memset(world_->segments().find(DART_SEGMENT_LOCAL)->my_base + runtime_word_offset_, 0, kLocalAlign);
  // The extents' directory, also at the same offset everywhere.
  std::size_t directory_offset = 0;
  if (!local_allocate(Extents::kDirectoryBytes, &directory_offset))
    fail(DART_ERR_NOMEM, "DART_LOCAL_POOL_SIZE is too small for the runtime's own words");
  extents_ = std::make_unique<Extents>(*world_, directory_offset, cfg_.local_pool_bytes, cfg_.job_key);

  // The progress thread may start later, from a call that is collective
  // over some other team, and waits (dart_wait_until) poll on the same
  // communicator; it is made now, while all units are in dart_init.
  progress_comm_ = mpi::Comm::dup(MPI_COMM_WORLD);

    // Which MPI RMA may wait for its target (core/progress.hpp): under MPICH any;
    // under Open MPI the windows of teams that span nodes (or every team
    // with DART_SHARED_MEMORY=0). Registered memory starts it on demand.
#if defined(MPICH_VERSION)
  const bool rma_needs_target = true;
#else
  const bool rma_needs_target = !world_->single_node() || !cfg_.shared_memory;
#endif
  if (rma_needs_target) ensure_progress();
}

void Runtime::ensure_progress() {
  std::lock_guard<std::mutex> lock(progress_mutex_);
  if (progress_ || cfg_.progress_interval_us == 0) return;
  if (!mpi_multiple_) {
    if (!progress_warned_)
      log(LogLevel::Warn, "dart_init",
          "MPI runs without MPI_THREAD_MULTIPLE, so no progress thread: one-sided operations "
          "through MPI may wait until their target calls into MPI");
    progress_warned_ = true;
    return;
  }
  progress_ =
      std::make_unique<ProgressThread>(progress_comm_.get(), std::chrono::microseconds(cfg_.progress_interval_us));
}

Runtime::~Runtime() {
  progress_.reset();
  // Teams the program did not destroy: their windows and communicators are
  // freed collectively, so every unit frees them in the same order (by
  // descending id), which cannot deadlock.
  for (auto it = owned_teams_.rbegin(); it != owned_teams_.rend(); ++it) it->second.reset();
  owned_teams_.clear();
  // Every unit's exposed memory must stay valid until all units have
  // entered dart_exit; the barrier makes that explicit, and the collective
  // window frees that follow keep it so.
  reap_requests(true);
  MPI_Barrier(world_->comm());
  extents_.reset();
  world_.reset();
}

void Runtime::adopt_requests(std::vector<MPI_Request>& requests) {
  std::lock_guard<std::mutex> lock(orphans_mutex_);
  for (MPI_Request r : requests)
    if (r != MPI_REQUEST_NULL) orphans_.push_back(r);
  requests.clear();
  g_have_orphans.store(!orphans_.empty(), std::memory_order_release);
}

void Runtime::reap_requests(bool wait) {
  if (!have_orphans()) return;
  std::lock_guard<std::mutex> lock(orphans_mutex_);
  if (orphans_.empty()) return;
  const int n = static_cast<int>(orphans_.size());
  if (wait) {
    MPI_Waitall(n, orphans_.data(), MPI_STATUSES_IGNORE);
  } else {
    int flag = 0;
    MPI_Testall(n, orphans_.data(), &flag, MPI_STATUSES_IGNORE);
    if (!flag) return;
  }
  orphans_.clear();
  g_have_orphans.store(false, std::memory_order_release);
}

std::size_t Runtime::fixed_metadata_bytes() const noexcept {
  return sizeof(Runtime) + teams_.capacity() * sizeof(Team*) + (local_pool_ ? local_pool_->metadata_bytes() : 0);
}

std::vector<dart_team_t> Runtime::team_ids() const {
  std::vector<dart_team_t> ids;
  ids.reserve(owned_teams_.size());
  for (const auto& entry : owned_teams_) ids.push_back(entry.first);
  return ids;
}

void Runtime::add_team(std::unique_ptr<Team> team) {
  const auto id = static_cast<std::size_t>(team->id());
  teams_[id] = team.get();
  owned_teams_[team->id()] = std::move(team);
}

void Runtime::remove_team(dart_team_t id) {
  auto it = owned_teams_.find(id);
  if (it == owned_teams_.end()) return;
  teams_[static_cast<std::size_t>(id)] = nullptr;
  std::unique_ptr<Team> doomed = std::move(it->second);
  owned_teams_.erase(it);
  doomed.reset();  // collective: frees the team's windows and communicators
}

void Runtime::break_team(Team& team, const std::string& why) {
  team.mark_broken("team " + std::to_string(team.id()) + " is broken: " + why);
  for (const auto& entry : owned_teams_) {
    Team& t = *entry.second;
    const auto& up = t.ancestors();
    if (&t != &team && std::find(up.begin(), up.end(), team.serial()) != up.end())
      t.mark_broken("team " + std::to_string(t.id()) + " is broken: it was made from team " +
                    std::to_string(team.id()) + ", and " + why);
  }
}

Team& Runtime::team(dart_team_t id) const {
  Team* t = find_team(id);
  if (!t) invalid("unknown team " + std::to_string(id) + " (or the caller is not a member)");
  return *t;
}

bool Runtime::local_allocate(std::size_t bytes, std::size_t* offset) {
  std::lock_guard<std::mutex> lock(local_pool_mutex_);
  auto off = local_pool_->allocate(bytes, kLocalAlign);
  if (!off) return false;
  *offset = *off;
  return true;
}

bool Runtime::local_release(std::size_t offset) {
  std::lock_guard<std::mutex> lock(local_pool_mutex_);
  return local_pool_->release(offset);
}

std::atomic<Runtime*> g_runtime{nullptr};
std::atomic<bool> g_have_orphans{false};

Runtime& rt() {
  Runtime* r = runtime();
  if (!r) fail(DART_ERR_NOTINIT, "DART is not initialised");
  return *r;
}

void install_runtime(std::unique_ptr<Runtime> r) noexcept {
  delete g_owner;
  g_owner = r.release();
  g_have_orphans.store(false, std::memory_order_release);
  g_runtime.store(g_owner, std::memory_order_release);
}

std::unique_ptr<Runtime> uninstall_runtime() noexcept {
  g_runtime.store(nullptr, std::memory_order_release);
  std::unique_ptr<Runtime> r(g_owner);
  g_owner = nullptr;
  return r;
}

int log_rank() noexcept {
  if (Runtime* r = runtime()) return r->myid();
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  int rank = -1;
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

}  // namespace dart
