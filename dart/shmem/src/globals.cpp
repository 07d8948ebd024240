// Global and static variables at the heap's speed between PEs of a node.
//
// OpenSHMEM programs keep flags, counters and pSync arrays in static
// memory, which is private to each process: DART registers it for MPI RMA,
// and every access to another PE's static went through MPI, 100-8000x
// slower than the same access to the heap on one node. Nothing forces the
// data segment to stay private, though. At shmem_init each PE copies its
// writable segment (.data and .bss after RELRO, page-rounded) into a POSIX
// shared-memory object and maps the object over the segment, at the same
// addresses (MAP_FIXED): the program sees the same variables with the same
// contents, and node mates map the object too, reaching the variables by
// load/store exactly like the heap (st.glob_direct, beside st.direct).
// The object's name is unlinked once every PE has mapped it.
//
// What it costs and assumes, documented in docs/openshmem/openshmem.md (paragraph "Global and static variables"):
//   - start-up: one copy of the segment's non-zero pages into /dev/shm
//     (a /dev/shm without room for the whole segment fails here,
//     cleanly); pages of zeros stay holes, allocated on first write as
//     private .bss pages are (so a huge, mostly untouched static array
//     costs no more memory than before);
//   - a write to a global by another thread while shmem_init runs could
//     be lost between the copy and the mapping (shmem_init is collective
//     and normally runs before the program starts threads);
//   - a child made by fork() after shmem_init shares the globals with its
//     parent (the mapping is shared); exec() ends that.
// It is all or nothing: every PE shares, or (one could not: logged) none,
// because CPU atomics on node mates' globals are only atomic with respect
// to each other, never to DART's MPI path (the heap's rule, amo.cpp).
#include "globals.hpp"

#include "internal.hpp"

#include <dash/dart/if/dart.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace dshmem::globals {
namespace {

struct Mapping {
  char* addr = nullptr;
  std::size_t len = 0;
};
std::vector<Mapping> g_peers;  // other PEs' objects mapped here

bool sharing_wanted() {
  const char* v = std::getenv("SHMEM_SHARE_GLOBALS");
  return !(v && std::strcmp(v, "0") == 0);
}

std::string object_name(std::uint64_t nonce, int pe) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/dart-shmem-g-%016llx-%d", static_cast<unsigned long long>(nonce), pe);
  return buf;
}

// Whether a page holds only zero bytes (a fresh object reads zero there,
// so the copy can skip it; reading untouched .bss maps the zero page and
// allocates nothing).
bool zero_page(const char* p, std::size_t page) {
  for (std::size_t i = 0; i < page; i += sizeof(std::uint64_t)) {
    std::uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    if (w) return false;
  }
  return true;
}

// Moves [lo, lo + len) into the object `name`, mapped at the same place.
// Returns the reason it could not, or "" on success (nothing changed then
// but a created object, which is unlinked).
std::string remap_own(const std::string& name, char* lo, std::size_t len, std::size_t page) {
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) return "shm_open(" + name + "): " + std::strerror(errno);
  auto give_up = [&](const std::string& why) {
    close(fd);
    shm_unlink(name.c_str());
    return why;
  };
  if (ftruncate(fd, static_cast<off_t>(len)) != 0) return give_up(std::string("ftruncate: ") + std::strerror(errno));
  // Pages that hold only zeros stay holes, allocated on first write as the
  // private .bss pages were; the others are written now, and a full
  // /dev/shm fails here rather than later.
  struct statvfs fs {};
  if (fstatvfs(fd, &fs) == 0 && static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < len)
    return give_up("/dev/shm has less than the " + std::to_string(len) + " bytes of the globals free");
  for (std::size_t at = 0; at < len; at += page) {
    if (zero_page(lo + at, page)) continue;
    if (pwrite(fd, lo + at, page, static_cast<off_t>(at)) != static_cast<ssize_t>(page))
      return give_up(std::string("copying the globals: ") + std::strerror(errno));
  }
  void* p = mmap(lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  const int err = errno;
  close(fd);
  if (p == MAP_FAILED) {
    // MAP_FIXED failing leaves the old mapping in place (the kernel checks
    // before it unmaps), so the globals are untouched.
    shm_unlink(name.c_str());
    return std::string("mmap over the globals: ") + std::strerror(err);
  }
  return "";
}

}  // namespace

