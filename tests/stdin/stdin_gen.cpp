// stdin_gen: the producer of the stdin tests and benchmarks.  Writes SIZE
// bytes of the test pattern (pattern.hpp) to stdout and reports how it
// ended: exit 0 when everything was written, 3 when the reader went away
// (EPIPE: the producer was told), 1 on another error.
//
//   stdin_gen SIZE [--progress FILE] [--quiet]
//
// --progress FILE: after every write the running total is stored in FILE
// (20 digits at offset 0), so a test can see whether the producer is
// blocked and how many bytes are in flight.
#include "pattern.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stdin_gen SIZE [--progress FILE] [--quiet]\n");
    return 2;
  }
  char* end = nullptr;
  unsigned long long size = std::strtoull(argv[1], &end, 10);
  if (*end == 'K' || *end == 'k') size <<= 10;
  if (*end == 'M' || *end == 'm') size <<= 20;
  if (*end == 'G' || *end == 'g') size <<= 30;
  int progress = -1;
  bool quiet = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--progress" && i + 1 < argc) progress = ::open(argv[++i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    else if (a == "--quiet") quiet = true;
  }
  ::signal(SIGPIPE, SIG_IGN);  // see EPIPE instead of dying silently
  const std::size_t kBuf = 256 * 1024;
  std::vector<unsigned char> buf(kBuf);
  unsigned long long pos = 0;
  while (pos < size) {
    std::size_t n = static_cast<std::size_t>(std::min<unsigned long long>(kBuf, size - pos));
    stdin_test::fill(pos, buf.data(), n);
    ssize_t w = ::write(1, buf.data(), n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      int e = errno;
      if (!quiet) std::fprintf(stderr, "stdin_gen: write failed after %llu bytes: %s\n", pos, std::strerror(e));
      return e == EPIPE ? 3 : 1;
    }
    pos += static_cast<unsigned long long>(w);
    if (progress >= 0) {
      char num[24];
      std::snprintf(num, sizeof num, "%020llu", pos);
      ::pwrite(progress, num, 20, 0);
    }
  }
  if (!quiet) std::fprintf(stderr, "stdin_gen: wrote %llu bytes\n", pos);
  return 0;
}
