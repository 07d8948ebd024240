// The progress engine: one thread running a libevent loop that owns every
// piece of library state.  Other threads never touch that state; they post
// requests (heap closures) which the thread runs in FIFO order.
//
// Why libevent: it is what OpenPMIx itself uses for the same job, it is a
// small C library with a stable ABI on every distribution, and its model
// maps one-to-one onto the flow-control rule "XOFF un-arms the read":
// event_add arms exactly one read event per descriptor, event_del un-arms it,
// and nothing is read behind our back (Boost.Asio's async_read_some would do
// too, but needs a completion handler object per read and brings exceptions
// into a C library).  Each engine has its own event_base and its own eventfd
// wake-up, so the engine uses no global libevent state
// (evthread_use_pthreads is never called): Open MPI, which loads the same
// libevent for its own libpmix, is not disturbed.
#pragma once

#include <event2/event.h>

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace pmixshim {

class Engine {
 public:
  using Request = std::function<void()>;

  // Creates the event base and starts the thread; nullptr on failure.
  static std::unique_ptr<Engine> start();
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  // Queues fn to run on the progress thread.  Returns false (fn is
  // dropped) once stop() has begun: the engine no longer accepts work.
  [[nodiscard]] bool post(Request fn);

  // Stops accepting, runs every request already queued, leaves the loop
  // and joins the thread.  The stop travels in-band (a request at the end
  // of the queue), so it is deterministic.  Must not be called on the
  // progress thread.
  void stop();

  [[nodiscard]] event_base *base() const { return base_; }
  [[nodiscard]] bool accepting() const { return accepting_.load(); }

  // True on any progress thread of this library.
  [[nodiscard]] static bool on_progress_thread();

 private:
  Engine() = default;
  void run();
  static void on_wake(evutil_socket_t fd, short what, void *arg);

  event_base *base_ = nullptr;
  event *wake_ev_ = nullptr;
  int wake_fd_ = -1;
  std::mutex mu_;
  std::deque<Request> queue_;
  std::atomic<bool> accepting_{true};
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace pmixshim
