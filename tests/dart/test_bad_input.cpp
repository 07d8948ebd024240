// Invalid input to DART's init and query calls, global memory, blocking
// put/get, barrier and flush: for every bad input the exact return code,
// and exactly one stderr line "[dart unit <R>] <call>: error: <reason>"
// (captured by redirecting fd 2 around the single call); never a crash or
// a hang, also when the input is bad on one rank of a collective
// allocation only. Also: calls before dart_init / after dart_exit, and that
// DART_LOG_LEVEL=OFF and dart_config()->log_enabled = 0 silence the lines,
// and that bad values of configuration variables warn and are ignored.
// Not covered: the behaviour of valid calls (test_init.cpp,
// test_globmem*.cpp); bad input to the other calls (test_rma_bad_input.cpp,
// test_collectives_bad_input.cpp, test_teams.cpp); a collective entered
// with a NULL out-pointer or an unknown team on some ranks only
// (mismatched collectives are erroneous).
// Failure messages carry the case being checked (dartcheck::g_context).
#include "dart_capture.hpp"

#include <dash/dart/if/dart.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

int rank() { return mpitest::world_rank(); }

using dartcheck::capture;
using dartcheck::ctx;
using dartcheck::g_context;
using dartcheck::lines_of;
using dartcheck::Outcome;

// DART initialised for one test case.
struct Dart : dartcheck::BadInputFixture {
  // Registers `nelem` ints at `buf` on DART_TEAM_ALL. Set-up, but a failure
  // is reported and survived instead of aborting the job: the outcome is
  // agreed across ranks, so all of them skip what needs the registration.
  static bool register_ints(int* buf, size_t nelem, dart_gptr_t* g) {
    *g = DART_GPTR_NULL;
    const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, nelem, DART_TYPE_INT, buf, g);
    BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << rank() << ": set-up dart_team_memregister_aligned of " << nelem
                                               << " ints returned " << rc << "; skipping the registration checks");
    return mpitest::all_ranks(rc == DART_OK);
  }
};

bool is_null(const dart_gptr_t& g) { return DART_GPTR_ISNULL(g); }

// Unknown teams: never created, and the "no team" id.
const dart_team_t kBadTeams[] = {17, DART_TEAM_NULL, 32767, -5};
// Not basic types.
const dart_datatype_t kBadTypes[] = {DART_TYPE_UNDEFINED, DART_TYPE_LAST, 12345, -1};

}  // namespace

// The capture itself: it sees a raw write to fd 2, and accepted calls log
// nothing (so "exactly one line" below is not an artefact of the helper).
BOOST_FIXTURE_TEST_CASE(capture_helper_and_silent_accepted_calls, Dart) {
  const Outcome raw = capture([]() -> dart_ret_t {
    const char msg[] = "raw line\n";
    return ::write(STDERR_FILENO, msg, sizeof msg - 1) == static_cast<ssize_t>(sizeof msg - 1) ? DART_OK
                                                                                               : DART_ERR_OTHER;
  });
  CHECK_OK(raw.rc);
  BOOST_CHECK_MESSAGE(raw.log == "raw line\n", "rank " << rank() << ": capture read back \"" << raw.log << "\"");

  dart_gptr_t g = local_ints(4);
  void* addr = nullptr;
  CHECK_SILENT(DART_OK, dart_gptr_getaddr(g, &addr));
  CHECK_SILENT(DART_OK, dart_memfree(g));
  // Freeing DART_GPTR_NULL is a no-op, not an error (spec 3.5.3/3.5.4).
  CHECK_SILENT(DART_OK, dart_team_memfree(DART_GPTR_NULL));
  CHECK_SILENT(DART_OK, dart_memfree(DART_GPTR_NULL));
  CHECK_SILENT(DART_OK, dart_team_memderegister(DART_GPTR_NULL));
}

