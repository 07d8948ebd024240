#include "pusher.hpp"

#include <pmix_tool.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace dartrun {
namespace {

// Whatever the outcome, the job reads no more of our stdin: let go of it,
// so a producer still writing is told at once (EPIPE) instead of blocking
// until we exit.
void release_stdin() {
  int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) {
    ::dup2(null, 0);
    ::close(null);
  }
}

}  // namespace

std::string Pusher::await_server() {
  // The server appears when unit 0 reaches the end of dart_init; a program
  // that never calls dart_init never creates it.
  while (!job_done.load()) {
    if (channel) {
      std::string uri = channel->stdin_uri();
      if (!uri.empty()) {
        via_tcp = true;
        return uri;
      }
    }
    struct stat st;
    if (!socket_path.empty() && ::stat(socket_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
      return "unix:" + socket_path;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return {};
}

void Pusher::run() {
  const std::string uri = await_server();
  {
    std::lock_guard<std::mutex> l(mu);
    if (job_done.load() || uri.empty()) {
      release_stdin();
      return;
    }
    // One attempt. Unit 0 keeps its server in dart_exit until we are
    // connected (up to 10 s), so a refusal is no race lost to a short job
    // but a failure, reported once. The attempt retries for 2 s to cover
    // the server's bind() to listen() window (microseconds, longer on a
    // starved core), no longer, so that a job gone meanwhile (unit 0
    // killed, its socket file left behind) does not hold us.
    pmix_info_t info[4];
    uint32_t tmo = 2000;
    uint32_t rank = 0;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri.c_str(), PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SHIM_SECRET, secret.c_str(), PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SHIM_CONNECT_TIMEOUT_MS, &tmo, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_TOOL_RANK, &rank, PMIX_UINT32);
    result = PMIx_tool_init(nullptr, info, 4);
    for (pmix_info_t &i : info) PMIX_INFO_DESTRUCT(&i);
    connected = result == PMIX_SUCCESS;
  }
  if (connected && !job_done.load()) {
    bool yes = true;
    int fd = 0;
    // Completes at the end of the stream, once unit 0's host has taken
    // every byte: push=SUCCESS then means delivered, not just written. Or
    // with PMIX_ERR_IOF_COMPLETE when the job is done with its stdin first
    // (no reader left, or the job ended: its server finalized).
    pmix_info_t dirs[3];
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_SHIM_IOF_FD, &fd, PMIX_INT);
    PMIX_INFO_LOAD(&dirs[2], PMIX_SHIM_IOF_COMPLETE_AT_END, &yes, PMIX_BOOL);
    result = PMIx_IOF_push(nullptr, 0, nullptr, dirs, 3, nullptr, nullptr);
    if (result == PMIX_OPERATION_SUCCEEDED) result = PMIX_SUCCESS;
  }
  release_stdin();
}

void Pusher::finish() {
  job_done = true;
  std::lock_guard<std::mutex> l(mu);
  if (connected) PMIx_tool_finalize();
}

}  // namespace dartrun
