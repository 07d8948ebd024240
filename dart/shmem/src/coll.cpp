// OpenSHMEM collectives over DART.
//
// Team collectives are DART collectives on the team's DART team, on the
// caller's local buffers (source and dest are symmetric, so each PE's are
// its own). The deprecated active-set routines name their PEs by start,
// stride and size. A set of every PE (start 0, size n_pes: what most
// programs and benchmarks pass) is the world team and takes the world
// team's collective, at the team routine's cost. Any other set has no
// team to run a DART collective on, only its members calling: it
// synchronises through the caller's pSync words with atomics and waits,
// and moves data with gets, deterministic in the set's PE order.
#include "internal.hpp"

#include <dash/dart/ext/dart_wait.h>

#include <algorithm>
#include <complex>
#include <vector>

namespace dshmem {
namespace {

bool valid_team_member(const char* call, shmem_team_t team) {
  if (!require_init(call)) return false;
  if (!team || team->magic != kTeamMagic) {
    fail(call, SHMEMX_ERR_TEAM, team ? "the team is not valid (destroyed, or not a team)" : "the team is SHMEM_TEAM_INVALID");
    return false;
  }
  if (team->my_pe < 0) {
    fail(call, SHMEMX_ERR_TEAM, "the caller is not a member of the team");
    return false;
  }
  return true;
}

int finish(const char* call, dart_ret_t ret) {
  if (ret == DART_OK) return 0;
  dart_failed(call, ret);
  return -1;
}

// DART moves at most INT_MAX elements per call on some paths; bytes are
// moved as elements of up to 8 bytes when the size allows.
struct Units {
  dart_datatype_t type;
  std::size_t count;
};
Units units_of(std::size_t bytes) {
  if (bytes % 8 == 0) return {DART_TYPE_LONGLONG, bytes / 8};
  if (bytes % 4 == 0) return {DART_TYPE_INT, bytes / 4};
  return {DART_TYPE_BYTE, bytes};
}

// A team whose PE order is not its DART team's (team->permuted: a team
// split with a negative stride) moves blocks between the two orders: team
// PE k is DART unit team->dart_unit[k].
std::size_t unit(shmem_team_t team, std::size_t k) {
  return static_cast<std::size_t>(team->dart_unit[k]);
}

// Large broadcasts, collects and fcollects between PEs that all map each other's
// memory pull: every PE copies the others' symmetric source straight into
// its dest, in parallel, between two synchronisations, one copy per byte.
// DART's collectives take arbitrary local buffers, so on a node they pass
// the data through the node's staging buffer, two copies per byte: at 64
// KiB and more that second copy is most of the cost (OSU's broadcast, 2
// PEs: 10.1 us at 64 KiB, where a pull by one barrier and a copy is the
// copy alone). Below kPullMin DART's path is faster than two barriers.
// Every PE makes the same choice: st.cpu_atomics is the same on every PE
// (each maps every other), the size is the same everywhere (the
// specification requires it), and source is symmetric on every PE or on
// none in a correct program; a program that passes private memory on some
// PEs only is told so by DART, whose node collectives compare the calls.
constexpr std::size_t kPullMin = 4096;

bool pull_path(const void* source, std::size_t bytes) {
  return st.cpu_atomics && bytes >= kPullMin && heap_direct(source, bytes, st.me) != nullptr;
}

// One copy of the root's source into dest on every PE but the root.
int pull_broadcast(const char* call, dart_team_t dteam, void* dest, const void* source, std::size_t bytes,
                   int root_world) {
  dart_ret_t ret = dart_barrier(dteam);  // the root's source is ready
  if (ret != DART_OK) return finish(call, ret);
  if (root_world != st.me) std::memcpy(dest, heap_direct(source, bytes, root_world), bytes);
  return finish(call, dart_barrier(dteam));  // nobody reads the root's source any more
}

int broadcast(const char* call, shmem_team_t team, void* dest, const void* source, std::size_t bytes, int root) {
  if (!valid_team_member(call, team)) return -1;
  if (root < 0 || root >= team->n_pes) {
    fail(call, SHMEMX_ERR_PE, "root " + std::to_string(root) + " is outside the team (" +
                                  std::to_string(team->n_pes) + " PEs)");
    return -1;
  }
  if (bytes == 0) return 0;
  if (team->my_pe == root && dest != source) std::memmove(dest, source, bytes);
  if (pull_path(source, bytes))
    return pull_broadcast(call, team->dart, dest, source, bytes, team->world[static_cast<std::size_t>(root)]);
  const Units u = units_of(bytes);
  const int droot = team->dart_unit[static_cast<std::size_t>(root)];
  return finish(call, dart_bcast(dest, u.count, u.type, dart_team_unit_t{droot}, team->dart));
}

int fcollect(const char* call, shmem_team_t team, void* dest, const void* source, std::size_t bytes) {
  if (!valid_team_member(call, team)) return -1;
  if (bytes == 0) return 0;
  const auto n_all = static_cast<std::size_t>(team->n_pes);
  if (pull_path(source, bytes)) {
    dart_ret_t ret = dart_barrier(team->dart);  // every source is ready
    if (ret != DART_OK) return finish(call, ret);
    for (std::size_t k = 0; k < n_all; ++k)
      std::memcpy(static_cast<char*>(dest) + k * bytes, heap_direct(source, bytes, team->world[k]), bytes);
    return finish(call, dart_barrier(team->dart));  // nobody reads this PE's source any more
  }
  const Units u = units_of(bytes);
  if (!team->permuted) return finish(call, dart_allgather(source, dest, u.count, u.type, team->dart));
  const auto n = static_cast<std::size_t>(team->n_pes);
  std::vector<char> all(n * bytes);
  const dart_ret_t ret = dart_allgather(source, all.data(), u.count, u.type, team->dart);
  if (ret != DART_OK) return finish(call, ret);
  for (std::size_t k = 0; k < n; ++k)
    std::memcpy(static_cast<char*>(dest) + k * bytes, all.data() + unit(team, k) * bytes, bytes);
  return 0;
}

int collect(const char* call, shmem_team_t team, void* dest, const void* source, std::size_t bytes) {
  if (!valid_team_member(call, team)) return -1;
  const auto n = static_cast<std::size_t>(team->n_pes);
  std::vector<std::size_t> counts(n), displs(n);
  unsigned long long mine = bytes;
  std::vector<unsigned long long> all(n);
  dart_ret_t ret = dart_allgather(&mine, all.data(), 1, DART_TYPE_ULONGLONG, team->dart);
  if (ret != DART_OK) return finish(call, ret);
  // counts and displs are by DART unit; dest is in team PE order.
  std::size_t at = 0;
  for (std::size_t k = 0; k < n; ++k) {
    counts[k] = static_cast<std::size_t>(all[k]);
    displs[k] = at;
    at += counts[k];
  }
  if (at == 0) return 0;
  // The allgather of the sizes had every PE enter, so every source is
  // ready: each PE copies the others' blocks in team PE order, then waits
  // until nobody reads its own. The largest block fits at source's offset
  // on this PE, so it does on every PE (the same offset in the same heap).
  const std::size_t largest = *std::max_element(counts.begin(), counts.end());
  if (st.cpu_atomics && at >= kPullMin && heap_direct(source, largest, st.me)) {
    char* d = static_cast<char*>(dest);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t c = counts[unit(team, k)];
      if (c) std::memcpy(d, heap_direct(source, c, team->world[k]), c);
      d += c;
    }
    return finish(call, dart_barrier(team->dart));
  }
  if (!team->permuted)
    return finish(call, dart_allgatherv(source, bytes, DART_TYPE_BYTE, dest, counts.data(), displs.data(), team->dart));
  std::vector<char> gathered(at);
  ret = dart_allgatherv(source, bytes, DART_TYPE_BYTE, gathered.data(), counts.data(), displs.data(), team->dart);
  if (ret != DART_OK) return finish(call, ret);
  char* d = static_cast<char*>(dest);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t u = unit(team, k);
    std::memcpy(d, gathered.data() + displs[u], counts[u]);
    d += counts[u];
  }
  return 0;
}

