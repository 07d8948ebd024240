/*
 * Built by the installed oshcc (and, as C++, oshc++) against the installed
 * pshmem.h: a program that calls the name-shifted entry points directly,
 * as a profiling library forwards to them. Both headers, as a tool
 * includes them; in C++ pshmem.h declares after shmem.h's overloads of
 * routine names (shmem_sync, shmem_signal_add) whichever comes first.
 */
#include <pshmem.h>
#include <shmem.h>

#include <stdio.h>

static long x;

int main(void) {
  pshmem_init();
  const int me = pshmem_my_pe(), n = pshmem_n_pes();
  pshmem_long_p(&x, me + 1, (me + 1) % n);
  pshmem_barrier_all();
  const int ok = x == (me + n - 1) % n + 1;
  int major = 0, minor = 0;
  pshmem_info_get_version(&major, &minor);
  printf("pshmem consumer %s on PE %d of %d (OpenSHMEM %d.%d)\n", ok ? "ok" : "FAILED", me, n, major, minor);
  fflush(stdout);
  pshmem_finalize();
  return ok ? 0 : 1;
}
