// Memory exhaustion is an error, never a hang or a crash: a dart_memalloc
// larger than the node can back fails with DART_ERR_NOMEM on its unit; a
// team allocation (or allocator pool) fails on every unit, whether every
// unit or only one asks for the large size; and the runtime stays usable: a
// normal allocation afterwards works and carries data around the ring.
#include "dart_checks.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

using dartcheck::raw_at;

// More than this machine's memory and swap together, per unit.
std::size_t beyond_memory() {
  unsigned long long total_kib = 0, kib = 0;
  char key[64];
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    while (std::fscanf(f, "%63s %llu kB", key, &kib) == 2)
      if (std::strcmp(key, "MemTotal:") == 0 || std::strcmp(key, "SwapTotal:") == 0) total_kib += kib;
    std::fclose(f);
  }
  return static_cast<std::size_t>(total_kib) * 1024 + (std::size_t{1} << 30);
}

// A normal allocation works and a ring of puts through it arrives.
void runtime_still_usable(int me, int n) {
  dart_gptr_t g = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &g));
  const int v = 1000 + me;
  CHECK_OK(dart_put_blocking(raw_at(g, (me + 1) % n), &v, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  int got = -1;
  CHECK_OK(dart_get_blocking(&got, raw_at(g, me), 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_EQ(got, 1000 + (me + n - 1) % n);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(g));
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(exhaustion, dartcheck::DartFixture)

BOOST_AUTO_TEST_CASE(team_allocation_beyond_memory_on_every_unit) {
  const std::size_t huge = beyond_memory();
  dart_gptr_t g = DART_GPTR_NULL;
  {
    dartcheck::QuietDart quiet;
    CHECK_EQ(dart_team_memalloc_aligned(DART_TEAM_ALL, huge, DART_TYPE_BYTE, &g), DART_ERR_NOMEM);
  }
  CHECK_RANK(DART_GPTR_ISNULL(g));
  runtime_still_usable(me, n);
}

BOOST_AUTO_TEST_CASE(local_allocation_beyond_memory) {
  // dart_memalloc is local: each unit learns it alone, at once.
  dart_gptr_t g = DART_GPTR_NULL;
  {
    dartcheck::QuietDart quiet;
    CHECK_EQ(dart_memalloc(beyond_memory(), DART_TYPE_BYTE, &g), DART_ERR_NOMEM);
  }
  CHECK_RANK(DART_GPTR_ISNULL(g));
  // Memory beyond the pool is still there for a request the node can back.
  REQUIRE_OK(dart_memalloc(std::size_t(64) << 20, DART_TYPE_BYTE, &g));
  CHECK_OK(dart_memfree(g));
  runtime_still_usable(me, n);
}

BOOST_AUTO_TEST_CASE(team_allocation_beyond_memory_on_one_unit) {
  const std::size_t bytes = me == 0 ? beyond_memory() : 64;
  dart_gptr_t g = DART_GPTR_NULL;
  {
    dartcheck::QuietDart quiet;
    CHECK_EQ(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &g), DART_ERR_NOMEM);
  }
  CHECK_RANK(DART_GPTR_ISNULL(g));
  runtime_still_usable(me, n);
}

BOOST_AUTO_TEST_CASE(allocator_pool_beyond_memory) {
  dart_allocator_t alloc = nullptr;
  {
    dartcheck::QuietDart quiet;
    CHECK_EQ(dart_allocator_new(beyond_memory(), DART_TEAM_ALL, &alloc), DART_ERR_NOMEM);
  }
  CHECK_RANK(alloc == nullptr);
  runtime_still_usable(me, n);
}

BOOST_AUTO_TEST_SUITE_END()
