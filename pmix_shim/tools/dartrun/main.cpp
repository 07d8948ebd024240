// dartrun: run a DART program under mpirun (Open MPI) or mpiexec (MPICH
// hydra) and feed it this process's stdin through the PMIx shim instead of
// the launcher's own stdin forwarding. docs/stdin.md "stdin path and dartrun".
//
//   dartrun [--stdin TARGET] [--rendezvous MODE] [--launcher PATH] [--stats]
//           [--] LAUNCHER-ARGS...
//
// Why: measured here, MPICH 4.0.2's mpiexec kills the job when more than
// 64 KiB of stdin arrive faster than rank 0 reads them and reaches rank 0
// only; Open MPI 4.1.4's mpirun forwards in 4 KiB pieces (a quarter of a
// pipe's speed), segfaults when stdin reaches EOF after rank 0 closed it,
// and its `--stdin all` hangs. So the launcher gets /dev/null as stdin (and
// Open MPI `--stdin none`), and dartrun pushes its stdin itself, as a shim
// tool, to the server DART unit 0 starts in dart_init (pusher.*).
//
// The pieces: options.* (command line, launcher family), channel.* (the
// TCP listener every unit can reach: unit 0's stdin rendezvous, exit
// reports, the units' watchers), outcome.* (the exit status rule, hydra's
// status line), cleanup.* (the job's key, directory and /dev/shm objects),
// pusher.* (the relay). This file runs the launcher and puts them together.
//
// Signals: SIGINT, SIGTERM and SIGHUP go to the launcher (which runs in a
// process group of its own, so a terminal's Ctrl-C reaches it once,
// through us); the first one decides our exit status, 128+N. If dartrun
// dies, the launcher gets SIGTERM.
#include "channel.hpp"
#include "cleanup.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "pusher.hpp"

#include <pmix_server.h>
#include <pmix_tool.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace dartrun;

namespace {

using Clock = std::chrono::steady_clock;

// After forwarding a signal, how long the launcher gets to end the job
// before dartrun kills the launcher's process group.
constexpr auto kSignalGrace = std::chrono::seconds(10);

long peak_rss_kib() {
  rusage ru{};
  return ::getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

// Waits for the launcher, forwarding signals; returns its wait status and
// sets *signalled to the first signal taken (0: none).
int supervise(pid_t child, const sigset_t &set, int *signalled) {
  int status = 0;
  Clock::time_point kill_at = Clock::time_point::max();
  for (;;) {
    siginfo_t si;
    int sig;
    if (kill_at == Clock::time_point::max()) {
      sig = ::sigwaitinfo(&set, &si);
    } else {
      const auto left = std::max<Clock::duration>(kill_at - Clock::now(), Clock::duration::zero());
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      sig = ::sigtimedwait(&set, &si, &ts);
      if (sig < 0 && errno == EAGAIN) {
        // The launcher did not end the job in time after the signal: end
        // it (and whatever of the job runs in its process group) at once.
        std::fprintf(stderr, "dartrun: the launcher did not end the job within %lld s of signal %d; killing it\n",
                     static_cast<long long>(kSignalGrace.count()), *signalled);
        ::kill(-child, SIGKILL);
        kill_at = Clock::time_point::max();
        continue;
      }
    }
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      if (::waitpid(child, &status, WNOHANG) == child) break;
      continue;
    }
    if (!*signalled) {
      *signalled = sig;
      kill_at = Clock::now() + kSignalGrace;
    }
    ::kill(child, sig);
  }
  // A signal that arrived while the launcher was exiting counts as well.
  sigset_t stop = set;
  sigdelset(&stop, SIGCHLD);
  const timespec zero{0, 0};
  siginfo_t si;
  for (int sig; (sig = ::sigtimedwait(&stop, &si, &zero)) > 0;)
    if (!*signalled) *signalled = sig;
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  // A closed descriptor 0, 1 or 2 would go to the first file we open (the
  // rendezvous socket, say) and then be handed to the job as its stdin or
  // output: hold each with /dev/null first. A closed stdin is empty input.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    int n = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);  // the lowest free: fd itself
    if (n >= 0 && n != fd) {
      ::dup2(n, fd);
      ::close(n);
    }
  }
  Options o;
  if (int rc = parse_options(argc, argv, &o); rc >= 0) return rc;
  const Flavor flavor = detect_flavor(o.launcher);
  const bool push = o.target != "none";

