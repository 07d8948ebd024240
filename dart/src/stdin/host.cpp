// The job's stdin path, start to stop (stdin/host.hpp; docs/stdin.md "stdin path
// and dartrun"). This file wires the pieces together:
//   plan.hpp        unit 0 decides from its configuration, and broadcasts;
//   fd0.hpp         every unit's fd 0 becomes a pipe (target) or /dev/null;
//   fanout.hpp      unit 0's flow control: one queue per target, XOFF/XON;
//   writer.hpp      unit 0's own pipe, when unit 0 is a target;
//   courier.hpp     the other targets, over a private communicator;
//   rendezvous.hpp  dartrun's TCP rendezvous;
// and runs unit 0's PMIx shim server, whose push_stdin upcall (on the
// shim's progress thread) hands every chunk to the fan-out. An XOFF is
// push_stdin's answer, PMIX_ERR_IOF_XOFF ("taken, now stop"), and the
// fan-out's resume is PMIx_server_IOF_flow_control. The shim takes our XON
// from the moment it can hand us a chunk, so a resume that falls due while
// unit 0's main thread is still inside PMIx_server_init is not lost.
// Without dartrun the server reads the launcher's stdin (unit 0's original
// fd 0) itself; with no target left, the next chunk is refused, which
// closes the producer's stream (dartrun's push fails and it closes its own
// stdin, so the process feeding it is told by EPIPE).
#include "stdin/host.hpp"

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/mpi_handles.hpp"
#include "core/runtime.hpp"
#include "stdin/backoff.hpp"
#include "stdin/courier.hpp"
#include "stdin/fanout.hpp"
#include "stdin/fd0.hpp"
#include "stdin/plan.hpp"
#include "stdin/rendezvous.hpp"
#include "stdin/writer.hpp"

