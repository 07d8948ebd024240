#include "core/job_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace dart {

bool parse_channel_spec(const std::string& s, std::vector<sockaddr_in>* out) {
  const std::size_t colon = s.rfind(':');
  if (s.rfind("tcp:", 0) != 0 || colon == std::string::npos || colon < 4) return false;
  char* end = nullptr;
  const unsigned long port = std::strtoul(s.c_str() + colon + 1, &end, 10);
  if (*end || port == 0 || port > 65535) return false;
  const std::string list = s.substr(4, colon - 4);
  out->clear();
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const std::size_t comma = list.find(',', pos);
    const std::string ip = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, ip.c_str(), &a.sin_addr) != 1) return false;
    out->push_back(a);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return !out->empty();
}

namespace {

int connect_to(const sockaddr_in& a, int ms) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS) {
      ::close(fd);
      return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t l = sizeof err;
    if (::poll(&p, 1, ms) != 1 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0 || err != 0) {
      ::close(fd);
      return -1;
    }
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

long long now_ms() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

}  // namespace

int dial_channel(const std::string& spec, int per_address_ms, std::string* local) {
  std::vector<sockaddr_in> addrs;
  if (!parse_channel_spec(spec, &addrs)) return -1;
  for (const sockaddr_in& a : addrs) {
    const int fd = connect_to(a, per_address_ms);
    if (fd < 0) continue;
    if (local) {
      sockaddr_in me{};
      socklen_t l = sizeof me;
      char buf[INET_ADDRSTRLEN];
      if (::getsockname(fd, reinterpret_cast<sockaddr*>(&me), &l) != 0 ||
          !::inet_ntop(AF_INET, &me.sin_addr, buf, sizeof buf)) {
        ::close(fd);
        continue;
      }
      *local = buf;
    }
    return fd;
  }
  return -1;
}

bool send_and_await_ok(int fd, const std::string& line, int timeout_ms) {
  const char* p = line.data();
  std::size_t n = line.size();
  while (n) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  const long long deadline = now_ms() + timeout_ms;
  char buf[8];
  std::size_t got = 0;
  while (got < 3) {
    const long long left = deadline - now_ms();
    if (left <= 0) return false;
    pollfd pf{fd, POLLIN, 0};
    const int pr = ::poll(&pf, 1, static_cast<int>(left));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) return false;
    const ssize_t r = ::recv(fd, buf + got, 3 - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return std::memcmp(buf, "ok\n", 3) == 0;
}

}  // namespace dart
