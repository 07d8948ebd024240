// OpenSHMEM setup, symmetric memory, teams, contexts and ordering over DART.
#include "internal.hpp"
#include "globals.hpp"
#include "mpi_interop.hpp"
#include "range_allocator.hpp"
#include "startup.hpp"

#include <dash/dart/ext/dart_direct.h>
#include <dash/dart/ext/dart_globals.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>

struct dart_shmem_team dart_shmem_team_world_;
struct dart_shmem_team dart_shmem_team_shared_;
struct dart_shmem_ctx dart_shmem_ctx_default_;

namespace dshmem {

State st;

namespace {

thread_local int t_last_error = SHMEMX_SUCCESS;

// Teams and contexts are never returned to the allocator: a destroyed
// handle keeps its memory (with its magic cleared), so a routine given a
// stale handle reports it instead of reading freed memory.
std::mutex g_handles_mutex;
std::vector<dart_shmem_team*> g_dead_teams;
std::vector<dart_shmem_ctx*> g_dead_ctxs;
std::vector<dart_shmem_ctx*> g_live_ctxs;

// The symmetric heap's allocator. Every PE calls the collective routines
// in the same order with the same arguments (checked), so every PE's
// allocator makes the same choices and an object has one offset on all.
// Every block is a multiple of 64 bytes, on a 64-byte boundary (allocate()
// asks for at least that alignment): a cache line (no false sharing
// between objects) and any type's alignment.
dart::RangeAllocator g_heap(0, 64);

void init_world_team() {
  dart_shmem_team& w = dart_shmem_team_world_;
  w.dart = DART_TEAM_ALL;
  w.my_pe = st.me;
  w.n_pes = st.npes;
  w.world.resize(static_cast<std::size_t>(st.npes));
  w.of_world.resize(static_cast<std::size_t>(st.npes));
  for (int p = 0; p < st.npes; ++p) w.world[static_cast<std::size_t>(p)] = w.of_world[static_cast<std::size_t>(p)] = p;
  w.dart_unit = w.world;
  w.permuted = false;
  w.contexts.store(0);  // a restart starts with no contexts
  w.predefined = true;
  w.magic = kTeamMagic;
}

// Fills `t` for the DART team `dart` whose members are `members` (world
// PEs in the team's order). DART numbers a team's units by ascending
// global id, so a member's DART unit is its rank among the sorted members.
void fill_team(dart_shmem_team& t, dart_team_t dart, const std::vector<int>& members) {
  t.dart = dart;
  t.world = members;
  t.n_pes = static_cast<int>(members.size());
  t.of_world.assign(static_cast<std::size_t>(st.npes), -1);
  std::vector<int> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  t.dart_unit.assign(members.size(), 0);
  t.permuted = false;
  for (int k = 0; k < t.n_pes; ++k) {
    const int w = members[static_cast<std::size_t>(k)];
    t.of_world[static_cast<std::size_t>(w)] = k;
    if (w == st.me) t.my_pe = k;
    const int u = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), w) - sorted.begin());
    t.dart_unit[static_cast<std::size_t>(k)] = u;
    if (u != k) t.permuted = true;
  }
  t.magic = kTeamMagic;
}

// Creates the DART team of `members` (world PEs of `parent`, ascending);
// collective over the parent. DART_TEAM_NULL for non-members.
bool create_dart_team(const char* call, const dart_shmem_team& parent, const std::vector<int>& members,
                      dart_team_t* out) {
  *out = DART_TEAM_NULL;
  dart_group_t group = nullptr;
  dart_ret_t ret = dart_group_create(&group);
  for (std::size_t k = 0; ret == DART_OK && k < members.size(); ++k)
    ret = dart_group_addmember(group, dart_global_unit_t{members[k]});
  if (ret == DART_OK) ret = dart_team_create(parent.dart, group, out);
  if (group) dart_group_destroy(&group);
  if (ret != DART_OK) {
    dart_failed(call, ret);
    return false;
  }
  return true;
}

// SHMEM_TEAM_SHARED: the PEs whose symmetric heaps the caller maps (its
// node, with load/store on; itself alone otherwise). Each node's team is
// created in turn by all PEs, as DART's team creation asks of every member
// of the parent; when one node holds every PE the world team serves.
void init_shared_team() {
  int leader = st.me;
  for (int p = 0; p < st.npes; ++p)
    if (st.direct[static_cast<std::size_t>(p)]) {
      leader = p;
      break;
    }
  std::vector<int> leaders(static_cast<std::size_t>(st.npes));
  dart_allgather(&leader, leaders.data(), 1, DART_TYPE_INT, DART_TEAM_ALL);
  dart_shmem_team& s = dart_shmem_team_shared_;
  s.predefined = true;
  if (std::all_of(leaders.begin(), leaders.end(), [](int l) { return l == 0; })) {
    fill_team(s, DART_TEAM_ALL, dart_shmem_team_world_.world);
    return;
  }
  std::vector<int> distinct = leaders;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (int l : distinct) {
    std::vector<int> members;
    for (int p = 0; p < st.npes; ++p)
      if (leaders[static_cast<std::size_t>(p)] == l) members.push_back(p);
    dart_team_t t = DART_TEAM_NULL;
    if (!create_dart_team("shmem_init", dart_shmem_team_world_, members, &t)) continue;
    if (t != DART_TEAM_NULL) fill_team(s, t, members);
  }
}

