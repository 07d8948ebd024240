// dartrun: run a DART program under mpirun (Open MPI) or mpiexec (MPICH
// hydra) and feed it this process's stdin through the PMIx shim instead of
// the launcher's own stdin forwarding.
//
//   dartrun [--stdin TARGET] [--rendezvous MODE] [--launcher PATH] [--stats]
//           [--] LAUNCHER-ARGS...
//
// TARGET is a unit, a list of units ("1,3,5-7"), "all" or "none" (default:
// $DART_STDIN_TARGET, else 0). LAUNCHER-ARGS are exactly what the launcher
// takes (-n 4 ./prog args...).
//
// Why: measured here, MPICH 4.0.2's mpiexec kills the job when more than
// 64 KiB of stdin arrive faster than rank 0 reads them and reaches rank 0
// only; Open MPI 4.1.4's mpirun forwards in 4 KiB pieces (a quarter of a
// pipe's speed), segfaults when stdin reaches EOF after rank 0 closed it,
// and its `--stdin all` hangs. So the launcher gets /dev/null as stdin (and
// Open MPI `--stdin none`), and dartrun pushes its stdin itself, as a shim
// tool, to the server DART unit 0 starts in dart_init. XOFF from the job
// un-arms our read, so whatever feeds us blocks.
//
// Rendezvous. "unix": unit 0's server listens on a Unix socket in a fresh
// 0700 directory of ours (DART_STDIN_SERVER), which needs unit 0 on this
// host. "tcp": we listen on TCP (DART_STDIN_RENDEZVOUS lists our addresses
// and the port); unit 0, wherever the launcher placed it, connects, starts
// its server on the address that reached us and sends us that server's URI
// with the per-job secret (DART_STDIN_SECRET); then we connect to it as a
// tool. Peers that do not present the secret within a few seconds are
// dropped and we keep listening. "auto" (default) is tcp when the launcher
// arguments name hosts or a batch allocation is in the environment.
//
// Exit status, the same under both launchers: 0 when every unit ended with
// 0; else the exit code of a unit that exited non-zero; else 128+N when a
// unit was killed by signal N. Open MPI's mpirun reports exactly that.
// hydra reports the bitwise OR of all wait statuses (so a unit's exit 3
// while hydra kills the others comes out as 9, or 3, by timing): we ask it
// for every unit's status (-print-all-exitcodes), take that line out of its
// stdout, and apply the rule above. hydra also loses a unit's exit code
// when it sees the unit's PMI connection close before it reaps the unit (it
// then reports status 1, a "SIGHUP"); units on our host therefore write a
// non-zero exit code into our directory as they exit (DART_EXIT_REPORT_DIR),
// and those reports come first.
//
// Shared memory: the job's objects in /dev/shm are named by a key dartrun
// hands it (DART_JOB_KEY); when the job has ended, dartrun removes those
// still there, which only a unit killed before dart_exit leaves.
//
// dartrun forwards SIGINT, SIGTERM and SIGHUP to the launcher (which runs
// in a process group of its own, so a terminal's Ctrl-C reaches it once,
// through us); if dartrun dies, the launcher gets SIGTERM.
#include <pmix_server.h>
#include <pmix_tool.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#ifndef DARTRUN_DEFAULT_LAUNCHER
#define DARTRUN_DEFAULT_LAUNCHER "mpirun"
#endif

