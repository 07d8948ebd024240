// MPICH's launcher (hydra) reads a unit's stdout and stderr from pipes and
// its PMI messages from a socket, and handles whichever is ready. When a
// unit logs why it aborts and then calls MPI_Abort, the abort can be handled
// first: hydra kills the job, and the bytes still in the pipe, the one line
// that says why, are lost (seen under load in the collective-timeout abort
// test). Once the launcher has taken the bytes out of the pipe it forwards
// them ahead of the abort, which comes later on the same path. So before
// aborting, a unit waits until its output pipes are empty: FIONREAD on a
// pipe counts the unread bytes from either end. Only pipes are waited on: a
// terminal or a file holds nothing back, and on a socket FIONREAD counts
// the other direction. The wait is bounded, as a launcher that stopped
// reading must not keep the job alive.
#include "abort.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace dart::mpifix {

namespace {

constexpr auto kDrainLimit = std::chrono::milliseconds(1000);

bool is_pipe(int fd) noexcept {
  struct stat st;
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

bool pipe_empty(int fd) noexcept {
  int unread = 0;
  return ::ioctl(fd, FIONREAD, &unread) != 0 || unread <= 0;
}

void await_reader(int fd, std::chrono::steady_clock::time_point deadline) noexcept {
  if (!is_pipe(fd)) return;
  while (!pipe_empty(fd) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

void abort_job(MPI_Comm comm, int code) noexcept {
  std::fflush(stdout);
  std::fflush(stderr);
  const auto deadline = std::chrono::steady_clock::now() + kDrainLimit;
  await_reader(STDERR_FILENO, deadline);
  await_reader(STDOUT_FILENO, deadline);
  MPI_Abort(comm, code);
  std::_Exit(code);  // MPI_Abort does not return; should it, the unit still ends
}

}  // namespace dart::mpifix