int alltoall(const char* call, shmem_team_t team, void* dest, const void* source, std::size_t bytes) {
  if (!valid_team_member(call, team)) return -1;
  if (bytes == 0) return 0;
  const Units u = units_of(bytes);
  if (!team->permuted) return finish(call, dart_alltoall(source, dest, u.count, u.type, team->dart));
  // Block j of source goes to team PE j (DART unit dart_unit[j]); block j
  // of dest comes from it.
  const auto n = static_cast<std::size_t>(team->n_pes);
  std::vector<char> out(n * bytes), in(n * bytes);
  for (std::size_t j = 0; j < n; ++j)
    std::memcpy(out.data() + unit(team, j) * bytes, static_cast<const char*>(source) + j * bytes, bytes);
  const dart_ret_t ret = dart_alltoall(out.data(), in.data(), u.count, u.type, team->dart);
  if (ret != DART_OK) return finish(call, ret);
  for (std::size_t j = 0; j < n; ++j)
    std::memcpy(static_cast<char*>(dest) + j * bytes, in.data() + unit(team, j) * bytes, bytes);
  return 0;
}

int alltoalls(const char* call, shmem_team_t team, void* dest, const void* source, std::ptrdiff_t dst,
              std::ptrdiff_t sst, std::size_t nelems, std::size_t size) {
  if (!valid_team_member(call, team)) return -1;
  if (dst < 1 || sst < 1) {
    fail(call, SHMEMX_ERR_ARG, "strides must be positive");
    return -1;
  }
  if (nelems == 0) return 0;
  const auto n = static_cast<std::size_t>(team->n_pes);
  std::vector<char> packed(n * nelems * size), unpacked(n * nelems * size);
  const char* s = static_cast<const char*>(source);
  // Packed by DART unit: team PE j's elements at unit(j)'s block.
  const auto at = [&](std::size_t e) { return (unit(team, e / nelems) * nelems + e % nelems) * size; };
  for (std::size_t e = 0; e < n * nelems; ++e)
    std::memcpy(packed.data() + at(e), s + e * static_cast<std::size_t>(sst) * size, size);
  const dart_ret_t ret = dart_alltoall(packed.data(), unpacked.data(), nelems * size, DART_TYPE_BYTE, team->dart);
  if (ret != DART_OK) return finish(call, ret);
  char* d = static_cast<char*>(dest);
  for (std::size_t e = 0; e < n * nelems; ++e)
    std::memcpy(d + e * static_cast<std::size_t>(dst) * size, unpacked.data() + at(e), size);
  return 0;
}

