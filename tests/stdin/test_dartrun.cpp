// dartrun's pieces that need no launcher (pmix_shim/tools/dartrun/), in one
// process: the exit status rule, hydra's exit-code line and its filter,
// the reports units and their watchers make through files and over the job
// channel, and peers without the secret.
#define BOOST_TEST_MODULE dartrun
#include <boost/test/unit_test.hpp>

#include "channel.hpp"
#include "cleanup.hpp"
#include "outcome.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace dartrun;

namespace {

int exited(int code) { return (code & 0xff) << 8; }
int killed(int sig) { return sig & 0x7f; }

// Connects to the channel's spec (its last address: loopback) and sends
// `text`; returns the socket.
int dial(const std::string &spec, const std::string &text) {
  const size_t colon = spec.rfind(':');
  const int port = std::stoi(spec.substr(colon + 1));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
  if (!text.empty()) BOOST_REQUIRE(::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == ssize_t(text.size()));
  return fd;
}

// What the channel answers, within 5 s: "ok\n", or "" when it closed.
std::string answer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 5000) != 1) return "timeout";
  char buf[16];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

const std::string kSecret = "0123456789abcdef0123456789abcdef0123456789abcdef";

}  // namespace

BOOST_AUTO_TEST_CASE(rule) {
  BOOST_TEST(outcome_of({exited(0), exited(0)}) == 0);
  BOOST_TEST(outcome_of({killed(SIGKILL), exited(3), exited(0)}) == 3);
  // SIGKILL is how launchers clean up: another signal is the cause.
  BOOST_TEST(outcome_of({killed(SIGKILL), killed(SIGSEGV)}) == 128 + SIGSEGV);
  BOOST_TEST(outcome_of({killed(SIGKILL), exited(0)}) == 128 + SIGKILL);
  // A signal sent to dartrun wins over everything the job says.
  const std::vector<int> clean{exited(0), exited(0)};
  const std::vector<int> none;
  BOOST_TEST(final_status(SIGTERM, exited(0), &clean, none, 0) == 143);
  BOOST_TEST(final_status(SIGINT, exited(1), nullptr, none, 0) == 130);
  BOOST_TEST(final_status(SIGHUP, exited(0), nullptr, none, 5) == 129);
  // hydra's OR of statuses gives way to the units' statuses, and those to
  // the codes the units reported.
  const std::vector<int> lost{exited(0), killed(SIGHUP)};
  BOOST_TEST(final_status(0, exited(9), &lost, none, 0) == 128 + SIGHUP);
  BOOST_TEST(final_status(0, exited(9), &lost, none, 5) == 5);
  BOOST_TEST(final_status(0, killed(SIGKILL), nullptr, none, 0) == 137);
  BOOST_TEST(final_status(0, exited(2), nullptr, none, 0) == 2);
  // hydra across hosts gives up with 255 and no line: the watchers' view,
  // when it shows a failure; a view of clean exits leaves the 255.
  const std::vector<int> seen{killed(SIGKILL), exited(0)};
  BOOST_TEST(final_status(0, exited(255), nullptr, seen, 0) == 137);
  BOOST_TEST(final_status(0, exited(255), nullptr, clean, 0) == 255);
  BOOST_TEST(final_status(0, exited(0), nullptr, seen, 0) == 0);
}

BOOST_AUTO_TEST_CASE(hydra_line) {
  std::vector<int> v;
  BOOST_TEST(parse_exit_codes("[mpiexec@vm] Exit codes: [vm] 0,9\n[h2] 1280,0\n", &v));
  BOOST_TEST(v == (std::vector<int>{0, 9, 1280, 0}), boost::test_tools::per_element());
  BOOST_TEST(!parse_exit_codes("[mpiexec@vm] something else\n", &v));
  BOOST_TEST(!parse_exit_codes("job output [mpiexec@vm] Exit codes: [vm] 0\n", &v));
  BOOST_TEST(!parse_exit_codes("[mpiexec@vm] Exit codes: [vm] x\n", &v));
}

