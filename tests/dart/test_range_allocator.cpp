// The allocator of byte ranges (dart/src/memory/range_allocator.hpp) in one
// process, without MPI: first fit and alignment, the granule, coalescing
// on release (so freed memory can be allocated whole again), double and
// stray releases, resizing in place (growing into the free range after a
// block, refused when a neighbour is in the way, shrinking), the bytes in
// use, reset, requests beyond the capacity, and determinism (two
// allocators given the same calls give the same offsets, which is what
// makes a symmetric heap symmetric). Not covered: the callers' locking,
// which the MPI suites exercise.
#define BOOST_TEST_MODULE range_allocator
#include <boost/test/unit_test.hpp>

#include "range_allocator.hpp"

#include <cstddef>
#include <optional>
#include <vector>

using dart::RangeAllocator;

BOOST_AUTO_TEST_CASE(first_fit_and_alignment) {
  RangeAllocator a(1024);
  const auto x = a.allocate(10, 1);
  const auto y = a.allocate(10, 64);
  BOOST_REQUIRE(x && y);
  BOOST_TEST(*x == 0u);
  BOOST_TEST(*y == 64u);
  // The gap [10, 64) left by the alignment is free and taken first.
  const auto z = a.allocate(54, 1);
  BOOST_REQUIRE(z);
  BOOST_TEST(*z == 10u);
  BOOST_TEST(a.in_use() == 74u);
}

BOOST_AUTO_TEST_CASE(granule_rounds_every_block) {
  RangeAllocator a(1024, 64);
  const auto x = a.allocate(1, 64);
  const auto y = a.allocate(65, 64);
  BOOST_REQUIRE(x && y);
  BOOST_TEST(*x == 0u);
  BOOST_TEST(*y == 64u);
  BOOST_TEST(*a.block_size(*y) == 128u);
  BOOST_TEST(a.in_use() == 192u);
  // 1000 bytes round to 1024, more than the 832 left.
  BOOST_TEST(!a.allocate(1000, 64));
}

BOOST_AUTO_TEST_CASE(release_coalesces_and_refuses_strays) {
  RangeAllocator a(300);
  std::vector<std::size_t> offs;
  for (int i = 0; i < 3; ++i) offs.push_back(*a.allocate(100, 1));
  BOOST_TEST(!a.allocate(1, 1));
  // Free the middle, then its neighbours: one free range again.
  BOOST_TEST(a.release(offs[1]));
  BOOST_TEST(a.release(offs[0]));
  BOOST_TEST(a.release(offs[2]));
  BOOST_TEST(a.empty());
  BOOST_TEST(a.in_use() == 0u);
  const auto whole = a.allocate(300, 1);
  BOOST_REQUIRE(whole);
  BOOST_TEST(*whole == 0u);
  BOOST_TEST(a.release(0));
  BOOST_TEST(!a.release(0));   // double free
  BOOST_TEST(!a.release(7));   // never allocated
  BOOST_TEST(!a.block_size(7));
}

BOOST_AUTO_TEST_CASE(resize_in_place) {
  RangeAllocator a(1024, 64);
  const std::size_t x = *a.allocate(64, 64);
  // Grows into the free range after it.
  BOOST_TEST(a.resize(x, 200));
  BOOST_TEST(*a.block_size(x) == 256u);
  BOOST_TEST(a.in_use() == 256u);
  const std::size_t y = *a.allocate(64, 64);
  BOOST_TEST(y == 256u);
  // y is in the way now: nothing changes.
  BOOST_TEST(!a.resize(x, 300));
  BOOST_TEST(*a.block_size(x) == 256u);
  // Shrinking gives the tail back, merged with nothing (y follows it).
  BOOST_TEST(a.resize(x, 64));
  BOOST_TEST(*a.block_size(x) == 64u);
  BOOST_TEST(a.in_use() == 128u);
  const auto tail = a.allocate(192, 64);
  BOOST_REQUIRE(tail);
  BOOST_TEST(*tail == 64u);
  BOOST_TEST(!a.resize(999, 64));  // no block there
  BOOST_TEST(!a.resize(x, 0));
}

BOOST_AUTO_TEST_CASE(capacity_limits_and_reset) {
  RangeAllocator a;
  BOOST_TEST(a.capacity() == 0u);
  BOOST_TEST(!a.allocate(1, 1));
  a.reset(4096);
  BOOST_TEST(!a.allocate(0, 1));
  BOOST_TEST(!a.allocate(4097, 1));
  BOOST_TEST(!a.allocate(static_cast<std::size_t>(-1), 1));
  const auto x = a.allocate(4096, 4096);
  BOOST_REQUIRE(x);
  BOOST_TEST(*x == 0u);
  a.reset(128);
  BOOST_TEST(a.empty());
  BOOST_TEST(a.in_use() == 0u);
  BOOST_TEST(a.capacity() == 128u);
  BOOST_TEST(*a.allocate(128, 1) == 0u);
}

BOOST_AUTO_TEST_CASE(same_calls_same_offsets) {
  RangeAllocator a(1 << 20, 64), b(1 << 20, 64);
  std::vector<std::size_t> live;
  for (std::size_t i = 1; i < 200; ++i) {
    const auto x = a.allocate(i * 37, std::size_t(64) << (i % 4));
    const auto y = b.allocate(i * 37, std::size_t(64) << (i % 4));
    BOOST_REQUIRE(x && y);
    BOOST_TEST(*x == *y);
    live.push_back(*x);
    if (i % 3 == 0) {
      const std::size_t victim = live[(i * 7) % live.size()];
      BOOST_TEST(a.release(victim) == b.release(victim));
    }
  }
  BOOST_TEST(a.in_use() == b.in_use());
}
