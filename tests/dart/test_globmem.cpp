// Global memory of DART (dart_globmem.h) on DART_TEAM_ALL, checked with the
// blocking transfers dart_put_blocking / dart_get_blocking and dart_flush:
// collective team allocation (identical gptrs, alignment, every basic type,
// zero and differing contributions, segment-id recycling beyond 2^16
// allocations, many live segments, heap chunks and dedicated chunks),
// gptr helpers (getaddr/setaddr/incaddr/setunit/getflags/setflags,
// DART_GPTR_EQUAL/ISNULL), dart_memalloc/dart_memfree, team registration
// (per-unit sizes, zero, aligned), the dart_allocator pool, and the unit/size
// queries. Every access pattern is a neighbour ring with values that depend on
// writer, element and case, so lost, duplicated or misplaced data is caught.
// Not covered here: non-blocking and handle-based transfers, atomics, teams
// other than DART_TEAM_ALL, invalid-argument error codes (test_bad_input.cpp),
// init/exit behaviour (test_init.cpp), thread safety, and real multi-node runs
// (the .rma variants only force the MPI RMA path with DART_SHARED_MEMORY=0).
#include "dart_checks.hpp"

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

namespace {

using dartcheck::QuietDart;
using dartcheck::at;
using dartcheck::slow_ranks;

// ---- fixture -----------------------------------------------------------------

using DartFixture = dartcheck::PlainDartFixture;


// ---- typed patterns ----------------------------------------------------------

template <class T> constexpr dart_datatype_t dart_type_of();
template <> constexpr dart_datatype_t dart_type_of<std::uint8_t>() { return DART_TYPE_BYTE; }
template <> constexpr dart_datatype_t dart_type_of<int>() { return DART_TYPE_INT; }
template <> constexpr dart_datatype_t dart_type_of<long>() { return DART_TYPE_LONG; }
template <> constexpr dart_datatype_t dart_type_of<unsigned long long>() { return DART_TYPE_ULONGLONG; }
template <> constexpr dart_datatype_t dart_type_of<double>() { return DART_TYPE_DOUBLE; }
template <> constexpr dart_datatype_t dart_type_of<long double>() { return DART_TYPE_LONG_DOUBLE; }

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The value element `i` gets when `writer` writes it in case `salt`. Every
// bit depends on all three, so a value in the wrong place or from the wrong
// writer does not match.
template <class T>
T pattern(int writer, std::uint64_t i, int salt) {
  const std::uint64_t h = mix((static_cast<std::uint64_t>(writer + 7) << 48) ^
                              (static_cast<std::uint64_t>(salt) << 36) ^ i);
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(h >> 11);  // 53 bits: exact in double and long double
  else
    return static_cast<T>(h);
}

// Sentinel the owner puts around the ranges others write.
template <class T>
T sentinel(int owner, std::uint64_t i, int salt) {
  return pattern<T>(1000 + owner, i, salt);
}

template <class T>
std::string show(T v) {
  std::ostringstream os;
  if constexpr (std::is_floating_point_v<T>)
    os.precision(21);
  os << +v;
  return os.str();
}

// Compares got[0..count) with expected(i); one check per call, naming the
// rank, what was compared and the first wrong element.
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

// ---- gptr helpers --------------------------------------------------------------

std::string str(const dart_gptr_t& g) {
  std::ostringstream os;
  os << "{unit " << g.unitid << ", flags " << g.flags << ", seg " << g.segid << ", team " << g.teamid
     << ", offset " << g.addr_or_offs.offset << "}";
  return os.str();
}

std::vector<dart_gptr_t> allgather(const dart_gptr_t& g) {
  std::vector<dart_gptr_t> all(static_cast<std::size_t>(mpitest::world_size()));
  MPI_Allgather(&g, sizeof g, MPI_BYTE, all.data(), sizeof g, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

std::vector<dart_gptr_t> allgather(const std::vector<dart_gptr_t>& mine) {
  const int count = static_cast<int>(mine.size() * sizeof(dart_gptr_t));
  std::vector<dart_gptr_t> all(mine.size() * static_cast<std::size_t>(mpitest::world_size()));
  MPI_Allgather(mine.data(), count, MPI_BYTE, all.data(), count, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

// The checks every gptr from a collective allocation or registration must
// pass: {teamid 0, unitid 0, offset 0, flags 0, segid != 0}, and the same
// segid on every rank. Collective (one MPI_Allreduce).
void check_collective_gptr(const dart_gptr_t& g, int me, const std::string& what) {
  BOOST_CHECK_MESSAGE(g.teamid == DART_TEAM_ALL && g.unitid == 0 && g.addr_or_offs.offset == 0 &&
                          g.flags == 0 && g.segid != 0,
                      "rank " << me << ": " << what << " returned " << str(g)
                              << ", expected {unit 0, flags 0, seg != 0, team 0, offset 0}");
  int in[2] = {g.segid, -g.segid};
  int out[2] = {0, 0};
  MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  BOOST_CHECK_MESSAGE(out[0] == -out[1], "rank " << me << ": " << what << ": segment ids differ across ranks (max "
                                                 << out[0] << ", min " << -out[1] << ", mine " << g.segid
                                                 << ")");
}

void* addr_of(const dart_gptr_t& g, int me, const std::string& what) {
  void* p = reinterpret_cast<void*>(std::uintptr_t{1});
  const dart_ret_t rc = dart_gptr_getaddr(g, &p);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_gptr_getaddr(" << str(g) << ") for " << what
                                             << " returned " << rc);
  return rc == DART_OK ? p : nullptr;
}

// The basic types, in header order, with their sizes.
struct BasicType {
  dart_datatype_t type;
  std::size_t size;
  const char* name;
};
const BasicType kBasicTypes[] = {
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

}  // namespace

BOOST_FIXTURE_TEST_SUITE(globmem, DartFixture)

// ---- 10. unit ids and sizes ------------------------------------------------------

BOOST_AUTO_TEST_CASE(unit_ids_and_sizes_match_mpi) {
  int mpi_rank = -1, mpi_size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);

  dart_global_unit_t gid = DART_GLOBAL_UNIT_ID(-5);
  BOOST_CHECK_EQUAL(dart_myid(&gid), DART_OK);
  BOOST_CHECK_MESSAGE(gid.id == mpi_rank, "rank " << me << ": dart_myid gave " << gid.id);
  std::size_t size = 0;
  BOOST_CHECK_EQUAL(dart_size(&size), DART_OK);
  BOOST_CHECK_MESSAGE(size == static_cast<std::size_t>(mpi_size), "rank " << me << ": dart_size gave " << size);

  dart_team_unit_t tid = DART_TEAM_UNIT_ID(-5);
  BOOST_CHECK_EQUAL(dart_team_myid(DART_TEAM_ALL, &tid), DART_OK);
  BOOST_CHECK_MESSAGE(tid.id == mpi_rank, "rank " << me << ": dart_team_myid(DART_TEAM_ALL) gave " << tid.id);
  size = 0;
  BOOST_CHECK_EQUAL(dart_team_size(DART_TEAM_ALL, &size), DART_OK);
  BOOST_CHECK_MESSAGE(size == static_cast<std::size_t>(mpi_size),
                      "rank " << me << ": dart_team_size(DART_TEAM_ALL) gave " << size);
}

// ---- 1. team allocation: identical gptrs, alignment, every basic type -------------

BOOST_AUTO_TEST_CASE(team_alloc_identical_gptr_aligned_all_types) {
  const std::size_t byte_sizes[] = {1, 3, 64, 1000, std::size_t(1) << 20};
  int salt = 0;
  // Portions that are not on a 64-byte boundary: "nelem x TYPE @ address".
  std::vector<std::string> misaligned;
  std::size_t below_16 = 0;  // of those, not even on the 16 bytes the spec requires at least
  for (const BasicType& bt : kBasicTypes) {
    for (std::size_t bytes : byte_sizes) {
      ++salt;
      const std::size_t nelem = std::max<std::size_t>(1, (bytes + bt.size - 1) / bt.size);
      const std::size_t portion = nelem * bt.size;
      std::ostringstream what;
      what << "dart_team_memalloc_aligned(" << nelem << " x " << bt.name << ")";

      dart_gptr_t g = DART_GPTR_NULL;
      BOOST_REQUIRE_MESSAGE(dart_team_memalloc_aligned(DART_TEAM_ALL, nelem, bt.type, &g) == DART_OK,
                            "rank " << me << ": " << what.str() << " failed");
      check_collective_gptr(g, me, what.str());
      uint16_t flags = 0xffff;
      BOOST_CHECK_EQUAL(dart_gptr_getflags(g, &flags), DART_OK);
      BOOST_CHECK_MESSAGE(flags == 0, "rank " << me << ": " << what.str() << ": initial flags " << flags);

      auto* mine = static_cast<unsigned char*>(addr_of(at(g, me, 0), me, what.str()));
      BOOST_CHECK_MESSAGE(mine != nullptr, "rank " << me << ": " << what.str() << ": own portion has no address");
      if (reinterpret_cast<std::uintptr_t>(mine) % 64 != 0) {
        std::ostringstream os;
        os << nelem << " x " << bt.name << " @ " << static_cast<void*>(mine);
        misaligned.push_back(os.str());
        below_16 += reinterpret_cast<std::uintptr_t>(mine) % 16 != 0;
      }
      // The whole portion is usable: write it locally, the left neighbour
      // reads its first and last byte.
      if (mine) {
        for (std::size_t i = 0; i < portion; ++i) mine[i] = pattern<unsigned char>(me, i, salt);
      }
      barrier();
      unsigned char edge[2] = {0, 0};
      BOOST_CHECK_EQUAL(dart_get_blocking(&edge[0], at(g, right, 0), 1, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_OK);
      BOOST_CHECK_EQUAL(dart_get_blocking(&edge[1], at(g, right, portion - 1), 1, DART_TYPE_BYTE, DART_TYPE_BYTE),
                        DART_OK);
      BOOST_CHECK_MESSAGE(edge[0] == pattern<unsigned char>(right, 0, salt) &&
                              edge[1] == pattern<unsigned char>(right, portion - 1, salt),
                          "rank " << me << ": " << what.str() << ": first/last byte of unit " << right
                                  << "'s portion read wrong");
      barrier();
      BOOST_CHECK_EQUAL(dart_team_memfree(g), DART_OK);
    }
  }
  std::ostringstream list;
  for (std::size_t i = 0; i < misaligned.size() && i < 4; ++i) list << (i ? ", " : "") << misaligned[i];
  BOOST_CHECK_MESSAGE(misaligned.empty(), "rank " << me << ": " << misaligned.size() << " of "
                                                  << std::size(kBasicTypes) * std::size(byte_sizes)
                                                  << " own portions of dart_team_memalloc_aligned are not 64-byte "
                                                     "aligned ("
                                                  << below_16 << " not even 16-byte aligned), e.g. " << list.str());
  // Freeing DART_GPTR_NULL is a no-op.
  BOOST_CHECK_EQUAL(dart_team_memfree(DART_GPTR_NULL), DART_OK);
}

// ---- 2. zero and differing contributions ------------------------------------

BOOST_AUTO_TEST_CASE(team_alloc_zero_and_differing_contributions) {
  // (a) Rank 0 contributes nothing, the others 16 ints each.
  {
    auto nelem_of = [](int u) -> std::size_t { return u == 0 ? 0 : 16; };
    dart_gptr_t g = DART_GPTR_NULL;
    BOOST_REQUIRE_MESSAGE(dart_team_memalloc_aligned(DART_TEAM_ALL, nelem_of(me), DART_TYPE_INT, &g) == DART_OK,
                          "rank " << me << ": allocation with rank 0 contributing 0 elements failed");
    check_collective_gptr(g, me, "allocation with a zero contribution");
    void* p = nullptr;
    BOOST_CHECK_EQUAL(dart_gptr_getaddr(at(g, me, 0), &p), DART_OK);

    if (nelem_of(right) > 0) {
      std::vector<int> src(nelem_of(right));
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<int>(me, i, 21);
      BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 0), src.data(), src.size(), DART_TYPE_INT, DART_TYPE_INT),
                        DART_OK);
    }
    barrier();
    if (nelem_of(me) > 0) {
      const int* mine = static_cast<int*>(addr_of(at(g, me, 0), me, "zero-contribution segment"));
      BOOST_CHECK(mine != nullptr);
      if (mine)
        verify(mine, nelem_of(me), [&](std::size_t i) { return pattern<int>(left, i, 21); }, me,
               "zero-contribution segment: own portion after the left neighbour's put");
    }
    if (nelem_of(right) > 0) {
      std::vector<int> got(nelem_of(right), -1);
      BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, right, 0), got.size(), DART_TYPE_INT, DART_TYPE_INT),
                        DART_OK);
      verify(got.data(), got.size(), [&](std::size_t i) { return pattern<int>(me, i, 21); }, me,
             "zero-contribution segment: right neighbour's portion read back");
    }
    barrier();
    BOOST_CHECK_EQUAL(dart_team_memfree(g), DART_OK);
  }

  // (b) Everybody contributes nothing; zero-element transfers are no-ops.
  {
    dart_gptr_t g = DART_GPTR_NULL;
    BOOST_REQUIRE_MESSAGE(dart_team_memalloc_aligned(DART_TEAM_ALL, 0, DART_TYPE_DOUBLE, &g) == DART_OK,
                          "rank " << me << ": allocation with all units contributing 0 elements failed");
    check_collective_gptr(g, me, "all-zero allocation");
    void* p = nullptr;
    BOOST_CHECK_EQUAL(dart_gptr_getaddr(at(g, me, 0), &p), DART_OK);
    double d = 1.5;
    BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 0), &d, 0, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
    BOOST_CHECK_EQUAL(dart_get_blocking(&d, at(g, left, 0), 0, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
    BOOST_CHECK_EQUAL(d, 1.5);

    // A normal allocation while the empty one is alive gets another id and works.
    dart_gptr_t h = DART_GPTR_NULL;
    BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, 32, DART_TYPE_DOUBLE, &h), DART_OK);
    check_collective_gptr(h, me, "allocation next to an all-zero one");
    BOOST_CHECK_MESSAGE(h.segid != g.segid, "rank " << me << ": two live segments share id " << g.segid);
    barrier();
    BOOST_CHECK_EQUAL(dart_team_memfree(g), DART_OK);
    ring_through_segment<double>(*this, h, 32, 0, 32, 22, "segment allocated next to an all-zero one");
    BOOST_CHECK_EQUAL(dart_team_memfree(h), DART_OK);
  }

  // (c) Every unit contributes a different number of elements; each portion
  // is usable up to its own size.
  {
    auto nelem_of = [](int u) -> std::size_t { return 8 * static_cast<std::size_t>(u) + 3; };
    dart_gptr_t g = DART_GPTR_NULL;
    BOOST_REQUIRE_MESSAGE(dart_team_memalloc_aligned(DART_TEAM_ALL, nelem_of(me), DART_TYPE_DOUBLE, &g) == DART_OK,
                          "rank " << me << ": allocation with differing sizes failed");
    check_collective_gptr(g, me, "allocation with differing sizes");
    std::vector<double> src(nelem_of(right));
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<double>(me, i, 23);
    BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 0), src.data(), src.size(), DART_TYPE_DOUBLE, DART_TYPE_DOUBLE),
                      DART_OK);
    barrier();
    const double* mine = static_cast<double*>(addr_of(at(g, me, 0), me, "differing-size segment"));
    BOOST_CHECK(mine != nullptr);
    if (mine)
      verify(mine, nelem_of(me), [&](std::size_t i) { return pattern<double>(left, i, 23); }, me,
             "differing-size segment: own portion after the left neighbour's put");
    std::vector<double> got(nelem_of(left));
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, left, 0), got.size(), DART_TYPE_DOUBLE, DART_TYPE_DOUBLE),
                      DART_OK);
    verify(got.data(), got.size(), [&](std::size_t i) { return pattern<double>((left + n - 1) % n, i, 23); }, me,
           "differing-size segment: left neighbour's portion");
    barrier();
    BOOST_CHECK_EQUAL(dart_team_memfree(g), DART_OK);
  }
}

