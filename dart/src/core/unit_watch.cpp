#include "core/unit_watch.hpp"

#include "core/error.hpp"
#include "core/job_channel.hpp"
#include "core/log.hpp"

#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace dart {
namespace {

constexpr const char* kCall = "dart_init";
// Reaching dartrun (per address) and its "ok": the launcher waits for the
// watcher meanwhile, so briefly; without them the report is lost, the
// objects are removed all the same.
constexpr int kDialMs = 1000;
constexpr int kAckMs = 2000;

struct Dirent64 {
  std::uint64_t ino;
  std::int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// Appends the decimal digits of v to buf at *len (no allocation).
void put_number(char* buf, std::size_t* len, long long v) {
  if (v < 0) {
    buf[(*len)++] = '-';
    v = -v;
  }
  char digits[24];
  int nd = 0;
  do digits[nd++] = static_cast<char>('0' + v % 10); while ((v /= 10) != 0);
  while (nd) buf[(*len)++] = digits[--nd];
}

// The wait status of process `pid` while it is a zombie: the last field of
// /proc/PID/stat ("exit_code", Linux 3.5). -1 once its parent reaped it.
int zombie_status(int pid) {
  char path[40] = "/proc/";
  std::size_t len = 6;
  put_number(path, &len, pid);
  std::memcpy(path + len, "/stat", 6);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  std::size_t end = static_cast<std::size_t>(n);
  while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == ' ')) --end;
  std::size_t start = end;
  while (start > 0 && buf[start - 1] >= '0' && buf[start - 1] <= '9') --start;
  if (start == end || start < 2 || buf[start - 2] == ')') return -1;  // no such field
  int v = 0;
  for (std::size_t i = start; i < end; ++i) v = v * 10 + (buf[i] - '0');
  return v;
}

// PIDFD_GET_INFO (Linux 6.15): pidfs records a process's wait status when
// its parent reaps it and gives it to any holder of a pidfd afterwards. The
// fields up to exit_code are the first version of the struct; the kernel
// takes the size from the request.
struct PidfdInfo {
  std::uint64_t mask;
  std::uint64_t cgroupid;
  std::uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  std::int32_t exit_code;
};
static_assert(sizeof(PidfdInfo) == 64, "PIDFD_INFO_SIZE_VER0");
constexpr std::uint64_t kPidfdInfoExit = 1U << 3;
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);

// The wait status of the ended process behind `pidfd`, or -1 if it cannot
// be had. Its parent (hydra's proxy, orted) may reap it at any moment: a
// zombie is read in /proc, a reaped process through pidfs. The zombie alone
// lost the status whenever the proxy was quicker, most often when it was
// told to end the job. pidfs records the status before /proc forgets the
// process, so one of the two looks always finds it on kernels that have it.
int exit_status(int pidfd, int pid) {
  for (int tries = 0; tries < 100; ++tries) {
    PidfdInfo info{};
    info.mask = kPidfdInfoExit;
    const bool pidfs = ::ioctl(pidfd, kPidfdGetInfo, &info) == 0;
    if (pidfs && (info.mask & kPidfdInfoExit)) return info.exit_code;
    const int st = zombie_status(pid);
    if (st >= 0 || !pidfs) return st;
    // Reaped between the two looks: pidfs has it now.
  }
  return -1;
}

// The watcher, in a child forked from a process that has threads (MPI's):
// only system calls from here on, no allocation, no locks.
[[noreturn]] void watch(int pidfd, int pid, const std::vector<sockaddr_in>& addrs, const char* line_head,
                        std::size_t head_len, std::vector<char>& line, const char* prefix, std::size_t prefix_len) {
  ::setsid();  // out of the unit's process group, which launchers signal
  // Nothing of the unit's may stay open here but its stdout and stderr
  // (see unit_watch.hpp): its PMI connection, for one, would look alive.
  const int null = ::open("/dev/null", O_RDONLY);
  ::dup2(null, 0);
  if (pidfd > 3) ::dup2(pidfd, 3);
  ::syscall(SYS_close_range, 4U, ~0U, 0);
  pidfd = 3;
  pollfd p{pidfd, POLLIN, 0};
  while (::poll(&p, 1, -1) != 1) {
  }
  const int status = exit_status(pidfd, pid);
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
  // A unit that ended cleanly (or was reaped before its status could be
  // read: -1) and left nothing: nothing to say.
  if (status > 0 || removed != 0) {
    std::memcpy(line.data(), line_head, head_len);
    std::size_t len = head_len;
    put_number(line.data(), &len, status);
    line[len++] = ' ';
    put_number(line.data(), &len, removed);
    line[len++] = '\n';
    for (const sockaddr_in& a : addrs) {
      const int sock = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (sock < 0) break;
      pollfd c{sock, POLLOUT, 0};
      int err = 0;
      socklen_t el = sizeof err;
      const bool up = (::connect(sock, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0 ||
                       (errno == EINPROGRESS && ::poll(&c, 1, kDialMs) == 1 &&
                        ::getsockopt(sock, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0));
      if (up && ::send(sock, line.data(), len, MSG_NOSIGNAL) == static_cast<ssize_t>(len)) {
        pollfd r{sock, POLLIN, 0};
        char ok[4];
        if (::poll(&r, 1, kAckMs) == 1 && ::recv(sock, ok, sizeof ok, 0) < 0) {
          // dartrun is gone: the objects are removed all the same.
        }
        ::close(sock);
        break;
      }
      ::close(sock);
    }
  }
  ::_exit(0);
}

}  // namespace

void start_unit_watch(const Config& cfg, int myid) {
  if (cfg.job_channel.empty() || cfg.job_key == 0) return;
  std::vector<sockaddr_in> addrs;
  if (!parse_channel_spec(cfg.job_channel, &addrs)) {
    log(LogLevel::Error, kCall, "ignoring DART_JOB_CHANNEL=\"%s\": expected tcp:ADDR[,ADDR...]:PORT",
        cfg.job_channel.c_str());
    return;
  }
  const int pid = static_cast<int>(::getpid());
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    log(LogLevel::Warn, kCall, "pidfd_open: %s; this unit's end goes unwatched", std::strerror(errno));
    return;
  }
  // Everything the watcher needs is made here: after fork it may only make
  // system calls (the unit has threads, MPI's among them).
  const std::string head = "dartrun-unit-1 " + cfg.stdin_secret + " " + std::to_string(myid) + " ";
  std::vector<char> line(head.size() + 48);
  char prefix[64];
  const int plen = std::snprintf(prefix, sizeof prefix, "dart-%016llx-%d-",
                                 static_cast<unsigned long long>(cfg.job_key), myid);
  // Forked twice, so that the watcher is no child of the unit: a program
  // that waits for any of its children must not wait for it.
  const pid_t child = ::fork();
  if (child == 0) {
    if (::fork() == 0)
      watch(pidfd, pid, addrs, head.c_str(), head.size(), line, prefix, static_cast<std::size_t>(plen));
    ::_exit(0);
  }
  if (child < 0) log(LogLevel::Warn, kCall, "fork: %s; this unit's end goes unwatched", std::strerror(errno));
  else
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  ::close(pidfd);
}

}  // namespace dart
