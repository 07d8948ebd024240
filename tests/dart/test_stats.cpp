// Path counters (dash/dart/ext/dart_stats.h): a put, a get, a fetch-and-op
// and a flush aimed at the right neighbour are counted on the load/store
// path when units share memory (DART_SHARED_MEMORY unset) and on the MPI
// path otherwise (the .rma variant); reset zeroes them; bad input fails.
#include "dart_checks.hpp"

#include <dash/dart/ext/dart_stats.h>

#include <cstdlib>
#include <cstring>

BOOST_FIXTURE_TEST_SUITE(stats, dartcheck::DartFixture)

BOOST_AUTO_TEST_CASE(counters_show_the_path) {
  const char* shm = std::getenv("DART_SHARED_MEMORY");
  const bool load_store = !shm || std::strcmp(shm, "0") != 0;
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_LONG, &seg));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_stats_reset());
  dart_gptr_t right = seg;
  right.unitid = (me + 1) % n;
  long v = me, got = -1, old = -1;
  const long one = 1;
  CHECK_OK(dart_put_blocking(right, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_get_blocking(&got, right, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  dart_gptr_t counter = right;
  counter.addr_or_offs.offset = 8 * sizeof(long);
  CHECK_OK(dart_fetch_and_op(counter, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
  CHECK_OK(dart_flush(counter));
  dart_stats_t s;
  std::memset(&s, 0xff, sizeof s);
  CHECK_OK(dart_stats_get(&s));
  if (load_store) {
    CHECK_EQ(s.local_puts, 1u);
    CHECK_EQ(s.local_gets, 1u);
    CHECK_EQ(s.local_bytes, 2 * sizeof(long));
    CHECK_EQ(s.rma_puts + s.rma_gets + s.rma_bytes, 0u);
    CHECK_EQ(s.cpu_atomics, 1u);
    CHECK_EQ(s.rma_atomics, 0u);
    CHECK_EQ(s.mpi_flushes, 0u);
    CHECK_EQ(s.skipped_flushes, 1u);
  } else {
    CHECK_EQ(s.rma_puts, 1u);
    CHECK_EQ(s.rma_gets, 1u);
    CHECK_EQ(s.rma_bytes, 2 * sizeof(long));
    CHECK_EQ(s.local_puts + s.local_gets + s.local_bytes, 0u);
    CHECK_EQ(s.rma_atomics, 1u);
    CHECK_EQ(s.cpu_atomics, 0u);
    CHECK_EQ(s.mpi_flushes, 1u);
  }
  CHECK_EQ(s.emulated_atomics, 0u);
  CHECK_OK(dart_stats_reset());
  CHECK_OK(dart_stats_get(&s));
  CHECK_EQ(s.local_puts + s.rma_puts + s.cpu_atomics + s.rma_atomics + s.mpi_flushes + s.skipped_flushes, 0u);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(seg));
  dartcheck::QuietDart quiet;
  CHECK_EQ(dart_stats_get(nullptr), DART_ERR_INVAL);
}

BOOST_AUTO_TEST_SUITE_END()
