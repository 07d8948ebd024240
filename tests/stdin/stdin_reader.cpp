// stdin_reader: the DART program the stdin tests run through dartrun or a
// bare launcher.  Every unit reads its fd 0 to EOF and checks it: target
// units must read exactly --size bytes of the test pattern (pattern.hpp, so
// loss, duplication and reordering show), the others EOF at once; EOF must
// stay EOF (it is seen exactly once).  Unit 0 also checks, after
// dart_exit, that its shim server sent as many XON as XOFF.
//
//   stdin_reader --size N [--targets SPEC] [--buf BYTES] [--cin]
//                [--zeros | --text]
//                [--slow BYTES:MS:UPTO] [--pause-at N --pause-ms MS
//                 --progress FILE --inflight-max BYTES]
//                [--close-after N --exit-code C] [--kill-after N] [--attack]
//
// --kill-after N: unit 0 kills itself with SIGKILL once it has read N bytes,
// so the job's stdin server dies mid-stream (the producer must fail and say
// how much was taken).
// --zeros / --text: the stream is /dev/zero's bytes, or the printable text
// of the terminal tests (pattern.hpp), instead of the test pattern.
// --attack: before dart_init, every unit opens bad connections to dartrun's
// TCP rendezvous (silent, garbage, a wrong secret, half a hello); unit 0,
// after dart_init, also to its own stdin server (silent, garbage, a wrong
// secret). Each must be closed by the other side within 10 s while stdin
// keeps flowing; "attack=N" in the line counts the connections closed.
//
// Each unit prints one line "stdin_reader: unit U: OK ..." or "... FAIL
// ..." and exits non-zero on a failure (else with --exit-code C, on unit 0
// only, else 0).  It does not check what the
// launcher or dartrun do; tests/stdin/run_case.sh does.
#include "pattern.hpp"

#include <dash/dart/if/dart.h>
#include <pmix_server.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wire.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

// The peak resident set (VmHWM), in KiB.
long vmhwm_kib() {
  rusage ru{};
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
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

// ---- --attack ---------------------------------------------------------------

namespace wire = pmixshim::wire;

// Connects to "tcp:HOST:PORT" (first address of a list) or "unix:PATH".
int connect_uri(const std::string& uri) {
  if (uri.rfind("unix:", 0) == 0) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::string path = uri.substr(5);
    if (path.size() >= sizeof a.sun_path) return -1;
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd);
      fd = -1;
    }
    return fd;
  }
  if (uri.rfind("tcp:", 0) != 0) return -1;
  std::size_t colon = uri.rfind(':');
  std::string hosts = uri.substr(4, colon - 4);
  int port = std::atoi(uri.c_str() + colon + 1);
  std::size_t pos = 0;
  while (pos <= hosts.size()) {
    std::size_t comma = hosts.find(',', pos);
    std::string ip = hosts.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, ip.c_str(), &a.sin_addr) == 1) {
      int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
      if (fd >= 0) ::close(fd);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return -1;
}

void send_bytes(int fd, const void* p, std::size_t n) {
  if (::send(fd, p, n, MSG_NOSIGNAL) < 0) {
    // The other side may already have dropped us: that is the point.
  }
}

// A shim hello frame with the given secret.
std::vector<unsigned char> shim_hello(const std::string& secret) {
  const std::string ns = "intruder";
  std::vector<unsigned char> f(wire::kHeaderSize + 18 + ns.size() + secret.size());
  unsigned char* p = f.data() + wire::kHeaderSize;
  wire::put_header(f.data(), wire::Type::hello, static_cast<uint32_t>(f.size() - wire::kHeaderSize));
  wire::put_u32(p, wire::kMagic);
  wire::put_u16(p + 4, wire::kVersion);
  wire::put_u32(p + 6, wire::kCapFlowControl);
  wire::put_u32(p + 10, 0);
  wire::put_u16(p + 14, static_cast<uint16_t>(ns.size()));
  std::memcpy(p + 16, ns.data(), ns.size());
  wire::put_u16(p + 16 + ns.size(), static_cast<uint16_t>(secret.size()));
  std::memcpy(p + 18 + ns.size(), secret.data(), secret.size());
  return f;
}

