// DART owning MPI: the program does not initialise MPI, dart_init(&argc,
// &argv) does (MPI_Initialized true afterwards), a ring put/get over a team
// allocation works, dart_exit finalises MPI (MPI_Finalized true afterwards),
// and a second dart_init/dart_init_thread then fails with an error code
// instead of crashing. Own main(), no Boost harness: once MPI is finalised
// the exit code is the only channel, so every rank returns 0 only if all of
// its checks passed (mpiexec fails the run if any rank exits non-zero) and
// prints "[rank R] FAIL: ..." for each failed check. Not covered: DART with
// MPI owned by the application (test_init.cpp), bad input (test_bad_input.cpp).
//
// The test target does not link MPI itself (libdart keeps MPI private), so
// MPI_Initialized / MPI_Finalized -- both callable at any time, even after
// MPI_Finalize -- are looked up at run time in the MPI library libdart
// loaded.
#include <dash/dart/if/dart.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int g_rank = -1;  // global unit id once known
int g_failures = 0;
int g_checks = 0;

void check(bool ok, const char* what) {
  ++g_checks;
  if (ok) return;
  ++g_failures;
  std::fprintf(stderr, "[rank %d] FAIL: %s\n", g_rank, what);
  std::fflush(stderr);
}

void check_rc(dart_ret_t rc, dart_ret_t expected, const char* call) {
  ++g_checks;
  if (rc == expected) return;
  ++g_failures;
  std::fprintf(stderr, "[rank %d] FAIL: %s returned %d, expected %d\n", g_rank, call, static_cast<int>(rc),
               static_cast<int>(expected));
  std::fflush(stderr);
}

using MpiFlagFn = int (*)(int*);

MpiFlagFn mpi_function(const char* name) {
  void* sym = dlsym(RTLD_DEFAULT, name);
  if (!sym) std::fprintf(stderr, "[rank %d] FAIL: cannot find %s in the loaded MPI library\n", g_rank, name);
  return reinterpret_cast<MpiFlagFn>(sym);
}

// -1 if the MPI function could not be called.
int mpi_flag(MpiFlagFn fn) {
  if (!fn) return -1;
  int flag = -1;
  if (fn(&flag) != 0) return -1;
  return flag;
}

// Runs `call` with file descriptor 2 redirected into a temporary file and
// returns what it wrote there.
template <class Call>
std::string stderr_of(Call&& call) {
  std::fflush(stderr);
  std::FILE* tmp = std::tmpfile();
  if (!tmp) return "<tmpfile failed>";
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(::fileno(tmp), STDERR_FILENO);
  call();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::rewind(tmp);
  std::string text;
  char buf[1024];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) text.append(buf, n);
  std::fclose(tmp);
  return text;
}

