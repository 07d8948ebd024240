// Benchmark of the registry, two parts in one run:
//
// 1. get latency (rank 0, local read): a token matching 10 objects, in
//    segments of 10^3, 10^5 and 10^6 objects. The registry is built on
//    MPI_COMM_SELF so that only one rank holds the big replicas; a get never
//    communicates, so the communicator does not change what is timed.
//    Target: flat across sizes, under 1 us.
// 2. sync of N puts per rank (default 10^3, 10^4, 10^5; 64-byte objects) on
//    MPI_COMM_WORLD, against the baseline of a raw MPI_Allgatherv of the same
//    bytes (the encoded operations, sized by the formula of wire.hpp). Both
//    are timed as the maximum over ranks, best of --rounds. Target <= 1.5x;
//    also printed: the registry's exchange alone, and the apply cost per
//    operation per replica, which a rank pays at its first read after the
//    sync (see bench_sync): wall time, and the CPU time of the thread that
//    applies, which differ where ranks outnumber the cores and take turns.
//
// Options: --sizes a,b,c  --gets N  --puts a,b,c  --object-bytes N  --rounds N
#include <registry/registry.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::vector<long> sizes = {1000, 100000, 1000000};
  long gets = 200000;
  std::vector<long> puts = {1000, 10000, 100000};
  long object_bytes = 64;
  int rounds = 10;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--sizes") {
      a.sizes.clear();
      std::stringstream ss(v);
      for (std::string item; std::getline(ss, item, ',');) a.sizes.push_back(std::stol(item));
    } else if (k == "--gets") {
      a.gets = std::stol(v);
    } else if (k == "--puts") {
      a.puts.clear();
      std::stringstream ss(v);
      for (std::string item; std::getline(ss, item, ',');) a.puts.push_back(std::stol(item));
    } else if (k == "--object-bytes") {
      a.object_bytes = std::stol(v);
    } else if (k == "--rounds") {
      a.rounds = std::atoi(v);
    }
  }
  return a;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Waits for a request without busy-polling: with more ranks than free
// cores, a rank spinning in MPI after its part would take the CPU from a
// rank still inside the timed call, and the timing would measure that.
void wait_idle(MPI_Request& req) {
  for (int done = 0; MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0;)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double max_over_ranks(double t) {
  double m = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Iallreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req);
  wait_idle(req);
  return m;
}

// Part 1, on rank 0 only.
void bench_get(const Args& a) {
  std::printf("get latency, token matching 10 objects (rank 0, local read)\n");
  // Wall time is what the target is about; on a shared machine it also
  // counts the time other processes held the core, so the CPU time this
  // thread spent is printed as well.
  std::printf("%12s %14s %14s %10s\n", "objects", "ns per get", "cpu ns per get", "results");
  const std::string payload(static_cast<std::size_t>(a.object_bytes), 'p');
  for (long n : a.sizes) {
    auto created = registry::Registry::create(MPI_COMM_SELF);
    if (!created) {
      std::printf("create failed: %s\n", registry::to_string(created.status()));
      return;
    }
    registry::Registry& reg = *created;
    // Object i carries g<i/10> (shared by 10 objects) and m<i%10>: a small
    // dictionary, and every token set is unique.
    for (long i = 0; i < n; ++i) {
      reg.put("universe", {"g" + std::to_string(i / 10), "m" + std::to_string(i % 10)}, std::string_view(payload));
      if ((i + 1) % 100000 == 0) (void)reg.sync();
    }
    (void)reg.sync();
    const long groups = std::max(1L, n / 10);
    std::vector<std::vector<std::string>> queries;
    for (long k = 0; k < 1024; ++k) queries.push_back({"g" + std::to_string((k * 7919) % groups)});
    std::size_t results = 0;
    const double c0 = thread_cpu_seconds();
    const auto t0 = Clock::now();
    for (long i = 0; i < a.gets; ++i) {
      auto r = reg.get("universe", queries[static_cast<std::size_t>(i % 1024)], registry::kAnd);
      results += r->size();
    }
    const double ns = seconds_since(t0) * 1e9 / static_cast<double>(a.gets);
    const double cpu_ns = (thread_cpu_seconds() - c0) * 1e9 / static_cast<double>(a.gets);
    std::printf("%12ld %14.0f %14.0f %10.1f\n", n, ns, cpu_ns,
                static_cast<double>(results) / static_cast<double>(a.gets));
  }
}