// At exit: whatever shmem_init calls are still unmatched end here, with
// the last finalisation's full release; then MPI, which the library kept
// up across restarts (mpi_interop.cpp).
void finalize_at_exit() {
  if (st.initialized && !st.finalized) {
    st.init_count = 1;
    shmem_finalize();
  }
  mpi_interop::release_at_exit();
}

bool valid_team(const char* call, shmem_team_t team) {
  if (team && team->magic == kTeamMagic) return true;
  fail(call, SHMEMX_ERR_TEAM, team ? "the team is not valid (destroyed, or not a team)" : "the team is SHMEM_TEAM_INVALID");
  return false;
}

}  // namespace

std::string hex(const void* p) {
  char buf[2 + 2 * sizeof(void*) + 1];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

void fail(const char* call, int code, const std::string& reason) {
  t_last_error = code;
  std::fprintf(stderr, "shmem: PE %d: %s: %s\n", st.me, call, reason.c_str());
  std::fflush(stderr);
}

void dart_failed(const char* call, dart_ret_t ret) {
  fail(call, SHMEMX_ERR_RUNTIME, "the runtime failed underneath (DART error " + std::to_string(static_cast<int>(ret)) +
                                     ", logged above)");
}

bool require_init(const char* call) {
  if (st.initialized && !st.finalized) return true;
  t_last_error = SHMEMX_ERR_NOT_INITIALIZED;
  std::fprintf(stderr, "shmem: %s: called %s\n", call,
               st.finalized ? "after shmem_finalize" : "before shmem_init");
  std::fflush(stderr);
  return false;
}

bool valid_ctx(const char* call, shmem_ctx_t ctx) {
  if (ctx && ctx->magic == kCtxMagic) return true;
  fail(call, SHMEMX_ERR_CTX, ctx ? "the context is not valid (destroyed, or not a context)"
                                 : "the context is SHMEM_CTX_INVALID");
  return false;
}

int world_pe(const char* call, shmem_ctx_t ctx, int pe) {
  const dart_shmem_team* team = ctx->team;
  if (pe < 0 || pe >= team->n_pes) {
    fail(call, SHMEMX_ERR_PE,
         "PE " + std::to_string(pe) + " is outside the context's team (" + std::to_string(team->n_pes) + " PEs)");
    return -1;
  }
  return team->world[static_cast<std::size_t>(pe)];
}

bool remote(const char* call, const void* addr, std::size_t bytes, int world, Remote* out) {
  const char* a = static_cast<const char*>(addr);
  const auto past_end = [&](const char* what) {
    fail(call, SHMEMX_ERR_ADDRESS,
         "the " + std::to_string(bytes) + " bytes at " + hex(addr) +
             " run past the end of " + what);
    return false;
  };
  if (world < 0 || world >= st.npes) {
    fail(call, SHMEMX_ERR_PE, "PE " + std::to_string(world) + " does not exist (" + std::to_string(st.npes) + " PEs)");
    return false;
  }
  std::size_t off = static_cast<std::size_t>(a - st.heap_base);
  if (a >= st.heap_base && off < st.heap_bytes) {
    if (bytes > st.heap_bytes - off) return past_end("the symmetric heap");
    out->g = st.heap;
    out->g.unitid = world;
    out->g.addr_or_offs.offset = st.skew[static_cast<std::size_t>(world)] + off;
    char* base = st.direct[static_cast<std::size_t>(world)];
    out->direct = base ? base + off : nullptr;
    return true;
  }
  off = static_cast<std::size_t>(a - st.glob_base);
  if (st.have_globals && a >= st.glob_base && off < st.glob_bytes) {
    if (bytes > st.glob_bytes - off) return past_end("the program's global variables");
    out->g = st.glob;
    out->g.unitid = world;
    out->g.addr_or_offs.offset = off;
    // A node mate's globals are mapped here when they are shared
    // (globals.cpp); otherwise private memory, reached through MPI.
    out->direct = world == st.me ? const_cast<char*>(a) : heap_direct(addr, bytes, world);
    return true;
  }
  fail(call, SHMEMX_ERR_ADDRESS,
       "address " + hex(addr) +
           " is not symmetric (neither in the symmetric heap nor a global or static variable)");
  return false;
}

bool local_gptr(const char* call, const void* addr, std::size_t bytes, dart_gptr_t* out) {
  Remote r;
  if (!remote(call, addr, bytes, st.me, &r)) return false;
  *out = r.g;
  return true;
}

void quiet(const char* call, shmem_ctx_t ctx) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (ctx->mpi_pending.load(std::memory_order_relaxed) && ctx->mpi_pending.exchange(false)) {
    const dart_ret_t ret = dart_ctx_quiet(ctx->dart);
    if (ret != DART_OK) dart_failed(call, ret);
  }
}

