// Point-to-point synchronisation (ext/dart_wait.h, ext/dart_signal.h):
// waits and tests on the caller's own memory, and put with signal.
//
// A wait reads its elements with acquire loads on the caller's mapping of
// its own portion. Updates arrive by load/store (units of the node, when
// the segment is mapped) or by MPI RMA; for the latter the wait also drives
// MPI progress and synchronises the window's public and private copies
// (MPI_Win_sync), since some libraries apply RMA only while the target is
// inside MPI.
//
// A put with signal is a complete put followed by an atomic update of the
// signal word, taking the same path as every accumulate-type operation on
// that word (rma/atomics.hpp), so that signal updates are atomic with each
// other however they travel. The put's completion (a fence on the load/
// store path, MPI_Win_flush on the RMA path) orders the data before the
// signal.
#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/ext/dart_wait.h>

#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "core/stats.hpp"
#include "rma/access.hpp"
#include "rma/atomics.hpp"
#include "rma/copy.hpp"
#include "rma/signal.hpp"
#include "rma/transfer.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>

using namespace dart;

namespace {

bool integer_type(dart_datatype_t t) { return t >= DART_TYPE_BYTE && t <= DART_TYPE_ULONGLONG; }

// The caller's elements a wait or test looks at.
struct Region {
  const char* base = nullptr;
  std::size_t n = 0;
  dart_datatype_t dtype = DART_TYPE_UNDEFINED;
  MPI_Win win = MPI_WIN_NULL;  // set when updates may arrive through MPI RMA
};

Region local_region(const dart_gptr_t& g, std::size_t nelems, dart_datatype_t dtype) {
  if (!integer_type(dtype))
    invalid("waits compare integer types only (DART_TYPE_BYTE ... DART_TYPE_ULONGLONG), not " +
            std::to_string(static_cast<long long>(dtype)));
  const Target t = resolve(g);
  if (t.team->myid() != g.unitid)
    invalid("the pointer names unit " + std::to_string(g.unitid) + " of team " + std::to_string(g.teamid) +
            ", not the caller (unit " + std::to_string(t.team->myid()) + "): waits are on the caller's own memory");
  const std::size_t size = basic_type_size(dtype);
  const std::size_t bytes = checked_bytes(nelems, size);
  if (bytes > t.avail)
    invalid(std::to_string(nelems) + " elements of " + std::to_string(size) + " bytes run past the end of the caller's " +
            "portion (" + std::to_string(t.avail) + " bytes left after the offset)");
  if (bytes > 0 && !t.mine) invalid("the caller has no memory at this pointer");
  if (reinterpret_cast<std::uintptr_t>(t.mine) % size != 0)
    invalid("the elements are not aligned to their size of " + std::to_string(size) + " bytes");
  Region r;
  r.base = t.mine;
  r.n = nelems;
  r.dtype = dtype;
  if (t.win != MPI_WIN_NULL && !cpu_atomics(t, DART_TYPE_LONGLONG)) r.win = t.win;
  return r;
}

void check_cmp(dart_cmp_t cmp) {
  if (cmp < DART_CMP_EQ || cmp > DART_CMP_LE) invalid("unknown comparison " + std::to_string(static_cast<int>(cmp)));
}

template <class T>
[[gnu::always_inline]] inline bool holds(T x, dart_cmp_t cmp, T v) noexcept {
  switch (cmp) {
    case DART_CMP_EQ: return x == v;
    case DART_CMP_NE: return x != v;
    case DART_CMP_GT: return x > v;
    case DART_CMP_GE: return x >= v;
    case DART_CMP_LT: return x < v;
    case DART_CMP_LE: return x <= v;
  }
  return false;
}

// Calls fn(T*) with the C type of an integer DART type.
template <class Fn>
void with_integer_type(dart_datatype_t dtype, Fn&& fn) {
  switch (dtype) {
    case DART_TYPE_BYTE: fn(static_cast<unsigned char*>(nullptr)); return;
    case DART_TYPE_SHORT: fn(static_cast<short*>(nullptr)); return;
    case DART_TYPE_INT: fn(static_cast<int*>(nullptr)); return;
    case DART_TYPE_UINT: fn(static_cast<unsigned int*>(nullptr)); return;
    case DART_TYPE_LONG: fn(static_cast<long*>(nullptr)); return;
    case DART_TYPE_ULONG: fn(static_cast<unsigned long*>(nullptr)); return;
    case DART_TYPE_LONGLONG: fn(static_cast<long long*>(nullptr)); return;
    case DART_TYPE_ULONGLONG: fn(static_cast<unsigned long long*>(nullptr)); return;
    default: break;
  }
  invalid("not an integer type");
}

enum class Form { All, Any, Some };

// What a wait or test asks for, and what it found.
struct Query {
  Form form = Form::All;
  const int* status = nullptr;  // element i is left out when status[i] != 0
  dart_cmp_t cmp = DART_CMP_EQ;
  const void* values = nullptr;  // one value, or nelems with `vector`
  bool vector = false;
  // Results.
  std::size_t next = 0;  // All: elements before it have been seen satisfied
  std::size_t index = DART_WAIT_NONE;  // Any
  std::size_t* indices = nullptr;      // Some
  std::size_t count = 0;               // Some
  unsigned long long seen = 0;         // All over one element: the value that satisfied it

