// Collectives and two-sided messages of DART (spec 3.6.1, 3.6.7).
//
// Covered, with data that depend on the unit and on the position, checked
// on every unit: dart_barrier, dart_bcast, dart_scatter, dart_gather,
// dart_allgather, dart_allgatherv (unequal blocks, one of them empty,
// placed in reverse order with gaps that must stay untouched) and
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
// rejected there. Two-sided: a ring through dart_sendrecv for every basic
// type, a custom type and a 4 MiB message, and zero-length messages; with
// two units or more, dart_send/dart_recv with tags selecting messages out
// of send order and same-tag messages kept in order, a message longer than
// the receive buffer, and user messages of tags 0..3 that neither match
// nor are matched by the runtime's own traffic (pending while the units
// allocate, lock and synchronise, and a receive posted by a thread while
// they do).
// Bad input (unknown team, root out of range, invalid, non-contiguous or
// mismatched types and operations, odd MINMAX counts, NULL buffers and
// arrays, overflowing counts, bad units, tags and message counts, calls
// before dart_init): DART_ERR_INVAL (non-OK before init), given on every
// unit at once, with a working team afterwards. Bad input on one unit only
// (the last, then unit 0: NULL buffers, dead type and operation handles,
// roots out of range, allgatherv counts contradicting nsendelem) and
// arguments that differ between units (root, count, type, operation):
// DART_ERR_INVAL on every unit, small counts (carried by the agreement)
// and larger ones, with a working team afterwards. The suite runs again
// with DART_COLLECTIVE_CHECKS=0 (collectives.cmake), without that case.
// Not covered: counts above INT_MAX (test_collectives_large.cpp), log
// lines (the entry() wrapper, test_bad_input.cpp), multi-node runs. Sends that must complete before their
// receive is posted carry at most 16 bytes, which both MPI libraries send
// eagerly.
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using dartcheck::QuietDart;

// ---- fixture and teams -----------------------------------------------------------

using CollFixture = dartcheck::DartFixture;

// A team and the caller's place in it (team-relative).
struct TeamView {
  dart_team_t id;
  int me;
  int n;
};

TeamView view_of(dart_team_t team) {
  dart_team_unit_t myid;
  size_t size = 0;
  CHECK_OK(dart_team_myid(team, &myid));
  CHECK_OK(dart_team_size(team, &size));
  return {team, myid.id, static_cast<int>(size)};
}

// ---- types and values -------------------------------------------------------------

// The payload of the custom type: 12 bytes, no padding.
struct Rec {
  std::int32_t a, b, c;
  bool operator==(const Rec& o) const { return a == o.a && b == o.b && c == o.c; }
};

// The payload of the non-commutative user operation: x -> a x + b (mod 2^64).
struct Affine {
  unsigned long long a, b;
  bool operator==(const Affine& o) const { return a == o.a && b == o.b; }
};

template <class T>
struct Tag {
  using type = T;
};

