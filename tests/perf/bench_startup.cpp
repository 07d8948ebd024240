// What starting the runtime costs, in time and in memory per unit, against
// what any runtime over MPI must do at start, measured in the same run:
//   (a) dart_init and dart_exit, timed separately, against a raw start:
//       MPI_Comm_dup of MPI_COMM_WORLD + MPI_Comm_split_type(SHARED) +
//       MPI_Win_allocate_shared of DART's local pool size (16 MiB per unit)
//       on the node, and the frees. The program calls MPI_Init itself
//       (at MPI_THREAD_MULTIPLE, the level dart_init would ask for), so
//       that DART can be started and stopped once per round. One round of
//       each is done first and printed apart ("cold"): it pays for what MPI
//       sets up lazily on first use (shared-memory and one-sided
//       components) and whichever side came first would pay it.
//   (b) a team allocation, dart_team_memalloc_aligned + dart_team_memfree
//       (--bytes per unit), against MPI_Win_allocate + MPI_Win_free of the
//       same size on a duplicate of MPI_COMM_WORLD;
//   (c) a team creation, dart_team_create from the group of all units +
//       dart_team_destroy, against MPI_Comm_split + MPI_Comm_free;
//   (d) dart_team_locality_init + _finalize on a new team of all units
//       (the hardware is read and every member's data gathered), against
//       MPI_Allgather of 256 bytes per unit.
// Times: maximum over units per round, median of --rounds rounds; (b) and
// (c) are means per pair over --iterations in each round.
//
// Memory per unit (the unit that keeps most, median of rounds):
//   - dart_stats_metadata right after dart_init (the runtime's bookkeeping:
//     fixed tables, DART_TEAM_ALL, segment 0);
//   - the process heap (glibc mallinfo2 uordblks+hblkhd) grown across
//     dart_init, MPI's share included, and across the raw start;
//   - what the heap kept after dart_exit (should be about zero);
//   - heap growth across dart_team_locality_init of a team of all units.
// Shared-memory windows are mapped files, not heap, and count in neither.
//
//   (e) the registry (registry/, DART::registry): a full replica on every
//       rank, so what it keeps per unit grows with the total number of
//       objects. --registry-objects N objects (64-byte payload by default,
//       tokens "obj.<i>" and "rank.<r>"), put evenly by all ranks and
//       synced every 10^4 objects; heap growth per object, over all N and
//       after the first batch (the receive buffer and first arena chunks
//       excluded). --registry-objects 0 skips it.
//
// Usage: mpirun -np <n> bench_startup [--rounds N] [--iterations N] [--bytes N]
//                                     [--registry-objects N] [--object-bytes N]
#include <dash/dart/ext/dart_stats.h>
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include <malloc.h>
#include <mpi.h>
#include <registry/registry.hpp>

#include "bench_options.hpp"
#include "bench_session.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using bench::check;

struct Options {
  int rounds = 5;
  int iterations = 20;
  std::size_t bytes = 4096;
  long registry_objects = 100000;
  long object_bytes = 64;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rounds")) o.rounds = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--iterations")) o.iterations = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--bytes")) o.bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--registry-objects")) o.registry_objects = std::max(0L, std::atol(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--object-bytes")) o.object_bytes = std::max(0L, std::atol(argv[i + 1]));
  }
  return o;
}

constexpr std::size_t kPoolBytes = std::size_t(16) << 20;  // DART_LOCAL_POOL_SIZE's default

double heap_bytes() {
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<double>(mi.uordblks) + static_cast<double>(mi.hblkhd);
}

double max_over_units(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Seconds of `op` on this unit, all units starting together.
double timed(const std::function<void()>& op) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  op();
  return MPI_Wtime() - t0;
}

// Mean seconds per call over `n` calls; max over units.
double per_call(int n, const std::function<void()>& op) {
  return max_over_units(timed([&] {
                          for (int i = 0; i < n; ++i) op();
                        }) /
                        n);
}

struct TimeRow {
  std::string ours, base;
  double t_ours, t_base;
};

struct MemRow {
  std::string what;
  double bytes;
  std::string note;
};

}  // namespace

