#include "rma/atomics.hpp"

#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/stats.hpp"

#include <dash/dart/if/dart_communication.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace dart {

namespace {

bool is_integral_type(dart_datatype_t t) { return t >= DART_TYPE_BYTE && t <= DART_TYPE_ULONGLONG; }

MPI_Op mpi_op(dart_operation_t op) {
  switch (op) {
    case DART_OP_MIN: return MPI_MIN;
    case DART_OP_MAX: return MPI_MAX;
    case DART_OP_SUM: return MPI_SUM;
    case DART_OP_PROD: return MPI_PROD;
    case DART_OP_BAND: return MPI_BAND;
    case DART_OP_LAND: return MPI_LAND;
    case DART_OP_BOR: return MPI_BOR;
    case DART_OP_LOR: return MPI_LOR;
    case DART_OP_BXOR: return MPI_BXOR;
    case DART_OP_LXOR: return MPI_LXOR;
    case DART_OP_REPLACE: return MPI_REPLACE;
    case DART_OP_NO_OP: return MPI_NO_OP;
    default: break;
  }
  invalid("operation " + std::to_string(op) + " is not allowed in accumulate-type operations");
}

// One element of an operation on the CPU path. `x` is the current value,
// `v` the operand.
template <class T>
T combine(T x, T v, dart_operation_t op) {
  switch (op) {
    case DART_OP_MIN: return v < x ? v : x;
    case DART_OP_MAX: return v > x ? v : x;
    case DART_OP_SUM: return static_cast<T>(x + v);
    case DART_OP_PROD: return static_cast<T>(x * v);
    case DART_OP_REPLACE: return v;
    case DART_OP_NO_OP: return x;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case DART_OP_BAND: return static_cast<T>(x & v);
      case DART_OP_BOR: return static_cast<T>(x | v);
      case DART_OP_BXOR: return static_cast<T>(x ^ v);
      case DART_OP_LAND: return static_cast<T>((x != 0) && (v != 0));
      case DART_OP_LOR: return static_cast<T>((x != 0) || (v != 0));
      case DART_OP_LXOR: return static_cast<T>((x != 0) != (v != 0));
      default: break;
    }
  }
  return x;  // unreachable: check_atomic_op rejected the pair
}

