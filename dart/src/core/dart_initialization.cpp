// dart_initialization.h and dart_config.h, with the unit queries of
// dart_team_group.h that need nothing but the runtime (dart_myid,
// dart_size, dart_team_myid, dart_team_size).
#include <dash/dart/if/dart_config.h>
#include <dash/dart/if/dart_initialization.h>
#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart_team_group.h>

#include "abort.hpp"
#include "coll/node_sync.hpp"
#include "core/error.hpp"
#include "core/job_channel.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/unit_watch.hpp"
#include "core/stats.hpp"
#include "stdin/host.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

using namespace dart;

namespace {

dart_config_t g_config = {1};

// Serialises init and exit against each other (both are collective and NTS,
// but a stray concurrent call must not corrupt the runtime).
std::mutex g_lifecycle;

// The exit report (Config::exit_report_dir): where and as which unit. Set
// once, read by the on_exit handler, which glibc runs inside exit() with
// the code the program passed; no other hook sees that code.
std::string g_exit_report_path;
// Where the file cannot go (dartrun's directory is on another host), the
// code goes over the job channel: its spec and the line up to the code.
std::string g_exit_report_channel;
std::string g_exit_report_line;
// Per address, and for dartrun's "ok": the unit is exiting, so briefly.
constexpr int kReportDialMs = 1000;
constexpr int kReportAckMs = 2000;

void report_exit(int code, void*) {
  if (code == 0 || g_exit_report_path.empty()) return;
  const int fd = ::open(g_exit_report_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) {
    char line[32];
    const int n = std::snprintf(line, sizeof line, "%d\n", code);
    const bool ok = n > 0 && ::write(fd, line, static_cast<size_t>(n)) == n;
    ::close(fd);
    if (ok) return;
  }
  // dartrun's directory is not on this host. dartrun answers "ok" once it
  // has the code, so it is recorded before this process ends (and before
  // the launcher can see it end); without an answer hydra's status stands.
  if (g_exit_report_channel.empty()) return;
  const int sock = dial_channel(g_exit_report_channel, kReportDialMs);
  if (sock < 0) return;
  send_and_await_ok(sock, g_exit_report_line + std::to_string(code) + "\n", kReportAckMs);
  ::close(sock);
}

void arm_exit_report(const Config& cfg, int myid) {
  if (cfg.exit_report_dir.empty()) return;
  static bool armed = false;  // on_exit handlers cannot be removed: register once
  g_exit_report_path = cfg.exit_report_dir + "/exit." + std::to_string(myid);
  g_exit_report_channel = cfg.job_channel;
  g_exit_report_line = "dartrun-exit-1 " + cfg.stdin_secret + " " + std::to_string(myid) + " ";
  if (!armed && ::on_exit(report_exit, nullptr) == 0) armed = true;
}

void init(int* argc, char*** argv, bool want_threads, dart_thread_support_level_t* level) {
  std::lock_guard<std::mutex> lock(g_lifecycle);
  if (runtime()) fail(DART_ERR_OTHER, "DART is already initialised");
  int initialized = 0, finalized = 0;
  mpi_check(MPI_Initialized(&initialized), "MPI_Initialized");
  mpi_check(MPI_Finalized(&finalized), "MPI_Finalized");
  if (finalized) fail(DART_ERR_OTHER, "MPI has been finalized; DART cannot be initialised again");

  bool owns_mpi = false;
  int provided = MPI_THREAD_SINGLE;
  const Config cfg = read_config();
  if (!initialized) {
    // MPI_THREAD_MULTIPLE also when the application did not ask for
    // threads: the progress thread (core/progress.hpp) needs it.
    const bool need_multiple = want_threads || cfg.progress_interval_us > 0;
    const int requested = need_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    mpi_check(MPI_Init_thread(argc, argv, requested, &provided), "MPI_Init_thread");
    owns_mpi = true;
  } else {
    mpi_check(MPI_Query_thread(&provided), "MPI_Query_thread");
  }
  const bool mpi_multiple = provided == MPI_THREAD_MULTIPLE;
  const bool multiple = want_threads && mpi_multiple;
  if (level) *level = multiple ? DART_THREAD_MULTIPLE : DART_THREAD_SINGLE;

  try {
    for (auto& c : stats::g_counters) c.store(0, std::memory_order_relaxed);  // counts start at dart_init
    install_runtime(std::make_unique<Runtime>(cfg, owns_mpi, multiple, mpi_multiple));
  } catch (...) {
    if (owns_mpi) MPI_Finalize();
    throw;
  }
  // The spec gives DART_TEAM_ALL locality data from dart_init on. Without
  // it (hwloc failed on some node) the runtime still works; the locality
  // queries then fail with DART_ERR_INVAL. The failure is collective, so
  // every unit takes the same branch.
  if (dart_team_locality_init(DART_TEAM_ALL) != DART_OK)
    log(LogLevel::Warn, "dart_init", "no locality data for DART_TEAM_ALL; locality queries will fail");
  stdin_host_start();  // collective; needs the runtime installed
  start_unit_watch(cfg, runtime()->myid());
  arm_exit_report(cfg, runtime()->myid());
}

// dart_exit's first step. The meeting on DART_TEAM_ALL breaks it if a
// unit still waits in a collective this unit skipped (or this unit in one
// the others skipped). Every broken team of this unit is named, and makes
// dart_exit return DART_ERR_OTHER. What follows is collective in MPI
// (window and communicator frees, the stdin path's barrier,
// MPI_Finalize), and on a broken DART_TEAM_ALL the units come to it from
// wherever they were when it broke; so they first wait for each other in
// shared memory, at most DART_EXIT_TIMEOUT seconds, and a unit that does
// not come ends the job rather than leaving the others in MPI for ever.
dart_ret_t leave_in_step(Runtime& r) {
  Team& world = r.world();
  for (dart_team_t id : r.team_ids())
    if (coll::NodeSync* ns = r.find_team(id)->node_sync_slot().get(); ns && ns->whole_team()) ns->mark_leaving();
  coll::meet_at_exit(world);
  dart_ret_t rc = DART_OK;
  std::vector<const Team*> teams{&world};
  for (dart_team_t id : r.team_ids()) teams.push_back(r.find_team(id));
  for (const Team* t : teams) {
    if (!t->broken()) continue;
    log(LogLevel::Error, "dart_exit", "%s", t->broken_reason().c_str());
    rc = DART_ERR_OTHER;
  }
  // Only a meeting breaks DART_TEAM_ALL, so it has its engine then.
  coll::NodeSync* ns = world.node_sync_slot().get();
  if (!world.broken() || !ns) return rc;
  const double wait_s = r.config().exit_timeout_s;
  const std::string missing = ns->await_leaving(wait_s);
  if (!missing.empty()) {
    log(LogLevel::Error, "dart_exit",
        "%g s after this unit, units %s are not in dart_exit; ending the job (DART_EXIT_TIMEOUT)", wait_s,
        missing.c_str());
    mpifix::abort_job(MPI_COMM_WORLD, DART_EXIT_ABORT);
  }
  return rc;
}

}  // namespace

