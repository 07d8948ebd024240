/*
 * The checks of the OpenSHMEM test programs.
 *
 * CHECK(cond, fmt, ...) counts a check and, when cond is false, counts a
 * failure and prints "FAIL PE <pe> line <line>: <message>" on the failing
 * PE. CHECK_ERR(code, what) checks that the last routine recorded the error
 * code (shmemx_last_error, which also resets it). check_finish() prints
 * the PE's summary, finalizes and returns the program's exit status:
 * non-zero when any check failed on this PE.
 */
#ifndef SHMEM_CHECK_H_
#define SHMEM_CHECK_H_

#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>

static long check_count_;
static long check_failures_;

#define CHECK(cond, ...)                                                \
  do {                                                                  \
    ++check_count_;                                                     \
    if (!(cond)) {                                                      \
      ++check_failures_;                                                \
      fprintf(stderr, "FAIL PE %d line %d: ", shmem_my_pe(), __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                     \
      fputc('\n', stderr);                                              \
      fflush(stderr);                                                   \
    }                                                                   \
  } while (0)

/* The last routine recorded `code` (SHMEMX_SUCCESS: no routine failed since
 * the last look). */
#define CHECK_ERR(code, what)                                                      \
  do {                                                                             \
    const int err_ = shmemx_last_error();                                          \
    CHECK(err_ == (code), "%s: error code %d, expected %d", (what), err_, (code)); \
  } while (0)

static int check_finish(const char* program) {
  printf("%s: PE %d of %d: %ld checks, %ld failed\n", program, shmem_my_pe(), shmem_n_pes(), check_count_,
         check_failures_);
  fflush(stdout);
  shmem_finalize();
  return check_failures_ ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* SHMEM_CHECK_H_ */
