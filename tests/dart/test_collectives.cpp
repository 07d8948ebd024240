// Collectives of DART (spec 3.6.1), first part of the dart_collectives
// executable. Covered, with data that depend on the unit and on the
// position, checked on every unit: dart_barrier, dart_bcast, dart_scatter,
// dart_gather, dart_allgather, dart_allgatherv (unequal blocks, one of them
// empty, placed in reverse order with gaps that must stay untouched) and
// dart_alltoall for every basic type and a custom type, at the first and
// the last unit as root, with every in-place form (allgather/allgatherv/
// alltoall with sendbuf NULL, == recvbuf or == the own block; scatter and
// gather with the root's own block in place) and with NULL buffers where
// the spec says they are not read; dart_allreduce and dart_reduce (NULL
// recvbuf off the root, sendbuf == recvbuf as in place) with MIN, MAX,
// SUM, PROD for every basic type and BAND, LAND, BOR, LOR, BXOR, LXOR for
// every integer type (logical results are 0/1 also on a team of one),
// DART_OP_MINMAX on pairs of every basic type, user operations
// (commutative on int with userdata; non-commutative on a custom type,
// whose result depends on the team order), and concurrent reductions with
// different user operations from two threads on two teams; zero counts
// with NULL buffers; all of it again on a team of the even units when
// there are two units or more (dart_team_create), and non-members
// rejected there. Two-sided messages are in test_collectives_twosided.cpp,
// bad input in test_collectives_bad_input.cpp.
// Not covered: counts above INT_MAX (test_collectives_large.cpp), log
// lines (the entry() wrapper, test_bad_input.cpp), multi-node runs.
#include "collectives_common.hpp"

