#include "core/progress.hpp"

#include "core/activity.hpp"

#include <algorithm>

namespace dart {

namespace activity {
std::atomic<bool> tracked{false};
std::atomic<std::uint64_t> in_mpi{0};
std::atomic<bool> polling{false};
}  // namespace activity

ProgressPoller::ProgressPoller(MPI_Comm comm, bool probe_only) noexcept : comm_(comm) {
#if defined(MPICH_VERSION)
  if (probe_only) return;
#else
  (void)probe_only;
#endif
  have_request_ = MPI_Irecv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, 0, comm_, &pending_) == MPI_SUCCESS;
}

ProgressPoller::~ProgressPoller() {
  if (have_request_ && pending_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&pending_);
    MPI_Wait(&pending_, MPI_STATUS_IGNORE);
  }
}

void ProgressPoller::drive() noexcept {
  activity::InMpi in_mpi;
  poll();
}

void ProgressPoller::poll() noexcept {
  int flag = 0;
  if (have_request_) MPI_Test(&pending_, &flag, MPI_STATUS_IGNORE);
  else MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE);
}

ProgressThread::ProgressThread(MPI_Comm comm, std::chrono::microseconds interval)
    : comm_(comm), interval_(interval) {
  activity::tracked.store(true, std::memory_order_relaxed);
  thread_ = std::thread([this] { run(); });
}

ProgressThread::~ProgressThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  activity::tracked.store(false, std::memory_order_relaxed);
}

void ProgressThread::run() {
  ProgressPoller poller(comm_);
  // The thread polls only for a unit that has made no marked MPI call for
  // a whole turn, and never at the same time as another thread's MPI call
  // for DART (core/activity.hpp). A unit that finished an MPI call since
  // the last turn drives its own progress: every MPI call of this process
  // progresses all its windows and communicators. There a poll only costs.
  // Open MPI 4.1 across 2 rig hosts x 1 (osc/ucx, 2 units and 2 threads
  // on 2 cores), bench_gups --updates 2000, dart_fetch_and_op + dart_flush
  // per update: 1.7-2.5 s a round when the thread polled whenever the
  // unit was between two calls, 0.17-0.22 s when it skips such a unit
  // (0.21 with a thread that never polls). A poll that loses its CPU there
  // holds osc/ucx's worker lock while both units wait for it.
  //
  // Four turns in a row that skip a busy unit double the wait before the
  // next, up to kMaxBackoff times the interval; a turn that finds the unit
  // idle returns to the interval. Every wake-up of the thread takes a CPU
  // from a process that spins in MPI. DASH's GUPS on 2 rig hosts x 1
  // under MPICH (4 threads on 2 cores), medians of 9 runs against DASH's
  // own DART-MPI in the same session: 1.21-1.37x as long with a turn
  // every interval, 1.00-1.05x with this back-off. A unit inside one long
  // MPI call (team creation, a barrier) does not count as busy: backing
  // off there made dart_teams across 2 hosts x 2 take 28 s instead of 6
  // (300 live teams created one after the other). A unit that stops
  // calling MPI is polled again within kMaxBackoff intervals (3.2 ms by
  // default), then at the interval.
  constexpr int kMaxBackoff = 32;
  constexpr int kBusyTurns = 4;
  auto wait = interval_;
  std::uint64_t finished = activity::finished_calls();
  int busy = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, wait, [this] { return stop_; })) {
    lock.unlock();
    const std::uint64_t now = activity::finished_calls();
    if (now != finished) {
      finished = now;
      ++busy;
    } else {
      activity::poll_unless_in_mpi([&] { poller.poll(); });
      busy = 0;
    }
    wait = busy >= kBusyTurns ? std::min(wait * 2, interval_ * kMaxBackoff) : interval_;
    lock.lock();
  }
}

}  // namespace dart
