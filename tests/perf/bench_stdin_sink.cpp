// bench_stdin_sink: the consumer of bench_stdin.sh.  Reads fd 0 to EOF in
// 1 MiB reads and prints the rate from the first byte to EOF and its peak
// memory.  With --raw it does not start DART (the raw-pipe baseline);
// otherwise it is a DART program whose unit 0 reads (units > 0 read their
// fd 0 too, which is EOF at once).
#include <dash/dart/if/dart.h>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
// The peak resident set (VmHWM), in KiB.
long vmhwm_kib() {
  rusage ru{};
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}
}  // namespace

int main(int argc, char** argv) {
  const bool raw = argc > 1 && std::strcmp(argv[1], "--raw") == 0;
  int unit = 0;
  if (!raw) {
    if (dart_init(&argc, &argv) != DART_OK) return 1;
    dart_global_unit_t me;
    dart_myid(&me);
    unit = me.id;
  }
  std::vector<char> buf(1 << 20);
  unsigned long long bytes = 0;
  std::chrono::steady_clock::time_point first{}, last{};
  for (;;) {
    ssize_t n = ::read(0, buf.data(), buf.size());
    if (n <= 0) break;
    if (bytes == 0) first = std::chrono::steady_clock::now();
    bytes += static_cast<unsigned long long>(n);
  }
  last = std::chrono::steady_clock::now();
  long hwm = vmhwm_kib();
  if (!raw) dart_exit();
  if (unit == 0) {
    double secs = bytes ? std::chrono::duration<double>(last - first).count() : 0.0;
    std::printf("bench_stdin_sink: bytes=%llu secs=%.3f MBps=%.1f vmhwm_kib=%ld\n", bytes, secs,
                secs > 0 ? bytes / secs / 1e6 : 0.0, hwm);
  }
  return 0;
}