namespace {

using namespace colltest;

// ---- collectives without reduction ---------------------------------------------------

template <class T>
void check_rooted(const TeamView& t, dart_datatype_t dt, const std::string& name) {
  constexpr std::size_t k = 37;
  const auto size = static_cast<std::size_t>(t.n);
  const auto me = static_cast<std::size_t>(t.me);
  std::vector<int> roots{0};
  if (t.n > 1) roots.push_back(t.n - 1);
  for (const int root : roots) {
    const std::string c = name + ", root " + std::to_string(root);
    const auto r = static_cast<std::size_t>(root);
    const bool at_root = t.me == root;
    const dart_team_unit_t troot = DART_TEAM_UNIT_ID(root);
    // All blocks in team order, as the root of a scatter holds them and the
    // root of a gather receives them.
    std::vector<T> blocks(size * k);
    for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i] = pattern<T>(static_cast<int>(i / k), i % k, 1);
    auto own = [&](std::size_t i) { return pattern<T>(t.me, i, 1); };

    std::vector<T> buf(k);
    for (std::size_t i = 0; i < k; ++i) buf[i] = at_root ? pattern<T>(root, i) : sentinel<T>(i);
    CHECK_OK(dart_bcast(buf.data(), k, dt, troot, t.id));
    check_elements(
        buf.data(), k, [&](std::size_t i) { return pattern<T>(root, i); }, "dart_bcast " + c);

    // scatter: sendbuf NULL off the root.
    std::vector<T> recv = sentinels<T>(k);
    CHECK_OK(dart_scatter(at_root ? blocks.data() : nullptr, recv.data(), k, dt, troot, t.id));
    check_elements(recv.data(), k, own, "dart_scatter " + c);
    // scatter with the root's block in place.
    recv = sentinels<T>(k);
    std::vector<T> send = blocks;
    CHECK_OK(
        dart_scatter(at_root ? send.data() : nullptr, at_root ? send.data() + r * k : recv.data(), k, dt, troot, t.id));
    if (at_root) check_elements(send, blocks, "dart_scatter in place " + c);
    else check_elements(recv.data(), k, own, "dart_scatter in place " + c);

    // gather: recvbuf NULL off the root.
    std::vector<T> mine(k);
    for (std::size_t i = 0; i < k; ++i) mine[i] = own(i);
    std::vector<T> all = sentinels<T>(size * k);
    CHECK_OK(dart_gather(mine.data(), at_root ? all.data() : nullptr, k, dt, troot, t.id));
    if (at_root) check_elements(all, blocks, "dart_gather " + c);
    // gather with the root's block in place; a recvbuf elsewhere stays untouched.
    all = sentinels<T>(size * k);
    if (at_root) std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(r * k));
    CHECK_OK(dart_gather(at_root ? all.data() + r * k : mine.data(), all.data(), k, dt, troot, t.id));
    check_elements(all, at_root ? blocks : sentinels<T>(size * k), "dart_gather in place " + c);
  }

  // allgather: separate buffers, then sendbuf NULL, == recvbuf, == own block.
  std::vector<T> blocks(size * k);
  for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i] = pattern<T>(static_cast<int>(i / k), i % k, 2);
  std::vector<T> mine(blocks.begin() + static_cast<std::ptrdiff_t>(me * k),
                      blocks.begin() + static_cast<std::ptrdiff_t>((me + 1) * k));
  std::vector<T> all = sentinels<T>(size * k);
  CHECK_OK(dart_allgather(mine.data(), all.data(), k, dt, t.id));
  check_elements(all, blocks, "dart_allgather " + name);
  for (int form = 0; form < 3; ++form) {
    all = sentinels<T>(size * k);
    std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(me * k));
    const T* send = form == 0 ? nullptr : form == 1 ? all.data() : all.data() + me * k;
    CHECK_OK(dart_allgather(send, all.data(), k, dt, t.id));
    check_elements(all, blocks, "dart_allgather in place (form " + std::to_string(form) + ") " + name);
  }

  // allgatherv: unit u contributes u + 3 elements (unit 1 none); blocks in
  // reverse team order with two-element gaps.
  std::vector<size_t> counts(size), displs(size);
  std::size_t cursor = 0;
  for (std::size_t u = size; u-- > 0;) {
    counts[u] = u == 1 ? 0 : u + 3;
    displs[u] = cursor;
    cursor += counts[u] + 2;
  }
  std::vector<T> expect = sentinels<T>(cursor);
  for (std::size_t u = 0; u < size; ++u)
    for (std::size_t i = 0; i < counts[u]; ++i) expect[displs[u] + i] = pattern<T>(static_cast<int>(u), i, 3);
  std::vector<T> contribution(counts[me]);
  for (std::size_t i = 0; i < counts[me]; ++i) contribution[i] = pattern<T>(t.me, i, 3);
  for (int form = 0; form < 3; ++form) {
    std::vector<T> got = sentinels<T>(cursor);
    if (form > 0)
      std::copy(contribution.begin(), contribution.end(), got.begin() + static_cast<std::ptrdiff_t>(displs[me]));
    const T* send = form == 0 ? contribution.data() : form == 1 ? nullptr : got.data() + displs[me];
    CHECK_OK(dart_allgatherv(send, counts[me], dt, got.data(), counts.data(), displs.data(), t.id));
    check_elements(got, expect, "dart_allgatherv (form " + std::to_string(form) + ") " + name);
  }

  // alltoall: block j of unit u is pattern(u, j * k2 + i).
  constexpr std::size_t k2 = 5;
  std::vector<T> send(size * k2);
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = pattern<T>(t.me, i, 4);
  std::vector<T> want(size * k2);
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = pattern<T>(static_cast<int>(i / k2), me * k2 + i % k2, 4);
  std::vector<T> got = sentinels<T>(size * k2);
  CHECK_OK(dart_alltoall(send.data(), got.data(), k2, dt, t.id));
  check_elements(got, want, "dart_alltoall " + name);
  for (int form = 0; form < 2; ++form) {
    got = send;
    CHECK_OK(dart_alltoall(form == 0 ? nullptr : got.data(), got.data(), k2, dt, t.id));
    check_elements(got, want, "dart_alltoall in place (form " + std::to_string(form) + ") " + name);
  }
}

