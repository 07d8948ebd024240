/*
 * OpenSHMEM 1.6's additions: the version, shmem_query_initialized, the sum
 * scans (every type, world and a split team, in place and out of place,
 * typed, C11 generic and Sandia's shmemx_ names), shmem_ibput/ibget (typed,
 * sized, context and generic forms, gaps left alone), sessions, and the
 * errata (allocation on the world team, split_strided's strides and
 * wrap-around, a team in reverse order through RMA and every collective,
 * fence per context, an empty test_all, const vector compare values,
 * team_get_config with mask 0), each with its bad input, and the C11 forms
 * of shmem_signal_add/set. Counted initialisation and restarting are
 * test_shmem_reinit.c's; signal add/set, pe_quiet and team_ptr themselves
 * are tested with the routines they extend (test_shmem_sync.c,
 * test_shmem_setup.c).
 */
#include "shmem_check.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

#define NSCAN 5

/* One function per type: inscan and exscan of source (tme+1)*(i+1), out of
 * place then in place, checked against the closed forms. */
#define SCAN_TEST(T, N)                                                                                 \
  static T scan_src_##N[NSCAN], scan_dst_##N[NSCAN];                                                   \
  static void scan_##N(shmem_team_t team) {                                                            \
    const int tme = shmem_team_my_pe(team);                                                            \
    for (int i = 0; i < NSCAN; ++i) scan_src_##N[i] = (T)((tme + 1) * (i + 1));                        \
    CHECK(shmem_##N##_sum_inscan(team, scan_dst_##N, scan_src_##N, NSCAN) == 0, #N " inscan");         \
    for (int i = 0; i < NSCAN; ++i)                                                                    \
      CHECK(scan_dst_##N[i] == (T)((i + 1) * (tme + 1) * (tme + 2) / 2), #N " inscan element %d", i);  \
    CHECK(shmem_##N##_sum_exscan(team, scan_dst_##N, scan_src_##N, NSCAN) == 0, #N " exscan");         \
    for (int i = 0; i < NSCAN; ++i)                                                                    \
      CHECK(scan_dst_##N[i] == (T)((i + 1) * tme * (tme + 1) / 2), #N " exscan element %d", i);        \
    memcpy(scan_dst_##N, scan_src_##N, sizeof scan_dst_##N);                                           \
    CHECK(shmem_##N##_sum_exscan(team, scan_dst_##N, scan_dst_##N, NSCAN) == 0, #N " exscan in place"); \
    for (int i = 0; i < NSCAN; ++i)                                                                    \
      CHECK(scan_dst_##N[i] == (T)((i + 1) * tme * (tme + 1) / 2), #N " in-place exscan %d", i);       \
    memcpy(scan_dst_##N, scan_src_##N, sizeof scan_dst_##N);                                           \
    CHECK(shmem_##N##_sum_inscan(team, scan_dst_##N, scan_dst_##N, NSCAN) == 0, #N " inscan in place"); \
    for (int i = 0; i < NSCAN; ++i)                                                                    \
      CHECK(scan_dst_##N[i] == (T)((i + 1) * (tme + 1) * (tme + 2) / 2), #N " in-place inscan %d", i); \
  }
DART_SHMEM_ARITH_REDUCE_TYPES(SCAN_TEST)
#define SCAN_RUN(T, N) scan_##N(team);
static void scan_all_types(shmem_team_t team) { DART_SHMEM_ARITH_REDUCE_TYPES(SCAN_RUN) }

static long gscan_src[3], gscan_dst[3];
static double xscan_src[2], xscan_dst[2];

static int ib_dst[24];
static int ib_src[24];
static uint64_t ib64[24];
static char notes[64];
static long flag_ctx;
static long data_ctx[8];
static int empty_ivars[4];
static uint64_t sigw;

static void scans(int me, int n) {
  scan_all_types(SHMEM_TEAM_WORLD);
  /* The C11 generic names and Sandia's shmemx_ names. */
  for (int i = 0; i < 3; ++i) gscan_src[i] = me + i;
  CHECK(shmem_sum_exscan(SHMEM_TEAM_WORLD, gscan_dst, gscan_src, 3) == 0, "generic exscan");
  for (int i = 0; i < 3; ++i)
    CHECK(gscan_dst[i] == (long)me * (me - 1) / 2 + (long)i * me, "generic exscan %d: %ld", i, gscan_dst[i]);
  CHECK(me != 0 || (gscan_dst[0] == 0 && gscan_dst[1] == 0 && gscan_dst[2] == 0), "exscan writes 0 on PE 0");
  CHECK(shmem_sum_inscan(SHMEM_TEAM_WORLD, gscan_dst, gscan_src, 3) == 0, "generic inscan");
  CHECK(gscan_dst[0] == (long)me * (me + 1) / 2, "generic inscan: %ld", gscan_dst[0]);
  xscan_src[0] = 0.5;
  xscan_src[1] = me;
  CHECK(shmemx_double_sum_inscan(SHMEM_TEAM_WORLD, xscan_dst, xscan_src, 2) == 0, "shmemx inscan");
  CHECK(xscan_dst[0] == 0.5 * (me + 1) && xscan_dst[1] == me * (me + 1) / 2.0, "shmemx inscan values");
  CHECK(shmemx_sum_exscan(SHMEM_TEAM_WORLD, xscan_dst, xscan_src, 2) == 0, "shmemx generic exscan");
  CHECK(xscan_dst[0] == 0.5 * me, "shmemx exscan value %g", xscan_dst[0]);
  /* A team of the odd world PEs (or PE 0 alone): team PE numbers count. */
  shmem_team_t odd = SHMEM_TEAM_INVALID;
  const int size = n > 1 ? n / 2 : 1;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n > 1 ? 1 : 0, 2, size, NULL, 0, &odd) == 0, "split");
  if (odd != SHMEM_TEAM_INVALID) {
    scan_all_types(odd);
    shmem_team_destroy(odd);
  }
  /* Bad input: no team, a destroyed team, a team the caller is not in. */
  CHECK(shmem_long_sum_inscan(SHMEM_TEAM_INVALID, gscan_dst, gscan_src, 3) != 0, "scan on no team");
  CHECK_ERR(SHMEMX_ERR_TEAM, "scan on SHMEM_TEAM_INVALID");
  CHECK(shmem_long_sum_exscan(odd, gscan_dst, gscan_src, 3) != 0, "scan on a destroyed team");
  CHECK_ERR(SHMEMX_ERR_TEAM, "scan on a destroyed or foreign team");
  CHECK(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, gscan_dst, gscan_src, 0) == 0, "an empty scan");
}

static void blocks(int me, int n) {
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  int src[16];
  for (int i = 0; i < 16; ++i) src[i] = 1000 * me + i;
  for (int i = 0; i < 24; ++i) ib_dst[i] = -1;
  shmem_barrier_all();
  /* 4 blocks of 3: source blocks start every 4 elements, dest every 5. */
  shmem_int_ibput(ib_dst, src, 5, 4, 3, 4, right);
  shmem_barrier_all();
  for (int k = 0; k < 24; ++k) {
    const int blk = k / 5, off = k % 5;
    const int want = blk < 4 && off < 3 ? 1000 * left + blk * 4 + off : -1;
    CHECK(ib_dst[k] == want, "ibput element %d: %d, want %d", k, ib_dst[k], want);
  }
  /* ibget from the right neighbour's pattern into strided local blocks. */
  for (int i = 0; i < 24; ++i) ib_src[i] = 100 * me + i;
  shmem_barrier_all();
  int got[24];
  for (int i = 0; i < 24; ++i) got[i] = -7;
  shmem_ctx_int_ibget(SHMEM_CTX_DEFAULT, got, ib_src, 4, 6, 2, 3, right);
  for (int k = 0; k < 12; ++k) {
    const int blk = k / 4, off = k % 4;
    const int want = off < 2 ? 100 * right + blk * 6 + off : -7;
    CHECK(got[k] == want, "ibget element %d: %d, want %d", k, got[k], want);
  }
  /* Sized and generic forms, Sandia's names, a created context. */
  uint64_t w[8];
  for (int i = 0; i < 8; ++i) w[i] = ((uint64_t)me << 32) | (uint64_t)i;
  for (int i = 0; i < 24; ++i) ib64[i] = 0;
  shmem_barrier_all();
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
  shmem_ctx_ibput64(ctx, ib64, w, 3, 2, 2, 4, right);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  for (int k = 0; k < 12; ++k) {
    const int blk = k / 3, off = k % 3;
    const uint64_t want = off < 2 ? (((uint64_t)left << 32) | (uint64_t)(blk * 2 + off)) : 0;
    CHECK(ib64[k] == want, "ibput64 element %d", k);
  }
  uint64_t back[8] = {0};
  shmemx_ibget64(back, ib64, 2, 3, 2, 4, me);
  for (int k = 0; k < 8; ++k) CHECK(back[k] == (((uint64_t)left << 32) | (uint64_t)k), "shmemx_ibget64 %d", k);
  long lsrc[4] = {1, 2, 3, 4};
  static long lgen[8];
  shmem_barrier_all();
  shmem_ibput(ctx, lgen, lsrc, 2, 1, 1, 4, me);
  shmem_ibput(lgen + 1, lsrc, 2, 1, 1, 4, me);
  shmem_quiet();
  shmem_ctx_quiet(ctx);
  for (int k = 0; k < 8; ++k) CHECK(lgen[k] == lsrc[k / 2], "generic ibput %d: %ld", k, lgen[k]);
  char csrc[6] = "abcdef";
  shmemx_ibput(notes, csrc, 3, 3, 3, 2, me);
  shmem_quiet();
  CHECK(memcmp(notes, "abcdef", 6) == 0, "shmemx_ibput generic");
  /* Bad input: a PE outside the team, memory that is not symmetric, strides
   * below the block size, a destroyed context. */
  shmem_int_ibput(ib_dst, src, 5, 4, 3, 1, n);
  CHECK_ERR(SHMEMX_ERR_PE, "ibput to a PE outside the world");
  shmem_int_ibget(got, src, 1, 1, 1, 2, right);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "ibget from a local array");
  shmem_int_ibput(ib_dst, src, 2, 4, 3, 2, right);
  CHECK_ERR(SHMEMX_ERR_ARG, "a dest stride below the block size");
  shmem_ctx_destroy(ctx);
  shmem_ctx_int_ibput(ctx, ib_dst, src, 5, 4, 3, 1, right);
  CHECK_ERR(SHMEMX_ERR_CTX, "ibput on a destroyed context");
  shmem_int_ibput(ib_dst, src, 5, 4, 0, 3, right);
  CHECK_ERR(SHMEMX_SUCCESS, "blocks of 0 elements move nothing");
  shmem_barrier_all();
}

static void sessions(int me, int n) {
  const int right = (me + 1) % n;
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
  memset(data_ctx, 0, sizeof data_ctx);
  shmem_barrier_all();
  shmem_ctx_session_config_t conf = {.total_ops = 8};
  shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &conf, SHMEM_CTX_SESSION_TOTAL_OPS);
  CHECK_ERR(SHMEMX_SUCCESS, "session_start");
  shmem_ctx_session_start(ctx, 0, NULL, 0);
  CHECK_ERR(SHMEMX_SUCCESS, "a second start adds to the first");
  for (int i = 0; i < 8; ++i) shmem_ctx_long_p(ctx, &data_ctx[i], 10L * me + i, right);
  shmem_ctx_session_stop(ctx);
  shmem_ctx_session_stop(ctx);
  CHECK_ERR(SHMEMX_SUCCESS, "a second stop does nothing");
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  const int left = (me + n - 1) % n;
  for (int i = 0; i < 8; ++i) CHECK(data_ctx[i] == 10L * left + i, "batched put %d: %ld", i, data_ctx[i]);
  /* The default context carries sessions too. */
  shmem_barrier_all();
  shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
  shmem_long_p(&data_ctx[0], 5, right);
  shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
  shmem_barrier_all();
  CHECK(data_ctx[0] == 5, "batched put on the default context");
  /* Bad input: SHMEM_CTX_INVALID is no action (the specification's words);
   * unknown options and masks, a NULL config with a mask, a destroyed
   * context are errors. */
  shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0);
  shmem_ctx_session_stop(SHMEM_CTX_INVALID);
  CHECK_ERR(SHMEMX_SUCCESS, "a session on SHMEM_CTX_INVALID");
  shmem_ctx_session_start(ctx, 1L << 9, NULL, 0);
  CHECK_ERR(SHMEMX_ERR_ARG, "unknown session options");
  shmem_ctx_session_start(ctx, 0, NULL, SHMEM_CTX_SESSION_TOTAL_OPS);
  CHECK_ERR(SHMEMX_ERR_ARG, "a mask without a config");
  shmem_ctx_destroy(ctx);
  shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
  CHECK_ERR(SHMEMX_ERR_CTX, "a session on a destroyed context");
  shmem_ctx_session_stop(ctx);
  CHECK_ERR(SHMEMX_ERR_CTX, "stopping a session on a destroyed context");
}

static long rev_src[16], rev_dst[16];

/* A negative stride: the world in reverse order. Team PE k is world PE
 * n-1-k, in RMA on the team's context and in every collective's order. */
static void reversed(int me, int n) {
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev) == 0, "reverse split");
  if (rev == SHMEM_TEAM_INVALID) return;
  const int tme = shmem_team_my_pe(rev);
  CHECK(tme == n - 1 - me && shmem_team_n_pes(rev) == n, "reversed team: PE %d", tme);
  CHECK(shmem_team_translate_pe(rev, 0, SHMEM_TEAM_WORLD) == n - 1, "team PE 0 is the last world PE");
  scan_all_types(rev);
  rev_src[0] = me;
  CHECK(shmem_long_fcollect(rev, rev_dst, rev_src, 1) == 0, "fcollect");
  for (int k = 0; k < n; ++k) CHECK(rev_dst[k] == n - 1 - k, "fcollect block %d: %ld", k, rev_dst[k]);
  CHECK(shmem_long_broadcast(rev, rev_dst, rev_src, 1, 0) == 0 && rev_dst[0] == n - 1, "broadcast from team PE 0");
  for (int j = 0; j < n; ++j) rev_src[j] = 100L * me + j;
  CHECK(shmem_long_alltoall(rev, rev_dst, rev_src, 1) == 0, "alltoall");
  for (int j = 0; j < n; ++j)
    CHECK(rev_dst[j] == 100L * (n - 1 - j) + tme, "alltoall block %d: %ld", j, rev_dst[j]);
  for (int j = 0; j <= tme; ++j) rev_src[j] = me;
  CHECK(shmem_long_collect(rev, rev_dst, rev_src, (size_t)tme + 1) == 0, "collect");
  int at = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j <= k; ++j, ++at)
      CHECK(rev_dst[at] == n - 1 - k, "collect element %d: %ld", at, rev_dst[at]);
  shmem_ctx_t ctx;
  CHECK(shmem_team_create_ctx(rev, 0, &ctx) == 0, "context of the reversed team");
  memset(rev_dst, 0, sizeof rev_dst);
  shmem_team_sync(rev);
  shmem_ctx_long_p(ctx, &rev_dst[tme], me, 0);
  shmem_ctx_quiet(ctx);
  shmem_team_sync(rev);
  if (me == n - 1)
    for (int k = 0; k < n; ++k) CHECK(rev_dst[k] == n - 1 - k, "put to team PE 0 from team PE %d", k);
  shmem_ctx_destroy(ctx);
  shmem_team_destroy(rev);
}