// Atomically applies op to *target and returns the previous value. Uses the
// dedicated instruction where there is one, a compare-exchange loop
// otherwise; the builtins work on the shared mapping across processes
// because they are lock-free for these sizes.
template <class T>
[[gnu::always_inline]] inline T atomic_apply(T* target, T v, dart_operation_t op) {
  static_assert(__atomic_always_lock_free(sizeof(T), 0), "CPU atomics must be lock-free");
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case DART_OP_SUM: return __atomic_fetch_add(target, v, __ATOMIC_SEQ_CST);
      case DART_OP_BAND: return __atomic_fetch_and(target, v, __ATOMIC_SEQ_CST);
      case DART_OP_BOR: return __atomic_fetch_or(target, v, __ATOMIC_SEQ_CST);
      case DART_OP_BXOR: return __atomic_fetch_xor(target, v, __ATOMIC_SEQ_CST);
      case DART_OP_REPLACE: return __atomic_exchange_n(target, v, __ATOMIC_SEQ_CST);
      case DART_OP_NO_OP: return __atomic_load_n(target, __ATOMIC_SEQ_CST);
      default: break;
    }
  }
  T old;
  __atomic_load(target, &old, __ATOMIC_SEQ_CST);
  T desired = combine(old, v, op);
  while (!__atomic_compare_exchange(target, &old, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    desired = combine(old, v, op);
  return old;
}

// Calls fn(T*) with the C type of a basic DART type other than long double.
template <class Fn>
[[gnu::always_inline]] inline void with_cpu_type(dart_datatype_t dtype, Fn&& fn) {
  switch (dtype) {
    case DART_TYPE_BYTE: fn(static_cast<unsigned char*>(nullptr)); return;
    case DART_TYPE_SHORT: fn(static_cast<short*>(nullptr)); return;
    case DART_TYPE_INT: fn(static_cast<int*>(nullptr)); return;
    case DART_TYPE_UINT: fn(static_cast<unsigned int*>(nullptr)); return;
    case DART_TYPE_LONG: fn(static_cast<long*>(nullptr)); return;
    case DART_TYPE_ULONG: fn(static_cast<unsigned long*>(nullptr)); return;
    case DART_TYPE_LONGLONG: fn(static_cast<long long*>(nullptr)); return;
    case DART_TYPE_ULONGLONG: fn(static_cast<unsigned long long*>(nullptr)); return;
    case DART_TYPE_FLOAT: fn(static_cast<float*>(nullptr)); return;
    case DART_TYPE_DOUBLE: fn(static_cast<double*>(nullptr)); return;
    default: break;
  }
  invalid("data type " + std::to_string(static_cast<long long>(dtype)) + " has no CPU atomics");
}

void check_extent(const Target& t, std::size_t bytes) {
  if (bytes > t.avail)
    invalid("atomic access of " + std::to_string(bytes) + " bytes runs past the end of the target's portion");
}

// Calls fn(T*) with the C type of any basic DART type.
template <class Fn>
void with_any_type(dart_datatype_t dtype, Fn&& fn) {
  if (dtype == DART_TYPE_LONG_DOUBLE) {
    fn(static_cast<long double*>(nullptr));
    return;
  }
  with_cpu_type(dtype, std::forward<Fn>(fn));
}

// Whether the runtime must apply operations on `dtype` at this target
// itself instead of trusting the MPI library's accumulate operations.
//
// Open MPI 4.1 serves every window that osc/sm cannot (windows over user
// memory, windows of teams that span hosts) with osc/ucx, whose
// accumulate-type operations are exact only for 4- and 8-byte integers
// here: on 1- and 2-byte integers UCX rejects the datatype or results come
// back wrong, float and double sums lose updates, long double is garbage
// (test_atomics shows each). MPICH's are exact for every type.
bool emulated(const Target& t, dart_datatype_t dtype) {
#if defined(OPEN_MPI)
  if (!t.dynamic && t.seg->kind != SegmentKind::Registered && t.team->on_one_host()) return false;
  const std::size_t es = basic_type_size(dtype);
  return !(is_integral_type(dtype) && (es == 4 || es == 8));
#else
  (void)t;
  (void)dtype;
  return false;
#endif
}

// Held while an emulated operation reads, combines and writes its target:
// the runtime's word (Runtime::runtime_word_offset) on the target's unit,
// taken by 64-bit compare-and-swap, which every MPI gets right. One lock per
// target unit serialises all emulated operations on that unit's memory, and
// all operations of an emulated type at a target are emulated, so they are
// atomic with respect to each other (which is all MPI promises as well).
class EmulationLock {
 public:
  explicit EmulationLock(const Target& t) {
    Runtime& r = rt();
    dart_gptr_t g = DART_GPTR_NULL;
    g.unitid = t.team->global_unit(t.unit);
    g.teamid = DART_TEAM_ALL;
    g.segid = DART_SEGMENT_LOCAL;
    g.addr_or_offs.offset = r.runtime_word_offset();
    word_ = resolve(g);
    const long long mine = r.myid() + 1, free_value = 0;
    for (unsigned spins = 0;; ++spins) {
      if (swap(free_value, mine) == free_value) return;
      // Backs off so the holder (possibly another thread of this unit, or
      // the progress thread serving it) gets the CPU.
      if (spins > 16) std::this_thread::sleep_for(std::chrono::microseconds(spins > 256 ? 50 : 1));
      else std::this_thread::yield();
    }
  }
  EmulationLock(const EmulationLock&) = delete;
  EmulationLock& operator=(const EmulationLock&) = delete;
  ~EmulationLock() {
    const long long mine = rt().myid() + 1, free_value = 0;
    try {
      (void)swap(mine, free_value);
    } catch (const Error& e) {
      log(LogLevel::Error, "atomics", "releasing the emulation lock failed: %s", e.what());
    }
  }

 private:
  // Compare-and-swap on the lock word, complete when it returns.
  long long swap(long long expected, long long desired) {
    long long old = 0;
    compare_and_swap(word_, &desired, &expected, &old, DART_TYPE_LONGLONG);
    if (!cpu_atomics(word_, DART_TYPE_LONGLONG)) flush_target(word_);
    return old;
  }
  Target word_;
};

// Reads `bytes` at the target, lets `update(current, next)` fill the new
// contents and writes them back unless it returns false; under the lock.
template <class Update>
void emulate(const Target& t, std::size_t bytes, Update&& update) {
  stats::add(stats::EmulatedAtomic);
  EmulationLock lock(t);
  std::vector<char> current(bytes), next(bytes);
  activity::InMpi in_mpi(reach(t));
  constexpr std::size_t kStep = std::size_t(1) << 30;
  for (std::size_t done = 0; done < bytes; done += kStep) {
    const int n = static_cast<int>(std::min(kStep, bytes - done));
    mpi_check(
        MPI_Get(current.data() + done, n, MPI_BYTE, t.rank, t.disp + static_cast<MPI_Aint>(done), n, MPI_BYTE, t.win),
        "MPI_Get");
  }
  flush_target(t);
  if (!update(current.data(), next.data())) return;
  for (std::size_t done = 0; done < bytes; done += kStep) {
    const int n = static_cast<int>(std::min(kStep, bytes - done));
    mpi_check(
        MPI_Put(next.data() + done, n, MPI_BYTE, t.rank, t.disp + static_cast<MPI_Aint>(done), n, MPI_BYTE, t.win),
        "MPI_Put");
  }
  flush_target(t);
}

// next[i] = current[i] op values[i] for nelem elements of dtype.
void combine_all(const char* current, const void* values, char* next, std::size_t nelem, dart_datatype_t dtype,
                 dart_operation_t op) {
  with_any_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    for (std::size_t i = 0; i < nelem; ++i) {
      T x, v;
      std::memcpy(&x, current + i * sizeof(T), sizeof x);
      std::memcpy(&v, static_cast<const char*>(values) + i * sizeof(T), sizeof v);
      const T y = combine(x, v, op);
      std::memcpy(next + i * sizeof(T), &y, sizeof y);
    }
  });
}

}  // namespace

