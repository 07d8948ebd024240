/*
 * PEs out of step: the last PE skips a reduction the others make and goes
 * straight to shmem_finalize. Its finalize barrier meets their reduction,
 * which breaks DART_TEAM_ALL: the reduction fails on the others, a later
 * barrier fails at once, puts and gets still work, and shmem_finalize
 * ends on every PE (its CTest entry checks the exit code, dart_exit's line
 * and that the job ends in seconds). Not on the MPI path
 * (DART_SHARED_MEMORY=0), where calls are not compared.
 */
#include "shmem_check.h"

#include <string.h>

static long src, dst;
static int box;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const char* shm = getenv("DART_SHARED_MEMORY");
  if (npes < 2 || (shm && strcmp(shm, "0") == 0)) return check_finish("test_shmem_out_of_step");
  shmem_barrier_all();
  if (me != npes - 1) {
    src = me;
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1) != 0, "the reduction did not fail");
    shmem_barrier_all();
    CHECK_ERR(SHMEMX_ERR_RUNTIME, "shmem_barrier_all on a broken team");
    /* One-sided access among the PEs that are still here. */
    const int right = (me + 1) % (npes - 1), left = (me + npes - 2) % (npes - 1);
    shmem_int_atomic_add(&box, 100 + me, right);
    shmem_quiet();
    int seen = 0;
    while ((seen = shmem_int_atomic_fetch(&box, me)) == 0) {
    }
    CHECK(seen == 100 + left, "PE %d: box holds %d, expected %d", me, seen, 100 + left);
  }
  return check_finish("test_shmem_out_of_step");
}