  [[nodiscard]] bool included(std::size_t i) const noexcept { return !status || status[i] == 0; }
};

// Whether any element is included: waits without one return at once.
bool any_included(const Region& r, const Query& q) {
  for (std::size_t i = 0; i < r.n; ++i)
    if (q.included(i)) return true;
  return false;
}

// Where an _any look starts among n > 0 elements: uniform, from a
// per-thread xorshift generator (no lock, no shared state; a start that
// depended on the previous result would couple a thread's waits on
// different arrays and could skip an element for ever).
std::size_t any_start(std::size_t n) noexcept {
  thread_local std::uint64_t x = 0x9e3779b97f4a7c15ULL ^ reinterpret_cast<std::uintptr_t>(&x);
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return static_cast<std::size_t>(x % n);
}

// One look at the elements. True when the query is satisfied.
template <class T>
bool check(const Region& r, Query& q) noexcept {
  const T* p = reinterpret_cast<const T*>(r.base);
  const char* vs = static_cast<const char*>(q.values);
  auto value = [&](std::size_t i) {
    T v;
    std::memcpy(&v, vs + (q.vector ? i * sizeof(T) : 0), sizeof v);
    return v;
  };
  auto satisfied = [&](std::size_t i) { return holds(__atomic_load_n(p + i, __ATOMIC_ACQUIRE), q.cmp, value(i)); };
  switch (q.form) {
    case Form::All:
      // Resumes where the last look stopped: each element must have been
      // seen satisfied once (as OpenSHMEM implementations do).
      for (; q.next < r.n; ++q.next) {
        if (!q.included(q.next)) continue;
        const T x = __atomic_load_n(p + q.next, __ATOMIC_ACQUIRE);
        if (!holds(x, q.cmp, value(q.next))) return false;
        q.seen = static_cast<unsigned long long>(x);
      }
      return true;
    case Form::Any:
      // From a random start, around: of several satisfied elements each is
      // returned by some call of a series, as OpenSHMEM's _any routines
      // require (always the lowest would starve the others for ever).
      for (std::size_t k = 0, i = any_start(r.n); k < r.n; ++k, i = i + 1 == r.n ? 0 : i + 1)
        if (q.included(i) && satisfied(i)) {
          q.index = i;
          return true;
        }
      return false;
    case Form::Some:
      q.count = 0;
      for (std::size_t i = 0; i < r.n; ++i)
        if (q.included(i) && satisfied(i)) q.indices[q.count++] = i;
      return q.count > 0;
  }
  return false;
}

// Makes RMA that completed at the caller visible to its loads (and, with
// some libraries, lets it complete).
void sync_window(const Region& r) {
  if (r.win == MPI_WIN_NULL) return;
  activity::InMpi in_mpi(activity::Reach::Self);  // local: drives nothing
  mpi_check(MPI_Win_sync(r.win), "MPI_Win_sync");
}

bool look(const Region& r, Query& q) {
  bool ok = false;
  with_integer_type(r.dtype, [&](auto* tag) { ok = check<std::remove_pointer_t<decltype(tag)>>(r, q); });
  return ok;
}

// Checks until the query is satisfied: first by spinning (an update from a
// unit of the node takes a cache-line transfer), then polling MPI between
// checks and yielding the CPU, so that an oversubscribed node still runs
// the writer, and finally sleeping briefly between checks of a long wait.
void wait(const Region& r, Query& q) {
  if (!any_included(r, q)) return;
  // Spinning without MPI only pays where no update needs it: with MPI
  // updates possible, a library that applies RMA only inside the target's
  // MPI calls (MPICH) would hold the update back for the whole spin.
  const int spins = r.win != MPI_WIN_NULL ? 16 : 2000;
  for (int i = 0; i < spins; ++i) {
    if (look(r, q)) {
      sync_window(r);
      return;
    }
    __builtin_ia32_pause();
  }
  // Progress for RMA to the caller's memory on any segment, not only this
  // one: a unit that signals here may first wait for its own earlier RMA to
  // the caller to complete, which some libraries do only while the caller
  // is inside MPI.
  ProgressPoller poller(rt().progress_comm(), /*probe_only=*/true);
  for (unsigned long k = 0;; ++k) {
    poller.drive();
    sync_window(r);
    if (look(r, q)) break;
    if (k < 256) continue;  // a round trip through MPI first, without giving up the CPU
    if (k < 4096) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  sync_window(r);
}

bool test(const Region& r, Query& q) {
  if (!any_included(r, q)) return q.form == Form::All;
  sync_window(r);
  if (!look(r, q)) {
    // Nothing yet: give RMA that waits for the caller a chance to land.
    ProgressPoller poller(rt().progress_comm(), /*probe_only=*/true);
    poller.drive();
    return false;
  }
  return true;
}

Region region_for(const dart_gptr_t& g, std::size_t nelems, const int* /*status*/, dart_cmp_t cmp, const void* values,
                  dart_datatype_t dtype) {
  check_cmp(cmp);
  Region r = local_region(g, nelems, dtype);
  if (nelems > 0 && !values) invalid("value is NULL");
  return r;
}

// The wait and test forms over several elements.
template <class Out>
dart_ret_t many(const char* call, bool block, Form form, bool vector, dart_gptr_t g, std::size_t nelems,
                const int* status, dart_cmp_t cmp, const void* values, dart_datatype_t dtype, Out&& out) {
  return entry(call, [&] {
    Region r = region_for(g, nelems, status, cmp, values, dtype);
    Query q;
    q.form = form;
    q.status = status;
    q.cmp = cmp;
    q.values = values;
    q.vector = vector;
    out(r, q, block);
  });
}

}  // namespace

extern "C" {

dart_ret_t dart_wait_until(dart_gptr_t gptr, dart_cmp_t cmp, const void* value, dart_datatype_t dtype) {
  return entry("dart_wait_until", [&] {
    Region r = region_for(gptr, 1, nullptr, cmp, value, dtype);
    Query q;
    q.cmp = cmp;
    q.values = value;
    wait(r, q);
  });
}

dart_ret_t dart_test_until(dart_gptr_t gptr, dart_cmp_t cmp, const void* value, dart_datatype_t dtype,
                           int32_t* result) {
  return entry("dart_test_until", [&] {
    require(result, "result");
    Region r = region_for(gptr, 1, nullptr, cmp, value, dtype);
    Query q;
    q.cmp = cmp;
    q.values = value;
    *result = test(r, q) ? 1 : 0;
  });
}

}  // extern "C"

namespace {

// The bodies of the _all, _any and _some forms, waiting or testing.
auto all_form(int32_t* result) {
  return [result](const Region& r, Query& q, bool block) {
    if (block) wait(r, q);
    else {
      require(result, "result");
      *result = test(r, q) ? 1 : 0;
    }
  };
}

auto any_form(std::size_t* index) {
  return [index](const Region& r, Query& q, bool block) {
    require(index, "index");
    *index = DART_WAIT_NONE;
    if (block) wait(r, q);
    else (void)test(r, q);
    *index = q.index;
  };
}

auto some_form(std::size_t* indices, std::size_t* count) {
  return [indices, count](const Region& r, Query& q, bool block) {
    require(count, "count");
    *count = 0;
    if (r.n > 0) require(indices, "indices");
    q.indices = indices;
    if (block) wait(r, q);
    else (void)test(r, q);
    *count = q.count;
  };
}

}  // namespace

extern "C" {

dart_ret_t dart_wait_until_all(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype) {
  return many("dart_wait_until_all", true, Form::All, false, gptr, nelems, status, cmp, value, dtype,
              all_form(nullptr));
}

dart_ret_t dart_wait_until_any(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype, size_t* index) {
  return many("dart_wait_until_any", true, Form::Any, false, gptr, nelems, status, cmp, value, dtype, any_form(index));
}

dart_ret_t dart_wait_until_some(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                                dart_datatype_t dtype, size_t* indices, size_t* count) {
  return many("dart_wait_until_some", true, Form::Some, false, gptr, nelems, status, cmp, value, dtype,
              some_form(indices, count));
}

dart_ret_t dart_wait_until_all_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype) {
  return many("dart_wait_until_all_vector", true, Form::All, true, gptr, nelems, status, cmp, values, dtype,
              all_form(nullptr));
}

dart_ret_t dart_wait_until_any_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype, size_t* index) {
  return many("dart_wait_until_any_vector", true, Form::Any, true, gptr, nelems, status, cmp, values, dtype,
              any_form(index));
}