namespace {

using Clock = std::chrono::steady_clock;

enum class Flavor { openmpi, hydra };
enum class Rendezvous { unix_socket, tcp };

// What unit 0 sends on the TCP rendezvous: this word, the secret and its
// server's URI, separated by single spaces, then a newline.
constexpr const char *kHello = "dartrun-stdin-1";
constexpr std::size_t kMaxHelloLine = 1024;
// A rendezvous peer gets this long to present the secret.
constexpr auto kHelloDeadline = std::chrono::seconds(5);
constexpr std::size_t kMaxPendingPeers = 16;
// After forwarding a signal, how long the launcher gets to end the job
// before dartrun kills the launcher's process group.
constexpr auto kSignalGrace = std::chrono::seconds(10);

struct Options {
  std::string target;
  std::string launcher;
  std::string rendezvous;  // auto, unix, tcp or tcp:ADDR
  bool stats = false;
  std::vector<std::string> args;  // the launcher's
};

void usage(FILE *to) {
  std::fprintf(to,
               "usage: dartrun [--stdin TARGET] [--rendezvous MODE] [--launcher PATH] [--stats] [--] "
               "LAUNCHER-ARGS...\n"
               "Runs LAUNCHER-ARGS (e.g. -n 4 ./prog args) under mpirun/mpiexec and delivers this process's\n"
               "stdin to the job's DART units, exactly once, with flow control.\n"
               "  --stdin TARGET     unit(s) that read stdin: N, a list like 1,3,5-7, all, or none\n"
               "                     (default $DART_STDIN_TARGET, else 0)\n"
               "  --rendezvous MODE  how unit 0 and dartrun meet: unix (unit 0 on this host), tcp or\n"
               "                     tcp:ADDR (unit 0 anywhere; ADDR: the address to listen on and offer),\n"
               "                     auto (default $DARTRUN_RENDEZVOUS, else tcp when the arguments name\n"
               "                     hosts or a batch allocation is present, else unix)\n"
               "  --launcher PATH    mpirun/mpiexec to wrap (default $DARTRUN_LAUNCHER, else %s)\n"
               "  --stats            print flow-control counters and peak memory to stderr at the end\n"
               "What dartrun adds to the launcher:\n"
               "  stdin              /dev/null for the launcher; Open MPI also --stdin none\n"
               "  environment        DART_STDIN=on, DART_STDIN_TARGET, DART_STDIN_SECRET and\n"
               "                     DART_STDIN_SERVER (unix) or DART_STDIN_RENDEZVOUS (tcp);\n"
               "                     Open MPI gets -x for each\n"
               "  Open MPI as root   --allow-run-as-root --oversubscribe (unless given)\n"
               "  MPICH (hydra)      -print-all-exitcodes (its line is taken out of stdout)\n"
               "Exit status (both launchers): 0 if every unit exited 0; else the exit code of a unit that\n"
               "exited non-zero; else 128+N if a unit was killed by signal N; the launcher's own status\n"
               "if it failed before any unit ran; 2 for a usage error.\n",
               DARTRUN_DEFAULT_LAUNCHER);
}

// Which launcher family `path` is: asks it, as the build does.
Flavor detect_flavor(const std::string &path) {
  std::string cmd = "'" + path + "' --version 2>&1";
  FILE *p = ::popen(cmd.c_str(), "r");
  std::string out;
  if (p) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  if (out.find("HYDRA") != std::string::npos || out.find("MPICH") != std::string::npos) return Flavor::hydra;
  return Flavor::openmpi;
}

std::string random_secret() {
  unsigned char raw[24];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  static const char hex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : raw) {
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
}

long peak_rss_kib() {
  rusage ru{};
  return ::getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

bool has_arg(const std::vector<std::string> &args, const char *a) {
  for (const auto &x : args)
    if (x == a || x.rfind(std::string(a) + "=", 0) == 0) return true;
  return false;
}

// "auto": the job may leave this host when the arguments name hosts or a
// batch system granted an allocation (whose first node need not be ours).
Rendezvous choose_rendezvous(const std::string &mode, const std::vector<std::string> &args) {
  if (mode == "unix") return Rendezvous::unix_socket;
  if (mode == "tcp" || mode.rfind("tcp:", 0) == 0) return Rendezvous::tcp;
  for (const char *a : {"-H", "--host", "-host", "-hosts", "--hostfile", "-hostfile", "--machinefile", "-machinefile",
                        "-machine", "-f", "--default-hostfile"})
    if (has_arg(args, a)) return Rendezvous::tcp;
  for (const char *v : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "PE_HOSTFILE", "COBALT_JOBID", "FLUX_JOB_ID"})
    if (std::getenv(v)) return Rendezvous::tcp;
  return Rendezvous::unix_socket;
}

// ---- exit status ----------------------------------------------------------

// The rule of the header comment, over raw wait statuses.
int outcome_of(const std::vector<int> &statuses) {
  for (int st : statuses)
    if (WIFEXITED(st) && WEXITSTATUS(st) != 0) return WEXITSTATUS(st);
  // A signal the unit met itself before SIGKILL, which launchers use to
  // clean up the rest of a failed job.
  for (int st : statuses)
    if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) return 128 + WTERMSIG(st);
  for (int st : statuses)
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 0;
}

