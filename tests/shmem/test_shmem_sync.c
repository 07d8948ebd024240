/*
 * OpenSHMEM point-to-point synchronisation and put with signal.
 *
 * Each PE's left neighbour updates its variables (a ring; on one PE the
 * PE updates itself): shmem_wait_until and shmem_test for every comparison
 * on several types, the _all/_any/_some waits and tests and their _vector
 * forms with status masks that exclude elements, put with signal (SET and
 * ADD, blocking and _nbi, typed, generic and mem, on a created context, on
 * global variables), signals added by every PE to one, shmem_signal_fetch,
 * and bad input: an unknown comparison or signal operation, a PE outside
 * the world, a variable on the stack.
 */
#define _POSIX_C_SOURCE 200809L /* sigaction, sigsetjmp */

#include "shmem_check.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#define NMAX 64
#define NV 6   /* elements of the multi-element waits */
#define NEL 16 /* elements of a put with signal */

static int me, npes, left, right;
static shmem_ctx_t ctx;

static const int cmps[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
static const char* const cmp_names[7] = {"?", "EQ", "NE", "GT", "GE", "LT", "LE"};

/* ---- wait_until and test, every comparison ----------------------------- */

/* The left neighbour moves the variable from 100 by 3 + its PE number, up
 * or down, so that the comparison turns from false to true. */
#define DEF_CMP(T, N)                                                                                              \
  static void cmp_##N(T* iv, const char* where) {                                                                  \
    const char* tn = #N;                                                                                           \
    for (int c = 0; c < 6; ++c) {                                                                                  \
      const int cmp = cmps[c];                                                                                     \
      const int up = !(cmp == SHMEM_CMP_LT || cmp == SHMEM_CMP_LE);                                                \
      const T init = (T)100;                                                                                       \
      const T mine_new = up ? (T)(init + 3 + left) : (T)(init - 3 - left); /* what left sends */                   \
      const T to_send = up ? (T)(init + 3 + me) : (T)(init - 3 - me);                                              \
      const T cv = (cmp == SHMEM_CMP_EQ || cmp == SHMEM_CMP_GE || cmp == SHMEM_CMP_LE) ? mine_new : init;          \
      *iv = init;                                                                                                  \
      CHECK(shmem_test(iv, cmp, cv) == 0, "%s %s %s: test true before the update", tn, where, cmp_names[cmp]);     \
      shmem_barrier_all();                                                                                         \
      if (c % 2) shmem_p(iv, to_send, right);                                                                      \
      else shmem_##N##_put(iv, &to_send, 1, right);                                                                \
      shmem_quiet();                                                                                               \
      if (c % 2) shmem_wait_until(iv, cmp, cv);                                                                    \
      else shmem_##N##_wait_until(iv, cmp, cv);                                                                    \
      CHECK(*iv == mine_new, "%s %s %s: %lld after the wait, expected %lld", tn, where, cmp_names[cmp],            \
            (long long)*iv, (long long)mine_new);                                                                  \
      CHECK(shmem_##N##_test(iv, cmp, cv) == 1, "%s %s %s: test false after the wait", tn, where, cmp_names[cmp]); \
      shmem_barrier_all();                                                                                         \
    }                                                                                                              \
    CHECK_ERR(SHMEMX_SUCCESS, "the waits and tests");                                                              \
  }

DEF_CMP(short, short)
DEF_CMP(int, int)
DEF_CMP(long, long)
DEF_CMP(long long, longlong)
DEF_CMP(unsigned short, ushort)
DEF_CMP(uint64_t, uint64)
DEF_CMP(size_t, size)

/* The deprecated shmem_TYPE_wait: wait while the variable equals a value. */
#define DEF_OLD_WAIT(T, N)                                                                                  \
  static void old_wait_##N(T* iv, const char* where) {                                                      \
    *iv = (T)-1;                                                                                            \
    shmem_barrier_all();                                                                                    \
    shmem_##N##_p(iv, (T)(me + 20), right);                                                                 \
    shmem_quiet();                                                                                          \
    shmem_##N##_wait(iv, (T)-1);                                                                            \
    CHECK(*iv == (T)(left + 20), "%s_wait %s: %lld after the wait, expected %d", #N, where, (long long)*iv, \
          left + 20);                                                                                       \
    shmem_barrier_all();                                                                                    \
  }
DEF_OLD_WAIT(short, short)
DEF_OLD_WAIT(int, int)
DEF_OLD_WAIT(long, long)
DEF_OLD_WAIT(long long, longlong)

/* ---- _all, _any, _some and _vector, with status masks ------------------ */

