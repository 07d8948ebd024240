// Benchmark of the registry, two parts in one run:
//
// 1. get latency (rank 0, local read): a token matching 10 objects, in
//    segments of 10^3, 10^5 and 10^6 objects. The registry is built on
//    MPI_COMM_SELF so that only one rank holds the big replicas; a get never
//    communicates, so the communicator does not change what is timed.
//    Target: flat across sizes, under 2 us.
// 2. sync of N puts per rank (default 10^4, 64-byte objects) on
//    MPI_COMM_WORLD, against the baseline of a raw MPI_Allgatherv of the same
//    bytes (the encoded operations, sized by the formula of wire.hpp). Both
//    are timed as the maximum over ranks, best of --rounds. Target <= 1.5x.
//
// Options: --sizes a,b,c  --gets N  --puts N  --object-bytes N  --rounds N
#include <registry/registry.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::vector<long> sizes = {1000, 100000, 1000000};
  long gets = 200000;
  long puts = 10000;
  long object_bytes = 64;
  int rounds = 5;
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
      a.puts = std::stol(v);
    } else if (k == "--object-bytes") {
      a.object_bytes = std::stol(v);
    } else if (k == "--rounds") {
      a.rounds = std::atoi(v);
    }
  }
  return a;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double max_over_ranks(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

// Part 1, on rank 0 only.
void bench_get(const Args& a) {
  std::printf("get latency, token matching 10 objects (rank 0, local read)\n");
  std::printf("%12s %14s %10s\n", "objects", "ns per get", "results");
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
    const auto t0 = Clock::now();
    for (long i = 0; i < a.gets; ++i) {
      auto r = reg.get("universe", queries[static_cast<std::size_t>(i % 1024)], registry::kAnd);
      results += r->size();
    }
    const double ns = seconds_since(t0) * 1e9 / static_cast<double>(a.gets);
    std::printf("%12ld %14.0f %10.1f\n", n, ns, static_cast<double>(results) / static_cast<double>(a.gets));
  }
}

// Part 2, on every rank.
void bench_sync(const Args& a, int rank, int size) {
  const std::string payload(static_cast<std::size_t>(a.object_bytes), 'q');
  std::vector<std::vector<std::string>> tokens;
  std::uint64_t encoded = 0;
  for (long i = 0; i < a.puts; ++i) {
    tokens.push_back({"r" + std::to_string(rank), "i" + std::to_string(i)});
    // u8 kind, u16 mode, str segment, u32 count + strs, u64 size + bytes
    encoded += 1 + 2 + (4 + 8) + 4 + 8 + static_cast<std::uint64_t>(payload.size());
    for (const auto& t : tokens.back()) encoded += 4 + t.size();
  }

  double best_sync = 1e30;
  double best_record = 1e30;
  for (int round = 0; round < a.rounds; ++round) {
    registry::Options o;
    auto created = registry::Registry::create(MPI_COMM_WORLD, o);
    registry::Registry& reg = *created;
    auto t0 = Clock::now();
    for (long i = 0; i < a.puts; ++i) reg.put("universe", tokens[static_cast<std::size_t>(i)], std::string_view(payload));
    best_record = std::min(best_record, max_over_ranks(seconds_since(t0)));
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = Clock::now();
    const registry::Status s = reg.sync();
    best_sync = std::min(best_sync, max_over_ranks(seconds_since(t0)));
    if (s != registry::Status::ok || reg.get("universe", {"i0"})->size() != static_cast<std::size_t>(size)) {
      std::fprintf(stderr, "[rank %d] sync check failed\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  // Baseline: the same bytes in one raw MPI_Allgatherv (sizes known).
  std::vector<char> send(encoded, 'x');
  std::vector<char> recv(encoded * static_cast<std::uint64_t>(size));
  std::vector<int> counts(static_cast<std::size_t>(size), static_cast<int>(encoded));
  std::vector<int> displs(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) displs[static_cast<std::size_t>(r)] = r * static_cast<int>(encoded);
  double best_raw = 1e30;
  for (int round = 0; round < a.rounds; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = Clock::now();
    MPI_Allgatherv(send.data(), static_cast<int>(encoded), MPI_BYTE, recv.data(), counts.data(), displs.data(),
                   MPI_BYTE, MPI_COMM_WORLD);
    best_raw = std::min(best_raw, max_over_ranks(seconds_since(t0)));
  }
  if (rank == 0) {
    std::printf("\nsync of %ld puts per rank (%ld-byte objects, %d ranks, %.2f MB per rank), best of %d\n", a.puts,
                a.object_bytes, size, static_cast<double>(encoded) / 1e6, a.rounds);
    std::printf("%-34s %12s\n", "", "ms");
    std::printf("%-34s %12.3f\n", "registry sync (exchange + apply)", best_sync * 1e3);
    std::printf("%-34s %12.3f\n", "raw MPI_Allgatherv, same bytes", best_raw * 1e3);
    std::printf("%-34s %12.2f\n", "ratio", best_sync / best_raw);
    std::printf("%-34s %12.3f\n", "(recording the puts, not in sync)", best_record * 1e3);
  }
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
  MPI_Barrier(MPI_COMM_WORLD);
  bench_sync(a, rank, size);
  if (rank == 0) std::printf("bench_registry: done\n");
  MPI_Finalize();
  return 0;
}