  // The job's environment: its key, its secret, how to reach us.
  const std::string key = job_key();
  const std::string secret = random_secret();
  ::setenv("DART_JOB_KEY", key.c_str(), 1);
  ::setenv("DART_STDIN", "on", 1);
  ::setenv("DART_STDIN_TARGET", o.target.c_str(), 1);
  ::setenv("DART_STDIN_SECRET", secret.c_str(), 1);  // the per-job secret of every channel
  for (const char *v : {"DART_STDIN_SERVER", "DART_STDIN_RENDEZVOUS", "DART_STDIN_HOST", "DART_EXIT_REPORT_DIR"})
    ::unsetenv(v);
  // MPICH 4.0 over UCX: UCX's madvise hook can segfault in a thread that
  // ends while other threads use RMA (docs/mpi-workarounds.md, "Working around the MPI").
  // UCX reads the setting in its own constructor, before any library of
  // ours could set it, so it belongs to the launch. A value the user set wins.
  if (flavor == Flavor::hydra) ::setenv("UCX_MEM_MMAP_HOOK_MODE", "none", 0);
  // The job channel: always (exit reports and the hosts' clean-up need it
  // wherever the units run), on ADDR with --rendezvous tcp:ADDR.
  JobChannel channel(secret);
  std::string spec;
  if (!channel.listen(o.rendezvous.rfind("tcp:", 0) == 0 ? o.rendezvous : "tcp", &spec)) return 1;
  ::setenv("DART_JOB_CHANNEL", spec.c_str(), 1);
  std::string dir = private_dir();  // 0700: only we can reach the socket
  if (dir.empty()) return 1;

  // Where unit 0 meets us. "auto" offers both; unit 0 takes the Unix
  // socket when it runs on this host (same boot id and host name, and our
  // directory exists there), else TCP: no guess from the launcher's
  // arguments, which a wrapper or a batch system may hide.
  Pusher pusher;
  pusher.secret = secret;
  std::vector<std::string> exported{"DART_STDIN", "DART_STDIN_TARGET", "DART_JOB_KEY", "DART_STDIN_SECRET",
                                    "DART_JOB_CHANNEL"};
  if (push) {
    if (o.rendezvous == "auto" || o.rendezvous == "unix") {
      pusher.socket_path = dir + "/stdin.sock";
      ::setenv("DART_STDIN_SERVER", ("unix:" + pusher.socket_path).c_str(), 1);
      exported.emplace_back("DART_STDIN_SERVER");
    }
    if (o.rendezvous != "unix") {
      pusher.channel = &channel;
      ::setenv("DART_STDIN_RENDEZVOUS", spec.c_str(), 1);
      exported.emplace_back("DART_STDIN_RENDEZVOUS");
    }
    if (o.rendezvous == "auto") {
      ::setenv("DART_STDIN_HOST", host_identity().c_str(), 1);
      exported.emplace_back("DART_STDIN_HOST");
    }
  }

  std::vector<std::string> cmd{o.launcher};
  if (flavor == Flavor::openmpi) {
    // No forwarding at all; -x also carries the variables to remote nodes
    // (local ranks inherit them anyway).
    cmd.insert(cmd.end(), {"--stdin", "none"});
    for (const auto &v : exported) cmd.insert(cmd.end(), {"-x", v});
    if (::geteuid() == 0) {
      if (!has_arg(o.args, "--allow-run-as-root")) cmd.emplace_back("--allow-run-as-root");
      if (!has_arg(o.args, "--oversubscribe")) cmd.emplace_back("--oversubscribe");
    }
  } else {
    // hydra has no stdin option and passes the whole environment by
    // default: its stdin is /dev/null (below), which it forwards as EOF.
    // Units report a non-zero exit code into our directory when they can
    // reach it, else over the job channel (see ExitReports).
    ::setenv("DART_EXIT_REPORT_DIR", dir.c_str(), 1);
  }
  const bool user_codes = has_arg(o.args, "-print-all-exitcodes");
  if (flavor == Flavor::hydra && !user_codes) cmd.emplace_back("-print-all-exitcodes");
  cmd.insert(cmd.end(), o.args.begin(), o.args.end());

  int out_pipe[2] = {-1, -1};
  if (flavor == Flavor::hydra && ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    std::perror("dartrun: pipe");
    return 1;
  }

