// bench_stdin_sink: the consumer of bench_stdin.sh.  Reads fd 0 to EOF in
// 1 MiB reads and prints the rate from the first byte to EOF and its peak
// memory.  With --raw it does not start DART (the raw-pipe baseline);
// otherwise it is a DART program whose unit 0 reads (units > 0 read their
// fd 0 too, which is EOF at once).
//
// --checksum: also folds every byte into a 64-bit FNV-1a sum and prints it.
// A reader that only counts bytes lets the path's cost stand alone; one that
// touches every byte, as a real consumer does, competes with the path for
// the cores and the cache, which is the figure that matters on a small
// node.  FNV-1a is a serial multiply per byte, so the sum costs the same for
// every path and its result shows that the bytes were the same too.
#include <dash/dart/if/dart.h>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
// The peak resident set (VmHWM), in KiB.
long vmhwm_kib() {
  rusage ru{};
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

std::uint64_t fnv1a(std::uint64_t h, const unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
}  // namespace

int main(int argc, char** argv) {
  bool raw = false, checksum = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--raw") == 0) raw = true;
    else if (std::strcmp(argv[i], "--checksum") == 0) checksum = true;
  }
  int unit = 0;
  if (!raw) {
    if (dart_init(&argc, &argv) != DART_OK) return 1;
    dart_global_unit_t me;
    dart_myid(&me);
    unit = me.id;
  }
  std::vector<unsigned char> buf(1 << 20);
  unsigned long long bytes = 0;
  std::uint64_t sum = 0xcbf29ce484222325ull;
  std::chrono::steady_clock::time_point first{}, last{};
  for (;;) {
    ssize_t n = ::read(0, buf.data(), buf.size());
    if (n <= 0) break;
    if (bytes == 0) first = std::chrono::steady_clock::now();
    bytes += static_cast<unsigned long long>(n);
    if (checksum) sum = fnv1a(sum, buf.data(), static_cast<std::size_t>(n));
  }
  last = std::chrono::steady_clock::now();
  long hwm = vmhwm_kib();
  if (!raw) dart_exit();
  if (unit == 0) {
    double secs = bytes ? std::chrono::duration<double>(last - first).count() : 0.0;
    std::printf("bench_stdin_sink: bytes=%llu secs=%.3f MBps=%.1f vmhwm_kib=%ld", bytes, secs,
                secs > 0 ? bytes / secs / 1e6 : 0.0, hwm);
    if (checksum) std::printf(" fnv1a=%016llx", static_cast<unsigned long long>(sum));
    std::printf("\n");
  }
  // Every unit's peak, for the memory check across sizes.
  if (!raw && unit != 0) std::printf("bench_stdin_sink: unit %d vmhwm_kib=%ld\n", unit, hwm);
  return 0;
}