// ---- 3. segment ids are recycled; many live segments -----------------------------

BOOST_AUTO_TEST_CASE(segment_ids_survive_many_cycles) {
  // More than 2^16 cycles where that is cheap (<= 2 ranks, about 6 us per
  // cycle), fewer where every collective is expensive.
  const long cycles = mpitest::scaled(n <= 2 ? 70000 : slow_ranks() ? 1000 : 5000);
  long alloc_failures = 0, free_failures = 0, zero_ids = 0;
  for (long c = 0; c < cycles; ++c) {
    dart_gptr_t g = DART_GPTR_NULL;
    if (dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_INT, &g) != DART_OK) ++alloc_failures;
    else if (g.segid == 0) ++zero_ids;
    // Called even after a failure so every rank issues the same calls.
    if (dart_team_memfree(g) != DART_OK) ++free_failures;
  }
  BOOST_CHECK_MESSAGE(alloc_failures == 0 && free_failures == 0 && zero_ids == 0,
                      "rank " << me << ": " << cycles << " alloc/free cycles: " << alloc_failures
                              << " allocations and " << free_failures << " frees failed, " << zero_ids
                              << " allocations returned segment id 0");

  // The segment handed out after all those cycles still works.
  dart_gptr_t g = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, 100, DART_TYPE_INT, &g), DART_OK);
  check_collective_gptr(g, me, "allocation after many cycles");
  ring_through_segment<int>(*this, g, 100, 0, 100, 31, "segment after many alloc/free cycles");
  BOOST_CHECK_EQUAL(dart_team_memfree(g), DART_OK);
}