bool cpu_atomics(const Target& t, dart_datatype_t dtype) noexcept {
  // Memory without a window (extents every accessor maps) has no other path.
  return t.local && (t.win == MPI_WIN_NULL || (t.seg->kind != SegmentKind::Registered && t.team->single_node())) &&
         dtype != DART_TYPE_LONG_DOUBLE;
}

bool issued_through_mpi(const Target& t, dart_datatype_t dtype) noexcept {
  return !cpu_atomics(t, dtype) && !emulated(t, dtype);
}

static bool atomic_op_ok(dart_operation_t op, dart_datatype_t dtype) noexcept {
  if (!is_basic_type(dtype)) return false;
  switch (op) {
    case DART_OP_MIN:
    case DART_OP_MAX:
    case DART_OP_SUM:
    case DART_OP_PROD:
    case DART_OP_REPLACE:
    case DART_OP_NO_OP: return true;
    case DART_OP_BAND:
    case DART_OP_BOR:
    case DART_OP_BXOR:
    case DART_OP_LAND:
    case DART_OP_LOR:
    case DART_OP_LXOR: return is_integral_type(dtype);
    default: return false;
  }
}

void check_atomic_op(dart_operation_t op, dart_datatype_t dtype) {
  if (!is_basic_type(dtype))
    invalid("accumulate-type operations take basic types only, not " + std::to_string(static_cast<long long>(dtype)));
  switch (op) {
    case DART_OP_MIN:
    case DART_OP_MAX:
    case DART_OP_SUM:
    case DART_OP_PROD:
    case DART_OP_REPLACE:
    case DART_OP_NO_OP: return;
    case DART_OP_BAND:
    case DART_OP_BOR:
    case DART_OP_BXOR:
    case DART_OP_LAND:
    case DART_OP_LOR:
    case DART_OP_LXOR:
      if (is_integral_type(dtype)) return;
      invalid("bitwise and logical operations take integer types only");
    default: break;
  }
  invalid("operation " + std::to_string(op) +
          " is not allowed in accumulate-type operations (MINMAX and user operations are for reductions)");
}