// Parses hydra's "[mpiexec@HOST] Exit codes: [HOST] S,S,... [HOST] S,..."
// line; false if it is not one.
bool parse_exit_codes(const std::string &line, std::vector<int> *out) {
  static const char kMark[] = "] Exit codes:";
  size_t at = line.find(kMark);
  if (line.rfind("[mpiexec@", 0) != 0 || at == std::string::npos) return false;
  const char *p = line.c_str() + at + sizeof kMark - 1;
  std::vector<int> v;
  while (*p) {
    if (*p == '[') {
      const char *q = std::strchr(p, ']');
      if (!q) return false;
      p = q + 1;
    } else if (*p == ' ' || *p == ',' || *p == '\n' || *p == '\r') {
      ++p;
    } else {
      char *end = nullptr;
      long x = std::strtol(p, &end, 10);
      if (end == p) return false;
      v.push_back(static_cast<int>(x));
      p = end;
    }
  }
  *out = std::move(v);
  return true;
}

// The exit codes units reported themselves (DART_EXIT_REPORT_DIR; see
// dart/src/core/config.hpp): the lowest-numbered unit's non-zero code, 0 if none.
// Under hydra these are the truth where its statuses are not: when a unit
// exits without finalizing and its PMI connection's close is seen after its
// exit, hydra keeps the status 1 it assumed (a "SIGHUP") and loses the code.
// Removes the reports as it reads them.
int exit_reports(const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d) return 0;
  long best_unit = -1;
  int best_code = 0;
  while (dirent *e = ::readdir(d)) {
    char *end = nullptr;
    if (std::strncmp(e->d_name, "exit.", 5) != 0) continue;
    const long unit = std::strtol(e->d_name + 5, &end, 10);
    const std::string path = dir + "/" + e->d_name;
    if (end != e->d_name + 5 && *end == '\0' && unit >= 0) {
      if (FILE *f = std::fopen(path.c_str(), "r")) {
        int c = 0;
        if (std::fscanf(f, "%d", &c) == 1 && c != 0 && (best_unit < 0 || unit < best_unit)) {
          best_unit = unit;
          best_code = c & 0xff;  // what a wait status keeps of it
        }
        std::fclose(f);
      }
    }
    ::unlink(path.c_str());
  }
  ::closedir(d);
  return best_code;
}

// The key naming the job's shared-memory objects (DART_JOB_KEY; see
// dart/src/core/config.hpp): the one in our environment when it is 16 hex
// digits, else a fresh random one.
std::string job_key() {
  const char *k = std::getenv("DART_JOB_KEY");
  if (k && std::strlen(k) == 16 && std::strspn(k, "0123456789abcdefABCDEF") == 16 && std::strspn(k, "0") != 16)
    return k;
  std::string key = random_secret().substr(0, 16);
  if (key.find_first_not_of('0') == std::string::npos) key[15] = '1';
  return key;
}

// Removes what the job left in /dev/shm under its key: the extents of
// dart_memalloc of units on this host that were killed before dart_exit
// could remove them (those of other hosts stay). Returns how many.
int remove_job_objects(const std::string &key) {
  DIR *d = ::opendir("/dev/shm");
  if (!d) return 0;
  const std::string prefix = "dart-" + key + "-";
  int removed = 0;
  while (dirent *e = ::readdir(d))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0 &&
        ::unlink((std::string("/dev/shm/") + e->d_name).c_str()) == 0)
      ++removed;
  ::closedir(d);
  return removed;
}