int main(int argc, char** argv) {
  bench::Session session(argc, argv, "bench_startup", bench::Session::Mpi::program_multiple);
  const int rank = session.rank, size = session.size;
  const Options o = parse(argc, argv);

  MPI_Comm node0 = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node0);
  int node_size = 0, max_node_size = 0;
  MPI_Comm_size(node0, &node_size);
  MPI_Comm_free(&node0);
  MPI_Allreduce(&node_size, &max_node_size, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  // (a) One round of DART, one of the raw start.
  struct Start {
    double up = 0, down = 0, heap_up = 0, heap_kept = 0;
    dart_metadata_t md{};
  };
  auto dart_round = [&] {
    Start s;
    MPI_Barrier(MPI_COMM_WORLD);
    const double h0 = heap_bytes();
    s.up = max_over_units(timed([&] { check(dart_init(&argc, &argv), "dart_init"); }));
    s.heap_up = heap_bytes() - h0;
    check(dart_stats_metadata(&s.md), "dart_stats_metadata");
    s.down = max_over_units(timed([&] { check(dart_exit(), "dart_exit"); }));
    s.heap_kept = heap_bytes() - h0;
    return s;
  };
  auto raw_round = [&] {
    Start s;
    MPI_Comm world = MPI_COMM_NULL, node = MPI_COMM_NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    const double h0 = heap_bytes();
    s.up = max_over_units(timed([&] {
      MPI_Comm_dup(MPI_COMM_WORLD, &world);
      MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
      void* base = nullptr;
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(kPoolBytes), 1, MPI_INFO_NULL, node, &base, &win);
    }));
    s.heap_up = heap_bytes() - h0;
    s.down = max_over_units(timed([&] {
      MPI_Win_free(&win);
      MPI_Comm_free(&node);
      MPI_Comm_free(&world);
    }));
    s.heap_kept = heap_bytes() - h0;
    return s;
  };
  const Start cold_dart = dart_round();
  const Start cold_raw = raw_round();
  std::vector<double> d_up, d_down, d_heap, d_kept, r_up, r_down, r_heap;
  dart_metadata_t md{};
  for (int r = 0; r < o.rounds; ++r) {
    const Start d = dart_round();
    const Start b = raw_round();
    md = d.md;
    d_up.push_back(d.up);
    d_down.push_back(d.down);
    d_heap.push_back(d.heap_up);
    d_kept.push_back(d.heap_kept);
    r_up.push_back(b.up);
    r_down.push_back(b.down);
    r_heap.push_back(b.heap_up);
  }

  // (b)-(d) in one runtime.
  session.start();
  std::vector<double> alloc_d, alloc_r, team_d, team_r, loc_d, loc_r, loc_heap;
  {
    MPI_Comm world = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    dart_group_t all = DART_GROUP_NULL;
    check(dart_team_get_group(DART_TEAM_ALL, &all), "dart_team_get_group");
    auto dart_alloc = [&] {
      dart_gptr_t g;
      check(dart_team_memalloc_aligned(DART_TEAM_ALL, o.bytes, DART_TYPE_BYTE, &g), "dart_team_memalloc_aligned");
      check(dart_team_memfree(g), "dart_team_memfree");
    };
    auto raw_alloc = [&] {
      void* base = nullptr;
      MPI_Win w = MPI_WIN_NULL;
      MPI_Win_allocate(static_cast<MPI_Aint>(o.bytes), 1, MPI_INFO_NULL, world, &base, &w);
      MPI_Win_free(&w);
    };
    auto dart_team = [&] {
      dart_team_t t = DART_TEAM_NULL;
      check(dart_team_create(DART_TEAM_ALL, all, &t), "dart_team_create");
      check(dart_team_destroy(&t), "dart_team_destroy");
    };
    auto raw_team = [&] {
      MPI_Comm c = MPI_COMM_NULL;
      MPI_Comm_split(world, 0, rank, &c);
      MPI_Comm_free(&c);
    };
    // Warm-up: one of each, so that set-up done once per process is not
    // charged to the first round of either side.
    dart_alloc();
    raw_alloc();
    dart_team();
    raw_team();
    std::vector<char> mine(256, 'x'), gathered(256 * static_cast<std::size_t>(size));
    for (int r = 0; r < o.rounds; ++r) {
      alloc_d.push_back(per_call(o.iterations, dart_alloc));
      alloc_r.push_back(per_call(o.iterations, raw_alloc));
      team_d.push_back(per_call(o.iterations, dart_team));
      team_r.push_back(per_call(o.iterations, raw_team));
      dart_team_t t = DART_TEAM_NULL;
      check(dart_team_create(DART_TEAM_ALL, all, &t), "dart_team_create");
      MPI_Barrier(MPI_COMM_WORLD);
      const double h0 = heap_bytes();
      loc_d.push_back(max_over_units(timed([&] { check(dart_team_locality_init(t), "dart_team_locality_init"); })));
      loc_heap.push_back(heap_bytes() - h0);
      check(dart_team_locality_finalize(t), "dart_team_locality_finalize");
      check(dart_team_destroy(&t), "dart_team_destroy");
      loc_r.push_back(max_over_units(timed([&] {
        MPI_Allgather(mine.data(), 256, MPI_CHAR, gathered.data(), 256, MPI_CHAR, world);
      })));
    }
    check(dart_group_destroy(&all), "dart_group_destroy");
    MPI_Comm_free(&world);
  }
  session.stop();

  // (e) The registry replica.
  double reg_total = 0, reg_marginal = 0;
  const long batch = 10000;
  if (o.registry_objects > 0) {
    const double h0 = heap_bytes();
    double h1 = h0;
    {
      auto created = registry::Registry::create(MPI_COMM_WORLD);
      if (!created) {
        std::fprintf(stderr, "bench_startup: registry create failed: %s\n", registry::to_string(created.status()));
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      registry::Registry& reg = *created;
      const std::string payload(static_cast<std::size_t>(o.object_bytes), 'p');
      const std::string mine = "rank." + std::to_string(rank);
      const long n = o.registry_objects;
      const double base = heap_bytes();
      for (long first = 0; first < n; first += batch) {
        const long last = std::min(n, first + batch);
        for (long i = first + rank; i < last; i += size)
          reg.put("universe", {"obj." + std::to_string(i), mine}, std::string_view(payload));
        if (reg.sync() != registry::Status::ok) {
          std::fprintf(stderr, "bench_startup: registry sync failed\n");
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (first == 0) h1 = heap_bytes();
      }
      const double h2 = heap_bytes();
      reg_total = max_over_units((h2 - base) / static_cast<double>(n));
      reg_marginal = n > batch ? max_over_units((h2 - h1) / static_cast<double>(n - batch)) : 0;
    }
  }

  // The unit that keeps most of the bookkeeping.
  const double md_mine[5] = {static_cast<double>(md.runtime_bytes), static_cast<double>(md.team_bytes),
                             static_cast<double>(md.segment_bytes), static_cast<double>(md.teams),
                             static_cast<double>(md.segments)};
  double md_max[5] = {0, 0, 0, 0, 0};
  MPI_Allreduce(md_mine, md_max, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double heap_dart = max_over_units(median(d_heap)), heap_raw = max_over_units(median(r_heap));
  const double heap_kept = max_over_units(median(d_kept)), heap_loc = max_over_units(median(loc_heap));
  const double cold_heap = max_over_units(cold_dart.heap_up), cold_raw_heap = max_over_units(cold_raw.heap_up);

  if (rank == 0) {
    std::printf("# bench_startup: %d units, %d per node, %s\n", size, max_node_size, bench::mpi_library().c_str());
#ifdef OPEN_MPI
    const char* osc = std::getenv("OMPI_MCA_osc");
    std::printf("# OMPI_MCA_osc=%s\n", osc ? osc : "(unset)");
#endif
    std::printf("# times: max over units, median of %d rounds ((b)-(d): mean of %d pairs per round); "
                "raw start = MPI_Comm_dup + MPI_Comm_split_type(SHARED) + MPI_Win_allocate_shared(%s)\n",
                o.rounds, o.iterations, bench::human(kPoolBytes).c_str());
    const std::vector<TimeRow> rows = {
        {"dart_init (cold, first in process)", "raw start (cold, after it)", cold_dart.up, cold_raw.up},
        {"dart_init", "raw start", median(d_up), median(r_up)},
        {"dart_exit", "raw start's frees", median(d_down), median(r_down)},
        {"dart_team_memalloc_aligned+free " + bench::human(o.bytes), "MPI_Win_allocate+free", median(alloc_d),
         median(alloc_r)},
        {"dart_team_create+destroy (all units)", "MPI_Comm_split+free", median(team_d), median(team_r)},
        {"dart_team_locality_init (all units)", "MPI_Allgather 256 B", median(loc_d), median(loc_r)},
    };
    std::printf("%-40s %12s   %-34s %12s %9s\n", "ours", "us", "baseline", "us", "ratio");
    for (const TimeRow& r : rows)
      std::printf("%-40s %12.1f   %-34s %12.1f %8.2fx\n", r.ours.c_str(), r.t_ours * 1e6, r.base.c_str(),
                  r.t_base * 1e6, r.t_base > 0 ? r.t_ours / r.t_base : 0.0);

    std::printf("# memory per unit (the unit that keeps most; heap = mallinfo2 uordblks+hblkhd)\n");
    std::vector<MemRow> mem = {
        {"bookkeeping after dart_init", md_max[0] + md_max[1] + md_max[2],
         "fixed tables " + std::to_string(static_cast<long>(md_max[0])) + ", teams " +
             std::to_string(static_cast<long>(md_max[1])) + " (" + std::to_string(static_cast<long>(md_max[3])) +
             "), segments " + std::to_string(static_cast<long>(md_max[2])) + " (" +
             std::to_string(static_cast<long>(md_max[4])) + ")"},
        {"heap growth across dart_init", heap_dart, "MPI's share and DART_TEAM_ALL's locality included"},
        {"heap growth across raw start", heap_raw, "baseline"},
        {"heap growth across cold dart_init", cold_heap, "MPI's lazy set-up included"},
        {"heap growth across cold raw start", cold_raw_heap, ""},
        {"heap kept after dart_exit", heap_kept, "should be ~0"},
        {"heap growth across dart_team_locality_init", heap_loc, "team of all units"},
    };
    if (o.registry_objects > 0) {
      mem.push_back({"registry replica, per object", reg_total,
                     std::to_string(o.registry_objects) + " objects of " + std::to_string(o.object_bytes) +
                         " B, 2 tokens"});
      mem.push_back({"registry replica, per object after 1st 10^4", reg_marginal, "receive buffer excluded"});
    }
    std::printf("%-46s %14s   %s\n", "what", "bytes", "");
    for (const MemRow& m : mem) std::printf("%-46s %14.0f   %s\n", m.what.c_str(), m.bytes, m.note.c_str());
    std::printf("bench_startup: done\n");
  }
  return 0;
}
