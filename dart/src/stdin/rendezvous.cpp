#include "stdin/rendezvous.hpp"

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
// Must match dartrun's (pmix_shim/tools/dartrun.cpp).
constexpr const char* kHello = "dartrun-stdin-1";
// Per address: an unreachable one (a private interface of the launch host)
// must not hold dart_init for long; a reachable one answers in far less.
constexpr int kConnectMs = 2000;

// A non-blocking connect bounded by kConnectMs; the socket, or -1.
int connect_to(const std::string& ip, unsigned port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, ip.c_str(), &a.sin_addr) != 1) return -1;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS) {
      ::close(fd);
      return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t l = sizeof err;
    if (::poll(&p, 1, kConnectMs) != 1 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0 || err != 0) {
      ::close(fd);
      return -1;
    }
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

StdinRendezvous::~StdinRendezvous() {
  if (fd_ >= 0) ::close(fd_);
}

bool StdinRendezvous::connect(const char* spec) {
  std::string s = spec ? spec : "";
  std::size_t colon = s.rfind(':');
  if (s.rfind("tcp:", 0) != 0 || colon == std::string::npos || colon < 4) {
    log(LogLevel::Error, kCall, "DART_STDIN_RENDEZVOUS=%s is not tcp:ADDR[,ADDR...]:PORT", s.c_str());
    return false;
  }
  char* end = nullptr;
  unsigned long port = std::strtoul(s.c_str() + colon + 1, &end, 10);
  if (*end || port == 0 || port > 65535) {
    log(LogLevel::Error, kCall, "DART_STDIN_RENDEZVOUS=%s has no valid port", s.c_str());
    return false;
  }
  std::string list = s.substr(4, colon - 4);
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t comma = list.find(',', pos);
    std::string ip = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    fd_ = connect_to(ip, static_cast<unsigned>(port));
    if (fd_ >= 0) {
      sockaddr_in a{};
      socklen_t l = sizeof a;
      char buf[INET_ADDRSTRLEN];
      if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &l) == 0 &&
          ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf)) {
        local_ = buf;
        log(LogLevel::Debug, kCall, "reached dartrun at %s:%lu from %s", ip.c_str(), port, buf);
        return true;
      }
      ::close(fd_);
      fd_ = -1;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  log(LogLevel::Error, kCall, "cannot reach dartrun at any of %s (port %lu); the job reads no stdin", list.c_str(),
      port);
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
