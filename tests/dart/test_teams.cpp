// Groups and teams of DART (dart_team_group.h, spec 3.4): every dart_group_*
// set operation and dart_group_split (including empty outputs); team
// creation from groups built in any order, with non-members passing the
// group or NULL; nested teams; teams of one unit; clones; unit id
// translation both ways; team id rules (agreed, distinct among live teams,
// reused after destruction, also past the ids the first agreement of a
// creation carries); 10^4 create/destroy cycles; global memory,
// one-sided transfers, atomics and locks on a sub-team, and locks outliving
// their team; invalid arguments (error code, no hang on the other units).
// Collectives on sub-teams are in test_collectives.cpp.
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

using dartcheck::QuietDart;

std::vector<int> members(dart_group_t g) {
  size_t size = 0;
  CHECK_OK(dart_group_size(g, &size));
  std::vector<dart_global_unit_t> units(size);
  if (size > 0) CHECK_OK(dart_group_getmembers(g, units.data()));
  std::vector<int> out;
  for (const auto& u : units) out.push_back(u.id);
  return out;
}

dart_group_t make_group(const std::vector<int>& units) {
  dart_group_t g = DART_GROUP_NULL;
  CHECK_OK(dart_group_create(&g));
  for (int u : units) CHECK_OK(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(u)));
  return g;
}

std::vector<int> range_if(int n, bool (*keep)(int)) {
  std::vector<int> out;
  for (int u = 0; u < n; ++u)
    if (keep(u)) out.push_back(u);
  return out;
}

bool is_even(int u) { return u % 2 == 0; }

// Creates a team of `units` (given in any order) from `parent`; non-members
// pass the group as well unless `null_for_outsiders`.
dart_team_t create(dart_team_t parent, std::vector<int> units, bool null_for_outsiders = false) {
  std::reverse(units.begin(), units.end());  // membership, not insertion order, decides
  dart_group_t g = make_group(units);
  const bool member = std::find(units.begin(), units.end(), mpitest::world_rank()) != units.end();
  dart_team_t t = 12345;
  CHECK_OK(dart_team_create(parent, null_for_outsiders && !member ? DART_GROUP_NULL : g, &t));
  CHECK_OK(dart_group_destroy(&g));
  if (member) CHECK_RANK(t > 0);
  else CHECK_EQ(t, DART_TEAM_NULL);
  return t;
}

