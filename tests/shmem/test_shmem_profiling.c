/*
 * The profiling interface: run with shmem_count_tool preloaded, which
 * takes the shmem_ names of nineteen routines, counts the calls and
 * forwards them to pshmem_. Covers: the results of puts, gets, a
 * fetch-add, a wait, a broadcast and the heap routines are what they are
 * without the tool; the tool's counts equal the calls this program made,
 * exactly (a C11 type-generic call counts as its typed routine; calls the
 * library makes between its own routines, shmem_init to shmem_init_thread,
 * shmem_realloc to shmem_free, shmem_pe_quiet to shmem_ctx_pe_quiet, the
 * deprecated _my_pe to shmem_my_pe, are not counted); and shmem_pcontrol
 * reaches the tool. Does not cover: profilers linked statically, threads.
 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K = 16 };

static long failures;
static int me = -1;

#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (!(cond)) {                                           \
      ++failures;                                            \
      fprintf(stderr, "FAIL PE %d line %d: ", me, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                          \
      fputc('\n', stderr);                                   \
    }                                                        \
  } while (0)

static long counter; /* symmetric: a global variable */

struct expected {
  const char* name;
  long calls;
};

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  CHECK(_my_pe() == me, "_my_pe() %d", _my_pe());

  const char* dir = getenv("SHMEM_COUNT_TOOL_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/counts.%d", dir ? dir : ".", me);
  remove(path); /* a stale file of an earlier run must not pass */

  long* a = shmem_malloc(K * sizeof(long));
  long* b = shmem_malloc(K * sizeof(long));
  long src[K], dst[K];
  for (int i = 0; i < K; ++i) src[i] = me * 1000 + i;

  /* Half through the typed name, half through the C11 generic one: both
   * are calls of shmem_long_put. */
  shmem_long_put(a, src, K / 2, right);
  shmem_put(a + K / 2, src + K / 2, K / 2, right);
  shmem_barrier_all();
  for (int i = 0; i < K; ++i) CHECK(a[i] == left * 1000 + i, "a[%d] = %ld after the put from PE %d", i, a[i], left);

  shmem_long_get(dst, a, K, right);
  for (int i = 0; i < K; ++i)
    CHECK(dst[i] == me * 1000 + i, "dst[%d] = %ld after the get from PE %d", i, dst[i], right);

  const long before = shmem_long_atomic_fetch_add(&counter, 1, 0);
  CHECK(before >= 0 && before < n, "fetch-add returned %ld", before);
  shmem_quiet();
  const int targets[1] = {0};
  shmem_pe_quiet(targets, 1);
  if (me == 0) {
    shmem_long_wait_until(&counter, SHMEM_CMP_EQ, n);
    CHECK(counter == n, "counter %ld after the wait", counter);
  }
  shmem_barrier_all();

  shmem_long_p(&b[0], -1, me);
  shmem_barrier_all();
  CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, b, src, K, 0) == 0, "broadcast failed");
  for (int i = 0; i < K; ++i) CHECK(b[i] == i, "b[%d] = %ld after the broadcast from PE 0", i, b[i]);

  shmem_pcontrol(2);
  long* c = shmem_realloc(b, 2 * K * sizeof(long)); /* may move: a copy */
  CHECK(c && c[K - 1] == K - 1, "realloc kept %ld", c ? c[K - 1] : -1L);
  CHECK(shmem_realloc(c, 0) == NULL, "realloc to 0 bytes returned a block"); /* frees inside */
  shmem_free(a);
  shmem_finalize();

  /* The tool wrote this PE's counts in shmem_finalize. */
  const long barriers = 3;
  const struct expected want[] = {
      {"shmem_init", 1},
      {"shmem_init_thread", 0},
      {"shmem_my_pe", 1},
      {"shmem_n_pes", 1},
      {"shmem_malloc", 2},
      {"shmem_free", 1},
      {"shmem_realloc", 2},
      {"shmem_long_put", 2},
      {"shmem_long_get", 1},
      {"shmem_long_p", 1},
      {"shmem_long_atomic_fetch_add", 1},
      {"shmem_barrier_all", barriers},
      {"shmem_quiet", 1},
      {"shmem_ctx_pe_quiet", 0},
      {"shmem_pe_quiet", 1},
      {"shmem_long_broadcast", 1},
      {"shmem_long_wait_until", me == 0 ? 1 : 0},
      {"shmem_pcontrol", 1},
      {"shmem_finalize", 1},
  };
  const size_t nwant = sizeof want / sizeof want[0];
  FILE* f = fopen(path, "r");
  CHECK(f != NULL, "no counts at %s: was the tool preloaded?", path);
  size_t seen = 0;
  char name[128];
  long calls = 0;
  char report[2048] = "";
  while (f && fscanf(f, "%127s %ld", name, &calls) == 2) {
    int known = 0;
    for (size_t k = 0; k < nwant; ++k)
      if (strcmp(want[k].name, name) == 0) {
        known = 1;
        ++seen;
        CHECK(calls == want[k].calls, "%s called %ld times, the tool counted %ld", name, want[k].calls, calls);
      }
    CHECK(known, "the tool counted an unexpected routine %s", name);
    const size_t used = strlen(report);
    snprintf(report + used, sizeof report - used, " %s=%ld", name, calls);
  }
  if (f) fclose(f);
  CHECK(seen == nwant, "the tool reported %zu of %zu routines", seen, nwant);
  if (me == 0) printf("profiling: PE 0 counts:%s\n", report);
  printf("profiling: PE %d of %d: %s\n", me, n, failures ? "FAILED" : "counts exact, results unchanged");
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
