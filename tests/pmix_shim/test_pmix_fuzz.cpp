// Covers malformed input against a live server: connections that send
// random bytes, a valid handshake followed by random frames, truncated
// frames, oversized lengths, bad reserved fields, frames out of order, and
// a wrong secret -- while a well-behaved tool streams a pattern through the
// same server.  Each bad connection must be closed on its own; the good
// stream must arrive exactly; the server must keep serving; XOFF/XON counts
// must pair; peers that stay silent or send half a handshake are closed
// within the handshake time limit.  Seeds are fixed, so a failure
// reproduces.  Not covered:
// attacks on the tool side (it only talks to its own server).
#define BOOST_TEST_MODULE pmix_shim_fuzz
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <random>

#include "shim_test_util.hpp"
#include "wire_test_util.hpp"

using namespace shimtest;

BOOST_AUTO_TEST_CASE(malformed_connections_are_closed_one_by_one) {
  Host h;
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  // A well-behaved producer streams all along.
  int fds[2];
  BOOST_REQUIRE_EQUAL(pipe2(fds, O_CLOEXEC), 0);
  const size_t total = 32u << 20;
  pid_t good = spawn({push_tool(), "--server", c.first, "--secret", c.second, "--nspace", "good"}, fds[0]);
  Writer w(fds[1], total, 91, 4096);

  std::mt19937 rng(12345);
  auto rnd_bytes = [&](size_t n) {
    std::vector<unsigned char> v(n);
    for (auto &b : v) b = static_cast<unsigned char>(rng());
    return v;
  };
  int expected_close = 0, closed = 0;
  // 1. Random bytes before any handshake.
  for (int i = 0; i < 60; ++i) {
    int fd = connect_unix(c.first);
    auto junk = rnd_bytes(1 + rng() % 4096);
    if (junk.size() >= 8) wire::put_u16(junk.data() + 4, static_cast<uint16_t>(1 + rng() % 20));
    send_all(fd, junk);
    shutdown(fd, SHUT_WR);  // a frame cut short by the peer ends too
    closed += closed_by_server(fd);
    ++expected_close;
    ::close(fd);
  }
  // 2. Valid handshake, then random frames (bad types, sizes, reserved).
  for (int i = 0; i < 60; ++i) {
    int fd = connect_unix(c.first);
    std::string ns = "fz" + std::to_string(i);
    send_all(fd, hello(ns, c.second));
    std::vector<unsigned char> f;
    switch (i % 6) {
      case 0: f = frame(static_cast<wire::Type>(9 + rng() % 100), rnd_bytes(rng() % 64)); break;
      case 1: f = frame(wire::Type::data, rnd_bytes(16), 1); break;              // reserved != 0
      case 2: f = frame(wire::Type::hello, hello(ns, c.second)); break;          // second hello
      case 3: f = frame(wire::Type::xoff, {}); break;                            // server-only frame
      case 4: f = frame(wire::Type::targets, rnd_bytes(3 + rng() % 40)); break;  // bad target list
      case 5: {                                                                  // oversized length
        f = frame(wire::Type::data, rnd_bytes(8));
        wire::put_u32(f.data(), wire::kMaxDataPayload + 1 + rng() % 1000);
        break;
      }
    }
    send_all(fd, f);
    closed += closed_by_server(fd);
    ++expected_close;
    ::close(fd);
  }
  // 3. Valid handshake and data, then a truncated frame and hang-up: the
  // host gets the complete chunk and an abnormal end, nothing else.
  for (int i = 0; i < 30; ++i) {
    int fd = connect_unix(c.first);
    std::string ns = "tr" + std::to_string(i);
    send_all(fd, hello(ns, c.second));
    auto ok = make_pattern(1000, 100 + i);
    send_all(fd, frame(wire::Type::data, ok));
    auto cut = frame(wire::Type::data, make_pattern(5000, 100 + i, 1000));
    cut.resize(wire::kHeaderSize + rng() % 4000);
    send_all(fd, cut);
    ::close(fd);
    BOOST_REQUIRE(wait_until([&] { return h.ended(ns + ":0") == 1; }));
    BOOST_TEST(h.get(ns + ":0") == ok);
  }
  // 4. Wrong secret: refused and closed.
  for (int i = 0; i < 10; ++i) {
    int fd = connect_unix(c.first);
    send_all(fd, hello("intruder", "wrong-secret-" + std::to_string(i)));
    closed += closed_by_server(fd);
    ++expected_close;
    ::close(fd);
  }
  BOOST_TEST(closed == expected_close);
  BOOST_TEST(stats().peers_refused == 10u);
  BOOST_TEST(stats().peers_malformed >= 60u + 30u);
  BOOST_TEST(h.size("intruder:0") == 0u);

  // Meanwhile, and after all that, the good stream is exact and complete.
  BOOST_TEST(reap(good, 60s) == 0);
  BOOST_REQUIRE(wait_until([&] { return h.ended("good:0") == 1; }));
  BOOST_TEST(h.size("good:0") == total);
  BOOST_TEST(first_mismatch(h.get("good:0"), 91) == std::string::npos);
  ::close(fds[0]);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  auto s = stats();
  BOOST_TEST(s.xoff == s.xon);
  BOOST_TEST(s.streams_opened == s.streams_closed);
}

// Peers that connect and never finish the handshake: silent, or half a
// hello. Each is closed by the server within its handshake time limit (5 s)
// while a good tool keeps streaming; before the limit they were held for the
// life of the server.
BOOST_AUTO_TEST_CASE(silent_and_half_spoken_peers_are_closed_in_bounded_time) {
  Host h;
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  // A well-behaved producer streams all along.
  const size_t total = 8u << 20;
  int fds[2];
  BOOST_REQUIRE_EQUAL(pipe2(fds, O_CLOEXEC), 0);
  Writer w(fds[1], total, 17, 4096);
  pid_t good = spawn({push_tool(), "--server", c.first, "--secret", c.second, "--nspace", "good"}, fds[0]);

  std::vector<int> silent;
  for (int i = 0; i < 8; ++i) silent.push_back(connect_unix(c.first));
  for (int i = 0; i < 4; ++i) {
    int fd = connect_unix(c.first);
    auto half = hello("half" + std::to_string(i), c.second);
    half.resize(half.size() / 2);
    send_all(fd, half);
    silent.push_back(fd);
  }
  auto t0 = std::chrono::steady_clock::now();
  int closed = 0;
  for (int fd : silent) {
    closed += closed_by_server(fd, 9000);
    ::close(fd);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST(closed == static_cast<int>(silent.size()));
  BOOST_TEST_MESSAGE("silent peers closed after " << secs << " s");
  BOOST_TEST(stats().peers_malformed >= silent.size());

  BOOST_TEST(reap(good, 60s) == 0);
  BOOST_REQUIRE(wait_until([&] { return h.ended("good:0") == 1; }));
  BOOST_TEST(h.size("good:0") == total);
  BOOST_TEST(first_mismatch(h.get("good:0"), 17) == std::string::npos);
  ::close(fds[0]);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  auto s = stats();
  BOOST_TEST(s.xoff == s.xon);
  BOOST_TEST(s.streams_opened == s.streams_closed);
}
