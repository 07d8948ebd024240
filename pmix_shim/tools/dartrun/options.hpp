// dartrun's command line and the launcher's: which launcher family it
// wraps, what dartrun adds to the launcher's arguments.
#pragma once

#include <string>
#include <vector>

namespace dartrun {

enum class Flavor { openmpi, hydra };

struct Options {
  std::string target;
  std::string launcher;
  std::string rendezvous;  // auto, unix, tcp or tcp:ADDR
  bool stats = false;
  std::vector<std::string> args;  // the launcher's
};

void usage(FILE *to);

// Parses argv. Returns -1 to go on, else the exit status (0 after --help, 2
// for a usage error, said on stderr in one line or with the usage).
int parse_options(int argc, char **argv, Options *o);

// Which launcher family `path` is: asks it, as the build does.
Flavor detect_flavor(const std::string &path);

// True when `args` hold `a` or `a=...`.
bool has_arg(const std::vector<std::string> &args, const char *a);

}  // namespace dartrun