// ---- reductions --------------------------------------------------------------

enum class Red { And, Or, Xor, Max, Min, Sum, Prod };

template <class T>
T combine(Red op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Red::And: return static_cast<T>(a & b);
      case Red::Or: return static_cast<T>(a | b);
      case Red::Xor: return static_cast<T>(a ^ b);
      default: break;
    }
  }
  if constexpr (!std::is_same_v<T, __complex__ double> && !std::is_same_v<T, __complex__ float>) {
    switch (op) {
      case Red::Max: return a < b ? b : a;
      case Red::Min: return b < a ? b : a;
      default: break;
    }
  }
  switch (op) {
    case Red::Sum: return static_cast<T>(a + b);
    case Red::Prod: return static_cast<T>(a * b);
    default: return a;
  }
}

dart_operation_t dart_red(Red op) {
  switch (op) {
    case Red::And: return DART_OP_BAND;
    case Red::Or: return DART_OP_BOR;
    case Red::Xor: return DART_OP_BXOR;
    case Red::Max: return DART_OP_MAX;
    case Red::Min: return DART_OP_MIN;
    case Red::Sum: return DART_OP_SUM;
    case Red::Prod: return DART_OP_PROD;
  }
  return DART_OP_UNDEFINED;
}

// Element-wise reduction over the team. Types DART reduces natively take
// dart_allreduce; the others (8- and 16-bit unsigned, char, complex) are
// gathered and reduced here in DART unit order, the same on every PE, so
// every PE computes the same result.
template <class T>
int reduce(const char* call, shmem_team_t team, T* dest, const T* source, std::size_t nreduce, Red op) {
  if (!valid_team_member(call, team)) return -1;
  if (nreduce == 0) return 0;
  // In place is allowed: DART's reduction needs distinct buffers.
  std::vector<T> copy;
  if (dest == source) {
    copy.assign(source, source + nreduce);
    source = copy.data();
  }
  constexpr dart_datatype_t type = dart_type<T>();
  if constexpr (type != DART_TYPE_UNDEFINED) {
    return finish(call, dart_allreduce(source, dest, nreduce, type, dart_red(op), team->dart));
  } else {
    const auto n = static_cast<std::size_t>(team->n_pes);
    std::vector<T> all(n * nreduce);
    const dart_ret_t ret = dart_allgather(source, all.data(), nreduce * sizeof(T), DART_TYPE_BYTE, team->dart);
    if (ret != DART_OK) return finish(call, ret);
    for (std::size_t i = 0; i < nreduce; ++i) {
      T acc = all[i];
      for (std::size_t k = 1; k < n; ++k) acc = combine(op, acc, all[k * nreduce + i]);
      dest[i] = acc;
    }
    return 0;
  }
}

}  // namespace

