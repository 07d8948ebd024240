// The OpenSHMEM front end's internals: its state, the one function that
// resolves a symmetric address at a PE (remote()), and the error path.
//
// Symmetric memory is two DART segments of the world team: the symmetric
// heap (one segment allocated at shmem_init, carved up by a deterministic
// allocator that every PE runs identically) and the program's global
// variables (dart_team_memregister_globals). An address is symmetric when
// it falls in the caller's part of either; the same offset names the
// object on every PE. For a PE whose heap the caller maps (a node mate,
// load/store on) the front end keeps the mapped base, so a put there is a
// bounds check and a copy, with no call into DART.
#pragma once

#include <shmem.h>
#include <shmemx.h>

#include <dash/dart/ext/dart_ctx.h>
#include <dash/dart/if/dart.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

struct dart_shmem_team {
  std::uint32_t magic = 0;
  dart_team_t dart = DART_TEAM_NULL;
  int my_pe = -1;
  int n_pes = 0;
  std::vector<int> world;    // team PE -> world PE
  std::vector<int> of_world; // world PE -> team PE, -1 for non-members
  // Team PE -> unit of the DART team. DART numbers a team's units by
  // ascending world PE; a team in another order (a negative stride of
  // shmem_team_split_strided, or a team split from such a team) is
  // `permuted`, and its collectives reorder blocks (coll.cpp, scan.cpp).
  std::vector<int> dart_unit;
  bool permuted = false;
  shmem_team_config_t config{};
  long config_mask = 0;
  bool predefined = false;
  std::atomic<int> contexts{0};
};

struct dart_shmem_ctx {
  std::uint32_t magic = 0;
  dart_ctx_t dart = DART_CTX_DEFAULT;
  shmem_team_t team = nullptr;
  long options = 0;
  std::thread::id owner;  // the creating thread (SHMEM_CTX_PRIVATE)
  // Set when an operation went through MPI (not load/store): only then
  // does a quiet need DART (a load/store quiet is one fence).
  std::atomic<bool> mpi_pending{false};
  // The session (OpenSHMEM 1.6, session.cpp): its options (0: none
  // started) and the total_ops hint (SIZE_MAX: not given).
  long session_options = 0;
  bool in_session = false;
  std::size_t session_total_ops = SIZE_MAX;
};