// A fresh 0700 directory under $TMPDIR (or /tmp); empty on failure (said).
std::string private_dir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/dartrun-XXXXXX";
  std::vector<char> t(tmpl.begin(), tmpl.end());
  t.push_back('\0');
  if (!::mkdtemp(t.data())) {
    std::perror("dartrun: mkdtemp");
    return {};
  }
  return t.data();
}

bool write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Copies hydra's stdout to ours as it comes, holding back only what may be
// the start of hydra's own "[mpiexec@" line until its newline shows whether
// it is the exit-code line (kept out, unless the user asked for it).
class StdoutFilter {
 public:
  StdoutFilter(int fd, bool keep_line) : fd_(fd), keep_(keep_line) {}

  void run(const std::atomic<bool> &launcher_gone) {
    std::vector<char> buf(64 * 1024);
    Clock::time_point gone_at{};
    for (;;) {
      pollfd pfd{fd_, POLLIN, 0};
      int pr = ::poll(&pfd, 1, 100);
      if (pr == 0) {
        // The launcher has exited but something it started still
        // holds the pipe: give it a moment, then stop waiting.
        if (launcher_gone.load()) {
          if (gone_at == Clock::time_point{}) gone_at = Clock::now();
          if (Clock::now() - gone_at > std::chrono::seconds(2)) break;
        }
        continue;
      }
      if (pr < 0 && errno == EINTR) continue;
      ssize_t n = ::read(fd_, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      feed(buf.data(), static_cast<size_t>(n));
    }
    if (!held_.empty()) emit(held_);  // an unterminated last line
    ::close(fd_);
  }

  bool have_statuses() const { return have_; }
  const std::vector<int> &statuses() const { return statuses_; }

 private:
  static constexpr const char *kMark = "[mpiexec@";
  // hydra's exit-code line holds a host name and a status per unit; a
  // "line" this long that does not end is the job's output.
  static constexpr size_t kMaxLine = 1 << 20;

  void emit(const std::string &s) { write_all(1, s.data(), s.size()); }

  void feed(const char *p, size_t n) {
    held_.append(p, n);
    size_t pos = 0;
    std::string out;
    while (pos < held_.size()) {
      size_t m = held_.find(kMark, pos);
      if (m == std::string::npos) {
        // Keep a tail that could be the start of the mark.
        size_t keep = 0;
        size_t ml = std::strlen(kMark);
        for (size_t k = std::min(ml - 1, held_.size() - pos); k > 0; --k)
          if (held_.compare(held_.size() - k, k, kMark, k) == 0) {
            keep = k;
            break;
          }
        out.append(held_, pos, held_.size() - pos - keep);
        pos = held_.size() - keep;
        break;
      }
      out.append(held_, pos, m - pos);
      size_t nl = held_.find('\n', m);
      if (nl == std::string::npos && held_.size() - m > kMaxLine) {
        // Far too long for hydra's line: the job's own output.
        out.append(held_, m, held_.size() - m);
        pos = held_.size();
        break;
      }
      if (nl == std::string::npos) {
        pos = m;  // wait for the rest of the line
        break;
      }
      std::string line = held_.substr(m, nl + 1 - m);
      std::vector<int> v;
      if (parse_exit_codes(line, &v)) {
        statuses_ = std::move(v);
        have_ = true;
        if (keep_) out += line;
      } else {
        out += line;
      }
      pos = nl + 1;
    }
    held_.erase(0, pos);
    if (!out.empty()) emit(out);
  }

  int fd_;
  bool keep_;
  std::string held_;
  bool have_ = false;
  std::vector<int> statuses_;
};

// ---- the TCP rendezvous ----------------------------------------------------

// Every IPv4 address of this host that is up, loopback last: unit 0 tries
// them in order and keeps the first that connects.
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

// Listens on ADDR (or every address) at an ephemeral port; fills the value
// of DART_STDIN_RENDEZVOUS: "tcp:A1,A2,...:PORT".
int tcp_listen(const std::string &mode, std::string *spec) {
  std::string addr = mode.size() > 4 ? mode.substr(4) : std::string();
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = 0;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (!addr.empty() && ::inet_pton(AF_INET, addr.c_str(), &a.sin_addr) != 1) {
    std::fprintf(stderr, "dartrun: --rendezvous %s: not an IPv4 address\n", mode.c_str());
    return -1;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  socklen_t al = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &al) != 0) {
    std::fprintf(stderr, "dartrun: cannot listen on TCP%s%s: %s\n", addr.empty() ? "" : " ", addr.c_str(),
                 std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return -1;
  }
  std::vector<std::string> addrs = addr.empty() ? host_addresses() : std::vector<std::string>{addr};
  std::string list;
  for (auto &x : addrs) list += (list.empty() ? "" : ",") + x;
  *spec = "tcp:" + list + ":" + std::to_string(ntohs(a.sin_port));
  return fd;
}

bool same_secret(const std::string &a, const std::string &b) {
  // Compare every byte whatever differs, so timing tells nothing.
  unsigned char d = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return d == 0;
}

std::string peer_name(int fd) {
  sockaddr_in a{};
  socklen_t l = sizeof a;
  char buf[INET_ADDRSTRLEN] = "?";
  if (::getpeername(fd, reinterpret_cast<sockaddr *>(&a), &l) == 0) ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
  return std::string(buf) + ":" + std::to_string(ntohs(a.sin_port));
}

// ---- the pusher -----------------------------------------------------------

struct Pusher {
  Rendezvous mode = Rendezvous::unix_socket;
  std::string socket_path, secret;
  int listen_fd = -1;
  std::atomic<bool> job_done{false};
  std::mutex mu;  // serialises connecting against the final tool finalize
  bool connected = false;
  pmix_status_t result = PMIX_SUCCESS;
  unsigned peers_dropped = 0;