BOOST_AUTO_TEST_CASE(many_live_segments_freed_out_of_order) {
  const std::size_t kLive = slow_ranks() ? 200 : 500;
  auto nelem_of = [](std::size_t s) -> std::size_t { return 1 + s % 7; };
  std::vector<dart_gptr_t> segs(kLive, DART_GPTR_NULL);
  std::vector<bool> live(kLive, false);

  // Allocates segment s; returns whether it worked.
  auto alloc = [&](std::size_t s) {
    const dart_ret_t rc = dart_team_memalloc_aligned(DART_TEAM_ALL, nelem_of(s), DART_TYPE_LONG, &segs[s]);
    live[s] = rc == DART_OK;
    return rc == DART_OK;
  };
  // Live segment ids: non-zero, pairwise distinct, the same on all ranks.
  auto check_ids = [&](const std::string& when) {
    std::vector<int> ids;
    std::vector<int> mx(kLive), mn(kLive), in(kLive), in_neg(kLive);
    for (std::size_t s = 0; s < kLive; ++s) {
      in[s] = live[s] ? segs[s].segid : 0;
      in_neg[s] = -in[s];
      if (live[s]) ids.push_back(segs[s].segid);
    }
    MPI_Allreduce(in.data(), mx.data(), static_cast<int>(kLive), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(in_neg.data(), mn.data(), static_cast<int>(kLive), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    std::size_t disagree = 0;
    for (std::size_t s = 0; s < kLive; ++s) disagree += mx[s] != -mn[s];
    BOOST_CHECK_MESSAGE(disagree == 0, "rank " << me << ": " << when << ": " << disagree
                                               << " segments have different ids on different ranks");
    const bool has_zero = std::find(ids.begin(), ids.end(), 0) != ids.end();
    std::sort(ids.begin(), ids.end());
    const bool distinct = std::adjacent_find(ids.begin(), ids.end()) == ids.end();
    BOOST_CHECK_MESSAGE(!has_zero && distinct,
                        "rank " << me << ": " << when << ": live segment ids are "
                                << (has_zero ? "zero for some" : "not pairwise distinct"));
  };
  // Every unit writes segment-specific data into its right neighbour's
  // portion of each listed segment.
  auto write_ring = [&](const std::vector<std::size_t>& which, int salt) {
    for (std::size_t s : which) {
      std::vector<long> src(nelem_of(s));
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<long>(me, i + 16 * s, salt);
      BOOST_CHECK_EQUAL(dart_put_blocking(at(segs[s], right, 0), src.data(), src.size(), DART_TYPE_LONG,
                                          DART_TYPE_LONG),
                        DART_OK);
    }
  };
  auto verify_own = [&](const std::vector<std::size_t>& which, int salt, const std::string& when) {
    std::size_t bad_segments = 0, first_bad = 0;
    for (std::size_t s : which) {
      const long* mine = static_cast<long*>(addr_of(at(segs[s], me, 0), me, when));
      bool ok = mine != nullptr;
      for (std::size_t i = 0; ok && i < nelem_of(s); ++i) ok = mine[i] == pattern<long>(left, i + 16 * s, salt);
      if (!ok && bad_segments++ == 0) first_bad = s;
    }
    BOOST_CHECK_MESSAGE(bad_segments == 0, "rank " << me << ": " << when << ": " << bad_segments
                                                   << " segments hold wrong data; first is segment #" << first_bad
                                                   << " " << (first_bad < kLive ? str(segs[first_bad]) : ""));
  };

  std::vector<std::size_t> all(kLive);
  std::iota(all.begin(), all.end(), 0);
  std::size_t failed = 0;
  for (std::size_t s : all) failed += !alloc(s);
  BOOST_REQUIRE_MESSAGE(mpitest::all_ranks(failed == 0),
                        "rank " << me << ": " << failed << " of " << kLive << " live allocations failed");
  check_ids(std::to_string(kLive) + " live segments");
  write_ring(all, 41);
  barrier();
  verify_own(all, 41, std::to_string(kLive) + " live segments");
  barrier();

  // Free the odd ones ascending, then every fourth one descending; the order
  // is the same on all ranks (collective) but differs from allocation order.
  std::vector<std::size_t> freed;
  for (std::size_t s = 1; s < kLive; s += 2) freed.push_back(s);
  for (std::size_t s = kLive - 4; s < kLive; s -= 4) freed.push_back(s);
  for (std::size_t s : freed) {
    BOOST_CHECK_EQUAL(dart_team_memfree(segs[s]), DART_OK);
    live[s] = false;
  }
  std::vector<std::size_t> kept;
  for (std::size_t s : all)
    if (live[s]) kept.push_back(s);

  // Allocate the freed ones again (in reverse) and write new data there; the
  // kept segments must be untouched.
  std::reverse(freed.begin(), freed.end());
  failed = 0;
  for (std::size_t s : freed) failed += !alloc(s);
  BOOST_REQUIRE_MESSAGE(mpitest::all_ranks(failed == 0),
                        "rank " << me << ": " << failed << " re-allocations after out-of-order frees failed");
  check_ids("after freeing out of order and allocating again");
  write_ring(freed, 42);
  barrier();
  verify_own(freed, 42, "re-allocated segments");
  verify_own(kept, 41, "segments kept alive while others were freed and re-allocated");
  barrier();

  // Free everything in yet another order (descending) and start over.
  for (std::size_t s = kLive; s-- > 0;) BOOST_CHECK_EQUAL(dart_team_memfree(segs[s]), DART_OK);
  std::fill(live.begin(), live.end(), false);
  failed = 0;
  for (std::size_t s : all) failed += !alloc(s);
  BOOST_REQUIRE_MESSAGE(mpitest::all_ranks(failed == 0),
                        "rank " << me << ": " << failed << " allocations after freeing all failed");
  check_ids(std::to_string(kLive) + " live segments, second round");
  write_ring(all, 43);
  barrier();
  verify_own(all, 43, std::to_string(kLive) + " live segments, second round");
  barrier();
  for (std::size_t s : all) BOOST_CHECK_EQUAL(dart_team_memfree(segs[s]), DART_OK);
}

// ---- 4. gptr helpers ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(gptr_getaddr_setaddr_incaddr_setunit_flags) {
  constexpr std::size_t kN = 1000;
  dart_gptr_t g0 = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, kN, DART_TYPE_INT, &g0), DART_OK);
  check_collective_gptr(g0, me, "dart_team_memalloc_aligned(1000 x INT)");
  BOOST_CHECK(!DART_GPTR_ISNULL(g0));
  const dart_gptr_t null_gptr = DART_GPTR_NULL;
  BOOST_CHECK(DART_GPTR_ISNULL(null_gptr));

  // getaddr on the own portion: non-NULL, and offsets map to base + offset.
  dart_gptr_t mine_g = at(g0, me, 0);
  int* base = static_cast<int*>(addr_of(mine_g, me, "own portion"));
  BOOST_REQUIRE_MESSAGE(base != nullptr, "rank " << me << ": dart_gptr_getaddr gave NULL for the own portion");
  for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{4}, std::uint64_t{7}, std::uint64_t{(kN - 1) * 4}}) {
    void* p = addr_of(at(g0, me, k), me, "own portion + offset");
    BOOST_CHECK_MESSAGE(p == reinterpret_cast<char*>(base) + k,
                        "rank " << me << ": getaddr at offset " << k << " gave " << p << ", expected base "
                                << static_cast<void*>(base) << " + " << k);
  }

  // Writes through the address are what other units read by RMA.
  for (std::size_t i = 0; i < kN; ++i) base[i] = pattern<int>(me, i, 51);
  barrier();
  std::vector<int> got(kN, 0);
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g0, left, 0), kN, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
  verify(got.data(), kN, [&](std::size_t i) { return pattern<int>(left, i, 51); }, me,
         "left neighbour's portion, written through its dart_gptr_getaddr address");

  // Another unit's portion: DART_OK and NULL, even where it is reachable.
  if (n > 1) {
    void* p = reinterpret_cast<void*>(std::uintptr_t{1});
    const dart_gptr_t other = at(g0, right, 0);
    BOOST_CHECK_EQUAL(dart_gptr_getaddr(other, &p), DART_OK);
    BOOST_CHECK_MESSAGE(p == nullptr, "rank " << me << ": dart_gptr_getaddr of unit " << right
                                              << "'s portion gave " << p << " instead of NULL");
  }

  // setaddr is the inverse of getaddr; it changes only the offset.
  for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{123}, std::uint64_t{(kN - 1) * 4}}) {
    for (int unit : {0, me}) {
      dart_gptr_t g = at(g0, unit, 4);  // starts at some other offset
      BOOST_CHECK_EQUAL(dart_gptr_setaddr(&g, reinterpret_cast<char*>(base) + k), DART_OK);
      BOOST_CHECK_MESSAGE(g.addr_or_offs.offset == k && g.unitid == unit && g.segid == g0.segid &&
                              g.teamid == g0.teamid,
                          "rank " << me << ": setaddr(base + " << k << ") on " << str(at(g0, unit, 4))
                                  << " gave " << str(g));
    }
  }

  // incaddr, positive and negative, with two's-complement wrap.
  {
    dart_gptr_t g = at(g0, left, 0);
    BOOST_CHECK_EQUAL(dart_gptr_incaddr(&g, 400), DART_OK);
    BOOST_CHECK_EQUAL(g.addr_or_offs.offset, 400u);
    BOOST_CHECK_EQUAL(dart_gptr_incaddr(&g, -396), DART_OK);
    BOOST_CHECK_EQUAL(g.addr_or_offs.offset, 4u);
    int v = 0;
    BOOST_CHECK_EQUAL(dart_get_blocking(&v, g, 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
    BOOST_CHECK_MESSAGE(v == pattern<int>(left, 1, 51),
                        "rank " << me << ": element 1 of unit " << left << " read through incaddr'd gptr is wrong");
    dart_gptr_t w = g0;
    BOOST_CHECK_EQUAL(dart_gptr_incaddr(&w, -1), DART_OK);
    BOOST_CHECK_EQUAL(w.addr_or_offs.offset, std::numeric_limits<std::uint64_t>::max());
    BOOST_CHECK_EQUAL(dart_gptr_incaddr(&w, 1), DART_OK);
    BOOST_CHECK_EQUAL(w.addr_or_offs.offset, 0u);
    BOOST_CHECK(w.unitid == g0.unitid && w.segid == g0.segid && w.teamid == g0.teamid);
  }

  // setunit changes only the unit, truncated to 24 bits.
  {
    dart_gptr_t g = g0;
    dart_gptr_incaddr(&g, 8);
    BOOST_CHECK_EQUAL(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(right)), DART_OK);
    BOOST_CHECK_MESSAGE(g.unitid == right && g.segid == g0.segid && g.teamid == g0.teamid &&
                            g.addr_or_offs.offset == 8 && g.flags == 0,
                        "rank " << me << ": setunit(" << right << ") gave " << str(g));
    BOOST_CHECK_EQUAL(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID((1 << 24) | me)), DART_OK);
    BOOST_CHECK_MESSAGE(g.unitid == me, "rank " << me << ": setunit(2^24 + " << me << ") gave unit " << g.unitid);
  }

  // Flags: initially 0, 16 bits kept per unit and segment, low 8 bits
  // cached in the gptr, ignored by DART_GPTR_EQUAL and by transfers.
  {
    uint16_t fl = 0xffff;
    BOOST_CHECK_EQUAL(dart_gptr_getflags(g0, &fl), DART_OK);
    BOOST_CHECK_MESSAGE(fl == 0, "rank " << me << ": initial flags " << fl);
    dart_gptr_t g = g0;
    BOOST_CHECK_EQUAL(dart_gptr_setflags(&g, 0x1234), DART_OK);
    BOOST_CHECK_EQUAL(g.flags, 0x34u);
    fl = 0;
    BOOST_CHECK_EQUAL(dart_gptr_getflags(g, &fl), DART_OK);
    BOOST_CHECK_EQUAL(fl, 0x1234);
    fl = 0;
    BOOST_CHECK_EQUAL(dart_gptr_getflags(g0, &fl), DART_OK);  // same segment, unflagged copy
    BOOST_CHECK_EQUAL(fl, 0x1234);
    BOOST_CHECK(DART_GPTR_EQUAL(g, g0));
    dart_gptr_t other = g0;
    dart_gptr_incaddr(&other, 4);
    BOOST_CHECK(!DART_GPTR_EQUAL(other, g0));
    other = at(g0, 1, 0);
    BOOST_CHECK(!DART_GPTR_EQUAL(other, g0));

    // Per unit: each unit's own value, never another's.
    const uint16_t my_flags = static_cast<uint16_t>(0xa500 + me);
    BOOST_CHECK_EQUAL(dart_gptr_setflags(&g, my_flags), DART_OK);
    BOOST_CHECK_EQUAL(g.flags, static_cast<unsigned>(my_flags & 0xff));
    barrier();
    fl = 0;
    BOOST_CHECK_EQUAL(dart_gptr_getflags(g0, &fl), DART_OK);
    BOOST_CHECK_MESSAGE(fl == my_flags, "rank " << me << ": flags " << fl << " instead of own value " << my_flags);

    // A flagged gptr addresses the same memory.
    int v = pattern<int>(me, 0, 52);
    BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 8), &v, 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
    barrier();
    BOOST_CHECK_MESSAGE(base[2] == pattern<int>(left, 0, 52),
                        "rank " << me << ": put through a flagged gptr did not land at element 2");
  }
  barrier();
  BOOST_CHECK_EQUAL(dart_team_memfree(g0), DART_OK);

  // A new segment (which may reuse the id) starts with flags 0 again.
  dart_gptr_t g1 = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, kN, DART_TYPE_INT, &g1), DART_OK);
  uint16_t fl = 0xffff;
  BOOST_CHECK_EQUAL(dart_gptr_getflags(g1, &fl), DART_OK);
  BOOST_CHECK_MESSAGE(fl == 0, "rank " << me << ": new segment " << g1.segid << " (old " << g0.segid
                                       << ") starts with flags " << fl);
  BOOST_CHECK_EQUAL(g1.flags, 0u);
  BOOST_CHECK_EQUAL(dart_team_memfree(g1), DART_OK);
}

