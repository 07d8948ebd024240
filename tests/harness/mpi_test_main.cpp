// main() of every MPI test executable.
//
// - MPI is initialised here, before any test, as DASH-style fixtures do; the
//   suites call dart_init/dart_exit themselves (often once per test case).
// - Every rank runs every test case. Log lines are prefixed with
//   "[rank N]" so a failure names the rank it happened on.
// - Only rank 0 writes the report file (<test name>.report.xml in the working
//   directory); other ranks print their log only.
// - A fatal failure (BOOST_REQUIRE, an uncaught exception, a signal) on any
//   rank aborts the whole job with MPI_Abort, so peers never wait forever in
//   a collective the failed rank will not enter.
// - At the end the ranks' verdicts are combined: if any rank failed, every
//   rank exits non-zero and rank 0 lists the failing ranks.
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include "mpi_test.hpp"

#include <boost/test/execution_monitor.hpp>
#include <boost/test/results_collector.hpp>
#include <boost/test/results_reporter.hpp>
#include <boost/test/tree/observer.hpp>
#include <boost/test/unit_test_log.hpp>
#include <boost/test/unit_test_parameters.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace mpitest {
namespace {

int g_rank = 0;
int g_size = 1;

// A streambuf that prefixes every line with "[rank N] " and forwards it to
// another streambuf; lines of different ranks then stay attributable when
// mpiexec interleaves them.
class RankPrefixBuf : public std::streambuf {
 public:
  RankPrefixBuf(std::streambuf* sink, int rank) : sink_(sink), prefix_("[rank " + std::to_string(rank) + "] ") {}

 protected:
  int overflow(int ch) override {
    if (ch == traits_type::eof()) return sync() == 0 ? 0 : traits_type::eof();
    if (at_line_start_) {
      sink_->sputn(prefix_.data(), static_cast<std::streamsize>(prefix_.size()));
      at_line_start_ = false;
    }
    if (ch == '\n') at_line_start_ = true;
    return sink_->sputc(static_cast<char>(ch));
  }
  int sync() override { return sink_->pubsync(); }

 private:
  std::streambuf* sink_;
  std::string prefix_;
  bool at_line_start_ = true;
};

// Aborts the job when a test unit on this rank hits a fatal failure: the
// other ranks may be blocked in a collective this rank will never reach.
class AbortOnFatal : public boost::unit_test::test_observer {
 public:
  void test_unit_aborted(boost::unit_test::test_unit const& tu) override {
    std::cout << std::flush;
    std::fprintf(stderr, "[rank %d] fatal failure in \"%s\"; aborting the job\n", g_rank, tu.full_name().c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  void exception_caught(boost::execution_exception const& ex) override {
    std::cout << std::flush;
    std::fprintf(stderr, "[rank %d] uncaught exception or signal: %s; aborting the job\n", g_rank,
                 std::string(ex.what().begin(), ex.what().end()).c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
};

std::ostream* g_log_stream = nullptr;
std::ofstream* g_report = nullptr;
std::ostream* g_null = nullptr;

// Called by Boost.Test after it has applied its command-line and
// environment parameters, which would otherwise replace the streams set
// here: the rank-prefixed log, and the report on rank 0 only.
bool init_unit_test() {
  boost::unit_test::unit_test_log.set_stream(*g_log_stream);
  if (g_rank == 0) {
    boost::unit_test::results_reporter::set_stream(*g_report);
    boost::unit_test::results_reporter::set_format(boost::unit_test::OF_XML);
    boost::unit_test::results_reporter::set_level(boost::unit_test::DETAILED_REPORT);
  } else {
    boost::unit_test::results_reporter::set_stream(*g_null);
    boost::unit_test::results_reporter::set_level(boost::unit_test::NO_REPORT);
  }
  return true;
}

}  // namespace

int world_rank() { return g_rank; }
int world_size() { return g_size; }

bool all_ranks(bool value) {
  int local = value ? 1 : 0;
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return global == 1;
}

}  // namespace mpitest

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpitest::g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpitest::g_size);

  mpitest::RankPrefixBuf prefixed(std::cout.rdbuf(), mpitest::g_rank);
  std::ostream log_stream(&prefixed);
  // Only rank 0 writes the report file; the others report nothing.
  std::ofstream report;
  std::ostream null_stream(nullptr);
  const char* name = std::getenv("DART_TEST_NAME");
  if (mpitest::g_rank == 0) report.open(std::string(name ? name : "mpi_test") + ".report.xml");
  mpitest::g_log_stream = &log_stream;
  mpitest::g_report = &report;
  mpitest::g_null = &null_stream;

  mpitest::AbortOnFatal abort_on_fatal;
  boost::unit_test::framework::register_observer(abort_on_fatal);

  int rc = boost::unit_test::unit_test_main(&mpitest::init_unit_test, argc, argv);
  log_stream.flush();
  std::cout.flush();

  // Combine the verdicts: the job fails if any rank failed.
  int failed = rc != 0 ? 1 : 0;
  std::vector<int> all(static_cast<size_t>(mpitest::g_size));
  MPI_Gather(&failed, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (mpitest::g_rank == 0) {
    if (any_failed) {
      std::string ranks;
      for (int r = 0; r < mpitest::g_size; ++r)
        if (all[static_cast<size_t>(r)]) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
      std::printf("FAILED on rank(s) %s of %d\n", ranks.c_str(), mpitest::g_size);
    } else {
      std::printf("PASSED on all %d rank(s)\n", mpitest::g_size);
    }
    std::fflush(stdout);
  }
  boost::unit_test::framework::deregister_observer(abort_on_fatal);
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
