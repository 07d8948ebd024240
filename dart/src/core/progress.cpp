#include "core/progress.hpp"

#include "core/activity.hpp"

namespace dart {

namespace activity {
std::atomic<bool> tracked{false};
std::atomic<int> in_mpi{0};
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
  // Never at the same time as another thread's MPI call for DART
  // (core/activity.hpp).
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
    lock.unlock();
    activity::poll_unless_in_mpi([&] { poller.poll(); });
    lock.lock();
  }
}

}  // namespace dart