#include <pmix_server.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dart {
namespace {

using namespace stdin_path;

constexpr const char* kCall = "dart_stdin";
// Chunks the shim reads from a descriptor (plain-launcher mode). 128 KiB is
// the shim's default and twice the default pipe capacity.
constexpr std::size_t kChunk = 128 * 1024;

// The path on this unit. Members are declared in the order they may be
// built; stop() takes them down explicitly.
struct StdinPath {
  Plan plan;
  Fd0 fd0;
  mpi::Comm comm;
  std::unique_ptr<Fanout> fanout;      // unit 0, when it serves
  std::unique_ptr<PipeWriter> writer;  // unit 0, when it is a target
  std::unique_ptr<Courier> courier;    // unit 0, when others are targets
  std::unique_ptr<Receiver> receiver;  // a target other than unit 0
  bool server_up = false;
  bool tool_expected = false;  // the server listens for dartrun
};

StdinPath* g_path = nullptr;  // set and cleared under dart_init/dart_exit's lock
std::atomic<Fanout*> g_fanout{nullptr};

pmix_status_t on_push_stdin(const pmix_proc_t* source, const pmix_proc_t[], std::size_t, const pmix_info_t[],
                            std::size_t, const pmix_byte_object_t* bo, pmix_op_cbfunc_t, void*) {
  Fanout* f = g_fanout.load();
  if (!f) return PMIX_ERR_IOF_FAILURE;
  pmix_proc_t src{};
  if (source) src = *source;
  // Non-blocking form: legal from any thread. After finalize it fails with
  // PMIX_ERR_INIT/NOT_AVAILABLE, and finalize has released the stream.
  const Fanout::Resume resume = [src] {
    PMIx_server_IOF_flow_control(
        &src, PMIX_FWD_STDIN_CHANNEL, false, nullptr, 0, [](pmix_status_t, void*) {}, nullptr);
  };
  switch (f->push(bo->bytes, bo->size, resume)) {
    case Fanout::Verdict::Taken: return PMIX_OPERATION_SUCCEEDED;
    // Returned synchronously, the XOFF is applied on the progress thread
    // before any XON another thread posts from now on can be.
    case Fanout::Verdict::Xoff: return PMIX_ERR_IOF_XOFF;
    // No reader is left, or the path stopped: the job is done with its
    // stdin. That ends the stream (dartrun lets go of its stdin), it does
    // not fail it.
    case Fanout::Verdict::Refused: return PMIX_ERR_IOF_COMPLETE;
  }
  return PMIX_ERR_IOF_FAILURE;
}

// How long unit 0's dart_exit waits for dartrun to reach the stdin server
// (see await_tool): dartrun connects within milliseconds of the server's
// start, and tries for 2 s once it knows where the server is; the rest is
// for a dartrun that is slow to learn it (a starved core).
constexpr auto kToolWait = std::chrono::seconds(10);

// dartrun connects as soon as it sees the server's socket (or gets its TCP
// address), but a job that does not read its stdin can reach dart_exit
// first; a server finalized before dartrun's handshake left dartrun to find
// a socket that no longer answers, and it reported "cannot connect ...
// ERR-UNREACH" and a failed push for a job that succeeded; one that had
// connected but not yet had its END taken took the hang-up for a failure
// (issue 46; 121 of 2,000 short jobs here, every one a program that does
// not read stdin; forced every time by tests/stdin/run_unreach.sh). So the
// server stays until dartrun's stream is open, and finalizing then tells
// dartrun the job is done with its stdin. Bounded, so a dartrun that
// cannot reach us (a real failure, which it reports) holds the job 10 s.
void await_tool() {
  const auto until = std::chrono::steady_clock::now() + kToolWait;
  Backoff backoff;
  for (;;) {
    pmixshim_iof_stats_t s{};
    pmixshim_get_iof_stats(&s);
    // Counts streams since PMIx_server_init; unit 0 with dartrun reads
    // no descriptor of its own, so the only stream is dartrun's.
    if (s.streams_opened > 0) return;
    if (std::chrono::steady_clock::now() >= until) {
      log(LogLevel::Warn, kCall, "dartrun did not reach the stdin server within %lld s; closing it",
          static_cast<long long>(kToolWait.count()));
      return;
    }
    backoff.wait();
  }
}

// True when this process runs on the host dartrun named (DART_STDIN_HOST:
// boot id and host name, as dartrun's cleanup.cpp writes them) and sees the
// directory of its Unix socket ("unix:PATH"). The boot id tells kernels
// apart, the host name containers or namespaces of one kernel, and the
// directory a private /tmp.
bool on_dartrun_host(const std::string& host, const std::string& server) {
  if (host.empty() || server.rfind("unix:", 0) != 0) return false;
  char boot[64] = "";
  if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (!std::fgets(boot, sizeof boot, f)) boot[0] = '\0';
    std::fclose(f);
  }
  boot[std::strcspn(boot, "\n")] = '\0';
  char name[256] = "";
  ::gethostname(name, sizeof name - 1);
  if (host != std::string(boot) + "/" + name) return false;
  const std::string path = server.substr(5);
  const std::string dir = path.substr(0, path.rfind('/'));
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Unit 0 serves: the fan-out and its transports, then the server.
void serve(StdinPath& path, const Config& cfg, bool local_target, const std::vector<int>& remote) {
  std::vector<int> all;
  if (local_target) all.push_back(0);
  all.insert(all.end(), remote.begin(), remote.end());
  path.fanout = std::make_unique<Fanout>(all, path.plan.high, path.plan.low);
  std::vector<Transport*> transports;
  if (local_target) {
    path.writer = std::make_unique<PipeWriter>(0, path.fd0);
    transports.push_back(path.writer.get());
    PipeWriter* w = path.writer.get();
    path.fanout->set_direct(0, [w](const char* data, std::size_t n) { return w->write_now(data, n); });
  }
  if (!remote.empty()) {
    path.courier = std::make_unique<Courier>(remote, path.comm.get());
    transports.push_back(path.courier.get());
  }
  g_fanout = path.fanout.get();

  const char* server = cfg.stdin_server.empty() ? nullptr : cfg.stdin_server.c_str();
  // dartrun offers both its Unix socket and TCP: the socket only serves
  // when unit 0 runs on dartrun's host, which the launcher's placement
  // decides and only we can see.
  if (server && !cfg.stdin_rendezvous.empty() && !on_dartrun_host(cfg.stdin_host, cfg.stdin_server)) server = nullptr;
  const std::string& secret = cfg.stdin_secret;
  // dartrun's TCP rendezvous: listen on the address that reaches it.
  StdinRendezvous rv;
  std::string listen_spec;
  if (!server && !cfg.stdin_rendezvous.empty()) {
    listen_spec = rv.connect(cfg.stdin_rendezvous.c_str()) ? "tcp:" + rv.local_address() + ":0" : "none";
    server = listen_spec.c_str();
  }
  const bool tcp = !listen_spec.empty() && listen_spec != "none";
  const bool dartrun = server && *server && listen_spec != "none";
  std::vector<pmix_info_t> info(2);
  const char* nspace = "dart-stdin";
  pmix_rank_t rank = 0;
  PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, nspace, PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
  pmix_info_t it;
  // Without dartrun nobody needs to connect: no socket at all.
  PMIX_INFO_LOAD(&it, PMIX_SHIM_LISTEN, dartrun ? server : "none", PMIX_STRING);
  info.push_back(it);
  if (dartrun && !secret.empty()) {
    PMIX_INFO_LOAD(&it, PMIX_SHIM_SECRET, secret.c_str(), PMIX_STRING);
    info.push_back(it);
  }
  pmix_server_module_t module{};
  module.push_stdin = on_push_stdin;
  path.fanout->start(transports);
  pmix_status_t rc = PMIx_server_init(&module, info.data(), info.size());
  for (pmix_info_t& i : info) PMIX_INFO_DESTRUCT(&i);
  if (rc == PMIX_SUCCESS && tcp) {
    char uri[256], key[256];
    rc = pmixshim_server_contact(uri, sizeof uri, key, sizeof key);
    if (rc == PMIX_SUCCESS && !rv.announce(secret, uri)) rc = PMIX_ERR_UNREACH;
    if (rc != PMIX_SUCCESS) PMIx_server_finalize();
  }
  if (rc == PMIX_SUCCESS) {
    path.server_up = true;
    path.tool_expected = dartrun;
    if (!dartrun && path.fd0.saved() >= 0) {
      pmix_info_t dir;
      std::size_t chunk = kChunk;
      PMIX_INFO_LOAD(&dir, PMIX_SHIM_CHUNK_SIZE, &chunk, PMIX_SIZE);
      rc = pmixshim_server_read_stdin(
          path.fd0.saved(), &dir, 1, [](pmix_status_t, void*) {}, nullptr);
      PMIX_INFO_DESTRUCT(&dir);
      if (rc != PMIX_SUCCESS)
        log(LogLevel::Error, kCall, "cannot read the launcher's stdin: %s", PMIx_Error_string(rc));
    }
  } else {
    log(LogLevel::Error, kCall, "cannot start the stdin server on %s: %s; the job reads no stdin",
        dartrun ? server : "fd 0", PMIx_Error_string(rc));
  }
  // Nothing will come: every target sees EOF.
  if (rc != PMIX_SUCCESS) path.fanout->push(nullptr, 0, nullptr);
}

void start() {
  Runtime* r = runtime();
  if (!r) return;
  MPI_Comm world = r->world().comm();
  const int me = r->myid(), n = r->size();
  Plan plan;
  std::vector<unsigned char> targets(static_cast<std::size_t>(n), 0);
  if (me == 0) decide(r->config(), n, &plan, &targets);
  // Every unit must hold the same plan: agree by broadcast, not by reading
  // the (possibly different) environment of each unit.
  mpi_check(MPI_Bcast(&plan, sizeof plan, MPI_BYTE, 0, world), "MPI_Bcast");
  if (!plan.active) return;
  mpi_check(MPI_Bcast(targets.data(), n, MPI_BYTE, 0, world), "MPI_Bcast");

  auto path = std::make_unique<StdinPath>();
  path->plan = plan;
  const bool target = targets[static_cast<std::size_t>(me)] != 0;
  // Unit 0 keeps the original fd 0 open (saved) whatever happens: in
  // plain-launcher mode the server reads it.
  const bool installed = path->fd0.install(target);
  std::vector<int> remote;
  for (int u = 1; u < n; ++u)
    if (targets[static_cast<std::size_t>(u)]) remote.push_back(u);
  // Collective: every unit takes part, whether it is a target or not.
  if (!remote.empty()) path->comm = mpi::Comm::dup(world);

  if (me == 0 && plan.serve) {
    serve(*path, r->config(), target && installed, remote);
  } else if (target && me != 0) {
    // Also when fd 0 could not be replaced: unit 0 sends anyway, and the
    // receiver (whose pipe writes then fail) drops the bytes and acks them.
    path->receiver = std::make_unique<Receiver>(path->comm.get(), path->fd0);
  }
  g_path = path.release();
}

void stop() {
  std::unique_ptr<StdinPath> path(g_path);
  g_path = nullptr;
  if (!path) return;
  // Units other than 0 may still be reading: unit 0 keeps delivering (its
  // server and courier threads run on) until every unit is in dart_exit.
  // A non-blocking barrier polled with back-off: MPI's blocking one spins
  // a core for as long as the slowest reader takes. Also when unit 0 is
  // the only target (no private communicator, on the world's): the other
  // units reach dart_exit at once and would otherwise spin in its
  // blocking barrier for the whole stream, which on a small node takes
  // a core from the reader and the path (1 GiB to unit 0 of 2 units on
  // two cores: 0.3-0.5 s of CPU).
  MPI_Comm wait_comm = path->comm.get();
  if (wait_comm == MPI_COMM_NULL)
    if (Runtime* r = runtime()) wait_comm = r->world().comm();
  if (wait_comm != MPI_COMM_NULL) {
    MPI_Request req;
    mpi_check(MPI_Ibarrier(wait_comm, &req), "MPI_Ibarrier");
    Backoff backoff;
    for (int done = 0; !done;) {
      mpi_check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) backoff.wait();
    }
  }
  if (path->server_up && path->tool_expected) await_tool();
  // No new chunks: the producer's connection closes, and the server tells
  // dartrun first that the job is done with its stdin (its push completes
  // with PMIX_ERR_IOF_COMPLETE; it lets go of its stdin).
  if (path->server_up) PMIx_server_finalize();
  // Closing our pipe's read end wakes a writer blocked on a full pipe.
  path->fd0.restore();
  // Unread input is discarded; every target's stream ends.
  if (path->fanout) path->fanout->stop();
  if (path->receiver) path->receiver->stop();
  g_fanout = nullptr;
  path->fd0.close_write();
}

}  // namespace

void stdin_host_start() noexcept {
  try {
    start();
  } catch (const std::exception& e) {
    log(LogLevel::Error, kCall, "the stdin path is not available: %s", e.what());
  }
}

void stdin_host_stop() noexcept {
  try {
    stop();
  } catch (const std::exception& e) {
    log(LogLevel::Error, kCall, "stopping the stdin path: %s", e.what());
  }
}

}  // namespace dart
