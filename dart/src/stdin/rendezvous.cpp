#include "stdin/rendezvous.hpp"

#include "core/job_channel.hpp"
#include "core/log.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace dart {
namespace {

constexpr const char* kCall = "dart_stdin";
// Must match dartrun's (pmix_shim/tools/dartrun/channel.cpp).
constexpr const char* kHello = "dartrun-stdin-1";
// Per address: an unreachable one (a private interface of the launch host)
// must not hold dart_init for long; a reachable one answers in far less.
constexpr int kConnectMs = 2000;

}  // namespace

StdinRendezvous::~StdinRendezvous() {
  if (fd_ >= 0) ::close(fd_);
}

bool StdinRendezvous::connect(const char* spec) {
  const std::string s = spec ? spec : "";
  std::vector<sockaddr_in> addrs;
  if (!parse_channel_spec(s, &addrs)) {
    log(LogLevel::Error, kCall, "DART_STDIN_RENDEZVOUS=%s is not tcp:ADDR[,ADDR...]:PORT", s.c_str());
    return false;
  }
  fd_ = dial_channel(s, kConnectMs, &local_);
  if (fd_ >= 0) {
    log(LogLevel::Debug, kCall, "reached dartrun (%s) from %s", s.c_str(), local_.c_str());
    return true;
  }
  log(LogLevel::Error, kCall, "cannot reach dartrun at any address of %s; the job reads no stdin", s.c_str());
  return false;
}

bool StdinRendezvous::announce(const std::string& secret, const std::string& uri) {
  if (fd_ < 0) return false;
  std::string line = std::string(kHello) + " " + secret + " " + uri + "\n";
  const char* p = line.data();
  std::size_t n = line.size();
  bool ok = true;
  while (n) {
    ssize_t w = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ok = false;
      break;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  if (!ok) log(LogLevel::Error, kCall, "cannot tell dartrun where the stdin server is: %s", std::strerror(errno));
  ::close(fd_);
  fd_ = -1;
  return ok;
}

}  // namespace dart
