#include "channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dartrun {
namespace {

constexpr std::size_t kMaxLine = 1024;
// A peer gets this long to say what it has to say.
constexpr auto kHelloDeadline = std::chrono::seconds(5);
constexpr std::size_t kMaxPendingPeers = 64;

std::string peer_name(int fd) {
  sockaddr_in a{};
  socklen_t l = sizeof a;
  char buf[INET_ADDRSTRLEN] = "?";
  if (::getpeername(fd, reinterpret_cast<sockaddr *>(&a), &l) == 0) ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
  return std::string(buf) + ":" + std::to_string(ntohs(a.sin_port));
}

std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> w;
  size_t p = 0;
  while (p <= line.size()) {
    size_t q = line.find(' ', p);
    w.push_back(line.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return w;
}

bool parse_long(const std::string &s, long *out) {
  if (s.empty()) return false;
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

}  // namespace

struct JobChannel::Peer {
  int fd;
  Clock::time_point deadline;
  std::string in;
};

std::vector<std::string> host_addresses() {
  std::vector<std::string> out, loop;
  ifaddrs *ifa = nullptr;
  if (::getifaddrs(&ifa) != 0) return {"127.0.0.1"};
  for (ifaddrs *i = ifa; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    char buf[INET_ADDRSTRLEN];
    auto *a = reinterpret_cast<sockaddr_in *>(i->ifa_addr);
    if (!::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf)) continue;
    ((i->ifa_flags & IFF_LOOPBACK) ? loop : out).emplace_back(buf);
  }
  ::freeifaddrs(ifa);
  out.insert(out.end(), loop.begin(), loop.end());
  if (out.empty()) out.emplace_back("127.0.0.1");
  return out;
}

bool same_secret(const std::string &a, const std::string &b) {
  unsigned char d = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return d == 0;
}

bool JobChannel::listen(const std::string &mode, std::string *spec) {
  std::string addr = mode.size() > 4 ? mode.substr(4) : std::string();
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (!addr.empty() && ::inet_pton(AF_INET, addr.c_str(), &a.sin_addr) != 1) {
    std::fprintf(stderr, "dartrun: --rendezvous %s: not an IPv4 address\n", mode.c_str());
    return false;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  socklen_t al = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &al) != 0) {
    std::fprintf(stderr, "dartrun: cannot listen on TCP%s%s: %s\n", addr.empty() ? "" : " ", addr.c_str(),
                 std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return false;
  }
  std::vector<std::string> addrs = addr.empty() ? host_addresses() : std::vector<std::string>{addr};
  std::string list;
  for (auto &x : addrs) list += (list.empty() ? "" : ",") + x;
  *spec = "tcp:" + list + ":" + std::to_string(ntohs(a.sin_port));
  listen_fd_ = fd;
  return true;
}

void JobChannel::start() {
  if (listen_fd_ < 0 || thread_.joinable()) return;
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) return;
  thread_ = std::thread([this] { run(); });
}

void JobChannel::stop() {
  if (thread_.joinable()) {
    char x = 1;
    if (::write(wake_[1], &x, 1) < 0) {
      // The pipe is ours and empty: cannot fail; the thread polls it.
    }
    thread_.join();
  }
  for (int &fd : wake_)
    if (fd >= 0) ::close(fd), fd = -1;
  if (listen_fd_ >= 0) ::close(listen_fd_), listen_fd_ = -1;
}

std::string JobChannel::stdin_uri() {
  std::lock_guard<std::mutex> l(mu_);
  return uri_;
}