template <class Fn>
void for_each_basic_type(Fn&& fn) {
  fn(Tag<unsigned char>{}, DART_TYPE_BYTE, "BYTE");
  fn(Tag<short>{}, DART_TYPE_SHORT, "SHORT");
  fn(Tag<int>{}, DART_TYPE_INT, "INT");
  fn(Tag<unsigned int>{}, DART_TYPE_UINT, "UINT");
  fn(Tag<long>{}, DART_TYPE_LONG, "LONG");
  fn(Tag<unsigned long>{}, DART_TYPE_ULONG, "ULONG");
  fn(Tag<long long>{}, DART_TYPE_LONGLONG, "LONGLONG");
  fn(Tag<unsigned long long>{}, DART_TYPE_ULONGLONG, "ULONGLONG");
  fn(Tag<float>{}, DART_TYPE_FLOAT, "FLOAT");
  fn(Tag<double>{}, DART_TYPE_DOUBLE, "DOUBLE");
  fn(Tag<long double>{}, DART_TYPE_LONG_DOUBLE, "LONG_DOUBLE");
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A value that depends on unit, position and case; integers use all their
// bits, floating-point values are exact (20-bit integers plus 1/4).
template <class T>
T pattern(int unit, std::size_t pos, unsigned salt = 0) {
  const std::uint64_t h = mix((static_cast<std::uint64_t>(unit + 16) << 40) ^ (static_cast<std::uint64_t>(pos) << 8) ^ salt);
  if constexpr (std::is_same_v<T, Rec>) {
    return Rec{static_cast<std::int32_t>(h), static_cast<std::int32_t>(h >> 32), static_cast<std::int32_t>(h >> 16)};
  } else if constexpr (std::is_same_v<T, Affine>) {
    return Affine{h, mix(h)};
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(h);
  } else {
    return static_cast<T>(static_cast<double>(h >> 44) + 0.25);
  }
}

// What a buffer holds where nothing may be written.
template <class T>
T sentinel(std::size_t pos) {
  return pattern<T>(-9, pos, 0xdead);
}

template <class T>
std::vector<T> sentinels(std::size_t count) {
  std::vector<T> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = sentinel<T>(i);
  return v;
}

// One check per buffer: how many elements differ from expect(i), and the
// first of them.
template <class T, class Expect>
void check_elements(const T* got, std::size_t count, Expect&& expect, const std::string& what) {
  std::size_t bad = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (!(got[i] == expect(i)) && bad++ == 0) first = i;
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << mpitest::world_rank() << ": " << what << ": " << bad << " of " << count
                                        << " elements wrong, the first at " << first);
}

template <class T>
void check_elements(const std::vector<T>& got, const std::vector<T>& expect, const std::string& what) {
  BOOST_REQUIRE_EQUAL(got.size(), expect.size());
  check_elements(got.data(), got.size(), [&](std::size_t i) { return expect[i]; }, what);
}

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
    check_elements(buf.data(), k, [&](std::size_t i) { return pattern<T>(root, i); }, "dart_bcast " + c);

    // scatter: sendbuf NULL off the root.
    std::vector<T> recv = sentinels<T>(k);
    CHECK_OK(dart_scatter(at_root ? blocks.data() : nullptr, recv.data(), k, dt, troot, t.id));
    check_elements(recv.data(), k, own, "dart_scatter " + c);
    // scatter with the root's block in place.
    recv = sentinels<T>(k);
    std::vector<T> send = blocks;
    CHECK_OK(dart_scatter(at_root ? send.data() : nullptr, at_root ? send.data() + r * k : recv.data(), k, dt, troot,
                          t.id));
    if (at_root)
      check_elements(send, blocks, "dart_scatter in place " + c);
    else
      check_elements(recv.data(), k, own, "dart_scatter in place " + c);

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
    if (form > 0) std::copy(contribution.begin(), contribution.end(), got.begin() + static_cast<std::ptrdiff_t>(displs[me]));
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
  static const char* const names[] = {"UNDEFINED", "MIN", "MAX", "MINMAX", "SUM", "PROD", "BAND",
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

// A commutative user operation on int: sum modulo userdata->mod.
struct ModSum {
  int mod;
};

void mod_sum(const void* invec, void* inoutvec, size_t len, void* userdata) {
  const int mod = static_cast<const ModSum*>(userdata)->mod;
  const int* in = static_cast<const int*>(invec);
  int* inout = static_cast<int*>(inoutvec);
  for (size_t i = 0; i < len; ++i) inout[i] = (in[i] + inout[i]) % mod;
}

// A non-commutative one on a custom type (Affine): composition of affine
// maps; in o inout means "in first, then inout".
void compose(const void* invec, void* inoutvec, size_t len, void*) {
  const Affine* in = static_cast<const Affine*>(invec);
  Affine* inout = static_cast<Affine*>(inoutvec);
  for (size_t i = 0; i < len; ++i) inout[i] = Affine{inout[i].a * in[i].a, inout[i].a * in[i].b + inout[i].b};
}

Affine affine_of(int unit, std::size_t pos) {
  return Affine{2 * static_cast<unsigned long long>(unit) + 3 + pos, 7 * static_cast<unsigned long long>(unit) + pos + 1};
}

std::vector<int> mod_operands(int unit, std::size_t k, int mod) {
  std::vector<int> v(k);
  for (std::size_t i = 0; i < k; ++i) v[i] = static_cast<int>((static_cast<std::size_t>(unit) * 31 + i * 17) % static_cast<std::size_t>(mod));
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

// ---- two-sided ------------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(sendrecv_ring_every_type, CollFixture) {
  const dart_global_unit_t to = DART_GLOBAL_UNIT_ID(right);
  const dart_global_unit_t from = DART_GLOBAL_UNIT_ID(left);
  constexpr std::size_t k = 41;
  int tag = 1;
  for_each_basic_type([&](auto t, dart_datatype_t dt, const char* tname) {
    using T = typename decltype(t)::type;
    std::vector<T> send(k);
    for (std::size_t i = 0; i < k; ++i) send[i] = pattern<T>(me, i, static_cast<unsigned>(tag));
    std::vector<T> got = sentinels<T>(k);
    CHECK_OK(dart_sendrecv(send.data(), k, dt, tag, to, got.data(), k, dt, tag, from));
    check_elements(got.data(), k, [&](std::size_t i) { return pattern<T>(left, i, static_cast<unsigned>(tag)); },
                   std::string("dart_sendrecv ") + tname);
    ++tag;
  });
  // A custom type, and 4 MiB (beyond any eager limit).
  dart_datatype_t rec = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(sizeof(Rec), &rec));
  std::vector<Rec> rsend(k);
  for (std::size_t i = 0; i < k; ++i) rsend[i] = pattern<Rec>(me, i, 99);
  std::vector<Rec> rgot = sentinels<Rec>(k);
  CHECK_OK(dart_sendrecv(rsend.data(), k, rec, 0, to, rgot.data(), k, rec, 0, from));
  check_elements(rgot.data(), k, [&](std::size_t i) { return pattern<Rec>(left, i, 99); }, "dart_sendrecv custom");
  CHECK_OK(dart_type_destroy(&rec));
  constexpr std::size_t big = std::size_t(1) << 19;
  std::vector<std::uint64_t> bsend(big);
  for (std::size_t i = 0; i < big; ++i) bsend[i] = pattern<std::uint64_t>(me, i, 5);
  std::vector<std::uint64_t> bgot(big, 0);
  CHECK_OK(dart_sendrecv(bsend.data(), big, DART_TYPE_ULONGLONG, 7, to, bgot.data(), big, DART_TYPE_ULONGLONG, 7,
                         from));
  check_elements(bgot.data(), big, [&](std::size_t i) { return pattern<std::uint64_t>(left, i, 5); },
                 "dart_sendrecv 4 MiB");
  // Zero elements, NULL buffers.
  CHECK_OK(dart_sendrecv(nullptr, 0, DART_TYPE_INT, 3, to, nullptr, 0, DART_TYPE_INT, 3, from));
}

