/*
 * OpenSHMEM setup, queries and symmetric memory: identities, version,
 * accessibility, direct pointers, the heap's collective allocator (every
 * routine, alignment, reuse, exhaustion, arguments that differ between
 * PEs) and the errors of bad input.
 */
#include "shmem_check.h"

#include <stdint.h>
#include <string.h>

static long global_var;
static long global_preset = 0x5eed; /* .data, not .bss */
static long global_block[64];

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  CHECK(me >= 0 && me < n && n >= 1, "my_pe %d, n_pes %d", me, n);
  CHECK(_my_pe() == me && _num_pes() == n, "deprecated identity names");
  int major = 0, minor = 0;
  shmem_info_get_version(&major, &minor);
  CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1 && minor == 6,
        "version %d.%d", major, minor);
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_name(name);
  CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name \"%s\"", name);
  int level = -1;
  shmem_query_thread(&level);
  CHECK(level == SHMEM_THREAD_SINGLE, "thread level %d after shmem_init", level);

  /* Identities agree across PEs: everyone reports the same n_pes and a
   * distinct my_pe (a sum and a sum of squares over the world team). */
  {
    static long mine[2], sums[2];
    mine[0] = me;
    mine[1] = (long)me * me;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sums, mine, 2);
    const long s = (long)n * (n - 1) / 2, q = (long)(n - 1) * n * (2 * n - 1) / 6;
    CHECK(sums[0] == s && sums[1] == q, "PE numbers are not 0..n-1 (sum %ld, squares %ld)", sums[0], sums[1]);
  }

  /* Accessibility and direct pointers. */
  long stack_var = 0;
  long* heap = shmem_malloc(64 * sizeof(long));
  CHECK(heap != NULL, "shmem_malloc(512)");
  CHECK(shmem_pe_accessible(right) == 1 && shmem_pe_accessible(n) == 0 && shmem_pe_accessible(-1) == 0,
        "pe_accessible");
  CHECK(shmem_addr_accessible(heap, right) == 1 && shmem_addr_accessible(&global_var, right) == 1,
        "addr_accessible of symmetric memory");
  CHECK(shmem_addr_accessible(&stack_var, right) == 0, "addr_accessible of the stack");
  CHECK(shmem_ptr(heap, me) == heap && shmem_ptr(&global_var, me) == &global_var, "shmem_ptr to myself");
  /* Node mates map each other's heap unless load/store is off; PEs of
   * SHMEM_TEAM_SHARED are exactly those. */
  for (int p = 0; p < n; ++p) {
    const int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED) >= 0;
    long* q = shmem_ptr(heap, p);
    CHECK((q != NULL) == shared, "shmem_ptr to PE %d is %p but the PE is %sin SHMEM_TEAM_SHARED", p, (void*)q,
          shared ? "" : "not ");
    /* Global variables are shared like the heap (unless
     * SHMEM_SHARE_GLOBALS=0): mapped exactly where the heap is. */
    const int globals_shared = !getenv("SHMEM_SHARE_GLOBALS") || strcmp(getenv("SHMEM_SHARE_GLOBALS"), "0") != 0;
    if (p != me)
      CHECK((shmem_ptr(&global_var, p) != NULL) == (q != NULL && globals_shared),
            "shmem_ptr to PE %d's global is %p, its heap %p", p, shmem_ptr(&global_var, p), (void*)q);
    if (shared)
      CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, heap, shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED)) ==
                q,
            "shmem_team_ptr agrees with shmem_ptr for PE %d", p);
  }
  /* A store through a direct pointer is seen by its owner. */
  heap[0] = -1;
  shmem_barrier_all();
  long* r = shmem_ptr(heap, right);
  if (r) *r = 4242 + me;
  shmem_barrier_all();
  if (shmem_ptr(heap, (me + n - 1) % n)) CHECK(heap[0] == 4242 + (me + n - 1) % n, "store through shmem_ptr");
  /* The same for a global variable, and its value survives the move into
   * shared memory at shmem_init (it was set before main by the loader). */
  CHECK(global_preset == 0x5eed, "a preset global reads %ld after shmem_init", global_preset);
  global_var = -1;
  shmem_barrier_all();
  long* rg = shmem_ptr(&global_var, right);
  if (rg) *rg = 5252 + me;
  shmem_barrier_all();
  if (shmem_ptr(&global_var, (me + n - 1) % n))
    CHECK(global_var == 5252 + (me + n - 1) % n, "store through shmem_ptr to a global: %ld", global_var);
  shmemx_last_error();
  CHECK(shmem_ptr(&stack_var, right) == NULL, "shmem_ptr to the stack");
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "shmem_ptr to the stack");
  CHECK(shmem_ptr(heap, n) == NULL, "shmem_ptr to PE n");
  CHECK_ERR(SHMEMX_ERR_PE, "shmem_ptr to PE n");

  /* The allocator: every routine, symmetric offsets, alignment, reuse. */
  {
    char* blocks[8];
    for (int i = 0; i < 8; ++i) {
      blocks[i] = shmem_malloc((size_t)(i + 1) * 100);
      CHECK(blocks[i] != NULL && ((uintptr_t)blocks[i] % 16) == 0, "block %d", i);
    }
    /* The same offsets on every PE: PE 0's offsets reach everyone. */
    static long offs[8], offs0[8];
    for (int i = 0; i < 8; ++i) offs[i] = (long)(blocks[i] - (char*)heap);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, offs0, offs, 8, 0);
    CHECK(memcmp(offs, offs0, sizeof offs) == 0, "offsets differ from PE 0's");
    for (int i = 0; i < 8; i += 2) shmem_free(blocks[i]);
    char* again = shmem_malloc(100);
    CHECK(again == blocks[0], "the first freed block is reused (%p vs %p)", (void*)again, (void*)blocks[0]);
    void* aligned = shmem_align(4096, 10);
    CHECK(aligned && ((uintptr_t)aligned % 4096) == 0, "shmem_align(4096)");
    /* Every power of two up to 2 MiB, beyond the page: aligned on every PE,
     * and a put through it lands at the neighbour's aligned block. */
    for (size_t a = 8192; a <= ((size_t)2 << 20); a *= 4) {
      long* big = shmem_align(a, 3 * sizeof(long));
      CHECK(big && ((uintptr_t)big % a) == 0, "shmem_align(%zu) returned %p", a, (void*)big);
      if (big) {
        big[0] = -1;
        shmem_barrier_all();
        shmem_long_p(big, me * 100 + (long)(a >> 13), right);
        shmem_barrier_all();
        CHECK(big[0] == left * 100 + (long)(a >> 13), "put to shmem_align(%zu)'s block: %ld", a, big[0]);
        shmem_free(big);
      }
    }
    long* zeros = shmem_calloc(1000, sizeof(long));
    int nonzero = 0;
    for (int i = 0; i < 1000; ++i) nonzero += zeros[i] != 0;
    CHECK(zeros && nonzero == 0, "shmem_calloc: %d non-zero", nonzero);
    long* hinted = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(hinted != NULL, "shmem_malloc_with_hints");
    /* realloc keeps the contents, and the new block is symmetric. */
    for (int i = 0; i < 8; ++i) zeros[i] = me * 10 + i;
    long* grown = shmem_realloc(zeros, 100000 * sizeof(long));
    int kept = 0;
    for (int i = 0; i < 8; ++i) kept += grown && grown[i] == me * 10 + i;
    CHECK(kept == 8, "shmem_realloc kept %d of 8", kept);
    if (grown) {
      grown[99999] = -5;
      shmem_barrier_all();
      CHECK(shmem_long_g(&grown[99999], right) == -5, "realloc'd block reaches the neighbour");
      shmem_barrier_all();
    }
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0)");
    CHECK_ERR(SHMEMX_SUCCESS, "shmem_malloc(0)");
    shmem_free(NULL);
    CHECK_ERR(SHMEMX_SUCCESS, "shmem_free(NULL)");
    shmem_free(grown);
    shmem_free(hinted);
    shmem_free(aligned);
    shmem_free(again);
    for (int i = 1; i < 8; i += 2) shmem_free(blocks[i]);
  }
  const size_t used = shmemx_heap_used();

  /* Bad input, collectively. */
  {
    CHECK(shmem_malloc(shmemx_heap_size() + 1) == NULL, "more than the heap");
    CHECK_ERR(SHMEMX_ERR_NOMEM, "more than the heap");
    CHECK(shmem_align(3, 64) == NULL, "alignment 3");
    CHECK_ERR(SHMEMX_ERR_ARG, "alignment 3");
    CHECK(shmem_align((size_t)4 << 20, 64) == NULL, "alignment 4 MiB");
    CHECK_ERR(SHMEMX_ERR_ARG, "alignment 4 MiB");
    if (n > 1) {
      CHECK(shmem_malloc(me == 0 ? 64 : 128) == NULL, "sizes that differ between PEs");
      CHECK_ERR(SHMEMX_ERR_MISMATCH, "sizes that differ between PEs");
    }
    shmem_free(&stack_var);
    CHECK_ERR(SHMEMX_ERR_ADDRESS, "free of the stack");
    shmem_free(global_block);
    CHECK_ERR(SHMEMX_ERR_ADDRESS, "free of a global");
    CHECK(shmem_calloc(SIZE_MAX, 2) == NULL, "calloc overflow");
    CHECK_ERR(SHMEMX_ERR_ARG, "calloc overflow");
    CHECK(shmemx_heap_used() == used, "bad input changed the heap: %zu bytes used, was %zu", shmemx_heap_used(),
          used);
  }

  shmem_free(heap);
  CHECK(shmemx_heap_used() == 0, "%zu bytes left in use after every free", shmemx_heap_used());
  return check_finish("test_shmem_setup");
}