// ---- 5. dart_memalloc / dart_memfree ------------------------------------------

BOOST_AUTO_TEST_CASE(memalloc_local_blocks_accessible_everywhere) {
  // Shape and alignment of the returned pointers.
  std::vector<std::string> misaligned;  // "nelem x TYPE @ address"
  for (const BasicType& bt : kBasicTypes) {
    for (std::size_t nelem : {std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{1000}}) {
      dart_gptr_t g = DART_GPTR_NULL;
      BOOST_CHECK_EQUAL(dart_memalloc(nelem, bt.type, &g), DART_OK);
      BOOST_CHECK_MESSAGE(g.teamid == DART_TEAM_ALL && g.segid == DART_SEGMENT_LOCAL && g.unitid == me &&
                              g.flags == 0,
                          "rank " << me << ": dart_memalloc(" << nelem << " x " << bt.name << ") gave " << str(g));
      void* p = addr_of(g, me, "dart_memalloc block");
      BOOST_CHECK_MESSAGE(p != nullptr, "rank " << me << ": dart_memalloc(" << nelem << " x " << bt.name
                                                << ") block has no local address");
      if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) {
        std::ostringstream os;
        os << nelem << " x " << bt.name << " @ " << p;
        misaligned.push_back(os.str());
      }
      if (p) std::memset(p, 0x5a, nelem * bt.size);
      BOOST_CHECK_EQUAL(dart_memfree(g), DART_OK);
    }
  }
  {
    std::ostringstream list;
    for (std::size_t i = 0; i < misaligned.size() && i < 4; ++i) list << (i ? ", " : "") << misaligned[i];
    BOOST_CHECK_MESSAGE(misaligned.empty(), "rank " << me << ": " << misaligned.size()
                                                    << " dart_memalloc blocks are not 16-byte aligned, e.g. "
                                                    << list.str());
  }

  // A block per unit, filled locally, read by every unit; then written by
  // the left neighbour.
  constexpr std::size_t kN = 1000;
  dart_gptr_t g = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_memalloc(kN, DART_TYPE_DOUBLE, &g), DART_OK);
  double* mine = static_cast<double*>(addr_of(g, me, "dart_memalloc block"));
  BOOST_REQUIRE(mine != nullptr);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = pattern<double>(me, i, 61);
  const std::vector<dart_gptr_t> blocks = allgather(g);
  barrier();
  std::vector<double> got(kN);
  for (int u = 0; u < n; ++u) {
    const dart_gptr_t& b = blocks[static_cast<std::size_t>(u)];
    BOOST_CHECK_MESSAGE(b.unitid == u && b.segid == DART_SEGMENT_LOCAL && b.teamid == DART_TEAM_ALL,
                        "rank " << me << ": unit " << u << "'s dart_memalloc gptr is " << str(b));
    std::fill(got.begin(), got.end(), -1.0);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), b, kN, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
    verify(got.data(), kN, [&](std::size_t i) { return pattern<double>(u, i, 61); }, me,
           "unit " + std::to_string(u) + "'s dart_memalloc block");
    // A part in the middle, through an incremented gptr.
    dart_gptr_t mid = b;
    dart_gptr_incaddr(&mid, 10 * sizeof(double));
    std::fill(got.begin(), got.end(), -1.0);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), mid, 20, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
    verify(got.data(), 20, [&](std::size_t i) { return pattern<double>(u, i + 10, 61); }, me,
           "elements 10..29 of unit " + std::to_string(u) + "'s dart_memalloc block");
    if (u != me) {
      void* p = reinterpret_cast<void*>(std::uintptr_t{1});
      BOOST_CHECK_EQUAL(dart_gptr_getaddr(b, &p), DART_OK);
      BOOST_CHECK_MESSAGE(p == nullptr, "rank " << me << ": getaddr of unit " << u << "'s block gave " << p);
    }
  }
  barrier();
  std::vector<double> src(kN);
  for (std::size_t i = 0; i < kN; ++i) src[i] = pattern<double>(me, i, 62);
  BOOST_CHECK_EQUAL(dart_put_blocking(blocks[static_cast<std::size_t>(right)], src.data(), kN, DART_TYPE_DOUBLE,
                                      DART_TYPE_DOUBLE),
                    DART_OK);
  barrier();
  verify(mine, kN, [&](std::size_t i) { return pattern<double>(left, i, 62); }, me,
         "own dart_memalloc block after the left neighbour's put");
  barrier();
  BOOST_CHECK_EQUAL(dart_memfree(g), DART_OK);
  BOOST_CHECK_EQUAL(dart_memfree(DART_GPTR_NULL), DART_OK);
}

