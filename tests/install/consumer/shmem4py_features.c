/* Compiled with the installed oshcc and the flags of share/dart/shmem4py.flags,
 * as shmem4py builds its module. Each of shmem4py's PySHMEM_HAVE_ feature
 * macros must be set, or shmem4py declares a static stand-in that clashes
 * with shmem.h; and each must name routines shmem.h really declares, which
 * taking their addresses checks (and linking checks libdartshmem has them). */
#include <shmem.h>
#include <stdio.h>

#define NEED(feature) \
  _Static_assert(feature + 0 == 1, #feature " is not set by shmem4py.flags");

NEED(PySHMEM_HAVE_shmem_malloc_with_hints)
NEED(PySHMEM_HAVE_shmem_team_t)
NEED(PySHMEM_HAVE_SHMEM_CTX_INVALID)
NEED(PySHMEM_HAVE_shmem_amo_nbi)
NEED(PySHMEM_HAVE_shmem_put_signal)
NEED(PySHMEM_HAVE_shmem_signal_fetch)
NEED(PySHMEM_HAVE_shmem_signal_wait_until)
NEED(PySHMEM_HAVE_shmem_broadcast)
NEED(PySHMEM_HAVE_shmem_collect)
NEED(PySHMEM_HAVE_shmem_fcollect)
NEED(PySHMEM_HAVE_shmem_alltoall)
NEED(PySHMEM_HAVE_shmem_alltoalls)
NEED(PySHMEM_HAVE_shmem_broadcastmem)
NEED(PySHMEM_HAVE_shmem_collectmem)
NEED(PySHMEM_HAVE_shmem_fcollectmem)
NEED(PySHMEM_HAVE_shmem_alltoallmem)
NEED(PySHMEM_HAVE_shmem_alltoallsmem)
NEED(PySHMEM_HAVE_shmem_reduce)
NEED(PySHMEM_HAVE_shmem_wait_test_many)
NEED(PySHMEM_HAVE_shmem_pcontrol)

int main(void) {
  shmem_team_t team = SHMEM_TEAM_INVALID;
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  void (*routines[])(void) = {
    (void (*)(void))shmem_malloc_with_hints,
    (void (*)(void))shmem_ctx_long_atomic_fetch_add_nbi,
    (void (*)(void))shmem_ulong_atomic_fetch_xor_nbi,
    (void (*)(void))shmem_long_atomic_swap_nbi,
    (void (*)(void))shmem_long_put_signal,
    (void (*)(void))shmem_putmem_signal_nbi,
    (void (*)(void))shmem_signal_fetch,
    (void (*)(void))shmem_signal_wait_until,
    (void (*)(void))shmem_long_broadcast,
    (void (*)(void))shmem_long_collect,
    (void (*)(void))shmem_long_fcollect,
    (void (*)(void))shmem_long_alltoall,
    (void (*)(void))shmem_long_alltoalls,
    (void (*)(void))shmem_broadcastmem,
    (void (*)(void))shmem_collectmem,
    (void (*)(void))shmem_fcollectmem,
    (void (*)(void))shmem_alltoallmem,
    (void (*)(void))shmem_alltoallsmem,
    (void (*)(void))shmem_long_sum_reduce,
    (void (*)(void))shmem_long_wait_until_all_vector,
    (void (*)(void))shmem_long_test_some_vector,
    (void (*)(void))shmem_pcontrol,
  };
  int missing = 0;
  for (size_t i = 0; i < sizeof routines / sizeof routines[0]; i++)
    missing += routines[i] == NULL;
  printf("shmem4py features: %zu routines, %d missing, team %s, ctx %s\n",
         sizeof routines / sizeof routines[0], missing,
         team == SHMEM_TEAM_INVALID ? "invalid" : "?", ctx == SHMEM_CTX_INVALID ? "invalid" : "?");
  return missing != 0;
}