// ---- reductions -------------------------------------------------------------------------

// Operands chosen so that every result is exact in every type.
template <class T>
T operand(dart_operation_t op, int unit, std::size_t pos) {
  switch (op) {
    case DART_OP_MIN:
    case DART_OP_MAX: {
      long v = static_cast<long>((static_cast<std::size_t>(unit) * 37 + pos * 11 + 5) % 101);
      if (std::is_signed_v<T>) v -= 50;
      return static_cast<T>(v);
    }
    case DART_OP_SUM: return static_cast<T>((static_cast<std::size_t>(unit) * 7 + pos) % 20);
    case DART_OP_PROD: return static_cast<T>(1 + (static_cast<std::size_t>(unit) + pos) % 3);
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (op == DART_OP_LAND || op == DART_OP_LOR || op == DART_OP_LXOR)
      return (static_cast<std::size_t>(unit) + pos) % 5 == 0 ? T(0) : static_cast<T>(pattern<T>(unit, pos, 6) | T(2));
    return pattern<T>(unit, pos, 7);  // bitwise
  }
  return T(0);
}

template <class T>
T combine(dart_operation_t op, T a, T b) {
  switch (op) {
    case DART_OP_MIN: return std::min(a, b);
    case DART_OP_MAX: return std::max(a, b);
    case DART_OP_SUM: return static_cast<T>(a + b);
    case DART_OP_PROD: return static_cast<T>(a * b);
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case DART_OP_BAND: return static_cast<T>(a & b);
      case DART_OP_BOR: return static_cast<T>(a | b);
      case DART_OP_BXOR: return static_cast<T>(a ^ b);
      case DART_OP_LAND: return static_cast<T>(a != 0 && b != 0);
      case DART_OP_LOR: return static_cast<T>(a != 0 || b != 0);
      case DART_OP_LXOR: return static_cast<T>((a != 0) != (b != 0));
      default: break;
    }
  }
  return a;
}

const char* op_name(dart_operation_t op) {
  static const char* const names[] = {"UNDEFINED", "MIN", "MAX", "MINMAX", "SUM",  "PROD",    "BAND",
                                      "LAND",      "BOR", "LOR", "BXOR",   "LXOR", "REPLACE", "NO_OP"};
  return op < DART_OP_LAST ? names[op] : "user";
}

// Reduces with allreduce, allreduce in place, and reduce to the first and
// the last unit (recvbuf NULL elsewhere, in place at the last root).
template <class T>
void check_reduction(const TeamView& t, dart_datatype_t dt, dart_operation_t op, const std::vector<T>& send,
                     const std::vector<T>& expect, const std::string& c) {
  const std::size_t k = send.size();
  std::vector<T> got = sentinels<T>(k);
  CHECK_OK(dart_allreduce(send.data(), got.data(), k, dt, op, t.id));
  check_elements(got, expect, "dart_allreduce " + c);
  got = send;
  CHECK_OK(dart_allreduce(got.data(), got.data(), k, dt, op, t.id));
  check_elements(got, expect, "dart_allreduce in place " + c);
  for (const int root : {0, t.n - 1}) {
    const bool at_root = t.me == root;
    const bool in_place = root == t.n - 1 && root != 0;
    got = in_place && at_root ? send : sentinels<T>(k);
    CHECK_OK(dart_reduce(in_place && at_root ? got.data() : send.data(), at_root ? got.data() : nullptr, k, dt, op,
                         DART_TEAM_UNIT_ID(root), t.id));
    check_elements(got, at_root ? expect : sentinels<T>(k), "dart_reduce to " + std::to_string(root) + " " + c);
  }
}