// A new receive buffer allocated as the registry allocates its buffers (see
// byte_alloc in registry/src/containers.hpp): not zeroed, and from 64 KiB
// on whole 2 MiB pages offered to transparent huge pages.
char* fresh_buffer(std::size_t n) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (n < (std::size_t{64} << 10)) return static_cast<char*>(std::malloc(n));
  const std::size_t rounded = (n + kHuge - 1) & ~(kHuge - 1);
  void* p = std::aligned_alloc(kHuge, rounded);
#ifdef MADV_HUGEPAGE
  if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return static_cast<char*>(p);
}

// Times one collective call on every rank: max over ranks, after a barrier.
// `cpu`, if given, receives the calling thread's CPU time in it, max over
// ranks.
template <class F>
double timed(F&& f, double* cpu = nullptr) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double c0 = thread_cpu_seconds();
  const auto t0 = Clock::now();
  f();
  const double wall = seconds_since(t0);
  const double used = thread_cpu_seconds() - c0;
  if (cpu != nullptr) *cpu = max_over_ranks(used);
  return max_over_ranks(wall);
}

// Part 2, on every rank.
//
// A sync is the exchange: what the registry sends (one MPI_Allgather of
// the sizes, one MPI_Allgatherv of the encoded operations into a receive
// buffer), reproduced here on its own too. Applying the size x N
// operations on a replica (dictionary probes per token, token nodes,
// posting lists, the identity index, a copy of the object: a few dependent
// cache misses each) waits for the rank's first read after the sync, here
// a get of one token; that read is timed on its own ("first read") and
// gives the apply cost per object. Sync plus first read is what a rank
// that syncs and then reads pays. See docs/registry.md, "Registry".
//
// "creating": a new registry per round, whose first sync creates the
// N x size objects (cold buffers, new memory), as an application's first
// bulk publication. "updating": one long-lived registry whose syncs
// overwrite the same N x size objects with new content (same bytes on the
// wire), as ranks republishing their state.
// Two baselines, both raw MPI_Allgatherv of the same bytes on
// MPI_COMM_WORLD:
// - "hot": the same buffers back to back, so both stay in the caches; the
//   cheapest an exchange of these bytes can be.
// - "in the loop": timed inside the registry's own loop, right after the
//   first read that applied the previous sync, so it meets the caches as
//   the registry's next sync does (a sync follows work that evicted its
//   buffers: here the apply; in a program, its computation). For creating
//   syncs its receive buffer is fresh, as the registry's first one is.
// A raw MPI_Allgatherv of 1 MB per rank on 2 ranks here took 0.13 ms back
// to back and 0.29 ms after 64 MiB of other memory traffic.
struct SyncRow {
  long puts;
  double raw, raw_fresh_loop, raw_loop, sync, warm, apply_ns, warm_apply_ns, apply, warm_apply;
  double apply_cpu_ns, warm_apply_cpu_ns;  // the applying thread's CPU time, slowest rank
};

