/*
 * OpenSHMEM teams and contexts: strided and 2-D splits, PE translation,
 * team-relative PE numbers in RMA on a team's context, team collectives,
 * context options, threads with private contexts, and bad input.
 */
#include "shmem_check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define ROUNDS 200

static long slots[64];
static long thread_dest[2][ROUNDS];

struct worker {
  int id;
  int target;
  int failures;
};

/* Each thread puts into its own row on the target through its own
 * private context and completes with that context's quiet alone. */
static void* put_worker(void* arg) {
  struct worker* w = arg;
  shmem_ctx_t ctx;
  if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
    w->failures++;
    return NULL;
  }
  for (int i = 0; i < ROUNDS; ++i) {
    const long v = 100000L * shmem_my_pe() + 1000L * w->id + i;
    shmem_ctx_long_p(ctx, &thread_dest[w->id][i], v, w->target);
    if (i % 10 == 9) shmem_ctx_quiet(ctx);
  }
  shmem_ctx_quiet(ctx);
  shmem_ctx_destroy(ctx);
  return NULL;
}

int main(void) {
  int provided = -1;
  if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) return 1;
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d", provided);
  CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == n, "world team");
  CHECK(shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0 && shmem_team_n_pes(SHMEM_TEAM_SHARED) >= 1, "shared team");

  /* Odd PEs (start 1, stride 2), with room for one context. */
  shmem_team_config_t conf = {.num_contexts = 1};
  shmem_team_t odd = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n > 1 ? 1 : 0, 2, n > 1 ? n / 2 : 1, &conf,
                                 SHMEM_TEAM_NUM_CONTEXTS, &odd) == 0,
        "split_strided");
  const int in_odd = n > 1 ? me % 2 == 1 : 1;
  CHECK((odd != SHMEM_TEAM_INVALID) == in_odd, "membership of the odd team");
  if (odd != SHMEM_TEAM_INVALID) {
    const int tn = shmem_team_n_pes(odd), tme = shmem_team_my_pe(odd);
    CHECK(tn == (n > 1 ? n / 2 : 1) && tme == (n > 1 ? me / 2 : 0), "odd team: PE %d of %d", tme, tn);
    CHECK(shmem_team_translate_pe(odd, tme, SHMEM_TEAM_WORLD) == me, "translate to world");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, odd) == tme, "translate from world");
    if (n > 1) CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, odd) == -1, "PE 0 is not odd");
    shmem_team_config_t got = {0};
    CHECK(shmem_team_get_config(odd, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 1, "config");
    /* A context of the team: PE numbers are the team's. */
    shmem_ctx_t tctx, second;
    CHECK(shmem_team_create_ctx(odd, 0, &tctx) == 0, "team context");
    CHECK(shmem_team_create_ctx(odd, 0, &second) != 0, "a second context beyond num_contexts");
    shmem_team_t back = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(tctx, &back) == 0 && back == odd, "ctx_get_team");
    memset(slots, 0, sizeof slots);
    shmem_team_sync(odd);
    const int tright = (tme + 1) % tn;
    shmem_ctx_long_p(tctx, &slots[tme], 7000 + me, tright);
    shmem_ctx_quiet(tctx);
    shmem_team_sync(odd);
    const int tleft = (tme + tn - 1) % tn;
    const int wleft = shmem_team_translate_pe(odd, tleft, SHMEM_TEAM_WORLD);
    CHECK(slots[tleft] == 7000 + wleft, "team-relative put: %ld, want %d", slots[tleft], 7000 + wleft);
    shmemx_last_error();
    shmem_ctx_long_p(tctx, &slots[0], 1, tn);
    CHECK_ERR(SHMEMX_ERR_PE, "PE beyond the team on its context");
    /* Team collectives on the odd team. */
    static long one = 1, count = 0;
    CHECK(shmem_long_sum_reduce(odd, &count, &one, 1) == 0 && count == tn, "sum over the odd team: %ld", count);
    shmem_ctx_destroy(tctx);
    shmem_team_destroy(odd);
  }
  shmemx_last_error();

  /* 2-D: rows of 2. */
  shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0, "split_2d");
  CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "every PE is in an x and a y team");
  if (xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID) {
    const int xs = n - (me / 2) * 2 < 2 ? 1 : 2;
    CHECK(shmem_team_my_pe(xt) == me % 2 && shmem_team_n_pes(xt) == xs, "x team: PE %d of %d",
          shmem_team_my_pe(xt), shmem_team_n_pes(xt));
    const int ys = (n - me % 2 + 1) / 2;
    CHECK(shmem_team_my_pe(yt) == me / 2 && shmem_team_n_pes(yt) == ys, "y team: PE %d of %d",
          shmem_team_my_pe(yt), shmem_team_n_pes(yt));
    static int mine, sum;
    mine = me;
    shmem_int_sum_reduce(yt, &sum, &mine, 1);
    int want = 0;
    for (int p = me % 2; p < n; p += 2) want += p;
    CHECK(sum == want, "sum over the y team: %d, want %d", sum, want);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
  }

  /* Threads, each with a private context, to the right neighbour. */
  {
    memset(thread_dest, 0, sizeof thread_dest);
    shmem_barrier_all();
    struct worker w[2] = {{0, (me + 1) % n, 0}, {1, (me + 1) % n, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, put_worker, &w[i]);
    for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
    CHECK(w[0].failures + w[1].failures == 0, "a thread could not create its context");
    shmem_barrier_all();
    const int left = (me + n - 1) % n;
    int bad = 0;
    for (int id = 0; id < 2; ++id)
      for (int i = 0; i < ROUNDS; ++i) bad += thread_dest[id][i] != 100000L * left + 1000L * id + i;
    CHECK(bad == 0, "threads' private contexts: %d values wrong", bad);
  }

  /* Bad input. */
  shmemx_last_error();
  shmem_team_t bad_team = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &bad_team) != 0 &&
            bad_team == SHMEM_TEAM_INVALID,
        "a split beyond the parent");
  CHECK_ERR(SHMEMX_ERR_ARG, "a split beyond the parent");
  CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &bad_team) != 0, "split of an invalid team");
  CHECK_ERR(SHMEMX_ERR_TEAM, "split of an invalid team");
  CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "invalid team");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, n, SHMEM_TEAM_WORLD) == -1, "translate of PE n");
  shmem_team_destroy(SHMEM_TEAM_WORLD);
  CHECK_ERR(SHMEMX_ERR_TEAM, "destroying the world team");
  shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
  CHECK_ERR(SHMEMX_ERR_CTX, "destroying the default context");
  shmem_ctx_t c = SHMEM_CTX_INVALID;
  CHECK(shmem_ctx_create(1L << 20, &c) != 0 && c == SHMEM_CTX_INVALID, "unknown context option");
  CHECK_ERR(SHMEMX_ERR_ARG, "unknown context option");
  shmem_ctx_quiet(SHMEM_CTX_INVALID);
  CHECK_ERR(SHMEMX_ERR_CTX, "quiet of SHMEM_CTX_INVALID");
  CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0, "sync of an invalid team");
  CHECK_ERR(SHMEMX_ERR_TEAM, "sync of an invalid team");

  return check_finish("test_shmem_teams");
}