// Opens the bad connections to `uri`; `shim` picks the shim's wire format
// (unit 0's server) instead of dartrun's hello line.
std::vector<int> open_attacks(const std::string& uri, bool shim) {
  std::vector<int> fds;
  auto add = [&](const void* p, std::size_t n) {
    int fd = connect_uri(uri);
    if (fd < 0) return;
    if (n) send_bytes(fd, p, n);
    fds.push_back(fd);
  };
  add(nullptr, 0);  // silent
  const char junk[] = "\x01\xffGET / HTTP/1.0\r\n\r\n";
  add(junk, sizeof junk - 1);
  if (shim) {
    auto h = shim_hello("not-the-secret-of-this-job");
    add(h.data(), h.size());
  } else {
    const char wrong[] = "dartrun-stdin-1 not-the-secret tcp:127.0.0.1:1\n";
    add(wrong, sizeof wrong - 1);
    const char half[] = "dartrun-stdin-1 ";
    add(half, sizeof half - 1);
  }
  return fds;
}

// How many of fds the other side closes within the limit.
int count_closed(std::vector<int>& fds, int limit_ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  int closed = 0;
  for (int& fd : fds) {
    char b[256];
    while (fd >= 0 && std::chrono::steady_clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t n = ::recv(fd, b, sizeof b, 0);
      if (n <= 0) {
        ++closed;
        ::close(fd);
        fd = -1;
      }
    }
  }
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  return closed;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long size = 0, pause_at = ~0ull, inflight_max = ~0ull, close_after = ~0ull, kill_after = ~0ull;
  std::string targets = "0", progress;
  std::size_t bufsize = 65536, slow_bytes = 0, slow_upto = 0;
  unsigned slow_ms = 0, pause_ms = 0;
  int exit_code = 0;
  bool use_cin = false, attack = false;
  stdin_test::Stream stream = stdin_test::Stream::pattern;
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
    else if (a == "--kill-after") kill_after = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--exit-code") exit_code = std::atoi(next().c_str());
    else if (a == "--zeros") stream = stdin_test::Stream::zeros;
    else if (a == "--text") stream = stdin_test::Stream::text;
    else if (a == "--attack") attack = true;
    else {
      std::fprintf(stderr, "stdin_reader: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  // Before dart_init, so they are queued at dartrun's rendezvous ahead of
  // unit 0's own hello and dartrun must deal with them first.
  std::vector<int> attacks;
  const char* rv = std::getenv("DART_STDIN_RENDEZVOUS");
  if (attack && rv) attacks = open_attacks(rv, false);
  if (dart_init(&argc, &argv) != DART_OK) {
    std::fprintf(stderr, "stdin_reader: FAIL dart_init\n");
    return 1;
  }
  dart_global_unit_t me;
  dart_myid(&me);
  const int unit = me.id;
  const bool target = in_spec(targets, unit);
  const unsigned long long expect = target ? size : 0;
  std::size_t attacks_opened = attacks.size();
  if (attack && unit == 0) {
    char uri[256], secret[256];
    if (pmixshim_server_contact(uri, sizeof uri, secret, sizeof secret) == PMIX_SUCCESS) {
      auto more = open_attacks(uri, true);
      attacks.insert(attacks.end(), more.begin(), more.end());
    }
    attacks_opened = attacks.size();
  }
  // Closed on the other side while this unit reads its stdin.
  std::future<int> attacks_closed = std::async(std::launch::async, [&attacks] { return count_closed(attacks, 10000); });

  std::vector<unsigned char> buf(bufsize);
  unsigned long long pos = 0;
  // FNV-1a of everything read, printed so runs can be compared with the
  // producer's stream (`stdin_gen SIZE | ...` hashed the same way).
  unsigned long long fnv = 0xcbf29ce484222325ull;
  std::string why;
  bool closed = false;
  long long inflight = -1;
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    std::size_t want = bufsize;
    if (pos < slow_upto && slow_bytes) want = slow_bytes;
    if (pos < pause_at && pause_at - pos < want) want = static_cast<std::size_t>(pause_at - pos);
    if (pos < close_after && close_after - pos < want) want = static_cast<std::size_t>(close_after - pos);
    if (unit == 0 && pos < kill_after && kill_after - pos < want) want = static_cast<std::size_t>(kill_after - pos);
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
    std::size_t bad = stdin_test::check(stream, pos, buf.data(), static_cast<std::size_t>(n));
    if (bad != static_cast<std::size_t>(n)) {
      why = "MISMATCH at byte " + std::to_string(pos + bad);
      break;
    }
    for (long j = 0; j < n; ++j) fnv = (fnv ^ buf[static_cast<std::size_t>(j)]) * 0x100000001b3ull;
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
      if (last != mid)
        why = "the producer was not blocked during the pause (" + std::to_string(mid) + " -> " + std::to_string(last) +
              " bytes)";
      else if (static_cast<unsigned long long>(inflight) > inflight_max)
        why = "in flight " + std::to_string(inflight) + " bytes > " + std::to_string(inflight_max);
      if (!why.empty()) break;
    }
    if (unit == 0 && pos == kill_after) ::raise(SIGKILL);
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
  const int closed_attacks = attacks_closed.get();
  if (attack && why.empty()) {
    if (attacks_opened == 0 && (rv || unit == 0)) why = "--attack: no bad connection could be opened";
    else if (closed_attacks != static_cast<int>(attacks_opened))
      why = "--attack: " + std::to_string(attacks_opened - static_cast<std::size_t>(closed_attacks)) + " of " +
            std::to_string(attacks_opened) + " bad connections still open after 10 s";
  }
  long hwm = vmhwm_kib();
  auto verdict = [&](const std::string& stats) {
    std::string line = "stdin_reader: unit " + std::to_string(unit) + ": " + stats;
    if (attack) line += "attack=" + std::to_string(closed_attacks) + " ";
    char host[256] = "?";
    ::gethostname(host, sizeof host - 1);
    line += std::string("host=") + host + " ";
    char tail[200];
    std::snprintf(tail, sizeof tail,
                  "fnv1a64=%016llx bytes=%llu target=%d closed=%d inflight=%lld secs=%.3f MBps=%.1f vmhwm_kib=%ld", fnv,
                  pos, target ? 1 : 0, closed ? 1 : 0, inflight, secs, secs > 0 ? pos / secs / 1e6 : 0.0, hwm);
    line += why.empty() ? "OK " : "FAIL (" + why + ") ";
    line += tail;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  // Every unit but 0 says its verdict before dart_exit: once a unit that
  // ends with a non-zero code (--exit-code) has left, Open MPI's launcher
  // kills the rest, and a line printed after MPI_Finalize could be lost.
  // Unit 0's verdict needs its server's final counts, known after dart_exit.
  if (unit != 0) verdict("");
  dart_exit();
  if (unit == 0) {
    pmixshim_iof_stats_t s{};
    pmixshim_get_iof_stats(&s);
    if (s.xoff != s.xon && why.empty()) why = "XOFF count != XON count";
    verdict("xoff=" + std::to_string(s.xoff) + " xon=" + std::to_string(s.xon) + " ");
  }
  if (!why.empty()) return 1;
  // Only unit 0 ends with --exit-code: it prints its verdict after
  // dart_exit, and a unit that left with a non-zero code first would have
  // the launcher kill it before the line is out.  The job's status is
  // still the code, which is what the case checks.
  return unit == 0 ? exit_code : 0;
}
