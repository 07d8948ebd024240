// dart_stats_get / dart_stats_reset and the DART_STATS=1 report.
#include "core/stats.hpp"

#include "core/error.hpp"
#include "core/runtime.hpp"

#include <dash/dart/ext/dart_stats.h>

#include <cinttypes>
#include <cstdio>

namespace dart::stats {

namespace {
std::uint64_t get(Counter c) noexcept { return g_counters[c].load(std::memory_order_relaxed); }
}  // namespace

void print(int unit) noexcept {
  std::fprintf(stderr,
               "[dart unit %d] stats: local puts %" PRIu64 ", gets %" PRIu64 ", bytes %" PRIu64 "; rma puts %" PRIu64
               ", gets %" PRIu64 ", bytes %" PRIu64 "; atomics cpu %" PRIu64 ", rma %" PRIu64 ", emulated %" PRIu64
               "; flushes mpi %" PRIu64 ", skipped %" PRIu64 "\n",
               unit, get(LocalPut), get(LocalGet), get(LocalBytes), get(RmaPut), get(RmaGet), get(RmaBytes),
               get(CpuAtomic), get(RmaAtomic), get(EmulatedAtomic), get(MpiFlush), get(SkippedFlush));
}

}  // namespace dart::stats

using namespace dart;

extern "C" {

dart_ret_t dart_stats_get(dart_stats_t* out) {
  return entry("dart_stats_get", [&] {
    require(out, "stats");
    (void)rt();
    using namespace dart::stats;
    *out = dart_stats_t{get(LocalPut),       get(LocalGet), get(LocalBytes),  get(RmaPut),
                        get(RmaGet),         get(RmaBytes), get(CpuAtomic),   get(RmaAtomic),
                        get(EmulatedAtomic), get(MpiFlush), get(SkippedFlush)};
  });
}

dart_ret_t dart_stats_metadata(dart_metadata_t* md) {
  return entry("dart_stats_metadata", [&] {
    require(md, "md");
    const Runtime& r = rt();
    dart_metadata_t out{};
    auto add = [&](const Team& t) {
      const Team::Metadata m = t.metadata();
      ++out.teams;
      out.segments += m.segments;
      out.team_bytes += m.team_bytes;
      out.segment_bytes += m.segment_bytes;
      out.retired_registrations += m.retired;
    };
    add(r.world());
    for (dart_team_t id : r.team_ids())
      if (const Team* t = r.find_team(id)) add(*t);
    out.runtime_bytes = r.fixed_metadata_bytes();
    *md = out;
  });
}

dart_ret_t dart_stats_reset() {
  return entry("dart_stats_reset", [&] {
    (void)rt();
    for (auto& c : stats::g_counters) c.store(0, std::memory_order_relaxed);
  });
}

}  // extern "C"