dart_ret_t dart_wait_until_some_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                       const void* values, dart_datatype_t dtype, size_t* indices, size_t* count) {
  return many("dart_wait_until_some_vector", true, Form::Some, true, gptr, nelems, status, cmp, values, dtype,
              some_form(indices, count));
}

dart_ret_t dart_test_until_all(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype, int32_t* result) {
  if (result) *result = 0;
  return many("dart_test_until_all", false, Form::All, false, gptr, nelems, status, cmp, value, dtype,
              all_form(result));
}

dart_ret_t dart_test_until_any(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype, size_t* index) {
  return many("dart_test_until_any", false, Form::Any, false, gptr, nelems, status, cmp, value, dtype,
              any_form(index));
}

dart_ret_t dart_test_until_some(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                                dart_datatype_t dtype, size_t* indices, size_t* count) {
  return many("dart_test_until_some", false, Form::Some, false, gptr, nelems, status, cmp, value, dtype,
              some_form(indices, count));
}

dart_ret_t dart_test_until_all_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype, int32_t* result) {
  if (result) *result = 0;
  return many("dart_test_until_all_vector", false, Form::All, true, gptr, nelems, status, cmp, values, dtype,
              all_form(result));
}

dart_ret_t dart_test_until_any_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype, size_t* index) {
  return many("dart_test_until_any_vector", false, Form::Any, true, gptr, nelems, status, cmp, values, dtype,
              any_form(index));
}