BOOST_FIXTURE_TEST_CASE(null_output_pointers, Dart) {
  CHECK_REJECTED(DART_ERR_INVAL, "dart_myid", dart_myid(nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_size", dart_size(nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_myid", dart_team_myid(DART_TEAM_ALL, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_size", dart_team_size(DART_TEAM_ALL, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_memalloc", dart_memalloc(4, DART_TYPE_INT, nullptr));
  // Collective, but every rank passes NULL: rejected locally, nobody waits.
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memalloc_aligned",
                 dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, nullptr));

  dart_gptr_t lg = local_ints(4);
  dart_gptr_t tg = team_ints(4);
  void* addr = &addr;
  for (const dart_gptr_t& g : {lg, at(tg, me)}) {
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_getaddr", dart_gptr_getaddr(g, nullptr));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_getflags", dart_gptr_getflags(g, nullptr));
  }
  REQUIRE_OK(dart_gptr_getaddr(lg, &addr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setaddr", dart_gptr_setaddr(nullptr, addr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setflags", dart_gptr_setflags(nullptr, 1));

  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_new", dart_allocator_new(1024, DART_TEAM_ALL, nullptr));
  dart_allocator_t alloc = nullptr;
  REQUIRE_OK(dart_allocator_new(1024, DART_TEAM_ALL, &alloc));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_alloc", dart_allocator_alloc(4, DART_TYPE_INT, nullptr, alloc));
  dart_gptr_t ag = DART_GPTR_NULL;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_alloc", dart_allocator_alloc(4, DART_TYPE_INT, &ag, nullptr));
  CHECK_RANK(is_null(ag));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_free", dart_allocator_free(nullptr, alloc));
  // Pool size 0 is unusable (rejected on every rank alike).
  dart_allocator_t zero = nullptr;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_new", dart_allocator_new(0, DART_TEAM_ALL, &zero));
  CHECK_RANK(zero == nullptr);
  CHECK_OK(dart_allocator_destroy(&alloc));

  CHECK_OK(dart_memfree(lg));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(unknown_teams, Dart) {
  dart_gptr_t lg = local_ints(4);
  dart_gptr_t tg = team_ints(4);
  void* local = nullptr;
  REQUIRE_OK(dart_gptr_getaddr(lg, &local));
  int buf[4] = {1, 2, 3, 4};

  for (const dart_team_t team : kBadTeams) {
    g_context = "team " + std::to_string(team);
    size_t size = 4711;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_size", dart_team_size(team, &size));
    BOOST_CHECK_MESSAGE(size == 4711, "rank " << rank() << ctx() << ": dart_team_size wrote " << size);
    dart_team_unit_t tid{42};
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_myid", dart_team_myid(team, &tid));
    BOOST_CHECK_MESSAGE(tid.id == DART_UNDEFINED_UNIT_ID,
                        "rank " << rank() << ctx() << ": dart_team_myid wrote " << tid.id);
    // Collective on a team nobody belongs to: rejected locally everywhere.
    dart_gptr_t g = lg;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memalloc_aligned",
                   dart_team_memalloc_aligned(team, 4, DART_TYPE_INT, &g));
    BOOST_CHECK_MESSAGE(is_null(g),
                        "rank " << rank() << ctx() << ": gptr not DART_GPTR_NULL after a failed allocation");
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memregister_aligned",
                   dart_team_memregister_aligned(team, 4, DART_TYPE_INT, buf, &g));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_barrier", dart_barrier(team));
    dart_allocator_t alloc = nullptr;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_new", dart_allocator_new(1024, team, &alloc));
    CHECK_RANK(alloc == nullptr);

    // Pointers naming the team, to a segment that exists on DART_TEAM_ALL.
    for (dart_gptr_t bad : {lg, at(tg, me)}) {
      bad.teamid = team;
      void* addr = nullptr;
      uint16_t flags = 0;
      CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(bad, buf, 1, DART_TYPE_INT, DART_TYPE_INT));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, bad, 1, DART_TYPE_INT, DART_TYPE_INT));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_getaddr", dart_gptr_getaddr(bad, &addr));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setaddr", dart_gptr_setaddr(&bad, local));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_getflags", dart_gptr_getflags(bad, &flags));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setflags", dart_gptr_setflags(&bad, 3));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_flush", dart_flush(bad));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_memfree", dart_memfree(bad));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memfree", dart_team_memfree(bad));
    }
  }
  g_context.clear();
  // DART_GPTR_NULL names no team: nothing can be resolved through it.
  void* addr = &addr;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_getaddr", dart_gptr_getaddr(DART_GPTR_NULL, &addr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking",
                 dart_put_blocking(DART_GPTR_NULL, buf, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking",
                 dart_get_blocking(buf, DART_GPTR_NULL, 1, DART_TYPE_INT, DART_TYPE_INT));

  CHECK_OK(dart_memfree(lg));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(unit_out_of_range, Dart) {
  dart_gptr_t tg = team_ints(8);
  dart_gptr_t lg = local_ints(8);
  int buf[8] = {};
  for (const int unit : {n, n + 7, -1, -1000, (1 << 23) - 1}) {
    g_context = "unit " + std::to_string(unit) + " of " + std::to_string(n);
    for (const dart_gptr_t& base : {tg, lg}) {
      const dart_gptr_t g = at(base, unit);
      CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, buf, 8, DART_TYPE_INT, DART_TYPE_INT));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, g, 8, DART_TYPE_INT, DART_TYPE_INT));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_flush", dart_flush(g));
    }
  }
  g_context.clear();
  // The last valid unit is accepted (no off-by-one the other way).
  CHECK_OK(dart_get_blocking(buf, at(tg, n - 1), 8, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_memfree(lg));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(unknown_and_freed_segments, Dart) {
  int buf[4] = {};
  int reg_buf[4] = {};
  void* local = &buf[0];
  dart_gptr_t tg = team_ints(4);
  dart_gptr_t rg = DART_GPTR_NULL;
  const bool have_rg = register_ints(reg_buf, 4, &rg);

  // Segments that were never allocated: an allocation-like id, a
  // registration-like id, and the extremes of int16_t.
  dart_gptr_t never = at(tg, me);
  std::vector<dart_gptr_t> gone;
  for (const int16_t segid : {int16_t{1234}, int16_t{-77}, int16_t{32767}, int16_t{-32768}}) {
    never.segid = segid;
    gone.push_back(never);
  }
  // ... and one that existed and was freed (ids are not reused until the
  // next allocation, and none follows).
  dart_gptr_t freed = team_ints(4);
  REQUIRE_OK(dart_team_memfree(freed));
  gone.push_back(at(freed, me));
  // ... and a deregistered registration.
  int reg2[4] = {};
  dart_gptr_t rfreed = DART_GPTR_NULL;
  if (register_ints(reg2, 4, &rfreed)) {
    REQUIRE_OK(dart_team_memderegister(rfreed));
    gone.push_back(at(rfreed, me));
  }

  for (dart_gptr_t g : gone) {
    g_context = "segment " + std::to_string(g.segid);
    void* addr = nullptr;
    uint16_t flags = 0;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, buf, 4, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, g, 4, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_getaddr", dart_gptr_getaddr(g, &addr));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setaddr", dart_gptr_setaddr(&g, local));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_getflags", dart_gptr_getflags(g, &flags));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setflags", dart_gptr_setflags(&g, 1));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_flush", dart_flush(g));
    // Collective frees of a segment nobody has: rejected locally everywhere.
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memfree", dart_team_memfree(g));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memderegister", dart_team_memderegister(g));
  }
  g_context.clear();

  // The live segments are unaffected.
  CHECK_OK(dart_put_blocking(at(tg, me), buf, 4, DART_TYPE_INT, DART_TYPE_INT));
  if (have_rg) CHECK_OK(dart_put_blocking(at(rg, me), buf, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  if (have_rg) CHECK_OK(dart_team_memderegister(rg));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(double_free, Dart) {
  // Collective team segment, freed twice by everybody.
  dart_gptr_t tg = team_ints(4);
  CHECK_OK(dart_team_memfree(tg));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memfree", dart_team_memfree(tg));

  // Registration, deregistered twice.
  int reg[4] = {};
  dart_gptr_t rg = DART_GPTR_NULL;
  if (register_ints(reg, 4, &rg)) {
    CHECK_OK(dart_team_memderegister(rg));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memderegister", dart_team_memderegister(rg));
  }

  // Local block.
  dart_gptr_t lg = local_ints(4);
  CHECK_OK(dart_memfree(lg));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_memfree", dart_memfree(lg));

  // Allocator block: dart_allocator_free nulls the pointer it is given, so
  // the second free uses a copy (the real double free) and then the nulled
  // pointer itself.
  dart_allocator_t alloc = nullptr;
  REQUIRE_OK(dart_allocator_new(4096, DART_TEAM_ALL, &alloc));
  dart_gptr_t ag = DART_GPTR_NULL;
  REQUIRE_OK(dart_allocator_alloc(4, DART_TYPE_INT, &ag, alloc));
  dart_gptr_t copy = ag;
  CHECK_OK(dart_allocator_free(&ag, alloc));
  CHECK_RANK(is_null(ag));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_free", dart_allocator_free(&copy, alloc));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_free", dart_allocator_free(&ag, alloc));
  CHECK_OK(dart_allocator_destroy(&alloc));
  CHECK_RANK(alloc == nullptr);

  // Nothing is broken: a new allocation of each kind works.
  dart_gptr_t again = team_ints(4);
  dart_gptr_t lagain = local_ints(4);
  CHECK_OK(dart_memfree(lagain));
  CHECK_OK(dart_team_memfree(again));
}

BOOST_FIXTURE_TEST_CASE(free_of_memory_never_allocated, Dart) {
  dart_gptr_t lg = local_ints(4);
  // Offsets where no block starts: inside the block, far beyond the pool.
  for (const std::uint64_t off : {lg.addr_or_offs.offset + 8, std::uint64_t{1} << 40}) {
    g_context = "offset " + std::to_string(off);
    dart_gptr_t bogus = lg;
    bogus.addr_or_offs.offset = off;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_memfree", dart_memfree(bogus));
  }
  g_context.clear();

  // A segment id that was never handed out, freed collectively.
  dart_gptr_t tg = team_ints(4);
  dart_gptr_t bogus_seg = tg;
  bogus_seg.segid = 999;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memfree", dart_team_memfree(bogus_seg));

  // Pointers of the wrong kind for the free function.
  CHECK_REJECTED(DART_ERR_INVAL, "dart_memfree", dart_memfree(at(tg, me)));    // a team segment
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memfree", dart_team_memfree(lg));  // the local pool
  int reg[4] = {};
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memderegister", dart_team_memderegister(tg));  // an allocation
  dart_gptr_t rg = DART_GPTR_NULL;
  const bool have_rg = register_ints(reg, 4, &rg);
  if (have_rg) {
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memfree", dart_team_memfree(rg));  // a registration
    CHECK_REJECTED(DART_ERR_INVAL, "dart_memfree", dart_memfree(at(rg, me)));
  }

  // Allocator: a block that was never handed out, and pointers of another
  // segment.
  dart_allocator_t alloc = nullptr;
  REQUIRE_OK(dart_allocator_new(4096, DART_TEAM_ALL, &alloc));
  dart_gptr_t ag = DART_GPTR_NULL;
  REQUIRE_OK(dart_allocator_alloc(4, DART_TYPE_INT, &ag, alloc));
  dart_gptr_t inside = ag;
  inside.addr_or_offs.offset += 8;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_free", dart_allocator_free(&inside, alloc));
  dart_gptr_t other = at(tg, me);
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_free", dart_allocator_free(&other, alloc));
  dart_gptr_t lcopy = lg;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_free", dart_allocator_free(&lcopy, alloc));

  // Every rejected free left the real allocations intact: they free fine.
  CHECK_OK(dart_allocator_free(&ag, alloc));
  CHECK_OK(dart_allocator_destroy(&alloc));
  CHECK_OK(dart_memfree(lg));
  if (have_rg) CHECK_OK(dart_team_memderegister(rg));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(memfree_of_another_units_block, Dart) {
  // Every unit allocates the same way, so the blocks sit at the same
  // offsets in every unit's pool: a free that ignored the owner would
  // release the caller's own block at that offset.
  dart_gptr_t mine = local_ints(4);
  std::vector<dart_gptr_t> all(static_cast<size_t>(n));
  REQUIRE_EQ(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD),
             MPI_SUCCESS);
  if (n == 1) {
    BOOST_TEST_MESSAGE("single unit: no other unit's block to free");
  }
  for (int u = 0; u < n; ++u) {
    if (u == me) continue;
    g_context = "block of unit " + std::to_string(u);
    CHECK_REJECTED(DART_ERR_INVAL, "dart_memfree", dart_memfree(all[static_cast<size_t>(u)]));
  }
  g_context.clear();

  // The same for blocks of a dart_allocator pool: only the allocating unit
  // may free them.
  dart_allocator_t alloc = nullptr;
  REQUIRE_OK(dart_allocator_new(4096, DART_TEAM_ALL, &alloc));
  dart_gptr_t ablock = DART_GPTR_NULL;
  REQUIRE_OK(dart_allocator_alloc(4, DART_TYPE_INT, &ablock, alloc));
  std::vector<dart_gptr_t> ablocks(static_cast<size_t>(n));
  REQUIRE_EQ(MPI_Allgather(&ablock, sizeof ablock, MPI_BYTE, ablocks.data(), sizeof ablock, MPI_BYTE, MPI_COMM_WORLD),
             MPI_SUCCESS);
  for (int u = 0; u < n; ++u) {
    if (u == me) continue;
    g_context = "allocator block of unit " + std::to_string(u);
    dart_gptr_t theirs = ablocks[static_cast<size_t>(u)];
    CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_free", dart_allocator_free(&theirs, alloc));
  }
  g_context.clear();

  // The peers' blocks and the own blocks are all still live.
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_allocator_free(&ablock, alloc));
  CHECK_OK(dart_memfree(mine));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_allocator_destroy(&alloc));
}