// ---- active sets ---------------------------------------------------------------

bool active_set(const char* call, int PE_start, int logPE_stride, int PE_size, ActiveSet* out) {
  if (!require_init(call)) return false;
  if (PE_start < 0 || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1) {
    fail(call, SHMEMX_ERR_ARG, "PE_start " + std::to_string(PE_start) + ", logPE_stride " +
                                   std::to_string(logPE_stride) + ", PE_size " + std::to_string(PE_size) +
                                   " do not form an active set");
    return false;
  }
  out->start = PE_start;
  out->stride = 1 << logPE_stride;
  out->size = PE_size;
  const long long last = PE_start + static_cast<long long>(PE_size - 1) * out->stride;
  if (last >= st.npes) {
    fail(call, SHMEMX_ERR_PE, "the active set runs to PE " + std::to_string(last) + " (" + std::to_string(st.npes) +
                                  " PEs)");
    return false;
  }
  const int rel = st.me - PE_start;
  out->index = rel >= 0 && rel % out->stride == 0 && rel / out->stride < PE_size ? rel / out->stride : -1;
  if (out->index < 0) {
    fail(call, SHMEMX_ERR_PE, "the calling PE is not in the active set");
    return false;
  }
  return true;
}

// Whether an active set is every PE: the world team serves it (pSync is
// then left alone, as the routines promise to leave it).
bool whole_world(const ActiveSet& set) { return set.start == 0 && set.size == st.npes; }

// pSync[0] on the set's first PE counts arrivals; pSync[1] on each other
// member is its release. Both return to SHMEM_SYNC_VALUE before the
// barrier ends, so pSync can be reused at once, as the specification
// allows.
void active_barrier(const char* call, const ActiveSet& set, long* pSync, bool complete) {
  if (complete) quiet_all(call);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (set.size == 1) return;
  if (whole_world(set)) {
    const dart_ret_t ret = dart_barrier(DART_TEAM_ALL);
    if (ret != DART_OK) dart_failed(call, ret);
    return;
  }
  dart_gptr_t g;
  if (!local_gptr(call, pSync, 2 * sizeof(long), &g)) return;
  const int root = set.pe(0);
  if (set.index == 0) {
    long arrived = set.size - 1;
    dart_wait_until(g, DART_CMP_GE, &arrived, DART_TYPE_LONG);
    amo_long(call, &pSync[0], 0, 0, DART_OP_REPLACE, false, st.me);
    for (int k = 1; k < set.size; ++k) amo_long(call, &pSync[1], 1, 0, DART_OP_REPLACE, false, set.pe(k));
  } else {
    amo_long(call, &pSync[0], 1, 0, DART_OP_SUM, false, root);
    dart_gptr_t release = g;
    release.addr_or_offs.offset += sizeof(long);
    long one = 1;
    dart_wait_until(release, DART_CMP_EQ, &one, DART_TYPE_LONG);
    amo_long(call, &pSync[1], 0, 0, DART_OP_REPLACE, false, st.me);
  }
}