  // Signals are taken by sigwait in this thread only; the other threads
  // inherit the mask. SIGPIPE is ignored (a vanished job must not kill
  // us); the launcher gets the default dispositions back. A signal this
  // process ignores at start (nohup's SIGHUP, SIGINT of a background job)
  // stays ignored: it is not taken, so it cannot end the job.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction sa {};
    if (::sigaction(s, nullptr, &sa) == 0 && sa.sa_handler != SIG_IGN) sigaddset(&set, s);
  }
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &set, &old);
  ::signal(SIGPIPE, SIG_IGN);

  const pid_t parent = ::getpid();
  pid_t child = ::fork();
  if (child < 0) {
    std::perror("dartrun: fork");
    return 1;
  }
  if (child == 0) {
    ::setpgid(0, 0);
    // If dartrun dies (even by SIGKILL), the job goes too.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    ::signal(SIGPIPE, SIG_DFL);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) {
      ::dup2(null, 0);
      if (null != 0) ::close(null);
    }
    if (out_pipe[1] >= 0) ::dup2(out_pipe[1], 1);  // dup2 clears FD_CLOEXEC
    std::vector<char *> av;
    for (auto &s : cmd) av.push_back(s.data());
    av.push_back(nullptr);
    ::execvp(av[0], av.data());
    std::fprintf(stderr, "dartrun: cannot run %s: %s\n", av[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(child, child);  // also here, so no signal can beat the child's own call

  channel.start();
  std::atomic<bool> launcher_gone{false};
  std::unique_ptr<StdoutFilter> filter;
  std::thread filter_thread;
  if (out_pipe[0] >= 0) {
    ::close(out_pipe[1]);
    filter = std::make_unique<StdoutFilter>(out_pipe[0], user_codes);
    filter_thread = std::thread([&] { filter->run(launcher_gone); });
  }
  std::thread pusher_thread;
  if (push) pusher_thread = std::thread([&pusher] { pusher.run(); });

  int signalled = 0;
  const int status = supervise(child, set, &signalled);
  launcher_gone = true;

  if (push) {
    pusher.finish();
    pusher_thread.join();
  }
  if (filter_thread.joinable()) filter_thread.join();
  // Every unit's watcher has reported by now (it holds the unit's output
  // open until dartrun acknowledged, so the launcher could not finish
  // before).
  channel.stop();
  const JobChannel::Stats cs = channel.stats();
  ExitReports reports = channel.reports();
  reports.read_dir(dir);
  // mpirun's status is the rule already; its clean-up signals (SIGTERM to
  // the rest) would only blur it.
  const std::vector<int> observed = flavor == Flavor::hydra ? channel.observed() : std::vector<int>{};
  const int code = final_status(signalled, status, filter && filter->have_statuses() ? &filter->statuses() : nullptr,
                                observed, reports.first());
  // This host's objects also when no watcher ran (a unit killed inside
  // dart_init, or a watcher that could not start).
  const int left = remove_job_objects(key);
  if (left)
    std::fprintf(stderr, "dartrun: removed %d shared-memory object%s the job left in /dev/shm\n", left,
                 left == 1 ? "" : "s");
  if (cs.objects_removed)
    std::fprintf(stderr, "dartrun: the units' watchers removed %u shared-memory object%s the job left in /dev/shm\n",
                 cs.objects_removed, cs.objects_removed == 1 ? "" : "s");
  pmixshim_iof_stats_t s{};
  pmixshim_get_iof_stats(&s);
  // A push that failed says how far delivery got, also when the job took
  // every byte read so far (a suspended producer whose server died). A job
  // that is done with its stdin before its end (it stopped reading, or
  // ended: PMIX_ERR_IOF_COMPLETE) has not failed, and the rest of the input
  // stays unread, as a pipe's would. The exit status stays the job's: a
  // unit 0 that died fails the job.
  if (push && pusher.result != PMIX_SUCCESS && pusher.result != PMIX_ERR_IOF_COMPLETE)
    std::fprintf(stderr, "dartrun: stdin: the job took %llu of the %llu bytes read (%s)\n",
                 static_cast<unsigned long long>(s.bytes_acked), static_cast<unsigned long long>(s.bytes_pushed),
                 PMIx_Error_string(pusher.result));
  if (o.stats) {
    std::fprintf(stderr,
                 "dartrun: stats: bytes_pushed=%llu bytes_acked=%llu xoff_received=%llu xon_received=%llu push=%s "
                 "rendezvous=%s peers_dropped=%u units_reported=%u peak_rss_kib=%ld exit=%d\n",
                 static_cast<unsigned long long>(s.bytes_pushed), static_cast<unsigned long long>(s.bytes_acked),
                 static_cast<unsigned long long>(s.xoff_received),
                 static_cast<unsigned long long>(s.xon_received), push ? PMIx_Error_string(pusher.result) : "none",
                 !push ? "none" : pusher.via_tcp ? "tcp" : "unix", cs.peers_dropped, cs.units_reported,
                 peak_rss_kib(), code);
  }
  if (!pusher.socket_path.empty()) ::unlink(pusher.socket_path.c_str());  // the server removes it; not if killed
  ::rmdir(dir.c_str());
  return code;
}