SyncRow bench_sync(const Args& a, long puts, int rank, int size) {
  const std::string payload(static_cast<std::size_t>(a.object_bytes), 'q');
  std::vector<std::vector<std::string>> tokens;
  std::uint64_t encoded = 0;
  for (long i = 0; i < puts; ++i) {
    tokens.push_back({"r" + std::to_string(rank), "i" + std::to_string(i)});
    // u8 kind, u16 mode, str segment, u32 count + strs, u64 size + bytes
    encoded += 1 + 2 + (4 + 8) + 4 + 8 + static_cast<std::uint64_t>(payload.size());
    for (const auto& t : tokens.back()) encoded += 4 + t.size();
  }
  auto check = [&](registry::Registry& reg, registry::Status s, const std::vector<std::string>& probe) {
    if (s != registry::Status::ok || reg.get("universe", probe)->size() != static_cast<std::size_t>(size)) {
      std::fprintf(stderr, "[rank %d] sync check failed\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  };

  // The same bytes as the registry exchanges, for the in-loop baselines.
  std::vector<char> send(encoded, 'x');
  std::vector<int> counts(static_cast<std::size_t>(size), static_cast<int>(encoded));
  std::vector<int> displs(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) displs[static_cast<std::size_t>(r)] = r * static_cast<int>(encoded);
  const std::size_t all_bytes = encoded * static_cast<std::uint64_t>(size);
  auto raw_into = [&](char* into) {
    MPI_Allgatherv(send.data(), static_cast<int>(encoded), MPI_BYTE, into, counts.data(), displs.data(), MPI_BYTE,
                   MPI_COMM_WORLD);
  };

  double best_sync = 1e30;
  double best_apply = 1e30;
  double best_apply_cpu = 1e30;
  double best_record = 1e30;
  double best_raw_fresh_loop = 1e30;
  for (int round = 0; round < a.rounds; ++round) {
    auto created = registry::Registry::create(MPI_COMM_WORLD);
    registry::Registry& reg = *created;
    auto t0 = Clock::now();
    for (long i = 0; i < puts; ++i)
      reg.put("universe", tokens[static_cast<std::size_t>(i)], std::string_view(payload));
    best_record = std::min(best_record, max_over_ranks(seconds_since(t0)));
    registry::Status s = registry::Status::ok;
    best_sync = std::min(best_sync, timed([&] { s = reg.sync(); }));
    double cpu = 0;
    best_apply = std::min(best_apply, timed([&] { check(reg, s, {"i0"}); }, &cpu));
    best_apply_cpu = std::min(best_apply_cpu, cpu);
    best_raw_fresh_loop = std::min(best_raw_fresh_loop, timed([&] {
                                     char* into = fresh_buffer(all_bytes);
                                     raw_into(into);
                                     std::free(into);
                                   }));
  }

  double best_warm = 1e30;
  double best_warm_apply = 1e30;
  double best_warm_apply_cpu = 1e30;
  double best_raw_loop = 1e30;
  {
    std::vector<char> loop_recv(all_bytes);
    auto created = registry::Registry::create(MPI_COMM_WORLD);
    registry::Registry& reg = *created;
    for (int round = 0; round < a.rounds + 1; ++round) {
      // Same token sets every round: round 0 creates the objects, the
      // others overwrite them with new content (the same bytes on the wire).
      const std::string content(static_cast<std::size_t>(a.object_bytes), static_cast<char>('a' + round % 26));
      for (long i = 0; i < puts; ++i)
        reg.put("universe", tokens[static_cast<std::size_t>(i)], std::string_view(content), registry::kOverwrite);
      registry::Status s = registry::Status::ok;
      const double t = timed([&] { s = reg.sync(); });
      double cpu = 0;
      const double first_read = timed([&] { check(reg, s, {"i0"}); }, &cpu);
      const double raw_t = timed([&] { raw_into(loop_recv.data()); });
      if (round > 0) {  // round 0 creates and warms the buffers
        best_warm = std::min(best_warm, t);
        best_warm_apply = std::min(best_warm_apply, first_read);
        best_warm_apply_cpu = std::min(best_warm_apply_cpu, cpu);
        best_raw_loop = std::min(best_raw_loop, raw_t);
      }
      if (reg.get("universe", {"i0"})->front().as_string() != content) {
        std::fprintf(stderr, "[rank %d] overwrite check failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
  }

  // The hot baseline: sizes known, buffers reused back to back.
  std::vector<char> recv(all_bytes);
  double best_raw = 1e30;
  for (int round = 0; round < a.rounds; ++round) best_raw = std::min(best_raw, timed([&] { raw_into(recv.data()); }));
  // An exchange as an MPI program would write it, without the apply:
  // sizes first, then the operations into a separate receive buffer; fresh
  // (new, not zeroed) as at a first exchange, or reused as at a later one.
  // (The registry itself receives into its pending buffer grown, after its
  // own operations: see sync in registry/src/registry.cpp.)
  double best_xchg_fresh = 1e30;
  double best_xchg_warm = 1e30;
  for (int round = 0; round < a.rounds; ++round) {
    auto exchange = [&](char* into) {
      const std::uint64_t mine = encoded;
      std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size));
      MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
      MPI_Allgatherv(send.data(), static_cast<int>(encoded), MPI_BYTE, into, counts.data(), displs.data(), MPI_BYTE,
                     MPI_COMM_WORLD);
    };
    best_xchg_fresh = std::min(best_xchg_fresh, timed([&] {
                                 char* into = fresh_buffer(recv.size());
                                 exchange(into);
                                 std::free(into);
                               }));
    best_xchg_warm = std::min(best_xchg_warm, timed([&] { exchange(recv.data()); }));
  }
  const double ops = static_cast<double>(puts) * size;
  const SyncRow row{puts,
                    best_raw,
                    best_raw_fresh_loop,
                    best_raw_loop,
                    best_sync,
                    best_warm,
                    best_apply * 1e9 / ops,
                    best_warm_apply * 1e9 / ops,
                    best_apply,
                    best_warm_apply,
                    best_apply_cpu * 1e9 / ops,
                    best_warm_apply_cpu * 1e9 / ops};
  if (rank == 0) {
    std::printf("\nsync of %ld puts per rank (%ld-byte objects, %d ranks, %.2f MB per rank), best of %d\n", puts,
                a.object_bytes, size, static_cast<double>(encoded) / 1e6, a.rounds);
    std::printf("%-44s %10s %8s %16s %16s\n", "", "ms", "x raw", "apply ns/op", "apply cpu ns/op");
    std::printf("%-44s %10.3f %8.2f\n", "raw MPI_Allgatherv, same bytes, hot", best_raw * 1e3, 1.0);
    std::printf("%-44s %10.3f %8.2f\n", "raw, in the loop, fresh buffer", best_raw_fresh_loop * 1e3,
                best_raw_fresh_loop / best_raw);
    std::printf("%-44s %10.3f %8.2f\n", "raw, in the loop, reused buffer", best_raw_loop * 1e3,
                best_raw_loop / best_raw);
    std::printf("%-44s %10.3f %8.2f\n", "sizes + allgatherv, fresh buffer", best_xchg_fresh * 1e3,
                best_xchg_fresh / best_raw);
    std::printf("%-44s %10.3f %8.2f\n", "sizes + allgatherv, reused buffer", best_xchg_warm * 1e3,
                best_xchg_warm / best_raw);
    std::printf("%-44s %10.3f %8.2f\n", "registry sync, creating", best_sync * 1e3, best_sync / best_raw);
    std::printf("%-44s %10.3f %8.2f %16.0f %16.0f\n", "  first read after it (applies the sync)", best_apply * 1e3,
                best_apply / best_raw, row.apply_ns, row.apply_cpu_ns);
    std::printf("%-44s %10.3f %8.2f\n", "registry sync, updating", best_warm * 1e3, best_warm / best_raw);
    std::printf("%-44s %10.3f %8.2f %16.0f %16.0f\n", "  first read after it (applies the sync)",
                best_warm_apply * 1e3, best_warm_apply / best_raw, row.warm_apply_ns, row.warm_apply_cpu_ns);
    std::printf("%-44s %10.3f\n", "(recording the puts, not in sync)", best_record * 1e3);
  }
  return row;
}

// The summary the targets are stated in: a sync creating N objects per rank
// against a raw MPI_Allgatherv of the same bytes in the same run, and the
// apply cost per object per replica.
void print_summary(const std::vector<SyncRow>& rows, int size) {
  std::printf("\nsummary, %d ranks: sync of N objects per rank vs raw MPI_Allgatherv of the same bytes; \"hot\" =\n"
              "back to back, \"loop\" = in the registry's loop (fresh buffer for creating, reused for updating);\n"
              "apply = the first read after, ns per object: wall and the applying thread's CPU time\n",
              size);
  std::printf("%8s %8s | %8s %8s %8s %8s %6s %6s | %8s %8s %8s %8s %6s %6s\n", "N/rank", "hot ms", "loop ms",
              "sync ms", "x hot", "x loop", "apply", "cpu", "loop ms", "update", "x hot", "x loop", "apply", "cpu");
  for (const SyncRow& r : rows)
    std::printf("%8ld %8.3f | %8.3f %8.3f %8.2f %8.2f %6.0f %6.0f | %8.3f %8.3f %8.2f %8.2f %6.0f %6.0f\n", r.puts,
                r.raw * 1e3, r.raw_fresh_loop * 1e3, r.sync * 1e3, r.sync / r.raw, r.sync / r.raw_fresh_loop,
                r.apply_ns, r.apply_cpu_ns, r.raw_loop * 1e3, r.warm * 1e3, r.warm / r.raw, r.warm / r.raw_loop,
                r.warm_apply_ns, r.warm_apply_cpu_ns);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Args a = parse(argc, argv);
  if (rank == 0) bench_get(a);
  // The other ranks wait without spinning (a plain MPI_Barrier busy-polls
  // and would take a core from rank 0's timed reads on a small machine).
  MPI_Request idle = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &idle);
  wait_idle(idle);
  std::vector<SyncRow> rows;
  for (long n : a.puts) rows.push_back(bench_sync(a, n, rank, size));
  if (rank == 0) print_summary(rows, size);
  if (rank == 0) std::printf("bench_registry: done\n");
  MPI_Finalize();
  return 0;
}
