// dart_memalloc has no cap: with default settings (a 16 MiB pool) it serves
// 32 MiB and 1 GiB blocks, which the right neighbour reads and writes (by
// load/store on the node, by RMA with DART_SHARED_MEMORY=0) and every unit
// updates atomically; freed memory beyond the pool is reused; pointers that
// name memory beyond the pool that does not exist are rejected.
#include "dart_checks.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

#include <sys/statvfs.h>

namespace {

using dartcheck::raw_at;

constexpr std::size_t kMiB = std::size_t(1) << 20;

// Every unit's pointer, in unit order.
std::vector<dart_gptr_t> allgather(const dart_gptr_t& mine, int n) {
  std::vector<dart_gptr_t> all(static_cast<std::size_t>(n));
  REQUIRE_OK(dart_allgather(&mine, all.data(), sizeof mine, DART_TYPE_BYTE, DART_TEAM_ALL));
  return all;
}

unsigned char pattern(int unit, std::size_t i, int salt) {
  return static_cast<unsigned char>((unit * 131 + i * 7 + salt) & 0xff);
}

// Offsets of the regions checked in a block of `bytes`: its start, middle
// and end, `span` bytes each.
std::vector<std::size_t> regions(std::size_t bytes, std::size_t span) {
  return {0, (bytes / 2) & ~std::size_t(63), bytes - span};
}

// Allocates `bytes` on every unit; the owner fills three regions, the right
// neighbour reads them and writes its own pattern into a fourth place of
// each, which the owner then finds in place.
void neighbour_reads_and_writes(int me, int n, std::size_t bytes) {
  dart_gptr_t mine = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(bytes, DART_TYPE_BYTE, &mine));
  void* addr = nullptr;
  REQUIRE_OK(dart_gptr_getaddr(mine, &addr));
  REQUIRE_RANK(addr != nullptr);
  auto* p = static_cast<unsigned char*>(addr);
  const std::size_t span = 64 * 1024;
  for (std::size_t r : regions(bytes, span))
    for (std::size_t i = 0; i < span / 2; ++i) p[r + i] = pattern(me, r + i, 1);
  const std::vector<dart_gptr_t> all = allgather(mine, n);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  const int left = (me + n - 1) % n;
  const dart_gptr_t theirs = all[static_cast<std::size_t>(left)];
  std::vector<unsigned char> buf(span / 2);
  std::size_t bad = 0;
  for (std::size_t r : regions(bytes, span)) {
    CHECK_OK(dart_get_blocking(buf.data(), raw_at(theirs, left, r), span / 2, DART_TYPE_BYTE, DART_TYPE_BYTE));
    for (std::size_t i = 0; i < span / 2; ++i) bad += buf[i] != pattern(left, r + i, 1);
    for (std::size_t i = 0; i < span / 2; ++i) buf[i] = pattern(me, r + span / 2 + i, 2);
    CHECK_OK(
        dart_put_blocking(raw_at(theirs, left, r + span / 2), buf.data(), span / 2, DART_TYPE_BYTE, DART_TYPE_BYTE));
  }
  CHECK_EQ(bad, std::size_t{0});
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  const int right = (me + 1) % n;
  bad = 0;
  for (std::size_t r : regions(bytes, span))
    for (std::size_t i = 0; i < span / 2; ++i) bad += p[r + span / 2 + i] != pattern(right, r + span / 2 + i, 2);
  CHECK_EQ(bad, std::size_t{0});
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_memfree(mine));
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(local_memory, dartcheck::DartFixture)

BOOST_AUTO_TEST_CASE(block_of_32_mib_with_default_settings) { neighbour_reads_and_writes(me, n, 32 * kMiB); }

BOOST_AUTO_TEST_CASE(block_of_1_gib_with_default_settings) {
  // 1 GiB per unit where /dev/shm holds twice that for every unit; a
  // smaller host (the containers of the cross-host rig) gets the largest
  // power of two that fits, and says so.
  std::size_t bytes = 1024 * kMiB;
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0) {
    const std::size_t room = static_cast<std::size_t>(fs.f_bavail) * fs.f_frsize / static_cast<std::size_t>(n);
    while (bytes > 32 * kMiB && 2 * bytes > room) bytes /= 2;
  }
  if (bytes != 1024 * kMiB)
    BOOST_TEST_MESSAGE("rank " << me << ": /dev/shm is small here; " << bytes / kMiB << " MiB per unit");
  neighbour_reads_and_writes(me, n, bytes);
}

