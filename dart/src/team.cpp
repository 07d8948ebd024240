#include "team.hpp"

#include "config.hpp"
#include "error.hpp"

#include <dash/dart/if/dart_team_group.h>

#include <algorithm>
#include <cstdint>

namespace dart {

namespace {
constexpr std::size_t kPage = 4096;
// Every segment starts on a cache line: enough for every basic type and for
// vector loads, and it keeps two segments from sharing a line.
constexpr std::size_t kSegmentAlign = 64;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
}  // namespace

SegmentTable::~SegmentTable() {
  for (auto& p : pages_) {
    Page* page = p.load(std::memory_order_relaxed);
    if (!page) continue;
    for (auto& s : page->slot) delete s.load(std::memory_order_relaxed);
    delete page;
  }
}

void SegmentTable::insert(std::unique_ptr<Segment> seg) {
  const auto key = static_cast<uint16_t>(seg->id);
  auto& page_slot = pages_[key >> 8];
  Page* page = page_slot.load(std::memory_order_acquire);
  if (!page) {
    page = new Page();
    page_slot.store(page, std::memory_order_release);
  }
  page->slot[key & 0xff].store(seg.release(), std::memory_order_release);
}

std::unique_ptr<Segment> SegmentTable::remove(int16_t id) {
  const auto key = static_cast<uint16_t>(id);
  Page* page = pages_[key >> 8].load(std::memory_order_acquire);
  if (!page) return nullptr;
  return std::unique_ptr<Segment>(page->slot[key & 0xff].exchange(nullptr, std::memory_order_acq_rel));
}

std::vector<int16_t> SegmentTable::ids() const {
  std::vector<int16_t> out;
  for (unsigned p = 0; p < pages_.size(); ++p) {
    const Page* page = pages_[p].load(std::memory_order_acquire);
    if (!page) continue;
    for (unsigned s = 0; s < page->slot.size(); ++s)
      if (page->slot[s].load(std::memory_order_acquire))
        out.push_back(static_cast<int16_t>(static_cast<uint16_t>((p << 8) | s)));
  }
  return out;
}

int16_t SegmentIds::take(bool registered) {
  auto& pool = registered ? free_reg_ : free_alloc_;
  if (!pool.empty()) {
    const int16_t id = pool.back();
    pool.pop_back();
    return id;
  }
  if (registered) {
    if (next_reg_ < INT16_MIN) return 0;
    return static_cast<int16_t>(next_reg_--);
  }
  if (next_alloc_ > INT16_MAX) return 0;
  return static_cast<int16_t>(next_alloc_++);
}

void SegmentIds::give_back(int16_t id) {
  if (id > 0) free_alloc_.push_back(id);
  else if (id < 0) free_reg_.push_back(id);
}

namespace {
std::atomic<std::uint64_t> g_team_serial{0};
}  // namespace

Team::Team(dart_team_t id, mpi::Comm own, const Config& cfg)
    : id_(id), serial_(++g_team_serial), cfg_(cfg), comm_(std::move(own)),
      // Two-sided messages name global units, so only DART_TEAM_ALL carries them.
      p2p_comm_(id == DART_TEAM_ALL ? mpi::Comm::dup(comm_.get()) : mpi::Comm()),
      load_store_(cfg.shared_memory) {
  mpi_check(MPI_Comm_set_errhandler(comm_.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_rank(comm(), &myid_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm(), &size_), "MPI_Comm_size");

  // The node communicator orders its units by team rank (key = myid), so
  // on a team that lives on one node, node rank == team rank.
  MPI_Comm node = MPI_COMM_NULL;
  if (cfg.shared_memory) {
    mpi_check(MPI_Comm_split_type(comm(), MPI_COMM_TYPE_SHARED, myid_, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
  } else {
    mpi_check(MPI_Comm_split(comm(), myid_, 0, &node), "MPI_Comm_split");
  }
  node_comm_ = mpi::Comm(node);
  mpi_check(MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_size(node, &node_size_), "MPI_Comm_size");
  mpi_check(MPI_Comm_rank(node, &node_rank_), "MPI_Comm_rank");
  single_node_ = node_size_ == size_;
  on_one_host_ = single_node_;
  if (!cfg.shared_memory) {
    MPI_Comm host = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split_type(comm(), MPI_COMM_TYPE_SHARED, myid_, MPI_INFO_NULL, &host),
              "MPI_Comm_split_type");
    int host_size = 0;
    const int rc = MPI_Comm_size(host, &host_size);
    MPI_Comm_free(&host);
    mpi_check(rc, "MPI_Comm_size");
    on_one_host_ = host_size == size_;
  }

  // Team rank -> node rank: translate the node group into the team group.
  node_rank_of_.assign(static_cast<std::size_t>(size_), -1);
  // Team rank -> global unit likewise, with the group of MPI_COMM_WORLD.
  MPI_Group team_group = MPI_GROUP_NULL;
  MPI_Group node_group = MPI_GROUP_NULL;
  MPI_Group world_group = MPI_GROUP_NULL;
  mpi_check(MPI_Comm_group(comm(), &team_group), "MPI_Comm_group");
  mpi_check(MPI_Comm_group(node, &node_group), "MPI_Comm_group");
  mpi_check(MPI_Comm_group(MPI_COMM_WORLD, &world_group), "MPI_Comm_group");
  std::vector<int> node_ranks(static_cast<std::size_t>(node_size_));
  std::vector<int> team_ranks(static_cast<std::size_t>(node_size_));
  for (int r = 0; r < node_size_; ++r) node_ranks[static_cast<std::size_t>(r)] = r;
  int rc = MPI_Group_translate_ranks(node_group, node_size_, node_ranks.data(), team_group, team_ranks.data());
  std::vector<int> all_ranks(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) all_ranks[static_cast<std::size_t>(r)] = r;
  global_unit_of_.assign(static_cast<std::size_t>(size_), -1);
  if (rc == MPI_SUCCESS)
    rc = MPI_Group_translate_ranks(team_group, size_, all_ranks.data(), world_group, global_unit_of_.data());
  MPI_Group_free(&team_group);
  MPI_Group_free(&node_group);
  MPI_Group_free(&world_group);
  mpi_check(rc, "MPI_Group_translate_ranks");
  for (int r = 0; r < node_size_; ++r)
    node_rank_of_[static_cast<std::size_t>(team_ranks[static_cast<std::size_t>(r)])] = r;
}

Team::~Team() = default;

int Team::team_unit_of(int global) const noexcept {
  const auto pos = std::lower_bound(global_unit_of_.begin(), global_unit_of_.end(), global);
  return pos != global_unit_of_.end() && *pos == global ? static_cast<int>(pos - global_unit_of_.begin()) : -1;
}

// Start of a unit's part of a shared window, rounded up to a page. MPI
// promises no alignment for the parts of a non-contiguous shared window
// (Open MPI 4.1's osc/sm hands out page + 8 bytes), so every part is
// allocated one page larger and every unit derives the same aligned start
// for every part from the address MPI reports.
static char* page_aligned(void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<char*>((a + kPage - 1) & ~std::uintptr_t(kPage - 1));
}

std::unique_ptr<Chunk> Team::make_chunk(std::size_t bytes) {
  auto chunk = std::make_unique<Chunk>(bytes);
  void* base = nullptr;
  if (!single_node_) {
    // A team across nodes (or with DART_SHARED_MEMORY=0) gets one window
    // allocated by MPI over the whole team, reached only by RMA. MPI picks
    // its best component for it (Open MPI: osc/sm when the units happen to
    // share a node), whereas a window created over memory we allocated
    // (MPI_Win_create) lands on Open MPI 4.1's osc/ucx here, which needs
    // the target to call into MPI, rejects 1- and 2-byte atomics, and
    // cannot share its memory with a node-local shared window anyway.
    chunk->team_win = mpi::Window::allocate(static_cast<MPI_Aint>(bytes + kPage), comm(), &base);
    chunk->my_base = page_aligned(base);
    // MPI aligns each unit's base differently, so each unit's padding to
    // the page boundary is exchanged once per chunk.
    const auto pad = static_cast<unsigned long long>(chunk->my_base - static_cast<char*>(base));
    std::vector<unsigned long long> pads(static_cast<std::size_t>(size_));
    mpi_check(MPI_Allgather(&pad, 1, MPI_UNSIGNED_LONG_LONG, pads.data(), 1, MPI_UNSIGNED_LONG_LONG, comm()),
              "MPI_Allgather");
    chunk->team_disp.assign(pads.begin(), pads.end());
    chunk->node_base.assign(static_cast<std::size_t>(node_size_), nullptr);
    chunk->node_base[static_cast<std::size_t>(node_rank_)] = chunk->my_base;
    return chunk;
  }
  chunk->shm_win = mpi::Window::allocate_shared(static_cast<MPI_Aint>(bytes + kPage), node_comm(), &base);
  chunk->my_base = page_aligned(base);
  chunk->node_base.resize(static_cast<std::size_t>(node_size_));
  for (int r = 0; r < node_size_; ++r) {
    MPI_Aint size = 0;
    int disp_unit = 0;
    void* peer = nullptr;
    mpi_check(MPI_Win_shared_query(chunk->shm_win.get(), r, &size, &disp_unit, &peer),
              "MPI_Win_shared_query");
    chunk->node_base[static_cast<std::size_t>(r)] = page_aligned(peer);
    chunk->node_disp.push_back(static_cast<std::size_t>(page_aligned(peer) - static_cast<char*>(peer)));
  }
  return chunk;
}

void Team::heap_allocate(Segment& seg, std::size_t bytes) {
  // Large requests get a chunk of their own, freed with the segment, so a
  // big container does not pin a big chunk after it is gone.
  if (bytes > cfg_.heap_chunk_bytes / 2) {
    seg.own_chunk = make_chunk(round_up(bytes, kPage));
    seg.chunk = seg.own_chunk.get();
    seg.chunk_offset = *seg.chunk->ranges.allocate(bytes, kSegmentAlign);
    return;
  }
  for (auto& chunk : heap_) {
    if (auto off = chunk->ranges.allocate(bytes, kSegmentAlign)) {
      seg.chunk = chunk.get();
      seg.chunk_offset = *off;
      return;
    }
  }
  heap_.push_back(make_chunk(round_up(cfg_.heap_chunk_bytes, kPage)));
  seg.chunk = heap_.back().get();
  seg.chunk_offset = *seg.chunk->ranges.allocate(bytes, kSegmentAlign);
}

void Team::heap_release(Segment& seg) {
  if (!seg.chunk) return;
  (void)seg.chunk->ranges.release(seg.chunk_offset);
  seg.own_chunk.reset();  // collective MPI_Win_free when the chunk was its own
  seg.chunk = nullptr;
}

}  // namespace dart
