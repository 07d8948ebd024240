// Covers tools in other processes (pmix_push, fork/exec) pushing to a server
// in this process over its private socket: exact delivery (position-
// dependent patterns), per-source and wildcard XOFF/XON reaching the tool
// (its input pipe fills: the tool's read is un-armed), a legacy producer
// (no flow-control capability) that is never sent XOFF and keeps producing,
// a producer killed mid-stream while suspended and while running, a
// producer whose server dies mid-stream (it fails with the count), finalize
// while a tool is suspended (its push ends as complete, no error), a relay chain of three processes carrying XOFF
// back to the holder of the input, refused authentication, and TCP; and, against a
// server played by hand, a tool that reads XON and the final status in one
// read while the connection is already reset.
// XOFF and XON counts (server and tools) are compared in every test.
// Not covered here: malformed messages (test_pmix_fuzz.cpp).
#define BOOST_TEST_MODULE pmix_shim_tools
#include "shim_test_util.hpp"
#include "wire_test_util.hpp"

using namespace shimtest;

namespace {

constexpr size_t kPipeCap = 65536;

// A pmix_push child whose stdin is a pipe this test feeds (and can inspect).
struct Producer {
  int fds[2];
  std::unique_ptr<Writer> writer;
  pid_t pid = -1;
  std::string err = tmp_path("push-err-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
  // gate: the writer pauses after that many bytes until go().
  Producer(const std::vector<std::string> &args, size_t total, uint32_t seed, size_t gate = 0) {
    BOOST_REQUIRE_EQUAL(pipe2(fds, O_CLOEXEC), 0);
    fcntl(fds[0], F_SETPIPE_SZ, static_cast<int>(kPipeCap));
    pid = spawn(args, fds[0], err);
    writer = std::make_unique<Writer>(fds[1], total, seed, 65536, gate);
  }
  void go() { writer->open(); }
  int pending() const { return pipe_pending(fds[0]); }
  int wait() {
    int rc = reap(pid);
    pid = -1;
    return rc;
  }
  std::string log() const { return slurp(err); }
  ~Producer() {
    writer->open();
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    // Closing the last read end unblocks the writer (EPIPE).
    ::close(fds[0]);
    writer.reset();
    ::unlink(err.c_str());
  }
};

std::vector<std::string> push_args(const std::pair<std::string, std::string> &c, const std::string &ns,
                                   std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {push_tool(), "--server", c.first, "--secret", c.second, "--nspace", ns, "--stats"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

void check_server_paired() {
  auto s = stats();
  BOOST_TEST(s.xoff == s.xon, "server XOFF " << s.xoff << " != XON " << s.xon);
  BOOST_TEST(s.xoff_sent == s.xon_sent, "XOFF frames " << s.xoff_sent << " != XON frames " << s.xon_sent);
}

// Suspended for real: the tool stopped reading, so its input pipe is full
// and stays full, and the host gets nothing more from it.
void expect_stalled(Host &h, Producer &p, const std::string &k) {
  size_t held = h.size(k);
  // The XOFF frame may still be on its way while the tool finishes the
  // chunk it is writing, so wait (bounded) for a full pipe that stays
  // full and a writer that stays blocked for 100 ms.
  uint64_t w = 0;
  bool stable = wait_until([&] {
    if (p.pending() != static_cast<int>(kPipeCap)) return false;
    w = p.writer->written.load();
    std::this_thread::sleep_for(100ms);
    return p.pending() == static_cast<int>(kPipeCap) && p.writer->written.load() == w;
  });
  BOOST_TEST(stable, "the producer's input did not stall");
  // The server side stops at once: the host got nothing after the XOFF.
  BOOST_TEST(h.size(k) == held);
}

// A tool suspended once, resumed, then told by the server that its host
// takes no more: its push ends with PMIX_ERR_IOF_COMPLETE and the count
// (`took` starts it), and nothing is logged as an error.
void expect_ended_as_complete(const std::string &log, const std::string &took) {
  BOOST_TEST_MESSAGE("tool: " << log);
  BOOST_TEST(stat_of(log, "xoff_received") == 1);
  BOOST_TEST(stat_of(log, "xon_received") == 1);
  BOOST_TEST(log.find("pmix_push: ERR-IOF-COMPLETE: " + took) != std::string::npos);
  BOOST_TEST(log.find("error") == std::string::npos, "the tool logged an error: " << log);
}

// A pmix_push relay process serving other tools and forwarding to the
// server `upstream`; `contact` is its own URI and secret.
struct Relay {
  std::string cf, err;
  pid_t pid = -1;
  std::pair<std::string, std::string> contact;
  Relay(const std::pair<std::string, std::string> &upstream, const std::string &stem)
      : cf(tmp_path(stem + "-contact")), err(tmp_path(stem + "-err")) {
    ::unlink(cf.c_str());
    pid = spawn({push_tool(), "--relay", "--listen", "unix", "--contact-file", cf, "--server", upstream.first,
                 "--secret", upstream.second, "--nspace", "relay", "--stats"},
                -1, err);
    BOOST_REQUIRE(wait_until([&] { return !slurp(cf).empty(); }));
    std::string rc = slurp(cf);
    auto nl = rc.find('\n');
    contact = {rc.substr(0, nl), rc.substr(nl + 1, rc.find('\n', nl + 1) - nl - 1)};
  }
  int wait() {
    int rc = reap(pid);
    pid = -1;
    return rc;
  }
  std::string log() const { return slurp(err); }
  ~Relay() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    ::unlink(cf.c_str());
    ::unlink(err.c_str());
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(per_source_control_stops_only_that_tool) {
  Host h;
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  const size_t total = 8u << 20;
  {
    Producer a(push_args(c, "toolA"), total, 11, 1u << 20), b(push_args(c, "toolB", {"--rank", "1"}), total, 12);
    BOOST_REQUIRE(wait_until([&] { return h.size("toolA:0") > 0; }));
    BOOST_REQUIRE_EQUAL(flow("toolA", 0, true), PMIX_OPERATION_SUCCEEDED);
    a.go();
    expect_stalled(h, a, "toolA:0");
    // B is untouched and finishes.
    BOOST_REQUIRE(wait_until([&] { return h.ended("toolB:1") == 1; }, 60s));
    BOOST_TEST(b.wait() == 0);
    BOOST_TEST(h.size("toolA:0") < total);
    BOOST_REQUIRE_EQUAL(flow("toolA", 0, false), PMIX_OPERATION_SUCCEEDED);
    BOOST_REQUIRE(wait_until([&] { return h.ended("toolA:0") == 1; }, 60s));
    BOOST_TEST(a.wait() == 0);
    BOOST_TEST(h.size("toolA:0") == total);
    BOOST_TEST(first_mismatch(h.get("toolA:0"), 11) == std::string::npos);
    BOOST_TEST(h.size("toolB:1") == total);
    BOOST_TEST(first_mismatch(h.get("toolB:1"), 12) == std::string::npos);
    BOOST_TEST(stat_of(a.log(), "xoff_received") == 1);
    BOOST_TEST(stat_of(a.log(), "xon_received") == 1);
    BOOST_TEST(stat_of(b.log(), "xoff_received") == 0);
  }
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_server_paired();
  BOOST_TEST(stats().xoff == 1u);
}

BOOST_AUTO_TEST_CASE(wildcard_stops_every_tool_and_a_legacy_one_keeps_producing) {
  // NULL, and a source that is a wildcard in both fields: every producer.
  for (bool wildcard_name : {false, true}) {
    Host h;
    start_server(h);
    ServerGuard guard;
    auto c = contact();
    // Gated, so neither finishes before the XOFF.
    const size_t total = 8u << 20, legacy_total = 4u << 20;
    {
      Producer a(push_args(c, "toolA"), total, 21, 1u << 20), b(push_args(c, "toolB"), total, 22, 1u << 20);
      Producer legacy(push_args(c, "old", {"--no-flow-control"}), legacy_total, 23);
      BOOST_REQUIRE(wait_until([&] { return h.size("toolA:0") > 0 && h.size("toolB:0") > 0; }));
      BOOST_REQUIRE_EQUAL(wildcard_name ? flow("", PMIX_RANK_WILDCARD, true) : flow(nullptr, 0, true),
                          PMIX_OPERATION_SUCCEEDED);
      a.go();
      b.go();
      expect_stalled(h, a, "toolA:0");
      expect_stalled(h, b, "toolB:0");
      // The producer that predates flow control is never sent a request.
      BOOST_REQUIRE(wait_until([&] { return h.ended("old:0") == 1; }, 60s));
      BOOST_TEST(legacy.wait() == 0);
      BOOST_TEST(stat_of(legacy.log(), "xoff_received") == 0);
      BOOST_TEST(first_mismatch(h.get("old:0"), 23) == std::string::npos);
      BOOST_TEST(h.size("old:0") == legacy_total);
      BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
      BOOST_REQUIRE(wait_until([&] { return h.ended("toolA:0") == 1 && h.ended("toolB:0") == 1; }, 60s));
      BOOST_TEST(a.wait() == 0);
      BOOST_TEST(b.wait() == 0);
      BOOST_TEST(first_mismatch(h.get("toolA:0"), 21) == std::string::npos);
      BOOST_TEST(first_mismatch(h.get("toolB:0"), 22) == std::string::npos);
      BOOST_TEST(h.size("toolA:0") == total);
      BOOST_TEST(h.size("toolB:0") == total);
    }
    BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
    auto s = stats();
    BOOST_TEST(s.legacy_peers == 1u);
    BOOST_TEST(s.xoff == 2u);
    BOOST_TEST(s.xoff_sent == 2u);
    check_server_paired();
  }
}

// Sources select as PMIx compares names: {nspace, WILDCARD} is every rank
// of that nspace and nothing else.  A suspension applies to the producers
// there are: one that connects after it runs (OpenPMIx's rule).
BOOST_AUTO_TEST_CASE(nspace_with_wildcard_rank_stops_that_nspace_and_holds_no_newcomer) {
  Host h;
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  const size_t total = 8u << 20;
  {
    Producer a0(push_args(c, "toolA"), total, 61, 1u << 20),
        a1(push_args(c, "toolA", {"--rank", "1"}), total, 62, 1u << 20);
    Producer b(push_args(c, "toolB"), total, 63, 1u << 20);
    BOOST_REQUIRE(wait_until([&] { return h.size("toolA:0") > 0 && h.size("toolA:1") > 0 && h.size("toolB:0") > 0; }));
    BOOST_REQUIRE_EQUAL(flow("toolA", PMIX_RANK_WILDCARD, true), PMIX_OPERATION_SUCCEEDED);
    a0.go();
    a1.go();
    b.go();
    expect_stalled(h, a0, "toolA:0");
    expect_stalled(h, a1, "toolA:1");
    BOOST_REQUIRE(wait_until([&] { return h.ended("toolB:0") == 1; }, 60s));
    BOOST_TEST(b.wait() == 0);
    // A newcomer of the suspended nspace, and one after a wildcard XOFF,
    // both deliver everything.
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
    {
      Producer late(push_args(c, "toolA", {"--rank", "2"}), 2u << 20, 64);
      BOOST_REQUIRE(wait_until([&] { return h.ended("toolA:2") == 1; }, 60s));
      BOOST_TEST(late.wait() == 0);
      BOOST_TEST(stat_of(late.log(), "xoff_received") == 0);
    }
    BOOST_TEST(h.size("toolA:2") == (2u << 20));
    BOOST_TEST(first_mismatch(h.get("toolA:2"), 64) == std::string::npos);
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
    BOOST_REQUIRE(wait_until([&] { return h.ended("toolA:0") == 1 && h.ended("toolA:1") == 1; }, 60s));
    BOOST_TEST(a0.wait() == 0);
    BOOST_TEST(a1.wait() == 0);
    BOOST_TEST(h.size("toolA:0") == total);
    BOOST_TEST(h.size("toolA:1") == total);
    BOOST_TEST(first_mismatch(h.get("toolA:1"), 62) == std::string::npos);
    BOOST_TEST(stat_of(b.log(), "xoff_received") == 0);
  }
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_server_paired();
  BOOST_TEST(stats().xoff == 2u);
}

BOOST_AUTO_TEST_CASE(xoff_by_status_suspends_a_tool_without_error) {
  Host h;
  std::atomic<int> n{0};
  h.decide = [&](const pmix_proc_t &, size_t) { return ++n == 3 ? PMIX_ERR_IOF_XOFF : PMIX_SUCCESS; };
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  const size_t total = 4u << 20;
  {
    Producer a(push_args(c, "toolA"), total, 31);
    BOOST_REQUIRE(wait_until([&] { return stats().xoff == 1u; }));
    expect_stalled(h, a, "toolA:0");
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
    BOOST_REQUIRE(wait_until([&] { return h.ended("toolA:0") == 1; }, 60s));
    BOOST_TEST(a.wait() == 0);  // no error reached the producer
    BOOST_TEST(first_mismatch(h.get("toolA:0"), 31) == std::string::npos);
    BOOST_TEST(h.size("toolA:0") == total);
  }
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_server_paired();
}

BOOST_AUTO_TEST_CASE(producer_dies_mid_stream) {
  for (bool while_suspended : {true, false}) {
    Host h;
    start_server(h);
    ServerGuard guard;
    auto c = contact();
    {
      Producer a(push_args(c, "toolA"), 16u << 20, 41, 2u << 20);
      BOOST_REQUIRE(wait_until([&] { return h.size("toolA:0") >= (1u << 20); }));
      if (while_suspended) {
        BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
        a.go();
        expect_stalled(h, a, "toolA:0");
      }
      kill(a.pid, SIGKILL);
      BOOST_TEST(a.wait() == 128 + SIGKILL);
      if (while_suspended) BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
      BOOST_REQUIRE(wait_until([&] { return h.ended("toolA:0") == 1; }));
      std::lock_guard<std::mutex> l(h.mu);
      BOOST_TEST(h.abnormal_ends["toolA:0"] == 1);
      // What arrived is an exact prefix.
      BOOST_TEST(first_mismatch(h.data["toolA:0"], 41) == std::string::npos);
    }
    BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
    check_server_paired();
  }
}

// The other way round: the producer's server dies.  The producer's server
// is a relay process (pmix_push --relay) forwarding to this process's
// server; killing it mid-stream, once while the producer runs (its input
// held at 2 MiB, then let go) and once while it is suspended, must fail the
// push: pmix_push exits 1 and says how many of its bytes were taken, a
// count no larger than what reached the host (the relay confirms a chunk
// only after the host took it).
BOOST_AUTO_TEST_CASE(server_dies_mid_stream_fails_the_push_with_the_count) {
  for (bool while_suspended : {false, true}) {
    Host h;
    start_server(h);
    ServerGuard guard;
    auto c = contact();
    Relay relay(c, "dying-relay");
    const size_t total = 64u << 20;
    {
      Producer a(push_args(relay.contact, "origin"), total, 71, 2u << 20);
      BOOST_REQUIRE(wait_until([&] { return h.size("relay:0") >= (1u << 20); }));
      if (while_suspended) {
        BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
        a.go();
        expect_stalled(h, a, "relay:0");
      }
      ::kill(relay.pid, SIGKILL);
      BOOST_TEST(relay.wait() == 128 + SIGKILL);
      a.go();  // running: its next bytes meet a dead server
      BOOST_TEST(a.wait() == 1, "pmix_push must fail when its server dies");
      if (while_suspended) BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
      std::string log = a.log();
      BOOST_TEST_MESSAGE("producer: " << log);
      long pushed = stat_of(log, "bytes_pushed"), acked = stat_of(log, "bytes_acked");
      BOOST_TEST(pushed > 0);
      BOOST_TEST(acked >= 0);
      BOOST_TEST(acked <= pushed);
      BOOST_TEST(pushed < static_cast<long>(total));
      const std::string says =
          "the server's host took " + std::to_string(acked) + " of the " + std::to_string(pushed) + " bytes pushed";
      BOOST_TEST(log.find(says) != std::string::npos, "pmix_push did not say: " << says);
      BOOST_REQUIRE(wait_until([&] { return h.ended("relay:0") == 1; }));
      BOOST_TEST(acked <= static_cast<long>(h.size("relay:0")));
      BOOST_TEST(first_mismatch(h.get("relay:0"), 71) == std::string::npos);
    }
    BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
    check_server_paired();
  }
}

BOOST_AUTO_TEST_CASE(finalize_while_a_tool_is_suspended_sends_its_xon) {
  Host h;
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  {
    Producer a(push_args(c, "toolA"), 16u << 20, 51, 1u << 20);
    BOOST_REQUIRE(wait_until([&] { return h.size("toolA:0") > 0; }));
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
    a.go();
    expect_stalled(h, a, "toolA:0");
    BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
    auto s = stats();
    BOOST_TEST(s.xoff == 1u);
    BOOST_TEST(s.xon == 1u);
    BOOST_TEST(s.xon_sent == 1u);
    // The tool saw XON, then the server's word that its host takes no
    // more: the push ends with PMIX_ERR_IOF_COMPLETE, not taken for a lost
    // server (no error logged), and pmix_push, whose input was not all
    // taken, exits 1 with the count.
    BOOST_TEST(a.wait() == 1);
    expect_ended_as_complete(a.log(), "the server's host took");
  }
}

// A server played by hand makes deterministic what finalize above leaves to
// timing.  The tool is blocked writing into a full socket when the server
// stops reading for good (shutdown SHUT_RD: the tool's writes now fail, and
// its socket never becomes writable, so it wakes only to read) and sends
// XOFF, XON and its final status in one piece.  The tool reads all three at
// once; acting on the XON it writes, the write fails, and the drain after
// it must act on the status already received: the push ends as complete,
// not as a lost server.
BOOST_AUTO_TEST_CASE(last_frames_read_with_the_xon_are_acted_on_after_a_failed_write) {
  std::string path = tmp_path("hand-server.sock");
  ::unlink(path.c_str());
  int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BOOST_REQUIRE(lfd >= 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  BOOST_REQUIRE_EQUAL(bind(lfd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
  BOOST_REQUIRE_EQUAL(listen(lfd, 1), 0);
  Producer tool(push_args({"unix:" + path, "s3cret"}, "hand"), 4u << 20, 71);
  pollfd pl{lfd, POLLIN, 0};
  BOOST_REQUIRE_EQUAL(poll(&pl, 1, 10000), 1);
  int fd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
  BOOST_REQUIRE(fd >= 0);
  ::close(lfd);
  ::unlink(path.c_str());
  ServerFrames hello;
  BOOST_REQUIRE(hello.read(fd, 1));
  BOOST_REQUIRE(hello.types[0] == wire::Type::hello);
  std::vector<unsigned char> w(14);
  wire::put_u32(w.data(), wire::kMagic);
  wire::put_u16(w.data() + 4, wire::kVersion);
  wire::put_u32(w.data() + 6, wire::kCapFlowControl | wire::kCapAck);
  wire::put_u32(w.data() + 10, static_cast<uint32_t>(PMIX_SUCCESS));
  send_all(fd, frame(wire::Type::welcome, w));
  // Nothing more is read: the tool fills the socket and waits to write
  // (4 MiB of input is far more than a Unix socket holds).
  auto queued = [&] {
    int n = 0;
    ioctl(fd, FIONREAD, &n);
    return n;
  };
  int seen = -1;
  BOOST_REQUIRE(wait_until([&] {
    int n = queued();
    bool full = n > 0 && n == seen;
    seen = n;
    std::this_thread::sleep_for(100ms);
    return full;
  }));
  BOOST_REQUIRE_EQUAL(shutdown(fd, SHUT_RD), 0);
  std::vector<unsigned char> st(4);
  wire::put_u32(st.data(), static_cast<uint32_t>(PMIX_ERR_IOF_COMPLETE));
  std::vector<unsigned char> last_words = frame(wire::Type::xoff, {});
  for (const auto &f : {frame(wire::Type::xon, {}), frame(wire::Type::failure, st)})
    last_words.insert(last_words.end(), f.begin(), f.end());
  send_all(fd, last_words);
  int rc = tool.wait();
  ::close(fd);
  BOOST_TEST(rc == 1);
  expect_ended_as_complete(tool.log(), "the server's host took 0 of the");
}

BOOST_AUTO_TEST_CASE(relay_chain_of_three_carries_xoff_to_the_input) {
  Host h;
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  Relay relay(c, "relay");
  const size_t total = 16u << 20;
  {
    Producer a(push_args(relay.contact, "origin"), total, 61, 1u << 20);
    BOOST_REQUIRE(wait_until([&] { return h.size("relay:0") >= (1u << 20); }));
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
    a.go();
    // The request travels server -> relay -> origin: the origin's input
    // pipe fills, and nothing more reaches the host.
    expect_stalled(h, a, "relay:0");
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
    BOOST_REQUIRE(wait_until([&] { return h.ended("relay:0") == 1; }, 60s));
    BOOST_TEST(a.wait() == 0);
    BOOST_TEST(relay.wait() == 0);
    BOOST_TEST(h.size("relay:0") == total);
    BOOST_TEST(first_mismatch(h.get("relay:0"), 61) == std::string::npos);
    std::string al = a.log(), rl = relay.log();
    BOOST_TEST_MESSAGE("origin: " << al << "relay: " << rl);
    BOOST_TEST(stat_of(al, "xoff_received") == 1);
    BOOST_TEST(stat_of(al, "xon_received") == 1);
    // Acknowledged end to end: the relay confirms a chunk only once the
    // host upstream took it, so the origin's count is the host's.
    BOOST_TEST(stat_of(al, "bytes_acked") == static_cast<long>(total));
    BOOST_TEST(stat_of(rl, "bytes_acked") == static_cast<long>(total));
    BOOST_TEST(stat_of(rl, "xoff_received") == 1);
    BOOST_TEST(stat_of(rl, "relayed_xoff") == 1);
    BOOST_TEST(stat_of(rl, "relayed_xon") == 1);
    BOOST_TEST(stat_of(rl, "xoff") == stat_of(rl, "xon"));
    BOOST_TEST(stat_of(rl, "xoff") == 1);
  }
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_server_paired();
}

BOOST_AUTO_TEST_CASE(wrong_secret_is_refused_and_only_that_connection_closes) {
  Host h;
  start_server(h);
  ServerGuard guard;
  auto c = contact();
  {
    Producer good(push_args(c, "good"), 2u << 20, 71);
    std::string err = tmp_path("bad-err");
    pid_t bad = spawn({push_tool(), "--server", c.first, "--secret", "not-the-secret", "--nspace", "bad"}, -1, err);
    BOOST_TEST(reap(bad) == 1);
    BOOST_TEST(slurp(err).find("cannot connect") != std::string::npos);
    ::unlink(err.c_str());
    BOOST_REQUIRE(wait_until([&] { return h.ended("good:0") == 1; }, 60s));
    BOOST_TEST(good.wait() == 0);
    BOOST_TEST(first_mismatch(h.get("good:0"), 71) == std::string::npos);
    BOOST_TEST(h.size("good:0") == (2u << 20));
  }
  BOOST_TEST(stats().peers_refused == 1u);
  BOOST_TEST(h.size("bad:0") == 0u);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_server_paired();
}

BOOST_AUTO_TEST_CASE(tcp_with_a_per_job_secret) {
  Host h;
  start_server(h, "tcp", "per-job-secret-0123");
  ServerGuard guard;
  auto c = contact();
  BOOST_TEST(c.first.rfind("tcp:127.0.0.1:", 0) == 0);
  BOOST_TEST(c.second == "per-job-secret-0123");
  std::string path = tmp_path("tcp-file");
  auto v = make_pattern(3u << 20, 81);
  FILE *f = std::fopen(path.c_str(), "w");
  std::fwrite(v.data(), 1, v.size(), f);
  std::fclose(f);
  pid_t p = spawn({push_tool(), "--server", c.first, "--secret", c.second, "--nspace", "tcp", "--file", path}, -1);
  BOOST_TEST(reap(p) == 0);
  BOOST_REQUIRE(wait_until([&] { return h.ended("tcp:0") == 1; }));
  BOOST_TEST(h.get("tcp:0") == v);
  ::unlink(path.c_str());
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_server_paired();
}