extern "C" {

void dart_config(dart_config_t** config_out) {
  if (config_out) *config_out = &g_config;
}

dart_ret_t dart_init(int* argc, char*** argv) {
  return entry("dart_init", [&] { init(argc, argv, false, nullptr); });
}

dart_ret_t dart_init_thread(int* argc, char*** argv, dart_thread_support_level_t* thread_safety) {
  return entry("dart_init_thread", [&] {
    if (!thread_safety) invalid("thread_safety is NULL");
    init(argc, argv, true, thread_safety);
  });
}

dart_ret_t dart_exit() {
  dart_ret_t out_of_step = DART_OK;
  const dart_ret_t rc = entry("dart_exit", [&] {
    std::lock_guard<std::mutex> lock(g_lifecycle);
    if (!runtime()) fail(DART_ERR_OTHER, "DART is not initialised");
    out_of_step = leave_in_step(*runtime());
    stdin_host_stop();  // uses the runtime's communicators: before teardown
    std::unique_ptr<Runtime> r = uninstall_runtime();
    if (r->config().print_stats) stats::print(r->myid());
    const bool owns_mpi = r->owns_mpi();
    r.reset();  // collective: frees every window and communicator
    if (owns_mpi) mpi_check(MPI_Finalize(), "MPI_Finalize");
  });
  return rc != DART_OK ? rc : out_of_step;
}

bool dart_initialized() { return runtime() != nullptr; }

void dart_abort(int errorcode) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  log(LogLevel::Error, "dart_abort", "aborting the job with exit code %d", errorcode);
  if (initialized && !finalized) mpifix::abort_job(MPI_COMM_WORLD, errorcode);
  std::_Exit(errorcode);
}

dart_ret_t dart_myid(dart_global_unit_t* myid) {
  if (myid) myid->id = DART_UNDEFINED_UNIT_ID;
  return entry("dart_myid", [&] {
    if (!myid) invalid("myid is NULL");
    Runtime* r = runtime();
    if (!r) fail(DART_ERR_OTHER, "DART is not initialised");
    myid->id = r->myid();
  });
}

dart_ret_t dart_size(size_t* size) {
  if (size) *size = 0;
  return entry("dart_size", [&] {
    if (!size) invalid("size is NULL");
    Runtime* r = runtime();
    if (!r) fail(DART_ERR_OTHER, "DART is not initialised");
    *size = static_cast<size_t>(r->size());
  });
}

dart_ret_t dart_team_myid(dart_team_t teamid, dart_team_unit_t* myid) {
  if (myid) myid->id = DART_UNDEFINED_UNIT_ID;
  return entry("dart_team_myid", [&] {
    if (!myid) invalid("myid is NULL");
    myid->id = rt().team(teamid).myid();
  });
}

dart_ret_t dart_team_size(dart_team_t teamid, size_t* size) {
  return entry("dart_team_size", [&] {
    if (!size) invalid("size is NULL");
    *size = static_cast<size_t>(rt().team(teamid).size());
  });
}

}  // extern "C"
