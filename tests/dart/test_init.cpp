// dart_init / dart_init_thread / dart_exit / dart_initialized / dart_config and
// the basic id queries (dart_myid, dart_size, dart_team_myid/size on
// DART_TEAM_ALL), with MPI initialised and finalised by the application (the
// harness): state transitions, double init/exit, MPI left alive by
// dart_exit, 100 init/allocate/transfer/exit cycles without leaking MPI
// communicators or windows, the granted thread level, and dart_barrier
// ordering plain stores before remote gets (both with node-shared windows
// and with DART_SHARED_MEMORY=0). Not covered here: DART owning MPI
// (test_owns_mpi.cpp), error codes and log lines of bad input
// (test_bad_input.cpp), allocation and transfer semantics in depth
// (test_globmem.cpp, test_globmem_local.cpp).
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <vector>

namespace {

using dartcheck::QuietDart;

int rank() { return mpitest::world_rank(); }
int nranks() { return mpitest::world_size(); }

}  // namespace

namespace {

bool mpi_finalized() {
  int flag = -1;
  MPI_Finalized(&flag);
  return flag != 0;
}

bool mpi_initialized() {
  int flag = -1;
  MPI_Initialized(&flag);
  return flag != 0;
}

// Fortran handle of a freshly created and immediately freed communicator /
// window, as an unsigned number. MPI implementations reuse freed handle
// slots (Open MPI: lowest free index; MPICH: free list), so when nothing
// leaks the value stays bounded across init/exit cycles, while every
// communicator or window a cycle leaks pushes it further up.
// (Duplicates of MPI_COMM_SELF: local, no communication.)
std::uint32_t probe_comm_handle() {
  MPI_Comm c = MPI_COMM_NULL;
  if (MPI_Comm_dup(MPI_COMM_SELF, &c) != MPI_SUCCESS) return 0;
  const auto h = static_cast<std::uint32_t>(MPI_Comm_c2f(c));
  MPI_Comm_free(&c);
  return h;
}

// (MPI_Win_allocate_shared on MPI_COMM_SELF: it works in every job, while
// MPI_Win_create fails in one-process Open MPI 4.1 jobs.)
std::uint32_t probe_win_handle() {
  MPI_Win w = MPI_WIN_NULL;
  void* base = nullptr;
  if (MPI_Win_allocate_shared(8, 1, MPI_INFO_NULL, MPI_COMM_SELF, &base, &w) != MPI_SUCCESS) return 0;
  const auto h = static_cast<std::uint32_t>(MPI_Win_c2f(w));
  MPI_Win_free(&w);
  return h;
}

// Sets an environment variable for its lifetime (DART reads its
// configuration at dart_init), then removes it again.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

// Value unit `unit` writes at element i in round/cycle `round`.
int stamp(int round, int unit, int i) { return round * 100000 + unit * 100 + i; }

}  // namespace

// Runs first: nothing has touched the configuration object yet.
BOOST_AUTO_TEST_CASE(config_object_is_static_and_starts_enabled) {
  REQUIRE_RANK(!dart_initialized());
  dart_config_t* before = nullptr;
  dart_config(&before);
  BOOST_REQUIRE_MESSAGE(before != nullptr, "rank " << rank() << ": dart_config gave NULL before dart_init");
  BOOST_CHECK_MESSAGE(before->log_enabled == 1,
                      "rank " << rank() << ": log_enabled is " << before->log_enabled << " initially, expected 1");

  REQUIRE_OK(dart_init(nullptr, nullptr));
  dart_config_t* during = nullptr;
  dart_config(&during);
  BOOST_CHECK_MESSAGE(during == before, "rank " << rank() << ": dart_config changed its pointer after dart_init");
  CHECK_EQ(during->log_enabled, 1);
  CHECK_OK(dart_exit());

  dart_config_t* after = nullptr;
  dart_config(&after);
  BOOST_CHECK_MESSAGE(after == before, "rank " << rank() << ": dart_config changed its pointer after dart_exit");
  CHECK_EQ(after->log_enabled, 1);
}