dart_ret_t dart_test_until_some_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                       const void* values, dart_datatype_t dtype, size_t* indices, size_t* count) {
  return many("dart_test_until_some_vector", false, Form::Some, true, gptr, nelems, status, cmp, values, dtype,
              some_form(indices, count));
}

}  // extern "C"

// ---------------------------------------------------------------- signals

// The helpers rma/signal.hpp declares (put with signal on a context uses
// them too).
Target dart::signal_target(const dart_gptr_t& signal, int unit) {
  const Target t = resolve(signal);
  if (unit >= 0 && t.team->global_unit(t.unit) != unit)
    invalid("the signal is on unit " + std::to_string(t.team->global_unit(t.unit)) +
            " (of DART_TEAM_ALL), the data on unit " + std::to_string(unit) + ": both must be on the same unit");
  if (signal.addr_or_offs.offset % sizeof(std::uint64_t) != 0 ||
      (t.mine && reinterpret_cast<std::uintptr_t>(t.mine) % sizeof(std::uint64_t) != 0))
    invalid("the signal word is not aligned to 8 bytes");
  if (t.avail < sizeof(std::uint64_t)) invalid("the signal word runs past the end of the target's portion");
  return t;
}

dart_operation_t dart::signal_op(dart_signal_op_t op) {
  switch (op) {
    case DART_SIGNAL_SET: return DART_OP_REPLACE;
    case DART_SIGNAL_ADD: return DART_OP_SUM;
  }
  invalid("unknown signal operation " + std::to_string(static_cast<int>(op)));
}

int dart::global_unit_of(const dart_gptr_t& g) {
  const Target t = resolve(g);
  return t.team->global_unit(t.unit);
}