// ---- the symmetric heap ---------------------------------------------------

namespace {

// Agreement for a collective memory routine: one allreduce carries every
// PE's arguments, and doubles as the routine's barrier. False (on every
// PE) when they differ.
}  // namespace

void quiet_all(const char* call) {
  quiet(call, SHMEM_CTX_DEFAULT);
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  const auto me = std::this_thread::get_id();
  for (dart_shmem_ctx* c : g_live_ctxs)
    if (c->mpi_pending.load(std::memory_order_relaxed) && (!(c->options & SHMEM_CTX_PRIVATE) || c->owner == me))
      quiet(call, c);
}

namespace {

bool agree(const char* call, std::initializer_list<long long> args) {
  std::vector<long long> mine;
  for (long long a : args) {
    mine.push_back(a);
    mine.push_back(-a);
  }
  std::vector<long long> all(mine.size());
  const dart_ret_t ret =
      dart_allreduce(mine.data(), all.data(), mine.size(), DART_TYPE_LONGLONG, DART_OP_MAX, DART_TEAM_ALL);
  if (ret != DART_OK) {
    dart_failed(call, ret);
    return false;
  }
  for (std::size_t i = 0; i < all.size(); i += 2)
    if (all[i] != -all[i + 1]) {
      fail(call, SHMEMX_ERR_MISMATCH, "the PEs passed different arguments (argument " + std::to_string(i / 2 + 1) +
                                          " ranges from " + std::to_string(-all[i + 1]) + " to " +
                                          std::to_string(all[i]) + ")");
      return false;
    }
  return true;
}

std::optional<std::size_t> heap_offset(const void* p) {
  const char* a = static_cast<const char*>(p);
  if (a < st.heap_base || a >= st.heap_base + st.heap_bytes) return std::nullopt;
  return static_cast<std::size_t>(a - st.heap_base);
}

void* allocate(const char* call, std::size_t bytes, std::size_t align, bool zero) {
  if (!require_init(call)) return nullptr;
  quiet(call, SHMEM_CTX_DEFAULT);
  if (!agree(call, {static_cast<long long>(bytes), static_cast<long long>(align)})) return nullptr;
  if (align == 0 || (align & (align - 1)) != 0) {
    fail(call, SHMEMX_ERR_ARG, "alignment " + std::to_string(align) + " is not a power of two");
    return nullptr;
  }
  if (align > kHeapAlign) {
    fail(call, SHMEMX_ERR_ARG,
         "alignment " + std::to_string(align) + " exceeds the largest the symmetric heap offers (" +
             std::to_string(kHeapAlign) + " bytes)");
    return nullptr;
  }
  align = std::max<std::size_t>(align, 64);
  if (bytes == 0) return nullptr;
  const auto off = g_heap.allocate(bytes, align);
  if (!off) {
    fail(call, SHMEMX_ERR_NOMEM,
         "the symmetric heap has no free block of " + std::to_string(bytes) + " bytes (" +
             std::to_string(g_heap.in_use()) + " of " + std::to_string(st.heap_bytes) +
             " bytes in use; raise SHMEM_SYMMETRIC_SIZE)");
    return nullptr;
  }
  char* p = st.heap_base + *off;
  if (zero) {
    std::memset(p, 0, bytes);
    // No PE may write into the block before its owner has cleared it.
    dart_barrier(DART_TEAM_ALL);
  }
  return p;
}

}  // namespace

}  // namespace dshmem

using namespace dshmem;

