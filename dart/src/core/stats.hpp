// Path counters behind dash/dart/ext/dart_stats.h.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace dart::stats {

enum Counter : unsigned {
  LocalPut,
  LocalGet,
  LocalBytes,
  RmaPut,
  RmaGet,
  RmaBytes,
  CpuAtomic,
  RmaAtomic,
  EmulatedAtomic,
  MpiFlush,
  SkippedFlush,
  kCounters
};

inline std::array<std::atomic<std::uint64_t>, kCounters> g_counters{};

// A load and a store rather than fetch_add: no locked instruction on the
// fast path; concurrent threads of a unit may lose an increment, which the
// header documents.
inline void add(Counter c, std::uint64_t v = 1) noexcept {
  auto& a = g_counters[c];
  a.store(a.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

// Prints the caller's counters (dart_exit, with DART_STATS=1).
void print(int unit) noexcept;

}  // namespace dart::stats
