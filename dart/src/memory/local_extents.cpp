#include "memory/local_extents.hpp"

#include "core/error.hpp"
#include "core/log.hpp"
#include "rma/access.hpp"
#include "team/team.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dart {

namespace {

constexpr std::size_t kGrain = std::size_t(2) << 20;  // extents are whole 2 MiB

// Address space reserved for this unit's extents: four times the node's
// memory and swap (no more can ever be backed), at least 64 GiB, at most
// 32 TiB. Reserving costs no memory.
std::size_t reservation_bytes() {
  unsigned long long total_kib = 0, kib = 0;
  char key[64];
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    while (std::fscanf(f, "%63s %llu kB", key, &kib) == 2)
      if (std::strcmp(key, "MemTotal:") == 0 || std::strcmp(key, "SwapTotal:") == 0) total_kib += kib;
    std::fclose(f);
  }
  const std::size_t four_times = static_cast<std::size_t>(total_kib) * 1024 * 4;
  return std::clamp(four_times, std::size_t(64) << 30, std::size_t(32) << 40) / kGrain * kGrain;
}

std::uint64_t* directory_at(char* pool_part, std::size_t directory_offset) {
  return reinterpret_cast<std::uint64_t*>(pool_part + directory_offset);
}

}  // namespace

Extents::Extents(Team& world, std::size_t directory_offset, std::size_t pool_bytes, std::uint64_t job_key)
    : world_(world),
      directory_offset_(directory_offset),
      pool_bytes_(pool_bytes),
      load_store_(world.load_store()),
#ifdef OPEN_MPI
      // Open MPI 4.1's osc/ucx stores a dynamic window's region keys so
      // that the part for UCX's shared-memory transports (posix, sysv)
      // arrives garbled: after a few windows and regions, an access fails
      // to unpack it and crashes (measured: DART_SHARED_MEMORY=0 on one
      // host; gone with UCX_TLS=^sysv,posix). So under Open MPI units on
      // one host always map each other's extents, whatever
      // DART_SHARED_MEMORY says, and the window serves other hosts only.
      host_maps_(world.load_store() || world.on_one_host())
#else
      host_maps_(world.load_store())
