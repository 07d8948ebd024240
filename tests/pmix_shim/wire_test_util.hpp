// Raw wire-protocol helpers for tests that play a tool by hand: connect to
// a server's Unix socket, build frames (also malformed ones), send them in
// one piece, and read the server's frames back with a deadline.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "wire.hpp"

namespace shimtest {

namespace wire = pmixshim::wire;

inline int connect_unix(const std::string &uri) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::string path = uri.substr(5);
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE_EQUAL(connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
  return fd;
}

inline std::vector<unsigned char> frame(wire::Type t, const std::vector<unsigned char> &payload,
                                        uint16_t reserved = 0) {
  std::vector<unsigned char> f(wire::kHeaderSize + payload.size());
  wire::put_header(f.data(), t, static_cast<uint32_t>(payload.size()));
  wire::put_u16(f.data() + 6, reserved);
  std::copy(payload.begin(), payload.end(), f.begin() + wire::kHeaderSize);
  return f;
}

inline std::vector<unsigned char> hello(const std::string &ns, const std::string &secret,
                                        uint32_t caps = wire::kCapFlowControl) {
  std::vector<unsigned char> p(4 + 2 + 4 + 4 + 2 + ns.size() + 2 + secret.size());
  wire::put_u32(p.data(), wire::kMagic);
  wire::put_u16(p.data() + 4, wire::kVersion);
  wire::put_u32(p.data() + 6, caps);
  wire::put_u32(p.data() + 10, 0);
  wire::put_u16(p.data() + 14, static_cast<uint16_t>(ns.size()));
  std::memcpy(p.data() + 16, ns.data(), ns.size());
  wire::put_u16(p.data() + 16 + ns.size(), static_cast<uint16_t>(secret.size()));
  std::memcpy(p.data() + 18 + ns.size(), secret.data(), secret.size());
  return frame(wire::Type::hello, p);
}

inline void send_all(int fd, const std::vector<unsigned char> &b) {
  size_t off = 0;
  while (off < b.size()) {
    ssize_t n = send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may already have closed us
    off += static_cast<size_t>(n);
  }
}

// True when the server closed the connection within the limit (reads and
// discards whatever it sent first, e.g. WELCOME).
inline bool closed_by_server(int fd, int ms = 5000) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  char b[256];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ssize_t n = recv(fd, b, sizeof b, 0);
    if (n <= 0) return true;
  }
  return false;
}

// The frames a server sent, in order, as read by a hand-played tool.
struct ServerFrames {
  std::vector<wire::Type> types;
  std::vector<std::vector<unsigned char>> payloads;
  bool closed = false;  // the server hung up
  std::vector<unsigned char> pending;

  // Reads until `want` frames are in (counting from the first) or the
  // server hung up or the deadline passed; true if `want` were reached.
  bool read(int fd, size_t want, int ms = 5000) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (types.size() < want && !closed && std::chrono::steady_clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      unsigned char b[4096];
      ssize_t n = recv(fd, b, sizeof b, 0);
      if (n <= 0) {
        closed = true;
        break;
      }
      pending.insert(pending.end(), b, b + n);
      while (pending.size() >= wire::kHeaderSize) {
        uint32_t len = wire::get_u32(pending.data());
        if (pending.size() < wire::kHeaderSize + len) break;
        types.push_back(static_cast<wire::Type>(wire::get_u16(pending.data() + 4)));
        payloads.emplace_back(pending.begin() + wire::kHeaderSize, pending.begin() + wire::kHeaderSize + len);
        pending.erase(pending.begin(), pending.begin() + wire::kHeaderSize + len);
      }
    }
    return types.size() >= want;
  }
  [[nodiscard]] size_t count(wire::Type t) const {
    size_t n = 0;
    for (auto x : types) n += x == t;
    return n;
  }
};

}  // namespace shimtest
