/*
 * The program env_variables.cmake launches with SHMEM_VERSION, SHMEM_INFO,
 * SHMEM_DEBUG and SHMEM_SYMMETRIC_SIZE set: each PE prints one line with
 * its heap's size (shmemx_heap_size), so the script can check the size on
 * every PE beside what the variables made the library print.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>

int main(void) {
  shmem_init();
  printf("hello: PE %d of %d: heap %zu bytes\n", shmem_my_pe(), shmem_n_pes(), shmemx_heap_size());
  fflush(stdout);
  shmem_finalize();
  return 0;
}
