// What the C++ layer costs over the raw DART C calls doing the same work,
// measured back to back in one run:
//   - local element reads: Array::local() view vs a raw pointer from
//     dart_gptr_getaddr; operator[] on the caller's own elements vs
//     dart_get_blocking of the same element;
//   - remote element reads: operator[] vs dart_get_blocking (the right
//     neighbour's block);
//   - a global sum: dartpp::accumulate vs a local loop plus dart_allreduce.
// Each figure is the mean per element (per call for the sum), best of
// --rounds; rank 0 prints ours, the raw figure and the ratio.
//
// Usage: mpirun -np <n> bench_cxx [--elements-per-unit N] [--rounds N]
#include "bench_session.hpp"

#include <dart/dart.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

namespace {

struct Options {
  std::size_t per_unit = 1 << 20;
  int rounds = 5;
};

// Best mean seconds per item of `work` (which handles `items` items),
// slowest unit of each round.
double time_per_item(const Options& o, std::size_t items, const std::function<void()>& work) {
  work();  // warm-up
  double best = std::numeric_limits<double>::max();
  for (int r = 0; r < o.rounds; ++r) {
    bench::check(dart_barrier(DART_TEAM_ALL), "dart_barrier");
    const auto t0 = std::chrono::steady_clock::now();
    work();
    const double mine =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / static_cast<double>(items);
    best = std::min(best, dartpp::allreduce(mine, DART_OP_MAX));
  }
  return best;
}

volatile long g_sink;  // keeps the loops from being optimised away

}  // namespace

int main(int argc, char** argv) {
  // DART brings MPI up and down (Mpi::dart), as dartpp::Runtime would; the
  // session also aborts the job on a failed raw DART call (bench::check).
  bench::Session session(argc, argv, "bench_cxx", bench::Session::Mpi::dart);
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--elements-per-unit")) o.per_unit = std::stoull(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds")) o.rounds = std::stoi(argv[i + 1]);
  }
  // DART_TEAM_ALL's unit ids are the world ranks.
  const int me = session.rank;
  const std::size_t units = static_cast<std::size_t>(session.size);
  dartpp::Array<long> a(o.per_unit * units);
  dartpp::for_each_index(a.begin(), a.end(), [](std::size_t i, long& v) { v = static_cast<long>(i); });
  const std::size_t lo = a.local_begin_index(), n = a.local().size();

  // Raw DART: the same allocation through the C interface.
  const dart_gptr_t base = a.begin().base();
  dart_gptr_t mine = base;
  mine.unitid = me;
  void* addr = nullptr;
  bench::check(dart_gptr_getaddr(mine, &addr), "dart_gptr_getaddr");
  const long* raw = static_cast<const long*>(addr);

  struct Row {
    const char* what;
    double ours;
    double raw;
  };
  std::vector<Row> rows;

  rows.push_back({"local read, local() view vs raw pointer",
                  time_per_item(o, n,
                                [&] {
                                  long s = 0;
                                  for (long v : a.local()) s += v;
                                  g_sink = s;
                                }),
                  time_per_item(o, n, [&] {
                    long s = 0;
                    for (std::size_t i = 0; i < n; ++i) s += raw[i];
                    g_sink = s;
                  })});

  const std::size_t sample = std::min<std::size_t>(n, 1 << 16);
  auto element = [&](int unit, std::size_t k) {
    dart_gptr_t g = base;
    g.unitid = unit;
    g.addr_or_offs.offset = k * sizeof(long);
    return g;
  };
  rows.push_back({"local read, operator[] vs dart_get_blocking",
                  time_per_item(o, sample,
                                [&] {
                                  long s = 0;
                                  for (std::size_t k = 0; k < sample; ++k) s += a[lo + k];
                                  g_sink = s;
                                }),
                  time_per_item(o, sample, [&] {
                    long s = 0, v = 0;
                    for (std::size_t k = 0; k < sample; ++k) {
                      bench::check(dart_get_blocking(&v, element(me, k), 1, DART_TYPE_LONG, DART_TYPE_LONG),
                                   "dart_get_blocking");
                      s += v;
                    }
                    g_sink = s;
                  })});

  const int right = static_cast<int>((static_cast<std::size_t>(me) + 1) % units);
  const std::size_t rlo = a.pattern().begin_of(right);
  rows.push_back({"neighbour read, operator[] vs dart_get_blocking",
                  time_per_item(o, sample,
                                [&] {
                                  long s = 0;
                                  for (std::size_t k = 0; k < sample; ++k) s += a[rlo + k];
                                  g_sink = s;
                                }),
                  time_per_item(o, sample, [&] {
                    long s = 0, v = 0;
                    for (std::size_t k = 0; k < sample; ++k) {
                      bench::check(dart_get_blocking(&v, element(right, k), 1, DART_TYPE_LONG, DART_TYPE_LONG),
                                   "dart_get_blocking");
                      s += v;
                    }
                    g_sink = s;
                  })});

  long layer_sum = 0, raw_sum = 0;
  rows.push_back(
      {"global sum, accumulate vs loop + dart_allreduce",
       time_per_item(o, 1, [&] { layer_sum = dartpp::accumulate(a.begin(), a.end(), 0L); }), time_per_item(o, 1, [&] {
         long s = 0;
         for (std::size_t i = 0; i < n; ++i) s += raw[i];
         bench::check(dart_allreduce(&s, &raw_sum, 1, DART_TYPE_LONG, DART_OP_SUM, DART_TEAM_ALL), "dart_allreduce");
       })});

  const long total = static_cast<long>(a.size());
  const bool ok = layer_sum == raw_sum && layer_sum == total * (total - 1) / 2;
  if (me == 0) {
    const char* path = std::getenv("DART_SHARED_MEMORY");
    std::printf(
        "# bench_cxx: %zu units, %zu longs per unit, DART_SHARED_MEMORY=%s; ns per element (per call for the sum)\n",
        units, o.per_unit, path ? path : "(unset)");
    std::printf("%-50s %12s %12s %8s\n", "operation", "layer ns", "raw DART ns", "ratio");
    for (const Row& r : rows)
      std::printf("%-50s %12.3f %12.3f %8.3f\n", r.what, r.ours * 1e9, r.raw * 1e9, r.ours / r.raw);
    std::printf("data check: %s\n", ok ? "passed" : "FAILED");
  }
  return ok ? 0 : 1;
}
