// shmem_stdin: the OpenSHMEM program of the stdin loop and tests that run
// under oshrun (scripts/stdin-unreach-loop.sh): shmem_init, then, with
// --size N, PE 0 reads its stdin to EOF and checks that it got exactly N
// bytes of the test pattern (pattern.hpp); without it no PE reads stdin;
// then shmem_finalize. It covers a short OpenSHMEM job's start and end, the
// window in which dartrun (oshrun) must meet the job's stdin server; it does
// not cover routing (PE 0 only) or flow control (tests/stdin/run_case.sh).
//
//   shmem_stdin [--size N]
//
// PE 0 prints "shmem_stdin: pe 0: OK read=N" or "... FAIL read=N reason";
// the exit code is 1 on a failure, else 0.
#include "pattern.hpp"

#include <shmem.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  long long size = -1;  // -1: do not read stdin
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--size") && i + 1 < argc) {
      size = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "shmem_stdin: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  shmem_init();
  const int me = shmem_my_pe();
  int rc = 0;
  if (size >= 0 && me == 0) {
    std::vector<unsigned char> buf(64 * 1024);
    unsigned long long got = 0;
    std::string why;
    for (;;) {
      ssize_t n = ::read(0, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::string("read: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      const std::size_t bad = stdin_test::check(got, buf.data(), static_cast<std::size_t>(n));
      if (bad != static_cast<std::size_t>(n)) {
        why = "byte " + std::to_string(got + bad) + " differs from the pattern";
        got += bad;
        break;
      }
      got += static_cast<unsigned long long>(n);
    }
    if (why.empty() && got != static_cast<unsigned long long>(size))
      why = "expected " + std::to_string(size) + " bytes";
    std::printf("shmem_stdin: pe 0: %s read=%llu%s%s\n", why.empty() ? "OK" : "FAIL", got, why.empty() ? "" : " ",
                why.c_str());
    std::fflush(stdout);
    rc = why.empty() ? 0 : 1;
  }
  shmem_finalize();
  return rc;
}
