// dartrun's TCP listener for the whole job (DART_JOB_CHANNEL, and
// DART_STDIN_RENDEZVOUS names the same port): every unit, wherever the
// launcher placed it, reaches dartrun here. Each peer's first line is a
// word, the job's secret (DART_STDIN_SECRET) and what it has to say:
//
//   dartrun-stdin-1 SECRET URI       unit 0's stdin server (then closed)
//   dartrun-exit-1 SECRET UNIT CODE  a unit's exit code; answered "ok"
//   dartrun-unit-1 SECRET UNIT STATUS REMOVED
//                                    a unit's watcher (dart/src/core/
//                                    unit_watch.hpp): the unit's wait
//                                    status (-1: not known) and how many of
//                                    its /dev/shm objects it removed; "ok"
//
// A peer that does not present the secret within 5 s, sends anything else
// or a wrong secret is closed and counted; the job never sees it.
#pragma once

#include "outcome.hpp"

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dartrun {

// Every IPv4 address of this host that is up, loopback last.
std::vector<std::string> host_addresses();

// Compares every byte whatever differs, so timing tells nothing.
bool same_secret(const std::string &a, const std::string &b);

class JobChannel {
 public:
  using Clock = std::chrono::steady_clock;

  explicit JobChannel(std::string secret) : secret_(std::move(secret)) {}
  ~JobChannel() { stop(); }
  JobChannel(const JobChannel &) = delete;
  JobChannel &operator=(const JobChannel &) = delete;

  // Listens on `mode`'s ADDR ("tcp:ADDR") or every address at an ephemeral
  // port; fills "tcp:A1,A2,...:PORT". False (said on stderr) on failure.
  bool listen(const std::string &mode, std::string *spec);
  void start();
  // Stops the thread and closes every peer.
  void stop();

  // Unit 0's server URI once its hello came; empty until then.
  std::string stdin_uri();
  struct Stats {
    unsigned peers_dropped = 0, units_reported = 0, objects_removed = 0;
  };
  Stats stats();
  // The exit codes units reported here.
  ExitReports reports();
  // The wait statuses the units' watchers read, in no particular order.
  std::vector<int> observed();

  // The listening socket, for the launcher's child to close.
  int fd() const { return listen_fd_; }

 private:
  struct Peer;
  void run();
  void handle_line(Peer &p, const std::string &line);
  void drop(Peer &p, const char *why);

  std::string secret_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::mutex mu_;
  std::string uri_;
  ExitReports reports_;
  std::vector<int> observed_;
  Stats stats_;
};

}  // namespace dartrun
