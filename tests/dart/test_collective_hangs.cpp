// Collectives that some members never enter, on a team whose units share a
// node (the shared-memory meetings of coll/node_sync.hpp) (members in
// different collectives: test_out_of_step.cpp):
// - a member that arrives late is named, with the call it last finished,
//   by the members waiting longer than DART_COLLECTIVE_TIMEOUT, and the
//   call still completes;
// - a member late to a new team's first collective (where the team's
//   window is made) is reported the same way, without a name;
// - with DART_COLLECTIVE_TIMEOUT_ACTION=abort the job ends instead (a
//   disabled case, run by its own CTest entry, which checks the line).
// Skipped on the MPI path (DART_SHARED_MEMORY=0), where such a program
// waits in MPI as it does without DART.
#include "dart_capture.hpp"

#include <dash/dart/if/dart.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

using namespace dartcheck;

bool node_path() {
  const char* v = std::getenv("DART_SHARED_MEMORY");
  return !(v && std::string(v) == "0");
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// A barrier on `team` that member `late` enters 1.5 s after the others
// (five times the 0.3 s timeout the tests set). Every member checks that
// the barrier succeeds; the others return what DART logged while they
// waited, the late member an empty string.
std::string barrier_with_late_member(dart_team_t team, int me, int late) {
  if (me == late) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    REQUIRE_OK(dart_barrier(team));
    return {};
  }
  StderrCapture cap;
  const dart_ret_t rc = dart_barrier(team);
  std::string text = cap.finish();
  BOOST_CHECK_EQUAL(rc, DART_OK);
  return text;
}

}  // namespace

// Its own dart_init, so that the timeout set here is the one read.
BOOST_AUTO_TEST_CASE(a_late_member_is_named_and_the_call_completes) {
  Units u;
  ::setenv("DART_COLLECTIVE_TIMEOUT", "0.3", 1);
  REQUIRE_OK(dart_init(nullptr, nullptr));
  if (u.n >= 2 && node_path()) {
    long x = 1;
    REQUIRE_OK(dart_bcast(&x, 1, DART_TYPE_LONG, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));  // one call finished
    const int late = u.n - 1;
    const std::string text = barrier_with_late_member(DART_TEAM_ALL, u.me, late);
    if (u.me != late) {
      BOOST_CHECK_MESSAGE(contains(text, "dart_barrier") && contains(text, "team 0") &&
                              contains(text, "have not arrived: " + std::to_string(late) +
                                                 " (last finished collective #") &&
                              contains(text, "dart_bcast"),
                          "log: " << text);
    }
    REQUIRE_OK(dart_barrier(DART_TEAM_ALL));
  }
  CHECK_OK(dart_exit());
  ::unsetenv("DART_COLLECTIVE_TIMEOUT");
}

// A team's first collective sets up its shared-memory window (an MPI
// call): a member late to it is reported too, though MPI cannot say which.
BOOST_AUTO_TEST_CASE(a_member_late_to_a_new_teams_first_collective_is_reported) {
  Units u;
  ::setenv("DART_COLLECTIVE_TIMEOUT", "0.3", 1);
  REQUIRE_OK(dart_init(nullptr, nullptr));
  if (u.n >= 2 && node_path()) {
    dart_group_t group = nullptr;
    REQUIRE_OK(dart_team_get_group(DART_TEAM_ALL, &group));
    dart_team_t team = DART_TEAM_NULL;
    REQUIRE_OK(dart_team_create(DART_TEAM_ALL, group, &team));
    REQUIRE_OK(dart_group_destroy(&group));
    const std::string text = barrier_with_late_member(team, u.me, u.n - 1);
    if (u.me != u.n - 1) {
      BOOST_CHECK_MESSAGE(contains(text, "members of team " + std::to_string(team) + " to reach the team's first") &&
                              contains(text, "some have not arrived"),
                          "log: " << text);
    }
    // The team works, and later collectives wait in the window as usual.
    long x = u.me + 1, sum = 0;
    REQUIRE_OK(dart_allreduce(&x, &sum, 1, DART_TYPE_LONG, DART_OP_SUM, team));
    BOOST_CHECK_EQUAL(sum, static_cast<long>(u.n) * (u.n + 1) / 2);
    REQUIRE_OK(dart_team_destroy(&team));
  }
  CHECK_OK(dart_exit());
  ::unsetenv("DART_COLLECTIVE_TIMEOUT");
}

// Run alone by dart_collective_hangs_abort: the job must end with the log
// line; if the abort did not happen the last unit's barrier would release
// the others and the case would end normally, without the line.
BOOST_AUTO_TEST_CASE(timeout_action_abort_ends_the_job, *boost::unit_test::disabled()) {
  Units u;
  ::setenv("DART_COLLECTIVE_TIMEOUT", "0.5", 1);
  ::setenv("DART_COLLECTIVE_TIMEOUT_ACTION", "abort", 1);
  REQUIRE_OK(dart_init(nullptr, nullptr));
  if (u.n >= 2 && node_path()) {
    if (u.me == u.n - 1) std::this_thread::sleep_for(std::chrono::seconds(20));
    (void)dart_barrier(DART_TEAM_ALL);
  }
  CHECK_OK(dart_exit());
}