extern "C" {

// ---- setup, exit, query ---------------------------------------------------

int shmem_init_thread(int requested, int* provided) {
  if (st.initialized && !st.finalized) {
    // Counted (OpenSHMEM 1.6): a later initialisation keeps the library
    // and its thread level; the matching shmem_finalize undoes only it.
    ++st.init_count;
    if (provided) *provided = st.thread_level;
    return 0;
  }
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
    std::fprintf(stderr, "shmem: shmem_init_thread: unknown thread level %d\n", requested);
    return 1;
  }
  dart_ret_t ret = DART_OK;
  int level = SHMEM_THREAD_SINGLE;
  if (dart_initialized()) {
    // The program runs DART itself; OpenSHMEM shares its runtime.
    level = SHMEM_THREAD_MULTIPLE;
  } else if (!mpi_interop::hold()) {
    ret = DART_ERR_OTHER;
  } else if (requested == SHMEM_THREAD_SINGLE) {
    ret = dart_init(nullptr, nullptr);
    st.owns_dart = ret == DART_OK;
  } else {
    dart_thread_support_level_t dl = DART_THREAD_SINGLE;
    ret = dart_init_thread(nullptr, nullptr, &dl);
    st.owns_dart = ret == DART_OK;
    level = dl == DART_THREAD_MULTIPLE ? requested : SHMEM_THREAD_SINGLE;
  }
  if (ret != DART_OK) {
    std::fprintf(stderr, "shmem: shmem_init: the runtime could not start (DART error %d)\n", static_cast<int>(ret));
    return 1;
  }
  st.thread_level = std::min(level, std::max(requested, SHMEM_THREAD_SINGLE));
  dart_global_unit_t me;
  std::size_t n = 0;
  dart_myid(&me);
  dart_size(&n);
  st.me = me.id;
  st.npes = static_cast<int>(n);

  startup::Settings settings;
  if (!startup::read_settings(&settings)) {
    if (st.owns_dart) {
      dart_exit();
      mpi_interop::release();
    }
    return 1;
  }
  st.heap_bytes = settings.heap_bytes;
  // kHeapAlign more than the heap, for each PE's skew (below).
  ret = dart_team_memalloc_aligned(DART_TEAM_ALL, st.heap_bytes + kHeapAlign, DART_TYPE_BYTE, &st.heap);
  if (ret != DART_OK) {
    std::fprintf(stderr, "shmem: PE %d: shmem_init: the symmetric heap of %zu bytes could not be allocated "
                 "(DART error %d; lower SHMEM_SYMMETRIC_SIZE)\n", st.me, st.heap_bytes, static_cast<int>(ret));
    if (st.owns_dart) {
      dart_exit();
      mpi_interop::release();
    }
    return 1;
  }
  st.heap.addr_or_offs.offset = 0;
  st.direct.assign(static_cast<std::size_t>(st.npes), nullptr);
  for (int p = 0; p < st.npes; ++p) {
    dart_gptr_t g = st.heap;
    g.unitid = p;
    void* a = nullptr;
    if (dart_gptr_direct(g, &a) == DART_OK) st.direct[static_cast<std::size_t>(p)] = static_cast<char*>(a);
  }
  st.heap_base = st.direct[static_cast<std::size_t>(st.me)];
  if (!st.heap_base) {
    dart_gptr_t g = st.heap;
    g.unitid = st.me;
    void* a = nullptr;
    dart_gptr_getaddr(g, &a);
    st.heap_base = static_cast<char*>(a);
  }
  // Each PE's heap starts at the first kHeapAlign boundary of its part;
  // every PE learns every skew, which remote() adds to a heap offset.
  const std::uint64_t my_skew =
      (kHeapAlign - reinterpret_cast<std::uintptr_t>(st.heap_base) % kHeapAlign) % kHeapAlign;
  std::vector<std::uint64_t> skews(static_cast<std::size_t>(st.npes));
  dart_allgather(&my_skew, skews.data(), 1, DART_TYPE_ULONGLONG, DART_TEAM_ALL);
  st.skew.assign(skews.begin(), skews.end());
  st.heap_base += my_skew;
  for (int p = 0; p < st.npes; ++p)
    if (char*& d = st.direct[static_cast<std::size_t>(p)]) d += st.skew[static_cast<std::size_t>(p)];
  st.cpu_atomics = std::all_of(st.direct.begin(), st.direct.end(), [](char* p) { return p != nullptr; });
  g_heap.reset(st.heap_bytes);

  void* gbase = nullptr;
  std::size_t gbytes = 0;
  // Shared with the node mates first, so that MPI registers the memory
  // as it will stay (globals.cpp).
  if (dart_globals_range(&gbase, &gbytes) == DART_OK) globals::share(static_cast<char*>(gbase), gbytes);
  if (dart_globals_range(&gbase, &gbytes) == DART_OK && gbytes > 0 &&
      dart_team_memregister_globals(DART_TEAM_ALL, &st.glob) == DART_OK) {
    st.glob_base = static_cast<char*>(gbase);
    st.glob_bytes = gbytes;
    st.have_globals = true;
  }

  st.initialized = true;
  st.finalized = false;
  st.init_count = 1;
  init_world_team();
  init_shared_team();
  dart_shmem_ctx& c = dart_shmem_ctx_default_;
  c.dart = DART_CTX_DEFAULT;
  c.team = SHMEM_TEAM_WORLD;
  c.mpi_pending.store(false);
  c.in_session = false;
  c.session_options = 0;
  c.session_total_ops = SIZE_MAX;
  c.magic = kCtxMagic;
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit(finalize_at_exit);
  }
  if (provided) *provided = st.thread_level;
  startup::report(settings);
  // Every PE's heap and globals are registered before any PE uses them.
  dart_barrier(DART_TEAM_ALL);
  return 0;
}

void shmem_init(void) {
  if (shmem_init_thread(SHMEM_THREAD_SINGLE, nullptr) != 0) dart_abort(1);
}

void start_pes(int) { shmem_init(); }

void shmem_query_thread(int* provided) {
  if (provided) *provided = st.thread_level;
}

void shmem_query_initialized(int* initialized) {
  if (initialized) *initialized = st.initialized && !st.finalized ? 1 : 0;
}

