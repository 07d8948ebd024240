// OpenSHMEM point-to-point synchronisation over DART's waits
// (dash/dart/ext/dart_wait.h): the memory ordering, and the progress that
// updates arriving through MPI need, are DART's.
#include "internal.hpp"

#include <dash/dart/ext/dart_wait.h>

#include <sched.h>

namespace dshmem {
namespace {

bool valid_cmp(const char* call, int cmp) {
  if (cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE) return true;
  fail(call, SHMEMX_ERR_ARG, "comparison " + std::to_string(cmp) + " is not one of SHMEM_CMP_*");
  return false;
}

// The caller's `nelems` elements at `ivars` as a global pointer, checked.
bool ivars_gptr(const char* call, const void* ivars, std::size_t nelems, std::size_t size, int cmp, dart_gptr_t* g) {
  if (!require_init(call) || !valid_cmp(call, cmp)) return false;
  std::size_t bytes;
  if (__builtin_mul_overflow(nelems, size, &bytes)) {
    fail(call, SHMEMX_ERR_ARG, "nelems overflows");
    return false;
  }
  // An empty set (OpenSHMEM 1.6: _test_all returns 1 for it, _any finds
  // nothing, _some none) reads no element, so ivars may be anything, even
  // NULL: DART is handed the caller's heap start, which it does not read
  // for zero elements.
  if (nelems == 0) return local_gptr(call, st.heap_base, 1, g);
  return local_gptr(call, ivars, bytes, g);
}

template <class T>
bool holds(T x, int cmp, T v) {
  switch (cmp) {
    case SHMEM_CMP_EQ: return x == v;
    case SHMEM_CMP_NE: return x != v;
    case SHMEM_CMP_GT: return x > v;
    case SHMEM_CMP_GE: return x >= v;
    case SHMEM_CMP_LT: return x < v;
    case SHMEM_CMP_LE: return x <= v;
    default: return false;
  }
}

// DART has no 16-bit unsigned type; unsigned short compares are waited for
// here, and each round asks DART to test the word as a short for equality
// with itself, which drives MPI progress and synchronises the window as
// its own waits do.
template <class T>
void wait_unsigned_short(const dart_gptr_t& g, const T* ivar, int cmp, T value) {
  unsigned rounds = 0;
  for (;;) {
    const T x = __atomic_load_n(ivar, __ATOMIC_ACQUIRE);
    if (holds(x, cmp, value)) return;
    short probe = static_cast<short>(x);
    int32_t r = 0;
    dart_test_until(g, DART_CMP_EQ, &probe, DART_TYPE_SHORT, &r);
    if (++rounds > 256) sched_yield();
  }
}

template <class T>
struct Kind {
  static constexpr dart_datatype_t type = dart_type<T>();
};

}  // namespace
}  // namespace dshmem

using namespace dshmem;

#define DSHMEM_WAIT_OK(call, ivars, nelems, cmp, g) ivars_gptr(call, ivars, nelems, sizeof(*(ivars)), cmp, &g)