BOOST_AUTO_TEST_CASE(memalloc_fragmentation) {
  // Many small blocks of varying sizes, some freed, more allocated: every
  // live block keeps its own data, locally and seen by the right neighbour.
  constexpr std::size_t kFirst = 400, kSecond = 200;
  auto bytes_of = [](std::size_t i) -> std::size_t { return 1 + (i * 37) % 500; };
  std::vector<dart_gptr_t> blocks(kFirst + kSecond, DART_GPTR_NULL);
  std::size_t failed = 0;
  auto fill = [&](std::size_t i) {
    if (dart_memalloc(bytes_of(i), DART_TYPE_BYTE, &blocks[i]) != DART_OK) {
      ++failed;
      return;
    }
    auto* p = static_cast<unsigned char*>(addr_of(blocks[i], me, "fragmentation block"));
    if (!p) {
      ++failed;
      return;
    }
    for (std::size_t k = 0; k < bytes_of(i); ++k) p[k] = pattern<unsigned char>(me, k + (i << 12), 71);
  };
  for (std::size_t i = 0; i < kFirst; ++i) fill(i);
  for (std::size_t i = 0; i < kFirst; i += 3) {
    BOOST_CHECK_EQUAL(dart_memfree(blocks[i]), DART_OK);
    blocks[i] = DART_GPTR_NULL;
  }
  for (std::size_t i = kFirst; i < kFirst + kSecond; ++i) fill(i);
  BOOST_CHECK_MESSAGE(failed == 0, "rank " << me << ": " << failed << " small dart_memalloc calls failed");

  std::size_t bad = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (DART_GPTR_ISNULL(blocks[i])) continue;
    const auto* p = static_cast<unsigned char*>(addr_of(blocks[i], me, "fragmentation block"));
    for (std::size_t k = 0; p && k < bytes_of(i); ++k) bad += p[k] != pattern<unsigned char>(me, k + (i << 12), 71);
  }
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << me << ": " << bad << " bytes of live fragmented blocks were overwritten");

  // The right neighbour reads all my live blocks (same list shape on every rank).
  const std::vector<dart_gptr_t> everyone = allgather(blocks);
  barrier();
  bad = 0;
  std::size_t failed_gets = 0;
  std::vector<unsigned char> buf(512);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const dart_gptr_t& b = everyone[static_cast<std::size_t>(left) * blocks.size() + i];
    if (DART_GPTR_ISNULL(b)) continue;
    if (dart_get_blocking(buf.data(), b, bytes_of(i), DART_TYPE_BYTE, DART_TYPE_BYTE) != DART_OK) ++failed_gets;
    for (std::size_t k = 0; k < bytes_of(i); ++k) bad += buf[k] != pattern<unsigned char>(left, k + (i << 12), 71);
  }
  BOOST_CHECK_MESSAGE(bad == 0 && failed_gets == 0, "rank " << me << ": reading unit " << left
                                                            << "'s fragmented blocks: " << failed_gets
                                                            << " gets failed, " << bad << " bytes wrong");
  barrier();

  for (auto& b : blocks)
    if (!DART_GPTR_ISNULL(b)) BOOST_CHECK_EQUAL(dart_memfree(b), DART_OK);

  // All freed: the pool is whole again and serves a large block.
  dart_gptr_t big = DART_GPTR_NULL;
  BOOST_CHECK_EQUAL(dart_memalloc(std::size_t(8) << 20, DART_TYPE_BYTE, &big), DART_OK);
  BOOST_CHECK_EQUAL(dart_memfree(big), DART_OK);
  BOOST_CHECK_EQUAL(dart_memfree(DART_GPTR_NULL), DART_OK);
}

