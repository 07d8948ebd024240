// Global memory of DART (dart_globmem.h) on DART_TEAM_ALL, second half of
// the dart_globmem executable (after test_globmem.cpp): dart_memalloc /
// dart_memfree (local blocks every unit can reach, fragmentation), team
// registration (per-unit sizes, zero, aligned and equal sizes), the
// dart_allocator pool, neighbour-ring transfers of every size and type,
// across heap chunks and of 64 MiB, and dart_flush on valid gptrs.
// Not covered here: non-blocking and handle-based transfers, atomics, teams
// other than DART_TEAM_ALL, invalid-argument error codes (test_bad_input.cpp),
// init/exit behaviour (test_init.cpp), thread safety, and real multi-node runs
// (the .rma variants only force the MPI RMA path with DART_SHARED_MEMORY=0).
#include "globmem_common.hpp"

using namespace globmemtest;

BOOST_FIXTURE_TEST_SUITE(globmem, DartFixture)

// ---- 5. dart_memalloc / dart_memfree ------------------------------------------

BOOST_AUTO_TEST_CASE(memalloc_local_blocks_accessible_everywhere) {
  // Shape and alignment of the returned pointers.
  std::vector<std::string> misaligned;  // "nelem x TYPE @ address"
  for (const BasicType& bt : kBasicTypes) {
    for (std::size_t nelem : {std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{1000}}) {
      dart_gptr_t g = DART_GPTR_NULL;
      BOOST_CHECK_EQUAL(dart_memalloc(nelem, bt.type, &g), DART_OK);
      BOOST_CHECK_MESSAGE(g.teamid == DART_TEAM_ALL && g.segid == DART_SEGMENT_LOCAL && g.unitid == me && g.flags == 0,
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
    verify(
        got.data(), kN, [&](std::size_t i) { return pattern<double>(u, i, 61); }, me,
        "unit " + std::to_string(u) + "'s dart_memalloc block");
    // A part in the middle, through an incremented gptr.
    dart_gptr_t mid = b;
    dart_gptr_incaddr(&mid, 10 * sizeof(double));
    std::fill(got.begin(), got.end(), -1.0);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), mid, 20, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE), DART_OK);
    verify(
        got.data(), 20, [&](std::size_t i) { return pattern<double>(u, i + 10, 61); }, me,
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
  BOOST_CHECK_EQUAL(
      dart_put_blocking(blocks[static_cast<std::size_t>(right)], src.data(), kN, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE),
      DART_OK);
  barrier();
  verify(
      mine, kN, [&](std::size_t i) { return pattern<double>(left, i, 62); }, me,
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
  BOOST_CHECK_MESSAGE(rc == DART_OK,
                      "rank " << me << ": dart_team_memregister of " << nl_of(me) << " ints returned " << rc);
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
  BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, right, 0), got.size(), DART_TYPE_INT, DART_TYPE_INT), DART_OK);
  verify(
      got.data(), got.size(), [&](std::size_t i) { return pattern<int>(right, i, 81); }, me,
      "right neighbour's registered buffer");
  if (nl_of(right) > 2) {
    int v = -1;
    BOOST_CHECK_EQUAL(dart_get_blocking(&v, at(g, right, 2 * sizeof(int)), 1, DART_TYPE_INT, DART_TYPE_INT), DART_OK);
    BOOST_CHECK_MESSAGE(v == pattern<int>(right, 2, 81),
                        "rank " << me << ": element 2 of unit " << right << "'s registered buffer is wrong");
  }
  barrier();
  // ... and writable; the owner sees the change in its own buffer.
  std::vector<int> src(nl_of(right));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<int>(me, i, 82);
  BOOST_CHECK_EQUAL(dart_put_blocking(at(g, right, 0), src.data(), src.size(), DART_TYPE_INT, DART_TYPE_INT), DART_OK);
  barrier();
  verify(
      buf.data(), buf.size(), [&](std::size_t i) { return pattern<int>(left, i, 82); }, me,
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
  verify(
      buf.data(), buf.size(), [&](std::size_t i) { return pattern<int>(left, i, 82); }, me,
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
  verify(
      got.data(), kN, [&](std::size_t i) { return pattern<double>(right, i, 91); }, me,
      "right neighbour's aligned registration");
  barrier();

  // The right neighbour's elements [100, 600) are overwritten.
  std::vector<double> src(500);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<double>(me, i, 92);
  BOOST_CHECK_EQUAL(
      dart_put_blocking(at(g, right, 100 * sizeof(double)), src.data(), src.size(), DART_TYPE_DOUBLE, DART_TYPE_DOUBLE),
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
      verify(
          p, kSizes[b], [&](std::size_t i) { return pattern<long>(left, i, 101 + static_cast<int>(b)); }, me,
          "allocator block #" + std::to_string(b) + " after the left neighbour's put");
    std::vector<long> got(kSizes[b], -1);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), all[static_cast<std::size_t>(left) * 3 + b], kSizes[b],
                                        DART_TYPE_LONG, DART_TYPE_LONG),
                      DART_OK);
    verify(
        got.data(), kSizes[b],
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
      verify(
          p, kEdge, [&](std::size_t i) { return pattern<unsigned char>(left, i, 111); }, me,
          "first 4 KiB of the whole pool block");
      verify(
          p + kRounded - kEdge, kEdge, [&](std::size_t i) { return pattern<unsigned char>(left, i, 112); }, me,
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
  const std::size_t bytes[] = {std::size_t(6) << 20, std::size_t(6) << 20, std::size_t(6) << 20, std::size_t(8) << 20,
                               (std::size_t(8) << 20) + 8};
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
    BOOST_CHECK_EQUAL(
        dart_put_blocking(at(segs[s], right, sizeof(T)), src.data(), count, DART_TYPE_ULONGLONG, DART_TYPE_ULONGLONG),
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
    BOOST_CHECK_EQUAL(
        dart_get_blocking(got.data(), at(segs[s], left, 0), portion, DART_TYPE_ULONGLONG, DART_TYPE_ULONGLONG),
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
    verify(
        mine, kWords, [&](std::size_t i) { return pattern<W>(left, i, 400); }, me,
        "own 64 MiB portion after the left neighbour's put");
  {
    std::vector<W> got(kWords, 0);
    BOOST_CHECK_EQUAL(dart_get_blocking(got.data(), at(g, left, 0), kBytes, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_OK);
    verify(
        got.data(), kWords, [&](std::size_t i) { return pattern<W>((left + n - 1) % n, i, 400); }, me,
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
