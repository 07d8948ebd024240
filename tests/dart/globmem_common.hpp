// What the two files of the global-memory suite (test_globmem.cpp and
// test_globmem_local.cpp, one executable: dart_globmem) share: the fixture,
// printing and allgathering gptrs, the checks every gptr of a collective
// allocation or registration must pass, the basic types with their sizes,
// and the neighbour-ring exchange through one team segment that the
// allocation and transfer cases both run.
#pragma once

#include "dart_checks.hpp"
#include "dart_patterns.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

namespace globmemtest {

using dartcheck::at;
using dartcheck::QuietDart;
using dartcheck::slow_ranks;

// ---- fixture -----------------------------------------------------------------

using DartFixture = dartcheck::PlainDartFixture;

// ---- typed patterns (dart_patterns.hpp) --------------------------------------

using dartpattern::dart_type_of;
using dartpattern::pattern;
using dartpattern::sentinel;
using dartpattern::show;
using dartpattern::verify;

// ---- gptr helpers --------------------------------------------------------------

inline std::string str(const dart_gptr_t& g) {
  std::ostringstream os;
  os << "{unit " << g.unitid << ", flags " << g.flags << ", seg " << g.segid << ", team " << g.teamid << ", offset "
     << g.addr_or_offs.offset << "}";
  return os.str();
}

inline std::vector<dart_gptr_t> allgather(const dart_gptr_t& g) {
  std::vector<dart_gptr_t> all(static_cast<std::size_t>(mpitest::world_size()));
  MPI_Allgather(&g, sizeof g, MPI_BYTE, all.data(), sizeof g, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

inline std::vector<dart_gptr_t> allgather(const std::vector<dart_gptr_t>& mine) {
  const int count = static_cast<int>(mine.size() * sizeof(dart_gptr_t));
  std::vector<dart_gptr_t> all(mine.size() * static_cast<std::size_t>(mpitest::world_size()));
  MPI_Allgather(mine.data(), count, MPI_BYTE, all.data(), count, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

// The checks every gptr from a collective allocation or registration must
// pass: {teamid 0, unitid 0, offset 0, flags 0, segid != 0}, and the same
// segid on every rank. Collective (one MPI_Allreduce).
inline void check_collective_gptr(const dart_gptr_t& g, int me, const std::string& what) {
  BOOST_CHECK_MESSAGE(
      g.teamid == DART_TEAM_ALL && g.unitid == 0 && g.addr_or_offs.offset == 0 && g.flags == 0 && g.segid != 0,
      "rank " << me << ": " << what << " returned " << str(g)
              << ", expected {unit 0, flags 0, seg != 0, team 0, offset 0}");
  int in[2] = {g.segid, -g.segid};
  int out[2] = {0, 0};
  MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  BOOST_CHECK_MESSAGE(out[0] == -out[1], "rank " << me << ": " << what << ": segment ids differ across ranks (max "
                                                 << out[0] << ", min " << -out[1] << ", mine " << g.segid << ")");
}

inline void* addr_of(const dart_gptr_t& g, int me, const std::string& what) {
  void* p = reinterpret_cast<void*>(std::uintptr_t{1});
  const dart_ret_t rc = dart_gptr_getaddr(g, &p);
  BOOST_CHECK_MESSAGE(rc == DART_OK,
                      "rank " << me << ": dart_gptr_getaddr(" << str(g) << ") for " << what << " returned " << rc);
  return rc == DART_OK ? p : nullptr;
}

// The basic types, in header order, with their sizes.
struct BasicType {
  dart_datatype_t type;
  std::size_t size;
  const char* name;
};
inline const BasicType kBasicTypes[] = {
    {DART_TYPE_BYTE, 1, "BYTE"},
    {DART_TYPE_SHORT, sizeof(short), "SHORT"},
    {DART_TYPE_INT, sizeof(int), "INT"},
    {DART_TYPE_UINT, sizeof(unsigned), "UINT"},
    {DART_TYPE_LONG, sizeof(long), "LONG"},
    {DART_TYPE_ULONG, sizeof(unsigned long), "ULONG"},
    {DART_TYPE_LONGLONG, sizeof(long long), "LONGLONG"},
    {DART_TYPE_ULONGLONG, sizeof(unsigned long long), "ULONGLONG"},
    {DART_TYPE_FLOAT, sizeof(float), "FLOAT"},
    {DART_TYPE_DOUBLE, sizeof(double), "DOUBLE"},
    {DART_TYPE_LONG_DOUBLE, sizeof(long double), "LONG_DOUBLE"},
};

// Ring exchange through one team segment of `portion` elements per unit:
// the owner fills its portion with sentinels, every unit puts `count`
// elements at element offset `off` into its right neighbour's portion, the
// owner checks its portion locally, then every unit gets its left
// neighbour's whole portion and its own one by RMA and checks them.
template <class T>
void ring_through_segment(const DartFixture& f, const dart_gptr_t& seg, std::size_t portion, std::size_t off,
                          std::size_t count, int salt, const std::string& what) {
  const dart_datatype_t dt = dart_type_of<T>();
  T* mine = static_cast<T*>(addr_of(at(seg, f.me, 0), f.me, what));
  BOOST_REQUIRE_MESSAGE(mine != nullptr, "rank " << f.me << ": " << what << ": no address for own portion");
  for (std::size_t i = 0; i < portion; ++i) mine[i] = sentinel<T>(f.me, i, salt);
  f.barrier();

  std::vector<T> src(count);
  for (std::size_t i = 0; i < count; ++i) src[i] = pattern<T>(f.me, i, salt);
  BOOST_CHECK_EQUAL(dart_put_blocking(at(seg, f.right, off * sizeof(T)), src.data(), count, dt, dt), DART_OK);
  f.barrier();

  auto expect_portion = [&](int owner, int writer) {
    return [=](std::size_t i) {
      return (i >= off && i < off + count) ? pattern<T>(writer, i - off, salt) : sentinel<T>(owner, i, salt);
    };
  };
  verify(mine, portion, expect_portion(f.me, f.left), f.me, what + ": own portion after the left neighbour's put");

  std::vector<T> got(portion);
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(seg, f.left, 0), portion, dt, dt), DART_OK);
  verify(got.data(), portion, expect_portion(f.left, (f.left + f.n - 1) % f.n), f.me,
         what + ": left neighbour's portion read by dart_get_blocking");

  std::fill(got.begin(), got.end(), T{});
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(seg, f.me, 0), portion, dt, dt), DART_OK);
  verify(got.data(), portion, expect_portion(f.me, f.left), f.me, what + ": own portion read by dart_get_blocking");
  f.barrier();  // nobody reads this segment any more
}

}  // namespace globmemtest