template <class T>
void check_predefined_reductions(const TeamView& t, dart_datatype_t dt, const std::string& name) {
  constexpr std::size_t k = 23;
  std::vector<dart_operation_t> ops{DART_OP_MIN, DART_OP_MAX, DART_OP_SUM, DART_OP_PROD};
  if (std::is_integral_v<T>)
    ops.insert(ops.end(), {DART_OP_BAND, DART_OP_LAND, DART_OP_BOR, DART_OP_LOR, DART_OP_BXOR, DART_OP_LXOR});
  for (const dart_operation_t op : ops) {
    std::vector<T> send(k), expect(k);
    for (std::size_t i = 0; i < k; ++i) {
      send[i] = operand<T>(op, t.me, i);
      T acc = operand<T>(op, 0, i);
      for (int u = 1; u < t.n; ++u) acc = combine(op, acc, operand<T>(op, u, i));
      // Logical results are 0 or 1 whatever the team size.
      if (op == DART_OP_LAND || op == DART_OP_LOR || op == DART_OP_LXOR) acc = acc != 0 ? T(1) : T(0);
      expect[i] = acc;
    }
    check_reduction(t, dt, op, send, expect, std::string(op_name(op)) + " " + name);
  }

  // MINMAX: pairs (first: min of the first components, second: max of the
  // second ones).
  constexpr std::size_t pairs = 11;
  std::vector<T> send(2 * pairs), expect(2 * pairs);
  for (std::size_t p = 0; p < pairs; ++p) {
    send[2 * p + DART_OP_MINMAX_MIN] = operand<T>(DART_OP_MIN, t.me, p);
    send[2 * p + DART_OP_MINMAX_MAX] = operand<T>(DART_OP_MAX, t.me, p + 50);
    T lo = operand<T>(DART_OP_MIN, 0, p);
    T hi = operand<T>(DART_OP_MAX, 0, p + 50);
    for (int u = 1; u < t.n; ++u) {
      lo = std::min(lo, operand<T>(DART_OP_MIN, u, p));
      hi = std::max(hi, operand<T>(DART_OP_MAX, u, p + 50));
    }
    expect[2 * p + DART_OP_MINMAX_MIN] = lo;
    expect[2 * p + DART_OP_MINMAX_MAX] = hi;
  }
  check_reduction(t, dt, DART_OP_MINMAX, send, expect, "MINMAX " + name);
}

// A non-commutative user operation (the commutative one, mod_sum, is in
// collectives_common.hpp) on a custom type (Affine): composition of affine
// maps; in o inout means "in first, then inout".
void compose(const void* invec, void* inoutvec, size_t len, void*) {
  const Affine* in = static_cast<const Affine*>(invec);
  Affine* inout = static_cast<Affine*>(inoutvec);
  for (size_t i = 0; i < len; ++i) inout[i] = Affine{inout[i].a * in[i].a, inout[i].a * in[i].b + inout[i].b};
}

Affine affine_of(int unit, std::size_t pos) {
  return Affine{2 * static_cast<unsigned long long>(unit) + 3 + pos,
                7 * static_cast<unsigned long long>(unit) + pos + 1};
}

std::vector<int> mod_operands(int unit, std::size_t k, int mod) {
  std::vector<int> v(k);
  for (std::size_t i = 0; i < k; ++i)
    v[i] = static_cast<int>((static_cast<std::size_t>(unit) * 31 + i * 17) % static_cast<std::size_t>(mod));
  return v;
}

std::vector<int> mod_expect(int units, std::size_t k, int mod) {
  std::vector<int> sum(k, 0);
  for (int u = 0; u < units; ++u) {
    const std::vector<int> v = mod_operands(u, k, mod);
    for (std::size_t i = 0; i < k; ++i) sum[i] = (sum[i] + v[i]) % mod;
  }
  return sum;
}