BOOST_FIXTURE_TEST_CASE(invalid_data_types, Dart) {
  dart_gptr_t tg = team_ints(4);
  int buf[4] = {};
  dart_allocator_t alloc = nullptr;
  REQUIRE_OK(dart_allocator_new(1024, DART_TEAM_ALL, &alloc));

  for (const dart_datatype_t t : kBadTypes) {
    g_context = "type " + std::to_string(static_cast<long long>(t));
    dart_gptr_t g = tg;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_memalloc", dart_memalloc(4, t, &g));
    BOOST_CHECK_MESSAGE(is_null(g), "rank " << rank() << ctx() << ": dart_memalloc left a non-null gptr");
    // Collective; every rank passes the bad type and every rank is told.
    g = tg;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memalloc_aligned", dart_team_memalloc_aligned(DART_TEAM_ALL, 4, t, &g));
    BOOST_CHECK_MESSAGE(is_null(g), "rank " << rank() << ctx() << ": dart_team_memalloc_aligned left a non-null gptr");
    g = tg;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memregister_aligned",
                   dart_team_memregister_aligned(DART_TEAM_ALL, 4, t, buf, &g));
    CHECK_RANK(is_null(g));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memregister", dart_team_memregister(DART_TEAM_ALL, 4, t, buf, &g));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(at(tg, me), buf, 1, t, t));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, at(tg, me), 1, t, t));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_allocator_alloc", dart_allocator_alloc(1, t, &g, alloc));
  }
  g_context.clear();
  CHECK_OK(dart_allocator_destroy(&alloc));

  // The failed collective calls left the segment-id bookkeeping in step on
  // all units: a new allocation works and is addressable by a ring put.
  dart_gptr_t fresh = team_ints(4);
  int out[4] = {me, me, me, me};
  CHECK_OK(dart_put_blocking(at(fresh, right), out, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  int in[4] = {-1, -1, -1, -1};
  CHECK_OK(dart_get_blocking(in, at(fresh, me), 4, DART_TYPE_INT, DART_TYPE_INT));
  for (int v : in)
    BOOST_CHECK_MESSAGE(v == left, "rank " << rank() << ": got " << v << " from the left, expected " << left);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(fresh));
  CHECK_OK(dart_team_memfree(tg));
}