// ---- 6. registration -----------------------------------------------------------

BOOST_AUTO_TEST_CASE(memregister_per_unit_sizes) {
  // Unit 0 registers nothing (addr NULL) when there are other units.
  auto nl_of = [&](int u) -> std::size_t { return (n > 1 && u == 0) ? 0 : 5 * static_cast<std::size_t>(u) + 3; };
  std::vector<int> buf(nl_of(me));
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = pattern<int>(me, i, 81);
  int* addr = buf.empty() ? nullptr : buf.data();

  // An allocation alive at the same time must not share the id.
  dart_gptr_t other = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &other), DART_OK);

  dart_gptr_t g = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memregister(DART_TEAM_ALL, nl_of(me), DART_TYPE_INT, addr, &g);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_team_memregister of " << nl_of(me)
                                             << " ints returned " << rc);
  // A failed registration fails this case on every rank without aborting
  // the job (the later cases still run).
  if (!mpitest::all_ranks(rc == DART_OK)) {
    BOOST_CHECK_EQUAL(dart_team_memderegister(g), DART_OK);
    BOOST_CHECK_EQUAL(dart_team_memfree(other), DART_OK);
    return;
  }
  check_collective_gptr(g, me, "dart_team_memregister");
  BOOST_CHECK_MESSAGE(g.segid != other.segid,
                      "rank " << me << ": registration and allocation share segment id " << g.segid);
  if (addr) {
    void* p = addr_of(at(g, me, 0), me, "registered buffer");
    BOOST_CHECK_MESSAGE(p == addr, "rank " << me << ": getaddr of the own registered portion gave " << p
                                           << " instead of the buffer " << static_cast<void*>(addr));
    p = addr_of(at(g, me, 8), me, "registered buffer + 8");
    BOOST_CHECK_MESSAGE(p == reinterpret_cast<char*>(addr) + 8, "rank " << me << ": getaddr at offset 8 gave " << p);
  }
  barrier();

  // The right neighbour's registered data is readable...
  std::vector<int> got(nl_of(right), -1);
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, right, 0), got.size(), DART_TYPE_INT, DART_TYPE_INT),
                    DART_OK);
  verify(got.data(), got.size(), [&](std::size_t i) { return pattern<int>(right, i, 81); }, me,
         "right neighbour's registered buffer");
  if (nl_of(right) > 2) {
    int v = -1;
    BOOST_CHECK_EQUAL(dart_get_blocking(&v, at(g, right, 2 * sizeof(int)), 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
    BOOST_CHECK_MESSAGE(v == pattern<int>(right, 2, 81), "rank " << me << ": element 2 of unit " << right
                                                                 << "'s registered buffer is wrong");
  }
  barrier();
  // ... and writable; the owner sees the change in its own buffer.
  std::vector<int> src(nl_of(right));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<int>(me, i, 82);
  BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 0), src.data(), src.size(), DART_TYPE_INT, DART_TYPE_INT),
                    DART_OK);
  barrier();
  verify(buf.data(), buf.size(), [&](std::size_t i) { return pattern<int>(left, i, 82); }, me,
         "own registered buffer after the left neighbour's put");
  barrier();

  // The own portion through the registration (RMA or load/store).
  if (!buf.empty()) {
    const int v = pattern<int>(me, 0, 83);
    BOOST_CHECK_EQUAL(dart_put_blocking(at(g, me, 0), &v, 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
    int back = -1;
    BOOST_CHECK_EQUAL(dart_get_blocking(&back, at(g, me, 0), 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
    BOOST_CHECK_MESSAGE(buf[0] == v && back == v, "rank " << me << ": put/get on the own registered portion: buffer "
                                                          << buf[0] << ", read back " << back << ", expected " << v);
  }
  barrier();

  BOOST_CHECK_EQUAL(dart_team_memderegister(g), DART_OK);
  // The memory itself is untouched and belongs to the caller again.
  if (!buf.empty()) buf[0] = pattern<int>(left, 0, 82);
  verify(buf.data(), buf.size(), [&](std::size_t i) { return pattern<int>(left, i, 82); }, me,
         "own buffer after dart_team_memderegister");
  BOOST_CHECK_EQUAL(dart_team_memderegister(DART_GPTR_NULL), DART_OK);
  barrier();
  BOOST_CHECK_EQUAL(dart_team_memfree(other), DART_OK);
}

BOOST_AUTO_TEST_CASE(memregister_aligned_equal_sizes) {
  constexpr std::size_t kN = 1000;
  std::vector<double> buf(kN);
  for (std::size_t i = 0; i < kN; ++i) buf[i] = pattern<double>(me, i, 91);
  dart_gptr_t g = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, kN, DART_TYPE_DOUBLE, buf.data(), &g);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_team_memregister_aligned returned " << rc);
  if (!mpitest::all_ranks(rc == DART_OK)) {
    BOOST_CHECK_EQUAL(dart_team_memderegister(g), DART_OK);
    return;
  }
  check_collective_gptr(g, me, "dart_team_memregister_aligned");
  BOOST_CHECK_EQUAL(addr_of(at(g, me, 0), me, "registered buffer"), static_cast<void*>(buf.data()));
  barrier();

  std::vector<double> got(kN, -1.0);
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, right, 0), kN, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
  verify(got.data(), kN, [&](std::size_t i) { return pattern<double>(right, i, 91); }, me,
         "right neighbour's aligned registration");
  barrier();

  // The right neighbour's elements [100, 600) are overwritten.
  std::vector<double> src(500);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<double>(me, i, 92);
  BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 100 * sizeof(double)), src.data(), src.size(), DART_TYPE_DOUBLE,
                                      DART_TYPE_DOUBLE),
                    DART_OK);
  barrier();
  auto expected = [&](int owner, int writer) {
    return [=](std::size_t i) {
      return (i >= 100 && i < 600) ? pattern<double>(writer, i - 100, 92) : pattern<double>(owner, i, 91);
    };
  };
  verify(buf.data(), kN, expected(me, left), me, "own aligned registration after the left neighbour's put");
  std::fill(got.begin(), got.end(), -1.0);
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, left, 0), kN, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
  verify(got.data(), kN, expected(left, (left + n - 1) % n), me, "left neighbour's aligned registration");
  barrier();
  BOOST_CHECK_EQUAL(dart_team_memderegister(g), DART_OK);
  verify(buf.data(), kN, expected(me, left), me, "own buffer after dart_team_memderegister");

  // Register again (the id may be reused): works the same way.
  dart_gptr_t g2 = DART_GPTR_NULL;
  const dart_ret_t rc2 = dart_team_memregister_aligned(DART_TEAM_ALL, kN, DART_TYPE_DOUBLE, buf.data(), &g2);
  BOOST_CHECK_MESSAGE(rc2 == DART_OK, "rank " << me << ": second dart_team_memregister_aligned returned " << rc2);
  if (!mpitest::all_ranks(rc2 == DART_OK)) {
    BOOST_CHECK_EQUAL(dart_team_memderegister(g2), DART_OK);
    return;
  }
  check_collective_gptr(g2, me, "second dart_team_memregister_aligned");
  barrier();
  std::fill(got.begin(), got.end(), -1.0);
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g2, right, 0), kN, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
  verify(got.data(), kN, expected(right, me), me, "right neighbour's buffer through a second registration");
  barrier();
  BOOST_CHECK_EQUAL(dart_team_memderegister(g2), DART_OK);
  BOOST_CHECK_EQUAL(dart_team_memderegister(DART_GPTR_NULL), DART_OK);
}