static int is_one_of(size_t v, const size_t* set, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (set[i] == v) return 1;
  return 0;
}

/* idx[0..count) are distinct members of want[0..nwant). */
static int indices_within(const size_t* idx, size_t count, const size_t* want, size_t nwant) {
  for (size_t i = 0; i < count; ++i) {
    if (!is_one_of(idx[i], want, nwant)) return 0;
    for (size_t j = 0; j < i; ++j)
      if (idx[j] == idx[i]) return 0;
  }
  return 1;
}

#define DEF_MULTI(T, N)                                                                                                \
  static void multi_##N(T* iv, const char* where) {                                                                    \
    const char* tn = #N;                                                                                               \
    static const int ex2[NV] = {0, 0, 1, 0, 0, 0};  /* element 2 excluded */                                           \
    static const int ex24[NV] = {0, 0, 1, 0, 1, 0}; /* elements 2 and 4 excluded */                                    \
    static const int all_ex[NV] = {1, 1, 1, 1, 1, 1};                                                                  \
    size_t idx[NV];                                                                                                    \
    T cv[NV];                                                                                                          \
    size_t k, c;                                                                                                       \
    /* _all: the left neighbour sets every element but 2 */                                                            \
    for (int i = 0; i < NV; ++i) iv[i] = (T)0;                                                                         \
    CHECK(shmem_test_all(iv, NV, ex2, SHMEM_CMP_NE, (T)0) == 0, "%s %s: test_all true too early", tn, where);          \
    shmem_barrier_all();                                                                                               \
    for (int i = 0; i < NV; ++i)                                                                                       \
      if (i != 2) shmem_p(&iv[i], (T)((me + 1) * 10 + i), right);                                                      \
    shmem_quiet();                                                                                                     \
    shmem_##N##_wait_until_all(iv, NV, ex2, SHMEM_CMP_NE, (T)0);                                                       \
    for (int i = 0; i < NV; ++i) {                                                                                     \
      const T want = i == 2 ? (T)0 : (T)((left + 1) * 10 + i);                                                         \
      CHECK(iv[i] == want, "%s %s: wait_until_all: element %d is %lld, expected %lld", tn, where, i, (long long)iv[i], \
            (long long)want);                                                                                          \
      cv[i] = want;                                                                                                    \
    }                                                                                                                  \
    CHECK(shmem_test_all(iv, NV, ex2, SHMEM_CMP_NE, (T)0) == 1, "%s %s: test_all with element 2 excluded", tn, where); \
    CHECK(shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_NE, (T)0) == 0,                                                 \
          "%s %s: test_all without a mask ignored element 2", tn, where);                                              \
    cv[2] = (T)77; /* not met, but excluded */                                                                         \
    shmem_wait_until_all_vector(iv, NV, ex2, SHMEM_CMP_EQ, cv);                                                        \
    CHECK(shmem_##N##_test_all_vector(iv, NV, ex2, SHMEM_CMP_EQ, cv) == 1,                                             \
          "%s %s: test_all_vector with element 2 excluded", tn, where);                                                \
    CHECK(shmem_test_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cv) == 0,                                                  \
          "%s %s: test_all_vector without a mask ignored element 2", tn, where);                                       \
    shmem_##N##_wait_until_all(iv, NV, all_ex, SHMEM_CMP_EQ, (T)55); /* nothing to wait for */                         \
    CHECK(shmem_wait_until_any(iv, NV, all_ex, SHMEM_CMP_NE, (T)0) == SIZE_MAX,                                        \
          "%s %s: wait_until_any with every element excluded", tn, where);                                             \
    CHECK(shmem_##N##_wait_until_some(iv, NV, idx, all_ex, SHMEM_CMP_NE, (T)0) == 0,                                   \
          "%s %s: wait_until_some with every element excluded", tn, where);                                            \
    shmem_barrier_all();                                                                                               \
    /* _any: the left neighbour sets 2 (excluded), then 4 */                                                           \
    for (int i = 0; i < NV; ++i) iv[i] = (T)0;                                                                         \
    CHECK(shmem_test_any(iv, NV, ex2, SHMEM_CMP_NE, (T)0) == SIZE_MAX, "%s %s: test_any too early", tn, where);        \
    shmem_barrier_all();                                                                                               \
    shmem_p(&iv[2], (T)(me + 1), right);                                                                               \
    shmem_fence();                                                                                                     \
    shmem_p(&iv[4], (T)(me + 1), right);                                                                               \
    shmem_quiet();                                                                                                     \
    k = shmem_##N##_wait_until_any(iv, NV, ex2, SHMEM_CMP_NE, (T)0);                                                   \
    CHECK(k == 4 && iv[4] == (T)(left + 1), "%s %s: wait_until_any returned %zu (element 4: %lld)", tn, where, k,      \
          (long long)iv[4]);                                                                                           \
    k = shmem_test_any(iv, NV, NULL, SHMEM_CMP_NE, (T)0);                                                              \
    CHECK(k == 2 || k == 4, "%s %s: test_any without a mask returned %zu", tn, where, k);                              \
    k = shmem_##N##_test_any(iv, NV, ex24, SHMEM_CMP_NE, (T)0);                                                        \
    CHECK(k == SIZE_MAX, "%s %s: test_any with 2 and 4 excluded returned %zu", tn, where, k);                          \
    for (int i = 0; i < NV; ++i) cv[i] = (T)(left + 1);                                                                \
    k = shmem_wait_until_any_vector(iv, NV, ex2, SHMEM_CMP_EQ, cv);                                                    \
    CHECK(k == 4, "%s %s: wait_until_any_vector returned %zu", tn, where, k);                                          \
    k = shmem_##N##_test_any_vector(iv, NV, ex24, SHMEM_CMP_EQ, cv);                                                   \
    CHECK(k == SIZE_MAX, "%s %s: test_any_vector with 2 and 4 excluded returned %zu", tn, where, k);                   \
    shmem_barrier_all();                                                                                               \
    /* _some: the left neighbour sets 1, 2 (excluded), 3 and 5 */                                                      \
    for (int i = 0; i < NV; ++i) iv[i] = (T)0;                                                                         \
    shmem_barrier_all();                                                                                               \
    static const size_t set135[3] = {1, 3, 5}, set15[2] = {1, 5}, set125[3] = {1, 2, 5};                               \
    for (int i = 1; i < NV; ++i)                                                                                       \
      if (i != 4) shmem_p(&iv[i], (T)(me + 1 + i), right);                                                             \
    shmem_quiet();                                                                                                     \
    c = shmem_##N##_wait_until_some(iv, NV, idx, ex2, SHMEM_CMP_NE, (T)0);                                             \
    CHECK(c >= 1 && c <= 3 && indices_within(idx, c, set135, 3),                                                       \
          "%s %s: wait_until_some returned %zu indices, not of 1, 3, 5", tn, where, c);                                \
    shmem_barrier_all(); /* every update has arrived */                                                                \
    c = shmem_test_some(iv, NV, idx, ex2, SHMEM_CMP_NE, (T)0);                                                         \
    CHECK(c == 3 && indices_within(idx, c, set135, 3), "%s %s: test_some returned %zu indices", tn, where, c);         \
    for (int i = 0; i < NV; ++i) cv[i] = (T)(left + 1 + i);                                                            \
    cv[3] = (T)0; /* element 3 does not match */                                                                       \
    c = shmem_wait_until_some_vector(iv, NV, idx, ex2, SHMEM_CMP_EQ, cv);                                              \
    CHECK(c == 2 && indices_within(idx, c, set15, 2), "%s %s: wait_until_some_vector returned %zu", tn, where, c);     \
    c = shmem_##N##_test_some_vector(iv, NV, idx, NULL, SHMEM_CMP_EQ, cv);                                             \
    CHECK(c == 3 && indices_within(idx, c, set125, 3), "%s %s: test_some_vector returned %zu", tn, where, c);          \
    c = shmem_test_some_vector(iv, NV, idx, ex24, SHMEM_CMP_GE, cv);                                                   \
    CHECK(c == 3 && indices_within(idx, c, set135, 3), "%s %s: test_some_vector GE returned %zu", tn, where, c);       \
    CHECK_ERR(SHMEMX_SUCCESS, "the multi-element waits");                                                              \
    shmem_barrier_all();                                                                                               \
  }