void shmem_finalize(void) {
  if (!st.initialized || st.finalized) return;
  if (st.init_count > 1) {
    // Not the last matched finalisation: a barrier over the world team
    // (what it completes and synchronises is shmem_barrier_all's), and the
    // library stays up.
    --st.init_count;
    quiet_all("shmem_finalize");
    const dart_ret_t ret = dart_barrier(DART_TEAM_ALL);
    if (ret != DART_OK) dart_failed("shmem_finalize", ret);
    return;
  }
  st.init_count = 0;
  quiet_all("shmem_finalize");
  // The barrier fails only when the PEs are out of step (a PE skipped a
  // collective, or made one too many): DART has then broken its team, so
  // the collective frees below would fail too, and dart_exit ends it.
  const bool in_step = dart_barrier(DART_TEAM_ALL) == DART_OK;
  st.finalized = true;
  dart_shmem_ctx_default_.magic = 0;
  if (in_step && dart_shmem_team_shared_.dart != DART_TEAM_ALL && dart_shmem_team_shared_.dart != DART_TEAM_NULL)
    dart_team_destroy(&dart_shmem_team_shared_.dart);
  dart_shmem_team_shared_.magic = 0;
  dart_shmem_team_world_.magic = 0;
  if (st.have_globals) dart_team_memderegister(st.glob);
  globals::unshare();
  if (in_step) dart_team_memfree(st.heap);
  st.have_globals = false;
  st.heap_base = nullptr;
  st.heap_bytes = 0;
  st.direct.clear();
  st.skew.clear();
  // Contexts the program did not destroy die with the runtime: a later
  // call on one is refused, and a restart starts with none.
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    for (dart_shmem_ctx* c : g_live_ctxs) {
      c->magic = 0;
      g_dead_ctxs.push_back(c);
    }
    g_live_ctxs.clear();
  }
  if (st.owns_dart) {
    dart_exit();
    mpi_interop::release();
  }
  st.owns_dart = false;
  st.initialized = false;
}

void shmem_global_exit(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  dart_abort(status);
}

int shmem_my_pe(void) { return st.initialized && !st.finalized ? st.me : -1; }
int shmem_n_pes(void) { return st.initialized && !st.finalized ? st.npes : -1; }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }

int shmem_pe_accessible(int pe) {
  return st.initialized && !st.finalized && pe >= 0 && pe < st.npes ? 1 : 0;
}

int shmem_addr_accessible(const void* addr, int pe) {
  if (!shmem_pe_accessible(pe)) return 0;
  const char* a = static_cast<const char*>(addr);
  if (a >= st.heap_base && a < st.heap_base + st.heap_bytes) return 1;
  return st.have_globals && a >= st.glob_base && a < st.glob_base + st.glob_bytes ? 1 : 0;
}

void* shmem_ptr(const void* dest, int pe) {
  if (!require_init("shmem_ptr")) return nullptr;
  Remote r;
  if (!remote("shmem_ptr", dest, 1, pe, &r)) return nullptr;
  return r.direct;
}

void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) {
  if (!require_init("shmem_team_ptr") || !valid_team("shmem_team_ptr", team)) return nullptr;
  if (pe < 0 || pe >= team->n_pes) {
    fail("shmem_team_ptr", SHMEMX_ERR_PE,
         "PE " + std::to_string(pe) + " is outside the team (" + std::to_string(team->n_pes) + " PEs)");
    return nullptr;
  }
  return shmem_ptr(dest, team->world[static_cast<std::size_t>(pe)]);
}

void shmem_info_get_version(int* major, int* minor) {
  if (major) *major = SHMEM_MAJOR_VERSION;
  if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char* name) {
  if (!name) return;
  std::snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

int shmemx_last_error(void) {
  const int e = t_last_error;
  t_last_error = SHMEMX_SUCCESS;
  return e;
}

size_t shmemx_heap_size(void) { return st.heap_bytes; }
size_t shmemx_heap_used(void) { return g_heap.in_use(); }

// ---- memory management ------------------------------------------------------

void* shmem_malloc(size_t size) { return allocate("shmem_malloc", size, 64, false); }
void* shmem_calloc(size_t count, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    fail("shmem_calloc", SHMEMX_ERR_ARG, "count * size overflows");
    return nullptr;
  }
  return allocate("shmem_calloc", bytes, 64, true);
}
void* shmem_malloc_with_hints(size_t size, long) { return allocate("shmem_malloc_with_hints", size, 64, false); }
void* shmem_align(size_t alignment, size_t size) {
  // allocate() checks the alignment once the PEs agree on it, so that a
  // bad one fails on every PE alike.
  return allocate("shmem_align", size, alignment, false);
}

void shmem_free(void* ptr) {
  constexpr const char* call = "shmem_free";
  if (!require_init(call)) return;
  quiet(call, SHMEM_CTX_DEFAULT);
  const auto off = ptr ? heap_offset(ptr) : std::optional<std::size_t>(SIZE_MAX);
  const long long mine = off ? static_cast<long long>(*off) : -2;
  if (!agree(call, {mine})) return;
  if (!ptr) return;
  if (!off || !g_heap.release(*off)) {
    fail(call, SHMEMX_ERR_ADDRESS,
         "address " + hex(ptr) +
             " is not a block of the symmetric heap (not from shmem_malloc, or freed already)");
    return;
  }
}

