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
  activity::InMpi in_mpi(activity::Reach::Self);
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
  // Never at the same time as another thread's MPI call for DART
  // (core/activity.hpp), and not for a unit that drives its own progress:
  // one that finished, since the last turn, an MPI call reaching another
  // unit (a flush, an RMA call with a request, a collective). Every such
  // call runs the library's engine for all its windows and communicators,
  // and there a poll only costs. Open MPI 4.1 across 2 rig hosts x 1
  // (osc/ucx over TCP, 2 units and 2 threads on 2 cores), bench_gups
  // --updates 2000 (dart_fetch_and_op + dart_flush per update): 1.6-2.5 s
  // a round when the thread polled whenever the unit was between two
  // calls, 0.15-0.16 s when it skips a unit that finished a call (0.21 with
  // a thread that never polls). A poll that loses its CPU there holds
  // osc/ucx's worker lock while both units wait for it.
  //
  // Calls that reach only the caller do not count (activity::Reach::Self):
  // a unit that waits by reading its own memory through MPI
  // (dart_lock_acquire, shmem_wait_until on a team across hosts) finishes
  // them all the time, yet under osc/ucx they do not apply the RMA it
  // waits for. Counting them, dart_locks across 2 rig hosts x 2 handed on
  // no lock in 60 s and test_shmem_sync hung.
  //
  // kBusyTurns turns in a row that skip a busy unit double the wait before
  // the next, up to kMaxBackoff times the interval; any other turn returns
  // to the interval. Every wake-up takes a CPU from a process that spins
  // in MPI: DASH's GUPS on 2 rig hosts x 1 under MPICH (4 threads on 2
  // cores), medians of 9 runs against DASH's own DART-MPI in the same
  // session: 1.21-1.37x as long with a turn every interval, 1.00-1.05x
  // with the back-off. A unit inside one long MPI call (team creation, a
  // barrier) is not busy by this rule: backing off there made dart_teams
  // across 2 hosts x 2 take 28 s instead of 6 (300 live teams created one
  // after the other). Sleeping instead until the call ends (the end of
  // every marked call waking a thread that sleeps) made dart_teams at 3
  // rig hosts x 2 under MPICH take 120-127 s instead of 20-27: the thread
  // then took its turn right at each call's end, as the unit went into its
  // next call. A unit that stops calling MPI is polled again within
  // kMaxBackoff intervals (3.2 ms by default), then at the interval.
  constexpr int kMaxBackoff = 32;
  constexpr int kBusyTurns = 4;
  auto wait = interval_;
  std::uint64_t finished = 0;
  int busy = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, wait, [this] { return stop_; })) {
    lock.unlock();
    const activity::Turn turn = activity::poll_unless_in_mpi(finished, [&] { poller.poll(); });
    busy = turn.finished != finished ? busy + 1 : 0;
    finished = turn.finished;
    wait = busy >= kBusyTurns ? std::min(wait * 2, interval_ * kMaxBackoff) : interval_;
    lock.lock();
  }
}

}  // namespace dart