DEF_MULTI(int, int)
DEF_MULTI(long, long)
DEF_MULTI(unsigned short, ushort)
DEF_MULTI(uint64_t, uint64)

/* Fairness of the _any routines: "if an entry i ... satisfies the test
 * condition, a series of calls ... must eventually return i". With every
 * element satisfied, a series of calls (plain and vector, test and wait)
 * must return each of them; 64 calls per element make a miss by chance
 * impossible in practice (each call picks each element with chance 1/NV).
 * The specification's own loop (status NULL, waiting for one index) must
 * end too. */
#define DEF_FAIR(T, N)                                                                                    \
  static void fair_##N(T* iv, const char* where) {                                                          \
    const char* tn = #N;                                                                                    \
    T cv[NV];                                                                                               \
    for (int i = 0; i < NV; ++i) {                                                                          \
      iv[i] = (T)(i + 1);                                                                                   \
      cv[i] = (T)(i + 1);                                                                                   \
    }                                                                                                       \
    for (int form = 0; form < 4; ++form) {                                                                  \
      int seen[NV] = {0};                                                                                   \
      for (int call = 0; call < 64 * NV; ++call) {                                                          \
        size_t k = SIZE_MAX;                                                                                \
        switch (form) {                                                                                     \
          case 0: k = shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_NE, (T)0); break;                        \
          case 1: k = shmem_##N##_wait_until_any(iv, NV, NULL, SHMEM_CMP_NE, (T)0); break;                  \
          case 2: k = shmem_##N##_test_any_vector(iv, NV, NULL, SHMEM_CMP_EQ, cv); break;                   \
          default: k = shmem_##N##_wait_until_any_vector(iv, NV, NULL, SHMEM_CMP_EQ, cv); break;            \
        }                                                                                                   \
        if (k < NV) seen[k] = 1;                                                                            \
        else CHECK(0, "%s %s: _any form %d returned %zu with every element satisfied", tn, where, form, k); \
      }                                                                                                     \
      for (int i = 0; i < NV; ++i)                                                                          \
        CHECK(seen[i], "%s %s: _any form %d never returned element %d of %d satisfied ones", tn, where,     \
              form, i, NV);                                                                                 \
    }                                                                                                       \
    size_t k = SIZE_MAX;                                                                                    \
    long calls = 0;                                                                                         \
    while (k != NV - 1 && calls < 1000000) {                                                                \
      k = shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_NE, (T)0);                                           \
      ++calls;                                                                                              \
    }                                                                                                       \
    CHECK(k == NV - 1, "%s %s: the last element never came back in %ld calls", tn, where, calls);           \
    for (int i = 0; i < NV; ++i) iv[i] = (T)0;                                                              \
    shmem_barrier_all();                                                                                    \
  }