// ---- 7. allocator pool -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(allocator_pool) {
  constexpr std::size_t kPool = std::size_t(40) << 20;     // asked for
  constexpr std::size_t kRounded = std::size_t(64) << 20;  // next power of two, must be backed
  dart_allocator_t alloc = nullptr;
  BOOST_REQUIRE_EQUAL(dart_allocator_new(kPool, DART_TEAM_ALL, &alloc), DART_OK);
  BOOST_REQUIRE(alloc != nullptr);

  // Three blocks per unit; the right neighbour writes all of them.
  constexpr std::size_t kSizes[3] = {1, 1000, 100000};
  std::vector<dart_gptr_t> mine(3, DART_GPTR_NULL);
  for (std::size_t b = 0; b < 3; ++b) {
    BOOST_REQUIRE_EQUAL(dart_allocator_alloc(kSizes[b], DART_TYPE_LONG, &mine[b], alloc), DART_OK);
    BOOST_CHECK_MESSAGE(mine[b].unitid == me && mine[b].teamid == DART_TEAM_ALL && mine[b].segid != 0 &&
                            mine[b].segid == mine[0].segid && mine[b].flags == 0,
                        "rank " << me << ": dart_allocator_alloc gave " << str(mine[b]));
  }
  const std::vector<dart_gptr_t> all = allgather(mine);
  {
    int in[2] = {mine[0].segid, -mine[0].segid}, out[2] = {0, 0};
    MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    BOOST_CHECK_MESSAGE(out[0] == -out[1], "rank " << me << ": the pool's segment id differs across ranks");
  }
  barrier();
  for (std::size_t b = 0; b < 3; ++b) {
    const dart_gptr_t& target = all[static_cast<std::size_t>(right) * 3 + b];
    std::vector<long> src(kSizes[b]);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<long>(me, i, 101 + static_cast<int>(b));
    BOOST_CHECK_EQUAL(dart_put_blocking(target, src.data(), src.size(), DART_TYPE_LONG, DART_TYPE_LONG), DART_OK);
  }
  barrier();
  for (std::size_t b = 0; b < 3; ++b) {
    const long* p = static_cast<long*>(addr_of(mine[b], me, "allocator block"));
    BOOST_CHECK(p != nullptr);
    if (p)
      verify(p, kSizes[b], [&](std::size_t i) { return pattern<long>(left, i, 101 + static_cast<int>(b)); }, me,
             "allocator block #" + std::to_string(b) + " after the left neighbour's put");
    std::vector<long> got(kSizes[b], -1);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), all[static_cast<std::size_t>(left) * 3 + b], kSizes[b],
                                        DART_TYPE_LONG, DART_TYPE_LONG),
                      DART_OK);
    verify(got.data(), kSizes[b],
           [&](std::size_t i) { return pattern<long>((left + n - 1) % n, i, 101 + static_cast<int>(b)); }, me,
           "left neighbour's allocator block #" + std::to_string(b));
  }
  barrier();
  for (auto& g : mine) {
    BOOST_CHECK_EQUAL(dart_allocator_free(&g, alloc), DART_OK);
    BOOST_CHECK_MESSAGE(DART_GPTR_ISNULL(g), "rank " << me << ": dart_allocator_free left " << str(g));
  }

  // The whole rounded pool in one block: backed up to its last byte.
  dart_gptr_t whole = DART_GPTR_NULL;
  BOOST_CHECK_EQUAL(dart_allocator_alloc(kRounded, DART_TYPE_BYTE, &whole, alloc), DART_OK);
  // Nothing is left now.
  dart_gptr_t none = whole;
  {
    QuietDart quiet;
    BOOST_CHECK_EQUAL(dart_allocator_alloc(1, DART_TYPE_BYTE, &none, alloc), DART_ERR_NOMEM);
  }
  BOOST_CHECK_MESSAGE(DART_GPTR_ISNULL(none), "rank " << me << ": exhausted pool returned " << str(none));
  const bool have_whole = mpitest::all_ranks(!DART_GPTR_ISNULL(whole));
  BOOST_CHECK_MESSAGE(have_whole, "rank " << me << ": some rank could not allocate the whole rounded pool");
  if (have_whole) {
    const std::vector<dart_gptr_t> wholes = allgather(whole);
    constexpr std::size_t kEdge = 4096;
    std::vector<unsigned char> head(kEdge), tail(kEdge);
    for (std::size_t i = 0; i < kEdge; ++i) {
      head[i] = pattern<unsigned char>(me, i, 111);
      tail[i] = pattern<unsigned char>(me, i, 112);
    }
    dart_gptr_t t = wholes[static_cast<std::size_t>(right)];
    BOOST_CHECK_EQUAL(dart_put_blocking(t, head.data(), kEdge, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_OK);
    dart_gptr_incaddr(&t, static_cast<int64_t>(kRounded - kEdge));
    BOOST_CHECK_EQUAL(dart_put_blocking(t, tail.data(), kEdge, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_OK);
    barrier();
    const auto* p = static_cast<unsigned char*>(addr_of(whole, me, "whole pool block"));
    BOOST_CHECK(p != nullptr);
    if (p) {
      verify(p, kEdge, [&](std::size_t i) { return pattern<unsigned char>(left, i, 111); }, me,
             "first 4 KiB of the whole pool block");
      verify(p + kRounded - kEdge, kEdge, [&](std::size_t i) { return pattern<unsigned char>(left, i, 112); }, me,
             "last 4 KiB of the whole (rounded) pool block");
    }
    barrier();
    BOOST_CHECK_EQUAL(dart_allocator_free(&whole, alloc), DART_OK);
    BOOST_CHECK(DART_GPTR_ISNULL(whole));
  }
  // More than the pool holds is never possible.
  none = DART_GPTR_NULL;
  none.segid = 3;
  {
    QuietDart quiet;
    BOOST_CHECK_EQUAL(dart_allocator_alloc(kRounded + 1, DART_TYPE_BYTE, &none, alloc), DART_ERR_NOMEM);
  }
  BOOST_CHECK(DART_GPTR_ISNULL(none));
  // After freeing, allocating works again.
  dart_gptr_t again = DART_GPTR_NULL;
  BOOST_CHECK_EQUAL(dart_allocator_alloc(16, DART_TYPE_INT, &again, alloc), DART_OK);
  BOOST_CHECK_EQUAL(dart_flush(again), DART_OK);
  BOOST_CHECK_EQUAL(dart_allocator_free(&again, alloc), DART_OK);
  BOOST_CHECK(DART_GPTR_ISNULL(again));

  barrier();
  BOOST_CHECK_EQUAL(dart_allocator_destroy(&alloc), DART_OK);
  BOOST_CHECK(alloc == nullptr);
}

// ---- 8. neighbour-ring transfers --------------------------------------------

template <class T>
void ring_sizes(const DartFixture& f, const char* type_name, int salt) {
  const dart_datatype_t dt = dart_type_of<T>();
  const std::size_t counts[] = {1, 1000, (std::size_t(1) << 20) / sizeof(T)};
  for (std::size_t count : counts) {
    ++salt;
    constexpr std::size_t kOff = 5, kGuard = 7;  // written range [5, 5 + count), guards around it
    const std::size_t portion = count + kGuard;
    dart_gptr_t g = DART_GPTR_NULL;
    BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, portion, dt, &g), DART_OK);
    std::ostringstream what;
    what << type_name << " x " << count;
    ring_through_segment<T>(f, g, portion, kOff, count, salt, what.str());
    BOOST_CHECK_EQUAL(dart_team_memfree(g), DART_OK);
  }
}

