// The relay: dartrun's stdin to the job's stdin server on unit 0, as a
// PMIx shim tool. The server is reached either at the Unix socket in
// dartrun's directory (unit 0 on this host) or at the TCP URI unit 0 sent
// over the job channel (unit 0 elsewhere); with both offered, whichever
// appears first.
#pragma once

#include "channel.hpp"

#include <pmix_common.h>

#include <atomic>
#include <mutex>
#include <string>

namespace dartrun {

struct Pusher {
  std::string socket_path;        // empty: no Unix socket offered
  JobChannel *channel = nullptr;  // null: no TCP rendezvous offered
  std::string secret;
  std::atomic<bool> job_done{false};
  std::mutex mu;  // serialises connecting against the final tool finalize
  bool connected = false;
  bool via_tcp = false;
  pmix_status_t result = PMIX_SUCCESS;

  // Pusher thread: finds the server, pushes fd 0 until the end.
  void run();
  // Main thread, after the launcher exited: completes a push still
  // waiting (the job is gone) with a failure.
  void finish();

 private:
  std::string await_server();
};

}  // namespace dartrun