DEF_FAIR(int, int)
DEF_FAIR(long, long)
DEF_FAIR(unsigned short, ushort)
DEF_FAIR(uint64_t, uint64)

/* ---- OpenSHMEM 1.6: shmem_signal_add and shmem_signal_set ------------ */

static uint64_t g_sig_add; /* a static signal word too */

static void signal_updates(uint64_t* sig) {
  sig[4] = sig[5] = 0;
  g_sig_add = 0;
  shmem_barrier_all();
  /* Every PE adds me + 1 to every PE's words, by each form. */
  for (int p = 0; p < npes; ++p) {
    shmem_signal_add(&sig[4], (uint64_t)(me + 1), p);
    shmem_ctx_signal_add(ctx, &sig[4], (uint64_t)(me + 1), p);
    shmemx_signal_add(&g_sig_add, (uint64_t)(me + 1), p);
  }
  shmem_ctx_quiet(ctx);
  shmem_quiet();
  shmem_barrier_all();
  const uint64_t sum = (uint64_t)npes * (uint64_t)(npes + 1) / 2;
  CHECK(sig[4] == 2 * sum, "signal_add: the word is %llu, expected %llu", (unsigned long long)sig[4],
        (unsigned long long)(2 * sum));
  CHECK(g_sig_add == sum, "shmemx_signal_add on a static: %llu, expected %llu", (unsigned long long)g_sig_add,
        (unsigned long long)sum);
  /* Set: the right neighbour's word to 100 + me; it waits for it. */
  shmem_barrier_all();
  shmem_signal_set(&sig[5], (uint64_t)(100 + me), right);
  CHECK(shmem_signal_wait_until(&sig[5], SHMEM_CMP_EQ, (uint64_t)(100 + left)) == (uint64_t)(100 + left),
        "signal_set: waited value");
  shmem_barrier_all();
  shmem_ctx_signal_set(ctx, &sig[5], (uint64_t)(200 + me), right);
  shmemx_ctx_signal_set(ctx, &sig[5], (uint64_t)(300 + me), right);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  CHECK(sig[5] == (uint64_t)(300 + left), "ctx_signal_set: the word is %llu, expected %d", (unsigned long long)sig[5],
        300 + left);
  CHECK_ERR(SHMEMX_SUCCESS, "signal_add and signal_set");
  /* Bad input: a PE outside the team, memory that is not symmetric. */
  uint64_t on_stack = 0;
  shmem_signal_add(&sig[4], 1, npes);
  CHECK_ERR(SHMEMX_ERR_PE, "signal_add to PE n_pes");
  shmem_signal_set(&on_stack, 1, right);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "signal_set on the stack");
  shmem_barrier_all();
  CHECK(sig[4] == 2 * sum, "a refused signal_add changed the word");
  shmem_barrier_all();
}