  struct Peer {
    int fd;
    Clock::time_point deadline;
    std::string line;
  };

  void drop(Peer &p, const char *why) {
    std::fprintf(stderr, "dartrun: rendezvous: dropped %s: %s\n", peer_name(p.fd).c_str(), why);
    ::close(p.fd);
    p.fd = -1;
    ++peers_dropped;
  }

  // Reads what a peer sent; returns the URI once a whole, valid hello is
  // there, drops the peer on anything else.
  std::string take(Peer &p) {
    char buf[512];
    ssize_t n = ::recv(p.fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return {};
    if (n <= 0) {
      drop(p, "closed before it presented the secret");
      return {};
    }
    p.line.append(buf, static_cast<size_t>(n));
    size_t nl = p.line.find('\n');
    if (nl == std::string::npos) {
      if (p.line.size() > kMaxHelloLine) drop(p, "line too long");
      return {};
    }
    std::string line = p.line.substr(0, nl);
    size_t a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b == std::string::npos || line.compare(0, a, kHello) != 0) {
      drop(p, "not a DART unit's hello");
      return {};
    }
    if (!same_secret(line.substr(a + 1, b - a - 1), secret)) {
      drop(p, "wrong secret");
      return {};
    }
    std::string uri = line.substr(b + 1);
    if (uri.rfind("tcp:", 0) != 0 || uri.find(' ') != std::string::npos) {
      drop(p, "bad server address");
      return {};
    }
    ::close(p.fd);
    p.fd = -1;
    return uri;
  }

