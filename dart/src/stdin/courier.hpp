// The stdin path's MPI transport: bytes for target units other than 0.
//
// On unit 0 a courier thread takes the chunks the fan-out queued for the
// remote targets and sends them over a private duplicate of the world
// communicator, at most a few per target in flight. On each remote target
// a receiver thread writes them into the pipe that replaced its fd 0 and
// acknowledges every chunk once it is in the pipe (or dropped because the
// reader is gone); the courier reports the acknowledged bytes to the
// fan-out, so a remote target's queue counts what is not yet in its pipe.
// The end of a target's stream is an empty message; the receiver answers
// it with a final "bye", and the courier ends once every target has said
// bye. Both threads poll MPI with a back-off (stdin/backoff.hpp), so an
// idle path costs no core; they need MPI_THREAD_MULTIPLE.
#pragma once

#include "stdin/fanout.hpp"
#include "stdin/fd0.hpp"

#include <mpi.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

namespace dart::stdin_path {

// Unit 0's side; the only thread of unit 0 that uses `comm`.
class Courier final : public Transport {
 public:
  Courier(const std::vector<int>& units, MPI_Comm comm);

  void start(Fanout& fanout) override;
  void join() override;

 private:
  struct Remote {
    int unit = 0;
    std::vector<std::pair<MPI_Request, Chunk>> inflight;  // in MPI_Isend
    bool end_sent = false;
    bool bye = false;
  };

  void run(Fanout& fanout);
  Remote* find(int unit);

  MPI_Comm comm_;
  std::vector<Remote> remotes_;
  std::thread thread_;
};

// A remote target's side: receives from unit 0 into fd0's pipe until the
// end of the stream.
class Receiver {
 public:
  Receiver(MPI_Comm comm, Fd0& fd0);
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  // Gives up a write into a full pipe, then waits for the end of the
  // stream (unit 0 sends it once every unit is in dart_exit).
  void stop();

 private:
  void run();

  MPI_Comm comm_;
  Fd0& fd0_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace dart::stdin_path