void* shmem_realloc(void* ptr, size_t size) {
  constexpr const char* call = "shmem_realloc";
  if (!ptr) return allocate(call, size, 64, false);
  if (!require_init(call)) return nullptr;
  if (size == 0) {
    shmem_free(ptr);
    return nullptr;
  }
  quiet(call, SHMEM_CTX_DEFAULT);
  const auto off = heap_offset(ptr);
  const long long mine = off ? static_cast<long long>(*off) : -2;
  if (!agree(call, {mine, static_cast<long long>(size)})) return nullptr;
  const std::optional<std::size_t> old = off ? g_heap.block_size(*off) : std::nullopt;
  if (!old) {
    fail(call, SHMEMX_ERR_ADDRESS,
         "address " + hex(ptr) + " is not a block of the symmetric heap");
    return nullptr;
  }
  if (g_heap.resize(*off, size)) return ptr;
  const auto fresh = g_heap.allocate(size, 64);
  if (!fresh) {
    fail(call, SHMEMX_ERR_NOMEM, "the symmetric heap has no free block of " + std::to_string(size) + " bytes");
    return nullptr;
  }
  std::memcpy(st.heap_base + *fresh, ptr, std::min(*old, size));
  (void)g_heap.release(*off);  // a live block: block_size() found it
  // No PE may write into the new block before its owner has copied.
  dart_barrier(DART_TEAM_ALL);
  return st.heap_base + *fresh;
}

void* shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void* ptr) { shmem_free(ptr); }
void* shrealloc(void* ptr, size_t size) { return shmem_realloc(ptr, size); }
void* shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }

// ---- teams -----------------------------------------------------------------

int shmem_team_my_pe(shmem_team_t team) {
  return st.initialized && team && team->magic == kTeamMagic ? team->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team) {
  return st.initialized && team && team->magic == kTeamMagic ? team->n_pes : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) {
  if (!require_init("shmem_team_get_config") || !valid_team("shmem_team_get_config", team)) return -1;
  // OpenSHMEM 1.6: a mask of 0 asks for nothing, and config may be NULL.
  if (config_mask == 0) return 0;
  if (!config) {
    fail("shmem_team_get_config", SHMEMX_ERR_ARG, "config is NULL");
    return -1;
  }
  if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = team->config.num_contexts;
  return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  if (!st.initialized || !src_team || src_team->magic != kTeamMagic || !dest_team || dest_team->magic != kTeamMagic)
    return -1;
  if (src_pe < 0 || src_pe >= src_team->n_pes) return -1;
  return dest_team->of_world[static_cast<std::size_t>(src_team->world[static_cast<std::size_t>(src_pe)])];
}

namespace {

shmem_team_t new_team(dart_team_t dart, const std::vector<int>& members, const shmem_team_config_t* config,
                      long mask) {
  auto* t = new dart_shmem_team;
  fill_team(*t, dart, members);
  if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) {
    t->config.num_contexts = config->num_contexts;
    t->config_mask = SHMEM_TEAM_NUM_CONTEXTS;
  }
  return t;
}

}  // namespace

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size, const shmem_team_config_t* config,
                             long config_mask, shmem_team_t* new_team_out) {
  constexpr const char* call = "shmem_team_split_strided";
  if (new_team_out) *new_team_out = SHMEM_TEAM_INVALID;
  if (!require_init(call) || !valid_team(call, parent)) return -1;
  if (parent->my_pe < 0) {
    fail(call, SHMEMX_ERR_TEAM, "the caller is not a member of the parent team");
    return -1;
  }
  if (!new_team_out) {
    fail(call, SHMEMX_ERR_ARG, "new_team is NULL");
    return -1;
  }
  // Every member checks the same arguments; the agreement makes a
  // difference an error everywhere instead of a hang in team creation.
  std::vector<long long> mine = {start, -static_cast<long long>(start), stride, -static_cast<long long>(stride),
                                 size, -static_cast<long long>(size)};
  std::vector<long long> all(mine.size());
  if (dart_allreduce(mine.data(), all.data(), mine.size(), DART_TYPE_LONGLONG, DART_OP_MAX, parent->dart) != DART_OK) {
    fail(call, SHMEMX_ERR_RUNTIME, "the agreement on the arguments failed");
    return -1;
  }
  for (std::size_t i = 0; i < all.size(); i += 2)
    if (all[i] != -all[i + 1]) {
      fail(call, SHMEMX_ERR_MISMATCH, "the members passed different start, stride or size");
      return -1;
    }
  // OpenSHMEM 1.6's errata: stride 0 names one PE (size must be 1); a
  // triplet that wraps around the parent's PEs is invalid; a negative
  // stride makes a team in reverse parent order (fill_team maps its PEs
  // onto the DART team's ascending units).
  const long long last = static_cast<long long>(start) + static_cast<long long>(size - 1) * stride;
  const auto triplet = "start " + std::to_string(start) + ", stride " + std::to_string(stride) + ", size " +
                       std::to_string(size);
  if (size < 1 || start < 0 || start >= parent->n_pes || last < 0 || last >= parent->n_pes) {
    fail(call, SHMEMX_ERR_ARG,
         triplet + " do not name PEs of the parent team (" + std::to_string(parent->n_pes) +
             " PEs; a sequence may not wrap around)");
    return -1;
  }
  if (stride == 0 && size > 1) {
    fail(call, SHMEMX_ERR_ARG, triplet + ": a stride of 0 names one PE, so size must be 1");
    return -1;
  }
  std::vector<int> members;
  for (int k = 0; k < size; ++k)
    members.push_back(parent->world[static_cast<std::size_t>(start + k * (size > 1 ? stride : 0))]);
  dart_team_t t = DART_TEAM_NULL;
  if (!create_dart_team(call, *parent, members, &t)) return -1;
  if (t != DART_TEAM_NULL) *new_team_out = new_team(t, members, config, config_mask);
  return 0;
}

