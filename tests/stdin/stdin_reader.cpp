// stdin_reader: the DART program the stdin tests run through dartrun or a
// bare launcher.  Every unit reads its fd 0 to EOF and checks it: target
// units must read exactly --size bytes of the test pattern (pattern.hpp, so
// loss, duplication and reordering show), the others EOF at once; EOF must
// stay EOF (it is seen exactly once).  Unit 0 also checks, after
// dart_exit, that its shim server sent as many XON as XOFF.
//
//   stdin_reader --size N [--targets SPEC] [--buf BYTES] [--cin]
//                [--slow BYTES:MS:UPTO] [--pause-at N --pause-ms MS
//                 --progress FILE --inflight-max BYTES]
//                [--close-after N --exit-code C]
//
// Each unit prints one line "stdin_reader: unit U: OK ..." or "... FAIL
// ..." and exits non-zero on a failure.  It does not check what the
// launcher or dartrun do; tests/stdin/run_case.sh does.
#include "pattern.hpp"

#include <dash/dart/if/dart.h>
#include <pmix_server.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

long vmhwm_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  long kib = -1;
  if (!f) return kib;
  char line[256];
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld", &kib) == 1) break;
  std::fclose(f);
  return kib;
}

bool in_spec(const std::string& spec, int unit) {
  if (spec == "all") return true;
  if (spec == "none") return false;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    std::size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    int a = 0, b = 0;
    if (std::sscanf(item.c_str(), "%d-%d", &a, &b) == 2) {
      if (unit >= a && unit <= b) return true;
    } else if (std::atoi(item.c_str()) == unit) {
      return true;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return false;
}

unsigned long long read_progress(const std::string& file) {
  FILE* f = std::fopen(file.c_str(), "r");
  unsigned long long v = 0;
  if (f) {
    if (std::fscanf(f, "%llu", &v) != 1) v = 0;
    std::fclose(f);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long size = 0, pause_at = ~0ull, inflight_max = ~0ull, close_after = ~0ull;
  std::string targets = "0", progress;
  std::size_t bufsize = 65536, slow_bytes = 0, slow_upto = 0;
  unsigned slow_ms = 0, pause_ms = 0;
  int exit_code = 0;
  bool use_cin = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--size") size = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--targets") targets = next();
    else if (a == "--buf") bufsize = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--cin") use_cin = true;
    else if (a == "--slow") std::sscanf(next().c_str(), "%zu:%u:%zu", &slow_bytes, &slow_ms, &slow_upto);
    else if (a == "--pause-at") pause_at = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--pause-ms") pause_ms = static_cast<unsigned>(std::strtoul(next().c_str(), nullptr, 10));
    else if (a == "--progress") progress = next();
    else if (a == "--inflight-max") inflight_max = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--close-after") close_after = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--exit-code") exit_code = std::atoi(next().c_str());
    else {
      std::fprintf(stderr, "stdin_reader: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (dart_init(&argc, &argv) != DART_OK) {
    std::fprintf(stderr, "stdin_reader: FAIL dart_init\n");
    return 1;
  }
  dart_global_unit_t me;
  dart_myid(&me);
  const int unit = me.id;
  const bool target = in_spec(targets, unit);
  const unsigned long long expect = target ? size : 0;

  std::vector<unsigned char> buf(bufsize);
  unsigned long long pos = 0;
  std::string why;
  bool closed = false;
  long long inflight = -1;
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    std::size_t want = bufsize;
    if (pos < slow_upto && slow_bytes) want = slow_bytes;
    if (pos < pause_at && pause_at - pos < want) want = static_cast<std::size_t>(pause_at - pos);
    if (pos < close_after && close_after - pos < want) want = static_cast<std::size_t>(close_after - pos);
    long n;
    if (use_cin) {
      std::cin.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(want));
      n = static_cast<long>(std::cin.gcount());
      if (n == 0 && !std::cin.eof()) n = -1;
    } else {
      n = static_cast<long>(::read(0, buf.data(), want));
    }
    if (n < 0) {
      why = std::string("read: ") + std::strerror(errno);
      break;
    }
    if (n == 0) break;
    std::size_t bad = stdin_test::check(pos, buf.data(), static_cast<std::size_t>(n));
    if (bad != static_cast<std::size_t>(n)) {
      why = "MISMATCH at byte " + std::to_string(pos + bad);
      break;
    }
    pos += static_cast<unsigned long long>(n);
    if (pos > expect) {
      why = "more bytes than expected";
      break;
    }
    if (slow_bytes && pos <= slow_upto) std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
    if (pos == pause_at) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms / 2));
      unsigned long long mid = read_progress(progress);
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms - pause_ms / 2));
      unsigned long long last = read_progress(progress);
      inflight = static_cast<long long>(last - pos);
      if (last != mid) why = "the producer was not blocked during the pause (" + std::to_string(mid) + " -> " +
                             std::to_string(last) + " bytes)";
      else if (static_cast<unsigned long long>(inflight) > inflight_max)
        why = "in flight " + std::to_string(inflight) + " bytes > " + std::to_string(inflight_max);
      if (!why.empty()) break;
    }
    if (pos == close_after) {
      ::close(0);
      closed = true;
      // Keep running a while: the host sees the closed pipe and tells the
      // producer while the job is still alive.
      std::this_thread::sleep_for(std::chrono::seconds(1));
      break;
    }
  }
  if (why.empty() && !closed) {
    // EOF exactly once: no byte may follow it.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!use_cin && ::read(0, buf.data(), 1) != 0) why = "data or an error after EOF";
    if (pos != expect) why = "read " + std::to_string(pos) + " bytes, expected " + std::to_string(expect);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long hwm = vmhwm_kib();
  dart_exit();
  std::string line = "stdin_reader: unit " + std::to_string(unit) + ": ";
  if (unit == 0) {
    pmixshim_iof_stats_t s{};
    pmixshim_get_iof_stats(&s);
    line += "xoff=" + std::to_string(s.xoff) + " xon=" + std::to_string(s.xon) + " ";
    if (s.xoff != s.xon && why.empty()) why = "XOFF count != XON count";
  }
  char tail[160];
  std::snprintf(tail, sizeof tail, "bytes=%llu target=%d closed=%d inflight=%lld secs=%.3f MBps=%.1f vmhwm_kib=%ld",
                pos, target ? 1 : 0, closed ? 1 : 0, inflight, secs, secs > 0 ? pos / secs / 1e6 : 0.0, hwm);
  line += why.empty() ? "OK " : "FAIL (" + why + ") ";
  line += tail;
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  if (!why.empty()) return 1;
  return exit_code;
}
