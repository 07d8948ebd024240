// bench_pmix_iof: the PMIx shim's IOF path in one run (issue 7).
//   bench_pmix_iof --push PMIX_PUSH [--size BYTES] [--slow-seconds S]
// 1. Throughput: SIZE bytes from `head -c SIZE /dev/zero` through pmix_push
//    (a tool) to a server in this process whose host takes every chunk at
//    once, against the same producer read through a raw pipe.
// 2. XOFF to last byte: while such a stream runs, the blocking
//    PMIx_server_IOF_flow_control(NULL, stdin, xoff) is called; printed are
//    the time from that call to the last chunk the host gets and the bytes
//    that arrive after the call.
// 3. Memory: a host 1000x slower than the raw pipe (it completes a chunk
//    only after chunk/(raw rate/1000) seconds) is offered 10 MiB and then
//    SIZE; after S seconds each, the server's VmRSS and the tool's VmHWM
//    are printed: they must not depend on what is offered.
#include <pmix_server.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

std::mutex g_mu;
std::condition_variable g_cv;
unsigned long long g_bytes = 0;
bool g_done = false;
Clock::time_point g_first, g_last;
double g_slow_delay = 0;  // seconds per chunk; 0: fast host

pmix_status_t host(const pmix_proc_t*, const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                   const pmix_byte_object_t* bo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  std::lock_guard<std::mutex> l(g_mu);
  auto now = Clock::now();
  if (bo->size == 0) {
    g_done = true;
    g_cv.notify_all();
    return PMIX_OPERATION_SUCCEEDED;
  }
  if (g_bytes == 0) g_first = now;
  g_last = now;
  g_bytes += bo->size;
  g_cv.notify_all();
  if (g_slow_delay > 0) {
    // Complete later, from another thread: the shim reads nothing more
    // from this producer meanwhile.
    std::thread([cbfunc, cbdata] {
      std::this_thread::sleep_for(std::chrono::duration<double>(g_slow_delay));
      cbfunc(PMIX_SUCCESS, cbdata);
    }).detach();
    return PMIX_SUCCESS;
  }
  return PMIX_OPERATION_SUCCEEDED;
}

long status_kib(pid_t pid, const char* key) {
  std::string path = "/proc/" + (pid ? std::to_string(pid) : std::string("self")) + "/status";
  FILE* f = std::fopen(path.c_str(), "r");
  long kib = -1;
  if (!f) return kib;
  char line[256];
  std::string fmt = std::string(key) + ": %ld";
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, fmt.c_str(), &kib) == 1) break;
  std::fclose(f);
  return kib;
}

// head -c SIZE /dev/zero | PUSH --server URI --secret S
struct Pipeline {
  pid_t producer = -1, tool = -1;
  void start(const std::string& push, unsigned long long size, const std::string& uri, const std::string& secret) {
    int p[2];
    if (::pipe(p) != 0) std::exit(1);
    std::string n = std::to_string(size);
    producer = ::fork();
    if (producer == 0) {
      ::dup2(p[1], 1);
      ::close(p[0]);
      ::close(p[1]);
      ::execlp("head", "head", "-c", n.c_str(), "/dev/zero", (char*)nullptr);
      ::_exit(127);
    }
    tool = ::fork();
    if (tool == 0) {
      ::dup2(p[0], 0);
      ::close(p[0]);
      ::close(p[1]);
      ::execl(push.c_str(), push.c_str(), "--server", uri.c_str(), "--secret", secret.c_str(), (char*)nullptr);
      ::_exit(127);
    }
    ::close(p[0]);
    ::close(p[1]);
  }
  void stop() {
    if (tool > 0) ::kill(tool, SIGTERM);
    if (producer > 0) ::kill(producer, SIGTERM);
    wait();
  }
  void wait() {
    if (tool > 0) ::waitpid(tool, nullptr, 0);
    if (producer > 0) ::waitpid(producer, nullptr, 0);
    tool = producer = -1;
  }
};

void reset() {
  std::lock_guard<std::mutex> l(g_mu);
  g_bytes = 0;
  g_done = false;
}