int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t* xaxis_config, long xaxis_mask,
                        shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config, long yaxis_mask,
                        shmem_team_t* yaxis_team) {
  constexpr const char* call = "shmem_team_split_2d";
  if (xaxis_team) *xaxis_team = SHMEM_TEAM_INVALID;
  if (yaxis_team) *yaxis_team = SHMEM_TEAM_INVALID;
  if (!require_init(call) || !valid_team(call, parent)) return -1;
  if (!xaxis_team || !yaxis_team || xrange < 1) {
    fail(call, SHMEMX_ERR_ARG, xrange < 1 ? "xrange must be positive" : "xaxis_team or yaxis_team is NULL");
    return -1;
  }
  if (parent->my_pe < 0) {
    fail(call, SHMEMX_ERR_TEAM, "the caller is not a member of the parent team");
    return -1;
  }
  const int n = parent->n_pes;
  const int x = std::min(xrange, n);
  const int rows = (n + x - 1) / x;
  int ret = 0;
  // The x-axis teams are the rows of the parent's PEs laid out x wide; the
  // y-axis teams its columns. Every member takes part in each creation.
  for (int r = 0; r < rows; ++r) {
    std::vector<int> members;
    for (int p = r * x; p < std::min(n, (r + 1) * x); ++p) members.push_back(parent->world[static_cast<std::size_t>(p)]);
    dart_team_t t = DART_TEAM_NULL;
    if (!create_dart_team(call, *parent, members, &t)) ret = -1;
    else if (t != DART_TEAM_NULL) *xaxis_team = new_team(t, members, xaxis_config, xaxis_mask);
  }
  for (int c = 0; c < x; ++c) {
    std::vector<int> members;
    for (int p = c; p < n; p += x) members.push_back(parent->world[static_cast<std::size_t>(p)]);
    dart_team_t t = DART_TEAM_NULL;
    if (!create_dart_team(call, *parent, members, &t)) ret = -1;
    else if (t != DART_TEAM_NULL) *yaxis_team = new_team(t, members, yaxis_config, yaxis_mask);
  }
  return ret;
}

void shmem_team_destroy(shmem_team_t team) {
  constexpr const char* call = "shmem_team_destroy";
  if (!require_init(call) || !valid_team(call, team)) return;
  if (team->predefined) {
    fail(call, SHMEMX_ERR_TEAM, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed");
    return;
  }
  quiet(call, SHMEM_CTX_DEFAULT);
  const dart_ret_t ret = dart_team_destroy(&team->dart);
  if (ret != DART_OK) dart_failed(call, ret);
  team->magic = 0;
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  g_dead_teams.push_back(team);
}

// ---- contexts ---------------------------------------------------------------

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) {
  constexpr const char* call = "shmem_team_create_ctx";
  if (ctx) *ctx = SHMEM_CTX_INVALID;
  if (!require_init(call) || !valid_team(call, team)) return -1;
  if (!ctx) {
    fail(call, SHMEMX_ERR_ARG, "ctx is NULL");
    return -1;
  }
  if (options & ~(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)) {
    fail(call, SHMEMX_ERR_ARG, "unknown options " + std::to_string(options));
    return -1;
  }
  if (team->my_pe < 0) {
    fail(call, SHMEMX_ERR_TEAM, "the caller is not a member of the team");
    return -1;
  }
  if ((team->config_mask & SHMEM_TEAM_NUM_CONTEXTS) && team->contexts.load() >= team->config.num_contexts) {
    // The team was created for a fixed number of contexts: not an error
    // of the program, the specification's way to say there are none left.
    return -1;
  }
  dart_ctx_t d = DART_CTX_DEFAULT;
  const dart_ret_t ret = dart_ctx_create(static_cast<unsigned>(options), &d);
  if (ret != DART_OK) {
    dart_failed(call, ret);
    return -1;
  }
  dart_shmem_ctx* c = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    if (!g_dead_ctxs.empty()) {
      c = g_dead_ctxs.back();
      g_dead_ctxs.pop_back();
    }
  }
  if (!c) c = new dart_shmem_ctx;
  c->dart = d;
  c->team = team;
  c->options = options;
  c->owner = std::this_thread::get_id();
  c->mpi_pending.store(false);
  c->in_session = false;
  c->session_options = 0;
  c->session_total_ops = SIZE_MAX;
  team->contexts.fetch_add(1);
  c->magic = kCtxMagic;
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    g_live_ctxs.push_back(c);
  }
  *ctx = c;
  return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t* ctx) { return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx); }