// Checks size, myid and both id translations of `team` against `units`
// (ascending global ids).
void check_team(dart_team_t team, const std::vector<int>& units) {
  const int me = mpitest::world_rank();
  size_t size = 0;
  CHECK_OK(dart_team_size(team, &size));
  CHECK_EQ(size, units.size());
  dart_team_unit_t my = DART_UNDEFINED_TEAM_UNIT_ID;
  CHECK_OK(dart_team_myid(team, &my));
  CHECK_EQ(my.id, static_cast<int>(std::find(units.begin(), units.end(), me) - units.begin()));
  for (std::size_t i = 0; i < units.size(); ++i) {
    dart_global_unit_t g = DART_UNDEFINED_GLOBAL_UNIT_ID;
    CHECK_OK(dart_team_unit_l2g(team, DART_TEAM_UNIT_ID(static_cast<int>(i)), &g));
    CHECK_EQ(g.id, units[i]);
    dart_team_unit_t l = DART_UNDEFINED_TEAM_UNIT_ID;
    CHECK_OK(dart_team_unit_g2l(team, DART_GLOBAL_UNIT_ID(units[i]), &l));
    CHECK_EQ(l.id, static_cast<int>(i));
  }
  for (int u = 0; u < mpitest::world_size(); ++u) {
    if (std::find(units.begin(), units.end(), u) != units.end()) continue;
    dart_team_unit_t l = DART_TEAM_UNIT_ID(7);
    CHECK_OK(dart_team_unit_g2l(team, DART_GLOBAL_UNIT_ID(u), &l));
    CHECK_EQ(l.id, DART_UNDEFINED_UNIT_ID);
  }
  dart_group_t g = DART_GROUP_NULL;
  CHECK_OK(dart_team_get_group(team, &g));
  CHECK_RANK(members(g) == units);
  CHECK_OK(dart_group_destroy(&g));
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(teams, dartcheck::DartFixture)

BOOST_AUTO_TEST_CASE(group_set_operations) {
  dart_group_t a = make_group({n - 1, 0, n - 1});
  CHECK_RANK(members(a) == (n > 1 ? std::vector<int>{0, n - 1} : std::vector<int>{0}));
  dart_group_t all = DART_GROUP_NULL;
  CHECK_OK(dart_team_get_group(DART_TEAM_ALL, &all));
  std::vector<int> everyone(static_cast<std::size_t>(n));
  for (int u = 0; u < n; ++u) everyone[static_cast<std::size_t>(u)] = u;
  CHECK_RANK(members(all) == everyone);

  dart_group_t evens = make_group(range_if(n, is_even));
  dart_group_t odds = make_group(range_if(n, [](int u) { return u % 2 == 1; }));
  dart_group_t u = DART_GROUP_NULL, i = DART_GROUP_NULL, c = DART_GROUP_NULL;
  CHECK_OK(dart_group_union(odds, evens, &u));
  CHECK_RANK(members(u) == everyone);
  CHECK_OK(dart_group_intersect(all, evens, &i));
  CHECK_RANK(members(i) == range_if(n, is_even));
  CHECK_OK(dart_group_intersect(odds, evens, &c));
  CHECK_RANK(members(c).empty());
  CHECK_OK(dart_group_destroy(&c));
  CHECK_OK(dart_group_clone(evens, &c));
  CHECK_RANK(members(c) == members(evens));
  CHECK_OK(dart_group_delmember(c, DART_GLOBAL_UNIT_ID(0)));
  CHECK_OK(dart_group_delmember(c, DART_GLOBAL_UNIT_ID(0)));  // absent: no effect
  CHECK_RANK(members(evens).front() == 0);                    // the clone is a copy
  int32_t is = -1;
  CHECK_OK(dart_group_ismember(c, DART_GLOBAL_UNIT_ID(0), &is));
  CHECK_EQ(is, 0);
  CHECK_OK(dart_group_ismember(evens, DART_GLOBAL_UNIT_ID(0), &is));
  CHECK_EQ(is, 1);
  for (dart_group_t* g : {&a, &all, &evens, &odds, &u, &i, &c}) {
    CHECK_OK(dart_group_destroy(g));
    CHECK_RANK(*g == DART_GROUP_NULL);
  }
  CHECK_OK(dart_group_destroy(&a));  // already null: nothing to do
}

BOOST_AUTO_TEST_CASE(group_split_allocates_every_output) {
  // 7 members into 3 groups: L = 3 -> {0,1,2} {3,4,5} {6}; into 10: 7 of
  // one member and 3 empty ones.
  dart_group_t g = DART_GROUP_NULL;
  CHECK_OK(dart_group_create(&g));
  for (int u = 0; u < std::min(n, 7); ++u) CHECK_OK(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(u)));
  const std::size_t size = static_cast<std::size_t>(std::min(n, 7));
  for (const std::size_t parts : {std::size_t{1}, std::size_t{3}, std::size_t{10}}) {
    std::vector<dart_group_t> out(parts, DART_GROUP_NULL);
    size_t nout = 999;
    CHECK_OK(dart_group_split(g, parts, &nout, out.data()));
    const std::size_t per = (size + parts - 1) / parts;
    CHECK_EQ(nout, (size + per - 1) / per);
    std::size_t next = 0;
    for (std::size_t k = 0; k < parts; ++k) {
      BOOST_REQUIRE(out[k] != DART_GROUP_NULL);
      const auto m = members(out[k]);
      for (int unit : m) CHECK_EQ(unit, static_cast<int>(next++));
      CHECK_RANK(m.size() == std::min(per, size - std::min(size, k * per)));
      CHECK_OK(dart_group_destroy(&out[k]));
    }
    CHECK_EQ(next, size);
  }
  QuietDart quiet;
  size_t nout = 0;
  dart_group_t out = DART_GROUP_NULL;
  CHECK_EQ(dart_group_split(g, 0, &nout, &out), DART_ERR_INVAL);
  CHECK_EQ(dart_group_split(DART_GROUP_NULL, 1, &nout, &out), DART_ERR_INVAL);
  CHECK_OK(dart_group_destroy(&g));
}

