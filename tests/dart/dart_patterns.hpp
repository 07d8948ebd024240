// The typed data patterns the transfer suites (global memory, one-sided,
// atomics, collectives) write and compare: the DART type of a C++ type, a
// splitmix64 hash of (writer, element, case) whose every bit depends on all
// three -- so a value in the wrong place, from the wrong writer or from
// another case does not match -- the pattern and sentinel values built on
// it, one-check-per-buffer verification that names the first wrong
// element, and the owner's typed view of its portion. Kept in one place so
// that every suite hashes and checks the same way.
#pragma once

#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

namespace dartpattern {

// The basic DART type of a C++ type (std::uint8_t is unsigned char).
template <class T>
constexpr dart_datatype_t dart_type_of();
template <>
constexpr dart_datatype_t dart_type_of<unsigned char>() {
  return DART_TYPE_BYTE;
}
template <>
constexpr dart_datatype_t dart_type_of<short>() {
  return DART_TYPE_SHORT;
}
template <>
constexpr dart_datatype_t dart_type_of<int>() {
  return DART_TYPE_INT;
}
template <>
constexpr dart_datatype_t dart_type_of<unsigned>() {
  return DART_TYPE_UINT;
}
template <>
constexpr dart_datatype_t dart_type_of<long>() {
  return DART_TYPE_LONG;
}
template <>
constexpr dart_datatype_t dart_type_of<unsigned long>() {
  return DART_TYPE_ULONG;
}
template <>
constexpr dart_datatype_t dart_type_of<long long>() {
  return DART_TYPE_LONGLONG;
}
template <>
constexpr dart_datatype_t dart_type_of<unsigned long long>() {
  return DART_TYPE_ULONGLONG;
}
template <>
constexpr dart_datatype_t dart_type_of<float>() {
  return DART_TYPE_FLOAT;
}
template <>
constexpr dart_datatype_t dart_type_of<double>() {
  return DART_TYPE_DOUBLE;
}
template <>
constexpr dart_datatype_t dart_type_of<long double>() {
  return DART_TYPE_LONG_DOUBLE;
}

inline std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// 64 bits that depend on the writer, the element `i` and the case `salt`.
inline std::uint64_t hash(int writer, std::uint64_t i, int salt) {
  return mix((static_cast<std::uint64_t>(writer + 7) << 48) ^ (static_cast<std::uint64_t>(salt) << 36) ^ i);
}

// The value element `i` gets when `writer` writes it in case `salt`.
template <class T>
T pattern(int writer, std::uint64_t i, int salt) {
  const std::uint64_t h = hash(writer, i, salt);
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(h >> 11);  // 53 bits: exact in double and long double
  else return static_cast<T>(h);
}

// What the owner stores around (or before) the ranges others write.
template <class T>
T sentinel(int owner, std::uint64_t i, int salt) {
  return pattern<T>(1000 + owner, i, salt);
}

// `v` for a failure message: characters as numbers, floating point with
// every digit.
template <class T>
std::string show(T v) {
  std::ostringstream os;
  if constexpr (std::is_floating_point_v<T>) os.precision(21);
  os << +v;
  return os.str();
}

// One check per call: got[0..count) == expected(i), naming the rank, the
// case and the first wrong element.
template <class T, class F>
bool verify(const T* got, std::size_t count, F expected, int me, const std::string& what) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!(got[i] == expected(i))) {
      if (bad == 0) first = i;
      ++bad;
    }
  }
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << me << ": " << what << ": " << bad << " of " << count
                                        << " elements wrong; first at index " << first << ": got "
                                        << (bad ? show(got[first]) : std::string()) << ", expected "
                                        << (bad ? show(expected(first)) : std::string()));
  return bad == 0;
}

// The caller's own portion of `g` as a T*, for the owner to fill in and
// check by plain loads and stores.
template <class T>
T* own(const dart_gptr_t& g, int me) {
  void* p = nullptr;
  const dart_ret_t rc = dart_gptr_getaddr(dartcheck::at(g, me), &p);
  BOOST_REQUIRE_MESSAGE(rc == DART_OK && p != nullptr,
                        "rank " << me << ": dart_gptr_getaddr of the own portion returned " << rc);
  return static_cast<T*>(p);
}

}  // namespace dartpattern
