// Covers, in one process: the headers' constants; every return code of
// PMIx_server_IOF_flow_control (before init, wrong channel, blocking and
// non-blocking success, engine stopping, after finalize); the server reading
// a descriptor on its own behalf (pipe and regular file, and its own fd 0
// through PMIx_IOF_push as OpenPMIx servers ask for it) with XOFF by the API
// and by the push_stdin status, the read proven un-armed (the bytes stay in
// the pipe); named and wildcard sources on the own stream; finalize while
// suspended; PMIX_ERR_WOULD_BLOCK from every upcall context; the progress
// thread stopped by finalize.  XOFF and XON counts are compared at the end
// of every test.  Tools and other processes: test_pmix_tools.cpp.
#define BOOST_TEST_MODULE pmix_shim_server
#include <dirent.h>

#include "shim_test_util.hpp"

using namespace shimtest;

namespace {

constexpr size_t kPipeCap = 65536;

int thread_count() {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  while (dirent *e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

void check_paired() {
  auto s = stats();
  BOOST_TEST(s.xoff == s.xon, "XOFF count " << s.xoff << " != XON count " << s.xon);
}

// Runs a server reading one pipe fed by a writer thread.
struct OwnPipe {
  int fds[2];
  std::unique_ptr<Writer> writer;
  std::atomic<int> done_status{1};
  std::atomic<int> done_calls{0};
  size_t total;
  // gate: the writer pauses after that many bytes until go(), so the
  // stream is certainly not finished when the test acts.
  OwnPipe(size_t n, uint32_t seed, size_t gate = 0) : total(n) {
    BOOST_REQUIRE_EQUAL(pipe(fds), 0);
    BOOST_REQUIRE_EQUAL(fcntl(fds[0], F_SETPIPE_SZ, static_cast<int>(kPipeCap)), static_cast<int>(kPipeCap));
    writer = std::make_unique<Writer>(fds[1], n, seed, 65536, gate);
  }
  void go() { writer->open(); }
  void start() {
    BOOST_REQUIRE_EQUAL(pmixshim_server_read_stdin(
                            fds[0], nullptr, 0,
                            [](pmix_status_t st, void *cb) {
                              auto *self = static_cast<OwnPipe *>(cb);
                              self->done_status = st;
                              self->done_calls++;
                            },
                            this),
                        PMIX_SUCCESS);
  }
  ~OwnPipe() {
    writer->open();
    ::close(fds[0]);
    writer.reset();
  }
};

const char *kSelf = "srv-ns";

void start_named_server(Host &h) {
  g_host = &h;
  pmix_server_module_t m{};
  m.push_stdin = host_push_stdin;
  pmix_info_t info[2];
  PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, kSelf, PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_SHIM_LISTEN, "none", PMIX_STRING);
  pmix_status_t rc = PMIx_server_init(&m, info, 2);
  for (pmix_info_t &i : info) PMIX_INFO_DESTRUCT(&i);
  BOOST_REQUIRE_EQUAL(rc, PMIX_SUCCESS);
}

const std::string kSelfKey = std::string(kSelf) + ":0";

}  // namespace

BOOST_AUTO_TEST_CASE(constants_have_the_standard_values) {
  static_assert(PMIX_SUCCESS == 0 && PMIX_OPERATION_SUCCEEDED == -157 && PMIX_ERR_NOT_SUPPORTED == -47 &&
                PMIX_ERR_NOMEM == -32 && PMIX_ERR_NOT_AVAILABLE == -64 && PMIX_ERR_INIT == -31 &&
                PMIX_ERR_WOULD_BLOCK == -15 && PMIX_ERR_IOF_FAILURE == -172 && PMIX_ERR_BAD_PARAM == -27);
  static_assert(PMIX_FWD_STDIN_CHANNEL == 1 && PMIX_FWD_STDOUT_CHANNEL == 2 && PMIX_FWD_STDERR_CHANNEL == 4);
  static_assert(PMIX_RANK_WILDCARD == UINT32_MAX - 1 && sizeof(pmix_nspace_t) == 256);
  static_assert(PMIX_CAP_IOF_FLOW_CONTROL);
  // OpenPMIx 7's value (test_pmix_compat checks the rest against OpenPMIx).
  static_assert(PMIX_ERR_IOF_XOFF == -405);
  BOOST_TEST(std::string(PMIx_Error_string(PMIX_ERR_IOF_XOFF)) == "ERR-IOF-XOFF");
}

BOOST_AUTO_TEST_CASE(return_codes_before_init_and_after_finalize) {
  BOOST_TEST(flow(nullptr, 0, true) == PMIX_ERR_INIT);
  BOOST_TEST(PMIx_server_IOF_flow_control(
                 nullptr, PMIX_FWD_STDIN_CHANNEL, true, nullptr, 0, [](pmix_status_t, void *) {}, nullptr) ==
             PMIX_ERR_INIT);
  BOOST_TEST(pmixshim_server_read_stdin(0, nullptr, 0, nullptr, nullptr) == PMIX_ERR_INIT);
  BOOST_TEST(PMIx_server_finalize() == PMIX_ERR_INIT);
  Host h;
  start_server(h);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  BOOST_TEST(flow(nullptr, 0, true) == PMIX_ERR_INIT);
  BOOST_TEST(stats().engine_running == 0u);
}

BOOST_AUTO_TEST_CASE(return_codes_while_running) {
  Host h;
  start_server(h);
  pmix_server_module_t m{};
  BOOST_TEST(PMIx_server_init(&m, nullptr, 0) == PMIX_ERR_INIT);  // twice
  BOOST_TEST(PMIx_server_IOF_flow_control(nullptr, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, true, nullptr, 0,
                                          nullptr, nullptr) == PMIX_ERR_NOT_SUPPORTED);
  BOOST_TEST(PMIx_server_IOF_flow_control(nullptr, PMIX_FWD_STDIN_CHANNEL, true, nullptr, 2, nullptr, nullptr) ==
             PMIX_ERR_BAD_PARAM);
  // Blocking form, NULL source and a named source producing nothing.
  BOOST_TEST(flow(nullptr, 0, true) == PMIX_OPERATION_SUCCEEDED);
  BOOST_TEST(flow("nobody", 3, true) == PMIX_OPERATION_SUCCEEDED);
  BOOST_TEST(flow(nullptr, 0, false) == PMIX_OPERATION_SUCCEEDED);
  // XON of a stream never suspended: no-op.
  BOOST_TEST(flow("nobody", 3, false) == PMIX_OPERATION_SUCCEEDED);
  // Non-blocking: SUCCESS now, the callback later with SUCCESS; the
  // directives stay ours until then.
  std::atomic<int> cb_status{1}, calls{0};
  pmix_info_t dir;
  bool t = true;
  PMIX_INFO_LOAD(&dir, "some.directive", &t, PMIX_BOOL);
  struct Ctx {
    std::atomic<int> *st, *n;
  } ctx{&cb_status, &calls};
  BOOST_TEST(PMIx_server_IOF_flow_control(
                 nullptr, PMIX_FWD_ALL_CHANNELS, true, &dir, 1,
                 [](pmix_status_t st, void *cb) {
                   auto *c = static_cast<Ctx *>(cb);
                   *c->st = st;
                   (*c->n)++;
                 },
                 &ctx) == PMIX_SUCCESS);
  BOOST_TEST(wait_until([&] { return calls.load() == 1; }));
  BOOST_TEST(cb_status.load() == PMIX_SUCCESS);
  BOOST_TEST(flow(nullptr, 0, false) == PMIX_OPERATION_SUCCEEDED);
  PMIX_INFO_DESTRUCT(&dir);
  // Nothing produced: nothing suspended, nothing counted.
  BOOST_TEST(stats().xoff == 0u);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_paired();
}

BOOST_AUTO_TEST_CASE(own_read_is_unarmed_while_suspended_by_the_api) {
  Host h;
  start_named_server(h);
  const size_t total = 4u << 20;
  {
    OwnPipe in(total, 1, 2u << 20);
    in.start();
    BOOST_REQUIRE(wait_until([&] { return h.size(kSelfKey) >= (1u << 20); }));
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
    in.go();
    size_t held = h.size(kSelfKey);
    // Un-armed: the writer fills the pipe and stalls; every byte not
    // delivered is still in the pipe, readable by its owner.
    BOOST_REQUIRE(wait_until([&] { return pipe_pending(in.fds[0]) == static_cast<int>(kPipeCap); }));
    BOOST_TEST(h.size(kSelfKey) == held);
    // The writer counts a write after its syscall returns, so its count
    // may trail the full pipe for a moment.
    BOOST_TEST(wait_until([&] { return held + kPipeCap == in.writer->written.load(); }),
               "written " << in.writer->written.load() << " != delivered " << held << " + pipe " << kPipeCap);
    BOOST_TEST(stats().xoff == 1u);
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
    BOOST_REQUIRE(wait_until([&] { return in.done_calls.load() == 1; }));
    BOOST_TEST(in.done_status.load() == PMIX_SUCCESS);
    auto got = h.get(kSelfKey);
    BOOST_TEST(got.size() == total);
    BOOST_TEST(first_mismatch(got, 1) == std::string::npos);
    BOOST_TEST(h.ended(kSelfKey) == 1);
  }
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  auto s = stats();
  BOOST_TEST(s.xoff == 1u);
  BOOST_TEST(s.xon == 1u);
}

BOOST_AUTO_TEST_CASE(xoff_by_push_stdin_status_delivers_then_suspends) {
  for (bool async : {false, true}) {
    Host h;
    h.async = async;
    std::atomic<bool> fired{false};
    h.decide = [&](const pmix_proc_t &, size_t) {
      // Say "taken, stop" once, after 1 MiB.
      if (!fired && h.size(kSelfKey) >= (1u << 20)) {
        fired = true;
        return PMIX_ERR_IOF_XOFF;
      }
      return PMIX_SUCCESS;
    };
    start_named_server(h);
    const size_t total = 3u << 20;
    {
      OwnPipe in(total, 2);
      in.start();
      BOOST_REQUIRE(wait_until([&] { return fired.load(); }));
      BOOST_REQUIRE(wait_until([&] { return stats().xoff == 1u; }));
      size_t held = h.size(kSelfKey);
      BOOST_REQUIRE(wait_until([&] { return pipe_pending(in.fds[0]) == static_cast<int>(kPipeCap); }));
      BOOST_TEST(h.size(kSelfKey) == held);  // the XOFF chunk itself was delivered; nothing after
      BOOST_TEST(wait_until([&] { return held + kPipeCap == in.writer->written.load(); }),
                 "written " << in.writer->written.load() << " != delivered " << held << " + pipe " << kPipeCap);
      // No status resumes; only the API does.
      BOOST_REQUIRE_EQUAL(flow(kSelf, 0, false), PMIX_OPERATION_SUCCEEDED);
      BOOST_REQUIRE(wait_until([&] { return in.done_calls.load() == 1; }));
      auto got = h.get(kSelfKey);
      BOOST_TEST(got.size() == total);
      BOOST_TEST(first_mismatch(got, 2) == std::string::npos);
    }
    BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
    check_paired();
  }
}

BOOST_AUTO_TEST_CASE(named_and_wildcard_sources_on_the_own_stream) {
  Host h;
  start_named_server(h);
  {
    OwnPipe in(2u << 20, 3, 1u << 20);
    in.start();
    BOOST_REQUIRE(wait_until([&] { return h.size(kSelfKey) >= 4096; }));
    // Another producer's name reaches nobody.
    BOOST_TEST(flow("other", 0, true) == PMIX_OPERATION_SUCCEEDED);
    BOOST_TEST(flow(kSelf, 7, true) == PMIX_OPERATION_SUCCEEDED);
    BOOST_TEST(stats().xoff == 0u);
    BOOST_TEST(flow(kSelf, 0, true) == PMIX_OPERATION_SUCCEEDED);
    in.go();
    BOOST_TEST(stats().xoff == 1u);
    BOOST_TEST(flow(kSelf, 0, true) == PMIX_OPERATION_SUCCEEDED);  // already suspended
    BOOST_TEST(stats().xoff == 1u);
    // A wildcard rank in our nspace resumes it.
    BOOST_TEST(flow(kSelf, PMIX_RANK_WILDCARD, false) == PMIX_OPERATION_SUCCEEDED);
    BOOST_REQUIRE(wait_until([&] { return in.done_calls.load() == 1; }));
    BOOST_TEST(first_mismatch(h.get(kSelfKey), 3) == std::string::npos);
    BOOST_TEST(h.size(kSelfKey) == (2u << 20));
  }
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_paired();
}

// A server alone reads its own stdin the way an OpenPMIx server asks for
// it: PMIx_IOF_push with no targets, no buffer and PMIX_IOF_PUSH_STDIN
// loaded from NULL.  The blocking form returns once the read is set up
// (the writer is held at 1 MiB, so the stream cannot have ended), the
// bytes reach push_stdin in order, XOFF stops the read, XON resumes it.
BOOST_AUTO_TEST_CASE(server_alone_push_stdin_reads_fd_0_in_openpmix_form) {
  Host h;
  start_named_server(h);
  const size_t total = 3u << 20;
  int fds[2];
  BOOST_REQUIRE_EQUAL(pipe(fds), 0);
  BOOST_REQUIRE_EQUAL(fcntl(fds[0], F_SETPIPE_SZ, static_cast<int>(kPipeCap)), static_cast<int>(kPipeCap));
  const int saved0 = ::dup(0);
  BOOST_REQUIRE(saved0 >= 0);
  BOOST_REQUIRE_EQUAL(::dup2(fds[0], 0), 0);
  ::close(fds[0]);
  {
    Writer w(fds[1], total, 9, 65536, 1u << 20);
    pmix_info_t dir;
    PMIX_INFO_LOAD(&dir, PMIX_IOF_PUSH_STDIN, NULL, PMIX_BOOL);
    pmix_status_t rc = PMIx_IOF_push(nullptr, 0, nullptr, &dir, 1, nullptr, nullptr);
    PMIX_INFO_DESTRUCT(&dir);
    BOOST_TEST((rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED), "PMIx_IOF_push returned " << rc);
    BOOST_TEST(h.ended(kSelfKey) == 0, "the blocking form waited for the end of the stream");
    BOOST_REQUIRE(wait_until([&] { return h.size(kSelfKey) == (1u << 20); }));
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
    w.open();
    BOOST_REQUIRE(wait_until([&] { return pipe_pending(0) == static_cast<int>(kPipeCap); }));
    BOOST_TEST(h.size(kSelfKey) == (1u << 20));
    BOOST_REQUIRE_EQUAL(flow(nullptr, 0, false), PMIX_OPERATION_SUCCEEDED);
    BOOST_REQUIRE(wait_until([&] { return h.ended(kSelfKey) == 1; }, 30s));
  }
  auto got = h.get(kSelfKey);
  BOOST_TEST(got.size() == total);
  BOOST_TEST(first_mismatch(got, 9) == std::string::npos);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  check_paired();
  BOOST_TEST(stats().xoff == 1u);
  BOOST_REQUIRE_EQUAL(::dup2(saved0, 0), 0);
  ::close(saved0);
}

BOOST_AUTO_TEST_CASE(regular_file_is_read_and_suspended_too) {
  std::string path = tmp_path("file");
  const size_t total = 3u << 20;
  {
    auto v = make_pattern(total, 4);
    FILE *f = std::fopen(path.c_str(), "w");
    BOOST_REQUIRE(f);
    std::fwrite(v.data(), 1, v.size(), f);
    std::fclose(f);
  }
  int fd = ::open(path.c_str(), O_RDONLY);
  Host h;
  std::atomic<int> n{0};
  h.decide = [&](const pmix_proc_t &, size_t) { return ++n == 5 ? PMIX_ERR_IOF_XOFF : PMIX_SUCCESS; };
  start_named_server(h);
  std::atomic<int> done{0};
  BOOST_REQUIRE_EQUAL(
      pmixshim_server_read_stdin(
          fd, nullptr, 0, [](pmix_status_t, void *d) { static_cast<std::atomic<int> *>(d)->fetch_add(1); }, &done),
      PMIX_SUCCESS);
  BOOST_REQUIRE(wait_until([&] { return stats().xoff == 1u; }));
  size_t held = h.size(kSelfKey);
  off_t pos = lseek(fd, 0, SEEK_CUR);
  BOOST_TEST(static_cast<size_t>(pos) == held);  // nothing read beyond what was delivered
  BOOST_TEST(flow(nullptr, 0, false) == PMIX_OPERATION_SUCCEEDED);
  BOOST_REQUIRE(wait_until([&] { return done.load() == 1; }));
  BOOST_TEST(h.size(kSelfKey) == total);
  BOOST_TEST(first_mismatch(h.get(kSelfKey), 4) == std::string::npos);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  ::close(fd);
  ::unlink(path.c_str());
  check_paired();
}

BOOST_AUTO_TEST_CASE(finalize_while_suspended_pairs_the_counts_and_restores_the_descriptor) {
  Host h;
  start_named_server(h);
  OwnPipe in(1u << 20, 5, 256 * 1024);
  int flags_before = fcntl(in.fds[0], F_GETFL);
  in.start();
  BOOST_REQUIRE(wait_until([&] { return h.size(kSelfKey) >= 4096; }));
  BOOST_REQUIRE_EQUAL(flow(nullptr, 0, true), PMIX_OPERATION_SUCCEEDED);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  auto s = stats();
  BOOST_TEST(s.xoff == 1u);
  BOOST_TEST(s.xon == 1u);
  BOOST_TEST(s.xon_on_close == 1u);
  BOOST_TEST(in.done_calls.load() == 1);
  BOOST_TEST(in.done_status.load() == PMIX_ERR_NOT_AVAILABLE);
  BOOST_TEST(fcntl(in.fds[0], F_GETFL) == flags_before);
  // Let the writer finish: drain what is left.
  in.go();
  std::vector<char> sink(65536);
  while (::read(in.fds[0], sink.data(), sink.size()) > 0) {
  }
}

BOOST_AUTO_TEST_CASE(not_available_once_the_engine_is_stopping) {
  Host h;
  std::mutex latch_mu;
  std::condition_variable latch_cv;
  bool release = false;
  std::atomic<bool> in_upcall{false};
  // The first upcall holds the progress thread until released.
  h.hook = [&] {
    if (in_upcall.exchange(true)) return;
    std::unique_lock<std::mutex> l(latch_mu);
    latch_cv.wait_for(l, 20s, [&] { return release; });
  };
  start_named_server(h);
  OwnPipe in(256 * 1024, 6);
  in.start();
  BOOST_REQUIRE(wait_until([&] { return in_upcall.load(); }));
  std::thread fin([] { BOOST_CHECK_EQUAL(PMIx_server_finalize(), PMIX_SUCCESS); });
  std::atomic<int> accepted_cb{0};
  auto cb = [](pmix_status_t, void *d) { static_cast<std::atomic<int> *>(d)->fetch_add(1); };
  int accepted = 0;
  pmix_status_t rc = PMIX_SUCCESS;
  BOOST_REQUIRE(wait_until([&] {
    rc = PMIx_server_IOF_flow_control(nullptr, PMIX_FWD_STDIN_CHANNEL, false, nullptr, 0, cb, &accepted_cb);
    if (rc == PMIX_SUCCESS) ++accepted;
    return rc != PMIX_SUCCESS;
  }));
  BOOST_TEST(rc == PMIX_ERR_NOT_AVAILABLE);
  BOOST_TEST(flow(nullptr, 0, true) == PMIX_ERR_NOT_AVAILABLE);
  {
    std::lock_guard<std::mutex> l(latch_mu);
    release = true;
  }
  latch_cv.notify_all();
  fin.join();
  // Every request accepted before the stop was applied and called back.
  BOOST_TEST(accepted_cb.load() == accepted);
  BOOST_TEST(flow(nullptr, 0, true) == PMIX_ERR_INIT);
  check_paired();
  std::vector<char> sink(65536);
  while (::read(in.fds[0], sink.data(), sink.size()) > 0) {
  }
}

namespace {

// Every blocking entry point, called where it must not block.  Returns the
// codes; none may have done anything.
std::vector<pmix_status_t> all_blocking_calls() {
  std::vector<pmix_status_t> rc;
  rc.push_back(PMIx_server_IOF_flow_control(nullptr, PMIX_FWD_STDIN_CHANNEL, true, nullptr, 0, nullptr, nullptr));
  rc.push_back(pmixshim_server_read_stdin(0, nullptr, 0, nullptr, nullptr));
  rc.push_back(PMIx_server_finalize());
  pmix_server_module_t m{};
  rc.push_back(PMIx_server_init(&m, nullptr, 0));
  rc.push_back(PMIx_tool_init(nullptr, nullptr, 0));
  rc.push_back(PMIx_tool_finalize());
  return rc;
}

struct Capture {
  // Redirects stderr into a file so the diagnostics can be checked.
  std::string path = tmp_path("stderr");
  int saved = dup(2);
  Capture() {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    ::close(fd);
  }
  std::string done() {
    dup2(saved, 2);
    ::close(saved);
    std::string s = slurp(path);
    ::unlink(path.c_str());
    return s;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(would_block_from_every_upcall_context) {
  Host h;
  std::vector<pmix_status_t> in_push, in_op_cb, in_read_cb;
  std::atomic<bool> pushed{false};
  h.hook = [&] {
    if (!pushed.exchange(true)) in_push = all_blocking_calls();
  };
  start_named_server(h);
  Capture cap;
  int fds[2];
  BOOST_REQUIRE_EQUAL(pipe(fds), 0);
  BOOST_REQUIRE_EQUAL(::write(fds[1], "abc", 3), 3);
  ::close(fds[1]);
  struct Ctx {
    std::vector<pmix_status_t> *out;
    std::atomic<int> calls{0};
  } read_ctx{&in_read_cb, {}}, op_ctx{&in_op_cb, {}};
  auto grab = [](pmix_status_t, void *d) {
    auto *c = static_cast<Ctx *>(d);
    *c->out = all_blocking_calls();
    c->calls++;
  };
  BOOST_REQUIRE_EQUAL(pmixshim_server_read_stdin(fds[0], nullptr, 0, grab, &read_ctx), PMIX_SUCCESS);
  BOOST_REQUIRE(wait_until([&] { return read_ctx.calls.load() == 1; }));
  BOOST_REQUIRE_EQUAL(PMIx_server_IOF_flow_control(nullptr, PMIX_FWD_STDIN_CHANNEL, false, nullptr, 0, grab, &op_ctx),
                      PMIX_SUCCESS);
  BOOST_REQUIRE(wait_until([&] { return op_ctx.calls.load() == 1; }));
  std::string diag = cap.done();
  for (auto *v : {&in_push, &in_op_cb, &in_read_cb}) {
    BOOST_REQUIRE_EQUAL(v->size(), 6u);
    for (pmix_status_t rc : *v) BOOST_TEST(rc == PMIX_ERR_WOULD_BLOCK);
  }
  // Nothing was done: the server still runs, nothing was suspended, no
  // callback ran more than once.
  BOOST_TEST(stats().xoff == 0u);
  BOOST_TEST(stats().engine_running == 1u);
  BOOST_TEST(read_ctx.calls.load() == 1);
  BOOST_TEST(op_ctx.calls.load() == 1);
  BOOST_TEST(h.get(kSelfKey).size() == 3u);
  for (const char *call : {"PMIx_server_IOF_flow_control", "pmixshim_server_read_stdin", "PMIx_server_finalize",
                           "PMIx_server_init", "PMIx_tool_init", "PMIx_tool_finalize"})
    BOOST_TEST(
        diag.find(std::string(call) + ": error: blocking call made on the PMIx progress thread") != std::string::npos,
        "no diagnostic naming " << call);
  // The non-blocking form is the way out, and works from there.
  std::atomic<int> nb{0};
  std::atomic<int> nb_rc{1};
  // (Boost.Test is not thread-safe: record here, check on this thread.)
  h.hook = [&] {
    nb_rc = PMIx_server_IOF_flow_control(
        nullptr, PMIX_FWD_STDIN_CHANNEL, false, nullptr, 0,
        [](pmix_status_t, void *d) { static_cast<std::atomic<int> *>(d)->fetch_add(1); }, &nb);
  };
  int fds2[2];
  BOOST_REQUIRE_EQUAL(pipe(fds2), 0);
  BOOST_REQUIRE_EQUAL(::write(fds2[1], "d", 1), 1);
  ::close(fds2[1]);
  BOOST_REQUIRE_EQUAL(pmixshim_server_read_stdin(
                          fds2[0], nullptr, 0, [](pmix_status_t, void *) {}, nullptr),
                      PMIX_SUCCESS);
  BOOST_TEST(wait_until([&] { return nb.load() >= 1; }));
  BOOST_TEST(nb_rc.load() == PMIX_SUCCESS);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  ::close(fds[0]);
  ::close(fds2[0]);
  check_paired();
}

BOOST_AUTO_TEST_CASE(finalize_stops_the_progress_thread) {
  int before = thread_count();
  Host h;
  start_server(h);
  BOOST_TEST(thread_count() == before + 1);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  // The thread is joined when finalize returns, but the kernel may list
  // an exited thread in /proc/self/task for a moment after the join.
  BOOST_TEST(wait_until([&] { return thread_count() == before; }));
  BOOST_TEST(stats().engine_running == 0u);
}