// One member's bad arguments must fail the collective allocation on every
// member (the validity travels with the agreement step) instead of leaving
// the others waiting or with a segment the bad member does not have.
BOOST_FIXTURE_TEST_CASE(collective_allocation_with_bad_arguments_on_one_rank, Dart) {
  const int bad_rank = n - 1;
  int buf[4] = {};
  struct Variant {
    const char* what;
    size_t nelem;
    dart_datatype_t type;
  };
  const Variant variants[] = {
      {"DART_TYPE_UNDEFINED", 4, DART_TYPE_UNDEFINED},
      {"type 12345", 4, 12345},
      {"nelem * size overflows", SIZE_MAX / 2, DART_TYPE_INT},
  };
  for (const Variant& v : variants) {
    g_context = std::string(v.what) + " on rank " + std::to_string(bad_rank) + " only";
    const bool bad = me == bad_rank;
    const size_t nelem = bad ? v.nelem : 4;
    const dart_datatype_t type = bad ? v.type : DART_TYPE_INT;
    dart_gptr_t g = DART_GPTR_NULL;
    if (bad) {
      CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memalloc_aligned",
                     dart_team_memalloc_aligned(DART_TEAM_ALL, nelem, type, &g));
    } else {
      CHECK_FAILS("dart_team_memalloc_aligned", dart_team_memalloc_aligned(DART_TEAM_ALL, nelem, type, &g));
    }
    BOOST_CHECK_MESSAGE(is_null(g),
                        "rank " << rank() << ctx() << ": gptr not DART_GPTR_NULL after a failed allocation");
    if (!is_null(g)) CHECK_OK(dart_team_memfree(g));  // keeps the ranks in step if it happened

    g = DART_GPTR_NULL;
    if (bad) {
      CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memregister_aligned",
                     dart_team_memregister_aligned(DART_TEAM_ALL, nelem, type, buf, &g));
    } else {
      CHECK_FAILS("dart_team_memregister_aligned", dart_team_memregister_aligned(DART_TEAM_ALL, nelem, type, buf, &g));
    }
    CHECK_RANK(is_null(g));
    if (!is_null(g)) CHECK_OK(dart_team_memderegister(g));

    // Nothing is out of step afterwards: a valid allocation works and
    // carries the same segment id everywhere.
    dart_gptr_t ok = team_ints(4);
    int16_t segid = ok.segid, min_id = 0, max_id = 0;
    MPI_Allreduce(&segid, &min_id, 1, MPI_INT16_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&segid, &max_id, 1, MPI_INT16_T, MPI_MAX, MPI_COMM_WORLD);
    BOOST_CHECK_MESSAGE(min_id == max_id, "rank " << rank() << ctx() << ": segment ids differ across units afterwards ("
                                                  << min_id << ".." << max_id << ")");
    int out[4] = {me, me, me, me};
    CHECK_OK(dart_put_blocking(at(ok, (me + 1) % n), out, 4, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    int in[4] = {-1, -1, -1, -1};
    CHECK_OK(dart_get_blocking(in, at(ok, me), 4, DART_TYPE_INT, DART_TYPE_INT));
    BOOST_CHECK_MESSAGE(in[0] == (me + n - 1) % n && in[3] == (me + n - 1) % n,
                        "rank " << rank() << ctx() << ": ring put into the next allocation failed");
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_memfree(ok));
  }
  g_context.clear();
}