BOOST_AUTO_TEST_CASE(init_and_exit_with_mpi_owned_by_the_application) {
  REQUIRE_RANK(mpi_initialized());
  BOOST_CHECK_MESSAGE(!dart_initialized(), "rank " << rank() << ": dart_initialized() true before dart_init");

  int argc = boost::unit_test::framework::master_test_suite().argc;
  char** argv = boost::unit_test::framework::master_test_suite().argv;
  REQUIRE_OK(dart_init(&argc, &argv));
  BOOST_CHECK_MESSAGE(dart_initialized(), "rank " << rank() << ": dart_initialized() false after dart_init");

  {
    QuietDart quiet;
    const dart_ret_t again = dart_init(&argc, &argv);
    BOOST_CHECK_MESSAGE(again == DART_ERR_OTHER,
                        "rank " << rank() << ": second dart_init returned " << again << ", expected DART_ERR_OTHER");
    dart_thread_support_level_t level = DART_THREAD_SINGLE;
    const dart_ret_t again_thread = dart_init_thread(nullptr, nullptr, &level);
    BOOST_CHECK_MESSAGE(again_thread == DART_ERR_OTHER, "rank " << rank()
                                                                << ": dart_init_thread while initialised returned "
                                                                << again_thread << ", expected DART_ERR_OTHER");
  }
  BOOST_CHECK_MESSAGE(dart_initialized(), "rank " << rank() << ": a rejected second dart_init de-initialised DART");
  // The runtime still works after the rejected calls.
  dart_global_unit_t me;
  CHECK_OK(dart_myid(&me));
  CHECK_EQ(me.id, rank());
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  CHECK_OK(dart_exit());
  BOOST_CHECK_MESSAGE(!dart_initialized(), "rank " << rank() << ": dart_initialized() true after dart_exit");
  {
    QuietDart quiet;
    const dart_ret_t exit_again = dart_exit();
    BOOST_CHECK_MESSAGE(exit_again == DART_ERR_OTHER, "rank " << rank() << ": dart_exit when not initialised returned "
                                                              << exit_again << ", expected DART_ERR_OTHER");
  }
  BOOST_CHECK_MESSAGE(!dart_initialized(), "rank " << rank() << ": dart_initialized() true after a second dart_exit");

  // DART did not initialise MPI, so it must not have finalised it.
  BOOST_CHECK_MESSAGE(!mpi_finalized(), "rank " << rank() << ": dart_exit finalised MPI it does not own");
  CHECK_RANK(mpi_initialized());
  // ... and MPI is still usable.
  int sum = 0, one = 1;
  CHECK_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK_EQ(sum, nranks());
}

BOOST_AUTO_TEST_CASE(ids_and_sizes_agree_with_mpi_comm_world) {
  int mpi_rank = -1, mpi_size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);

  REQUIRE_OK(dart_init(nullptr, nullptr));
  dart_global_unit_t me;
  size_t size = 0;
  dart_team_unit_t team_me;
  size_t team_size = 0;
  CHECK_OK(dart_myid(&me));
  CHECK_OK(dart_size(&size));
  CHECK_OK(dart_team_myid(DART_TEAM_ALL, &team_me));
  CHECK_OK(dart_team_size(DART_TEAM_ALL, &team_size));
  BOOST_CHECK_MESSAGE(me.id == mpi_rank, "rank " << mpi_rank << ": dart_myid gave " << me.id);
  BOOST_CHECK_MESSAGE(size == static_cast<size_t>(mpi_size),
                      "rank " << mpi_rank << ": dart_size gave " << size << ", MPI_COMM_WORLD has " << mpi_size);
  BOOST_CHECK_MESSAGE(team_me.id == mpi_rank, "rank " << mpi_rank << ": dart_team_myid(ALL) gave " << team_me.id);
  BOOST_CHECK_MESSAGE(team_size == static_cast<size_t>(mpi_size),
                      "rank " << mpi_rank << ": dart_team_size(ALL) gave " << team_size);
  CHECK_OK(dart_exit());
}