double raw_pipe(unsigned long long size) {
  std::string cmd = "head -c " + std::to_string(size) + " /dev/zero";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::vector<char> buf(1 << 20);
  unsigned long long got = 0;
  Clock::time_point first{};
  for (;;) {
    ssize_t n = ::read(fileno(p), buf.data(), buf.size());
    if (n <= 0) break;
    if (!got) first = Clock::now();
    got += static_cast<unsigned long long>(n);
  }
  double secs = std::chrono::duration<double>(Clock::now() - first).count();
  ::pclose(p);
  return got / secs / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::string push;
  unsigned long long size = 1ull << 30;
  double slow_seconds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--push") push = argv[i + 1];
    else if (a == "--size") size = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--slow-seconds") slow_seconds = std::atof(argv[i + 1]);
  }
  if (push.empty()) {
    std::fprintf(stderr, "usage: bench_pmix_iof --push PMIX_PUSH [--size BYTES] [--slow-seconds S]\n");
    return 2;
  }
  ::signal(SIGPIPE, SIG_IGN);
  pmix_server_module_t module{};
  module.push_stdin = host;
  if (PMIx_server_init(&module, nullptr, 0) != PMIX_SUCCESS) return 1;
  char uri[512], secret[256];
  pmixshim_server_contact(uri, sizeof uri, secret, sizeof secret);

  // 1. throughput
  const double raw = raw_pipe(size);
  Pipeline pl;
  reset();
  pl.start(push, size, uri, secret);
  {
    std::unique_lock<std::mutex> l(g_mu);
    g_cv.wait(l, [] { return g_done; });
  }
  pl.wait();
  double secs = std::chrono::duration<double>(g_last - g_first).count();
  double shim = g_bytes / secs / 1e6;
  std::printf("bench_pmix_iof: throughput %llu bytes: raw pipe %.1f MB/s, tool->server %.1f MB/s, ratio %.2f\n", size,
              raw, shim, shim / raw);

  // 2. XOFF to the last byte
  reset();
  pl.start(push, size, uri, secret);
  {
    std::unique_lock<std::mutex> l(g_mu);
    g_cv.wait(l, [&] { return g_bytes >= size / 10 || g_done; });
  }
  unsigned long long at_xoff;
  auto t_xoff = Clock::now();
  {
    std::lock_guard<std::mutex> l(g_mu);
    at_xoff = g_bytes;
  }
  PMIx_server_IOF_flow_control(nullptr, PMIX_FWD_STDIN_CHANNEL, true, nullptr, 0, nullptr, nullptr);
  const double call_ms = std::chrono::duration<double>(Clock::now() - t_xoff).count() * 1e3;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  unsigned long long after;
  double to_last;
  {
    std::lock_guard<std::mutex> l(g_mu);
    after = g_bytes - at_xoff;
    to_last = std::chrono::duration<double>(g_last - t_xoff).count();
  }
  // to_last <= 0: the chunk in the host's hands when XOFF was called was
  // the last one (nothing was read from the producer after the call).
  std::printf(
      "bench_pmix_iof: XOFF call %.3f ms; last byte %.3f ms after the call (<= 0: none after it), "
      "%llu bytes after the call\n",
      call_ms, to_last * 1e3, after);
  PMIx_server_IOF_flow_control(nullptr, PMIX_FWD_STDIN_CHANNEL, false, nullptr, 0, nullptr, nullptr);
  {
    std::unique_lock<std::mutex> l(g_mu);
    g_cv.wait(l, [] { return g_done; });
  }
  pl.wait();

  // 3. memory with a host 1000x slower than the raw pipe
  g_slow_delay = 131072.0 / (raw * 1e6 / 1000.0);
  for (unsigned long long offered : {10ull << 20, size}) {
    reset();
    pl.start(push, offered, uri, secret);
    std::this_thread::sleep_for(std::chrono::duration<double>(slow_seconds));
    long tool_hwm = status_kib(pl.tool, "VmHWM");
    long srv_rss = status_kib(0, "VmRSS");
    unsigned long long got;
    {
      std::lock_guard<std::mutex> l(g_mu);
      got = g_bytes;
    }
    pl.stop();
    std::printf(
        "bench_pmix_iof: slow host (%.0f ms per 128 KiB chunk), %llu bytes offered: %llu delivered in %.0f s, "
        "server VmRSS %ld KiB, tool VmHWM %ld KiB\n",
        g_slow_delay * 1e3, offered, got, slow_seconds, srv_rss, tool_hwm);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(g_slow_delay * 2));  // pending completions
  PMIx_server_finalize();
  pmixshim_iof_stats_t s{};
  pmixshim_get_iof_stats(&s);
  std::printf("bench_pmix_iof: server xoff=%llu xon=%llu\nbench_pmix_iof: done\n",
              static_cast<unsigned long long>(s.xoff), static_cast<unsigned long long>(s.xon));
  return 0;
}