void shmem_ctx_destroy(shmem_ctx_t ctx) {
  constexpr const char* call = "shmem_ctx_destroy";
  if (!require_init(call) || !valid_ctx(call, ctx)) return;
  if (ctx == SHMEM_CTX_DEFAULT) {
    fail(call, SHMEMX_ERR_CTX, "SHMEM_CTX_DEFAULT cannot be destroyed");
    return;
  }
  quiet(call, ctx);
  const dart_ret_t ret = dart_ctx_destroy(&ctx->dart);
  if (ret != DART_OK) dart_failed(call, ret);
  ctx->magic = 0;
  if (ctx->team && ctx->team->magic == kTeamMagic) ctx->team->contexts.fetch_sub(1);
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  g_live_ctxs.erase(std::remove(g_live_ctxs.begin(), g_live_ctxs.end(), ctx), g_live_ctxs.end());
  g_dead_ctxs.push_back(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) {
  if (team) *team = SHMEM_TEAM_INVALID;
  if (!require_init("shmem_ctx_get_team") || !valid_ctx("shmem_ctx_get_team", ctx)) return -1;
  if (!team) {
    fail("shmem_ctx_get_team", SHMEMX_ERR_ARG, "team is NULL");
    return -1;
  }
  *team = ctx->team;
  return 0;
}

// ---- ordering ----------------------------------------------------------------

void shmem_ctx_quiet(shmem_ctx_t ctx) {
  if (!valid_ctx("shmem_ctx_quiet", ctx)) return;
  quiet("shmem_ctx_quiet", ctx);
}
void shmem_quiet(void) { quiet("shmem_quiet", SHMEM_CTX_DEFAULT); }

// OpenSHMEM 1.6: completes what the context issued to the named PEs (of
// its team). Load/store updates need only the fence; for MPI traffic of
// the default context, DART's per-target flush on the heap's and the
// globals' segments completes exactly those PEs' operations. A created
// context's DART context has no per-target flush: its quiet completes all
// of them, which the routine allows.
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes) {
  constexpr const char* call = "shmem_ctx_pe_quiet";
  if (!require_init(call) || !valid_ctx(call, ctx)) return;
  if (npes > 0 && !target_pes) return fail(call, SHMEMX_ERR_ARG, "target_pes is NULL");
  // Every PE is checked before anything completes; no allocation, since
  // on one node the routine is the fence alone and costs what quiet does.
  for (size_t k = 0; k < npes; ++k)
    if (world_pe(call, ctx, target_pes[k]) < 0) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!ctx->mpi_pending.load(std::memory_order_relaxed)) return;
  if (ctx != SHMEM_CTX_DEFAULT) return quiet(call, ctx);
  const dart_gptr_t segments[2] = {st.heap, st.glob};
  const int n_segments = st.have_globals ? 2 : 1;
  for (size_t k = 0; k < npes; ++k)
    for (int i = 0; i < n_segments; ++i) {
      dart_gptr_t g = segments[i];
      g.unitid = world_pe(call, ctx, target_pes[k]);
      const dart_ret_t ret = dart_flush(g);
      if (ret != DART_OK) return dart_failed(call, ret);
    }
}
void shmem_pe_quiet(const int* target_pes, size_t npes) {
  shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes);
}

void shmem_ctx_fence(shmem_ctx_t ctx) {
  if (!valid_ctx("shmem_ctx_fence", ctx)) return;
  // Load/store puts leave this process in program order (x86-TSO and the
  // release fence); MPI's do not, so those take DART's fence.
  std::atomic_thread_fence(std::memory_order_release);
  if (ctx->mpi_pending.load(std::memory_order_relaxed)) {
    const dart_ret_t ret = dart_ctx_fence(ctx->dart);
    if (ret != DART_OK) dart_failed("shmem_ctx_fence", ret);
  }
}
void shmem_fence(void) { shmem_ctx_fence(SHMEM_CTX_DEFAULT); }

// ---- profiling control --------------------------------------------------------
//
// As MPI_Pcontrol: a hook for profiling tools that intercept it; without
// one, the specification gives it no effect.
void shmem_pcontrol(const int, ...) {}

// ---- cache management: memory is coherent, there is nothing to do ----------

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

}  // extern "C"