// The typed routines over DART's, for every type DART compares natively.
#define DSHMEM_DEF_P2P_NATIVE(T, N)                                                                            \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value) {                                                \
    dart_gptr_t g;                                                                                            \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_wait_until", ivar, 1, cmp, g)) return;                                  \
    if (dart_wait_until(g, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type) != DART_OK)               \
      fail("shmem_" #N "_wait_until", SHMEMX_ERR_RUNTIME, "the wait failed");                                 \
  }                                                                                                           \
  void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {         \
    dart_gptr_t g;                                                                                            \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_wait_until_all", ivars, nelems, cmp, g)) return;                        \
    dart_wait_until_all(g, nelems, status, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type);          \
  }                                                                                                           \
  size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {       \
    dart_gptr_t g;                                                                                            \
    size_t index = SIZE_MAX;                                                                                  \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_wait_until_any", ivars, nelems, cmp, g)) return SIZE_MAX;               \
    dart_wait_until_any(g, nelems, status, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type, &index);  \
    return index;                                                                                             \
  }                                                                                                           \
  size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,    \
                                     T cmp_value) {                                                           \
    dart_gptr_t g;                                                                                            \
    size_t count = 0;                                                                                         \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_wait_until_some", ivars, nelems, cmp, g)) return 0;                     \
    dart_wait_until_some(g, nelems, status, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type, indices, \
                         &count);                                                                             \
    return count;                                                                                             \
  }                                                                                                           \
  void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp,                 \
                                         const T* cmp_values) {                                                     \
    dart_gptr_t g;                                                                                            \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_wait_until_all_vector", ivars, nelems, cmp, g)) return;                 \
    dart_wait_until_all_vector(g, nelems, status, static_cast<dart_cmp_t>(cmp), cmp_values, Kind<T>::type);   \
  }                                                                                                           \
  size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,               \
                                           const T* cmp_values) {                                                   \
    dart_gptr_t g;                                                                                            \
    size_t index = SIZE_MAX;                                                                                  \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_wait_until_any_vector", ivars, nelems, cmp, g)) return SIZE_MAX;        \
    dart_wait_until_any_vector(g, nelems, status, static_cast<dart_cmp_t>(cmp), cmp_values, Kind<T>::type,    \
                               &index);                                                                       \
    return index;                                                                                             \
  }                                                                                                           \
  size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status,      \
                                            int cmp, const T* cmp_values) {                                         \
    dart_gptr_t g;                                                                                            \
    size_t count = 0;                                                                                         \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_wait_until_some_vector", ivars, nelems, cmp, g)) return 0;              \
    dart_wait_until_some_vector(g, nelems, status, static_cast<dart_cmp_t>(cmp), cmp_values, Kind<T>::type,   \
                                indices, &count);                                                             \
    return count;                                                                                             \
  }                                                                                                           \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value) {                                                       \
    dart_gptr_t g;                                                                                            \
    int32_t r = 0;                                                                                            \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_test", ivar, 1, cmp, g)) return 0;                                      \
    dart_test_until(g, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type, &r);                          \
    return r ? 1 : 0;                                                                                         \
  }                                                                                                           \
  int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {                \
    dart_gptr_t g;                                                                                            \
    int32_t r = 0;                                                                                            \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_test_all", ivars, nelems, cmp, g)) return 0;                            \
    dart_test_until_all(g, nelems, status, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type, &r);      \
    return r ? 1 : 0;                                                                                         \
  }                                                                                                           \
  size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {             \
    dart_gptr_t g;                                                                                            \
    size_t index = SIZE_MAX;                                                                                  \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_test_any", ivars, nelems, cmp, g)) return SIZE_MAX;                     \
    dart_test_until_any(g, nelems, status, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type, &index);  \
    return index;                                                                                             \
  }                                                                                                           \
  size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,          \
                               T cmp_value) {                                                                 \
    dart_gptr_t g;                                                                                            \
    size_t count = 0;                                                                                         \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_test_some", ivars, nelems, cmp, g)) return 0;                           \
    dart_test_until_some(g, nelems, status, static_cast<dart_cmp_t>(cmp), &cmp_value, Kind<T>::type, indices, \
                         &count);                                                                             \
    return count;                                                                                             \
  }                                                                                                           \
  int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) {       \
    dart_gptr_t g;                                                                                            \
    int32_t r = 0;                                                                                            \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_test_all_vector", ivars, nelems, cmp, g)) return 0;                     \
    dart_test_until_all_vector(g, nelems, status, static_cast<dart_cmp_t>(cmp), cmp_values, Kind<T>::type,    \
                               &r);                                                                           \
    return r ? 1 : 0;                                                                                         \
  }                                                                                                           \
  size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) {    \
    dart_gptr_t g;                                                                                            \
    size_t index = SIZE_MAX;                                                                                  \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_test_any_vector", ivars, nelems, cmp, g)) return SIZE_MAX;              \
    dart_test_until_any_vector(g, nelems, status, static_cast<dart_cmp_t>(cmp), cmp_values, Kind<T>::type,    \
                               &index);                                                                       \
    return index;                                                                                             \
  }                                                                                                           \
  size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,   \
                                      const T* cmp_values) {                                                        \
    dart_gptr_t g;                                                                                            \
    size_t count = 0;                                                                                         \
    if (!DSHMEM_WAIT_OK("shmem_" #N "_test_some_vector", ivars, nelems, cmp, g)) return 0;                    \
    dart_test_until_some_vector(g, nelems, status, static_cast<dart_cmp_t>(cmp), cmp_values, Kind<T>::type,   \
                                indices, &count);                                                             \
    return count;                                                                                             \
  }

// unsigned short: the element-wise forms over the single-element ones.
namespace {

// A uniform start for an _any look among n > 0 elements (per-thread
// xorshift; no state shared between arrays or threads).
size_t any_start(size_t n) noexcept {
  thread_local uint64_t x = 0x9e3779b97f4a7c15ULL ^ reinterpret_cast<uintptr_t>(&x);
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return static_cast<size_t>(x % n);
}

template <class T>
bool ushort_test(const char* call, T* ivars, size_t nelems, const int* status, int cmp, const T* values, bool vec,
                 size_t* indices, size_t* count, size_t* first) {
  *count = 0;
  *first = SIZE_MAX;
  dart_gptr_t g;
  if (!ivars_gptr(call, ivars, nelems, sizeof(T), cmp, &g)) return false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // *first is the satisfied element met first from a random start, around
  // (the _any routines must return each satisfied element in some call of
  // a series, as DART's own _any does); indices stay in increasing order.
  const size_t start = nelems ? any_start(nelems) : 0;
  size_t first_distance = SIZE_MAX;
  for (size_t i = 0; i < nelems; ++i) {
    if (status && status[i]) continue;
    if (holds(__atomic_load_n(&ivars[i], __ATOMIC_ACQUIRE), cmp, vec ? values[i] : values[0])) {
      if (indices) indices[*count] = i;
      const size_t distance = i >= start ? i - start : i + nelems - start;
      if (distance < first_distance) {
        first_distance = distance;
        *first = i;
      }
      ++*count;
    }
  }
  return true;
}

size_t included(size_t nelems, const int* status) {
  size_t n = 0;
  for (size_t i = 0; i < nelems; ++i) n += !(status && status[i]);
  return n;
}

}  // namespace

extern "C" {

#define DSHMEM_DEF_P2P(T, N) DSHMEM_DEF_P2P_NATIVE(T, N)
DSHMEM_DEF_P2P(short, short)
DSHMEM_DEF_P2P(int, int)
DSHMEM_DEF_P2P(long, long)
DSHMEM_DEF_P2P(long long, longlong)
DSHMEM_DEF_P2P(unsigned int, uint)
DSHMEM_DEF_P2P(unsigned long, ulong)
DSHMEM_DEF_P2P(unsigned long long, ulonglong)
DSHMEM_DEF_P2P(int32_t, int32)
DSHMEM_DEF_P2P(int64_t, int64)
DSHMEM_DEF_P2P(uint32_t, uint32)
DSHMEM_DEF_P2P(uint64_t, uint64)
DSHMEM_DEF_P2P(size_t, size)
DSHMEM_DEF_P2P(ptrdiff_t, ptrdiff)

void shmem_ushort_wait_until(unsigned short* ivar, int cmp, unsigned short cmp_value) {
  dart_gptr_t g;
  if (!ivars_gptr("shmem_ushort_wait_until", ivar, 1, sizeof(*ivar), cmp, &g)) return;
  wait_unsigned_short(g, ivar, cmp, cmp_value);
}

int shmem_ushort_test(unsigned short* ivar, int cmp, unsigned short cmp_value) {
  size_t n, first;
  return ushort_test("shmem_ushort_test", ivar, 1, nullptr, cmp, &cmp_value, false, nullptr, &n, &first) && n == 1;
}

// The waits poll the tests, yielding between rounds once the first have
// failed, with a single-element DART test on the first element for progress.
#define DSHMEM_USHORT_WAIT(call, until, ...)                                                                   \
  for (unsigned round = 0;; ++round) {                                                                        \
    size_t n = 0, first = SIZE_MAX;                                                                           \
    if (!ushort_test(call, ivars, nelems, status, cmp, __VA_ARGS__, &n, &first)) break;                       \
    if (until) break;                                                                                         \
    short probe = 0;                                                                                          \
    int32_t r = 0;                                                                                            \
    dart_gptr_t g;                                                                                            \
    local_gptr(call, ivars, sizeof(*ivars), &g);                                                              \
    dart_test_until(g, DART_CMP_EQ, &probe, DART_TYPE_SHORT, &r);                                             \
    if (round > 256) sched_yield();                                                                           \
  }

void shmem_ushort_wait_until_all(unsigned short* ivars, size_t nelems, const int* status, int cmp,
                                  unsigned short cmp_value) {
  const size_t want = included(nelems, status);
  DSHMEM_USHORT_WAIT("shmem_ushort_wait_until_all", n == want, &cmp_value, false, nullptr)
}
size_t shmem_ushort_wait_until_any(unsigned short* ivars, size_t nelems, const int* status, int cmp,
                                   unsigned short cmp_value) {
  if (included(nelems, status) == 0) return SIZE_MAX;
  size_t out = SIZE_MAX;
  DSHMEM_USHORT_WAIT("shmem_ushort_wait_until_any", (out = first) != SIZE_MAX, &cmp_value, false, nullptr)
  return out;
}
size_t shmem_ushort_wait_until_some(unsigned short* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
                                    unsigned short cmp_value) {
  if (included(nelems, status) == 0) return 0;
  size_t out = 0;
  DSHMEM_USHORT_WAIT("shmem_ushort_wait_until_some", (out = n) > 0, &cmp_value, false, indices)
  return out;
}
void shmem_ushort_wait_until_all_vector(unsigned short* ivars, size_t nelems, const int* status, int cmp,
                                        const unsigned short* cmp_values) {
  const size_t want = included(nelems, status);
  DSHMEM_USHORT_WAIT("shmem_ushort_wait_until_all_vector", n == want, cmp_values, true, nullptr)
}
size_t shmem_ushort_wait_until_any_vector(unsigned short* ivars, size_t nelems, const int* status, int cmp,
                                          const unsigned short* cmp_values) {
  if (included(nelems, status) == 0) return SIZE_MAX;
  size_t out = SIZE_MAX;
  DSHMEM_USHORT_WAIT("shmem_ushort_wait_until_any_vector", (out = first) != SIZE_MAX, cmp_values, true, nullptr)
  return out;
}
size_t shmem_ushort_wait_until_some_vector(unsigned short* ivars, size_t nelems, size_t* indices, const int* status,
                                           int cmp, const unsigned short* cmp_values) {
  if (included(nelems, status) == 0) return 0;
  size_t out = 0;
  DSHMEM_USHORT_WAIT("shmem_ushort_wait_until_some_vector", (out = n) > 0, cmp_values, true, indices)
  return out;
}
int shmem_ushort_test_all(unsigned short* ivars, size_t nelems, const int* status, int cmp, unsigned short cmp_value) {
  size_t n, first;
  return ushort_test("shmem_ushort_test_all", ivars, nelems, status, cmp, &cmp_value, false, nullptr, &n, &first) &&
         n == included(nelems, status);
}
size_t shmem_ushort_test_any(unsigned short* ivars, size_t nelems, const int* status, int cmp,
                             unsigned short cmp_value) {
  size_t n, first;
  ushort_test("shmem_ushort_test_any", ivars, nelems, status, cmp, &cmp_value, false, nullptr, &n, &first);
  return first;
}
size_t shmem_ushort_test_some(unsigned short* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
                              unsigned short cmp_value) {
  size_t n, first;
  ushort_test("shmem_ushort_test_some", ivars, nelems, status, cmp, &cmp_value, false, indices, &n, &first);
  return n;
}
int shmem_ushort_test_all_vector(unsigned short* ivars, size_t nelems, const int* status, int cmp,
                                 const unsigned short* cmp_values) {
  size_t n, first;
  return ushort_test("shmem_ushort_test_all_vector", ivars, nelems, status, cmp, cmp_values, true, nullptr, &n,
                     &first) &&
         n == included(nelems, status);
}
size_t shmem_ushort_test_any_vector(unsigned short* ivars, size_t nelems, const int* status, int cmp,
                                    const unsigned short* cmp_values) {
  size_t n, first;
  ushort_test("shmem_ushort_test_any_vector", ivars, nelems, status, cmp, cmp_values, true, nullptr, &n, &first);
  return first;
}
size_t shmem_ushort_test_some_vector(unsigned short* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
                                     const unsigned short* cmp_values) {
  size_t n, first;
  ushort_test("shmem_ushort_test_some_vector", ivars, nelems, status, cmp, cmp_values, true, indices, &n, &first);
  return n;
}

// Deprecated: wait while *ivar == cmp_value.
void shmem_short_wait(short* ivar, short cmp_value) { shmem_short_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_int_wait(int* ivar, int cmp_value) { shmem_int_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_long_wait(long* ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_longlong_wait(long long* ivar, long long cmp_value) {
  shmem_longlong_wait_until(ivar, SHMEM_CMP_NE, cmp_value);
}

}  // extern "C"
