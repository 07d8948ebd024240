// Polling without a spinning core. The stdin path's MPI threads (unit 0's
// courier, each target's receiver) and dart_exit's wait for the other units
// poll MPI for long idle stretches, such as while a user types or a slow
// reader drains its pipe; MPI's blocking calls would keep a core busy for
// all of it. A few yields keep a busy stream fast; after them the waits
// double up to 1 ms, so an idle path costs next to nothing.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace dart::stdin_path {

class Backoff {
 public:
  // Something happened: poll at full speed again.
  void reset() noexcept { idle_ = 0; }

  // Nothing happened: yield, or sleep for 1 us, 2 us, ... up to 1 ms.
  void wait() {
    if (idle_ < 32) {
      ++idle_;
      std::this_thread::yield();
      return;
    }
    unsigned us = 1u << std::min(idle_ - 32, 10u);
    if (idle_ < 64) ++idle_;
    std::this_thread::sleep_for(std::chrono::microseconds(std::min(us, 1000u)));
  }

 private:
  unsigned idle_ = 0;
};

}  // namespace dart::stdin_path