void check_user_reductions(const TeamView& t, const std::string& name) {
  constexpr std::size_t k = 29;
  ModSum m{97};
  dart_operation_t op = DART_OP_UNDEFINED;
  REQUIRE_OK(dart_op_create(&mod_sum, &m, true, DART_TYPE_INT, false, &op));
  check_reduction(t, DART_TYPE_INT, op, mod_operands(t.me, k, m.mod), mod_expect(t.n, k, m.mod),
                  "commutative user operation" + name);
  CHECK_OK(dart_op_destroy(&op));

  dart_datatype_t affine = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(sizeof(Affine), &affine));
  REQUIRE_OK(dart_op_create(&compose, nullptr, false, affine, true, &op));
  std::vector<Affine> send(k), expect(k);
  for (std::size_t i = 0; i < k; ++i) {
    send[i] = affine_of(t.me, i);
    Affine acc = affine_of(0, i);
    for (int u = 1; u < t.n; ++u) {
      Affine next = affine_of(u, i);
      compose(&acc, &next, 1, nullptr);  // acc first, then unit u
      acc = next;
    }
    expect[i] = acc;
  }
  check_reduction(t, affine, op, send, expect, "non-commutative user operation" + name);
  CHECK_OK(dart_op_destroy(&op));
  CHECK_OK(dart_type_destroy(&affine));
}

// ---- zero counts ----------------------------------------------------------------------

void check_zero_counts(const TeamView& t) {
  const dart_team_unit_t root = DART_TEAM_UNIT_ID(t.n - 1);
  CHECK_OK(dart_bcast(nullptr, 0, DART_TYPE_INT, root, t.id));
  CHECK_OK(dart_scatter(nullptr, nullptr, 0, DART_TYPE_INT, root, t.id));
  CHECK_OK(dart_gather(nullptr, nullptr, 0, DART_TYPE_INT, root, t.id));
  CHECK_OK(dart_allgather(nullptr, nullptr, 0, DART_TYPE_INT, t.id));
  CHECK_OK(dart_alltoall(nullptr, nullptr, 0, DART_TYPE_INT, t.id));
  CHECK_OK(dart_allreduce(nullptr, nullptr, 0, DART_TYPE_INT, DART_OP_SUM, t.id));
  CHECK_OK(dart_allreduce(nullptr, nullptr, 0, DART_TYPE_DOUBLE, DART_OP_MINMAX, t.id));
  CHECK_OK(dart_reduce(nullptr, nullptr, 0, DART_TYPE_INT, DART_OP_MAX, root, t.id));
  std::vector<size_t> zeros(static_cast<std::size_t>(t.n), 0);
  std::vector<size_t> far(static_cast<std::size_t>(t.n), SIZE_MAX);  // ignored for empty blocks
  CHECK_OK(dart_allgatherv(nullptr, 0, DART_TYPE_INT, nullptr, zeros.data(), far.data(), t.id));
  // Nothing written anywhere.
  std::vector<int> untouched = sentinels<int>(8);
  CHECK_OK(dart_bcast(untouched.data(), 0, DART_TYPE_INT, root, t.id));
  CHECK_OK(dart_allgather(nullptr, untouched.data(), 0, DART_TYPE_INT, t.id));
  CHECK_OK(dart_allreduce(untouched.data(), untouched.data(), 0, DART_TYPE_INT, DART_OP_LAND, t.id));
  check_elements(untouched, sentinels<int>(8), "zero-count collectives");
}

// ---- everything on one team ------------------------------------------------------------

void check_all_collectives(const TeamView& t) {
  const std::string team = " on team " + std::to_string(t.id) + " (" + std::to_string(t.n) + " units)";
  CHECK_OK(dart_barrier(t.id));
  for_each_basic_type([&](auto tag, dart_datatype_t dt, const char* tname) {
    using T = typename decltype(tag)::type;
    check_rooted<T>(t, dt, tname + team);
    check_predefined_reductions<T>(t, dt, tname + team);
  });
  dart_datatype_t rec = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(sizeof(Rec), &rec));
  check_rooted<Rec>(t, rec, "custom" + team);
  CHECK_OK(dart_type_destroy(&rec));
  check_user_reductions(t, team);
  check_zero_counts(t);
  CHECK_OK(dart_barrier(t.id));
}

