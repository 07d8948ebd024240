// What the DART suites share: Boost assertions on DART return codes whose
// messages name the rank (and an optional context, CTX_, that a file may
// define before including this header), a guard that silences DART's
// diagnostics around calls that are expected to fail, the fixtures that
// start and stop DART around a test case (with the unit's ring neighbours),
// and the few global-pointer and platform helpers every suite needs.
// Suites that check the error lines on stderr include dart_capture.hpp.
#pragma once

#include "mpi_test.hpp"

#include <dash/dart/if/dart.h>

#include <mpi.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#ifndef CTX_
#define CTX_ ""
#endif

// Each argument is evaluated once.
#define RANKED_OK(LEVEL, ...)                                                                                     \
  do {                                                                                                            \
    const dart_ret_t rc_ = (__VA_ARGS__);                                                                         \
    BOOST_##LEVEL##_MESSAGE(rc_ == DART_OK, "rank " << mpitest::world_rank() << CTX_ << ": "                      \
                                                    << #__VA_ARGS__ " returned " << rc_ << ", expected DART_OK"); \
  } while (0)
#define RANKED_EQ(LEVEL, a, b)                                                                                        \
  do {                                                                                                                \
    const auto a_ = (a);                                                                                              \
    const auto b_ = (b);                                                                                              \
    BOOST_##LEVEL##_MESSAGE(a_ == b_, "rank " << mpitest::world_rank() << CTX_ << ": " #a " == " #b " failed [" << a_ \
                                              << " != " << b_ << "]");                                                \
  } while (0)
#define CHECK_OK(...) RANKED_OK(CHECK, __VA_ARGS__)
#define REQUIRE_OK(...) RANKED_OK(REQUIRE, __VA_ARGS__)
#define CHECK_EQ(a, b) RANKED_EQ(CHECK, a, b)
#define REQUIRE_EQ(a, b) RANKED_EQ(REQUIRE, a, b)
#define CHECK_RANK(...) \
  BOOST_CHECK_MESSAGE((__VA_ARGS__), "rank " << mpitest::world_rank() << CTX_ << ": " #__VA_ARGS__ " is false")
#define REQUIRE_RANK(...) \
  BOOST_REQUIRE_MESSAGE((__VA_ARGS__), "rank " << mpitest::world_rank() << CTX_ << ": " #__VA_ARGS__ " is false")

namespace dartcheck {

// Silences DART's log lines (dart_config()->log_enabled) while alive, for
// calls that are expected to fail; restores the previous setting.
class QuietDart {
 public:
  QuietDart() {
    dart_config(&cfg_);
    saved_ = cfg_->log_enabled;
    cfg_->log_enabled = 0;
  }
  ~QuietDart() { cfg_->log_enabled = saved_; }
  QuietDart(const QuietDart&) = delete;
  QuietDart& operator=(const QuietDart&) = delete;

 private:
  dart_config_t* cfg_ = nullptr;
  int saved_ = 1;
};

// The unit's place in DART_TEAM_ALL (the world, in these tests), its ring
// neighbours, and the rank as the Boost context of every message of the
// test case: the harness's "[rank N]" line prefix does not reach Boost's
// own error lines, so plain BOOST_CHECK_EQUALs would not name the rank.
class Units {
 public:
  Units()
      : me(mpitest::world_rank()),
        n(mpitest::world_size()),
        right((me + 1) % n),
        left((me + n - 1) % n),
        rank_context_(
            boost::unit_test::framework::add_context(BOOST_TEST_LAZY_MSG("rank " << me << " of " << n), true)) {}
  ~Units() { boost::unit_test::framework::clear_context(rank_context_); }
  Units(const Units&) = delete;
  Units& operator=(const Units&) = delete;

  void barrier() const { REQUIRE_OK(dart_barrier(DART_TEAM_ALL)); }

  const int me;
  const int n;
  const int right;
  const int left;

 private:
  const int rank_context_;
};

// dart_init_thread / dart_exit around a test case. `multiple`:
// DART_THREAD_MULTIPLE granted.
struct DartFixture : Units {
  DartFixture() {
    dart_thread_support_level_t level = DART_THREAD_SINGLE;
    REQUIRE_OK(dart_init_thread(nullptr, nullptr, &level));
    multiple = level == DART_THREAD_MULTIPLE;
  }
  ~DartFixture() { CHECK_OK(dart_exit()); }

  bool multiple = false;
};

// The same with plain dart_init, for the suites that cover that entry.
struct PlainDartFixture : Units {
  PlainDartFixture() { REQUIRE_OK(dart_init(nullptr, nullptr)); }
  ~PlainDartFixture() { CHECK_OK(dart_exit()); }
};

// `g` aimed at `unit` of its team, `byte_offset` further on, through the
// interface (dart_gptr_setunit, dart_gptr_incaddr).
inline dart_gptr_t at(dart_gptr_t g, int unit, std::uint64_t byte_offset = 0) {
  dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(unit));
  dart_gptr_incaddr(&g, static_cast<int64_t>(byte_offset));
  return g;
}

// The same by writing the fields, for pointers the interface would refuse
// to move (another unit's dart_memalloc block, a unit out of range).
inline dart_gptr_t raw_at(dart_gptr_t g, int unit, std::uint64_t byte_offset = 0) {
  g.unitid = unit;
  g.addr_or_offs.offset += byte_offset;
  return g;
}

// True when MPICH runs more ranks than there are cores: its ranks
// busy-poll and do not yield, so every remote operation and collective
// waits for time slices, and the long loops are shortened there. Open MPI
// yields when oversubscribed and runs the full counts.
inline bool slow_ranks() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  const bool mpich = std::string(version, static_cast<std::size_t>(len)).find("MPICH") != std::string::npos;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return mpich && cores > 0 && mpitest::world_size() > cores;
}

}  // namespace dartcheck