  // Waits for unit 0's hello on the TCP rendezvous, dropping every other
  // peer: one that is silent past its deadline, sends garbage or a wrong
  // secret. Empty when the job ended first.
  std::string await_unit0() {
    std::vector<Peer> peers;
    std::string uri;
    while (uri.empty() && !job_done.load()) {
      std::vector<pollfd> pf{{listen_fd, POLLIN, 0}};
      for (auto &p : peers) pf.push_back({p.fd, POLLIN, 0});
      int pr = ::poll(pf.data(), pf.size(), 100);
      if (pr < 0 && errno != EINTR) break;
      auto now = Clock::now();
      for (size_t i = 0; i < peers.size(); ++i) {
        Peer &p = peers[i];
        if (pf[i + 1].revents) uri = take(p);
        if (p.fd >= 0 && uri.empty() && now > p.deadline) drop(p, "did not present the secret in time");
        if (!uri.empty()) break;
      }
      peers.erase(std::remove_if(peers.begin(), peers.end(), [](const Peer &p) { return p.fd < 0; }), peers.end());
      if (!uri.empty() || !(pf[0].revents & POLLIN)) continue;
      for (;;) {
        int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
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
    ::close(listen_fd);
    listen_fd = -1;
    return uri;
  }

  void run() {
    std::string uri;
    if (mode == Rendezvous::tcp) {
      uri = await_unit0();
    } else {
      // The server appears when unit 0 reaches the end of dart_init; a
      // program that never calls dart_init never creates it.
      struct stat st;
      while (!job_done.load() && !(::stat(socket_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      uri = "unix:" + socket_path;
    }
    // bind() to listen() is a short window, so connecting is retried for
    // a while; in short attempts, so that a job that ended meanwhile (unit
    // 0 gone, its socket file left behind) does not hold us.
    const auto give_up = Clock::now() + std::chrono::seconds(10);
    for (;;) {
      std::lock_guard<std::mutex> l(mu);
      if (job_done.load() || uri.empty()) {
        release_stdin();
        return;
      }
      pmix_info_t info[4];
      uint32_t tmo = 200;
      uint32_t rank = 0;
      PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri.c_str(), PMIX_STRING);
      PMIX_INFO_LOAD(&info[1], PMIX_SHIM_SECRET, secret.c_str(), PMIX_STRING);
      PMIX_INFO_LOAD(&info[2], PMIX_SHIM_CONNECT_TIMEOUT_MS, &tmo, PMIX_UINT32);
      PMIX_INFO_LOAD(&info[3], PMIX_TOOL_RANK, &rank, PMIX_UINT32);
      result = PMIx_tool_init(nullptr, info, 4);
      for (pmix_info_t &i : info) PMIX_INFO_DESTRUCT(&i);
      connected = result == PMIX_SUCCESS;
      if (connected || result != PMIX_ERR_UNREACH || Clock::now() > give_up) break;
    }
    if (connected && !job_done.load()) {
      bool yes = true;
      int fd = 0;
      // Completes at the end of the stream, once unit 0's host has taken
      // every byte: push=SUCCESS then means delivered, not just written.
      pmix_info_t dirs[3];
      PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
      PMIX_INFO_LOAD(&dirs[1], PMIX_SHIM_IOF_FD, &fd, PMIX_INT);
      PMIX_INFO_LOAD(&dirs[2], PMIX_SHIM_IOF_COMPLETE_AT_END, &yes, PMIX_BOOL);
      result = PMIx_IOF_push(nullptr, 0, nullptr, dirs, 3, nullptr, nullptr);
      if (result == PMIX_OPERATION_SUCCEEDED) result = PMIX_SUCCESS;
    }
    release_stdin();
  }

  // Whatever the outcome, the job reads no more of our stdin: let go of
  // it, so a producer still writing is told at once (EPIPE) instead of
  // blocking until we exit.
  static void release_stdin() {
    int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) {
      ::dup2(null, 0);
      ::close(null);
    }
  }

  // Main thread, after the launcher exited.
  void finish() {
    job_done = true;
    std::lock_guard<std::mutex> l(mu);
    // Completes a push still waiting (the job is gone) with a failure.
    if (connected) PMIx_tool_finalize();
  }
};

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
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--stdin" && i + 1 < argc) {
      o.target = argv[++i];
    } else if (a.rfind("--stdin=", 0) == 0) {
      o.target = a.substr(8);
    } else if (a == "--rendezvous" && i + 1 < argc) {
      o.rendezvous = argv[++i];
    } else if (a.rfind("--rendezvous=", 0) == 0) {
      o.rendezvous = a.substr(13);
    } else if (a == "--launcher" && i + 1 < argc) {
      o.launcher = argv[++i];
    } else if (a == "--stats") {
      o.stats = true;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      break;  // the launcher's arguments start here
    }
  }
  for (; i < argc; ++i) o.args.emplace_back(argv[i]);
  if (o.args.empty()) {
    usage(stderr);
    return 2;
  }
  if (o.target.empty()) {
    const char *t = std::getenv("DART_STDIN_TARGET");
    o.target = t && *t ? t : "0";
  }
  if (o.launcher.empty()) {
    const char *l = std::getenv("DARTRUN_LAUNCHER");
    o.launcher = l && *l ? l : DARTRUN_DEFAULT_LAUNCHER;
  }
  if (o.rendezvous.empty()) {
    const char *r = std::getenv("DARTRUN_RENDEZVOUS");
    o.rendezvous = r && *r ? r : "auto";
  }
  if (o.rendezvous != "auto" && o.rendezvous != "unix" && o.rendezvous != "tcp" && o.rendezvous.rfind("tcp:", 0) != 0) {
    std::fprintf(stderr, "dartrun: --rendezvous %s: not auto, unix, tcp or tcp:ADDR\n", o.rendezvous.c_str());
    return 2;
  }
  const Flavor flavor = detect_flavor(o.launcher);
  const bool push = o.target != "none";

