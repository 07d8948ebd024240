// unit_exit: one unit ends abnormally while the others wait in a barrier,
// so the tests of dartrun's exit status (run_exit.sh) see what a real
// failure looks like to each launcher.
//
//   unit_exit [--unit U] [--code C | --signal S]
//
// Unit U exits with code C right after dart_init (without dart_exit), or
// raises signal S; every other unit enters dart_barrier, which cannot
// complete, so the job ends only if the launcher ends it. Without --unit
// every unit passes the barrier and exits 0.
#include <dash/dart/if/dart.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  int unit = -1, code = 0, sig = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--unit")) unit = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--code")) code = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--signal")) sig = std::atoi(argv[i + 1]);
  }
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  dart_global_unit_t me;
  dart_myid(&me);
  if (me.id == unit) {
    if (sig) {
      std::signal(sig, SIG_DFL);
      std::raise(sig);
    }
    std::exit(code);
  }
  dart_barrier(DART_TEAM_ALL);
  dart_exit();
  return 0;
}
