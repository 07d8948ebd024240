// unit_exit: one unit ends abnormally while the others wait in a barrier,
// so the tests of dartrun's exit status (run_exit.sh) see what a real
// failure looks like to each launcher.
//
//   unit_exit [--unit U] [--code C | --signal S] [--late] [--memalloc BYTES] [--sleep SECONDS]
//
// Unit U exits with code C right after dart_init (without dart_exit), or
// raises signal S; every other unit enters dart_barrier, which cannot
// complete, so the job ends only if the launcher ends it. Without --unit
// every unit passes the barrier and exits 0. With --memalloc every unit
// first takes BYTES of dart_memalloc, beyond the local pool, so it holds an
// object in /dev/shm named by the job key dartrun gave it (DART_JOB_KEY);
// a unit that finds no such object exits 97. With --late unit U exits with
// code C only after the barrier and dart_exit, so nobody waits for it (a
// job that loses a unit mid-barrier across hosts is the launcher's
// business; what happens to its exit code is dartrun's). With --sleep every unit, once
// all have passed a barrier, sleeps SECONDS before dart_exit; unit 0 first
// prints "unit_exit: ready" (flushed), so a test can signal dartrun while
// the job certainly runs, without guessing how long the launch takes.
#include <dash/dart/if/dart.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

#include <sys/stat.h>

int main(int argc, char** argv) {
  int unit = -1, code = 0, sig = 0;
  unsigned long long memalloc = 0;
  unsigned sleep_s = 0;
  bool late = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--late")) {
      late = true;  // a flag: no value follows
      continue;
    }
    if (i + 1 >= argc) break;
    if (!std::strcmp(argv[i], "--unit")) unit = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--code")) code = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--signal")) sig = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--memalloc")) memalloc = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--sleep")) sleep_s = static_cast<unsigned>(std::atoi(argv[i + 1]));
    ++i;
  }
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  dart_global_unit_t me;
  dart_myid(&me);
  if (memalloc) {
    dart_gptr_t g;
    void* p = nullptr;
    if (dart_memalloc(memalloc, DART_TYPE_BYTE, &g) != DART_OK || dart_gptr_getaddr(g, &p) != DART_OK || !p) return 96;
    std::memset(p, 1, memalloc);
    const char* key = std::getenv("DART_JOB_KEY");
    const std::string object = std::string("/dev/shm/dart-") + (key ? key : "?") + "-" + std::to_string(me.id) + "-1";
    struct stat st;
    if (::stat(object.c_str(), &st) != 0) {
      std::fprintf(stderr, "unit_exit: unit %d: no %s\n", me.id, object.c_str());
      return 97;
    }
  }
  if (me.id == unit && !late) {
    if (sig) {
      std::signal(sig, SIG_DFL);
      std::raise(sig);
    }
    std::exit(code);
  }
  dart_barrier(DART_TEAM_ALL);
  if (sleep_s) {
    if (me.id == 0) {
      std::printf("unit_exit: ready\n");
      std::fflush(stdout);
    }
    ::sleep(sleep_s);
  }
  dart_exit();
  if (late && me.id == unit) std::exit(code);
  return 0;
}
