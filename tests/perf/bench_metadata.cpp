// Memory a team, a segment and a registration cost on every unit, against
// the raw MPI object a runtime without DART's sharing would make for each:
//   (a) dart_team_memalloc_aligned on DART_TEAM_ALL (--bytes and
//       --large-bytes per unit) against MPI_Win_allocate of the same size
//       plus MPI_Win_lock_all, on a duplicate of MPI_COMM_WORLD,
//   (b) dart_team_memregister with the same size on every unit against
//       MPI_Win_create over the same buffer plus MPI_Win_lock_all,
//   (c) the same with a size that differs per unit,
//   (d) dart_team_create from the group of all units against MPI_Comm_dup
//       of MPI_COMM_WORLD.
// For each, --objects K objects are made and kept alive at once, and three
// figures per object and per unit are taken from the growth over the K:
//   - the runtime's own bookkeeping (dart_stats_metadata: team, segment
//     and fixed-table bytes),
//   - the process heap (glibc mallinfo2, uordblks + hblkhd), which adds
//     what MPI keeps for the runtime's communicators and windows,
//   - the process heap for the raw MPI objects, measured in the same run.
// The table shows the unit that pays most (maximum over units) of the
// median over --rounds rounds. Memory of shared-memory windows (mapped
// files, not malloc) counts in neither heap.
//
// Every DART round runs in a runtime of its own (dart_init ... dart_exit):
// heap chunks outlive the segments carved from them, so a round measured
// after another would find chunks already made. The chunk a round creates
// is part of what its segments cost and is spread over the K.
// Registrations, teams and every raw MPI object are made and freed once
// before the K, so that set-up done once per process (the progress thread,
// MPI's lazily started components) is not charged to them. The median
// keeps two effects out that one round cannot: MPI's pools of handles grow
// to K objects in the first round and never shrink (so whichever side
// comes first would pay for both), and the runtime's stdin thread may free
// a buffer in the middle of a round.
//
// Usage: mpirun -np <n> bench_metadata [--objects K] [--rounds N] [--bytes N] [--large-bytes N]
#include "bench_options.hpp"

#include <dash/dart/ext/dart_stats.h>
#include <dash/dart/if/dart.h>

#include <malloc.h>
#include <mpi.h>

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
  int objects = 64;
  int rounds = 3;
  std::size_t bytes = 4096;
  std::size_t large_bytes = std::size_t(4) << 20;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--objects")) o.objects = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--rounds")) o.rounds = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--bytes")) o.bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--large-bytes")) o.large_bytes = std::strtoull(argv[i + 1], nullptr, 10);
  }
  // The per-unit sizes of (c) step down by bytes/64 per unit.
  o.bytes = std::max<std::size_t>(o.bytes, 64);
  o.large_bytes = std::max<std::size_t>(o.large_bytes, 1);
  return o;
}

double heap_bytes() {
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<double>(mi.uordblks) + static_cast<double>(mi.hblkhd);
}

dart_metadata_t metadata() {
  dart_metadata_t md{};
  check(dart_stats_metadata(&md), "dart_stats_metadata");
  return md;
}

double bookkeeping(const dart_metadata_t& m) {
  return static_cast<double>(m.team_bytes + m.segment_bytes + m.runtime_bytes);
}

// One kind of object: make(i) creates object i, drop(i) frees it; both
// collective over all units. finish, if set, releases what the kind needed
// while its runtime is still up.
struct Kind {
  std::function<void(int)> make;
  std::function<void(int)> drop;
  std::function<void()> finish;
};

// One round of a DART row, on this unit, per object.
struct DartRound {
  double book = 0;
  double heap = 0;
  bool released = false;   // segments, teams and segment bookkeeping back to the start after the frees
  dart_metadata_t idle{};  // what the runtime kept before the K objects
};