BOOST_AUTO_TEST_CASE(many_blocks_beyond_the_pool_keep_their_data) {
  // 48 blocks of 1 MiB fill the pool and go on into new memory; each keeps
  // its own contents, seen by the neighbour.
  constexpr int kBlocks = 48;
  std::vector<dart_gptr_t> blocks(kBlocks);
  for (int b = 0; b < kBlocks; ++b) {
    REQUIRE_OK(dart_memalloc(kMiB, DART_TYPE_BYTE, &blocks[b]));
    void* a = nullptr;
    REQUIRE_OK(dart_gptr_getaddr(blocks[b], &a));
    REQUIRE_RANK(a != nullptr);
    std::memset(a, 0x40 + b, kMiB);
  }
  std::vector<dart_gptr_t> all(static_cast<std::size_t>(n) * kBlocks);
  REQUIRE_OK(dart_allgather(blocks.data(), all.data(), sizeof(dart_gptr_t) * kBlocks, DART_TYPE_BYTE, DART_TEAM_ALL));
  std::size_t bad = 0;
  for (int b = 0; b < kBlocks; ++b) {
    unsigned char first = 0, last = 0;
    const dart_gptr_t g = all[static_cast<std::size_t>(left) * kBlocks + b];
    CHECK_OK(dart_get_blocking(&first, g, 1, DART_TYPE_BYTE, DART_TYPE_BYTE));
    CHECK_OK(dart_get_blocking(&last, raw_at(g, left, kMiB - 1), 1, DART_TYPE_BYTE, DART_TYPE_BYTE));
    bad += (first != 0x40 + b) + (last != 0x40 + b);
  }
  CHECK_EQ(bad, std::size_t{0});
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  for (auto& g : blocks) CHECK_OK(dart_memfree(g));
}

BOOST_AUTO_TEST_CASE(freed_memory_beyond_the_pool_is_reused) {
  // A block larger than the pool, freed, and asked for again, comes back
  // at the same place, many times over: no memory grows.
  dart_gptr_t first = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(24 * kMiB, DART_TYPE_BYTE, &first));
  CHECK_OK(dart_memfree(first));
  for (int i = 0; i < 50; ++i) {
    dart_gptr_t again = DART_GPTR_NULL;
    REQUIRE_OK(dart_memalloc(24 * kMiB, DART_TYPE_BYTE, &again));
    CHECK_EQ(again.addr_or_offs.offset, first.addr_or_offs.offset);
    CHECK_OK(dart_memfree(again));
  }
}

BOOST_AUTO_TEST_CASE(atomics_on_memory_beyond_the_pool) {
  // Unit 0's counter lies past its pool; every unit adds to it and swaps it.
  dart_gptr_t block = DART_GPTR_NULL;
  if (me == 0) REQUIRE_OK(dart_memalloc(32 * kMiB, DART_TYPE_BYTE, &block));
  REQUIRE_OK(dart_bcast(&block, sizeof block, DART_TYPE_BYTE, dart_team_unit_t{0}, DART_TEAM_ALL));
  const dart_gptr_t counter = raw_at(block, 0, 32 * kMiB - 8);
  if (me == 0) {
    const long long zero = 0;
    CHECK_OK(dart_put_blocking(counter, &zero, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  constexpr int kAdds = 200;
  const long long one = 1;
  for (int i = 0; i < kAdds; ++i) {
    long long old = -1;
    CHECK_OK(dart_fetch_and_op(counter, &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM));
  }
  CHECK_OK(dart_flush_all(counter));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  long long total = -1;
  CHECK_OK(dart_get_blocking(&total, counter, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  CHECK_EQ(total, static_cast<long long>(kAdds) * n);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  // Each unit in turn swaps the value it expects for the next one.
  for (int turn = 0; turn < n; ++turn) {
    if (turn == me) {
      const long long expect = static_cast<long long>(kAdds) * n + me, next = expect + 1;
      long long old = -1;
      CHECK_OK(dart_compare_and_swap(counter, &next, &expect, &old, DART_TYPE_LONGLONG));
      CHECK_OK(dart_flush(counter));  // the result is valid after the flush
      CHECK_EQ(old, expect);
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
  }
  CHECK_OK(dart_get_blocking(&total, counter, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  CHECK_EQ(total, static_cast<long long>(kAdds) * n + n);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) CHECK_OK(dart_memfree(block));
}

BOOST_AUTO_TEST_CASE(pointers_to_memory_that_does_not_exist_are_rejected) {
  dart_gptr_t block = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(20 * kMiB, DART_TYPE_BYTE, &block));
  const std::uint64_t extent_bit = block.addr_or_offs.offset & ~((std::uint64_t(1) << 40) - 1);
  CHECK_RANK(extent_bit != 0);  // past the pool
  long long v = 7;
  {
    dartcheck::QuietDart quiet;
    // Not the start of a block.
    CHECK_EQ(dart_memfree(raw_at(block, me, 8)), DART_ERR_INVAL);
    // An extent this unit never made.
    dart_gptr_t none = block;
    none.addr_or_offs.offset = std::uint64_t(9) << 40;
    CHECK_EQ(dart_put_blocking(none, &v, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG), DART_ERR_INVAL);
    // The neighbour's, which it never made either.
    CHECK_EQ(dart_get_blocking(&v, raw_at(none, (me + 1) % n), 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG),
             DART_ERR_INVAL);
    // Past the end of the extent.
    dart_gptr_t past = block;
    past.addr_or_offs.offset = extent_bit + (std::uint64_t(1) << 39);
    CHECK_EQ(dart_put_blocking(past, &v, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG), DART_ERR_INVAL);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_memfree(block));
  {
    dartcheck::QuietDart quiet;
    CHECK_EQ(dart_memfree(block), DART_ERR_INVAL);  // twice
  }
}

BOOST_AUTO_TEST_SUITE_END()
