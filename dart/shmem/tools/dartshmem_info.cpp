// dartshmem_info (installed as oshmem_info too): what this OpenSHMEM is,
// what it runs on and how the environment configures it. The report is
// the one SHMEM_INFO prints at shmem_init (src/info.cpp).
#include "info.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void usage(const char* self, std::FILE* to) {
  std::fprintf(to,
               "usage: %s [--all] [--parsable] [--version] [--help]\n"
               "Prints the library and OpenSHMEM specification versions, the vendor string, the MPI\n"
               "underneath, how the library was built, and every SHMEM_* and DART_* environment\n"
               "variable the runtime reads with its value here and its default.\n"
               "  -a, --all       also each variable's meaning and the MPI's full description\n"
               "  -p, --parsable  section:key:value lines, for scripts\n"
               "  -V, --version   only the version line (as SHMEM_VERSION=1 prints it)\n"
               "  -h, --help      this text\n",
               self);
}

}  // namespace

int main(int argc, char** argv) {
  const char* self = std::strrchr(argv[0], '/') ? std::strrchr(argv[0], '/') + 1 : argv[0];
  bool all = false, parsable = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-a" || a == "--all") all = true;
    else if (a == "-p" || a == "--parsable" || a == "--parseable") parsable = true;
    else if (a == "-V" || a == "--version") {
      std::printf("%s\n", dshmem::info::version_line().c_str());
      return 0;
    } else if (a == "-h" || a == "--help") {
      usage(self, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "%s: unknown option '%s'\n", self, argv[i]);
      usage(self, stderr);
      return 2;
    }
  }
  std::fputs(dshmem::info::report(all, parsable).c_str(), stdout);
  return 0;
}
