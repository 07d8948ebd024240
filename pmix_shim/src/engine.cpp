#include "engine.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace pmixshim {

namespace {
thread_local bool t_progress_thread = false;
}

bool Engine::on_progress_thread() { return t_progress_thread; }

std::unique_ptr<Engine> Engine::start() {
  std::unique_ptr<Engine> e(new Engine);
  e->base_ = event_base_new();
  if (!e->base_) return nullptr;
  e->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (e->wake_fd_ < 0) return nullptr;
  e->wake_ev_ = event_new(e->base_, e->wake_fd_, EV_READ | EV_PERSIST, &Engine::on_wake, e.get());
  if (!e->wake_ev_ || event_add(e->wake_ev_, nullptr) != 0) return nullptr;
  e->thread_ = std::thread([raw = e.get()] { raw->run(); });
  return e;
}

Engine::~Engine() {
  if (thread_.joinable()) stop();
  if (wake_ev_) event_free(wake_ev_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (base_) event_base_free(base_);
}

bool Engine::post(Request fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    queue_.push_back(std::move(fn));
  }
  uint64_t one = 1;
  // eventfd writes only fail when the counter would overflow, which 2^64
  // pending wake-ups cannot reach.
  ssize_t rc = ::write(wake_fd_, &one, sizeof one);
  (void)rc;
  return true;
}

void Engine::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    // The stop request is the last one ever queued; everything queued
    // before it still runs, in order.
    queue_.push_back([this] { event_base_loopbreak(base_); });
    stopping_ = true;
    accepting_.store(false);
  }
  uint64_t one = 1;
  ssize_t rc = ::write(wake_fd_, &one, sizeof one);
  (void)rc;
  thread_.join();
}

void Engine::run() {
  t_progress_thread = true;
  event_base_dispatch(base_);
}

void Engine::on_wake(evutil_socket_t fd, short, void *arg) {
  auto *self = static_cast<Engine *>(arg);
  uint64_t n;
  ssize_t rc = ::read(fd, &n, sizeof n);
  (void)rc;
  std::deque<Request> batch;
  {
    std::lock_guard<std::mutex> lock(self->mu_);
    batch.swap(self->queue_);
  }
  // Requests run without the lock held, so they (and the callbacks they
  // invoke) may post further requests.
  for (auto &r : batch) r();
}

}  // namespace pmixshim