BOOST_AUTO_TEST_CASE(group_bad_input) {
  QuietDart quiet;
  dart_group_t g = DART_GROUP_NULL, out = DART_GROUP_NULL;
  CHECK_OK(dart_group_create(&g));
  CHECK_EQ(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(n)), DART_ERR_INVAL);
  CHECK_EQ(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(-1)), DART_ERR_INVAL);
  CHECK_EQ(dart_group_addmember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0)), DART_ERR_INVAL);
  CHECK_EQ(dart_group_union(g, DART_GROUP_NULL, &out), DART_ERR_INVAL);
  CHECK_RANK(out == DART_GROUP_NULL);
  CHECK_EQ(dart_group_clone(DART_GROUP_NULL, &out), DART_ERR_INVAL);
  CHECK_EQ(dart_group_clone(g, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_group_destroy(nullptr), DART_ERR_INVAL);
  size_t size = 5;
  CHECK_EQ(dart_group_size(DART_GROUP_NULL, &size), DART_ERR_INVAL);
  int32_t is = 1;
  CHECK_EQ(dart_group_ismember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0), &is), DART_ERR_INVAL);
  CHECK_EQ(is, 0);
  CHECK_OK(dart_group_size(g, &size));
  CHECK_EQ(size, 0u);
  CHECK_OK(dart_group_destroy(&g));
}