static void errata(int me, int n) {
  /* Allocation is collective on the world team: every PE gets the same
   * offset, and a PE with a different size makes it fail on every PE. */
  long* a = shmem_malloc(64);
  CHECK(a != NULL, "malloc");
  if (n > 1) {
    long* b = shmem_malloc(me == 0 ? 128 : 192);
    CHECK(b == NULL, "malloc with different sizes fails everywhere");
    CHECK_ERR(SHMEMX_ERR_MISMATCH, "malloc with different sizes");
  }
  shmem_free(a);
  /* split_strided: stride 0 with size 1 is one PE; stride 0 with a larger
   * size, a wrap-around and a negative stride are refused everywhere. */
  shmem_team_t t = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 0, 1, NULL, 0, &t) == 0, "stride 0, size 1");
  CHECK((t != SHMEM_TEAM_INVALID) == (me == n - 1), "stride 0 team membership");
  if (t != SHMEM_TEAM_INVALID) {
    CHECK(shmem_team_n_pes(t) == 1 && shmem_team_my_pe(t) == 0, "stride 0 team of one");
    shmem_team_destroy(t);
  }
  if (n > 1) {
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t) != 0, "stride 0, size 2");
    CHECK(t == SHMEM_TEAM_INVALID, "no team for stride 0, size 2");
    CHECK_ERR(SHMEMX_ERR_ARG, "stride 0 with size 2");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 1, 2, NULL, 0, &t) != 0, "wrap-around");
    CHECK_ERR(SHMEMX_ERR_ARG, "a wrap-around triplet");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0, &t) != 0, "negative stride below 0");
    CHECK_ERR(SHMEMX_ERR_ARG, "a negative stride that wraps around");
  }
  CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "split of SHMEM_TEAM_INVALID");
  CHECK_ERR(SHMEMX_ERR_TEAM, "split of SHMEM_TEAM_INVALID");
  /* team_get_config with a mask of 0 does nothing, config may be NULL. */
  CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) == 0, "get_config, mask 0, NULL config");
  CHECK_ERR(SHMEMX_SUCCESS, "get_config with mask 0");
  /* Fence orders the puts of its own context: data, fence, flag on a
   * created context; the target sees the data once it sees the flag. */
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
  flag_ctx = 0;
  memset(data_ctx, 0, sizeof data_ctx);
  shmem_barrier_all();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  for (int i = 0; i < 8; ++i) shmem_ctx_long_p(ctx, &data_ctx[i], 1000L + 10 * me + i, right);
  shmem_ctx_fence(ctx);
  shmem_ctx_long_atomic_set(ctx, &flag_ctx, 1, right);
  shmem_ctx_quiet(ctx);
  shmem_long_wait_until(&flag_ctx, SHMEM_CMP_EQ, 1);
  for (int i = 0; i < 8; ++i) CHECK(data_ctx[i] == 1000L + 10 * left + i, "fenced put %d", i);
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  /* test_all of an empty set is 1: nelems 0 (ivars not looked at), or
   * every element excluded. */
  CHECK(shmem_int_test_all(NULL, 0, NULL, SHMEM_CMP_EQ, 1) == 1, "test_all of nothing");
  const int skip[4] = {1, 1, 1, 1};
  CHECK(shmem_int_test_all(empty_ivars, 4, skip, SHMEM_CMP_EQ, 1) == 1, "test_all, all excluded");
  const int want[4] = {0, 0, 0, 0};
  CHECK(shmem_int_test_all_vector(empty_ivars, 0, NULL, SHMEM_CMP_EQ, want) == 1, "test_all_vector of nothing");
  CHECK(shmem_ushort_test_all(NULL, 0, NULL, SHMEM_CMP_EQ, 1) == 1, "ushort test_all of nothing");
  /* const compare values (the prototypes take const TYPE*). */
  CHECK(shmem_int_test_all_vector(empty_ivars, 4, NULL, SHMEM_CMP_EQ, want) == 1, "const vector test_all");
  CHECK(shmem_test_any_vector(empty_ivars, 4, NULL, SHMEM_CMP_EQ, want) < 4, "generic const vector test_any");
  shmem_int_wait_until_all_vector(empty_ivars, 4, NULL, SHMEM_CMP_EQ, want);
  CHECK_ERR(SHMEMX_SUCCESS, "const vector wait");
}

int main(void) {
  int initialized = -1;
  shmem_query_initialized(&initialized);
  if (initialized != 0) {
    fprintf(stderr, "shmem_query_initialized before shmem_init: %d\n", initialized);
    return 1;
  }
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  int major = 0, minor = 0;
  shmem_info_get_version(&major, &minor);
  CHECK(major == 1 && minor == 6 && SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 6, "version %d.%d", major,
        minor);
  shmem_query_initialized(&initialized);
  CHECK(initialized == 1, "query_initialized after init");
  /* The C11 forms of shmem_signal_add/set (a context first) and Sandia's
   * shmemx_ forms, on the caller's own word. */
  shmem_signal_set(SHMEM_CTX_DEFAULT, &sigw, 5, me);
  shmem_signal_add(&sigw, 2, me);
  shmemx_signal_add(SHMEM_CTX_DEFAULT, &sigw, 3, me);
  shmem_quiet();
  CHECK(shmem_signal_fetch(&sigw) == 10, "signal set 5, add 2, add 3: %llu",
        (unsigned long long)shmem_signal_fetch(&sigw));
  scans(me, n);
  blocks(me, n);
  sessions(me, n);
  errata(me, n);
  reversed(me, n);
  return check_finish("test_shmem_spec16");
}