// ---- test cases ---------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(collectives_on_team_all, CollFixture) {
  const TeamView all = view_of(DART_TEAM_ALL);
  CHECK_EQ(all.me, me);
  CHECK_EQ(all.n, n);
  check_all_collectives(all);
}

BOOST_FIXTURE_TEST_CASE(collectives_on_a_team_of_the_even_units, CollFixture) {
  if (n < 2) return;  // the team would be DART_TEAM_ALL again
  dart_group_t group = DART_GROUP_NULL;
  REQUIRE_OK(dart_group_create(&group));
  for (int u = 0; u < n; u += 2) CHECK_OK(dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u)));
  dart_team_t evens = DART_TEAM_NULL;
  REQUIRE_OK(dart_team_create(DART_TEAM_ALL, group, &evens));
  CHECK_OK(dart_group_destroy(&group));
  // Everybody learns the id, so the odd units can try to use it.
  dart_team_t id = evens;
  CHECK_OK(dart_bcast(&id, sizeof id, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  if (me % 2 == 0) {
    REQUIRE_RANK(evens != DART_TEAM_NULL);
    const TeamView t = view_of(evens);
    CHECK_EQ(t.me, me / 2);
    CHECK_EQ(t.n, (n + 1) / 2);
    check_all_collectives(t);
    CHECK_OK(dart_team_destroy(&evens));
  } else {
    CHECK_EQ(evens, DART_TEAM_NULL);
    QuietDart quiet;
    int x = 0;
    CHECK_EQ(dart_barrier(id), DART_ERR_INVAL);
    CHECK_EQ(dart_bcast(&x, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), id), DART_ERR_INVAL);
    CHECK_EQ(dart_allreduce(&x, &x, 1, DART_TYPE_INT, DART_OP_SUM, id), DART_ERR_INVAL);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

// Two threads reduce at once, on two teams, with two user operations that
// differ only in their userdata: each must see its own.
BOOST_FIXTURE_TEST_CASE(concurrent_user_reductions_on_two_teams, CollFixture) {
  if (!multiple) {
    BOOST_TEST_MESSAGE("DART_THREAD_MULTIPLE not available; skipped");
    return;
  }
  dart_team_t clone = DART_TEAM_NULL;
  REQUIRE_OK(dart_team_clone(DART_TEAM_ALL, &clone));
  ModSum m1{97}, m2{89};
  dart_operation_t op1 = DART_OP_UNDEFINED, op2 = DART_OP_UNDEFINED;
  REQUIRE_OK(dart_op_create(&mod_sum, &m1, true, DART_TYPE_INT, false, &op1));
  REQUIRE_OK(dart_op_create(&mod_sum, &m2, true, DART_TYPE_INT, false, &op2));
  constexpr std::size_t k = 64;
  constexpr int rounds = 40;
  auto run = [&](dart_team_t team, dart_operation_t op, int mod, int* wrong, int* failed) {
    const std::vector<int> send = mod_operands(me, k, mod);
    const std::vector<int> expect = mod_expect(n, k, mod);
    std::vector<int> got(k);
    for (int r = 0; r < rounds; ++r) {
      if (dart_allreduce(send.data(), got.data(), k, DART_TYPE_INT, op, team) != DART_OK) ++*failed;
      if (got != expect) ++*wrong;
    }
  };
  int wrong1 = 0, wrong2 = 0, failed1 = 0, failed2 = 0;
  std::thread other([&] { run(clone, op2, m2.mod, &wrong2, &failed2); });
  run(DART_TEAM_ALL, op1, m1.mod, &wrong1, &failed1);
  other.join();
  CHECK_EQ(failed1, 0);
  CHECK_EQ(failed2, 0);
  CHECK_EQ(wrong1, 0);
  CHECK_EQ(wrong2, 0);
  CHECK_OK(dart_op_destroy(&op1));
  CHECK_OK(dart_op_destroy(&op2));
  CHECK_OK(dart_team_destroy(&clone));
}

}  // namespace