#endif
{
  // One key for the job, so names never collide with another job's on the
  // same node: dartrun's (which then removes what a killed job leaves), or
  // one unit 0 draws; everyone learns unit 0's.
  unsigned long long key = job_key;
  if (world.myid() == 0 && key == 0) {
    std::random_device rd;
    key = (static_cast<unsigned long long>(rd()) << 32) ^ rd() ^ static_cast<unsigned long long>(getpid()) ^
          static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  mpi_check(MPI_Bcast(&key, 1, MPI_UNSIGNED_LONG_LONG, 0, world.comm()), "MPI_Bcast");
  char buf[40];
  std::snprintf(buf, sizeof buf, "/dart-%016llx-", key);
  prefix_ = buf;
  // Units on other nodes, or every unit with DART_SHARED_MEMORY=0, reach
  // extents by RMA. The condition is the same on every unit.
  const bool everyone_mapped = host_maps_ && (load_store_ ? world.single_node() : world.on_one_host());
  if (!everyone_mapped) win_ = mpi::Window::create_dynamic(world.comm());
  std::memset(directory_at(world.segments().find(DART_SEGMENT_LOCAL)->my_base, directory_offset_), 0, kDirectoryBytes);
  // The fast path's table, when this unit maps the extents of its node's
  // units and those are consecutive units (as the pool's direct slot needs).
  const Segment* pool = world.segments().find(DART_SEGMENT_LOCAL);
  if (host_maps_ && load_store_ && pool->direct_key != 0) {
    table_.first = pool->direct.first;
    table_.units = pool->direct.units;
    table_.entries = std::make_unique<ExtentTable::Entry[]>(static_cast<std::size_t>(table_.units) * kMax);
    g_extent_table.store(&table_, std::memory_order_release);
  }
}

std::atomic<const ExtentTable*> g_extent_table{nullptr};

void Extents::publish(int unit, int n, char* base, std::size_t size) noexcept {
  const int node_rank = unit - table_.first;
  if (!table_.entries || node_rank < 0 || node_rank >= table_.units || n < 1 || n > kMax) return;
  ExtentTable::Entry& e = table_.entries[static_cast<std::size_t>(node_rank) * kMax + static_cast<std::size_t>(n - 1)];
  e.size = size;
  e.base.store(base, std::memory_order_release);
}

Extents::~Extents() {
  g_extent_table.store(nullptr, std::memory_order_release);
  // Collective: every unit is in dart_exit, past the barrier that ends all
  // access, so the window and the mappings can go.
  if (win_.get() != MPI_WIN_NULL) {
    for (const Own& e : own_) MPI_Win_detach(win_.get(), e.base);
    win_.reset();
  }
  for (std::size_t i = 0; i < own_.size(); ++i) shm_unlink(name(world_.myid(), static_cast<int>(i) + 1).c_str());
  if (reserved_) munmap(reserved_, reserved_size_);
  for (auto& [key, m] : peers_)
    if (m.base) munmap(m.base, m.size);
}

bool Extents::maps(int unit) const {
  if (!host_maps_) return false;
  return load_store_ ? world_.node_rank_of(unit) >= 0 : world_.on_one_host() || unit == world_.myid();
}

std::string Extents::name(int unit, int n) const { return prefix_ + std::to_string(unit) + "-" + std::to_string(n); }

void Extents::create(std::size_t at_least) {
  const int n = static_cast<int>(own_.size()) + 1;
  if (n > kMax)
    fail(DART_ERR_NOMEM, "all " + std::to_string(kMax) + " extents beyond the local pool are in use and none has " +
                             std::to_string(at_least) + " free bytes");
  std::size_t size = std::max({at_least, pool_bytes_, own_.empty() ? std::size_t{0} : 2 * own_.back().size});
  if (size > (std::size_t(1) << kShift))
    fail(DART_ERR_NOMEM, "a block of " + std::to_string(at_least) + " bytes exceeds the largest extent (1 TiB)");
  size = (size + kGrain - 1) / kGrain * kGrain;
  const std::uint64_t available = node_memory_available();
  if (size > available)
    fail(DART_ERR_NOMEM, "this node cannot back " + std::to_string(size) + " more bytes (" + std::to_string(available) +
                             " bytes of memory and /dev/shm space available)");
  const std::string nm = name(world_.myid(), n);
  const int fd = shm_open(nm.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) fail(DART_ERR_NOMEM, "shm_open(" + nm + ") failed: " + std::strerror(errno));
  auto undo = [&](const std::string& why) {
    close(fd);
    shm_unlink(nm.c_str());
    fail(DART_ERR_NOMEM, why);
  };
  if (ftruncate(fd, static_cast<off_t>(size)) != 0)
    undo("ftruncate(" + nm + ", " + std::to_string(size) + ") failed: " + std::strerror(errno));
  // Reserve the pages now: a tmpfs that runs full later would SIGBUS a
  // store instead of failing this call.
  if (const int rc = posix_fallocate(fd, 0, static_cast<off_t>(size)); rc != 0)
    undo("this node cannot back an extent of " + std::to_string(size) + " bytes (/dev/shm: " + std::strerror(rc) + ")");
  // Extents follow each other downwards in an address range reserved for
  // them, so each is attached below the ones before: Open MPI 4.1's osc/ucx
  // files a region attached above the others one slot too far in its
  // table, and a later access to it unpacks a garbage key and crashes
  // (measured with raw MPI: 2 regions attached upwards fail, up to 24
  // attached downwards work).
  if (!reserved_) {
    reserved_size_ = reservation_bytes();
    void* r = mmap(nullptr, reserved_size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) undo("cannot reserve address space for extents: " + std::string(std::strerror(errno)));
    reserved_ = static_cast<char*>(r);
  }
  const std::size_t used = own_.empty() ? 0 : static_cast<std::size_t>(reserved_ + reserved_size_ - own_.back().base);
  if (size > reserved_size_ - used)
    undo("the address range reserved for extents (" + std::to_string(reserved_size_) + " bytes) has no room for " +
         std::to_string(size) + " more");
  void* p = mmap(reserved_ + reserved_size_ - used - size, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED) undo("mmap of " + std::to_string(size) + " bytes failed: " + std::string(std::strerror(errno)));
  close(fd);
  char* base = static_cast<char*>(p);
  if (win_.get() != MPI_WIN_NULL) {
    const int rc = MPI_Win_attach(win_.get(), base, static_cast<MPI_Aint>(size));
    if (rc != MPI_SUCCESS) {
      // Back to reserved address space (never a hole another mapping
      // could take and a later MAP_FIXED would overwrite).
      mmap(base, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
      shm_unlink(nm.c_str());
      mpi_check(rc, "MPI_Win_attach");
    }
  }
  // Publish in the directory: the size last, so a reader that sees it also
  // sees the address.
  std::uint64_t* dir = directory_at(world_.segments().find(DART_SEGMENT_LOCAL)->my_base, directory_offset_);
  MPI_Aint addr = 0;
  MPI_Get_address(base, &addr);
  __atomic_store_n(&dir[2 * (n - 1)], static_cast<std::uint64_t>(addr), __ATOMIC_RELAXED);
  __atomic_store_n(&dir[2 * (n - 1) + 1], static_cast<std::uint64_t>(size), __ATOMIC_RELEASE);
  Own e;
  e.base = base;
  e.size = size;
  e.ranges = std::make_unique<RangeAllocator>(size);
  own_.push_back(std::move(e));
  publish(world_.myid(), n, base, size);
}

std::uint64_t Extents::allocate(std::size_t bytes) {
  constexpr std::size_t kAlign = 64;
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < own_.size(); ++i)
    if (auto off = own_[i].ranges->allocate(bytes, kAlign)) return (std::uint64_t(i + 1) << kShift) + *off;
  create(bytes);
  auto off = own_.back().ranges->allocate(bytes, kAlign);
  if (!off) fail(DART_ERR_NOMEM, "a new extent has no room for " + std::to_string(bytes) + " bytes");
  return (std::uint64_t(own_.size()) << kShift) + *off;
}

bool Extents::release(std::uint64_t offset) {
  const std::uint64_t n = offset >> kShift;
  std::lock_guard<std::mutex> lock(mutex_);
  if (n == 0 || n > own_.size()) return false;
  return own_[n - 1].ranges->release(offset & kByteMask);
}

char* Extents::own_address(std::uint64_t offset) const {
  const std::uint64_t n = offset >> kShift, byte = offset & kByteMask;
  std::lock_guard<std::mutex> lock(mutex_);
  if (n == 0 || n > own_.size() || byte > own_[n - 1].size) return nullptr;
  return own_[n - 1].base + byte;
}

std::optional<std::uint64_t> Extents::own_offset(const char* addr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < own_.size(); ++i)
    if (addr >= own_[i].base && addr <= own_[i].base + own_[i].size)
      return (std::uint64_t(i + 1) << kShift) + static_cast<std::uint64_t>(addr - own_[i].base);
  return std::nullopt;
}