// The log line of a rejected call made while no unit id is known (MPI not
// initialised yet, or already finalised): exactly one line
// "[dart unit -1] <call>: error: <reason>".
void check_unknown_unit_line(const std::string& log, const char* call) {
  const std::string prefix = std::string("[dart unit -1] ") + call + ": error: ";
  const bool one_line = !log.empty() && log.find('\n') == log.size() - 1;
  const bool ok = one_line && log.compare(0, prefix.size(), prefix) == 0 && log.size() > prefix.size() + 1;
  ++g_checks;
  if (ok) return;
  ++g_failures;
  std::fprintf(stderr, "[rank %d] FAIL: expected one line \"%s<reason>\", got \"%s\"\n", g_rank, prefix.c_str(),
               log.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything: libdart is loaded (it is linked), MPI is not started.
  const MpiFlagFn mpi_initialized = mpi_function("MPI_Initialized");
  const MpiFlagFn mpi_finalized = mpi_function("MPI_Finalized");
  check(mpi_initialized != nullptr && mpi_finalized != nullptr, "MPI_Initialized/MPI_Finalized not found");
  check(mpi_flag(mpi_initialized) == 0, "MPI is initialised before dart_init although main() never did it");
  check(!dart_initialized(), "dart_initialized() true before dart_init");

  // Before MPI is initialised: refused, with the unit unknown (-1), and
  // without initialising MPI as a side effect.
  dart_global_unit_t early;
  dart_ret_t early_rc = DART_OK;
  const std::string early_log = stderr_of([&] { early_rc = dart_myid(&early); });
  check_rc(early_rc, DART_ERR_OTHER, "dart_myid before dart_init");
  check(early.id == -1, "dart_myid before dart_init did not set id to -1");
  check_unknown_unit_line(early_log, "dart_myid");
  size_t early_size = 0;
  dart_ret_t early_size_rc = DART_OK;
  const std::string size_log = stderr_of([&] { early_size_rc = dart_team_size(DART_TEAM_ALL, &early_size); });
  check_rc(early_size_rc, DART_ERR_NOTINIT, "dart_team_size before dart_init");
  check_unknown_unit_line(size_log, "dart_team_size");
  check(mpi_flag(mpi_initialized) == 0, "a refused call before dart_init initialised MPI");

  const dart_ret_t init_rc = dart_init(&argc, &argv);
  check_rc(init_rc, DART_OK, "dart_init(&argc, &argv)");
  if (init_rc != DART_OK) return 1;  // nothing else can be checked
  check(dart_initialized(), "dart_initialized() false after dart_init");
  check(mpi_flag(mpi_initialized) == 1, "MPI_Initialized is not true after dart_init initialised MPI");
  check(mpi_flag(mpi_finalized) == 0, "MPI_Finalized is true right after dart_init");

  dart_global_unit_t me;
  size_t n = 0;
  check_rc(dart_myid(&me), DART_OK, "dart_myid");
  check_rc(dart_size(&n), DART_OK, "dart_size");
  g_rank = me.id;
  check(me.id >= 0 && n >= 1 && static_cast<size_t>(me.id) < n, "dart_myid/dart_size out of range");
  if (n == 0) n = 1;

  // Ring: put my values into the right neighbour's portion, read what the
  // left neighbour put into mine, and read back what I put on the right.
  constexpr int kElems = 32;
  const int size = static_cast<int>(n);
  const int right = (me.id + 1) % size;
  const int left = (me.id + size - 1) % size;
  auto value = [](int unit, int i) { return 1000 * (unit + 1) + i; };

  dart_gptr_t seg = DART_GPTR_NULL;
  const dart_ret_t alloc_rc = dart_team_memalloc_aligned(DART_TEAM_ALL, kElems, DART_TYPE_INT, &seg);
  check_rc(alloc_rc, DART_OK, "dart_team_memalloc_aligned");
  if (alloc_rc == DART_OK) {
    std::vector<int> out(kElems);
    for (int i = 0; i < kElems; ++i) out[static_cast<size_t>(i)] = value(me.id, i);
    dart_gptr_t g = seg;
    g.unitid = right;
    check_rc(dart_put_blocking(g, out.data(), kElems, DART_TYPE_INT, DART_TYPE_INT), DART_OK, "dart_put_blocking");
    check_rc(dart_barrier(DART_TEAM_ALL), DART_OK, "dart_barrier");

    std::vector<int> in(kElems, -1);
    g.unitid = me.id;
    check_rc(dart_get_blocking(in.data(), g, kElems, DART_TYPE_INT, DART_TYPE_INT), DART_OK,
             "dart_get_blocking (own portion)");
    int wrong = 0;
    for (int i = 0; i < kElems; ++i) wrong += in[static_cast<size_t>(i)] != value(left, i);
    check(wrong == 0, "own portion does not hold the values the left neighbour put");

    std::vector<int> back(kElems, -1);
    g.unitid = right;
    check_rc(dart_get_blocking(back.data(), g, kElems, DART_TYPE_INT, DART_TYPE_INT), DART_OK,
             "dart_get_blocking (right neighbour)");
    wrong = 0;
    for (int i = 0; i < kElems; ++i) wrong += back[static_cast<size_t>(i)] != value(me.id, i);
    check(wrong == 0, "right neighbour's portion does not hold the values this unit put");

    check_rc(dart_barrier(DART_TEAM_ALL), DART_OK, "dart_barrier before dart_team_memfree");
    check_rc(dart_team_memfree(seg), DART_OK, "dart_team_memfree");
  }

  check_rc(dart_exit(), DART_OK, "dart_exit");
  check(!dart_initialized(), "dart_initialized() true after dart_exit");
  check(mpi_flag(mpi_finalized) == 1, "MPI_Finalized is not true after dart_exit, although DART initialised MPI");
  check(mpi_flag(mpi_initialized) == 1, "MPI_Initialized became false after dart_exit");

  // MPI cannot be initialised twice: DART must refuse, not crash, and say
  // so in one line without a unit id.
  dart_ret_t again = DART_OK;
  const std::string again_log = stderr_of([&] { again = dart_init(&argc, &argv); });
  check(again != DART_OK, "a second dart_init after dart_exit finalised MPI returned DART_OK");
  check_unknown_unit_line(again_log, "dart_init");
  check(!dart_initialized(), "dart_initialized() true after the refused second dart_init");

  // The further refusals below are expected; keep their lines out of the
  // output.
  dart_config_t* cfg = nullptr;
  dart_config(&cfg);
  check(cfg != nullptr, "dart_config gave NULL after dart_exit");
  if (cfg) cfg->log_enabled = 0;
  const dart_ret_t third = dart_init(&argc, &argv);
  check(third != DART_OK, "a third dart_init after dart_exit finalised MPI returned DART_OK");
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  const dart_ret_t again_thread = dart_init_thread(&argc, &argv, &level);
  check(again_thread != DART_OK, "dart_init_thread after dart_exit finalised MPI returned DART_OK");
  check(!dart_initialized(), "dart_initialized() true after the refused dart_init_thread");

  // The uninitialised runtime still answers queries correctly.
  dart_global_unit_t id_after;
  size_t size_after = 99;
  check_rc(dart_myid(&id_after), DART_ERR_OTHER, "dart_myid after dart_exit");
  check(id_after.id == -1, "dart_myid after dart_exit did not set id to -1");
  check_rc(dart_size(&size_after), DART_ERR_OTHER, "dart_size after dart_exit");
  check(size_after == 0, "dart_size after dart_exit did not set size to 0");
  check_rc(dart_exit(), DART_ERR_OTHER, "dart_exit when not initialised");
  if (cfg) cfg->log_enabled = 1;

  if (g_failures) {
    std::fprintf(stderr, "[rank %d] %d of %d checks FAILED\n", g_rank, g_failures, g_checks);
    return 1;
  }
  std::printf("[rank %d] all %d checks passed\n", g_rank, g_checks);
  return 0;
}