/* ---- put with signal -------------------------------------------------- */

static double g_data[NMAX * NEL];
static uint64_t g_sig;

static double value(int pe, int i, int round) { return pe * 1000.0 + i + round * 0.25; }

static void check_block(const double* d, int pe, int round, const char* what) {
  int bad = -1;
  for (int i = 0; i < NEL && bad < 0; ++i)
    if (d[i] != value(pe, i, round)) bad = i;
  CHECK(bad < 0, "%s: element %d is %f, expected %f (from PE %d)", what, bad, bad < 0 ? 0.0 : d[bad],
        bad < 0 ? 0.0 : value(pe, bad, round), pe);
}

static void signals(double* buf, uint64_t* sig) {
  double src[NEL];
  const uint64_t S = (uint64_t)npes * (uint64_t)(npes + 1) / 2;
  for (int round = 1; round <= 4; ++round) {
    /* SET to the right neighbour: blocking/nbi, generic/typed/mem */
    for (int i = 0; i < NEL; ++i) src[i] = value(me, i, round);
    const uint64_t mine = (uint64_t)(round * 100 + left + 1), send = (uint64_t)(round * 100 + me + 1);
    switch (round) {
      case 1: shmem_put_signal(buf, src, NEL, &sig[0], send, SHMEM_SIGNAL_SET, right); break;
      case 2:
        shmem_double_put_signal_nbi(buf, src, NEL, &sig[0], send, SHMEM_SIGNAL_SET, right);
        shmem_quiet();
        break;
      case 3: shmem_putmem_signal(buf, src, NEL * sizeof(double), &sig[0], send, SHMEM_SIGNAL_SET, right); break;
      default:
        shmem_put_signal_nbi(buf, src, NEL, &sig[0], send, SHMEM_SIGNAL_SET, right);
        shmem_quiet();
        break;
    }
    const uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, mine);
    CHECK(got == mine, "put_signal SET round %d: the wait returned %llu, expected %llu", round, (unsigned long long)got,
          (unsigned long long)mine);
    check_block(buf, left, round, "put_signal SET");
    CHECK(shmem_signal_fetch(&sig[0]) == mine, "signal_fetch after SET round %d", round);
    shmem_barrier_all();
  }
  /* ADD from every PE to PE 0: each its own block, adding me + 1 */
  for (int i = 0; i < NEL; ++i) src[i] = value(me, i, 7);
  if (me % 2)
    shmem_putmem_signal_nbi(&buf[me * NEL], src, NEL * sizeof(double), &sig[1], (uint64_t)(me + 1), SHMEM_SIGNAL_ADD,
                            0);
  else shmem_double_put_signal(&buf[me * NEL], src, NEL, &sig[1], (uint64_t)(me + 1), SHMEM_SIGNAL_ADD, 0);
  shmem_quiet();
  if (me == 0) {
    const uint64_t got = shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, S);
    CHECK(got == S, "put_signal ADD to PE 0: the wait returned %llu, expected %llu", (unsigned long long)got,
          (unsigned long long)S);
    for (int p = 0; p < npes; ++p) check_block(&buf[p * NEL], p, 7, "put_signal ADD to PE 0");
  }
  shmem_barrier_all();
  CHECK(shmem_signal_fetch(&sig[1]) == (me == 0 ? S : 0), "signal_fetch after ADD to PE 0: %llu",
        (unsigned long long)shmem_signal_fetch(&sig[1]));
  /* ADD from every PE to every PE, each into its own block */
  for (int i = 0; i < NEL; ++i) src[i] = value(me, i, 8);
  for (int p = 0; p < npes; ++p) {
    const int to = (me + p) % npes;
    shmem_put_signal_nbi(&buf[(NMAX + me) * NEL], src, NEL, &sig[2], (uint64_t)1, SHMEM_SIGNAL_ADD, to);
  }
  shmem_quiet();
  const uint64_t n2 = shmem_signal_wait_until(&sig[2], SHMEM_CMP_GE, (uint64_t)npes);
  CHECK(n2 == (uint64_t)npes, "put_signal ADD from every PE: the wait returned %llu, expected %d",
        (unsigned long long)n2, npes);
  for (int p = 0; p < npes; ++p) check_block(&buf[(NMAX + p) * NEL], p, 8, "put_signal ADD from every PE");
  shmem_barrier_all();
  /* on a created context: generic (8 arguments) and typed nbi */
  for (int i = 0; i < NEL; ++i) src[i] = value(me, i, 9);
  shmem_put_signal(ctx, buf, src, NEL / 2, &sig[3], (uint64_t)(me + 1), SHMEM_SIGNAL_ADD, right);
  shmem_ctx_double_put_signal_nbi(ctx, &buf[NEL / 2], &src[NEL / 2], NEL / 2, &sig[3], (uint64_t)(me + 1),
                                  SHMEM_SIGNAL_ADD, right);
  shmem_ctx_quiet(ctx);
  const uint64_t c3 = shmem_signal_wait_until(&sig[3], SHMEM_CMP_EQ, (uint64_t)(2 * (left + 1)));
  CHECK(c3 == (uint64_t)(2 * (left + 1)), "ctx put_signal: the wait returned %llu", (unsigned long long)c3);
  check_block(buf, left, 9, "ctx put_signal");
  shmem_barrier_all();
  /* global variables: data and signal word */
  for (int i = 0; i < NEL; ++i) src[i] = value(me, i, 10);
  shmem_put_signal(g_data, src, NEL, &g_sig, (uint64_t)(me + 5), SHMEM_SIGNAL_SET, right);
  const uint64_t gs = shmem_signal_wait_until(&g_sig, SHMEM_CMP_NE, 0);
  CHECK(gs == (uint64_t)(left + 5), "global put_signal: signal %llu, expected %d", (unsigned long long)gs, left + 5);
  check_block(g_data, left, 10, "global put_signal");
  CHECK(shmem_signal_fetch(&g_sig) == (uint64_t)(left + 5), "signal_fetch of a global signal word");
  shmem_barrier_all();
  /* a signal with no data */
  shmem_putmem_signal(buf, src, 0, &sig[4], (uint64_t)(me + 9), SHMEM_SIGNAL_SET, right);
  const uint64_t s4 = shmem_signal_wait_until(&sig[4], SHMEM_CMP_GT, 0);
  CHECK(s4 == (uint64_t)(left + 9), "signal without data: %llu, expected %d", (unsigned long long)s4, left + 9);
  CHECK_ERR(SHMEMX_SUCCESS, "the puts with signal");
  shmem_barrier_all();
}