BOOST_AUTO_TEST_CASE(init_thread_reports_the_level_mpi_provides) {
  int provided = -1;
  MPI_Query_thread(&provided);
  const dart_thread_support_level_t expected =
      provided == MPI_THREAD_MULTIPLE ? DART_THREAD_MULTIPLE : DART_THREAD_SINGLE;

  // A value that is neither level (and within the enum's range), so an
  // unwritten output is noticed.
  dart_thread_support_level_t level = static_cast<dart_thread_support_level_t>(5);
  REQUIRE_OK(dart_init_thread(nullptr, nullptr, &level));
  CHECK_RANK(dart_initialized());
  BOOST_CHECK_MESSAGE(level == expected, "rank " << rank() << ": dart_init_thread granted " << level
                                                 << " but MPI provides " << provided << ", expected " << expected);
  dart_global_unit_t me;
  size_t size = 0;
  CHECK_OK(dart_myid(&me));
  CHECK_OK(dart_size(&size));
  CHECK_EQ(me.id, rank());
  CHECK_EQ(size, static_cast<size_t>(nranks()));
  CHECK_OK(dart_exit());
  CHECK_RANK(!dart_initialized());

  // thread_safety must not be NULL: rejected on every rank before any
  // communication, DART stays uninitialised.
  {
    QuietDart quiet;
    const dart_ret_t rc = dart_init_thread(nullptr, nullptr, nullptr);
    BOOST_CHECK_MESSAGE(rc != DART_OK,
                        "rank " << rank() << ": dart_init_thread(thread_safety = NULL) returned DART_OK");
    BOOST_CHECK_MESSAGE(rc == DART_ERR_INVAL, "rank " << rank() << ": dart_init_thread(thread_safety = NULL) returned "
                                                      << rc << ", expected DART_ERR_INVAL");
  }
  BOOST_CHECK_MESSAGE(!dart_initialized(), "rank " << rank() << ": dart_init_thread(NULL level) initialised DART");
  if (dart_initialized()) {
    CHECK_OK(dart_exit());
  }

  // A normal dart_init afterwards still works.
  REQUIRE_OK(dart_init(nullptr, nullptr));
  CHECK_OK(dart_exit());
  CHECK_RANK(!mpi_finalized());
}

// Both ways a team reaches its members: node-shared windows (default) and
// MPI RMA on team-wide windows (DART_SHARED_MEMORY=0).
BOOST_AUTO_TEST_CASE(barrier_orders_plain_stores_before_remote_gets) {
  for (const char* shm : {"1", "0"}) {
    {
      ScopedEnv env("DART_SHARED_MEMORY", shm);
      REQUIRE_OK(dart_init(nullptr, nullptr));
    }
    const int me = rank();
    const int n = nranks();
    constexpr int kElems = 64;
    constexpr int kRounds = 20;

    dart_gptr_t seg = DART_GPTR_NULL;
    REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kElems, DART_TYPE_INT, &seg));
    dart_gptr_t mine = seg;
    mine.unitid = me;
    void* addr = nullptr;
    REQUIRE_OK(dart_gptr_getaddr(mine, &addr));
    BOOST_REQUIRE_MESSAGE(addr != nullptr, "rank " << me << ": no local address for its own portion");
    int* local = static_cast<int*>(addr);

    int bad_rounds = 0;
    for (int round = 0; round < kRounds; ++round) {
      for (int i = 0; i < kElems; ++i) local[i] = stamp(round, me, i);
      CHECK_OK(dart_barrier(DART_TEAM_ALL));

      // Both neighbours (the same unit, or ourselves, at small sizes).
      for (const int peer : {(me + 1) % n, (me + n - 1) % n}) {
        dart_gptr_t g = seg;
        g.unitid = peer;
        std::vector<int> got(kElems, -1);
        CHECK_OK(dart_get_blocking(got.data(), g, kElems, DART_TYPE_INT, DART_TYPE_INT));
        int wrong = 0, first = -1;
        for (int i = 0; i < kElems; ++i)
          if (got[static_cast<size_t>(i)] != stamp(round, peer, i)) {
            if (first < 0) first = i;
            ++wrong;
          }
        if (wrong) {
          ++bad_rounds;
          BOOST_ERROR("rank " << me << " (DART_SHARED_MEMORY=" << shm << ") round " << round << ": " << wrong
                              << " elements of unit " << peer << " stale after the barrier, e.g. [" << first << "] = "
                              << got[static_cast<size_t>(first)] << ", expected " << stamp(round, peer, first));
        }
      }
      // Nobody overwrites its portion before every neighbour has read it.
      CHECK_OK(dart_barrier(DART_TEAM_ALL));
      // Enough evidence: stop, on every rank at once (keeps the log short).
      if (!mpitest::all_ranks(bad_rounds <= 3)) break;
    }

    CHECK_OK(dart_team_memfree(seg));
    CHECK_OK(dart_exit());
  }
}