std::pair<std::uint64_t, std::size_t> Extents::read_directory(int unit, int n) {
  dart_gptr_t g = DART_GPTR_NULL;
  g.teamid = DART_TEAM_ALL;
  g.segid = DART_SEGMENT_LOCAL;
  g.unitid = unit;
  g.addr_or_offs.offset = directory_offset_ + static_cast<std::size_t>(2 * (n - 1)) * sizeof(std::uint64_t);
  const Target t = dart::resolve(g);
  std::uint64_t entry[2] = {0, 0};
  if (t.local) {
    const auto* dir = reinterpret_cast<const std::uint64_t*>(t.local);
    entry[1] = __atomic_load_n(&dir[1], __ATOMIC_ACQUIRE);
    entry[0] = __atomic_load_n(&dir[0], __ATOMIC_RELAXED);
  } else {
    activity::InMpi in_mpi;
    mpi_check(MPI_Get(entry, 2, MPI_UINT64_T, t.rank, t.disp, 2, MPI_UINT64_T, t.win), "MPI_Get");
    flush_target(t);
  }
  return {entry[0], static_cast<std::size_t>(entry[1])};
}

Extents::Mapped Extents::peer(int unit, int n) {
  const std::uint64_t key = (std::uint64_t(unit) << 8) | std::uint64_t(n);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = peers_.find(key); it != peers_.end()) return it->second;
  }
  // Not under the lock: the directory read may be an MPI call.
  const auto [addr, size] = read_directory(unit, n);
  if (size == 0)
    invalid("unit " + std::to_string(unit) + " has no extent " + std::to_string(n) +
            " (the pointer was never returned by its dart_memalloc)");
  Mapped m;
  m.addr = addr;
  m.size = size;
  if (maps(unit)) {
    const std::string nm = name(unit, n);
    const int fd = shm_open(nm.c_str(), O_RDWR, 0);
    if (fd < 0)
      fail(DART_ERR_OTHER,
           "cannot open unit " + std::to_string(unit) + "'s extent " + nm + ": " + std::strerror(errno));
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int err = errno;
    close(fd);
    if (p == MAP_FAILED)
      fail(DART_ERR_OTHER, "cannot map unit " + std::to_string(unit) + "'s extent " + nm + ": " + std::strerror(err));
    m.base = static_cast<char*>(p);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = peers_.emplace(key, m);
  if (!inserted && m.base) munmap(m.base, m.size);  // another thread mapped it first
  if (inserted && m.base) publish(unit, n, m.base, m.size);
  return it->second;
}

