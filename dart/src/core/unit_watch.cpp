#include "core/host_watch.hpp"

#include "core/error.hpp"
#include "core/job_channel.hpp"
#include "core/log.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace dart {
namespace {

constexpr const char* kCall = "dart_init";
// Reaching dartrun and its "ok": a host that cannot within this goes
// without a watcher's report (its objects are still removed).
constexpr int kDialMs = 2000;
constexpr int kAckMs = 2000;

struct Dirent64 {
  std::uint64_t ino;
  std::int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// The watcher, in a child forked from a process that has threads (MPI's):
// only system calls from here on, no allocation, no locks.
[[noreturn]] void watch(std::vector<pollfd>& pids, int sock, const std::vector<int>& keep, const char* prefix,
                        std::size_t prefix_len) {
  ::setsid();  // out of the unit's process group, which launchers signal
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  // Nothing of the unit's may stay open here: its output pipes and its PMI
  // connection would keep the launcher waiting for this process. `keep`
  // (sorted) holds the pidfds and the socket to dartrun.
  unsigned next = 3;
  for (int k : keep) {
    if (static_cast<unsigned>(k) > next) ::syscall(SYS_close_range, next, static_cast<unsigned>(k) - 1, 0);
    next = static_cast<unsigned>(k) + 1;
  }
  ::syscall(SYS_close_range, next, ~0U, 0);
  // Until every unit of this host is gone: a pidfd polls readable when its
  // process has ended.
  for (;;) {
    bool any = false;
    for (const pollfd& p : pids) any |= p.fd >= 0;
    if (!any) break;
    if (::poll(pids.data(), pids.size(), -1) < 0) continue;
    for (pollfd& p : pids)
      if (p.fd >= 0 && p.revents) {
        ::close(p.fd);
        p.fd = -1;
      }
  }
  unsigned removed = 0;
  const int dir = ::open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    alignas(8) char buf[8192];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const Dirent64* e = reinterpret_cast<const Dirent64*>(buf + at);
        if (std::strncmp(e->name, prefix, prefix_len) == 0 && ::unlinkat(dir, e->name, 0) == 0) ++removed;
        at += e->reclen;
      }
    }
    ::close(dir);
  }
  if (sock >= 0) {
    char line[32] = "done ";
    char digits[16];
    int nd = 0;
    do digits[nd++] = static_cast<char>('0' + removed % 10); while ((removed /= 10) != 0);
    std::size_t len = 5;
    while (nd) line[len++] = digits[--nd];
    line[len++] = '\n';
    if (::send(sock, line, len, MSG_NOSIGNAL) == static_cast<ssize_t>(len)) {
      pollfd p{sock, POLLIN, 0};
      if (::poll(&p, 1, kAckMs) == 1) {
        char ok[4];
        if (::recv(sock, ok, sizeof ok, 0) < 0) {
          // dartrun is gone or said nothing: the objects are removed anyway.
        }
      }
    }
  }
  ::_exit(0);
}

}  // namespace

void start_host_watch(const Config& cfg, MPI_Comm world) {
  int want = !cfg.job_channel.empty() && cfg.job_key != 0 ? 1 : 0, all = 0;
  // Collective below: every unit must take the same branch.
  mpi_check(MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, world), "MPI_Allreduce");
  if (!all) return;
  int me = 0;
  mpi_check(MPI_Comm_rank(world, &me), "MPI_Comm_rank");
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int local = 0, nlocal = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &nlocal);
  int pid = static_cast<int>(::getpid());
  std::vector<int> pids(static_cast<std::size_t>(local == 0 ? nlocal : 0));
  mpi_check(MPI_Gather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, 0, node), "MPI_Gather");
  MPI_Comm_free(&node);
  if (local != 0) return;

  std::vector<sockaddr_in> addrs;
  if (!parse_channel_spec(cfg.job_channel, &addrs)) {
    log(LogLevel::Error, kCall, "ignoring DART_JOB_CHANNEL=\"%s\": expected tcp:ADDR[,ADDR...]:PORT; "
        "no clean-up of /dev/shm on this host", cfg.job_channel.c_str());
    return;
  }
  std::vector<pollfd> fds;
  for (int p : pids) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, p, 0));
    if (fd >= 0) {
      fds.push_back({fd, POLLIN, 0});
    } else if (errno != ESRCH) {  // ESRCH: that unit is gone already
      log(LogLevel::Warn, kCall, "pidfd_open: %s; no clean-up of /dev/shm on this host", std::strerror(errno));
      for (pollfd& f : fds) ::close(f.fd);
      return;
    }
  }
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  int sock = dial_channel(cfg.job_channel, kDialMs);
  if (sock >= 0 && !send_and_await_ok(sock, "dartrun-watch-1 " + cfg.stdin_secret + " " + host + "\n", kAckMs)) {
    ::close(sock);
    sock = -1;
  }
  if (sock < 0)
    log(LogLevel::Warn, kCall, "cannot reach dartrun at %s: this host's clean-up goes unreported",
        cfg.job_channel.c_str());
  char prefix[40];
  const int plen = std::snprintf(prefix, sizeof prefix, "dart-%016llx-", static_cast<unsigned long long>(cfg.job_key));
  std::vector<int> keep;
  for (const pollfd& f : fds) keep.push_back(f.fd);
  if (sock >= 0) keep.push_back(sock);
  std::sort(keep.begin(), keep.end());
  const pid_t child = ::fork();
  if (child == 0) watch(fds, sock, keep, prefix, static_cast<std::size_t>(plen));
  if (child < 0) log(LogLevel::Warn, kCall, "fork: %s; no clean-up of /dev/shm on this host", std::strerror(errno));
  for (pollfd& f : fds) ::close(f.fd);
  if (sock >= 0) ::close(sock);
}

}  // namespace dart