  // The job's environment: how to reach us and the secret.
  Pusher pusher;
  pusher.mode = choose_rendezvous(o.rendezvous, o.args);
  std::string dir;
  const std::string key = job_key();
  ::setenv("DART_JOB_KEY", key.c_str(), 1);
  ::setenv("DART_STDIN", "on", 1);
  ::setenv("DART_STDIN_TARGET", o.target.c_str(), 1);
  ::unsetenv("DART_STDIN_SERVER");
  ::unsetenv("DART_STDIN_RENDEZVOUS");
  ::unsetenv("DART_STDIN_SECRET");
  const char *rv_var = nullptr;
  if (push) {
    pusher.secret = random_secret();
    ::setenv("DART_STDIN_SECRET", pusher.secret.c_str(), 1);
    if (pusher.mode == Rendezvous::tcp) {
      std::string spec;
      pusher.listen_fd = tcp_listen(o.rendezvous == "auto" ? "tcp" : o.rendezvous, &spec);
      if (pusher.listen_fd < 0) return 1;
      rv_var = "DART_STDIN_RENDEZVOUS";
      ::setenv(rv_var, spec.c_str(), 1);
    } else {
      dir = private_dir();  // 0700: only we can reach the socket
      if (dir.empty()) return 1;
      pusher.socket_path = dir + "/stdin.sock";
      rv_var = "DART_STDIN_SERVER";
      ::setenv(rv_var, ("unix:" + pusher.socket_path).c_str(), 1);
    }
  }