namespace dshmem {

constexpr std::uint32_t kTeamMagic = 0x5445414dU;  // "TEAM"
constexpr std::uint32_t kCtxMagic = 0x43545854U;   // "CTXT"
// The alignment of every PE's heap start: a huge page, the largest
// alignment shmem_align grants.
constexpr std::size_t kHeapAlign = std::size_t(2) << 20;

struct State {
  bool initialized = false;
  bool finalized = false;
  // shmem_init calls not yet matched by a shmem_finalize (OpenSHMEM 1.6:
  // every finalize but the last matched one is a barrier).
  int init_count = 0;
  bool owns_dart = false;  // shmem_init started DART (and so ends it)
  int me = -1;
  int npes = 0;
  int thread_level = SHMEM_THREAD_SINGLE;
  // The symmetric heap: the caller's part and the segment.
  char* heap_base = nullptr;
  std::size_t heap_bytes = 0;
  dart_gptr_t heap{};
  // Per world PE: that PE's heap mapped into this process, or nullptr.
  std::vector<char*> direct;
  // Per world PE: where its heap starts in its part of the segment (the
  // DART offset of heap offset 0 there). Each PE starts its heap at an
  // address aligned to kHeapAlign, so that an offset aligned to any power
  // of two up to it is aligned on every PE (shmem_align).
  std::vector<std::size_t> skew;
  // Whether atomics on the heap are CPU atomics (every PE maps every
  // other: DART's own rule, rma/atomics.hpp, so both sides agree).
  bool cpu_atomics = false;
  // The program's global variables.
  char* glob_base = nullptr;
  std::size_t glob_bytes = 0;
  dart_gptr_t glob{};
  bool have_globals = false;
  // Per world PE: that PE's global variables mapped into this process
  // (globals.cpp), or nullptr (not a node mate, or sharing is off).
  std::vector<char*> glob_direct;
};
extern State st;

// Error codes of shmemx_last_error (shmemx.h).
void fail(const char* call, int code, const std::string& reason);
// An address as the log prints it.
std::string hex(const void* p);
// A DART call that failed (DART has logged why); records the error.
void dart_failed(const char* call, dart_ret_t ret);
// Logs and records unless shmem_init has run; returns whether it has.
bool require_init(const char* call);

// A symmetric address resolved at a PE.
struct Remote {
  dart_gptr_t g{};        // the address at the target
  char* direct = nullptr; // the caller's load/store address, or nullptr
};

// The team PE `pe` of `ctx`'s team as a world PE, or -1 (logged).
int world_pe(const char* call, shmem_ctx_t ctx, int pe);

// Validates a context (logged when invalid).
bool valid_ctx(const char* call, shmem_ctx_t ctx);

// Resolves `bytes` at the symmetric `addr` on world PE `pe`. Logs and
// returns false for memory that is not symmetric or a range that runs past
// it.
bool remote(const char* call, const void* addr, std::size_t bytes, int world, Remote* out);

// The fast path of remote(): the mapped address of `bytes` at `addr` (in
// the symmetric heap or the global variables) on a world PE whose memory
// the caller maps; nullptr otherwise (then the caller takes remote(),
// which explains any error).
[[gnu::always_inline]] inline char* heap_direct(const void* addr, std::size_t bytes, int world) noexcept {
  const std::size_t off = static_cast<std::size_t>(static_cast<const char*>(addr) - st.heap_base);
  if (static_cast<unsigned>(world) >= st.direct.size()) return nullptr;
  if (off < st.heap_bytes && bytes <= st.heap_bytes - off) {
    char* base = st.direct[static_cast<std::size_t>(world)];
    return base ? base + off : nullptr;
  }
  const std::size_t goff = static_cast<std::size_t>(static_cast<const char*>(addr) - st.glob_base);
  if (goff < st.glob_bytes && bytes <= st.glob_bytes - goff && static_cast<unsigned>(world) < st.glob_direct.size()) {
    char* base = st.glob_direct[static_cast<std::size_t>(world)];
    return base ? base + goff : nullptr;
  }
  return nullptr;
}

// The caller's own symmetric object as a global pointer (waits, signals).
bool local_gptr(const char* call, const void* addr, std::size_t bytes, dart_gptr_t* out);

// Notes MPI traffic on a context.
inline void note_mpi(shmem_ctx_t ctx) noexcept {
  if (!ctx->mpi_pending.load(std::memory_order_relaxed)) ctx->mpi_pending.store(true, std::memory_order_relaxed);
}

// Completes a context's operations (shmem_ctx_quiet without the checks).
void quiet(const char* call, shmem_ctx_t ctx);

// Completes the operations of the default context and of every created
// context the calling thread may use (all but other threads' private
// ones): what the barriers and syncs complete before they synchronise.
void quiet_all(const char* call);

// DART's basic type for a C type, or DART_TYPE_UNDEFINED (then the caller
// works on bytes or with a fallback).
template <class T>
constexpr dart_datatype_t dart_type() {
  if constexpr (std::is_same_v<T, float>) return DART_TYPE_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return DART_TYPE_DOUBLE;
  else if constexpr (std::is_same_v<T, long double>) return DART_TYPE_LONG_DOUBLE;
  else if constexpr (std::is_same_v<T, short>) return DART_TYPE_SHORT;
  else if constexpr (std::is_same_v<T, int>) return DART_TYPE_INT;
  else if constexpr (std::is_same_v<T, unsigned int>) return DART_TYPE_UINT;
  else if constexpr (std::is_same_v<T, long>) return DART_TYPE_LONG;
  else if constexpr (std::is_same_v<T, unsigned long>) return DART_TYPE_ULONG;
  else if constexpr (std::is_same_v<T, long long>) return DART_TYPE_LONGLONG;
  else if constexpr (std::is_same_v<T, unsigned long long>) return DART_TYPE_ULONGLONG;
  else return DART_TYPE_UNDEFINED;
}

// Team collectives' and the active-set routines' shared pieces (coll.cpp).
struct ActiveSet {
  int start = 0;
  int stride = 1;
  int size = 0;
  int index = -1;  // the caller's position, -1 when not a member
  [[nodiscard]] int pe(int k) const { return start + k * stride; }
};
bool active_set(const char* call, int PE_start, int logPE_stride, int PE_size, ActiveSet* out);
void active_barrier(const char* call, const ActiveSet& set, long* pSync, bool complete);

// Blocking byte transfers used by the collectives and locks (default context).
bool get_bytes(const char* call, void* dest, const void* source, std::size_t bytes, int world);

// Long atomics on the default context (locks, active-set synchronisation).
long amo_long(const char* call, long* dest, long value, long compare, dart_operation_t op, bool cas, int world);

}  // namespace dshmem