DartRound dart_round(int* argc, char*** argv, int k, bool warm_up, const std::function<Kind()>& setup) {
  check(dart_init(argc, argv), "dart_init");
  DartRound c;
  {
    const Kind kind = setup();
    if (warm_up) {
      kind.make(0);
      kind.drop(0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    c.idle = metadata();
    const double heap0 = heap_bytes();
    for (int i = 0; i < k; ++i) kind.make(i);
    const double heap1 = heap_bytes();
    const dart_metadata_t full = metadata();
    for (int i = k - 1; i >= 0; --i) kind.drop(i);
    const dart_metadata_t done = metadata();
    c.book = (bookkeeping(full) - bookkeeping(c.idle)) / k;
    c.heap = (heap1 - heap0) / k;
    c.released =
        done.segments == c.idle.segments && done.teams == c.idle.teams && done.segment_bytes == c.idle.segment_bytes;
    if (kind.finish) kind.finish();
  }
  check(dart_exit(), "dart_exit");
  return c;
}

// Heap growth per object while `k` raw objects live, on this unit.
double raw_round(int k, const Kind& kind) {
  kind.make(0);
  kind.drop(0);
  MPI_Barrier(MPI_COMM_WORLD);
  const double before = heap_bytes();
  for (int i = 0; i < k; ++i) kind.make(i);
  const double after = heap_bytes();
  for (int i = k - 1; i >= 0; --i) kind.drop(i);
  return (after - before) / k;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Row {
  std::string what;
  double book, heap, raw;
};

}  // namespace

int main(int argc, char** argv) {
  // MPI of our own, so that every DART round gets a runtime of its own.
  bench::Session session(argc, argv, "bench_metadata", bench::Session::Mpi::program_multiple);
  const int rank = session.rank, size = session.size;
  const Options o = parse(argc, argv);
  const int k = o.objects;
  const auto uk = static_cast<std::size_t>(k);

  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 0, max_node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  MPI_Allreduce(&node_size, &max_node_size, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const char* shm_env = std::getenv("DART_SHARED_MEMORY");
  const bool shared = !shm_env || std::strcmp(shm_env, "0") != 0;

  // Everything the measured calls work on exists before the first
  // measurement, so none of it counts as growth.
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  std::vector<dart_gptr_t> gptrs(uk, DART_GPTR_NULL);
  std::vector<dart_team_t> teams(uk, DART_TEAM_NULL);
  std::vector<MPI_Win> wins(uk, MPI_WIN_NULL);
  std::vector<MPI_Comm> comms(uk, MPI_COMM_NULL);
  std::vector<void*> buffers(uk, nullptr);
  const std::size_t buffer_bytes = (o.bytes + 4095) / 4096 * 4096;
  // Page-aligned, so that (b) and (c) differ in the sizes alone: DART also
  // keeps each unit's offset of its buffer from a 64-byte boundary, as one
  // value only while that is the same on every unit.
  for (auto& b : buffers) b = std::aligned_alloc(4096, buffer_bytes);
  const std::size_t varied_bytes = o.bytes - static_cast<std::size_t>(rank % 64) * (o.bytes / 64);

  auto dart_segments = [&](std::size_t bytes) {
    return [&, bytes] {
      return Kind{[&, bytes](int i) {
                    check(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &gptrs[std::size_t(i)]),
                          "dart_team_memalloc_aligned");
                  },
                  [&](int i) { check(dart_team_memfree(gptrs[std::size_t(i)]), "dart_team_memfree"); }, nullptr};
    };
  };
  auto dart_registrations = [&](std::size_t bytes) {
    return [&, bytes] {
      return Kind{[&, bytes](int i) {
                    const std::size_t u = std::size_t(i);
                    check(dart_team_memregister(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, buffers[u], &gptrs[u]),
                          "dart_team_memregister");
                  },
                  [&](int i) { check(dart_team_memderegister(gptrs[std::size_t(i)]), "dart_team_memderegister"); },
                  nullptr};
    };
  };
  dart_group_t all = DART_GROUP_NULL;
  auto dart_teams = [&] {
    check(dart_team_get_group(DART_TEAM_ALL, &all), "dart_team_get_group");
    return Kind{[&](int i) { check(dart_team_create(DART_TEAM_ALL, all, &teams[std::size_t(i)]), "dart_team_create"); },
                [&](int i) { check(dart_team_destroy(&teams[std::size_t(i)]), "dart_team_destroy"); },
                [&] { check(dart_group_destroy(&all), "dart_group_destroy"); }};
  };
  auto free_win = [&](int i) {
    MPI_Win_unlock_all(wins[std::size_t(i)]);
    MPI_Win_free(&wins[std::size_t(i)]);
  };
  auto raw_allocations = [&](std::size_t bytes) {
    return Kind{[&, bytes](int i) {
                  void* base = nullptr;
                  MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, world, &base, &wins[std::size_t(i)]);
                  MPI_Win_lock_all(MPI_MODE_NOCHECK, wins[std::size_t(i)]);
                },
                free_win, nullptr};
  };
  auto raw_windows = [&](std::size_t bytes) {
    return Kind{[&, bytes](int i) {
                  MPI_Win_create(buffers[std::size_t(i)], static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, world,
                                 &wins[std::size_t(i)]);
                  MPI_Win_lock_all(MPI_MODE_NOCHECK, wins[std::size_t(i)]);
                },
                free_win, nullptr};
  };
  const Kind raw_comms{[&](int i) { MPI_Comm_dup(MPI_COMM_WORLD, &comms[std::size_t(i)]); },
                       [&](int i) { MPI_Comm_free(&comms[std::size_t(i)]); }, nullptr};

  std::vector<Row> rows;
  bool released = true;
  dart_metadata_t idle{};
  // DART and raw MPI alternate round by round, so both see MPI's pools in
  // the same state.
  auto measure = [&](const std::string& what, bool warm_up, const std::function<Kind()>& dart_setup, const Kind& raw) {
    std::vector<double> book, heap, raw_heap;
    for (int r = 0; r < o.rounds; ++r) {
      const DartRound d = dart_round(&argc, &argv, k, warm_up, dart_setup);
      if (rows.empty() && r == 0) idle = d.idle;
      released = released && d.released;
      book.push_back(d.book);
      heap.push_back(d.heap);
      raw_heap.push_back(raw_round(k, raw));
    }
    rows.push_back(Row{what, median(book), median(heap), median(raw_heap)});
  };

  measure("(a) segment, " + bench::human(o.bytes) + " per unit", false, dart_segments(o.bytes),
          raw_allocations(o.bytes));
  measure("(a) segment, " + bench::human(o.large_bytes) + " per unit", false, dart_segments(o.large_bytes),
          raw_allocations(o.large_bytes));
  measure("(b) registration, " + bench::human(o.bytes) + " on every unit", true, dart_registrations(o.bytes),
          raw_windows(o.bytes));
  measure("(c) registration, size differs per unit", true, dart_registrations(varied_bytes), raw_windows(varied_bytes));
  measure("(d) team of all units", true, dart_teams, raw_comms);

  // The unit that pays most, figure by figure.
  std::vector<double> mine;
  for (const Row& r : rows) mine.insert(mine.end(), {r.book, r.heap, r.raw});
  const double idle_mine[4] = {static_cast<double>(idle.team_bytes), static_cast<double>(idle.segment_bytes),
                               static_cast<double>(idle.runtime_bytes), static_cast<double>(idle.segments)};
  std::vector<double> worst(mine.size());
  double idle_worst[4] = {0, 0, 0, 0};
  MPI_Allreduce(mine.data(), worst.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(idle_mine, idle_worst, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int ok = released ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  if (rank == 0) {
    const std::string libname = bench::mpi_library();
    std::printf("# bench_metadata: %d units, %d per node, %s\n", size, max_node_size, libname.c_str());
    std::printf("# DART_SHARED_MEMORY=%s: %s\n", shm_env ? shm_env : "(unset)",
                shared ? "units of a node share one MPI_Win_allocate_shared window per heap chunk"
                       : "DART treats every unit as a node of its own (MPI_Win_allocate per heap chunk)");
#ifdef OPEN_MPI
    const char* osc = std::getenv("OMPI_MCA_osc");
    std::printf("# OMPI_MCA_osc=%s (libdart's default applies to the baselines too)\n", osc ? osc : "(unset)");
#endif
    std::printf(
        "# bytes per object on one unit (the maximum over units of the median of %d rounds), %d objects "
        "alive at once; book = dart_stats_metadata, heap = mallinfo2 uordblks+hblkhd\n",
        o.rounds, k);
    std::printf(
        "# raw MPI: (a) MPI_Win_allocate+lock_all, (b)(c) MPI_Win_create+lock_all over the same buffers, "
        "(d) MPI_Comm_dup of MPI_COMM_WORLD\n");
    std::printf("# idle runtime: %.0f segment(s), bookkeeping %.0f B (teams %.0f, segments %.0f, fixed tables %.0f)\n",
                idle_worst[3], idle_worst[0] + idle_worst[1] + idle_worst[2], idle_worst[0], idle_worst[1],
                idle_worst[2]);
    std::printf("%-40s %12s %12s %14s %9s\n", "what", "dart book B", "dart heap B", "raw MPI heap B", "dart/raw");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double book = worst[3 * i], heap = worst[3 * i + 1], raw = worst[3 * i + 2];
      char ratio[32] = "-";
      if (raw > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", heap / raw);
      std::printf("%-40s %12.0f %12.0f %14.0f %9s\n", rows[i].what.c_str(), book, heap, raw, ratio);
    }
    std::printf("bookkeeping check: %s\n", all_ok ? "passed (every segment and team released)" : "FAILED");
  }
  for (auto& b : buffers) std::free(b);
  MPI_Comm_free(&world);
  return all_ok ? 0 : 1;
}
