#include "runtime.hpp"

#include "error.hpp"

#include <string>

namespace dart {

namespace {
std::unique_ptr<Runtime> g_owner;
std::atomic<Runtime*> g_runtime{nullptr};
constexpr std::size_t kMaxTeams = 32768;  // team ids are non-negative int16_t
constexpr std::size_t kLocalAlign = 64;
}  // namespace

Runtime::Runtime(const Config& cfg, bool owns_mpi, bool thread_multiple)
    : cfg_(cfg), owns_mpi_(owns_mpi), thread_multiple_(thread_multiple) {
  world_ = std::make_unique<Team>(DART_TEAM_ALL, MPI_COMM_WORLD, cfg_);
  teams_.assign(kMaxTeams, nullptr);
  teams_[0] = world_.get();

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
  world_->segments().insert(std::move(seg));
}

Runtime::~Runtime() {
  // Every unit's exposed memory must stay valid until all units have
  // entered dart_exit; the barrier makes that explicit, and the collective
  // window frees that follow keep it so.
  reap_requests(true);
  MPI_Barrier(world_->comm());
  world_.reset();
}

void Runtime::adopt_requests(std::vector<MPI_Request>& requests) {
  std::lock_guard<std::mutex> lock(orphans_mutex_);
  for (MPI_Request r : requests)
    if (r != MPI_REQUEST_NULL) orphans_.push_back(r);
  requests.clear();
  have_orphans_.store(!orphans_.empty(), std::memory_order_release);
}

void Runtime::reap_requests(bool wait) {
  if (!have_orphans_.load(std::memory_order_acquire)) return;
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
  have_orphans_.store(false, std::memory_order_release);
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

Runtime* runtime() noexcept { return g_runtime.load(std::memory_order_acquire); }

Runtime& rt() {
  Runtime* r = runtime();
  if (!r) fail(DART_ERR_NOTINIT, "DART is not initialised");
  return *r;
}

void install_runtime(std::unique_ptr<Runtime> r) noexcept {
  g_owner = std::move(r);
  g_runtime.store(g_owner.get(), std::memory_order_release);
}

std::unique_ptr<Runtime> uninstall_runtime() noexcept {
  g_runtime.store(nullptr, std::memory_order_release);
  return std::move(g_owner);
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