/* ---- bad input -------------------------------------------------------- */

static sigjmp_buf segv_jump;
static void on_segv(int sig) {
  (void)sig;
  siglongjmp(segv_jump, 1);
}

static void bad_input(int* hi, long* hl, unsigned short* hus, double* buf, uint64_t* sig) {
  /* unknown comparisons: return at once */
  *hi = 5;
  shmem_int_wait_until(hi, 99, 5);
  CHECK_ERR(SHMEMX_ERR_ARG, "wait_until with comparison 99");
  CHECK(shmem_test(hi, 99, 5) == 0, "test with comparison 99 returned true");
  CHECK_ERR(SHMEMX_ERR_ARG, "test with comparison 99");
  shmem_wait_until(hi, 0, 5);
  CHECK_ERR(SHMEMX_ERR_ARG, "wait_until with comparison 0");
  shmem_long_wait_until_all(hl, 2, NULL, 99, 0);
  CHECK_ERR(SHMEMX_ERR_ARG, "wait_until_all with comparison 99");
  CHECK(shmem_long_wait_until_any(hl, 2, NULL, 99, 0) == SIZE_MAX, "wait_until_any with comparison 99");
  CHECK_ERR(SHMEMX_ERR_ARG, "wait_until_any with comparison 99");
  long cvs[2] = {0, 0};
  size_t idx[2];
  CHECK(shmem_wait_until_some_vector(hl, 2, idx, NULL, 99, cvs) == 0, "wait_until_some_vector, comparison 99");
  CHECK_ERR(SHMEMX_ERR_ARG, "wait_until_some_vector with comparison 99");
  shmem_ushort_wait_until(hus, 99, 0);
  CHECK_ERR(SHMEMX_ERR_ARG, "ushort wait_until with comparison 99");
  CHECK(shmem_ushort_test_any(hus, 1, NULL, -3, 0) == SIZE_MAX, "ushort test_any with comparison -3");
  CHECK_ERR(SHMEMX_ERR_ARG, "ushort test_any with comparison -3");
  CHECK(shmem_signal_wait_until(sig, 99, 0) == 0, "signal_wait_until with comparison 99");
  CHECK_ERR(SHMEMX_ERR_ARG, "signal_wait_until with comparison 99");
  shmem_signal_wait_until(sig, 7, 0);
  CHECK_ERR(SHMEMX_ERR_ARG, "signal_wait_until with comparison 7");

  /* nothing may reach the right neighbour: its data and signal stay */
  for (int i = 0; i < NEL; ++i) buf[i] = -1.0;
  sig[0] = 0;
  shmem_barrier_all();
  double src[NEL];
  for (int i = 0; i < NEL; ++i) src[i] = value(me, i, 11);
  shmem_put_signal(buf, src, NEL, &sig[0], 1, 99, right);
  CHECK_ERR(SHMEMX_ERR_ARG, "put_signal with signal operation 99");
  shmem_double_put_signal_nbi(buf, src, NEL, &sig[0], 1, 0, right);
  CHECK_ERR(SHMEMX_ERR_ARG, "put_signal_nbi with signal operation 0");
  shmem_putmem_signal(buf, src, 0, &sig[0], 1, 3, right);
  CHECK_ERR(SHMEMX_ERR_ARG, "putmem_signal (no data) with signal operation 3");
  shmem_put_signal(ctx, buf, src, NEL, &sig[0], 1, -1, right);
  CHECK_ERR(SHMEMX_ERR_ARG, "ctx put_signal with signal operation -1");
  shmem_put_signal(buf, src, NEL, &sig[0], 1, SHMEM_SIGNAL_SET, npes);
  CHECK_ERR(SHMEMX_ERR_PE, "put_signal to PE npes");
  shmem_putmem_signal_nbi(buf, src, 8, &sig[0], 1, SHMEM_SIGNAL_ADD, -1);
  CHECK_ERR(SHMEMX_ERR_PE, "putmem_signal_nbi to PE -1");
  uint64_t stack_sig = 0;
  shmem_put_signal(buf, src, NEL, &stack_sig, 1, SHMEM_SIGNAL_SET, right);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "put_signal with a stack signal word");
  double stack_dest[NEL];
  memset(stack_dest, 0, sizeof stack_dest);
  shmem_put_signal(stack_dest, src, NEL, &sig[0], 1, SHMEM_SIGNAL_SET, right);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "put_signal to a stack destination");
  /* a NULL source: an error, not a crash (a SIGSEGV here is reported as a failed check) */
  struct sigaction on_segv_action, old_action;
  memset(&on_segv_action, 0, sizeof on_segv_action);
  on_segv_action.sa_handler = on_segv;
  sigemptyset(&on_segv_action.sa_mask);
  sigaction(SIGSEGV, &on_segv_action, &old_action);
  if (sigsetjmp(segv_jump, 1) == 0) {
    shmem_put_signal(buf, (const double*)NULL, NEL, &sig[0], 1, SHMEM_SIGNAL_SET, right);
    CHECK_ERR(SHMEMX_ERR_ARG, "put_signal with a NULL source");
  } else {
    CHECK(0, "put_signal with a NULL source crashed (SIGSEGV)");
  }
  sigaction(SIGSEGV, &old_action, NULL);
  shmem_quiet();
  shmem_barrier_all();
  int bad = 0;
  for (int i = 0; i < NEL; ++i) bad |= buf[i] != -1.0;
  CHECK(!bad && sig[0] == 0 && stack_sig == 0 && stack_dest[0] == 0.0,
        "rejected puts with signal changed data (%d) or the signal (%llu)", bad, (unsigned long long)sig[0]);

  /* waits and tests on the stack: not symmetric, return at once */
  int local = 0;
  long local_l[2] = {0, 0};
  unsigned short local_us = 0;
  shmem_int_wait_until(&local, SHMEM_CMP_EQ, 1);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "wait_until on a stack variable");
  shmem_wait_until(&local, SHMEM_CMP_NE, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "generic wait_until on a stack variable");
  CHECK(shmem_test(&local, SHMEM_CMP_EQ, 0) == 0, "test on a stack variable returned true");
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "test on a stack variable");
  shmem_long_wait_until_all(local_l, 2, NULL, SHMEM_CMP_EQ, 1);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "wait_until_all on a stack array");
  CHECK(shmem_wait_until_any(local_l, 2, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX, "wait_until_any on the stack");
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "wait_until_any on a stack array");
  shmem_ushort_wait_until(&local_us, SHMEM_CMP_EQ, 1);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "ushort wait_until on a stack variable");
  shmem_signal_wait_until(&stack_sig, SHMEM_CMP_EQ, 1);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "signal_wait_until on a stack signal word");
  shmem_signal_fetch(&stack_sig);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "signal_fetch of a stack signal word");
  shmem_barrier_all();
}