// 100 complete lifecycles in one process. Every cycle allocates, moves and
// checks data and frees everything, so a cycle that leaves stale state
// behind (segment tables, windows, communicators) shows up as wrong data or
// as a failing later cycle; leaked MPI objects also show up in the handle
// probes. Every fourth cycle runs with the default node-shared windows,
// the others with DART_SHARED_MEMORY=0 (team-wide windows over private
// memory), so both ways of building a team's windows are cycled (25 and 75
// times). Collectives per cycle are kept to what the operations need, and
// most cycles take the cheaper path: with MPICH's busy-polling ranks
// oversubscribed on two cores every collective costs milliseconds, and
// creating a node-shared window tens of them.
BOOST_AUTO_TEST_CASE(hundred_init_exit_cycles_verify_data_and_leak_nothing) {
  constexpr int kCycles = 100;
  constexpr int kElems = 16;
  const int me = rank();
  const int n = nranks();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;

  std::vector<std::uint32_t> comm_probe, win_probe;
  int failed_cycles = 0;
  int failed_registrations = 0;

  for (int cycle = 0; cycle < kCycles; ++cycle) {
    int errors = 0;
    auto expect = [&](bool ok, const char* what) {
      if (ok) return;
      ++errors;
      // Details of the first few failing cycles only; all are counted.
      if (failed_cycles < 3) BOOST_ERROR("rank " << me << " cycle " << cycle << ": " << what);
    };

    {
      ScopedEnv shm("DART_SHARED_MEMORY", cycle % 4 == 0 ? "1" : "0");
      BOOST_REQUIRE_MESSAGE(dart_init(nullptr, nullptr) == DART_OK,
                            "rank " << me << ": dart_init failed in cycle " << cycle);
    }
    expect(dart_initialized(), "dart_initialized() false after dart_init");
    dart_global_unit_t myid;
    size_t size = 0;
    expect(dart_myid(&myid) == DART_OK && myid.id == me, "dart_myid wrong");
    expect(dart_size(&size) == DART_OK && size == static_cast<size_t>(n), "dart_size wrong");

    // Team allocation and registration of application memory.
    dart_gptr_t seg = DART_GPTR_NULL;
    BOOST_REQUIRE_MESSAGE(dart_team_memalloc_aligned(DART_TEAM_ALL, kElems, DART_TYPE_INT, &seg) == DART_OK,
                          "rank " << me << ": dart_team_memalloc_aligned failed in cycle " << cycle);
    std::vector<int> reg(kElems, -1);
    dart_gptr_t rg = DART_GPTR_NULL;
    dart_ret_t reg_rc = DART_OK;
    if (failed_registrations == 0) {
      reg_rc = dart_team_memregister_aligned(DART_TEAM_ALL, kElems, DART_TYPE_INT, reg.data(), &rg);
    } else {
      QuietDart quiet;  // its reason was logged the first time
      reg_rc = dart_team_memregister_aligned(DART_TEAM_ALL, kElems, DART_TYPE_INT, reg.data(), &rg);
    }
    // A failing registration is reported once after the loop, and all ranks
    // skip its part together; the other checks keep running.
    failed_registrations += reg_rc != DART_OK;
    const bool have_reg = mpitest::all_ranks(reg_rc == DART_OK);

    // Local allocation: write through the local address, read back by RMA.
    dart_gptr_t lg = DART_GPTR_NULL;
    expect(dart_memalloc(8, DART_TYPE_LONG, &lg) == DART_OK, "dart_memalloc failed");
    void* laddr = nullptr;
    expect(dart_gptr_getaddr(lg, &laddr) == DART_OK && laddr != nullptr, "dart_gptr_getaddr of a dart_memalloc block");
    if (laddr) {
      long* lp = static_cast<long*>(laddr);
      for (int i = 0; i < 8; ++i) lp[i] = static_cast<long>(stamp(cycle, me, i));
      long back[8] = {};
      expect(dart_get_blocking(back, lg, 8, DART_TYPE_LONG, DART_TYPE_LONG) == DART_OK,
             "dart_get_blocking of own dart_memalloc block");
      int lwrong = 0;
      for (int i = 0; i < 8; ++i) lwrong += back[i] != static_cast<long>(stamp(cycle, me, i));
      expect(lwrong == 0, "dart_memalloc block reads back wrong");
    }
    expect(dart_memfree(lg) == DART_OK, "dart_memfree failed");

    // Ring put into the right neighbour's portions; after the barrier each
    // unit checks that its own portions hold this cycle's values of the left
    // neighbour.
    std::vector<int> out(kElems);
    for (int i = 0; i < kElems; ++i) out[static_cast<size_t>(i)] = stamp(cycle, me, i);
    dart_gptr_t to_right = seg;
    to_right.unitid = right;
    expect(dart_put_blocking(to_right, out.data(), kElems, DART_TYPE_INT, DART_TYPE_INT) == DART_OK,
           "dart_put_blocking to the right neighbour failed");
    if (have_reg) {
      dart_gptr_t reg_right = rg;
      reg_right.unitid = right;
      expect(dart_put_blocking(reg_right, out.data(), kElems, DART_TYPE_INT, DART_TYPE_INT) == DART_OK,
             "dart_put_blocking into the right neighbour's registered memory failed");
    }
    expect(dart_barrier(DART_TEAM_ALL) == DART_OK, "dart_barrier failed");

    dart_gptr_t own = seg;
    own.unitid = me;
    std::vector<int> in(kElems, -1);
    expect(dart_get_blocking(in.data(), own, kElems, DART_TYPE_INT, DART_TYPE_INT) == DART_OK,
           "dart_get_blocking of the own portion failed");
    int wrong = 0;
    for (int i = 0; i < kElems; ++i) wrong += in[static_cast<size_t>(i)] != stamp(cycle, left, i);
    expect(wrong == 0, "team segment does not hold what the left neighbour put this cycle");
    if (have_reg) {
      dart_gptr_t reg_own = rg;
      reg_own.unitid = me;
      std::vector<int> reg_in(kElems, -1);
      expect(dart_get_blocking(reg_in.data(), reg_own, kElems, DART_TYPE_INT, DART_TYPE_INT) == DART_OK,
             "dart_get_blocking of own registered memory failed");
      int rwrong = 0;
      for (int i = 0; i < kElems; ++i) rwrong += reg_in[static_cast<size_t>(i)] != stamp(cycle, left, i);
      expect(rwrong == 0, "registered memory does not hold what the left neighbour put this cycle");
    }

    // Nobody frees before every unit has read.
    expect(dart_barrier(DART_TEAM_ALL) == DART_OK, "dart_barrier before the frees failed");
    expect(dart_team_memfree(seg) == DART_OK, "dart_team_memfree failed");
    if (have_reg) expect(dart_team_memderegister(rg) == DART_OK, "dart_team_memderegister failed");

    BOOST_REQUIRE_MESSAGE(dart_exit() == DART_OK, "rank " << me << ": dart_exit failed in cycle " << cycle);
    expect(!dart_initialized(), "dart_initialized() true after dart_exit");
    expect(!mpi_finalized(), "dart_exit finalised MPI");

    comm_probe.push_back(probe_comm_handle());
    win_probe.push_back(probe_win_handle());
    if (errors) ++failed_cycles;
  }

  BOOST_CHECK_MESSAGE(failed_cycles == 0, "rank " << me << ": " << failed_cycles << " of the cycles failed");
  BOOST_CHECK_MESSAGE(failed_registrations == 0, "rank " << me << ": dart_team_memregister_aligned failed in "
                                                         << failed_registrations << " of the cycles");

  // Leak probes: the handles handed out after the second half of the cycles
  // must not exceed those seen in the first half. Each leaked communicator
  // or window per cycle would raise them by at least one per cycle.
  if (comm_probe.size() == static_cast<size_t>(kCycles)) {
    const auto half = comm_probe.begin() + kCycles / 2;
    const std::uint32_t comm_early = *std::max_element(comm_probe.begin(), half);
    const std::uint32_t comm_late = *std::max_element(half, comm_probe.end());
    const auto whalf = win_probe.begin() + kCycles / 2;
    const std::uint32_t win_early = *std::max_element(win_probe.begin(), whalf);
    const std::uint32_t win_late = *std::max_element(whalf, win_probe.end());
    BOOST_CHECK_MESSAGE(comm_late <= comm_early, "rank " << me << ": communicator handles keep growing across cycles ("
                                                         << comm_early << " in cycles 1-50, " << comm_late
                                                         << " in 51-100): dart_exit leaks communicators");
    BOOST_CHECK_MESSAGE(win_late <= win_early, "rank " << me << ": window handles keep growing across cycles ("
                                                       << win_early << " in cycles 1-50, " << win_late
                                                       << " in 51-100): dart_exit leaks windows");
    BOOST_TEST_MESSAGE("rank " << me << ": distinct comm/win probe handles over " << kCycles
                               << " cycles: " << std::set<std::uint32_t>(comm_probe.begin(), comm_probe.end()).size()
                               << "/" << std::set<std::uint32_t>(win_probe.begin(), win_probe.end()).size());
  }
}
