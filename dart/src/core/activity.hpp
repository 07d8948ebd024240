// Whether a thread of this process is inside a blocking MPI call, for the
// progress thread (core/progress.hpp).
//
// The thread exists for a unit that computes without calling MPI. While one
// of the unit's threads waits inside a blocking MPI call (MPI_Waitall,
// MPI_Win_flush, a collective), that call drives the library's progress
// engine itself, for every communicator and window, in Open MPI and MPICH
// alike. A poll from the thread then does nothing useful and costs much:
// under MPI_THREAD_MULTIPLE the two threads share the engine and its lock
// (UCX's worker spinlock under Open MPI's pml/osc ucx and MPICH's ch4:ucx),
// and on a machine with more busy processes than cores a thread spinning for
// a lock that the waiting call holds takes the CPU from the processes whose
// progress that call waits for. Measured on the 3-host rig (6 units on 2
// cores, UCX over TCP): dart_onesided hung in 2 of 4 runs with the thread
// polling beside a unit's MPI_Waitall (UCX then reports endpoint timeouts),
// and passed 4 of 4 with the thread off.
//
// So each blocking MPI call the runtime makes is marked with an InMpi for
// its length, and the thread holds off while any is under way. Only the MPI
// call is marked, never the DART call around it: a DART call that waits
// without calling MPI (it sleeps between attempts, reads a word with a CPU
// load, blocks on a mutex) may be waiting for RMA that this unit's memory
// receives, and then the thread's polls are all the progress there is.
// (Counting whole DART calls instead starved dart_locks across hosts: two
// threads blocked on a lock's mutex kept the count up while the holder
// waited for RMA to this unit.) An unmarked blocking call only costs the
// contention above, never progress.
//
// Marking costs two atomic additions per marked call, paid only while a
// progress thread runs.
#pragma once

#include <atomic>

namespace dart::activity {

// Set while a progress thread runs; calls made while it is clear are not
// counted (and so never uncounted).
extern std::atomic<bool> tracked;
// Blocking MPI calls under way, on any thread of this process.
extern std::atomic<int> in_mpi;

// Marks a blocking MPI call for its lifetime, if a progress thread ran when
// it began (so it never takes back what it did not add).
class InMpi {
 public:
  InMpi() noexcept : counted_(tracked.load(std::memory_order_relaxed)) {
    if (counted_) in_mpi.fetch_add(1, std::memory_order_relaxed);
  }
  ~InMpi() {
    if (counted_) in_mpi.fetch_sub(1, std::memory_order_relaxed);
  }
  InMpi(const InMpi&) = delete;
  InMpi& operator=(const InMpi&) = delete;

 private:
  bool counted_;
};

// True while no thread of this process drives MPI (a poll from the progress
// thread then has no one to compete with, and may be all the progress there
// is).
inline bool idle() noexcept { return in_mpi.load(std::memory_order_relaxed) <= 0; }

}  // namespace dart::activity
