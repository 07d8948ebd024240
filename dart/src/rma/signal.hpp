// Put with signal (ext/dart_signal.h): the pieces dart_ext_sync.cpp's
// dart_put_signal and dart_ext_ctx.cpp's dart_ctx_put_signal share. Errors
// are thrown (core/error.hpp).
#pragma once

#include "coll/types.hpp"
#include "core/stats.hpp"
#include "rma/access.hpp"
#include "rma/copy.hpp"

#include <dash/dart/ext/dart_signal.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace dart {

// The signal word's target, checked: on `unit` (a global unit id) when
// given, 8-byte aligned, inside the portion.
Target signal_target(const dart_gptr_t& signal, int unit);

// The accumulate operation of a signal operation; throws DART_ERR_INVAL
// for an unknown one.
dart_operation_t signal_op(dart_signal_op_t op);

// The unit `g` names, as a unit of DART_TEAM_ALL; throws as resolve().
int global_unit_of(const dart_gptr_t& g);

// Put with signal by a copy and a CPU atomic; false when the call is not
// for the fast path.
[[gnu::always_inline]] inline bool put_signal_direct(const dart_gptr_t& dest, const void* src, std::size_t nelem,
                                                     dart_datatype_t dtype, const dart_gptr_t& signal,
                                                     std::uint64_t value, dart_signal_op_t op, bool blocking) noexcept {
  using direct_cache::racy;
  const std::size_t size = basic_size_or_zero(dtype);
  std::size_t bytes = 0;
  if (size == 0 || !src || __builtin_mul_overflow(nelem, size, &bytes)) return false;
  if (dest.unitid != signal.unitid || dest.teamid != signal.teamid || signal.addr_or_offs.offset % 8 != 0 ||
      (op != DART_SIGNAL_SET && op != DART_SIGNAL_ADD))
    return false;
  std::uint64_t wd, ws;
  const direct_cache::Entry* ed = direct_entry(dest, wd);
  const direct_cache::Entry* es = direct_entry(signal, ws);
  if (!ed || !es || !racy(es->d.cpu_atomics)) return false;
  char* d = direct_in(*ed, dest, bytes);
  char* sig = direct_in(*es, signal, sizeof(std::uint64_t));
  if (!direct_cache::still(*ed, wd) || !direct_cache::still(*es, ws) || !d || !sig ||
      reinterpret_cast<std::uintptr_t>(sig) % 8 != 0)
    return false;
  stats::add(stats::LocalPut);
  stats::add(stats::LocalBytes, bytes);
  stats::add(stats::CpuAtomic);
  copy(d, src, bytes);
  auto* word = reinterpret_cast<std::uint64_t*>(sig);
  // Release: the data is visible to whoever sees the signal.
  if (op == DART_SIGNAL_SET) __atomic_store_n(word, value, __ATOMIC_RELEASE);
  else (void)__atomic_fetch_add(word, value, __ATOMIC_RELEASE);
  if (blocking) std::atomic_thread_fence(std::memory_order_seq_cst);
  return true;
}

}  // namespace dart