void accumulate(const Target& t, const void* values, std::size_t nelem, dart_datatype_t dtype, dart_operation_t op,
                bool local_complete) {
  check_atomic_op(op, dtype);
  const std::size_t bytes = checked_bytes(nelem, basic_type_size(dtype));
  check_extent(t, bytes);
  if (nelem == 0 || op == DART_OP_NO_OP) return;
  if (!values) invalid("values is NULL");
  if (cpu_atomics(t, dtype)) {
    stats::add(stats::CpuAtomic);
    with_cpu_type(dtype, [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      T* target = reinterpret_cast<T*>(t.local);
      const T* v = static_cast<const T*>(values);
      for (std::size_t i = 0; i < nelem; ++i) (void)atomic_apply(target + i, v[i], op);
    });
    return;
  }
  if (emulated(t, dtype)) {
    emulate(t, bytes, [&](const char* cur, char* next) {
      combine_all(cur, values, next, nelem, dtype, op);
      return true;
    });
    return;
  }
  stats::add(stats::RmaAtomic);
  const MPI_Datatype mt = basic_mpi_type(dtype);
  const std::size_t es = basic_type_size(dtype);
  const std::size_t max_elems = (std::size_t(1) << 30) / es;
  const char* p = static_cast<const char*>(values);
  for (std::size_t done = 0; done < nelem;) {
    const int n = static_cast<int>(std::min(max_elems, nelem - done));
    mpi_check(MPI_Accumulate(p + done * es, n, mt, t.rank, t.disp + static_cast<MPI_Aint>(done * es), n, mt, mpi_op(op),
                             t.win),
              "MPI_Accumulate");
    t.window->note_issued(t.rank);
    done += static_cast<std::size_t>(n);
  }
  if (local_complete) flush_local_target(t);
}

namespace {

void check_fetch_and_op(const void* value, const void* result, dart_datatype_t dtype, dart_operation_t op) {
  check_atomic_op(op, dtype);
  if (!value) invalid("value is NULL");
  if (!result) invalid("result is NULL");
}

void check_compare_and_swap(const void* value, const void* compare, const void* result, dart_datatype_t dtype) {
  if (!is_integral_type(dtype))
    invalid("compare-and-swap takes integer types only (DART_TYPE_BYTE ... DART_TYPE_ULONGLONG)");
  if (!value || !compare || !result) invalid("value, compare or result is NULL");
}

// The CPU paths, on the target's address in the shared mapping.
[[gnu::always_inline]] inline void fetch_and_op_cpu(char* local, const void* value, void* result, dart_datatype_t dtype,
                                                    dart_operation_t op) {
  stats::add(stats::CpuAtomic);
  with_cpu_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T v;
    std::memcpy(&v, value, sizeof v);
    const T old = atomic_apply(reinterpret_cast<T*>(local), v, op);
    std::memcpy(result, &old, sizeof old);
  });
}

[[gnu::always_inline]] inline void compare_and_swap_cpu(char* local, const void* value, const void* compare,
                                                        void* result, dart_datatype_t dtype) {
  stats::add(stats::CpuAtomic);
  with_cpu_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T expected, desired;
    std::memcpy(&expected, compare, sizeof expected);
    std::memcpy(&desired, value, sizeof desired);
    __atomic_compare_exchange(reinterpret_cast<T*>(local), &expected, &desired, false, __ATOMIC_SEQ_CST,
                              __ATOMIC_SEQ_CST);
    std::memcpy(result, &expected, sizeof expected);  // the old value either way
  });
}

}  // namespace

[[gnu::noinline]] static dart_ret_t fetch_and_op_checked(dart_gptr_t gptr, const void* value, void* result,
                                                         dart_datatype_t dtype, dart_operation_t op) {
  return entry("dart_fetch_and_op", [&] { fetch_and_op(resolve(gptr), value, result, dtype, op); });
}

[[gnu::noinline]] static dart_ret_t compare_and_swap_checked(dart_gptr_t gptr, const void* value, const void* compare,
                                                             void* result, dart_datatype_t dtype) {
  return entry("dart_compare_and_swap", [&] { compare_and_swap(resolve(gptr), value, compare, result, dtype); });
}

// The fast path of cpu_atomics(resolve(g)): the target's address when the
// CPU path serves `dtype` there and the element lies inside the portion;
// nullptr otherwise.
[[gnu::always_inline]] static inline char* direct_atomic(const dart_gptr_t& g, dart_datatype_t dtype) noexcept {
  const std::size_t size = basic_size_or_zero(dtype);
  if (size == 0 || dtype == DART_TYPE_LONG_DOUBLE) return nullptr;
  std::uint64_t word;
  const direct_cache::Entry* e = direct_entry(g, word);
  if (!e || !direct_cache::racy(e->d.cpu_atomics)) return nullptr;
  char* p = direct_in(*e, g, size);
  return direct_cache::still(*e, word) ? p : nullptr;
}