// Even units send first, odd units receive first, so the ring cannot
// deadlock at any size; the 16-byte messages go out eagerly, so a receiver
// may pick them out of send order by tag.
BOOST_FIXTURE_TEST_CASE(send_recv_tags_select_and_order, CollFixture) {
  if (n < 2) return;  // blocking send to oneself is not required to work
  const dart_global_unit_t to = DART_GLOBAL_UNIT_ID(right);
  const dart_global_unit_t from = DART_GLOBAL_UNIT_ID(left);
  auto payload = [](int unit, int which) {
    return std::vector<std::int64_t>{unit, which};
  };
  auto do_send = [&] {
    CHECK_OK(dart_send(payload(me, 0).data(), 2, DART_TYPE_LONGLONG, 5, to));
    CHECK_OK(dart_send(payload(me, 1).data(), 2, DART_TYPE_LONGLONG, 5, to));
    CHECK_OK(dart_send(payload(me, 2).data(), 2, DART_TYPE_LONGLONG, 0, to));
    CHECK_OK(dart_send(nullptr, 0, DART_TYPE_LONGLONG, 9, to));
  };
  auto do_recv = [&] {
    std::vector<std::int64_t> got(2, -1);
    CHECK_OK(dart_recv(nullptr, 0, DART_TYPE_LONGLONG, 9, from));
    CHECK_OK(dart_recv(got.data(), 2, DART_TYPE_LONGLONG, 0, from));
    CHECK_RANK(got == payload(left, 2));
    CHECK_OK(dart_recv(got.data(), 2, DART_TYPE_LONGLONG, 5, from));
    CHECK_RANK(got == payload(left, 0));
    CHECK_OK(dart_recv(got.data(), 2, DART_TYPE_LONGLONG, 5, from));
    CHECK_RANK(got == payload(left, 1));
  };
  if (me % 2 == 0) {
    do_send();
    do_recv();
  } else {
    do_recv();
    do_send();
  }
  // A message longer than the receive buffer: DART_ERR_INVAL.
  if (me == 0) {
    const std::vector<int> ten(10, 42);
    CHECK_OK(dart_send(ten.data(), 10, DART_TYPE_INT, 77, DART_GLOBAL_UNIT_ID(1)));
  } else if (me == 1) {
    QuietDart quiet;
    std::vector<int> five(5, 0);
    CHECK_EQ(dart_recv(five.data(), 5, DART_TYPE_INT, 77, DART_GLOBAL_UNIT_ID(0)), DART_ERR_INVAL);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

// User messages with the runtime at work: (1) messages of tags 0..3 wait
// unreceived while the units allocate, lock, unlock and synchronise, and
// arrive intact afterwards; (2) with threads, a receive of tag 0 is
// posted before all that and gets exactly the user's message sent after it.
BOOST_FIXTURE_TEST_CASE(user_messages_and_runtime_traffic_do_not_mix, CollFixture) {
  // A unit alone has no runtime traffic with others, and a blocking send to
  // itself before the receive is posted may block (MPICH 4.0 does).
  if (n < 2) return;
  const dart_global_unit_t to = DART_GLOBAL_UNIT_ID(right);
  const dart_global_unit_t from = DART_GLOBAL_UNIT_ID(left);
  auto runtime_work = [&] {
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_INT, &g));
    dart_lock_t lock = DART_LOCK_NULL;
    CHECK_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
    for (int round = 0; round < 3; ++round) {
      CHECK_OK(dart_lock_acquire(lock));
      CHECK_OK(dart_lock_release(lock));
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_lock_destroy(&lock));
    CHECK_OK(dart_team_memfree(g));
    int one = 1, sum = 0;
    CHECK_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
    CHECK_EQ(sum, n);
  };

  for (int tag = 0; tag < 4; ++tag) {
    const std::int64_t v[2] = {me, tag};
    CHECK_OK(dart_send(v, 2, DART_TYPE_LONGLONG, tag, to));
  }
  runtime_work();
  for (int tag = 3; tag >= 0; --tag) {
    std::int64_t v[2] = {-1, -1};
    CHECK_OK(dart_recv(v, 2, DART_TYPE_LONGLONG, tag, from));
    CHECK_EQ(v[0], left);
    CHECK_EQ(v[1], tag);
  }

  if (!multiple) return;
  std::vector<std::int64_t> got(3, -1);
  dart_ret_t rc = DART_ERR_OTHER;
  std::thread receiver([&] { rc = dart_recv(got.data(), 3, DART_TYPE_LONGLONG, 0, from); });
  runtime_work();
  const std::vector<std::int64_t> mine{me, 4711, -me};
  CHECK_OK(dart_send(mine.data(), 3, DART_TYPE_LONGLONG, 0, to));
  receiver.join();
  CHECK_OK(rc);
  CHECK_RANK(got == (std::vector<std::int64_t>{left, 4711, -left}));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

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
  for (const dart_team_t team : {DART_UNDEFINED_TEAM_ID, static_cast<dart_team_t>(4711), static_cast<dart_team_t>(-5)}) {
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
  for (const dart_datatype_t dt : {DART_TYPE_UNDEFINED, DART_TYPE_LAST, static_cast<dart_datatype_t>(4242),
                                   gone_value, strided, indexed}) {
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
      CHECK_EQ(dart_allreduce(a.data(), b.data(), count, DART_TYPE_BYTE, DART_OP_BOR, DART_TEAM_ALL),
               DART_ERR_INVAL);
      CHECK_EQ(dart_reduce(a.data(), b.data(), count, DART_TYPE_BYTE, DART_OP_BOR, r0, DART_TEAM_ALL),
               DART_ERR_INVAL);
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
    CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, tag, self, b.data(), 1, DART_TYPE_INT, 0, self),
             DART_ERR_INVAL);
    CHECK_EQ(dart_sendrecv(a.data(), 1, DART_TYPE_INT, 0, self, b.data(), 1, DART_TYPE_INT, tag, self),
             DART_ERR_INVAL);
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
      const dart_team_unit_t rb = DART_TEAM_UNIT_ID(bad);                   // the bad unit as root
      const dart_team_unit_t rx = x ? DART_TEAM_UNIT_ID(n) : r0;           // out of range on one unit
      const dart_team_unit_t rd = x ? DART_TEAM_UNIT_ID(n - 1 - bad) : DART_TEAM_UNIT_ID(bad);  // differs
      const dart_datatype_t tx = x ? dead_type : DART_TYPE_INT;
      const dart_datatype_t td = x ? DART_TYPE_UINT : DART_TYPE_INT;  // valid, but differs
      const dart_operation_t ox = x ? dead_op : static_cast<dart_operation_t>(DART_OP_SUM);
      const dart_operation_t od = x ? DART_OP_MAX : DART_OP_SUM;  // valid, but differs
      const std::size_t cd = x ? count + 1 : count;                    // valid, but differs
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
          {"bcast: root out of range", false, [&] { return dart_bcast(a.data(), count, DART_TYPE_INT, rx, DART_TEAM_ALL); }},
          {"bcast: root differs", true, [&] { return dart_bcast(a.data(), count, DART_TYPE_INT, rd, DART_TEAM_ALL); }},
          {"bcast: count differs", true, [&] { return dart_bcast(a.data(), cd, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"scatter: NULL recvbuf", false, [&] { return dart_scatter(a.data(), bx, count, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"scatter: NULL sendbuf at the root", false,
           [&] { return dart_scatter(ax, b.data(), count, DART_TYPE_INT, rb, DART_TEAM_ALL); }},
          {"scatter: dead type", false, [&] { return dart_scatter(a.data(), b.data(), count, tx, r0, DART_TEAM_ALL); }},
          {"scatter: root out of range", false,
           [&] { return dart_scatter(a.data(), b.data(), count, DART_TYPE_INT, rx, DART_TEAM_ALL); }},
          {"scatter: root differs", true,
           [&] { return dart_scatter(a.data(), b.data(), count, DART_TYPE_INT, rd, DART_TEAM_ALL); }},
          {"gather: NULL sendbuf", false, [&] { return dart_gather(ax, b.data(), count, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"gather: NULL recvbuf at the root", false,
           [&] { return dart_gather(a.data(), bx, count, DART_TYPE_INT, rb, DART_TEAM_ALL); }},
          {"gather: dead type", false, [&] { return dart_gather(a.data(), b.data(), count, tx, r0, DART_TEAM_ALL); }},
          {"gather: root out of range", false,
           [&] { return dart_gather(a.data(), b.data(), count, DART_TYPE_INT, rx, DART_TEAM_ALL); }},
          {"gather: count differs", true,
           [&] { return dart_gather(a.data(), b.data(), cd, DART_TYPE_INT, r0, DART_TEAM_ALL); }},
          {"allgather: NULL recvbuf", false, [&] { return dart_allgather(a.data(), bx, count, DART_TYPE_INT, DART_TEAM_ALL); }},
          {"allgather: dead type", false, [&] { return dart_allgather(a.data(), b.data(), count, tx, DART_TEAM_ALL); }},
          {"allgather: count differs", true,
           [&] { return dart_allgather(a.data(), b.data(), cd, DART_TYPE_INT, DART_TEAM_ALL); }},
          {"allgatherv: NULL recvbuf", false,
           [&] { return dart_allgatherv(a.data(), count, DART_TYPE_INT, bx, counts.data(), displs.data(), DART_TEAM_ALL); }},
          {"allgatherv: NULL nrecvelem", false,
           [&] {
             return dart_allgatherv(a.data(), count, DART_TYPE_INT, b.data(), x ? nullptr : counts.data(), displs.data(),
                                    DART_TEAM_ALL);
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
          {"alltoall: NULL recvbuf", false, [&] { return dart_alltoall(a.data(), bx, count, DART_TYPE_INT, DART_TEAM_ALL); }},
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