JobChannel::Stats JobChannel::stats() {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

std::vector<int> JobChannel::observed() {
  std::lock_guard<std::mutex> l(mu_);
  return observed_;
}

ExitReports JobChannel::reports() {
  std::lock_guard<std::mutex> l(mu_);
  return reports_;
}

void JobChannel::drop(Peer &p, const char *why) {
  std::fprintf(stderr, "dartrun: rendezvous: dropped %s: %s\n", peer_name(p.fd).c_str(), why);
  {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.peers_dropped;  // before the peer can see it closed
  }
  ::close(p.fd);
  p.fd = -1;
}

static void reply_ok(int fd) {
  // A line of 3 bytes into an empty socket buffer: never partial.
  if (::send(fd, "ok\n", 3, MSG_NOSIGNAL) < 0) {
    // The peer is gone; what it said is recorded all the same.
  }
}

void JobChannel::handle_line(Peer &p, const std::string &line) {
  std::vector<std::string> w = words(line);
  if (w.size() < 3 || (w[0] != "dartrun-stdin-1" && w[0] != "dartrun-exit-1" && w[0] != "dartrun-unit-1"))
    return drop(p, "not a DART unit's hello");
  if (!same_secret(w[1], secret_)) return drop(p, "wrong secret");
  if (w[0] == "dartrun-stdin-1") {
    if (w.size() != 3 || w[2].rfind("tcp:", 0) != 0) return drop(p, "bad server address");
    ::close(p.fd);
    p.fd = -1;
    std::lock_guard<std::mutex> l(mu_);
    if (uri_.empty()) uri_ = w[2];
    return;
  }
  long unit = 0, code = 0, removed = 0;
  if (w[0] == "dartrun-exit-1") {
    if (w.size() != 4 || !parse_long(w[2], &unit) || !parse_long(w[3], &code) || unit < 0)
      return drop(p, "bad exit report");
    std::lock_guard<std::mutex> l(mu_);
    reports_.add(unit, static_cast<int>(code));
  } else {
    if (w.size() != 5 || !parse_long(w[2], &unit) || !parse_long(w[3], &code) || !parse_long(w[4], &removed) ||
        unit < 0 || code < -1 || code > 0xffff || removed < 0)
      return drop(p, "bad unit report");
    std::lock_guard<std::mutex> l(mu_);
    if (code >= 0) observed_.push_back(static_cast<int>(code));
    ++stats_.units_reported;
    stats_.objects_removed += static_cast<unsigned>(removed);
  }
  reply_ok(p.fd);  // only now may the unit (or its watcher) go: it is recorded
  ::close(p.fd);
  p.fd = -1;
}

void JobChannel::run() {
  std::vector<Peer> peers;
  for (;;) {
    std::vector<pollfd> pf{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (auto &p : peers) pf.push_back({p.fd, POLLIN, 0});
    int pr = ::poll(pf.data(), pf.size(), 100);
    if (pr < 0 && errno != EINTR) break;
    if (pf[0].revents) break;
    const auto now = Clock::now();
    for (size_t i = 0; i < peers.size(); ++i) {
      Peer &p = peers[i];
      if (pf[i + 2].revents) {
        char buf[512];
        ssize_t n = ::recv(p.fd, buf, sizeof buf, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (n <= 0) {
          drop(p, "closed before it presented the secret");
          continue;
        }
        p.in.append(buf, static_cast<size_t>(n));
        if (size_t nl = p.in.find('\n'); nl != std::string::npos)
          handle_line(p, p.in.substr(0, nl));
        else if (p.in.size() > kMaxLine)
          drop(p, "line too long");
      }
      if (p.fd >= 0 && now > p.deadline) drop(p, "did not present the secret in time");
    }
    peers.erase(std::remove_if(peers.begin(), peers.end(), [](const Peer &p) { return p.fd < 0; }), peers.end());
    if (!(pf[1].revents & POLLIN)) continue;
    for (;;) {
      int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (c < 0) break;
      if (peers.size() >= kMaxPendingPeers) {
        // Many silent peers at once: the oldest goes first.
        drop(peers.front(), "too many peers waiting");
        peers.erase(peers.begin());
      }
      peers.push_back({c, Clock::now() + kHelloDeadline, {}});
    }
  }
  for (auto &p : peers) ::close(p.fd);
}

}  // namespace dartrun