BOOST_AUTO_TEST_CASE(create_translate_and_destroy) {
  const auto evens = range_if(n, is_even);
  for (const bool null_outside : {false, true}) {
    dart_team_t t = create(DART_TEAM_ALL, evens, null_outside);
    if (t != DART_TEAM_NULL) {
      check_team(t, evens);
      CHECK_OK(dart_team_destroy(&t));
      CHECK_EQ(t, DART_TEAM_NULL);
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
  }
  // An empty group gives DART_TEAM_NULL everywhere.
  dart_team_t none = create(DART_TEAM_ALL, {});
  CHECK_EQ(none, DART_TEAM_NULL);
  CHECK_OK(dart_team_destroy(&none));  // DART_TEAM_NULL: nothing to do
  check_team(DART_TEAM_ALL, range_if(n, [](int) { return true; }));
}

BOOST_AUTO_TEST_CASE(nested_single_unit_and_cloned_teams) {
  // Everyone, then everyone but unit 0 inside it, then the last unit alone
  // inside that.
  std::vector<int> all_units = range_if(n, [](int) { return true; });
  dart_team_t outer = create(DART_TEAM_ALL, all_units);
  std::vector<int> rest(all_units.begin() + (n > 1 ? 1 : 0), all_units.end());
  dart_team_t middle = create(outer, rest);
  dart_team_t inner = DART_TEAM_NULL;
  if (middle != DART_TEAM_NULL) {
    inner = create(middle, {n - 1});
    check_team(middle, rest);
  }
  if (me == n - 1) {
    check_team(inner, {n - 1});
    CHECK_RANK(inner != middle && inner != outer && middle != outer);
  }
  // A clone: same members, new id.
  dart_team_t clone = DART_TEAM_NULL;
  CHECK_OK(dart_team_clone(outer, &clone));
  CHECK_RANK(clone != outer && clone > 0);
  check_team(clone, all_units);
  // Units of one team at a time: each unit alone, created in turn.
  std::vector<dart_team_t> alone(static_cast<std::size_t>(n), DART_TEAM_NULL);
  for (int u = 0; u < n; ++u) alone[static_cast<std::size_t>(u)] = create(clone, {u});
  check_team(alone[static_cast<std::size_t>(me)], {me});
  // My live teams have distinct ids.
  std::set<dart_team_t> ids{DART_TEAM_ALL, outer, clone, alone[static_cast<std::size_t>(me)]};
  if (middle != DART_TEAM_NULL) ids.insert(middle);
  if (inner != DART_TEAM_NULL) ids.insert(inner);
  CHECK_EQ(ids.size(), std::size_t{4} + (middle != DART_TEAM_NULL) + (inner != DART_TEAM_NULL));

  CHECK_OK(dart_team_destroy(&alone[static_cast<std::size_t>(me)]));
  if (inner != DART_TEAM_NULL) CHECK_OK(dart_team_destroy(&inner));
  if (middle != DART_TEAM_NULL) CHECK_OK(dart_team_destroy(&middle));
  CHECK_OK(dart_team_destroy(&clone));
  CHECK_OK(dart_team_destroy(&outer));
}

BOOST_AUTO_TEST_CASE(ids_are_reused_and_agreed) {
  // Every unit reports its new id; all members must agree, and destroying
  // then creating again must give an id back rather than exhaust them.
  const auto all_units = range_if(n, [](int) { return true; });
  dart_team_t first = create(DART_TEAM_ALL, all_units);
  int id = first, lo = 0, hi = 0;
  MPI_Allreduce(&id, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&id, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK_EQ(lo, hi);
  const dart_team_t was = first;
  CHECK_OK(dart_team_destroy(&first));
  dart_team_t again = create(DART_TEAM_ALL, all_units);
  CHECK_EQ(again, was);
  CHECK_OK(dart_team_destroy(&again));
}

BOOST_AUTO_TEST_CASE(ids_past_the_first_agreement_agree) {
  // More live teams than the first agreement carries ids for: the ids
  // beyond it must still agree, differ from every live one, and be reused.
  const auto all_units = range_if(n, [](int) { return true; });
  constexpr int kTeams = 300;
  std::vector<dart_team_t> teams;
  for (int i = 0; i < kTeams; ++i) teams.push_back(create(DART_TEAM_ALL, all_units));
  std::vector<int> ids(teams.begin(), teams.end()), lo(ids.size()), hi(ids.size());
  MPI_Allreduce(ids.data(), lo.data(), kTeams, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(ids.data(), hi.data(), kTeams, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK_RANK(lo == hi);
  std::vector<int> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  CHECK_RANK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  const dart_team_t last = teams.back();
  CHECK_OK(dart_team_destroy(&teams.back()));
  dart_team_t again = create(DART_TEAM_ALL, all_units);
  CHECK_EQ(again, last);
  teams.back() = again;
  for (auto it = teams.rbegin(); it != teams.rend(); ++it) CHECK_OK(dart_team_destroy(&*it));
}

BOOST_AUTO_TEST_CASE(ten_thousand_create_destroy_cycles) {
  // Half the units (at least one) in a team, 10^4 times: nothing may leak
  // (communicators, windows, ids).
  const auto half = range_if(n, [](int u) { return u < (mpitest::world_size() + 1) / 2; });
  dart_group_t g = make_group(half);
  const bool member = me < (n + 1) / 2;
  int failures = 0;
  dart_team_t seen = DART_TEAM_NULL;
  const long cycles = mpitest::scaled(10000);
  for (long cycle = 0; cycle < cycles && failures == 0; ++cycle) {
    dart_team_t t = DART_TEAM_NULL;
    if (dart_team_create(DART_TEAM_ALL, g, &t) != DART_OK) ++failures;
    if (member != (t != DART_TEAM_NULL)) ++failures;
    if (t != DART_TEAM_NULL) {
      if (seen == DART_TEAM_NULL) seen = t;
      if (t != seen) ++failures;  // the freed id is reused every time
      if (dart_team_destroy(&t) != DART_OK) ++failures;
    }
  }
  CHECK_EQ(failures, 0);
  CHECK_OK(dart_group_destroy(&g));
}

BOOST_AUTO_TEST_CASE(memory_transfers_atomics_and_locks_on_a_sub_team) {
  // The odd units when there are at least 2, else everyone.
  const auto units = n >= 2 ? range_if(n, [](int u) { return u % 2 == 1; }) : range_if(n, [](int) { return true; });
  dart_team_t t = create(DART_TEAM_ALL, units);
  dart_lock_t lock = DART_LOCK_NULL;
  if (t != DART_TEAM_NULL) {
    const int tn = static_cast<int>(units.size());
    dart_team_unit_t tme;
    CHECK_OK(dart_team_myid(t, &tme));
    const int right = (tme.id + 1) % tn;
    constexpr std::size_t kN = 1000;
    dart_gptr_t seg = DART_GPTR_NULL;
    REQUIRE_OK(dart_team_memalloc_aligned(t, kN + 1, DART_TYPE_LONG, &seg));
    CHECK_EQ(seg.teamid, t);
    void* mine = nullptr;
    dart_gptr_t at_me = seg;
    at_me.unitid = tme.id;
    CHECK_OK(dart_gptr_getaddr(at_me, &mine));
    static_cast<long*>(mine)[kN] = 0;
    CHECK_OK(dart_barrier(t));
    std::vector<long> src(kN);
    for (std::size_t i = 0; i < kN; ++i) src[i] = 1000000L * me + static_cast<long>(i);
    dart_gptr_t dst = seg;
    dst.unitid = right;
    CHECK_OK(dart_put_blocking(dst, src.data(), kN, DART_TYPE_LONG, DART_TYPE_LONG));
    // Everyone adds its global id + 1 to the counter on team unit 0.
    dart_gptr_t counter = seg;
    counter.unitid = 0;
    counter.addr_or_offs.offset = kN * sizeof(long);
    const long add = me + 1;
    CHECK_OK(dart_accumulate(counter, &add, 1, DART_TYPE_LONG, DART_OP_SUM));
    CHECK_OK(dart_flush(counter));
    CHECK_OK(dart_barrier(t));
    const int left = units[static_cast<std::size_t>((tme.id + tn - 1) % tn)];
    long bad = 0;
    for (std::size_t i = 0; i < kN; ++i) bad += static_cast<long*>(mine)[i] != 1000000L * left + static_cast<long>(i);
    CHECK_EQ(bad, 0);
    long expect = 0;
    for (int u : units) expect += u + 1;
    long total = -1;
    CHECK_OK(dart_get_blocking(&total, counter, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    CHECK_EQ(total, expect);

    // A lock of the team guards a non-atomic increment.
    REQUIRE_OK(dart_team_lock_init(t, &lock));
    CHECK_RANK(dart_lock_initialized(lock));
    CHECK_OK(dart_barrier(t));
    for (int k = 0; k < 50; ++k) {
      CHECK_OK(dart_lock_acquire(lock));
      long v = 0;
      CHECK_OK(dart_get_blocking(&v, counter, 1, DART_TYPE_LONG, DART_TYPE_LONG));
      ++v;
      CHECK_OK(dart_put_blocking(counter, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
      CHECK_OK(dart_lock_release(lock));
    }
    CHECK_OK(dart_barrier(t));
    CHECK_OK(dart_get_blocking(&total, counter, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    CHECK_EQ(total, expect + 50L * tn);
    CHECK_OK(dart_barrier(t));
    CHECK_OK(dart_team_memfree(seg));
    // The team goes while the lock handle lives: the lock's memory goes
    // with it, and the handle says so.
    CHECK_OK(dart_team_destroy(&t));
    CHECK_RANK(!dart_lock_initialized(lock));
    {
      QuietDart quiet;
      CHECK_EQ(dart_lock_acquire(lock), DART_ERR_INVAL);
    }
    CHECK_OK(dart_team_lock_destroy(&lock));
    CHECK_RANK(lock == DART_LOCK_NULL);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  // The same team id may now be reused by a new team: the old handle's
  // memory must not be mistaken for the new team's.
}

BOOST_AUTO_TEST_CASE(bad_input_fails_everywhere_without_hanging) {
  QuietDart quiet;
  // Every caller passes a group with a unit outside the parent (the even
  // team, with the odd unit 1 added): every caller fails.
  if (n >= 2) {
    dart_team_t evens = create(DART_TEAM_ALL, range_if(n, is_even));
    if (evens != DART_TEAM_NULL) {
      dart_group_t g = make_group({0, 1});
      dart_team_t t = 77;
      CHECK_EQ(dart_team_create(evens, g, &t), DART_ERR_INVAL);
      CHECK_EQ(t, DART_TEAM_NULL);
      CHECK_OK(dart_group_destroy(&g));
      CHECK_OK(dart_team_destroy(&evens));
    }
    // Callers disagree on the members: every caller fails.
    dart_group_t g = make_group(me == 0 ? std::vector<int>{0} : std::vector<int>{0, 1});
    dart_team_t t = 77;
    CHECK_EQ(dart_team_create(DART_TEAM_ALL, g, &t), DART_ERR_INVAL);
    CHECK_EQ(t, DART_TEAM_NULL);
    CHECK_OK(dart_group_destroy(&g));
  }
  // A unit outside the parent's view: team id never created.
  size_t size = 9;
  CHECK_EQ(dart_team_size(1234, &size), DART_ERR_INVAL);
  CHECK_EQ(size, 9u);
  dart_team_unit_t u = DART_TEAM_UNIT_ID(5);
  CHECK_EQ(dart_team_myid(1234, &u), DART_ERR_INVAL);
  CHECK_EQ(u.id, DART_UNDEFINED_UNIT_ID);
  CHECK_EQ(dart_team_myid(DART_TEAM_NULL, &u), DART_ERR_INVAL);
  dart_team_t all = DART_TEAM_ALL;
  CHECK_EQ(dart_team_destroy(&all), DART_ERR_INVAL);
  CHECK_EQ(all, DART_TEAM_ALL);
  dart_team_t unknown = 1234;
  CHECK_EQ(dart_team_destroy(&unknown), DART_ERR_INVAL);
  CHECK_EQ(dart_team_destroy(nullptr), DART_ERR_INVAL);
  dart_global_unit_t g = DART_GLOBAL_UNIT_ID(3);
  CHECK_EQ(dart_team_unit_l2g(DART_TEAM_ALL, DART_TEAM_UNIT_ID(n), &g), DART_ERR_INVAL);
  CHECK_EQ(g.id, DART_UNDEFINED_UNIT_ID);
  CHECK_EQ(dart_team_unit_l2g(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_team_unit_g2l(DART_TEAM_ALL, DART_GLOBAL_UNIT_ID(0), nullptr), DART_ERR_INVAL);
  dart_group_t grp = DART_GROUP_NULL;
  CHECK_EQ(dart_team_get_group(1234, &grp), DART_ERR_INVAL);
  CHECK_RANK(grp == DART_GROUP_NULL);
  // A NULL out-pointer on every caller: the collective still completes.
  dart_group_t all_group = DART_GROUP_NULL;
  CHECK_OK(dart_team_get_group(DART_TEAM_ALL, &all_group));
  CHECK_EQ(dart_team_create(DART_TEAM_ALL, all_group, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_team_clone(DART_TEAM_ALL, nullptr), DART_ERR_INVAL);
  CHECK_OK(dart_group_destroy(&all_group));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

BOOST_AUTO_TEST_SUITE_END()
