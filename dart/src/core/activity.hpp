// Keeps DART's progress thread (core/progress.hpp) from calling MPI at the
// same time as another thread of its process calls MPI for DART.
//
// The thread exists for a unit that computes without calling MPI. Two
// measured reasons keep it out while another thread of the unit is in MPI:
//
// * Correctness. Open MPI 4.1's osc/ucx (UCX 1.13, TCP between hosts) can
//   lose the completion of a request-based get when another thread drives
//   progress while MPI_Rget is issued: a plain MPI program, 6 ranks on 3
//   rig hosts each doing 2000 MPI_Rget + MPI_Waitall per round, hung in
//   every one of 9 runs of 100 rounds with a thread calling MPI_Test every
//   100 us (also when that thread held off during MPI_Waitall), and passed
//   every run without the thread, or with the thread kept out of MPI_Rget
//   and MPI_Waitall. DART's dart_onesided hung the same way on the rig
//   (one unit in MPI_Waitall forever, every other unit polling).
// * Cost. Both threads would share the library's progress engine and its
//   lock (UCX's worker spinlock); on a machine with more busy processes
//   than cores, a thread spinning for a lock that a waiting call holds
//   takes the CPU from the processes that call waits for. A blocking call
//   drives progress for every window and communicator anyway.
//
// So each MPI call the runtime makes while a unit's thread may run is
// marked with an InMpi (the blocking ones for their whole length), and the
// two sides exclude each other Dekker-style: the marker announces itself,
// then waits for a poll already under way to finish; the thread announces
// its poll, then polls only if no marker is announced. Only MPI calls are
// marked, never the DART call around them: a DART call that waits without
// calling MPI (it sleeps between attempts, reads a word with a CPU load,
// blocks on a mutex) may wait for RMA that this unit's memory receives, and
// then the thread's polls are all the progress there is. (Counting whole
// DART calls instead starved dart_locks across hosts: threads blocked on a
// lock's mutex kept the count up while the holder waited for RMA to this
// unit.)
//
// A mark costs one locked addition, one load and one locked subtraction,
// paid only while a progress thread runs; MPI calls made while none runs
// are not counted.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace dart::activity {

// Set while a progress thread runs.
extern std::atomic<bool> tracked;
// Marked MPI calls: the low kFinished bits count those under way, on any
// thread of this process; the bits above count those finished that reach
// another unit (the progress thread reads both, core/progress.cpp).
constexpr std::uint64_t kFinished = std::uint64_t(1) << 24;
extern std::atomic<std::uint64_t> in_mpi;
// Set while the progress thread polls.
extern std::atomic<bool> polling;

// Whether a marked call counts as the unit driving its own progress when
// it finishes. A call that reaches only the caller (a flush of RMA to the
// caller's own memory, MPI_Win_sync, a poll of the engine) does not:
// under Open MPI's osc/ucx such calls do not apply RMA that arrives from
// other hosts, so a unit that waits in them still needs the thread.
enum class Reach : bool { Others, Self };

// Marks an MPI call for its lifetime, if a progress thread ran when it
// began (so it never takes back what it did not add).
class InMpi {
 public:
  explicit InMpi(Reach reach = Reach::Others) noexcept
      : counted_(tracked.load(std::memory_order_relaxed)), reach_(reach) {
    if (!counted_) return;
    in_mpi.fetch_add(1, std::memory_order_seq_cst);
    // A poll takes microseconds, unless the thread lost its CPU in the
    // middle of one: then spinning only keeps the CPU from it.
    for (int spins = 0; polling.load(std::memory_order_seq_cst); ++spins) {
      if (spins < 64) __builtin_ia32_pause();
      else std::this_thread::yield();
    }
  }
  ~InMpi() {
    if (!counted_) return;
    if (reach_ == Reach::Others) in_mpi.fetch_add(kFinished - 1, std::memory_order_release);
    else in_mpi.fetch_sub(1, std::memory_order_release);
  }
  InMpi(const InMpi&) = delete;
  InMpi& operator=(const InMpi&) = delete;

 private:
  bool counted_;
  Reach reach_;
};

// For the progress thread: runs `poll` unless a marked MPI call is under
// way or, since the thread saw `finished`, a marked call that reaches
// another unit finished (then the thread skips this turn). Returns whether
// it polled, and the count of such finished calls it saw.
struct Turn {
  bool polled;
  std::uint64_t finished;
};
template <class Poll>
Turn poll_unless_in_mpi(std::uint64_t finished, Poll&& poll) {
  polling.store(true, std::memory_order_seq_cst);
  const std::uint64_t v = in_mpi.load(std::memory_order_seq_cst);
  const bool free = (v & (kFinished - 1)) == 0 && v / kFinished == finished;
  if (free) poll();
  polling.store(false, std::memory_order_release);
  return {free, v / kFinished};
}

}  // namespace dart::activity