namespace {

// The fast paths: memory the caller maps, of a segment whose team lives on
// one node with load/store on, so that every update of it is a store or a
// CPU atomic (the direct-access cache's cpu_atomics). Anything else, errors
// included, takes the checked path.

// The caller's own element of `size` bytes at `g`, or nullptr.
[[gnu::always_inline]] inline const char* own_direct(const dart_gptr_t& g, std::size_t size) noexcept {
  using direct_cache::racy;
  const Runtime* r = runtime();
  if (!r) return nullptr;
  const Team* team = r->find_team(g.teamid);
  if (!team || team->myid() != g.unitid) return nullptr;
  std::uint64_t word;
  const direct_cache::Entry* e = direct_entry(g, word);
  if (!e || !racy(e->d.cpu_atomics)) return nullptr;
  const char* p = direct_in(*e, g, size);
  if (!direct_cache::still(*e, word) || !p || reinterpret_cast<std::uintptr_t>(p) % size != 0) return nullptr;
  return p;
}

// Spins a while on the caller's own signal word; true (and the value) if
// it satisfied the comparison in that time.
bool spin_own_signal(const dart_gptr_t& signal, dart_cmp_t cmp, std::uint64_t value, std::uint64_t* seen) noexcept {
  if (cmp < DART_CMP_EQ || cmp > DART_CMP_LE) return false;
  const auto* p = reinterpret_cast<const std::uint64_t*>(own_direct(signal, sizeof(std::uint64_t)));
  if (!p) return false;
  for (int i = 0; i < 4000; ++i) {
    const std::uint64_t x = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    if (holds(x, cmp, value)) {
      *seen = x;
      return true;
    }
    __builtin_ia32_pause();
  }
  return false;
}

// Updates the signal; remotely complete on return with `remote`, locally
// (the value may go) otherwise.
void update_signal(const Target& t, std::uint64_t value, dart_operation_t op, bool remote) {
  const unsigned long long v = value;
  accumulate(t, &v, 1, DART_TYPE_ULONGLONG, op, true);
  if (remote && !cpu_atomics(t, DART_TYPE_ULONGLONG)) flush_target(t);
}

void put_signal(dart_gptr_t dest, const void* src, std::size_t nelem, dart_datatype_t dtype, dart_gptr_t signal,
                std::uint64_t value, dart_signal_op_t op, bool remote) {
  const dart_operation_t aop = signal_op(op);
  const Target st = signal_target(signal, global_unit_of(dest));
  put_complete(dest, src, nelem, dtype);
  update_signal(st, value, aop, remote);
}

}  // namespace

extern "C" {

dart_ret_t dart_put_signal(dart_gptr_t dest, const void* src, size_t nelem, dart_datatype_t dtype, dart_gptr_t signal,
                           uint64_t value, dart_signal_op_t op) {
  if (put_signal_direct(dest, src, nelem, dtype, signal, value, op, false)) return DART_OK;
  return entry("dart_put_signal", [&] { put_signal(dest, src, nelem, dtype, signal, value, op, false); });
}

dart_ret_t dart_put_signal_blocking(dart_gptr_t dest, const void* src, size_t nelem, dart_datatype_t dtype,
                                    dart_gptr_t signal, uint64_t value, dart_signal_op_t op) {
  if (put_signal_direct(dest, src, nelem, dtype, signal, value, op, true)) return DART_OK;
  return entry("dart_put_signal_blocking", [&] { put_signal(dest, src, nelem, dtype, signal, value, op, true); });
}

dart_ret_t dart_signal_update(dart_gptr_t signal, uint64_t value, dart_signal_op_t op) {
  return entry("dart_signal_update", [&] {
    const dart_operation_t aop = signal_op(op);
    const Target st = signal_target(signal, -1);
    // Earlier transfers of the caller that completed are ordered before
    // the update by the update's own ordering (a sequentially consistent
    // atomic, or an MPI accumulate after their flush).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    update_signal(st, value, aop, true);
  });
}

dart_ret_t dart_signal_fetch(dart_gptr_t signal, uint64_t* value) {
  return entry("dart_signal_fetch", [&] {
    require(value, "value");
    const Target st = signal_target(signal, -1);
    const unsigned long long zero = 0;
    unsigned long long out = 0;
    fetch_and_op(st, &zero, &out, DART_TYPE_ULONGLONG, DART_OP_NO_OP);
    if (!cpu_atomics(st, DART_TYPE_ULONGLONG)) flush_target(st);
    *value = out;
  });
}

dart_ret_t dart_signal_wait_until(dart_gptr_t signal, dart_cmp_t cmp, uint64_t value, uint64_t* observed) {
  if (std::uint64_t seen = 0; spin_own_signal(signal, cmp, value, &seen)) {
    if (observed) *observed = seen;
    return DART_OK;
  }
  return entry("dart_signal_wait_until", [&] {
    check_cmp(cmp);
    Region r = local_region(signal, 1, DART_TYPE_ULONGLONG);  // checks the word's alignment and range too
    const unsigned long long v = value;
    Query q;
    q.cmp = cmp;
    q.values = &v;
    wait(r, q);
    if (observed) *observed = q.seen;
  });
}

}  // extern "C"
