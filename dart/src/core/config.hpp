// Runtime configuration: every environment variable the runtime reads,
// parsed once by dart_init into one Config. docs/environment.md lists the same
// variables; the docs build fails when the two differ (docs/tools/check_env.py).
// The information command (oshmem_info) lists them with their defaults from
// dart/shmem/src/info.cpp; test info_lists_every_variable fails when a name
// read here is missing there.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dart {

enum class LogLevel { Off = 0, Error, Warn, Info, Debug, Trace };

struct Config {
  // DART_LOG_LEVEL = OFF | ERROR | WARN | INFO | DEBUG | TRACE
  // (case-insensitive; the DASH spelling DART_LOGLEVEL_ERROR etc. works too).
  // Default ERROR: a call that rejects its input says why in one line.
  // dart_config()->log_enabled = 0 silences the runtime as well.
  LogLevel log_level = LogLevel::Error;

  // DART_LOCAL_POOL_SIZE: bytes per unit of the pool dart_memalloc serves
  // from (suffixes K, M, G are powers of 1024). Default 16 MiB.
  std::size_t local_pool_bytes = std::size_t(16) << 20;

  // DART_HEAP_CHUNK_SIZE: bytes per unit of each chunk of a team's
  // symmetric heap. Team allocations are carved out of chunks so that they
  // do not create an MPI window each; an allocation larger than half a chunk
  // gets a chunk (window) of its own. Default 16 MiB.
  std::size_t heap_chunk_bytes = std::size_t(16) << 20;

  // DART_SHARED_MEMORY = 1 | 0. With 1 (default) the units of a node share
  // one MPI shared-memory window per heap chunk and reach each other's
  // memory by load/store. With 0 every unit is treated as a node of its own:
  // all remote accesses go through MPI RMA on team-wide windows, which is
  // the path units on different nodes take.
  bool shared_memory = true;

  // DART_PROGRESS_INTERVAL_US: how often the progress thread polls MPI, in
  // microseconds; 0 never starts it. Default 100. The thread runs when MPI
  // offers MPI_THREAD_MULTIPLE and some MPI RMA of the job may depend on
  // its target calling MPI (always under MPICH; under Open MPI when teams
  // span nodes, DART_SHARED_MEMORY=0, or memory is registered).
  unsigned progress_interval_us = 100;

  // DART_STATS = 1 | 0: every unit prints its path counters
  // (dash/dart/ext/dart_stats.h) to stderr in dart_exit. Default 0.
  bool print_stats = false;

  // DART_COLLECTIVE_CHECKS = 1 | 0. With 1 (default) every collective on a
  // team of several units starts with one agreement allreduce, so that bad
  // or mismatched arguments on some units fail the call on all of them
  // instead of stranding the others; small calls travel inside it (see
  // coll/agreement.hpp). 0 calls MPI directly, as MPI itself behaves.
  bool collective_checks = true;

  // DART_COLLECTIVE_TIMEOUT: seconds a member of a team on one node waits
  // in a collective for the others before it logs the call, the team and
  // the members that have not arrived (again after every further period).
  // 0 never. Default 300. DART_COLLECTIVE_TIMEOUT_ACTION = warn | abort:
  // after the log line, keep waiting (default: a member may legitimately
  // compute that long) or abort the job.
  double collective_timeout_s = 300;
  bool collective_timeout_abort = false;

  // DART_EXIT_TIMEOUT: once DART_TEAM_ALL is broken (its members were in
  // different collectives), the seconds dart_exit waits for every unit to
  // reach dart_exit before it ends the job; > 0. Default 10.
  double exit_timeout_s = 10;

  // DART_COLLECTIVE_HIERARCHY = auto | on | off: on a team across nodes
  // whose units share nodes, whether dart_bcast, dart_reduce and
  // dart_allreduce move their data through the node leaders (shared memory
  // on each node, one MPI call among one unit per node) or with one MPI
  // call over the whole team. auto (default) chooses per call and size by
  // the measurements written where the choice is made (through_leaders in
  // coll/leaders.cpp); on and off force one way, to measure
  // the other on a given cluster. Must be the same on every unit.
  enum class Hierarchy { Auto, On, Off };
  Hierarchy collective_hierarchy = Hierarchy::Auto;

  // DART_COLLECTIVE_SINGLE_COPY = 1 | 0: on a team on one node, large
  // collectives copy straight from the sending member's buffer into the
  // receiving member's (process_vm_readv, where the node allows it; see
  // coll/node_sync.hpp) instead of through the shared-memory slots. 0
  // always uses the slots. Must be the same on every unit.
  bool collective_single_copy = true;