BOOST_AUTO_TEST_CASE(ring_put_get_sizes_and_types) {
  ring_sizes<std::uint8_t>(*this, "BYTE", 200);
  ring_sizes<int>(*this, "INT", 210);
  ring_sizes<double>(*this, "DOUBLE", 220);
  ring_sizes<long double>(*this, "LONG_DOUBLE", 230);
}

BOOST_AUTO_TEST_CASE(ring_put_get_across_heap_chunks) {
  // Several live segments around the 16 MiB chunk / 8 MiB dedicated-chunk
  // limits: three of 6 MiB (the third needs a second chunk), one of exactly
  // 8 MiB and one just above it (a chunk of its own).
  const std::size_t bytes[] = {std::size_t(6) << 20, std::size_t(6) << 20, std::size_t(6) << 20,
                               std::size_t(8) << 20, (std::size_t(8) << 20) + 8};
  constexpr std::size_t kSegs = sizeof bytes / sizeof bytes[0];
  using T = unsigned long long;
  std::vector<dart_gptr_t> segs(kSegs, DART_GPTR_NULL);
  for (std::size_t s = 0; s < kSegs; ++s) {
    BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes[s] / sizeof(T), DART_TYPE_ULONGLONG, &segs[s]),
                        DART_OK);
    check_collective_gptr(segs[s], me, "segment of " + std::to_string(bytes[s]) + " bytes");
  }
  // All segments are written before any is checked, so overlap between
  // them would show.
  for (std::size_t s = 0; s < kSegs; ++s) {
    T* mine = static_cast<T*>(addr_of(at(segs[s], me, 0), me, "chunk test"));
    BOOST_REQUIRE(mine != nullptr);
    for (std::size_t i = 0; i < bytes[s] / sizeof(T); ++i) mine[i] = sentinel<T>(me, i, 300 + static_cast<int>(s));
  }
  barrier();
  for (std::size_t s = 0; s < kSegs; ++s) {
    const std::size_t count = bytes[s] / sizeof(T) - 2;  // leave one guard element at each end
    std::vector<T> src(count);
    for (std::size_t i = 0; i < count; ++i) src[i] = pattern<T>(me, i, 300 + static_cast<int>(s));
    BOOST_CHECK_EQUAL(dart_put_blocking(at(segs[s], right, sizeof(T)), src.data(), count, DART_TYPE_ULONGLONG,
                                        DART_TYPE_ULONGLONG),
                      DART_OK);
  }
  barrier();
  for (std::size_t s = 0; s < kSegs; ++s) {
    const std::size_t portion = bytes[s] / sizeof(T);
    const int salt = 300 + static_cast<int>(s);
    auto expect = [&](int owner, int writer) {
      return [=](std::size_t i) {
        return (i == 0 || i == portion - 1) ? sentinel<T>(owner, i, salt) : pattern<T>(writer, i - 1, salt);
      };
    };
    const T* mine = static_cast<T*>(addr_of(at(segs[s], me, 0), me, "chunk test"));
    const std::string what = "segment #" + std::to_string(s) + " (" + std::to_string(bytes[s]) + " bytes)";
    if (mine) verify(mine, portion, expect(me, left), me, what + ": own portion");
    std::vector<T> got(portion);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(segs[s], left, 0), portion, DART_TYPE_ULONGLONG,
                                        DART_TYPE_ULONGLONG),
                      DART_OK);
    verify(got.data(), portion, expect(left, (left + n - 1) % n), me, what + ": left neighbour's portion");
  }
  barrier();
  for (std::size_t s : {2, 0, 4, 1, 3}) BOOST_CHECK_EQUAL(dart_team_memfree(segs[s]), DART_OK);
}

BOOST_AUTO_TEST_CASE(ring_put_get_64mib) {
  // 64 MiB per unit: a dedicated chunk, and transfers far larger than any
  // internal buffer. Data are 64-bit words moved as DART_TYPE_BYTE.
  constexpr std::size_t kBytes = std::size_t(64) << 20;
  constexpr std::size_t kWords = kBytes / 8;
  using W = unsigned long long;
  dart_gptr_t g = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, kBytes, DART_TYPE_BYTE, &g), DART_OK);
  check_collective_gptr(g, me, "64 MiB allocation");
  {
    std::vector<W> src(kWords);
    for (std::size_t i = 0; i < kWords; ++i) src[i] = pattern<W>(me, i, 400);
    BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 0), src.data(), kBytes, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_OK);
  }
  barrier();
  const W* mine = static_cast<W*>(addr_of(at(g, me, 0), me, "64 MiB portion"));
  BOOST_CHECK(mine != nullptr);
  if (mine)
    verify(mine, kWords, [&](std::size_t i) { return pattern<W>(left, i, 400); }, me,
           "own 64 MiB portion after the left neighbour's put");
  {
    std::vector<W> got(kWords, 0);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, left, 0), kBytes, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_OK);
    verify(got.data(), kWords, [&](std::size_t i) { return pattern<W>((left + n - 1) % n, i, 400); }, me,
           "left neighbour's 64 MiB portion");
  }
  barrier();
  BOOST_CHECK_EQUAL(dart_team_memfree(g), DART_OK);
}

// ---- 9. dart_flush -----------------------------------------------------------

BOOST_AUTO_TEST_CASE(flush_on_valid_gptrs) {
  dart_gptr_t heap = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_INT, &heap), DART_OK);
  dart_gptr_t local = DART_GPTR_NULL;
  BOOST_REQUIRE_EQUAL(dart_memalloc(64, DART_TYPE_INT, &local), DART_OK);
  std::vector<int> buf(64, me);
  dart_gptr_t reg = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, 64, DART_TYPE_INT, buf.data(), &reg);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_team_memregister_aligned returned " << rc);
  const bool have_reg = mpitest::all_ranks(rc == DART_OK);  // else the registered part is skipped
  const std::vector<dart_gptr_t> locals = allgather(local);

  const int v = pattern<int>(me, 0, 501);
  BOOST_CHECK_EQUAL(dart_put_blocking(at(heap, right, 4), &v, 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
  if (have_reg) BOOST_CHECK_EQUAL(dart_put_blocking(at(reg, right, 4), &v, 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
  for (int unit : {me, right}) {
    BOOST_CHECK_EQUAL(dart_flush(at(heap, unit, 0)), DART_OK);
    BOOST_CHECK_EQUAL(dart_flush(at(heap, unit, 12)), DART_OK);
    if (have_reg) BOOST_CHECK_EQUAL(dart_flush(at(reg, unit, 0)), DART_OK);
    BOOST_CHECK_EQUAL(dart_flush(locals[static_cast<std::size_t>(unit)]), DART_OK);
  }
  BOOST_CHECK_EQUAL(dart_flush(heap), DART_OK);
  barrier();
  int back = -1;
  BOOST_CHECK_EQUAL(dart_get_blocking(&back, at(heap, me, 4), 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
  BOOST_CHECK_MESSAGE(back == pattern<int>(left, 0, 501), "rank " << me << ": heap element after put+flush wrong");
  if (have_reg)
    BOOST_CHECK_MESSAGE(buf[1] == pattern<int>(left, 0, 501),
                        "rank " << me << ": registered element after put+flush wrong");
  barrier();
  BOOST_CHECK_EQUAL(dart_team_memderegister(reg), DART_OK);
  BOOST_CHECK_EQUAL(dart_memfree(local), DART_OK);
  BOOST_CHECK_EQUAL(dart_team_memfree(heap), DART_OK);
}

BOOST_AUTO_TEST_SUITE_END()