namespace {

void active_broadcast(const char* call, void* dest, const void* source, std::size_t nelems, std::size_t size,
                      int root, int start, int log_stride, int set_size, long* pSync) {
  ActiveSet set;
  if (!active_set(call, start, log_stride, set_size, &set)) return;
  if (root < 0 || root >= set.size) return fail(call, SHMEMX_ERR_PE, "PE_root is outside the active set");
  if (whole_world(set)) {
    // The root's dest stays as it is: the root sends from source, which
    // dart_bcast only reads there.
    quiet_all(call);
    if (nelems == 0) return;
    if (pull_path(source, nelems * size)) {
      // The root's dest stays as it is here too: only the others copy.
      (void)pull_broadcast(call, DART_TEAM_ALL, dest, source, nelems * size, root);
      return;
    }
    const Units u = units_of(nelems * size);
    void* buf = set.index == root ? const_cast<void*>(source) : dest;
    (void)finish(call, dart_bcast(buf, u.count, u.type, dart_team_unit_t{root}, DART_TEAM_ALL));
    return;
  }
  active_barrier(call, set, pSync, true);
  if (set.index != root && nelems) get_bytes(call, dest, source, nelems * size, set.pe(root));
  active_barrier(call, set, pSync, false);
}

void active_collect(const char* call, void* dest, const void* source, std::size_t nelems, std::size_t size, int start,
                    int log_stride, int set_size, long* pSync, bool fixed) {
  ActiveSet set;
  if (!active_set(call, start, log_stride, set_size, &set)) return;
  if (whole_world(set)) {
    quiet_all(call);
    (void)(fixed ? fcollect(call, SHMEM_TEAM_WORLD, dest, source, nelems * size)
                 : collect(call, SHMEM_TEAM_WORLD, dest, source, nelems * size));
    return;
  }
  // Each member's count travels in pSync[2] (set before the barrier,
  // cleared after the last one).
  if (!fixed) amo_long(call, &pSync[2], static_cast<long>(nelems), 0, DART_OP_REPLACE, false, st.me);
  active_barrier(call, set, pSync, true);
  std::size_t at = 0;
  for (int k = 0; k < set.size; ++k) {
    const std::size_t n =
        fixed ? nelems : static_cast<std::size_t>(amo_long(call, &pSync[2], 0, 0, DART_OP_NO_OP, false, set.pe(k)));
    char* d = static_cast<char*>(dest) + at * size;
    if (k == set.index) std::memmove(d, source, n * size);
    else if (n) get_bytes(call, d, source, n * size, set.pe(k));
    at += n;
  }
  active_barrier(call, set, pSync, false);
  if (!fixed) {
    amo_long(call, &pSync[2], 0, 0, DART_OP_REPLACE, false, st.me);
    active_barrier(call, set, pSync, false);
  }
}

void active_alltoall(const char* call, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst,
                     std::size_t nelems, std::size_t size, int start, int log_stride, int set_size, long* pSync) {
  ActiveSet set;
  if (!active_set(call, start, log_stride, set_size, &set)) return;
  if (dst < 1 || sst < 1) return fail(call, SHMEMX_ERR_ARG, "strides must be positive");
  if (whole_world(set)) {
    quiet_all(call);
    (void)(dst == 1 && sst == 1 ? alltoall(call, SHMEM_TEAM_WORLD, dest, source, nelems * size)
                                : alltoalls(call, SHMEM_TEAM_WORLD, dest, source, dst, sst, nelems, size));
    return;
  }
  active_barrier(call, set, pSync, true);
  // Block j of dest comes from member j's source block for this member.
  for (int j = 0; j < set.size; ++j)
    for (std::size_t i = 0; i < nelems; ++i) {
      char* d = static_cast<char*>(dest) + (static_cast<std::size_t>(j) * nelems + i) * static_cast<std::size_t>(dst) * size;
      const char* s = static_cast<const char*>(source) +
                      (static_cast<std::size_t>(set.index) * nelems + i) * static_cast<std::size_t>(sst) * size;
      if (dst == 1 && sst == 1) {
        if (j == set.index) std::memmove(d, s, nelems * size);
        else get_bytes(call, d, s, nelems * size, set.pe(j));
        break;
      }
      if (j == set.index) std::memmove(d, s, size);
      else get_bytes(call, d, s, size, set.pe(j));
    }
  active_barrier(call, set, pSync, false);
}

template <class T>
void active_reduce(const char* call, T* dest, const T* source, int nreduce, int start, int log_stride, int set_size,
                   long* pSync, Red op) {
  ActiveSet set;
  if (!active_set(call, start, log_stride, set_size, &set)) return;
  if (nreduce < 0) return fail(call, SHMEMX_ERR_ARG, "nreduce is negative");
  const auto n = static_cast<std::size_t>(nreduce);
  if (whole_world(set)) {
    quiet_all(call);
    (void)reduce<T>(call, SHMEM_TEAM_WORLD, dest, source, n, op);
    return;
  }
  active_barrier(call, set, pSync, true);
  std::vector<T> acc(n), theirs(n);
  for (int k = 0; k < set.size; ++k) {
    if (k == set.index) std::copy(source, source + n, theirs.begin());
    else if (n) get_bytes(call, theirs.data(), source, n * sizeof(T), set.pe(k));
    for (std::size_t i = 0; i < n; ++i) acc[i] = k == 0 ? theirs[i] : combine(op, acc[i], theirs[i]);
  }
  // Every member has read every source before any dest (which may be the
  // source) changes.
  active_barrier(call, set, pSync, false);
  std::copy(acc.begin(), acc.end(), dest);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace
}  // namespace dshmem

using namespace dshmem;

extern "C" {

void shmem_barrier_all(void) {
  if (!require_init("shmem_barrier_all")) return;
  quiet_all("shmem_barrier_all");
  const dart_ret_t ret = dart_barrier(DART_TEAM_ALL);
  if (ret != DART_OK) dart_failed("shmem_barrier_all", ret);
}

void shmem_sync_all(void) {
  if (!require_init("shmem_sync_all")) return;
  // The specification orders nothing here, but programs expect updates
  // issued before a sync to be seen after it; with load/store they are,
  // and completing the MPI ones costs nothing when there are none.
  quiet_all("shmem_sync_all");
  const dart_ret_t ret = dart_barrier(DART_TEAM_ALL);
  if (ret != DART_OK) dart_failed("shmem_sync_all", ret);
}

int shmem_team_sync(shmem_team_t team) {
  if (!valid_team_member("shmem_team_sync", team)) return -1;
  quiet_all("shmem_team_sync");
  return finish("shmem_team_sync", dart_barrier(team->dart));
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  ActiveSet set;
  if (!active_set("shmem_barrier", PE_start, logPE_stride, PE_size, &set)) return;
  active_barrier("shmem_barrier", set, pSync, true);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  ActiveSet set;
  if (!active_set("shmem_sync", PE_start, logPE_stride, PE_size, &set)) return;
  active_barrier("shmem_sync", set, pSync, true);
}

#define DSHMEM_DEF_COLL(T, N)                                                                                  \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems) {                      \
    return alltoall("shmem_" #N "_alltoall", team, dest, source, nelems * sizeof(T));                         \
  }                                                                                                           \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,        \
                            size_t nelems) {                                                                  \
    return alltoalls("shmem_" #N "_alltoalls", team, dest, source, dst, sst, nelems, sizeof(T));              \
  }                                                                                                           \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root) {        \
    return broadcast("shmem_" #N "_broadcast", team, dest, source, nelems * sizeof(T), PE_root);              \
  }                                                                                                           \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                       \
    return collect("shmem_" #N "_collect", team, dest, source, nelems * sizeof(T));                           \
  }                                                                                                           \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                      \
    return fcollect("shmem_" #N "_fcollect", team, dest, source, nelems * sizeof(T));                         \
  }
DART_SHMEM_RMA_TYPES(DSHMEM_DEF_COLL)

int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return alltoall("shmem_alltoallmem", team, dest, source, nelems);
}
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) {
  return alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}