// One unit passes a bad pointer to a collective free while the others pass
// the right one: the call fails on every unit and the segment stays
// allocated everywhere (it used to be freed on the others, after which
// every team allocation failed with "disagree on the segment id").
BOOST_FIXTURE_TEST_CASE(team_memfree_with_a_bad_pointer_on_one_rank, Dart) {
  const int bad_rank = n - 1;
  dart_gptr_t g = team_ints(4);
  dart_gptr_t bogus = g;
  bogus.segid = 1234;
  g_context = "bad pointer on rank " + std::to_string(bad_rank) + " only";
  if (me == bad_rank) CHECK_REJECTED(DART_ERR_INVAL, "dart_team_memfree", dart_team_memfree(bogus));
  else CHECK_FAILS("dart_team_memfree", dart_team_memfree(g));
  g_context.clear();
  // Still allocated everywhere: a ring of puts into it works.
  int out[4] = {me, me, me, me};
  CHECK_OK(dart_put_blocking(at(g, (me + 1) % n), out, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  int in[4] = {-1, -1, -1, -1};
  CHECK_OK(dart_get_blocking(in, at(g, me), 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_EQ(in[0], (me + n - 1) % n);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  // And the team goes on: a new allocation has one id everywhere.
  dart_gptr_t next = team_ints(4);
  int16_t segid = next.segid, lo = 0, hi = 0;
  MPI_Allreduce(&segid, &lo, 1, MPI_INT16_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&segid, &hi, 1, MPI_INT16_T, MPI_MAX, MPI_COMM_WORLD);
  CHECK_EQ(lo, hi);
  CHECK_RANK(next.segid != g.segid);
  CHECK_OK(dart_team_memfree(next));
  CHECK_OK(dart_team_memfree(g));
}

BOOST_FIXTURE_TEST_CASE(offsets_beyond_the_portion, Dart) {
  constexpr std::uint64_t kBytes = 8 * sizeof(int);
  dart_gptr_t tg = team_ints(8);
  dart_gptr_t lg = local_ints(8);
  int reg[8] = {};
  dart_gptr_t rg = DART_GPTR_NULL;
  const bool have_rg = register_ints(reg, 8, &rg);
  std::vector<dart_gptr_t> segments{tg};
  if (have_rg) segments.push_back(rg);
  int buf[8] = {};

  struct Access {
    std::uint64_t offset;
    size_t nelem;
  };
  // Starting at the end, straddling the end, far beyond it, and "negative"
  // (an offset decremented below 0 wraps around).
  const Access team_bad[] = {
      {kBytes, 1}, {kBytes - sizeof(int), 2}, {0, 9}, {std::uint64_t{1} << 62, 1}, {~std::uint64_t{0} - 3, 1}};
  for (const dart_gptr_t& seg : segments) {
    for (const int unit : {me, right}) {
      for (const Access& a : team_bad) {
        g_context = "segment " + std::to_string(seg.segid) + ", unit " + std::to_string(unit) + ", offset " +
                    std::to_string(a.offset) + ", " + std::to_string(a.nelem) + " ints";
        const dart_gptr_t g = at(seg, unit, a.offset);
        CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking",
                       dart_put_blocking(g, buf, a.nelem, DART_TYPE_INT, DART_TYPE_INT));
        CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking",
                       dart_get_blocking(buf, g, a.nelem, DART_TYPE_INT, DART_TYPE_INT));
      }
    }
  }
  // The local pool: far beyond any pool size.
  for (const std::uint64_t off : {std::uint64_t{1} << 40, ~std::uint64_t{0} - 3}) {
    g_context = "local pool offset " + std::to_string(off);
    const dart_gptr_t g = at(lg, me, off);
    CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, buf, 1, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, g, 1, DART_TYPE_INT, DART_TYPE_INT));
  }
  g_context.clear();

  // dart_gptr_setaddr with an address outside the caller's portion.
  {
    int outside = 0;
    dart_gptr_t g = at(tg, me);
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setaddr", dart_gptr_setaddr(&g, &outside));
    void* base = nullptr;
    REQUIRE_OK(dart_gptr_getaddr(g, &base));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setaddr", dart_gptr_setaddr(&g, static_cast<char*>(base) + kBytes + 1));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_gptr_setaddr", dart_gptr_setaddr(&g, static_cast<char*>(base) - 1));
  }

  // The last element itself is in range (own portion only: nobody else
  // writes there).
  CHECK_OK(dart_put_blocking(at(tg, me, kBytes - sizeof(int)), buf, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_get_blocking(buf, at(tg, me, kBytes - sizeof(int)), 1, DART_TYPE_INT, DART_TYPE_INT));
  if (have_rg) CHECK_OK(dart_put_blocking(at(rg, me, kBytes - sizeof(int)), buf, 1, DART_TYPE_INT, DART_TYPE_INT));

  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  if (have_rg) CHECK_OK(dart_team_memderegister(rg));
  CHECK_OK(dart_memfree(lg));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(mismatched_types_and_null_buffers, Dart) {
  dart_gptr_t tg = team_ints(8);
  long buf[8] = {};
  const dart_gptr_t g = at(tg, me);
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, buf, 2, DART_TYPE_INT, DART_TYPE_LONG));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, buf, 2, DART_TYPE_UINT, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, g, 2, DART_TYPE_DOUBLE, DART_TYPE_FLOAT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, g, 2, DART_TYPE_INT, DART_TYPE_UNDEFINED));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, nullptr, 2, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(nullptr, g, 2, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(tg));
}

