// How many calls into DART are under way in this process, for the progress
// thread (core/progress.hpp).
//
// The thread exists for a unit that computes without calling DART. While a
// call is under way, the unit drives MPI itself: every DART call that
// waits does so inside MPI or polls it (MPICH needs that anyway). A poll
// from the thread then does nothing useful and costs much: under
// MPI_THREAD_MULTIPLE the two threads share the library's progress engine
// and its lock (UCX's worker spinlock under Open MPI's pml/osc ucx and
// MPICH's ch4:ucx), and on a machine with more busy processes than cores a
// thread spinning for a lock that the waiting call holds takes the CPU from
// the processes whose progress that call waits for. Measured on the 3-host
// rig (6 units on 2 cores, UCX over TCP): dart_onesided hung in 2 of 4
// runs with the thread polling beside a unit's MPI_Waitall (UCX then
// reports endpoint timeouts), and passed 4 of 4 with the thread off.
//
// entry() (core/error.hpp) counts every checked call; the hot paths that
// bypass entry() (direct load/store transfers and flushes) never wait. A
// call that waits without calling MPI (it sleeps between attempts) marks
// that stretch with a Pause, during which the thread polls again: the unit
// may be the target that the operations it waits for need. A stretch left
// unmarked still gets a poll every few milliseconds (ProgressThread::run).
// Counting costs two atomic additions per call, paid only while a progress
// thread runs.
#pragma once

#include <atomic>

namespace dart::activity {

// Set while a progress thread runs; calls made while it is clear are not
// counted (and so never uncounted).
extern std::atomic<bool> tracked;
// Calls into DART under way, on any thread of this process.
extern std::atomic<int> inside;

// Adds `Delta` to the count for its lifetime, if a progress thread ran
// when it began (so it never takes back what it did not add).
template <int Delta>
class Counted {
 public:
  Counted() noexcept : counted_(tracked.load(std::memory_order_relaxed)) {
    if (counted_) inside.fetch_add(Delta, std::memory_order_relaxed);
  }
  ~Counted() {
    if (counted_) inside.fetch_sub(Delta, std::memory_order_relaxed);
  }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  bool counted_;
};

// A call into DART under way.
using Scope = Counted<1>;
// Inside a counted call: a stretch in which this thread waits without
// calling MPI. (A Pause inside a call that started before the thread did
// takes the count below zero for its length, which reads as idle too.)
using Pause = Counted<-1>;

// True while no call into DART drives MPI (a poll from the progress thread
// then has no one to compete with, and may be all the progress there is).
inline bool idle() noexcept { return inside.load(std::memory_order_relaxed) <= 0; }

}  // namespace dart::activity
