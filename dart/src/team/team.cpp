#include "team/team.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"

#include <dash/dart/if/dart_team_group.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include <sys/statvfs.h>

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

std::size_t SegmentTable::metadata_bytes() const noexcept {
  std::size_t n = 0;
  for (const auto& p : pages_)
    if (p.load(std::memory_order_acquire)) n += sizeof(Page);
  return n;
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
    : id_(id),
      serial_(++g_team_serial),
      cfg_(cfg),
      comm_(std::move(own)),
      // Two-sided messages name global units, so only DART_TEAM_ALL carries them.
      p2p_comm_(id == DART_TEAM_ALL ? mpi::Comm::dup(comm_.get()) : mpi::Comm()),
      load_store_(cfg.shared_memory) {
  mpi_check(MPI_Comm_set_errhandler(comm_.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_rank(comm(), &myid_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm(), &size_), "MPI_Comm_size");

  // Team rank -> global unit, with the group of MPI_COMM_WORLD. The global
  // ids are only needed while the map is built: a team whose members follow
  // a formula keeps the formula.
  std::vector<int> globals(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) globals[static_cast<std::size_t>(r)] = r;
  mpi::Group team_group;
  mpi_check(MPI_Comm_group(comm(), team_group.out()), "MPI_Comm_group");
  if (id != DART_TEAM_ALL) {
    mpi::Group world_group;
    mpi_check(MPI_Comm_group(MPI_COMM_WORLD, world_group.out()), "MPI_Comm_group");
    const std::vector<int> team_ranks_all = globals;  // 0 .. size-1
    mpi_check(
        MPI_Group_translate_ranks(team_group.get(), size_, team_ranks_all.data(), world_group.get(), globals.data()),
        "MPI_Group_translate_ranks");
  }

  // What DART_TEAM_ALL found out about the nodes holds for every team made
  // later: a team whose members all share the caller's node is on one node
  // for each of its members (a node is the same set seen from any of its
  // units), so no member asks MPI again and the team itself serves as its
  // node communicator. Only teams across nodes split one off.
  const Team* world = nullptr;
  if (id != DART_TEAM_ALL)
    if (Runtime* r = runtime()) world = &r->world();
  if (world && cfg.shared_memory && world->load_store()) {
    single_node_ = std::all_of(globals.begin(), globals.end(), [&](int g) { return world->node_rank_of(g) >= 0; });
  } else {
    single_node_ = false;
  }
  if (single_node_) {
    node_size_ = size_;
    node_rank_ = myid_;
    on_one_host_ = true;
    std::vector<int> team_ranks(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) team_ranks[static_cast<std::size_t>(r)] = r;
    node_members_ = RankMap(std::move(team_ranks));
    members_ = RankMap(std::move(globals));
    // Last: from here on the destructor runs, and it gives up this alias.
    node_comm_ = mpi::Comm(comm_.get());
    return;
  }

  // The node communicator orders its units by team rank (key = myid), so
  // on a team that lives on one node, node rank == team rank.
  MPI_Comm node = MPI_COMM_NULL;
  if (cfg.shared_memory) {
    mpi_check(MPI_Comm_split_type(comm(), MPI_COMM_TYPE_SHARED, myid_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
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
    if (world && world->on_one_host()) {
      on_one_host_ = true;
    } else {
      MPI_Comm host = MPI_COMM_NULL;
      mpi_check(MPI_Comm_split_type(comm(), MPI_COMM_TYPE_SHARED, myid_, MPI_INFO_NULL, &host),
                "MPI_Comm_split_type");
      int host_size = 0;
      const int rc = MPI_Comm_size(host, &host_size);
      MPI_Comm_free(&host);
      mpi_check(rc, "MPI_Comm_size");
      on_one_host_ = host_size == size_;
    }
  }

  // Node rank -> team rank: translate the node group into the team group.
  mpi::Group node_group;
  mpi_check(MPI_Comm_group(node, node_group.out()), "MPI_Comm_group");
  std::vector<int> node_ranks(static_cast<std::size_t>(node_size_));
  std::vector<int> team_ranks(static_cast<std::size_t>(node_size_));
  for (int r = 0; r < node_size_; ++r) node_ranks[static_cast<std::size_t>(r)] = r;
  mpi_check(
      MPI_Group_translate_ranks(node_group.get(), node_size_, node_ranks.data(), team_group.get(), team_ranks.data()),
      "MPI_Group_translate_ranks");
  // Node ranks follow team ranks (key = myid above), so both lists ascend.
  node_members_ = RankMap(std::move(team_ranks));
  members_ = RankMap(std::move(globals));
}

// Windows are freed collectively, so every member frees the same windows
// in the same order: live and retired segments together, in ascending
// order of their id's 16-bit pattern (a registration retired on some
// members is live on the others), then the dynamic windows, then the
// heap's chunks.
Team::~Team() {
  std::vector<int16_t> ids = segments_.ids();
  for (const auto& r : retired_) ids.push_back(static_cast<int16_t>(-r.first));
  std::sort(ids.begin(), ids.end(),
            [](int16_t a, int16_t b) { return static_cast<uint16_t>(a) < static_cast<uint16_t>(b); });
  for (int16_t id : ids) {
    if (id < 0 && retired_.erase(-int{id}) > 0) continue;
    unpublish(id).reset();
  }
  dynamic_.clear();
  // The node communicator of a team on one node is the team's own, which
  // comm_ frees.
  if (node_comm_.get() == comm_.get()) (void)node_comm_.release();
}

void Team::mark_broken(const std::string& why) {
  std::lock_guard<std::mutex> lock(broken_mutex_);
  if (broken_.load(std::memory_order_relaxed)) return;  // the first divergence is the one to name
  broken_reason_ = why;
  broken_.store(true, std::memory_order_release);
}

std::string Team::broken_reason() const {
  std::lock_guard<std::mutex> lock(broken_mutex_);
  return broken_reason_;
}

void Team::require_intact() const {
  if (broken()) fail(DART_ERR_OTHER, broken_reason());
}

void Team::set_parent(const Team& parent) {
  ancestors_.clear();
  ancestors_.push_back(parent.serial());
  ancestors_.insert(ancestors_.end(), parent.ancestors().begin(), parent.ancestors().end());
}

int Team::attach_load(int w, const char* addr, std::size_t bytes) const {
  const DynamicWindow& d = *dynamic_[static_cast<std::size_t>(w)];
  if (bytes > 0) {
    const auto start = reinterpret_cast<std::uintptr_t>(addr), end = start + bytes;
    auto next = d.attached.lower_bound(start);
    if (next != d.attached.end() && next->first < end) return kAttachMax;
    if (next != d.attached.begin() && std::prev(next)->second > start) return kAttachMax;
  }
  return static_cast<int>(d.attached.size());
}

void Team::add_dynamic_window() {
  auto d = std::make_unique<DynamicWindow>();
  d->win = mpi::Window::create_dynamic(comm());
  dynamic_.push_back(std::move(d));
}

mpi::Window& Team::attach(int w, char* addr, std::size_t bytes) {
  DynamicWindow& d = *dynamic_[static_cast<std::size_t>(w)];
  if (bytes > 0) {
    mpi_check(MPI_Win_attach(d.win.get(), addr, static_cast<MPI_Aint>(bytes)), "MPI_Win_attach");
    const auto start = reinterpret_cast<std::uintptr_t>(addr);
    d.attached.emplace(start, start + bytes);
  }
  return d.win;
}

void Team::detach(int w, char* addr) {
  DynamicWindow& d = *dynamic_[static_cast<std::size_t>(w)];
  // Complete what this unit issued before the memory leaves the window.
  if (d.win.take_issued_all()) mpi::flush_all(d.win.get());
  mpi_check(MPI_Win_detach(d.win.get(), addr), "MPI_Win_detach");
  d.attached.erase(reinterpret_cast<std::uintptr_t>(addr));
}

void Team::retire(std::unique_ptr<Segment> seg) {
  const int magnitude = -int{seg->id};
  retired_.emplace(magnitude, std::move(seg));
}

std::pair<int, int> Team::retired_range() const noexcept {
  if (retired_.empty()) return {0, 0};
  return {retired_.begin()->first, retired_.rbegin()->first};
}

void Team::reclaim_registrations(int lo, int hi) {
  if (lo <= 0 || hi < lo) return;
  const std::size_t bits = static_cast<std::size_t>(hi - lo) + 1;
  std::vector<std::uint64_t> mine((bits + 63) / 64, 0), all(mine.size(), 0);
  for (auto it = retired_.lower_bound(lo); it != retired_.end() && it->first <= hi; ++it) {
    const auto b = static_cast<std::size_t>(it->first - lo);
    mine[b / 64] |= std::uint64_t{1} << (b % 64);
  }
  activity::InMpi in_mpi;
  mpi_check(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_UINT64_T, MPI_BAND, comm()),
            "MPI_Allreduce");
  for (std::size_t b = 0; b < bits; ++b) {
    if (!(all[b / 64] >> (b % 64) & 1)) continue;
    const int magnitude = lo + static_cast<int>(b);
    retired_.erase(magnitude);  // frees its own window: collective, same order everywhere
    segment_ids_.give_back(static_cast<int16_t>(-magnitude));
  }
}

int Team::team_unit_of(int global) const noexcept { return members_.index_of(global); }

std::size_t Segment::metadata_bytes() const noexcept {
  std::size_t n = sizeof(Segment) + unit_bytes.heap_bytes() + unit_disp.heap_bytes() + own_win.metadata_bytes();
  if (own_chunk) n += sizeof(Chunk) + own_chunk->metadata_bytes();
  return n;
}

std::size_t Chunk::metadata_bytes() const noexcept {
  return team_disp.heap_bytes() + node_base.capacity() * sizeof(char*) + node_disp.capacity() * sizeof(std::size_t) +
         ranges.metadata_bytes() + shm_win.metadata_bytes() + team_win.metadata_bytes();
}

Team::Metadata Team::metadata() const {
  Metadata m;
  m.team_bytes = sizeof(Team) + node_members_.heap_bytes() + members_.heap_bytes() + segments_.metadata_bytes();
  for (const auto& c : heap_) m.team_bytes += sizeof(Chunk) + c->metadata_bytes();
  for (int16_t id : segments_.ids())
    if (const Segment* s = segments_.find(id)) {
      ++m.segments;
      m.segment_bytes += s->metadata_bytes();
    }
  for (const auto& d : dynamic_)
    m.team_bytes += sizeof(DynamicWindow) + d->win.metadata_bytes() + d->attached.size() * 48;  // map nodes
  m.retired = retired_.size();
  return m;
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

// The common distance of evenly spaced parts (Chunk::node_stride), or 0.
static std::size_t even_stride(const std::vector<char*>& parts) {
  if (parts.size() < 2 || parts[0] == nullptr || parts[1] <= parts[0]) return 0;
  const auto stride = static_cast<std::size_t>(parts[1] - parts[0]);
  for (std::size_t r = 2; r < parts.size(); ++r)
    if (parts[r] != parts[0] + r * stride) return 0;
  return stride;
}

// Bytes this node can still back with memory for a window: what the
// kernel reports available (MemAvailable plus free swap) and, since both
// MPIs place window memory in files under /dev/shm, the room left on that
// file system; the smaller of the two. UINT64_MAX when neither is known.
std::uint64_t node_memory_available() {
  std::uint64_t avail = UINT64_MAX;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    unsigned long long kib = 0;
    std::uint64_t mem = 0, swap = 0;
    bool have_mem = false;
    while (std::fscanf(f, "%63s %llu kB", key, &kib) == 2) {
      if (std::strcmp(key, "MemAvailable:") == 0) mem = kib * 1024, have_mem = true;
      if (std::strcmp(key, "SwapFree:") == 0) swap = kib * 1024;
    }
    std::fclose(f);
    if (have_mem) avail = mem + swap;
  }
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0) avail = std::min<std::uint64_t>(avail, std::uint64_t{fs.f_bavail} * fs.f_frsize);
  return avail;
}

// Collective over the team. MPI does not fail a window allocation the node
// cannot back cleanly: Open MPI fails it on one unit and leaves the others
// waiting, MPICH on none (a later touch of the memory is a SIGBUS). So the
// units first agree that every node can back its part, and otherwise all
// fail with DART_ERR_NOMEM and nothing is allocated.
void Team::require_backing(std::size_t bytes_per_unit) {
  const std::uint64_t available = node_memory_available();
  std::uint64_t need = 0;
  const bool fits =
      !__builtin_mul_overflow(std::uint64_t{bytes_per_unit}, std::uint64_t(node_size_), &need) && need <= available;
  int mine = fits ? 1 : 0, all = 0;
  activity::InMpi in_mpi;
  mpi_check(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm()), "MPI_Allreduce");
  if (all) return;
  if (fits)
    fail(DART_ERR_NOMEM, "another node of team " + std::to_string(id_) + " cannot back " +
                             std::to_string(bytes_per_unit) + " bytes per unit");
  fail(DART_ERR_NOMEM, "this node cannot back " + std::to_string(bytes_per_unit) + " bytes for each of its " +
                           std::to_string(node_size_) + " units of team " + std::to_string(id_) + " (" +
                           std::to_string(available) + " bytes of memory and /dev/shm space available)");
}

namespace direct_cache {
Entry g_slots[kSlots];
namespace {
std::mutex g_writers;
}

void insert(Segment* seg, std::uint64_t k) noexcept {
  std::lock_guard<std::mutex> lock(g_writers);
  Entry& e = g_slots[slot(k)];
  const std::uint64_t w = e.word.load(std::memory_order_relaxed);
  if ((w & kKeyMask) != 0) return;
  // The fields change below while readers may still check an older word of
  // this slot: the fence keeps these stores after the erase's word store,
  // so a reader that sees one of them sees the word changed (still()).
  std::atomic_thread_fence(std::memory_order_release);
  const Segment::Direct& d = seg->direct;
  __atomic_store_n(&e.d.base, d.base, __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.stride, d.stride, __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.bytes, d.bytes, __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.first, d.first, __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.units, d.units, __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.team_size, d.team_size, __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.cpu_atomics, d.cpu_atomics, __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.issued[0], d.issued[0], __ATOMIC_RELAXED);
  __atomic_store_n(&e.d.issued[1], d.issued[1], __ATOMIC_RELAXED);
  e.word.store((w & ~kKeyMask) + kGeneration + k, std::memory_order_release);
  seg->direct_key = k;
}

void erase(Segment* seg) noexcept {
  if (seg->direct_key == 0) return;
  std::lock_guard<std::mutex> lock(g_writers);
  Entry& e = g_slots[slot(seg->direct_key)];
  // Keys are unique among live segments, and only this one holds the key.
  const std::uint64_t w = e.word.load(std::memory_order_relaxed);
  if ((w & kKeyMask) == seg->direct_key) e.word.store((w & ~kKeyMask) + kGeneration, std::memory_order_release);
  seg->direct_key = 0;
}
}  // namespace direct_cache

Segment::~Segment() { direct_cache::erase(this); }

std::unique_ptr<Segment> Team::unpublish(int16_t id) {
  if (Segment* seg = segments_.find(id)) direct_cache::erase(seg);
  return segments_.remove(id);
}

void Team::publish(std::unique_ptr<Segment> seg) {
  // Registered buffers are mapped only in their owner (and their sizes
  // differ by unit), so they always take resolve().
  const bool mapped = load_store_ && seg->kind != SegmentKind::Registered && seg->chunk &&
                      !seg->chunk->node_base.empty() && node_members_.contiguous() &&
                      (seg->chunk->node_stride != 0 || seg->chunk->node_base.size() == 1) &&
                      seg->chunk->node_base[0] != nullptr;
  if (mapped) {
    seg->direct.base = seg->chunk->node_base[0] + seg->chunk_offset;
    seg->direct.stride = seg->chunk->node_stride;
    seg->direct.bytes = seg->bytes;
    seg->direct.first = node_members_.first();
    seg->direct.units = node_members_.size();
    seg->direct.team_size = size_;
    seg->direct.cpu_atomics = single_node_;
    seg->direct.issued[0] = seg->chunk->shm_win.issued_flag();
    seg->direct.issued[1] = seg->chunk->team_win.issued_flag();
    direct_cache::insert(seg.get(), direct_cache::key(id_, seg->id));
  }
  segments_.insert(std::move(seg));
}

std::unique_ptr<Chunk> Team::make_chunk(std::size_t bytes) {
  require_backing(bytes + kPage);
  auto chunk = std::make_unique<Chunk>(bytes);
  void* base = nullptr;
  if (!single_node_ && !load_store_) {
    // DART_SHARED_MEMORY=0: one window allocated by MPI over the whole
    // team, reached only by RMA. MPI picks its best component for it
    // (Open MPI: osc/sm when the units happen to share a host), whereas a
    // window created over memory we allocated (MPI_Win_create) lands on
    // Open MPI 4.1's osc/ucx, which needs the target to call into MPI and
    // rejects 1- and 2-byte atomics.
    chunk->team_win = mpi::Window::allocate(static_cast<MPI_Aint>(bytes + kPage), comm(), &base);
    chunk->my_base = page_aligned(base);
    // Each unit's padding to the page boundary is the displacement of its
    // part. MPI usually hands out page-aligned memory, so one reduction
    // (maximum and negated minimum) finds the common case of one padding
    // for all, kept as one word; only differing paddings are gathered into
    // a table of one per unit.
    const auto pad = static_cast<long long>(chunk->my_base - static_cast<char*>(base));
    const long long mine[2] = {pad, -pad};
    long long range[2] = {0, 0};
    activity::InMpi in_mpi;
    mpi_check(MPI_Allreduce(mine, range, 2, MPI_LONG_LONG, MPI_MAX, comm()), "MPI_Allreduce");
    if (range[0] == -range[1]) {
      chunk->team_disp = PerUnit<std::size_t>(static_cast<std::size_t>(pad));
    } else {
      std::vector<long long> pads(static_cast<std::size_t>(size_));
      mpi_check(MPI_Allgather(&pad, 1, MPI_LONG_LONG, pads.data(), 1, MPI_LONG_LONG, comm()), "MPI_Allgather");
      chunk->team_disp = PerUnit<std::size_t>(std::vector<std::size_t>(pads.begin(), pads.end()));
    }
    chunk->node_base.assign(static_cast<std::size_t>(node_size_), nullptr);
    chunk->node_base[static_cast<std::size_t>(node_rank_)] = chunk->my_base;
    return chunk;
  }
  // The memory of a node's units is one shared-memory window, so units of
  // one node reach each other by load/store whether or not the team spans
  // nodes.
  chunk->shm_win = mpi::Window::allocate_shared(static_cast<MPI_Aint>(bytes + kPage), node_comm(), &base);
  chunk->my_base = page_aligned(base);
  chunk->node_base.resize(static_cast<std::size_t>(node_size_));
  for (int r = 0; r < node_size_; ++r) {
    MPI_Aint size = 0;
    int disp_unit = 0;
    void* peer = nullptr;
    mpi_check(MPI_Win_shared_query(chunk->shm_win.get(), r, &size, &disp_unit, &peer), "MPI_Win_shared_query");
    chunk->node_base[static_cast<std::size_t>(r)] = page_aligned(peer);
    chunk->node_disp.push_back(static_cast<std::size_t>(page_aligned(peer) - static_cast<char*>(peer)));
  }
  chunk->node_stride = even_stride(chunk->node_base);
  if (!single_node_) {
    // A team across nodes also gets a window over the same memory on the
    // whole team, for units of other nodes and for every atomic (which
    // must all go one way to be atomic with respect to each other). Each
    // unit exposes exactly its aligned part, so displacements need no
    // table. (Open MPI serves it with osc/ucx, which needs the target to
    // call MPI: the team starts the progress thread.)
#ifdef OPEN_MPI
    chunk->team_win = mpi::Window::create(chunk->my_base, static_cast<MPI_Aint>(bytes), comm());
    chunk->team_disp = PerUnit<std::size_t>(std::size_t{0});
#else
    // Under MPICH the window is dynamic, with each unit's part attached,
    // and a displacement is the part's address on its unit. MPICH 4.0
    // (ch4:ucx over TCP) serves a created or allocated window with UCX's
    // one-sided calls and completes them with an endpoint flush, a second
    // round trip; a dynamic window's operations are messages the target
    // answers, complete with the answer. Raw MPI on the rig (2 hosts x 1,
    // both units updating each other's table: get, then put + flush, 8 B):
    // 67 us per update on MPI_Win_allocate, 63 on MPI_Win_create, 51 on a
    // dynamic window; DASH's GUPS took 1.9x as long on DART as on DASH's
    // own DART-MPI, whose windows are dynamic.
    chunk->team_win = mpi::Window::create_dynamic(comm());
    mpi_check(MPI_Win_attach(chunk->team_win.get(), chunk->my_base, static_cast<MPI_Aint>(bytes)), "MPI_Win_attach");
    MPI_Aint mine = 0;
    mpi_check(MPI_Get_address(chunk->my_base, &mine), "MPI_Get_address");
    std::vector<MPI_Aint> addrs(static_cast<std::size_t>(size_));
    {
      activity::InMpi in_mpi;
      mpi_check(MPI_Allgather(&mine, 1, MPI_AINT, addrs.data(), 1, MPI_AINT, comm()), "MPI_Allgather");
    }
    chunk->team_disp = PerUnit<std::size_t>(std::vector<std::size_t>(addrs.begin(), addrs.end()));
#endif
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