void Extents::resolve(int unit, std::uint64_t offset, Target& t) {
  const std::uint64_t n = offset >> kShift, byte = offset & kByteMask;
  if (n > static_cast<std::uint64_t>(kMax))
    invalid("offset " + std::to_string(offset) + " names no memory of dart_memalloc (extent " + std::to_string(n) +
            ")");
  Mapped m;
  if (unit == world_.myid()) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (n > own_.size())
      invalid("this unit has no extent " + std::to_string(n) + " (offset " + std::to_string(offset) + ")");
    const Own& e = own_[n - 1];
    MPI_Aint addr = 0;
    MPI_Get_address(e.base, &addr);
    m.base = maps(unit) ? e.base : nullptr;
    m.addr = static_cast<std::uint64_t>(addr);
    m.size = e.size;
    if (byte <= e.size) t.mine = e.base + byte;
  } else {
    m = peer(unit, static_cast<int>(n));
  }
  if (byte > m.size)
    invalid("offset " + std::to_string(byte) + " lies beyond the " + std::to_string(m.size) + "-byte extent " +
            std::to_string(n) + " of unit " + std::to_string(unit));
  t.avail = m.size - byte;
  t.unit = unit;
  t.dynamic = true;
  t.local = m.base ? m.base + byte : nullptr;
  if (win_.get() != MPI_WIN_NULL) {
    t.window = &win_;
    t.win = win_.get();
    t.rank = unit;
    t.disp = static_cast<MPI_Aint>(m.addr + byte);
  } else {
    t.window = nullptr;
    t.win = MPI_WIN_NULL;
  }
}

int Extents::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(own_.size());
}

std::size_t Extents::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t b = 0;
  for (const Own& e : own_) b += e.size;
  return b;
}

}  // namespace dart
