#include "progress.hpp"

namespace dart {

ProgressThread::ProgressThread(mpi::Comm comm, std::chrono::microseconds interval)
    : comm_(std::move(comm)), interval_(interval) {
  thread_ = std::thread([this] { run(); });
}

ProgressThread::~ProgressThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ProgressThread::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
    lock.unlock();
    // Nothing is ever sent on this communicator: the probe only drives the
    // library's progress engine, which completes pending RMA at this target.
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_.get(), &flag, MPI_STATUS_IGNORE);
    lock.lock();
  }
}

}  // namespace dart
