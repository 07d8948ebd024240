// Command-line options shared by the benchmarks that sweep message sizes:
// --iterations N (calls per round), --rounds N (best of), --max-bytes N.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

// A size for a table: "4 MiB", "32 KiB", "8 B" (exact multiples only).
inline std::string human(std::size_t bytes) {
  char s[32];
  if (bytes >= (std::size_t(1) << 20) && bytes % (std::size_t(1) << 20) == 0)
    std::snprintf(s, sizeof s, "%zu MiB", bytes >> 20);
  else if (bytes >= 1024 && bytes % 1024 == 0) std::snprintf(s, sizeof s, "%zu KiB", bytes >> 10);
  else std::snprintf(s, sizeof s, "%zu B", bytes);
  return s;
}

}  // namespace bench