  // DART_RMA_PIECE_SIZE: the most bytes one MPI RMA call of a transfer
  // moves; larger transfers go out as several calls, all in flight at
  // once. 1 KiB to 1 GiB (MPI counts are int). Default 64 KiB under MPICH,
  // whose RMA of more than about 100 KiB across hosts takes a slower path
  // (1 MiB: 1.10-1.16 ms in one call, 0.46 ms in 64 KiB pieces, on the
  // rig), and 1 GiB under Open MPI, where pieces gained nothing.
#if defined(MPICH_VERSION)
  std::size_t rma_piece_bytes = std::size_t(64) << 10;
#else
  std::size_t rma_piece_bytes = std::size_t(1) << 30;
#endif

  // DASH_MAX_SHMEM_MBPS: the shared-memory bandwidth hint copied into every
  // unit's dart_hwinfo_t.max_shmem_mbps; unset or <= 0 gives DASH's 1235.
  int max_shmem_mbps = 1235;

  // DART_JOB_KEY: 16 hex digits naming the job's shared-memory objects
  // (/dev/shm/dart-<key>-<unit>-<n>, the extents of dart_memalloc). Set by
  // dartrun, which removes the job's objects when the job has ended, so a
  // killed job leaves none behind; without it unit 0 draws a random key.
  std::uint64_t job_key = 0;

  // DART_EXIT_REPORT_DIR: set by dartrun under MPICH's hydra, not by users.
  // A unit that ends with exit(code != 0) writes its code to
  // DIR/exit.<unit> when DIR exists where it runs (dartrun's host, or a
  // shared file system), else sends it over the job channel, because
  // hydra's per-unit statuses lose such a code when the unit's PMI
  // connection closes before hydra reaps it (it reports status 1 instead).
  std::string exit_report_dir;

  // DART_JOB_CHANNEL ("tcp:A1,A2,...:PORT"): dartrun's TCP listener, set by
  // dartrun, not by users (core/job_channel.hpp). Units on any host reach
  // dartrun there with the job's secret (DART_STDIN_SECRET): exit codes
  // that have no file to go to, and each unit's watcher
  // (core/unit_watch.hpp), which removes the unit's objects from its
  // host's /dev/shm once it is gone, however it ended, and says how it ended.
  std::string job_channel;

  // The job's stdin path (stdin/; docs/stdin.md "stdin path and dartrun"). Every
  // unit reads these, but only unit 0's count: it decides and broadcasts.
  //
  // DART_STDIN = auto | on | off (any case). Auto sets the path up when
  // unit 0's fd 0 is neither a terminal nor /dev/null, or when dartrun
  // names a server; off leaves every fd 0 alone.
  enum class StdinMode { Auto, On, Off };
  StdinMode stdin_mode = StdinMode::Auto;

  // DART_STDIN_TARGET: the units that read stdin, "0", "k", "1,3,5-7",
  // "all" or "none"; kept as text, because it is checked against the
  // number of units (stdin/plan.cpp); lower-cased here. Unset or empty
  // gives "0".
  std::string stdin_target = "0";

  // DART_STDIN_SERVER (a Unix socket) or DART_STDIN_RENDEZVOUS
  // ("tcp:A1,A2,...:PORT"), and DART_STDIN_SECRET: set by dartrun, not by
  // users. Empty means unset.
  std::string stdin_server;
  std::string stdin_rendezvous;
  std::string stdin_secret;
  // DART_STDIN_HOST: dartrun's boot id and host name, set when it offers
  // both: unit 0 takes the Unix socket only on that host (stdin/host.cpp).
  std::string stdin_host;

  // DART_STDIN_HIGH_WATER / DART_STDIN_LOW_WATER: bytes per target unit
  // accepted and not yet in its pipe at which the producer is stopped, and
  // at or below which (at every target) it is resumed. Sizes as for
  // DART_LOCAL_POOL_SIZE. Default 512 KiB / 128 KiB; a low mark that is not
  // below the high one gives both defaults (stdin/plan.cpp).
  std::size_t stdin_high_water = std::size_t(512) << 10;
  std::size_t stdin_low_water = std::size_t(128) << 10;
};

// Reads the environment. Invalid values are reported (log line) and the
// default is kept; a typo must not silently change behaviour unseen.
Config read_config();

// DART_MPI_DEFAULTS: false when it is "0". Unlike the rest it is read when
// libdart is loaded (core/mpi_defaults.cpp), before main() and MPI_Init,
// so it is not part of Config; it logs nothing, as logging is not set up
// then.
bool read_mpi_defaults_flag() noexcept;

}  // namespace dart
