// Helpers shared by the PMIx shim tests: position-dependent byte patterns,
// a recording host module, pipes with writer threads, child processes, and
// bounded waits (every wait has a deadline; nothing sleeps and hopes).
#pragma once

#include <pmix_server.h>
#include <pmix_tool.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

namespace shimtest {

using namespace std::chrono_literals;

// Byte i of stream `seed`: depends on the position, so a lost, duplicated
// or reordered byte shows up as a mismatch at a known offset.
inline unsigned char pattern(uint64_t i, uint32_t seed) {
  uint64_t x = (i + 0x1000u * seed + 1) * 0x9E3779B97F4A7C15ull;
  return static_cast<unsigned char>(x >> 56);
}

inline std::vector<unsigned char> make_pattern(size_t n, uint32_t seed, uint64_t from = 0) {
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = pattern(from + i, seed);
  return v;
}

// Index of the first byte that is not the pattern, or npos.
inline size_t first_mismatch(const std::vector<unsigned char> &v, uint32_t seed) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != pattern(i, seed)) return i;
  return std::string::npos;
}

// Polls pred until it holds or the deadline passes.
inline bool wait_until(const std::function<bool()> &pred, std::chrono::milliseconds limit = 10s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

inline pmixshim_iof_stats_t stats() {
  pmixshim_iof_stats_t s;
  pmixshim_get_iof_stats(&s);
  return s;
}

inline std::string key(const pmix_proc_t &p) { return std::string(p.nspace) + ":" + std::to_string(p.rank); }

// The host module: records every chunk per source.  `decide` picks each
// completion status (default PMIX_SUCCESS); `hook` runs inside push_stdin
// on the progress thread (used by the WOULD_BLOCK tests).
struct Host {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, std::vector<unsigned char>> data;
  std::map<std::string, int> ends;
  std::map<std::string, int> abnormal_ends;
  std::atomic<uint64_t> chunks{0};
  std::function<pmix_status_t(const pmix_proc_t &, size_t)> decide;
  std::function<void()> hook;
  bool async = false;  // complete through cbfunc from another thread

  std::vector<unsigned char> get(const std::string &k) {
    std::lock_guard<std::mutex> l(mu);
    return data[k];
  }
  size_t size(const std::string &k) {
    std::lock_guard<std::mutex> l(mu);
    return data[k].size();
  }
  int ended(const std::string &k) {
    std::lock_guard<std::mutex> l(mu);
    return ends[k];
  }
};

inline Host *g_host = nullptr;

// Writers into pipes whose reader died must see EPIPE, not be killed.
inline const bool g_sigpipe_ignored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

inline pmix_status_t host_push_stdin(const pmix_proc_t *source, const pmix_proc_t[], size_t, const pmix_info_t dirs[],
                                     size_t ndirs, const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                     void *cbdata) {
  Host &h = *g_host;
  std::string k = key(*source);
  pmix_status_t st = PMIX_SUCCESS;
  {
    std::lock_guard<std::mutex> l(h.mu);
    if (bo->size == 0) {
      h.ends[k]++;
      for (size_t i = 0; i < ndirs; ++i)
        if (std::strcmp(dirs[i].key, PMIX_SHIM_IOF_ABNORMAL_END) == 0 && dirs[i].value.data.flag) h.abnormal_ends[k]++;
    } else {
      h.data[k].insert(h.data[k].end(), bo->bytes, bo->bytes + bo->size);
      h.chunks++;
    }
  }
  if (h.decide && bo->size) st = h.decide(*source, bo->size);
  if (h.hook) h.hook();
  h.cv.notify_all();
  if (h.async) {
    std::thread([cbfunc, cbdata, st] { cbfunc(st, cbdata); }).detach();
    return PMIX_SUCCESS;
  }
  return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
}

// Starts a server with the recording host; listens on a private Unix socket.
inline void start_server(Host &h, const char *listen = "unix", const char *secret = nullptr) {
  g_host = &h;
  pmix_server_module_t m{};
  m.push_stdin = host_push_stdin;
  std::vector<pmix_info_t> info(1);
  PMIX_INFO_LOAD(&info[0], PMIX_SHIM_LISTEN, listen, PMIX_STRING);
  if (secret) {
    info.resize(2);
    PMIX_INFO_LOAD(&info[1], PMIX_SHIM_SECRET, secret, PMIX_STRING);
  }
  pmix_status_t rc = PMIx_server_init(&m, info.data(), info.size());
  for (pmix_info_t &i : info) PMIX_INFO_DESTRUCT(&i);
  BOOST_REQUIRE_EQUAL(rc, PMIX_SUCCESS);
}

inline std::pair<std::string, std::string> contact() {
  char uri[512], secret[256];
  BOOST_REQUIRE_EQUAL(pmixshim_server_contact(uri, sizeof uri, secret, sizeof secret), PMIX_SUCCESS);
  return {uri, secret};
}

inline pmix_status_t flow(const char *ns, pmix_rank_t rank, bool xoff) {
  pmix_proc_t p;
  PMIX_LOAD_PROCID(&p, ns, rank);
  return PMIx_server_IOF_flow_control(ns ? &p : nullptr, PMIX_FWD_STDIN_CHANNEL, xoff, nullptr, 0, nullptr, nullptr);
}

// Bytes waiting in a pipe (readable by whoever holds its read end).
inline int pipe_pending(int fd) {
  int n = 0;
  ioctl(fd, FIONREAD, &n);
  return n;
}

// Writes `total` pattern bytes into fd from a thread, then closes fd.  With
// a gate, it pauses after `gate` bytes until open() (bounded), so a test can
// act while the producer is certainly mid-stream.
struct Writer {
  std::thread th;
  std::atomic<uint64_t> written{0};
  std::atomic<bool> opened{false};
  void open() { opened = true; }
  Writer(int fd, size_t total, uint32_t seed, size_t piece = 65536, size_t gate = 0) {
    th = std::thread([this, fd, total, seed, piece, gate] {
      std::vector<unsigned char> buf;
      size_t off = 0;
      while (off < total) {
        if (gate && off >= gate) wait_until([this] { return opened.load(); }, 30s);
        size_t n = std::min(piece, total - off);
        buf = make_pattern(n, seed, off);
        size_t done = 0;
        while (done < n) {
          ssize_t w = ::write(fd, buf.data() + done, n - done);
          if (w <= 0) {
            ::close(fd);
            return;
          }
          done += static_cast<size_t>(w);
          written += static_cast<uint64_t>(w);
        }
        off += n;
      }
      ::close(fd);
    });
  }
  ~Writer() {
    if (th.joinable()) th.join();
  }
};

// Finalizes the server when a test ends, also when it ends by a failed
// REQUIRE, so the next test does not meet a server delivering into a dead
// host.  Declare it after the Host.
struct ServerGuard {
  ~ServerGuard() { (void)PMIx_server_finalize(); }
};

// The pmix_push executable (its path comes from the environment CTest sets).
inline std::string push_tool() {
  const char *p = std::getenv("PMIX_PUSH");
  BOOST_REQUIRE_MESSAGE(p, "PMIX_PUSH is not set");
  return p;
}

// Spawns argv with stdin = in_fd (or /dev/null), stderr to err_path.
inline pid_t spawn(const std::vector<std::string> &args, int in_fd, const std::string &err_path = "") {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!err_path.empty()) posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  BOOST_REQUIRE_EQUAL(rc, 0);
  return pid;
}

// Waits (bounded) for a child; returns its exit status, or -1 on timeout
// (the child is then killed), or 128+signal.
inline int reap(pid_t pid, std::chrono::milliseconds limit = 20s) {
  int status = 0;
  bool done = wait_until([&] { return waitpid(pid, &status, WNOHANG) == pid; }, limit);
  if (!done) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

inline std::string slurp(const std::string &path) {
  std::string s;
  FILE *f = std::fopen(path.c_str(), "r");
  if (!f) return s;
  char b[4096];
  size_t n;
  while ((n = std::fread(b, 1, sizeof b, f)) > 0) s.append(b, n);
  std::fclose(f);
  return s;
}

// Value of "name=N" in a pmix_push --stats line, or -1.
inline long stat_of(const std::string &text, const std::string &name) {
  auto p = text.find(name + "=");
  if (p == std::string::npos) return -1;
  return std::strtol(text.c_str() + p + name.size() + 1, nullptr, 10);
}

inline std::string tmp_path(const std::string &stem) {
  const char *d = std::getenv("TMPDIR");
  return std::string(d && *d ? d : "/tmp") + "/pmixshim-test-" + std::to_string(getpid()) + "-" + stem;
}

}  // namespace shimtest