namespace {

// The calls that need an initialised runtime, made while it is not: each
// fails with one log line naming the MPI rank; dart_myid / dart_size fail
// with DART_ERR_OTHER and -1 / 0, the others with DART_ERR_NOTINIT.
void check_uninitialised_calls(dart_gptr_t g) {
  REQUIRE_RANK(!dart_initialized());
  dart_global_unit_t id{42};
  CHECK_REJECTED(DART_ERR_OTHER, "dart_myid", dart_myid(&id));
  BOOST_CHECK_MESSAGE(id.id == -1, "rank " << rank() << ctx() << ": dart_myid wrote " << id.id << ", expected -1");
  size_t size = 42;
  CHECK_REJECTED(DART_ERR_OTHER, "dart_size", dart_size(&size));
  BOOST_CHECK_MESSAGE(size == 0, "rank " << rank() << ctx() << ": dart_size wrote " << size << ", expected 0");

  dart_team_unit_t tid{42};
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_team_myid", dart_team_myid(DART_TEAM_ALL, &tid));
  CHECK_EQ(tid.id, DART_UNDEFINED_UNIT_ID);
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_team_size", dart_team_size(DART_TEAM_ALL, &size));
  dart_gptr_t out = g;
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_memalloc", dart_memalloc(4, DART_TYPE_INT, &out));
  CHECK_RANK(is_null(out));
  out = g;
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_team_memalloc_aligned",
                 dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &out));
  CHECK_RANK(is_null(out));
  int buf[4] = {};
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_team_memregister_aligned",
                 dart_team_memregister_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, buf, &out));
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_put_blocking", dart_put_blocking(g, buf, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_get_blocking", dart_get_blocking(buf, g, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_flush", dart_flush(g));
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_barrier", dart_barrier(DART_TEAM_ALL));
  void* addr = nullptr;
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_gptr_getaddr", dart_gptr_getaddr(g, &addr));
  uint16_t flags = 0;
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_gptr_getflags", dart_gptr_getflags(g, &flags));
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_memfree", dart_memfree(g));
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_team_memfree", dart_team_memfree(g));
  dart_allocator_t alloc = nullptr;
  CHECK_REJECTED(DART_ERR_NOTINIT, "dart_allocator_new", dart_allocator_new(1024, DART_TEAM_ALL, &alloc));
  CHECK_REJECTED(DART_ERR_OTHER, "dart_exit", dart_exit());
  CHECK_RANK(!dart_initialized());
}

}  // namespace