bool fetch_and_op_direct(const dart_gptr_t& g, const void* value, void* result, dart_datatype_t dtype,
                         dart_operation_t op) noexcept {
  char* local = direct_atomic(g, dtype);
  if (!local || !value || !result || !atomic_op_ok(op, dtype)) return false;
  fetch_and_op_cpu(local, value, result, dtype, op);
  return true;
}

bool compare_and_swap_direct(const dart_gptr_t& g, const void* value, const void* compare, void* result,
                             dart_datatype_t dtype) noexcept {
  char* local = direct_atomic(g, dtype);
  if (!local || !value || !compare || !result || !is_integral_type(dtype)) return false;
  compare_and_swap_cpu(local, value, compare, result, dtype);
  return true;
}

void fetch_and_op(const Target& t, const void* value, void* result, dart_datatype_t dtype, dart_operation_t op) {
  check_fetch_and_op(value, result, dtype, op);
  check_extent(t, basic_type_size(dtype));
  if (cpu_atomics(t, dtype)) {
    fetch_and_op_cpu(t.local, value, result, dtype, op);
    return;
  }
  if (emulated(t, dtype)) {
    emulate(t, basic_type_size(dtype), [&](const char* cur, char* next) {
      std::memcpy(result, cur, basic_type_size(dtype));
      if (op == DART_OP_NO_OP) return false;
      combine_all(cur, value, next, 1, dtype, op);
      return true;
    });
    return;
  }
  stats::add(stats::RmaAtomic);
  mpi_check(MPI_Fetch_and_op(value, result, basic_mpi_type(dtype), t.rank, t.disp, mpi_op(op), t.win),
            "MPI_Fetch_and_op");
  t.window->note_issued(t.rank);
}

void compare_and_swap(const Target& t, const void* value, const void* compare, void* result, dart_datatype_t dtype) {
  check_compare_and_swap(value, compare, result, dtype);
  check_extent(t, basic_type_size(dtype));
  if (cpu_atomics(t, dtype)) {
    compare_and_swap_cpu(t.local, value, compare, result, dtype);
    return;
  }
  if (emulated(t, dtype)) {
    const std::size_t es = basic_type_size(dtype);
    emulate(t, es, [&](const char* cur, char* next) {
      std::memcpy(result, cur, es);
      if (std::memcmp(cur, compare, es) != 0) return false;
      std::memcpy(next, value, es);
      return true;
    });
    return;
  }
  stats::add(stats::RmaAtomic);
  mpi_check(MPI_Compare_and_swap(value, compare, result, basic_mpi_type(dtype), t.rank, t.disp, t.win),
            "MPI_Compare_and_swap");
  t.window->note_issued(t.rank);
}

}  // namespace dart

using namespace dart;

extern "C" {

dart_ret_t dart_accumulate(dart_gptr_t gptr, const void* values, size_t nelem, dart_datatype_t dtype,
                           dart_operation_t op) {
  return entry("dart_accumulate", [&] { accumulate(resolve(gptr), values, nelem, dtype, op, false); });
}

dart_ret_t dart_accumulate_blocking_local(dart_gptr_t gptr, const void* values, size_t nelem, dart_datatype_t dtype,
                                          dart_operation_t op) {
  return entry("dart_accumulate_blocking_local", [&] { accumulate(resolve(gptr), values, nelem, dtype, op, true); });
}

// The fast path serves valid calls on mapped memory of a one-node team;
// everything else, errors included, takes the checked path, out of line
// and with the pointer by value so the fast path keeps it in registers.
dart_ret_t dart_fetch_and_op(dart_gptr_t gptr, const void* value, void* result, dart_datatype_t dtype,
                             dart_operation_t op) {
  if (char* local = direct_atomic(gptr, dtype); local && value && result && atomic_op_ok(op, dtype)) {
    fetch_and_op_cpu(local, value, result, dtype, op);
    return DART_OK;
  }
  return fetch_and_op_checked(gptr, value, result, dtype, op);
}

dart_ret_t dart_compare_and_swap(dart_gptr_t gptr, const void* value, const void* compare, void* result,
                                 dart_datatype_t dtype) {
  if (char* local = direct_atomic(gptr, dtype); local && value && compare && result && is_integral_type(dtype)) {
    compare_and_swap_cpu(local, value, compare, result, dtype);
    return DART_OK;
  }
  return compare_and_swap_checked(gptr, value, compare, result, dtype);
}

}  // extern "C"