int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root) {
  return broadcast("shmem_broadcastmem", team, dest, source, nelems, PE_root);
}
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return collect("shmem_collectmem", team, dest, source, nelems);
}
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return fcollect("shmem_fcollectmem", team, dest, source, nelems);
}

#define DSHMEM_DEF_ACTIVE_SET(B)                                                                               \
  void shmem_alltoall##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,        \
                         int PE_size, long* pSync) {                                                          \
    active_alltoall("shmem_alltoall" #B, dest, source, 1, 1, nelems, B / 8, PE_start, logPE_stride, PE_size,  \
                    pSync);                                                                                   \
  }                                                                                                           \
  void shmem_alltoalls##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,        \
                          int PE_start, int logPE_stride, int PE_size, long* pSync) {                         \
    active_alltoall("shmem_alltoalls" #B, dest, source, dst, sst, nelems, B / 8, PE_start, logPE_stride,      \
                    PE_size, pSync);                                                                          \
  }                                                                                                           \
  void shmem_broadcast##B(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,           \
                          int logPE_stride, int PE_size, long* pSync) {                                       \
    active_broadcast("shmem_broadcast" #B, dest, source, nelems, B / 8, PE_root, PE_start, logPE_stride,      \
                     PE_size, pSync);                                                                         \
  }                                                                                                           \
  void shmem_collect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,        \
                        int PE_size, long* pSync) {                                                           \
    active_collect("shmem_collect" #B, dest, source, nelems, B / 8, PE_start, logPE_stride, PE_size, pSync,   \
                   false);                                                                                    \
  }                                                                                                           \
  void shmem_fcollect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,       \
                         int PE_size, long* pSync) {                                                          \
    active_collect("shmem_fcollect" #B, dest, source, nelems, B / 8, PE_start, logPE_stride, PE_size, pSync,  \
                   true);                                                                                     \
  }