BOOST_AUTO_TEST_CASE(calls_before_init_and_after_exit) {
  BOOST_REQUIRE_MESSAGE(!dart_initialized(), "rank " << rank() << ": DART initialised at the start of the test case");
  // A pointer that looks valid: unit 0's first segment on DART_TEAM_ALL.
  dart_gptr_t fake = DART_GPTR_NULL;
  fake.teamid = DART_TEAM_ALL;
  fake.unitid = 0;
  fake.segid = 1;
  g_context = "before dart_init";
  check_uninitialised_calls(fake);

  REQUIRE_OK(dart_init(nullptr, nullptr));
  dart_gptr_t stale = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &stale));
  // Left allocated on purpose: dart_exit must not leave it usable.
  REQUIRE_OK(dart_exit());

  g_context = "after dart_exit";
  check_uninitialised_calls(stale);
  g_context.clear();
}

BOOST_AUTO_TEST_CASE(log_level_off_silences_error_lines) {
  struct Setting {
    const char* value;
    bool silent;
  };
  // Case-insensitive; ERROR (the default) keeps the lines.
  const Setting settings[] = {{"OFF", true}, {"off", true}, {"ERROR", false}};
  for (const Setting& s : settings) {
    g_context = std::string("DART_LOG_LEVEL=") + s.value;
    REQUIRE_EQ(::setenv("DART_LOG_LEVEL", s.value, 1), 0);
    REQUIRE_OK(dart_init(nullptr, nullptr));  // reads the level
    ::unsetenv("DART_LOG_LEVEL");
    dart_global_unit_t me;
    REQUIRE_OK(dart_myid(&me));
    size_t n = 0;
    REQUIRE_OK(dart_size(&n));
    int buf[1] = {};
    dart_gptr_t tg = DART_GPTR_NULL;
    REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_INT, &tg));
    dart_gptr_t out_of_range = tg;
    out_of_range.unitid = static_cast<int>(n);
    size_t size = 0;
    if (s.silent) {
      CHECK_SILENT(DART_ERR_INVAL, dart_myid(nullptr));
      CHECK_SILENT(DART_ERR_INVAL, dart_team_size(17, &size));
      CHECK_SILENT(DART_ERR_INVAL, dart_put_blocking(out_of_range, buf, 1, DART_TYPE_INT, DART_TYPE_INT));
      CHECK_SILENT(DART_ERR_INVAL, dart_memalloc(1, DART_TYPE_LAST, &out_of_range));
      CHECK_SILENT(DART_ERR_INVAL, dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_UNDEFINED, &out_of_range));
    } else {
      CHECK_REJECTED(DART_ERR_INVAL, "dart_myid", dart_myid(nullptr));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_team_size", dart_team_size(17, &size));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking",
                     dart_put_blocking(out_of_range, buf, 1, DART_TYPE_INT, DART_TYPE_INT));
    }
    CHECK_OK(dart_team_memfree(tg));
    CHECK_OK(dart_exit());
  }
  g_context.clear();
  // Back to the default for the test cases that follow (the level is
  // read at dart_init, so one cycle without the variable resets it).
  REQUIRE_OK(dart_init(nullptr, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_size", dart_size(nullptr));
  CHECK_OK(dart_exit());
}

// A configuration variable with a bad or out-of-range value is ignored
// with one warning line naming it and what was expected (at
// DART_LOG_LEVEL=WARN), and dart_init still succeeds; a good value warns
// about nothing.
BOOST_AUTO_TEST_CASE(bad_configuration_values_warn_and_are_ignored) {
  struct Setting {
    const char* name;
    const char* value;
    const char* expected;  // nullptr: a good value, no warning
  };
  const Setting settings[] = {
      {"DART_RMA_PIECE_SIZE", "5", "expected 1K to 1G"},
      {"DART_RMA_PIECE_SIZE", "2G", "expected 1K to 1G"},
      {"DART_RMA_PIECE_SIZE", "abc", "expected 1K to 1G"},
      {"DART_RMA_PIECE_SIZE", "64K", nullptr},
      {"DART_HEAP_CHUNK_SIZE", "0", "expected a positive size such as 64M"},
      {"DART_HEAP_CHUNK_SIZE", "12Q", "expected a positive size such as 64M"},
      {"DART_EXIT_TIMEOUT", "0", "expected seconds > 0"},
      {"DART_COLLECTIVE_TIMEOUT", "-1", "expected seconds (0 = never)"},
      {"DART_COLLECTIVE_TIMEOUT", "0", nullptr},
  };
  REQUIRE_EQ(::setenv("DART_LOG_LEVEL", "WARN", 1), 0);
  for (const Setting& s : settings) {
    g_context = std::string(s.name) + "=" + s.value;
    REQUIRE_EQ(::setenv(s.name, s.value, 1), 0);
    const Outcome o = capture([] { return dart_init(nullptr, nullptr); });
    ::unsetenv(s.name);
    REQUIRE_EQ(o.rc, DART_OK);
    const std::string warning = std::string("ignoring ") + s.name + "=\"" + s.value + "\": ";
    size_t lines = 0;
    for (const std::string& line : lines_of(o.log)) {
      if (line.find(warning) == std::string::npos) continue;
      ++lines;
      CHECK_RANK(line.find("[dart unit " + std::to_string(mpitest::world_rank()) + "] dart_init: warning: ") == 0);
      if (s.expected) CHECK_RANK(line.find(s.expected) != std::string::npos);
    }
    CHECK_EQ(lines, s.expected ? size_t(1) : size_t(0));
    CHECK_OK(dart_exit());
  }
  ::unsetenv("DART_LOG_LEVEL");
  g_context.clear();
}

BOOST_FIXTURE_TEST_CASE(log_enabled_zero_silences_error_lines, Dart) {
  dart_config_t* cfg = nullptr;
  dart_config(&cfg);
  REQUIRE_RANK(cfg != nullptr);
  REQUIRE_EQ(cfg->log_enabled, 1);
  dart_gptr_t tg = team_ints(1);
  int buf[1] = {};
  size_t size = 0;

  cfg->log_enabled = 0;
  g_context = "log_enabled = 0";
  CHECK_SILENT(DART_ERR_INVAL, dart_myid(nullptr));
  CHECK_SILENT(DART_ERR_INVAL, dart_team_size(DART_TEAM_NULL, &size));
  CHECK_SILENT(DART_ERR_INVAL, dart_put_blocking(at(tg, n), buf, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_SILENT(DART_ERR_INVAL, dart_get_blocking(buf, at(tg, me), 1, DART_TYPE_INT, DART_TYPE_LONG));
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK_SILENT(DART_ERR_INVAL, dart_team_memalloc_aligned(DART_TEAM_ALL, 1, 12345, &g));
  cfg->log_enabled = 1;

  g_context = "log_enabled = 1 again";
  CHECK_REJECTED(DART_ERR_INVAL, "dart_myid", dart_myid(nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_size", dart_team_size(DART_TEAM_NULL, &size));
  g_context.clear();
  CHECK_OK(dart_team_memfree(tg));
}
