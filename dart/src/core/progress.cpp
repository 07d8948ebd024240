#include "core/progress.hpp"

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
  // A receive nobody will ever match (nothing is sent on this
  // communicator), tested at every interval: testing an incomplete request
  // runs the library's whole progress engine, one-sided components
  // included. A probe is not enough: Open MPI's pml/ucx runs the engine
  // only on every 100th probe, so osc/ucx, which applies incoming
  // operations at the target when the network cannot (TCP), served a
  // waiting target every 10 ms, and threads that all waited on such a
  // target hung.
  MPI_Request pending = MPI_REQUEST_NULL;
  const bool have_request = MPI_Irecv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, 0, comm_.get(), &pending) == MPI_SUCCESS;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
    lock.unlock();
    int flag = 0;
    if (have_request) MPI_Test(&pending, &flag, MPI_STATUS_IGNORE);
    else MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_.get(), &flag, MPI_STATUS_IGNORE);
    lock.lock();
  }
  if (have_request && pending != MPI_REQUEST_NULL) {
    MPI_Cancel(&pending);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
  }
}

}  // namespace dart