DSHMEM_DEF_ACTIVE_SET(32)
DSHMEM_DEF_ACTIVE_SET(64)

#define DSHMEM_DEF_REDUCE(T, N, OP, E)                                                                         \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce) {                \
    return reduce<T>("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce, E);                          \
  }
#define DSHMEM_DEF_REDUCE_BITWISE(T, N)                                                                        \
  DSHMEM_DEF_REDUCE(T, N, and, Red::And)                                                                      \
  DSHMEM_DEF_REDUCE(T, N, or, Red::Or) DSHMEM_DEF_REDUCE(T, N, xor, Red::Xor)
#define DSHMEM_DEF_REDUCE_MINMAX(T, N) DSHMEM_DEF_REDUCE(T, N, max, Red::Max) DSHMEM_DEF_REDUCE(T, N, min, Red::Min)
#define DSHMEM_DEF_REDUCE_ARITH(T, N) DSHMEM_DEF_REDUCE(T, N, sum, Red::Sum) DSHMEM_DEF_REDUCE(T, N, prod, Red::Prod)
DART_SHMEM_BITWISE_REDUCE_TYPES(DSHMEM_DEF_REDUCE_BITWISE)
DART_SHMEM_MINMAX_REDUCE_TYPES(DSHMEM_DEF_REDUCE_MINMAX)
DART_SHMEM_ARITH_REDUCE_TYPES(DSHMEM_DEF_REDUCE_ARITH)

#define DSHMEM_DEF_TO_ALL(T, N, OP, E)                                                                         \
  void shmem_##N##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start, int logPE_stride,       \
                                 int PE_size, T*, long* pSync) {                                              \
    active_reduce<T>("shmem_" #N "_" #OP "_to_all", dest, source, nreduce, PE_start, logPE_stride, PE_size,   \
                     pSync, E);                                                                               \
  }
#define DSHMEM_DEF_TO_ALL_BITWISE(T, N)                                                                        \
  DSHMEM_DEF_TO_ALL(T, N, and, Red::And)                                                                      \
  DSHMEM_DEF_TO_ALL(T, N, or, Red::Or) DSHMEM_DEF_TO_ALL(T, N, xor, Red::Xor)
#define DSHMEM_DEF_TO_ALL_MINMAX(T, N) DSHMEM_DEF_TO_ALL(T, N, max, Red::Max) DSHMEM_DEF_TO_ALL(T, N, min, Red::Min)
#define DSHMEM_DEF_TO_ALL_ARITH(T, N) DSHMEM_DEF_TO_ALL(T, N, sum, Red::Sum) DSHMEM_DEF_TO_ALL(T, N, prod, Red::Prod)
DART_SHMEM_TOALL_BITWISE_TYPES(DSHMEM_DEF_TO_ALL_BITWISE)
DART_SHMEM_TOALL_MINMAX_TYPES(DSHMEM_DEF_TO_ALL_MINMAX)
DART_SHMEM_TOALL_ARITH_TYPES(DSHMEM_DEF_TO_ALL_ARITH)

}  // extern "C"
