// Unit 0's pipe writer (stdin/writer.hpp).
#include "stdin/writer.hpp"

#include "core/config.hpp"
#include "core/log.hpp"

namespace dart::stdin_path {

void PipeWriter::start(Fanout& fanout) {
  thread_ = std::thread([this, &fanout] { run(fanout); });
}

std::size_t PipeWriter::write_now(const char* data, std::size_t n) {
  // The write end is closed only after the fan-out stopped feeding this
  // target, and the fan-out calls this only while it feeds it.
  return pipe_write_now(fd0_.write_fd(), data, n);
}

void PipeWriter::join() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void PipeWriter::run(Fanout& fanout) {
  block_sigpipe();
  for (;;) {
    Chunk c = fanout.next(target_);
    if (!c) break;  // end of stream, or stopping
    if (!pipe_write(fd0_.write_fd(), c->data(), c->size(), stop_)) {
      if (fanout.drop(target_))
        log(LogLevel::Info, "dart_stdin", "unit %d closed its stdin; its remaining input is discarded", target_);
      break;
    }
    fanout.delivered(target_, c->size());
  }
  fd0_.close_write();  // the reader's EOF, exactly once
}

}  // namespace dart::stdin_path
