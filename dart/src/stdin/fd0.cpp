// Replacing fd 0 and writing into the pipe behind it (stdin/fd0.hpp).
#include "stdin/fd0.hpp"

#include "core/config.hpp"
#include "core/log.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dart::stdin_path {
namespace {

// The pipes we create ask for 1 MiB (Linux's default pipe-max-size): fewer,
// larger reads for the application and fewer wake-ups for the writer. Pipe
// pages are kernel memory, not the process's.
constexpr int kPipeBytes = 1 << 20;

void discard_sigpipe() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  timespec zero{0, 0};
  while (sigtimedwait(&s, nullptr, &zero) == SIGPIPE) {
  }
}

}  // namespace

Fd0::~Fd0() {
  close_write();
  if (saved_ >= 0) ::close(saved_);
}

bool Fd0::install(bool target) {
  saved_ = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  int read_fd = -1;
  if (target) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return fail_install();
    ::fcntl(p[1], F_SETPIPE_SZ, kPipeBytes);  // best effort: the default works too
    read_fd = p[0];
    write_fd_ = p[1];
    ::fcntl(write_fd_, F_SETFL, ::fcntl(write_fd_, F_GETFL) | O_NONBLOCK);
  } else {
    read_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (read_fd < 0) return fail_install();
  }
  // dup2 leaves the new fd 0 without FD_CLOEXEC, as a stdin should be.
  if (::dup2(read_fd, 0) < 0) {
    ::close(read_fd);
    return fail_install();
  }
  ::close(read_fd);
  struct stat st;
  ::fstat(0, &st);
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  return true;
}

bool Fd0::fail_install() {
  log(LogLevel::Error, "dart_stdin", "cannot replace fd 0: %s", std::strerror(errno));
  close_write();
  if (saved_ >= 0) ::close(saved_);
  saved_ = -1;
  return false;
}

void Fd0::restore() {
  struct stat st;
  bool ours = ::fstat(0, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
  if (ours) {
    if (saved_ >= 0) ::dup2(saved_, 0);
    else ::close(0);
  }
  if (saved_ >= 0) ::close(saved_);
  saved_ = -1;
}

void Fd0::close_write() {
  if (write_fd_ >= 0) ::close(write_fd_);
  write_fd_ = -1;
}

void block_sigpipe() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

std::size_t pipe_write_now(int fd, const char* p, std::size_t n) {
  if (fd < 0 || n == 0) return 0;
  sigset_t s, old;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &s, &old);
  ssize_t w;
  do {
    w = ::write(fd, p, n);
  } while (w < 0 && errno == EINTR);
  if (w < 0 && errno == EPIPE) discard_sigpipe();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return w > 0 ? static_cast<std::size_t>(w) : 0;
}

bool pipe_write(int fd, const char* p, std::size_t n, const std::atomic<bool>& stop) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w > 0) {
      p += w;
      n -= static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      if (stop.load()) return false;
      pollfd pfd{fd, POLLOUT, 0};
      ::poll(&pfd, 1, 100);  // bounded, so a raised `stop` is seen
      continue;
    }
    if (errno == EPIPE) discard_sigpipe();
    return false;
  }
  return true;
}

}  // namespace dart::stdin_path
