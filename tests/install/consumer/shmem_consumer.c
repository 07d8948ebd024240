/* An OpenSHMEM program that knows nothing of DART: a ring of puts into a
 * global variable and the heap, a reduction and a put with signal,
 * written with the C11 type-generic interface. */
#include <shmem.h>
#include <stdio.h>

static long ring[4];
static long total, one; /* reduction buffers are symmetric */

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long* heap = (long*)shmem_malloc(4 * sizeof(long));
  uint64_t* sig = (uint64_t*)shmem_calloc(1, sizeof(uint64_t));
  long mine[4];
  for (int i = 0; i < 4; ++i) mine[i] = 10L * me + i;
  shmem_put(ring, mine, 4, (me + 1) % n);
  shmem_barrier_all();
  shmem_put_signal(heap, ring, 4, sig, 1, SHMEM_SIGNAL_SET, (me + 1) % n);
  shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
  const int two_back = (me + 2 * n - 2) % n;
  int ok = 1;
  for (int i = 0; i < 4; ++i) ok &= heap[i] == 10L * two_back + i;
  one = ok;
  shmem_sum_reduce(SHMEM_TEAM_WORLD, &total, &one, 1);
  if (me == 0) printf(total == n ? "shmem consumer ok on %d PEs\n" : "shmem consumer FAILED on %d PEs\n", n);
  shmem_free(sig);
  shmem_free(heap);
  shmem_finalize();
  return total == n ? 0 : 1;
}