/* ---- the objects ------------------------------------------------------ */

static int g_int;
static long g_long;
static unsigned short g_ushort;
static short g_short;
static int g_ints[NV];

/* OpenSHMEM 1.6 shmem_pe_quiet: data put to the right neighbour and
 * completed by a quiet of that PE alone is there when a signal issued
 * after it arrives; with the default context and a created one. */
static void pe_quiet_check(double* buf, uint64_t* sig) {
  double src[NEL];
  for (int round = 0; round < 2; ++round) {
    sig[6] = 0;
    for (int i = 0; i < NEL; ++i) src[i] = value(me, i, round + 7);
    shmem_barrier_all();
    const int target[1] = {right};
    if (round == 0) {
      shmem_putmem_nbi(&buf[me * NEL], src, NEL * sizeof(double), right);
      shmem_pe_quiet(target, 1);
      shmem_signal_set(&sig[6], 1, right);
    } else {
      shmem_ctx_putmem_nbi(ctx, &buf[me * NEL], src, NEL * sizeof(double), right);
      shmem_ctx_pe_quiet(ctx, target, 1);
      shmem_ctx_signal_set(ctx, &sig[6], 1, right);
      shmem_ctx_quiet(ctx);
    }
    shmem_signal_wait_until(&sig[6], SHMEM_CMP_EQ, 1);
    check_block(&buf[left * NEL], left, round + 7, round == 0 ? "pe_quiet" : "ctx_pe_quiet");
    shmem_barrier_all();
  }
  shmem_pe_quiet(NULL, 0);
  CHECK_ERR(SHMEMX_SUCCESS, "pe_quiet of no PE");
  const int outside[2] = {right, npes};
  shmem_pe_quiet(outside, 2);
  CHECK_ERR(SHMEMX_ERR_PE, "pe_quiet of PE n_pes");
  shmem_pe_quiet(NULL, 1);
  CHECK_ERR(SHMEMX_ERR_ARG, "pe_quiet of NULL");
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  left = (me + npes - 1) % npes;
  right = (me + 1) % npes;
  if (npes > NMAX) {
    if (me == 0) fprintf(stderr, "test_shmem_sync: at most %d PEs\n", NMAX);
    shmem_finalize();
    return EXIT_FAILURE;
  }
  CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");

  short* hs = shmem_malloc(sizeof(short));
  int* hi = shmem_malloc(sizeof(int));
  long* hl = shmem_malloc(NV * sizeof(long));
  long long* hll = shmem_malloc(sizeof(long long));
  unsigned short* hus = shmem_malloc(NV * sizeof(unsigned short));
  uint64_t* hu64 = shmem_malloc(NV * sizeof(uint64_t));
  size_t* hsz = shmem_malloc(sizeof(size_t));
  CHECK(hs && hi && hl && hll && hus && hu64 && hsz, "shmem_malloc failed");

  cmp_short(hs, "heap");
  cmp_short(&g_short, "global");
  cmp_int(hi, "heap");
  cmp_int(&g_int, "global");
  cmp_long(&g_long, "global");
  cmp_long(hl, "heap");
  cmp_longlong(hll, "heap");
  cmp_ushort(hus, "heap");
  cmp_ushort(&g_ushort, "global");
  cmp_uint64(hu64, "heap");
  cmp_size(hsz, "heap");
  old_wait_short(hs, "heap");
  old_wait_int(&g_int, "global");
  old_wait_long(hl, "heap");
  old_wait_longlong(hll, "heap");

  multi_int(g_ints, "global");
  multi_long(hl, "heap");
  multi_ushort(hus, "heap");
  multi_uint64(hu64, "heap");
  fair_int(g_ints, "global");
  fair_long(hl, "heap");
  fair_ushort(hus, "heap");
  fair_uint64(hu64, "heap");

  double* buf = shmem_malloc(2 * NMAX * NEL * sizeof(double));
  uint64_t* sig = shmem_calloc(8, sizeof(uint64_t));
  CHECK(buf && sig, "shmem_malloc failed");
  shmem_barrier_all();
  signals(buf, sig);
  signal_updates(sig);
  pe_quiet_check(buf, sig);
  bad_input(hi, hl, hus, buf, sig);

  shmem_free(sig);
  shmem_free(buf);
  shmem_free(hsz);
  shmem_free(hu64);
  shmem_free(hus);
  shmem_free(hll);
  shmem_free(hl);
  shmem_free(hi);
  shmem_free(hs);
  shmem_ctx_destroy(ctx);
  return check_finish("test_shmem_sync");
}
