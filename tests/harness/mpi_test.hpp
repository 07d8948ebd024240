// Helpers shared by the MPI test suites.
//
// Every test executable links dart_test_main, whose main() initialises MPI
// (MPI_THREAD_MULTIPLE when available), runs Boost.Test on every rank and
// combines the ranks' verdicts. Test files include this header and write
// ordinary BOOST_AUTO_TEST_CASEs; each rank runs every case.
#pragma once

#include <mpi.h>
#include <boost/test/unit_test.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace mpitest {

// Rank and size of the job, read once by the harness after MPI_Init.
int world_rank();
int world_size();

// True on exactly one rank of the job, for output that should appear once.
inline bool is_root() { return world_rank() == 0; }

// Logical AND of `value` over all ranks of MPI_COMM_WORLD, so a check can
// assert that something held everywhere (and fail on every rank if not).
bool all_ranks(bool value);

// `count` repetitions of a loop that exists for volume (hammering, cycles),
// times DART_TEST_SCALE (default 1, at least 1 repetition). The cross-host
// runs set it below 1: there each remote operation costs tens of
// microseconds instead of tens of nanoseconds, and what the loop asserts
// does not depend on its length.
inline long scaled(long count) {
  const char* s = std::getenv("DART_TEST_SCALE");
  const double f = s ? std::atof(s) : 1.0;
  if (!(f > 0) || f >= 1) return count;
  const long n = static_cast<long>(static_cast<double>(count) * f);
  return n > 0 ? n : 1;
}

// The kernel's id of the calling thread, for thread_state().
inline long thread_id() { return static_cast<long>(::syscall(SYS_gettid)); }

// What the kernel says a thread of this process is doing, in one line:
// its state, the function it sleeps in (wchan), the system call it is in
// with its arguments, and its context switch counts. For the message of a
// bounded wait that gave up on another thread, so the failure says where
// that thread stood (a thread whose counts do not move between two such
// lines has not run).
inline std::string thread_state(long tid) {
  const std::string dir = "/proc/self/task/" + std::to_string(tid) + "/";
  auto read = [&](const char* name) {
    std::ifstream in(dir + name);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
    return text;
  };
  std::ostringstream os;
  os << "thread " << tid;
  std::istringstream status(read("status"));
  for (std::string line; std::getline(status, line);)
    if (line.rfind("State:", 0) == 0 || line.find("ctxt_switches:") != std::string::npos) os << ", " << line;
  os << ", wchan " << read("wchan") << ", syscall " << read("syscall");
  return os.str();
}

}  // namespace mpitest
