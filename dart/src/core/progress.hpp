// A thread that keeps the MPI library progressing while the application
// computes.
//
// Some MPI libraries complete an RMA operation only when the target process
// calls into MPI. Measured here: Debian's MPICH 4.0.2 (ch4:ucx) does so for
// every window kind, shared-memory windows included, and Open MPI 4.1's
// osc/ucx (windows over user memory) does so for atomics. A target that
// computes without calling DART would then stall every unit that reads or
// updates its memory. While the thread runs, the target polls MPI every
// DART_PROGRESS_INTERVAL_US microseconds (MPI_Test of a receive that never
// matches, on a private communicator), which bounds that stall. It needs
// MPI_THREAD_MULTIPLE.
#pragma once

#include "core/mpi_handles.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace dart {

// One turn of the MPI library's progress engine per poll(): a receive
// nobody will ever match (nothing is sent on `comm`), tested. Testing an
// incomplete request runs the whole engine, one-sided components included.
// A probe is not enough: Open MPI's pml/ucx runs the engine only on every
// 100th probe, so osc/ucx, which applies incoming operations at the target
// when the network cannot (TCP), served a waiting target every 10 ms, and
// threads that all waited on such a target hung. `comm` must span other
// processes: MPICH's MPI_Iprobe on MPI_COMM_SELF does not drive the
// network module that carries RMA. Used by one thread; any number may
// exist at once on the same communicator.
class ProgressPoller {
 public:
  // `probe_only`: MPI_Iprobe instead of the standing receive where that
  // drives the library's whole engine (MPICH), which spares a short-lived
  // poller posting and cancelling a receive (microseconds under MPICH).
  explicit ProgressPoller(MPI_Comm comm, bool probe_only = false) noexcept;
  ProgressPoller(const ProgressPoller&) = delete;
  ProgressPoller& operator=(const ProgressPoller&) = delete;
  ~ProgressPoller();  // cancels the receive
  // One turn, from the progress thread.
  void poll() noexcept;
  // One turn, from a thread that waits for the unit: marked as an MPI call
  // (core/activity.hpp), so the progress thread stays out meanwhile.
  void drive() noexcept;

 private:
  MPI_Comm comm_;
  MPI_Request pending_ = MPI_REQUEST_NULL;
  bool have_request_ = false;
};

class ProgressThread {
 public:
  // Starts polling on `comm` (see ProgressPoller), which must outlive the
  // thread.
  ProgressThread(MPI_Comm comm, std::chrono::microseconds interval);
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;
  // Stops the thread (a stop request under the lock, then join).
  ~ProgressThread();

 private:
  void run();

  MPI_Comm comm_;
  std::chrono::microseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace dart
