// Global memory of DART (dart_globmem.h) on DART_TEAM_ALL, first half of
// the dart_globmem executable (test_globmem_local.cpp has the rest): the
// unit/size queries against MPI; collective team allocation (identical
// gptrs, alignment, every basic type, zero and differing contributions,
// segment-id recycling beyond 2^16 allocations, many live segments freed
// out of order); and the gptr helpers (getaddr/setaddr/incaddr/setunit/
// getflags/setflags, DART_GPTR_EQUAL/ISNULL). Data go through the blocking
// dart_put_blocking / dart_get_blocking in a neighbour ring, with values that
// depend on writer, element and case (dart_patterns.hpp), so lost,
// duplicated or misplaced data is caught.
// Not covered here: non-blocking and handle-based transfers, atomics, teams
// other than DART_TEAM_ALL, invalid-argument error codes (test_bad_input.cpp),
// init/exit behaviour (test_init.cpp), thread safety, and real multi-node runs
// (the .rma variants only force the MPI RMA path with DART_SHARED_MEMORY=0).
#include "globmem_common.hpp"

using namespace globmemtest;

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
      BOOST_CHECK_MESSAGE(
          edge[0] == pattern<unsigned char>(right, 0, salt) &&
              edge[1] == pattern<unsigned char>(right, portion - 1, salt),
          "rank " << me << ": " << what.str() << ": first/last byte of unit " << right << "'s portion read wrong");
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
        verify(
            mine, nelem_of(me), [&](std::size_t i) { return pattern<int>(left, i, 21); }, me,
            "zero-contribution segment: own portion after the left neighbour's put");
    }
    if (nelem_of(right) > 0) {
      std::vector<int> got(nelem_of(right), -1);
      BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, right, 0), got.size(), DART_TYPE_INT, DART_TYPE_INT),
                        DART_OK);
      verify(
          got.data(), got.size(), [&](std::size_t i) { return pattern<int>(me, i, 21); }, me,
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
      verify(
          mine, nelem_of(me), [&](std::size_t i) { return pattern<double>(left, i, 23); }, me,
          "differing-size segment: own portion after the left neighbour's put");
    std::vector<double> got(nelem_of(left));
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, left, 0), got.size(), DART_TYPE_DOUBLE, DART_TYPE_DOUBLE),
                      DART_OK);
    verify(
        got.data(), got.size(), [&](std::size_t i) { return pattern<double>((left + n - 1) % n, i, 23); }, me,
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
                      "rank " << me << ": " << cycles << " alloc/free cycles: " << alloc_failures << " allocations and "
                              << free_failures << " frees failed, " << zero_ids
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
    BOOST_CHECK_MESSAGE(!has_zero && distinct, "rank " << me << ": " << when << ": live segment ids are "
                                                       << (has_zero ? "zero for some" : "not pairwise distinct"));
  };
  // Every unit writes segment-specific data into its right neighbour's
  // portion of each listed segment.
  auto write_ring = [&](const std::vector<std::size_t>& which, int salt) {
    for (std::size_t s : which) {
      std::vector<long> src(nelem_of(s));
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<long>(me, i + 16 * s, salt);
      BOOST_CHECK_EQUAL(
          dart_put_blocking(at(segs[s], right, 0), src.data(), src.size(), DART_TYPE_LONG, DART_TYPE_LONG), DART_OK);
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
    BOOST_CHECK_MESSAGE(p == reinterpret_cast<char*>(base) + k, "rank " << me << ": getaddr at offset " << k << " gave "
                                                                        << p << ", expected base "
                                                                        << static_cast<void*>(base) << " + " << k);
  }

  // Writes through the address are what other units read by RMA.
  for (std::size_t i = 0; i < kN; ++i) base[i] = pattern<int>(me, i, 51);
  barrier();
  std::vector<int> got(kN, 0);
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g0, left, 0), kN, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
  verify(
      got.data(), kN, [&](std::size_t i) { return pattern<int>(left, i, 51); }, me,
      "left neighbour's portion, written through its dart_gptr_getaddr address");

  // Another unit's portion: DART_OK and NULL, even where it is reachable.
  if (n > 1) {
    void* p = reinterpret_cast<void*>(std::uintptr_t{1});
    const dart_gptr_t other = at(g0, right, 0);
    BOOST_CHECK_EQUAL(dart_gptr_getaddr(other, &p), DART_OK);
    BOOST_CHECK_MESSAGE(p == nullptr, "rank " << me << ": dart_gptr_getaddr of unit " << right << "'s portion gave "
                                              << p << " instead of NULL");
  }

  // setaddr is the inverse of getaddr; it changes only the offset.
  for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{123}, std::uint64_t{(kN - 1) * 4}}) {
    for (int unit : {0, me}) {
      dart_gptr_t g = at(g0, unit, 4);  // starts at some other offset
      BOOST_CHECK_EQUAL(dart_gptr_setaddr(&g, reinterpret_cast<char*>(base) + k), DART_OK);
      BOOST_CHECK_MESSAGE(
          g.addr_or_offs.offset == k && g.unitid == unit && g.segid == g0.segid && g.teamid == g0.teamid,
          "rank " << me << ": setaddr(base + " << k << ") on " << str(at(g0, unit, 4)) << " gave " << str(g));
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
    BOOST_CHECK_MESSAGE(
        g.unitid == right && g.segid == g0.segid && g.teamid == g0.teamid && g.addr_or_offs.offset == 8 && g.flags == 0,
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
  BOOST_CHECK_MESSAGE(
      fl == 0, "rank " << me << ": new segment " << g1.segid << " (old " << g0.segid << ") starts with flags " << fl);
  BOOST_CHECK_EQUAL(g1.flags, 0u);
  BOOST_CHECK_EQUAL(dart_team_memfree(g1), DART_OK);
}

BOOST_AUTO_TEST_SUITE_END()
