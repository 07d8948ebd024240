// What the three files of the collectives suite (test_collectives.cpp,
// test_collectives_twosided.cpp, test_collectives_bad_input.cpp; one
// executable, dart_collectives, which dart_collectives_nochecks runs with
// the checks off) share: the fixture, a team as seen by the caller, the
// custom payload types, the loop over the basic types, the data patterns
// (unit, position and case), the element checks, and the commutative user
// operation that the reductions and the bad-input cases both create.
#pragma once

#include "dart_checks.hpp"
#include "dart_patterns.hpp"

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

namespace colltest {

using dartcheck::QuietDart;

// ---- fixture and teams -----------------------------------------------------------

using CollFixture = dartcheck::DartFixture;

// A team and the caller's place in it (team-relative).
struct TeamView {
  dart_team_t id;
  int me;
  int n;
};

inline TeamView view_of(dart_team_t team) {
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

using dartpattern::mix;

// A value that depends on unit, position and case; integers use all their
// bits, floating-point values are exact (20-bit integers plus 1/4).
template <class T>
T pattern(int unit, std::size_t pos, unsigned salt = 0) {
  const std::uint64_t h =
      mix((static_cast<std::uint64_t>(unit + 16) << 40) ^ (static_cast<std::uint64_t>(pos) << 8) ^ salt);
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
  check_elements(
      got.data(), got.size(), [&](std::size_t i) { return expect[i]; }, what);
}

// A commutative user operation on int: sum modulo userdata->mod.
struct ModSum {
  int mod;
};

inline void mod_sum(const void* invec, void* inoutvec, size_t len, void* userdata) {
  const int mod = static_cast<const ModSum*>(userdata)->mod;
  const int* in = static_cast<const int*>(invec);
  int* inout = static_cast<int*>(inoutvec);
  for (size_t i = 0; i < len; ++i) inout[i] = (in[i] + inout[i]) % mod;
}

}  // namespace colltest