BOOST_AUTO_TEST_CASE(filter) {
  // The job's output passes byte for byte around hydra's line, which is
  // taken out, also when it arrives in pieces.
  int out[2];
  BOOST_REQUIRE(::pipe(out) == 0);
  StdoutFilter f(-1, false, out[1]);
  const std::string text = "a\n[mpiexec@vm] not it\nb[mpiexec@vm] Exit codes: [vm] 0,256\nc";
  for (char c : text) f.feed(&c, 1);
  f.flush();
  ::close(out[1]);
  char buf[256];
  const ssize_t n = ::read(out[0], buf, sizeof buf);
  ::close(out[0]);
  BOOST_TEST(std::string(buf, static_cast<size_t>(n)) == "a\n[mpiexec@vm] not it\nbc");
  BOOST_TEST(f.have_statuses());
  BOOST_TEST(f.statuses() == (std::vector<int>{0, 256}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(filter_hosts) {
  // Across hosts hydra puts each further host on a line of its own; those
  // lines are taken too, a job line after them is not.
  int out[2];
  BOOST_REQUIRE(::pipe(out) == 0);
  StdoutFilter f(-1, false, out[1]);
  const std::string text =
      "x\n[mpiexec@vm] Exit codes: [10.0.0.1] 0,0\n[10.0.0.2] 9,1280\n[h3] 0\n[tail] not codes\n";
  for (size_t i = 0; i < text.size(); i += 5) f.feed(text.data() + i, std::min<size_t>(5, text.size() - i));
  f.flush();
  ::close(out[1]);
  char buf[256];
  const ssize_t n = ::read(out[0], buf, sizeof buf);
  ::close(out[0]);
  BOOST_TEST(std::string(buf, static_cast<size_t>(n)) == "x\n[tail] not codes\n");
  BOOST_TEST(f.statuses() == (std::vector<int>{0, 0, 9, 1280, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(report_files) {
  const std::string dir = private_dir();
  BOOST_REQUIRE(!dir.empty());
  for (auto [unit, code] : std::vector<std::pair<int, int>>{{3, 7}, {1, 5}, {2, 256}}) {
    std::ofstream(dir + "/exit." + std::to_string(unit)) << code << "\n";
  }
  std::ofstream(dir + "/exit.x") << "9\n";  // not a unit's: removed, not read
  ExitReports r;
  r.read_dir(dir);
  BOOST_TEST(r.first() == 5);  // the lowest unit with a non-zero code
  BOOST_TEST(::rmdir(dir.c_str()) == 0);  // every report was removed
}

BOOST_AUTO_TEST_CASE(channel_reports_and_watchers) {
  JobChannel ch(kSecret);
  std::string spec;
  BOOST_REQUIRE(ch.listen("tcp:127.0.0.1", &spec));
  BOOST_TEST(spec.rfind("tcp:127.0.0.1:", 0) == 0);
  ch.start();
  // Exit reports: answered "ok" once recorded; the lowest unit counts.
  int a = dial(spec, "dartrun-exit-1 " + kSecret + " 4 3\n");
  BOOST_TEST(answer(a) == "ok\n");
  ::close(a);
  a = dial(spec, "dartrun-exit-1 " + kSecret + " 2 5\n");
  BOOST_TEST(answer(a) == "ok\n");
  ::close(a);
  // Wrong secret, garbage: closed without an answer, nothing recorded.
  a = dial(spec, "dartrun-exit-1 " + kSecret.substr(1) + "x 0 9\n");
  BOOST_TEST(answer(a) == "");
  ::close(a);
  a = dial(spec, "GET / HTTP/1.0\n");
  BOOST_TEST(answer(a) == "");
  ::close(a);
  BOOST_TEST(ch.reports().first() == 5);
  // Unit 0's stdin hello.
  a = dial(spec, "dartrun-stdin-1 " + kSecret + " tcp:127.0.0.1:4711\n");
  ::close(a);
  for (int i = 0; i < 500 && ch.stdin_uri().empty(); ++i) ::usleep(10000);
  BOOST_TEST(ch.stdin_uri() == "tcp:127.0.0.1:4711");
  // Units' watchers: a status each (-1: not read), objects removed.
  for (const char *r : {" 3 9 4\n", " 2 -1 0\n", " 1 1280 0\n"}) {
    a = dial(spec, "dartrun-unit-1 " + kSecret + r);
    BOOST_TEST(answer(a) == "ok\n");
    ::close(a);
  }
  a = dial(spec, "dartrun-unit-1 " + kSecret + " 1 70000 0\n");  // not a wait status
  BOOST_TEST(answer(a) == "");
  ::close(a);
  const JobChannel::Stats s = ch.stats();
  BOOST_TEST(s.units_reported == 3u);
  BOOST_TEST(s.objects_removed == 4u);
  BOOST_TEST(s.peers_dropped == 3u);
  BOOST_TEST(ch.observed() == (std::vector<int>{9, 1280}), boost::test_tools::per_element());
  ch.stop();
}

BOOST_AUTO_TEST_CASE(silent_peer_dropped) {
  // A peer that never presents the secret is dropped after 5 s; the
  // channel keeps serving meanwhile.
  JobChannel ch(kSecret);
  std::string spec;
  BOOST_REQUIRE(ch.listen("tcp:127.0.0.1", &spec));
  ch.start();
  const int silent = dial(spec, "");
  int a = dial(spec, "dartrun-exit-1 " + kSecret + " 0 1\n");
  BOOST_TEST(answer(a) == "ok\n");
  ::close(a);
  pollfd p{silent, POLLIN, 0};
  BOOST_TEST(::poll(&p, 1, 8000) == 1);  // closed by the channel
  ::close(silent);
  BOOST_TEST(ch.stats().peers_dropped == 1u);
  BOOST_TEST(ch.reports().first() == 1);
}
