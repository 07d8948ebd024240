// Checks shared by the DART suites: Boost assertions on DART return codes
// whose messages name the rank (and an optional context, CTX_, that a file
// may define before including this header), and a guard that silences
// DART's diagnostics around calls that are expected to fail.
#pragma once

#include "mpi_test.hpp"

#include <dash/dart/if/dart.h>

#ifndef CTX_
#define CTX_ ""
#endif

// Each argument is evaluated once.
#define RANKED_OK(LEVEL, ...)                                                                    \
  do {                                                                                           \
    const dart_ret_t rc_ = (__VA_ARGS__);                                                        \
    BOOST_##LEVEL##_MESSAGE(rc_ == DART_OK, "rank " << mpitest::world_rank() << CTX_ << ": "     \
                                                    << #__VA_ARGS__ " returned " << rc_          \
                                                    << ", expected DART_OK");                    \
  } while (0)
#define RANKED_EQ(LEVEL, a, b)                                                                   \
  do {                                                                                           \
    const auto a_ = (a);                                                                         \
    const auto b_ = (b);                                                                         \
    BOOST_##LEVEL##_MESSAGE(a_ == b_, "rank " << mpitest::world_rank() << CTX_ << ": " #a " == " \
                                              #b " failed [" << a_ << " != " << b_ << "]");      \
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

// dart_init_thread / dart_exit around a test case, with the rank as the
// Boost context of every message. `multiple`: DART_THREAD_MULTIPLE granted.
struct DartFixture {
  DartFixture()
      : me(mpitest::world_rank()),
        n(mpitest::world_size()),
        rank_context_(boost::unit_test::framework::add_context(BOOST_TEST_LAZY_MSG("rank " << me << " of " << n),
                                                               true)) {
    dart_thread_support_level_t level = DART_THREAD_SINGLE;
    BOOST_REQUIRE_EQUAL(dart_init_thread(nullptr, nullptr, &level), DART_OK);
    multiple = level == DART_THREAD_MULTIPLE;
  }
  ~DartFixture() {
    BOOST_CHECK_EQUAL(dart_exit(), DART_OK);
    boost::unit_test::framework::clear_context(rank_context_);
  }
  DartFixture(const DartFixture&) = delete;
  DartFixture& operator=(const DartFixture&) = delete;

  const int me;
  const int n;
  bool multiple = false;

 private:
  int rank_context_;
};

}  // namespace dartcheck