  std::vector<std::string> cmd{o.launcher};
  if (flavor == Flavor::openmpi) {
    // No forwarding at all; -x also carries the variables to remote
    // nodes (local ranks inherit them anyway).
    cmd.insert(cmd.end(), {"--stdin", "none", "-x", "DART_STDIN", "-x", "DART_STDIN_TARGET", "-x", "DART_JOB_KEY"});
    if (push) cmd.insert(cmd.end(), {"-x", rv_var, "-x", "DART_STDIN_SECRET"});
    if (::geteuid() == 0) {
      if (!has_arg(o.args, "--allow-run-as-root")) cmd.emplace_back("--allow-run-as-root");
      if (!has_arg(o.args, "--oversubscribe")) cmd.emplace_back("--oversubscribe");
    }
  }
  // hydra has no stdin option and passes the whole environment by
  // default: its stdin is /dev/null (below), which it forwards as EOF.
  // Units on this host report a non-zero exit code into our directory
  // (see exit_reports).
  if (flavor == Flavor::hydra) {
    if (dir.empty()) dir = private_dir();
    if (dir.empty()) return 1;
    ::setenv("DART_EXIT_REPORT_DIR", dir.c_str(), 1);
  } else {
    ::unsetenv("DART_EXIT_REPORT_DIR");  // mpirun's statuses are right
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
  // us); the launcher gets the default dispositions back.
  // A signal this process ignores at start (nohup's SIGHUP, SIGINT of a
  // background job) stays ignored: it is not taken, so it cannot end the job.
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
    if (pusher.listen_fd >= 0) ::close(pusher.listen_fd);
    std::vector<char *> av;
    for (auto &s : cmd) av.push_back(s.data());
    av.push_back(nullptr);
    ::execvp(av[0], av.data());
    std::fprintf(stderr, "dartrun: cannot run %s: %s\n", av[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(child, child);  // also here, so no signal can beat the child's own call

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

  // The first signal dartrun is sent decides its exit status (128+N) once
  // the job is down: the launcher's own status after a forwarded signal is
  // whatever it makes of it (mpirun exits 1, hydra the OR of the units'
  // statuses, 0 when they went down cleanly), and the units' statuses only
  // show how the signal reached them. Neither may turn a job that was
  // stopped into a success or a failure of its own.
  int status = 0;
  int signalled = 0;
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
                     static_cast<long long>(kSignalGrace.count()), signalled);
        ::kill(-child, SIGKILL);
        kill_at = Clock::time_point::max();
        continue;
      }
    }
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      pid_t w = ::waitpid(child, &status, WNOHANG);
      if (w == child) break;
      continue;
    }
    if (!signalled) {
      signalled = sig;
      kill_at = Clock::now() + kSignalGrace;
    }
    ::kill(child, sig);
  }
  launcher_gone = true;
  // A signal that arrived while the launcher was exiting counts as well.
  {
    sigset_t stop = set;
    sigdelset(&stop, SIGCHLD);
    const timespec zero{0, 0};
    siginfo_t si;
    for (int sig; (sig = ::sigtimedwait(&stop, &si, &zero)) > 0;)
      if (!signalled) signalled = sig;
  }

  if (push) {
    pusher.finish();
    pusher_thread.join();
  }
  if (filter_thread.joinable()) filter_thread.join();
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  // hydra's own status is the OR of every unit's: use the units' own.
  if (filter && filter->have_statuses()) code = outcome_of(filter->statuses());
  if (!dir.empty())
    if (int reported = exit_reports(dir)) code = reported;
  if (signalled) code = 128 + signalled;
  if (const int left = remove_job_objects(key))
    std::fprintf(stderr, "dartrun: removed %d shared-memory object%s the job left in /dev/shm\n", left,
                 left == 1 ? "" : "s");
  pmixshim_iof_stats_t s{};
  pmixshim_get_iof_stats(&s);
  // A push that failed says how far delivery got, also when the job took
  // every byte read so far (a suspended producer whose server died).  The
  // exit status stays the job's: a program may stop reading its stdin and
  // still succeed (the host then refuses the rest), and a unit 0 that died
  // fails the job.
  if (push && pusher.result != PMIX_SUCCESS)
    std::fprintf(stderr, "dartrun: stdin: the job took %llu of the %llu bytes read (%s)\n",
                 static_cast<unsigned long long>(s.bytes_acked), static_cast<unsigned long long>(s.bytes_pushed),
                 PMIx_Error_string(pusher.result));
  if (o.stats) {
    std::fprintf(stderr,
                 "dartrun: stats: bytes_pushed=%llu bytes_acked=%llu xoff_received=%llu xon_received=%llu push=%s "
                 "rendezvous=%s peers_dropped=%u peak_rss_kib=%ld exit=%d\n",
                 static_cast<unsigned long long>(s.bytes_pushed), static_cast<unsigned long long>(s.bytes_acked),
                 static_cast<unsigned long long>(s.xoff_received),
                 static_cast<unsigned long long>(s.xon_received), push ? PMIx_Error_string(pusher.result) : "none",
                 pusher.mode == Rendezvous::tcp ? "tcp" : "unix", pusher.peers_dropped, peak_rss_kib(), code);
  }
  if (!dir.empty()) {
    if (!pusher.socket_path.empty())
      ::unlink(pusher.socket_path.c_str());  // the server removes it; not if it was killed
    ::rmdir(dir.c_str());
  }
  return code;
}