void share(char* base, std::size_t bytes) {
  st.glob_direct.assign(static_cast<std::size_t>(st.npes), nullptr);
  bool mates = false;
  for (int p = 0; p < st.npes; ++p) mates |= p != st.me && st.direct[static_cast<std::size_t>(p)] != nullptr;
  // Every PE decides alike whether to try: node mates exist somewhere and
  // nobody turned it off.
  int want = mates && bytes > 0 && sharing_wanted() ? 1 : 0, any = 0;
  dart_allreduce(&want, &any, 1, DART_TYPE_INT, DART_OP_MAX, DART_TEAM_ALL);
  if (!any) return;

  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  char* lo = reinterpret_cast<char*>(b & ~(page - 1));
  const std::size_t len = (b + bytes - reinterpret_cast<std::uintptr_t>(lo) + page - 1) & ~(page - 1);

  // One nonce for the job, from PE 0, names every PE's object.
  std::uint64_t nonce = 0;
  if (st.me == 0) nonce = (std::random_device{}() * 0x100000000ULL) ^ std::random_device{}() ^ getpid();
  dart_bcast(&nonce, 1, DART_TYPE_ULONGLONG, dart_team_unit_t{0}, DART_TEAM_ALL);
  const std::string mine = object_name(nonce, st.me);
  std::string why = want ? remap_own(mine, lo, len, page) : "";
  int ok = why.empty() ? 1 : 0, all = 0;
  dart_allreduce(&ok, &all, 1, DART_TYPE_INT, DART_OP_MIN, DART_TEAM_ALL);

  // Map the node mates' objects; a failure here, too, turns sharing off
  // everywhere.
  if (all) {
    g_peers.assign(static_cast<std::size_t>(st.npes), Mapping{});
    for (int p = 0; p < st.npes && why.empty(); ++p) {
      if (p == st.me || !st.direct[static_cast<std::size_t>(p)]) continue;
      const std::string name = object_name(nonce, p);
      const int fd = shm_open(name.c_str(), O_RDWR, 0);
      if (fd < 0) {
        why = "cannot open PE " + std::to_string(p) + "'s globals (" + name + "): " + std::strerror(errno);
        break;
      }
      void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      const int err = errno;
      close(fd);
      if (m == MAP_FAILED) {
        why = "cannot map PE " + std::to_string(p) + "'s globals: " + std::strerror(err);
        break;
      }
      g_peers[static_cast<std::size_t>(p)] = Mapping{static_cast<char*>(m), len};
      st.glob_direct[static_cast<std::size_t>(p)] = static_cast<char*>(m) + (base - lo);
    }
    ok = why.empty() ? 1 : 0;
    dart_allreduce(&ok, &all, 1, DART_TYPE_INT, DART_OP_MIN, DART_TEAM_ALL);
  }
  // Every PE has mapped what it maps (or given up): the names can go.
  if (want) shm_unlink(mine.c_str());  // ENOENT when remap_own already removed it
  if (!all) {
    if (!why.empty())
      std::fprintf(stderr, "shmem: PE %d: shmem_init: global variables stay private (reached through MPI): %s\n",
                   st.me, why.c_str());
    unshare();
    st.glob_direct.assign(static_cast<std::size_t>(st.npes), nullptr);
    return;
  }
  st.glob_direct[static_cast<std::size_t>(st.me)] = base;
}

void unshare() {
  for (Mapping& m : g_peers)
    if (m.addr) munmap(m.addr, m.len);
  g_peers.clear();
  st.glob_direct.clear();
}

}  // namespace dshmem::globals
