// Command-line options shared by the benchmarks that sweep message sizes:
// --iterations N (calls per round), --rounds N (best of), --max-bytes N.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace bench {

struct Options {
  int iterations;
  int rounds;
  std::size_t max_bytes;
};

// `defaults` overridden by whatever the command line names.
inline Options parse_options(int argc, char** argv, Options defaults) {
  Options o = defaults;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iterations")) o.iterations = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--rounds")) o.rounds = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--max-bytes")) o.max_bytes = std::strtoull(argv[i + 1], nullptr, 10);
  }
  return o;
}

}  // namespace bench
