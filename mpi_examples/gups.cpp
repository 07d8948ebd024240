// gups: random-access updates of a distributed table with global atomics
// (the "giga updates per second" kernel).
//
// The table holds 2^log2-size entries per unit, initially t[i] = i. Every
// unit applies its own pseudo-random stream of updates t[k] ^= v, each an
// atomic fetch-and-op on whichever unit holds t[k]. XOR commutes, so the
// final table does not depend on the order in which updates land: every
// unit replays all streams afterwards and checks the entries it holds.
//
// Run:  mpirun -np 4 ./gups [--log2-size 20] [--updates 1000000]
// With DART_SHARED_MEMORY=0 the updates take MPI's path even on one node.
#include <dart/dart.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

namespace {

using Word = unsigned long long;

// Update j of unit u: (index, value). One generator per unit, seeded by
// its id, so any unit can replay any stream.
struct Stream {
  Stream(int unit, std::size_t table_size) : rng(0x9e3779b97f4a7c15ull ^ static_cast<Word>(unit)), size(table_size) {}
  std::pair<std::size_t, Word> next() {
    const Word v = rng();
    return {static_cast<std::size_t>(v % size), v};
  }
  std::mt19937_64 rng;
  std::size_t size;
};

}  // namespace

int main(int argc, char** argv) {
  dartpp::Runtime runtime(&argc, &argv);
  int log2_size = 20;
  std::size_t updates = 1000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--log2-size")) log2_size = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--updates")) updates = std::stoull(argv[i + 1]);
  }
  const int me = runtime.myid();
  const std::size_t units = runtime.size();
  const std::size_t size = (std::size_t{1} << log2_size) * units;

  dartpp::Array<Word> table(size);
  dartpp::for_each_index(table.begin(), table.end(), [](std::size_t i, Word& w) { w = i; });

  // The timed part: my updates, each atomic and complete on return.
  Stream mine(me, size);
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t j = 0; j < updates; ++j) {
    const auto [k, v] = mine.next();
    table[k] ^= v;
  }
  table.barrier();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double slowest = dartpp::allreduce(seconds, DART_OP_MAX);

  // Verification: replay every unit's stream on the entries I hold.
  const auto local = table.local();
  const std::size_t lo = table.local_begin_index(), hi = lo + local.size();
  std::vector<Word> expect(local.size());
  for (std::size_t i = 0; i < expect.size(); ++i) expect[i] = lo + i;
  for (std::size_t u = 0; u < units; ++u) {
    Stream s(static_cast<int>(u), size);
    for (std::size_t j = 0; j < updates; ++j) {
      const auto [k, v] = s.next();
      if (k >= lo && k < hi) expect[k - lo] ^= v;
    }
  }
  long long errors = 0;
  for (std::size_t i = 0; i < expect.size(); ++i) errors += local[i] != expect[i];
  errors = dartpp::allreduce(errors, DART_OP_SUM);

  if (me == 0) {
    const double total = static_cast<double>(updates) * static_cast<double>(units);
    std::printf("gups: %zu units, table of %zu entries (2^%d per unit), %zu updates per unit\n", units, size, log2_size,
                updates);
    std::printf("gups: %.3f s, %.3f million updates per second (%.6f GUP/s)\n", slowest, total / slowest / 1e6,
                total / slowest / 1e9);
    std::printf("gups: verification: %lld errors in %zu entries%s\n", errors, size, errors == 0 ? "" : " FAIL");
  }
  return errors == 0 ? 0 : 1;
}
