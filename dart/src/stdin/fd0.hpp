// Each unit's fd 0 while the stdin path runs, and writing into it.
//
// dart_init replaces fd 0 so that an application reads its stdin the
// ordinary way (std::cin, scanf, read(0, ...)): a target unit gets a pipe
// the runtime writes, every other unit /dev/null (EOF at once). The
// original descriptor is kept: unit 0's server may read it (plain mpirun),
// and dart_exit puts it back unless the application replaced fd 0 itself.
// The write side is non-blocking and bounded, so that a full pipe whose
// reader never drains it cannot hold up dart_exit.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>

namespace dart::stdin_path {

class Fd0 {
 public:
  Fd0() = default;
  Fd0(const Fd0&) = delete;
  Fd0& operator=(const Fd0&) = delete;
  ~Fd0();

  // Makes fd 0 the read end of a new pipe (`target`) or /dev/null. False
  // (logged) when that fails; fd 0 is then as it was.
  bool install(bool target);

  // Puts the original fd 0 back if fd 0 is still what install() put there
  // (an application that closed it and opened something else keeps that).
  // Closing our pipe's read end this way also wakes a writer blocked on it.
  void restore();

  // Closes the write end: the reader sees EOF once the pipe is drained.
  // Safe to call more than once.
  void close_write();

  // The original fd 0, still open (-1: it was closed or not installed).
  int saved() const noexcept { return saved_; }
  // The pipe's write end (non-blocking), or -1.
  int write_fd() const noexcept { return write_fd_; }

 private:
  bool fail_install();

  int saved_ = -1;
  int write_fd_ = -1;
  dev_t dev_ = 0;  // identity of what install() made fd 0
  ino_t ino_ = 0;
};

// Blocks SIGPIPE in the calling thread. SIGPIPE from a write to a pipe whose
// reader is gone goes to the writing thread; the stdin path's writer
// threads block it (and pipe_write takes a pending one back), so a reader
// that closes its stdin early never kills the process.
void block_sigpipe();

// Writes what fits now of [p, p+n) into the non-blocking pipe `fd`, from
// any thread: SIGPIPE is blocked for the call and a pending one taken
// back, so a thread that does not block it (the shim's) may call it.
// Returns the bytes written; 0 when the pipe is full or the reader is gone.
std::size_t pipe_write_now(int fd, const char* p, std::size_t n);

// Writes all of [p, p+n) into the non-blocking pipe `fd`. False when the
// reader is gone (EPIPE) or `stop` was raised while the pipe was full.
bool pipe_write(int fd, const char* p, std::size_t n, const std::atomic<bool>& stop);

}  // namespace dart::stdin_path
