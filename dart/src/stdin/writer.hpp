// Unit 0's own share of its stdin: when unit 0 is a target, a writer
// thread moves its queue of the fan-out into the pipe that replaced unit
// 0's fd 0. The bytes count as delivered once they are in the pipe, so a
// reader that falls behind fills the pipe and then holds back the producer.
#pragma once

#include "stdin/fanout.hpp"
#include "stdin/fd0.hpp"

#include <atomic>
#include <thread>

namespace dart::stdin_path {

class PipeWriter final : public Transport {
 public:
  // Writes the chunks of `target` into fd0's pipe; closes its write end
  // when the target's stream ends, so the reader sees EOF exactly once.
  PipeWriter(int target, Fd0& fd0) : target_(target), fd0_(fd0) {}

  void start(Fanout& fanout) override;
  void join() override;

  // The fan-out's direct delivery (Fanout::set_direct): what fits into the
  // pipe now, written by the producer's thread while this writer has
  // nothing in hand. A reader that keeps up then costs one write per chunk
  // and no hand-over between threads.
  std::size_t write_now(const char* data, std::size_t n);

 private:
  void run(Fanout& fanout);

  const int target_;
  Fd0& fd0_;
  std::atomic<bool> stop_{false};  // a write into a full pipe gives up
  std::thread thread_;
};

}  // namespace dart::stdin_path
