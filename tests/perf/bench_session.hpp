// What every DART benchmark's main() does around its measurements: start
// and stop MPI and DART, abort on a failed DART call, require that all
// ranks share one node, and name the MPI library in the header lines.
// Standard DART calls only (no extensions), so that bench_hotpath still
// builds against DASH's own DART-MPI (scripts/bench-hotpath.sh).
#pragma once

#include <dash/dart/if/dart.h>

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace bench {

// The program name that prefixes every diagnostic (set by Session).
inline const char*& program_name() {
  static const char* name = "bench";
  return name;
}

// A benchmark measures nothing useful once a DART call failed: abort the job.
inline void check(dart_ret_t rc, const char* what) {
  if (rc != DART_OK) {
    std::fprintf(stderr, "%s: %s failed: %d\n", program_name(), what, static_cast<int>(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// The first line of MPI_Get_library_version, without trailing blanks.
inline std::string mpi_library() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  const char* nl = std::strchr(lib, '\n');
  std::string name(lib, nl ? static_cast<std::size_t>(nl - lib) : std::strlen(lib));
  while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
  return name;
}

// How many ranks share the caller's node (collective on MPI_COMM_WORLD).
inline int node_size() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 0;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

// The lowest rank that does not share rank 0's node, or -1 when every rank
// does (collective on MPI_COMM_WORLD). A benchmark across hosts targets it,
// whatever the placement of ranks on hosts.
inline int first_remote_rank() {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int with_zero = rank == 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &with_zero, 1, MPI_INT, MPI_MAX, node);
  MPI_Comm_free(&node);
  int mine = with_zero ? size : rank, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return first < size ? first : -1;
}

// MPI and DART for the length of main(). With Mpi::dart, dart_init brings
// MPI up and dart_exit takes it down. Otherwise the program initialises MPI
// itself, with MPI_Init (Mpi::program) or at MPI_THREAD_MULTIPLE, the level
// dart_init would ask for (Mpi::program_multiple), so that DART can be
// started and stopped more than once in one run: start() / stop(), and
// MPI_Finalize at the end.
class Session {
 public:
  enum class Mpi { dart, program, program_multiple };

  Session(int& argc, char**& argv, const char* name, Mpi mpi) : argc_(&argc), argv_(&argv), mpi_(mpi) {
    program_name() = name;
    if (mpi_ == Mpi::program_multiple) {
      int provided = 0;
      MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else if (mpi_ == Mpi::program) {
      MPI_Init(&argc, &argv);
    } else {
      start();
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~Session() {
    if (running_) stop();
    if (mpi_ != Mpi::dart) MPI_Finalize();
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() {
    check(dart_init(argc_, argv_), "dart_init");
    running_ = true;
  }
  void stop() {
    running_ = false;
    check(dart_exit(), "dart_exit");
  }

  // False, after rank 0 said why, unless there are at least `min_ranks`
  // ranks and (if `one_node`) all of them share one node.
  bool require(int min_ranks, bool one_node, const char* why) const {
    const bool ok = size >= min_ranks && (!one_node || node_size() == size);
    if (!ok && rank == 0) std::fprintf(stderr, "%s: %s\n", program_name(), why);
    return ok;
  }

  int rank = 0;
  int size = 0;

 private:
  int* argc_;
  char*** argv_;
  Mpi mpi_;
  bool running_ = false;
};

}  // namespace bench
