// Bad input to the collectives and two-sided calls, last part of the
// dart_collectives executable. The same bad argument on every unit
// (unknown team, root out of range, invalid, non-contiguous or mismatched
// types and operations, odd MINMAX counts, NULL buffers and arrays,
// overflowing counts, bad units, tags and message counts, calls before
// dart_init): DART_ERR_INVAL (non-OK before init), with a working team
// afterwards. Bad input on one unit only (the last, then unit 0: NULL
// buffers, dead type and operation handles, roots out of range, allgatherv
// counts contradicting nsendelem) and arguments that differ between units
// (root, count, type, operation): DART_ERR_INVAL on every unit, small
// counts (carried by the agreement) and larger ones, with a working team
// afterwards. The suite runs again with DART_COLLECTIVE_CHECKS=0
// (collectives.cmake), without the one-unit case, which filters it out by
// its name, bad_input_on_one_unit_fails_everywhere.
// Not covered: counts above INT_MAX (test_collectives_large.cpp), log
// lines (the entry() wrapper, test_bad_input.cpp), multi-node runs.
#include "collectives_common.hpp"

namespace {

using namespace colltest;

// ---- bad input --------------------------------------------------------------------------------

// Every call below gets the same bad argument on every unit, so each
// returns DART_ERR_INVAL (after the agreement, or without communicating
// when DART_COLLECTIVE_CHECKS=0); a hang here is a failure.
BOOST_FIXTURE_TEST_CASE(bad_input_is_rejected_on_every_unit, CollFixture) {
  QuietDart quiet;
  std::vector<int> a(64, 1), b(64, 0);
  const dart_team_unit_t r0 = DART_TEAM_UNIT_ID(0);
  std::vector<size_t> counts(static_cast<std::size_t>(n), 1), displs(static_cast<std::size_t>(n));
  for (std::size_t u = 0; u < displs.size(); ++u) displs[u] = u;
  auto all_collectives = [&](dart_datatype_t dt, dart_team_t team, const char* what) {
    BOOST_TEST_CONTEXT(what) {
      CHECK_EQ(dart_bcast(a.data(), 1, dt, r0, team), DART_ERR_INVAL);
      CHECK_EQ(dart_scatter(a.data(), b.data(), 1, dt, r0, team), DART_ERR_INVAL);
      CHECK_EQ(dart_gather(a.data(), b.data(), 1, dt, r0, team), DART_ERR_INVAL);
      CHECK_EQ(dart_allgather(a.data(), b.data(), 1, dt, team), DART_ERR_INVAL);
      CHECK_EQ(dart_allgatherv(a.data(), 1, dt, b.data(), counts.data(), displs.data(), team), DART_ERR_INVAL);
      CHECK_EQ(dart_alltoall(a.data(), b.data(), 1, dt, team), DART_ERR_INVAL);
      CHECK_EQ(dart_allreduce(a.data(), b.data(), 1, dt, DART_OP_SUM, team), DART_ERR_INVAL);
      CHECK_EQ(dart_reduce(a.data(), b.data(), 1, dt, DART_OP_SUM, r0, team), DART_ERR_INVAL);
    }
  };

  // Unknown teams.
  for (const dart_team_t team :
       {DART_UNDEFINED_TEAM_ID, static_cast<dart_team_t>(4711), static_cast<dart_team_t>(-5)}) {
    CHECK_EQ(dart_barrier(team), DART_ERR_INVAL);
    all_collectives(DART_TYPE_INT, team, "unknown team");
  }

  // Roots outside [0, size).
  for (const int root : {-1, n, n + 100}) {
    const dart_team_unit_t r = DART_TEAM_UNIT_ID(root);
    CHECK_EQ(dart_bcast(a.data(), 1, DART_TYPE_INT, r, DART_TEAM_ALL), DART_ERR_INVAL);
    CHECK_EQ(dart_scatter(a.data(), b.data(), 1, DART_TYPE_INT, r, DART_TEAM_ALL), DART_ERR_INVAL);
    CHECK_EQ(dart_gather(a.data(), b.data(), 1, DART_TYPE_INT, r, DART_TEAM_ALL), DART_ERR_INVAL);
    CHECK_EQ(dart_reduce(a.data(), b.data(), 1, DART_TYPE_INT, DART_OP_SUM, r, DART_TEAM_ALL), DART_ERR_INVAL);
  }

  // Types: undefined, reserved, made up, destroyed, non-contiguous.
  dart_datatype_t strided = DART_TYPE_UNDEFINED, indexed = DART_TYPE_UNDEFINED, gone = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &strided));
  const size_t bl[] = {1, 1}, off[] = {0, 2};
  REQUIRE_OK(dart_type_create_indexed(DART_TYPE_INT, 2, bl, off, &indexed));
  REQUIRE_OK(dart_type_create_custom(4, &gone));
  const dart_datatype_t gone_value = gone;
  CHECK_OK(dart_type_destroy(&gone));
  for (const dart_datatype_t dt :
       {DART_TYPE_UNDEFINED, DART_TYPE_LAST, static_cast<dart_datatype_t>(4242), gone_value, strided, indexed}) {
    all_collectives(dt, DART_TEAM_ALL, "bad type");
    const dart_global_unit_t self = DART_GLOBAL_UNIT_ID(me);
    CHECK_EQ(dart_send(a.data(), 1, dt, 0, self), DART_ERR_INVAL);
    CHECK_EQ(dart_recv(b.data(), 1, dt, 0, self), DART_ERR_INVAL);
    CHECK_EQ(dart_sendrecv(a.data(), 1, dt, 0, self, b.data(), 1, DART_TYPE_INT, 0, self), DART_ERR_INVAL);
    CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, 0, self, b.data(), 1, dt, 0, self), DART_ERR_INVAL);
  }

  // Operations: not for reductions, made up, destroyed, wrong for the type.
  dart_operation_t user = DART_OP_UNDEFINED;
  ModSum m{5};
  REQUIRE_OK(dart_op_create(&mod_sum, &m, true, DART_TYPE_INT, false, &user));
  dart_operation_t destroyed = DART_OP_UNDEFINED;
  REQUIRE_OK(dart_op_create(&mod_sum, &m, true, DART_TYPE_INT, false, &destroyed));
  const dart_operation_t destroyed_value = destroyed;
  CHECK_OK(dart_op_destroy(&destroyed));
  dart_datatype_t custom = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(sizeof(int), &custom));
  struct OpCase {
    dart_operation_t op;
    dart_datatype_t dt;
    size_t nelem;
    const char* what;
  };
  const OpCase op_cases[] = {
      {DART_OP_UNDEFINED, DART_TYPE_INT, 4, "DART_OP_UNDEFINED"},
      {DART_OP_REPLACE, DART_TYPE_INT, 4, "DART_OP_REPLACE"},
      {DART_OP_NO_OP, DART_TYPE_INT, 4, "DART_OP_NO_OP"},
      {DART_OP_LAST, DART_TYPE_INT, 4, "DART_OP_LAST"},
      {static_cast<dart_operation_t>(123456789), DART_TYPE_INT, 4, "made-up operation"},
      {destroyed_value, DART_TYPE_INT, 4, "destroyed user operation"},
      {user, DART_TYPE_LONG, 4, "user operation on another type"},
      {DART_OP_BAND, DART_TYPE_DOUBLE, 4, "BAND on DOUBLE"},
      {DART_OP_LXOR, DART_TYPE_FLOAT, 4, "LXOR on FLOAT"},
      {DART_OP_BOR, DART_TYPE_LONG_DOUBLE, 4, "BOR on LONG_DOUBLE"},
      {DART_OP_SUM, custom, 4, "SUM on a custom type"},
      {DART_OP_MINMAX, custom, 4, "MINMAX on a custom type"},
      {DART_OP_MINMAX, DART_TYPE_INT, 3, "MINMAX with an odd count"},
      {DART_OP_SUM, strided, 4, "SUM on a strided type"},
  };
  for (const OpCase& c : op_cases) {
    BOOST_TEST_CONTEXT(c.what) {
      CHECK_EQ(dart_allreduce(a.data(), b.data(), c.nelem, c.dt, c.op, DART_TEAM_ALL), DART_ERR_INVAL);
      CHECK_EQ(dart_reduce(a.data(), b.data(), c.nelem, c.dt, c.op, r0, DART_TEAM_ALL), DART_ERR_INVAL);
    }
  }

  // NULL buffers with elements to move (on every unit, root or not).
  const dart_team_unit_t rl = DART_TEAM_UNIT_ID(n - 1);
  CHECK_EQ(dart_bcast(nullptr, 1, DART_TYPE_INT, r0, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_scatter(a.data(), nullptr, 1, DART_TYPE_INT, r0, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_scatter(nullptr, nullptr, 1, DART_TYPE_INT, rl, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_gather(nullptr, b.data(), 1, DART_TYPE_INT, r0, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_gather(nullptr, nullptr, 1, DART_TYPE_INT, rl, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_allgather(a.data(), nullptr, 1, DART_TYPE_INT, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_alltoall(a.data(), nullptr, 1, DART_TYPE_INT, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_allreduce(nullptr, b.data(), 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_allreduce(a.data(), nullptr, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_reduce(nullptr, b.data(), 1, DART_TYPE_INT, DART_OP_SUM, rl, DART_TEAM_ALL), DART_ERR_INVAL);
  // A root without recvbuf is an error at the root only; others would wait.
  if (n == 1)
    CHECK_EQ(dart_reduce(a.data(), nullptr, 1, DART_TYPE_INT, DART_OP_SUM, r0, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_allgatherv(a.data(), 1, DART_TYPE_INT, nullptr, counts.data(), displs.data(), DART_TEAM_ALL),
           DART_ERR_INVAL);
  CHECK_EQ(dart_allgatherv(a.data(), 1, DART_TYPE_INT, b.data(), nullptr, displs.data(), DART_TEAM_ALL),
           DART_ERR_INVAL);
  CHECK_EQ(dart_allgatherv(a.data(), 1, DART_TYPE_INT, b.data(), counts.data(), nullptr, DART_TEAM_ALL),
           DART_ERR_INVAL);
  // allgatherv: nsendelem contradicting nrecvelem[me]; blocks past SIZE_MAX.
  CHECK_EQ(dart_allgatherv(a.data(), 2, DART_TYPE_INT, b.data(), counts.data(), displs.data(), DART_TEAM_ALL),
           DART_ERR_INVAL);
  std::vector<size_t> huge(static_cast<std::size_t>(n), SIZE_MAX);
  CHECK_EQ(dart_allgatherv(a.data(), 1, DART_TYPE_INT, b.data(), counts.data(), huge.data(), DART_TEAM_ALL),
           DART_ERR_INVAL);
  // Counts whose bytes overflow size_t.
  CHECK_EQ(dart_bcast(a.data(), SIZE_MAX / 2, DART_TYPE_INT, r0, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_scatter(a.data(), b.data(), SIZE_MAX / 4, DART_TYPE_LONG, r0, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_allgather(a.data(), b.data(), SIZE_MAX / 4, DART_TYPE_LONG, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_alltoall(a.data(), b.data(), SIZE_MAX / 4, DART_TYPE_LONG, DART_TEAM_ALL), DART_ERR_INVAL);
  CHECK_EQ(dart_allreduce(a.data(), b.data(), SIZE_MAX / 2, DART_TYPE_LONG, DART_OP_SUM, DART_TEAM_ALL),
           DART_ERR_INVAL);
  // Counts whose bytes fit size_t but not the buffer: beyond the address
  // space, or far beyond what is mapped (MPI would run off the end of the
  // buffer and crash).
  for (const size_t count : {SIZE_MAX, SIZE_MAX / 2 + 1, SIZE_MAX / 3, size_t{1} << 40}) {
    BOOST_TEST_CONTEXT(count << " bytes") {
      CHECK_EQ(dart_bcast(a.data(), count, DART_TYPE_BYTE, r0, DART_TEAM_ALL), DART_ERR_INVAL);
      CHECK_EQ(dart_allreduce(a.data(), b.data(), count, DART_TYPE_BYTE, DART_OP_BOR, DART_TEAM_ALL), DART_ERR_INVAL);
      CHECK_EQ(dart_reduce(a.data(), b.data(), count, DART_TYPE_BYTE, DART_OP_BOR, r0, DART_TEAM_ALL), DART_ERR_INVAL);
      CHECK_EQ(dart_scatter(a.data(), b.data(), count / static_cast<size_t>(n), DART_TYPE_BYTE, r0, DART_TEAM_ALL),
               DART_ERR_INVAL);
      CHECK_EQ(dart_gather(a.data(), b.data(), count / static_cast<size_t>(n), DART_TYPE_BYTE, r0, DART_TEAM_ALL),
               DART_ERR_INVAL);
      CHECK_EQ(dart_allgather(a.data(), b.data(), count / static_cast<size_t>(n), DART_TYPE_BYTE, DART_TEAM_ALL),
               DART_ERR_INVAL);
      CHECK_EQ(dart_alltoall(a.data(), b.data(), count / static_cast<size_t>(n), DART_TYPE_BYTE, DART_TEAM_ALL),
               DART_ERR_INVAL);
    }
  }

  // Two-sided: units outside [0, size), negative tags, tags above
  // MPI_TAG_UB, more than INT_MAX elements, NULL buffers.
  const dart_global_unit_t self = DART_GLOBAL_UNIT_ID(me);
  for (const int unit : {-1, n, 1 << 22}) {
    const dart_global_unit_t u = DART_GLOBAL_UNIT_ID(unit);
    CHECK_EQ(dart_send(a.data(), 1, DART_TYPE_INT, 0, u), DART_ERR_INVAL);
    CHECK_EQ(dart_recv(b.data(), 1, DART_TYPE_INT, 0, u), DART_ERR_INVAL);
    CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, 0, u, b.data(), 1, DART_TYPE_INT, 0, self), DART_ERR_INVAL);
    CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, 0, self, b.data(), 1, DART_TYPE_INT, 0, u), DART_ERR_INVAL);
  }
  int* tag_ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  std::vector<int> bad_tags{-1, INT_MIN};
  if (flag && tag_ub && *tag_ub < INT_MAX) bad_tags.push_back(*tag_ub + 1);
  for (const int tag : bad_tags) {
    CHECK_EQ(dart_send(a.data(), 1, DART_TYPE_INT, tag, self), DART_ERR_INVAL);
    CHECK_EQ(dart_recv(b.data(), 1, DART_TYPE_INT, tag, self), DART_ERR_INVAL);
    CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, tag, self, b.data(), 1, DART_TYPE_INT, 0, self), DART_ERR_INVAL);
    CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, 0, self, b.data(), 1, DART_TYPE_INT, tag, self), DART_ERR_INVAL);
  }
  const size_t too_many = static_cast<size_t>(INT_MAX) + 1;
  CHECK_EQ(dart_send(a.data(), too_many, DART_TYPE_BYTE, 0, self), DART_ERR_INVAL);
  CHECK_EQ(dart_recv(b.data(), too_many, DART_TYPE_BYTE, 0, self), DART_ERR_INVAL);
  CHECK_EQ(dart_send(nullptr, 1, DART_TYPE_INT, 0, self), DART_ERR_INVAL);
  CHECK_EQ(dart_recv(nullptr, 1, DART_TYPE_INT, 0, self), DART_ERR_INVAL);
  CHECK_EQ(dart_sendrecv(nullptr, 1, DART_TYPE_INT, 0, self, b.data(), 1, DART_TYPE_INT, 0, self), DART_ERR_INVAL);
  CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, 0, self, nullptr, 1, DART_TYPE_INT, 0, self), DART_ERR_INVAL);

  CHECK_OK(dart_op_destroy(&user));
  CHECK_OK(dart_type_destroy(&custom));
  CHECK_OK(dart_type_destroy(&strided));
  CHECK_OK(dart_type_destroy(&indexed));

  // The team still works, in step.
  int one = 1, sum = 0;
  CHECK_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
  CHECK_EQ(sum, n);
  std::vector<int> ids(static_cast<std::size_t>(n), -1);
  CHECK_OK(dart_allgather(&me, ids.data(), 1, DART_TYPE_INT, DART_TEAM_ALL));
  for (int u = 0; u < n; ++u) CHECK_EQ(ids[static_cast<std::size_t>(u)], u);
}

// ---- bad input on one unit only ----------------------------------------------------------------

// Exactly one unit (the last, then unit 0) passes a bad argument while the
// others pass good ones, at a count whose data travel inside the agreement
// (1 int) and at one that needs the MPI collective after it (300 ints):
// every unit returns DART_ERR_INVAL (the bad one for its own argument, the
// others because another member's was bad), nobody hangs (the harness's
// timeout would catch it), and the team works afterwards, in step.
// Arguments that are valid on each unit but differ between units (root,
// count, type) fail everywhere the same way. With one unit the bad unit is
// alone and fails by itself.
BOOST_FIXTURE_TEST_CASE(bad_input_on_one_unit_fails_everywhere, CollFixture) {
  QuietDart quiet;
  // Handles that every unit knows to be dead, passed by the bad unit only.
  dart_datatype_t gone_type = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(sizeof(int), &gone_type));
  const dart_datatype_t dead_type = gone_type;
  CHECK_OK(dart_type_destroy(&gone_type));
  ModSum m{7};
  dart_operation_t gone_op = DART_OP_UNDEFINED;
  REQUIRE_OK(dart_op_create(&mod_sum, &m, true, DART_TYPE_INT, false, &gone_op));
  const dart_operation_t dead_op = gone_op;
  CHECK_OK(dart_op_destroy(&gone_op));

  std::vector<int> bad_units{n - 1};
  if (n > 1) bad_units.push_back(0);
  for (const int bad : bad_units) {
    const bool x = me == bad;  // this unit passes the bad argument
    for (const std::size_t count : {std::size_t(1), std::size_t(300)}) {
      const std::size_t cap = (count + 1) * static_cast<std::size_t>(n);
      std::vector<int> a(cap, me + 1), b(cap, 0);
      std::vector<size_t> counts(static_cast<std::size_t>(n), count), displs(static_cast<std::size_t>(n));
      for (std::size_t u = 0; u < displs.size(); ++u) displs[u] = u * count;
      const dart_team_unit_t r0 = DART_TEAM_UNIT_ID(0);
      const dart_team_unit_t rb = DART_TEAM_UNIT_ID(bad);         // the bad unit as root
      const dart_team_unit_t rx = x ? DART_TEAM_UNIT_ID(n) : r0;  // out of range on one unit
      const dart_team_unit_t rd = x ? DART_TEAM_UNIT_ID(n - 1 - bad) : DART_TEAM_UNIT_ID(bad);  // differs
      const dart_datatype_t tx = x ? dead_type : DART_TYPE_INT;
      const dart_datatype_t td = x ? DART_TYPE_UINT : DART_TYPE_INT;  // valid, but differs
      const dart_operation_t ox = x ? dead_op : static_cast<dart_operation_t>(DART_OP_SUM);
      const dart_operation_t od = x ? DART_OP_MAX : DART_OP_SUM;  // valid, but differs
      const std::size_t cd = x ? count + 1 : count;               // valid, but differs
      int* const ax = x ? nullptr : a.data();
      int* const bx = x ? nullptr : b.data();
      std::vector<size_t> counts_d = counts;  // the bad unit's idea of another unit's count
      if (x) counts_d[static_cast<std::size_t>((bad + 1) % n)] += 1;

      struct Case {
        const char* what;
        bool mismatch;  // needs two units to disagree
        std::function<dart_ret_t()> call;
      };
      const Case cases[] = {
          {"bcast: NULL buf", false, [&] { return dart_bcast(ax, count, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"bcast: dead type", false, [&] { return dart_bcast(a.data(), count, tx, r0, DART_TEAM_ALL); }},
          {"bcast: root out of range", false,
           [&] { return dart_bcast(a.data(), count, DART_TYPE_INT, rx, DART_TEAM_ALL); }},
          {"bcast: root differs", true, [&] { return dart_bcast(a.data(), count, DART_TYPE_INT, rd, DART_TEAM_ALL); }},
          {"bcast: count differs", true, [&] { return dart_bcast(a.data(), cd, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"scatter: NULL recvbuf", false,
           [&] { return dart_scatter(a.data(), bx, count, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"scatter: NULL sendbuf at the root", false,
           [&] { return dart_scatter(ax, b.data(), count, DART_TYPE_INT, rb, DART_TEAM_ALL); }},
          {"scatter: dead type", false, [&] { return dart_scatter(a.data(), b.data(), count, tx, r0, DART_TEAM_ALL); }},
          {"scatter: root out of range", false,
           [&] { return dart_scatter(a.data(), b.data(), count, DART_TYPE_INT, rx, DART_TEAM_ALL); }},
          {"scatter: root differs", true,
           [&] { return dart_scatter(a.data(), b.data(), count, DART_TYPE_INT, rd, DART_TEAM_ALL); }},
          {"gather: NULL sendbuf", false,
           [&] { return dart_gather(ax, b.data(), count, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"gather: NULL recvbuf at the root", false,
           [&] { return dart_gather(a.data(), bx, count, DART_TYPE_INT, rb, DART_TEAM_ALL); }},
          {"gather: dead type", false, [&] { return dart_gather(a.data(), b.data(), count, tx, r0, DART_TEAM_ALL); }},
          {"gather: root out of range", false,
           [&] { return dart_gather(a.data(), b.data(), count, DART_TYPE_INT, rx, DART_TEAM_ALL); }},
          {"gather: count differs", true,
           [&] { return dart_gather(a.data(), b.data(), cd, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"allgather: NULL recvbuf", false,
           [&] { return dart_allgather(a.data(), bx, count, DART_TYPE_INT, DART_TEAM_ALL); }},
          {"allgather: dead type", false, [&] { return dart_allgather(a.data(), b.data(), count, tx, DART_TEAM_ALL); }},
          {"allgather: count differs", true,
           [&] { return dart_allgather(a.data(), b.data(), cd, DART_TYPE_INT, DART_TEAM_ALL); }},
          {"allgatherv: NULL recvbuf", false,
           [&] {
             return dart_allgatherv(a.data(), count, DART_TYPE_INT, bx, counts.data(), displs.data(), DART_TEAM_ALL);
           }},
          {"allgatherv: NULL nrecvelem", false,
           [&] {
             return dart_allgatherv(a.data(), count, DART_TYPE_INT, b.data(), x ? nullptr : counts.data(),
                                    displs.data(), DART_TEAM_ALL);
           }},
          {"allgatherv: dead type", false,
           [&] { return dart_allgatherv(a.data(), count, tx, b.data(), counts.data(), displs.data(), DART_TEAM_ALL); }},
          {"allgatherv: nsendelem contradicts nrecvelem[me]", false,
           [&] {
             return dart_allgatherv(a.data(), cd, DART_TYPE_INT, b.data(), counts.data(), displs.data(), DART_TEAM_ALL);
           }},
          {"allgatherv: another unit's count differs", true,
           [&] {
             return dart_allgatherv(a.data(), count, DART_TYPE_INT, b.data(), counts_d.data(), displs.data(),
                                    DART_TEAM_ALL);
           }},
          {"allreduce: NULL sendbuf", false,
           [&] { return dart_allreduce(ax, b.data(), count, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL); }},
          {"allreduce: NULL recvbuf", false,
           [&] { return dart_allreduce(a.data(), bx, count, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL); }},
          {"allreduce: dead type", false,
           [&] { return dart_allreduce(a.data(), b.data(), count, tx, DART_OP_SUM, DART_TEAM_ALL); }},
          {"allreduce: dead operation", false,
           [&] { return dart_allreduce(a.data(), b.data(), count, DART_TYPE_INT, ox, DART_TEAM_ALL); }},
          {"allreduce: LXOR on FLOAT", false,
           [&] {
             return dart_allreduce(a.data(), b.data(), count, x ? DART_TYPE_FLOAT : DART_TYPE_INT,
                                   x ? DART_OP_LXOR : DART_OP_BXOR, DART_TEAM_ALL);
           }},
          {"allreduce: operation differs", true,
           [&] { return dart_allreduce(a.data(), b.data(), count, DART_TYPE_INT, od, DART_TEAM_ALL); }},
          {"allreduce: type differs", true,
           [&] { return dart_allreduce(a.data(), b.data(), count, td, DART_OP_SUM, DART_TEAM_ALL); }},
          {"allreduce: count differs", true,
           [&] { return dart_allreduce(a.data(), b.data(), cd, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL); }},
          {"alltoall: NULL recvbuf", false,
           [&] { return dart_alltoall(a.data(), bx, count, DART_TYPE_INT, DART_TEAM_ALL); }},
          {"alltoall: dead type", false, [&] { return dart_alltoall(a.data(), b.data(), count, tx, DART_TEAM_ALL); }},
          {"alltoall: count differs", true,
           [&] { return dart_alltoall(a.data(), b.data(), cd, DART_TYPE_INT, DART_TEAM_ALL); }},
          {"reduce: NULL sendbuf", false,
           [&] { return dart_reduce(ax, b.data(), count, DART_TYPE_INT, DART_OP_SUM, r0, DART_TEAM_ALL); }},
          {"reduce: NULL recvbuf at the root", false,
           [&] { return dart_reduce(a.data(), bx, count, DART_TYPE_INT, DART_OP_SUM, rb, DART_TEAM_ALL); }},
          {"reduce: dead type", false,
           [&] { return dart_reduce(a.data(), b.data(), count, tx, DART_OP_SUM, r0, DART_TEAM_ALL); }},
          {"reduce: dead operation", false,
           [&] { return dart_reduce(a.data(), b.data(), count, DART_TYPE_INT, ox, r0, DART_TEAM_ALL); }},
          {"reduce: root out of range", false,
           [&] { return dart_reduce(a.data(), b.data(), count, DART_TYPE_INT, DART_OP_SUM, rx, DART_TEAM_ALL); }},
          {"reduce: root differs", true,
           [&] { return dart_reduce(a.data(), b.data(), count, DART_TYPE_INT, DART_OP_SUM, rd, DART_TEAM_ALL); }},
      };
      for (const Case& c : cases) {
        if (c.mismatch && n == 1) continue;
        BOOST_TEST_CONTEXT("bad unit " << bad << ", count " << count << ", " << c.what) {
          CHECK_EQ(c.call(), DART_ERR_INVAL);
          // The team is in step: a good collective works.
          int one = 1, sum = 0;
          CHECK_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
          CHECK_EQ(sum, n);
        }
      }
    }
  }
  // Larger collectives still agree and compute right.
  std::vector<int> ids(static_cast<std::size_t>(n) * 300, -1), mine(300, me);
  CHECK_OK(dart_allgather(mine.data(), ids.data(), 300, DART_TYPE_INT, DART_TEAM_ALL));
  for (std::size_t i = 0; i < ids.size(); ++i) CHECK_EQ(ids[i], static_cast<int>(i / 300));
}

BOOST_AUTO_TEST_CASE(calls_outside_init_fail) {
  QuietDart quiet;
  int x = 1, y = 0;
  const dart_global_unit_t self = DART_GLOBAL_UNIT_ID(mpitest::world_rank());
  CHECK_RANK(dart_barrier(DART_TEAM_ALL) != DART_OK);
  CHECK_RANK(dart_bcast(&x, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL) != DART_OK);
  CHECK_RANK(dart_allreduce(&x, &y, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL) != DART_OK);
  CHECK_RANK(dart_allgather(&x, &y, 1, DART_TYPE_INT, DART_TEAM_ALL) != DART_OK);
  CHECK_RANK(dart_send(&x, 1, DART_TYPE_INT, 0, self) != DART_OK);
  CHECK_RANK(dart_recv(&y, 1, DART_TYPE_INT, 0, self) != DART_OK);
  REQUIRE_OK(dart_init(nullptr, nullptr));
  REQUIRE_OK(dart_exit());
  CHECK_RANK(dart_barrier(DART_TEAM_ALL) != DART_OK);
  CHECK_RANK(dart_reduce(&x, &y, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL) != DART_OK);
  CHECK_RANK(dart_sendrecv(&x, 1, DART_TYPE_INT, 0, self, &y, 1, DART_TYPE_INT, 0, self) != DART_OK);
}

}  // namespace
