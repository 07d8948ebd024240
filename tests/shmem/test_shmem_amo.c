/*
 * OpenSHMEM atomic memory operations and distributed locks.
 *
 * Every AMO of the standard, extended and bitwise classes, for several
 * types, on the symmetric heap and on a global variable: all PEs update one
 * object on PE 0 and the totals, the fetched values (gathered from every
 * PE) and the final values must add up. Then the context forms on a
 * created context, the deprecated names, locks guarding a non-atomic
 * read-modify-write, and bad input (a PE outside the world, a stack
 * address, a misaligned one, an invalid context): the routine records the
 * error and leaves the data alone.
 */
#include "shmem_check.h"

#include <stdint.h>
#include <string.h>

#define NMAX 64 /* most PEs the test supports */
#define K 5     /* operations per PE per phase */
#define SLOTS (NMAX + 8)

static int me, npes;
static shmem_ctx_t ctx; /* a created context of the world team */

/* Gathering one value or K values from every PE (fcollect on the heap). */
static long long* gsrc; /* K */
static long long* gall; /* NMAX * K */

static void gather(const long long* vals, int k) {
  for (int i = 0; i < k; ++i) gsrc[i] = vals[i];
  shmem_longlong_fcollect(SHMEM_TEAM_WORLD, gall, gsrc, (size_t)k);
}

/* gall[0 .. count) is base, base + 1, ..., base + count - 1 in some order. */
static void check_permutation(long count, long long base, const char* what, const char* type, const char* where,
                              int line) {
  char seen[NMAX * K * 2];
  memset(seen, 0, sizeof seen);
  int bad = 0;
  for (long i = 0; i < count; ++i) {
    const long long v = gall[i] - base;
    if (v < 0 || v >= count || seen[v]) bad = 1;
    else seen[v] = 1;
  }
  CHECK(!bad, "%s %s on %s (line %d): the %ld fetched values are not %lld..%lld each once", what, type, where, line,
        count, base, base + count - 1);
}

/* ---- standard AMOs: fetch_inc, inc, fetch_add, add, compare_swap ------- */

#define DEF_STD(T, N)                                                                                                  \
  static void std_##N(T* a, const char* where) {                                                                       \
    const char* tn = #N;                                                                                               \
    const long long S = (long long)npes * (npes + 1) / 2; /* sum of me + 1 */                                          \
    if (me == 0)                                                                                                       \
      for (int i = 0; i < SLOTS; ++i) a[i] = (T)0;                                                                     \
    shmem_barrier_all();                                                                                               \
    /* fetch_inc, blocking, typed: the fetched values are 0 .. npes*K-1 */                                             \
    long long got[K];                                                                                                  \
    for (int k = 0; k < K; ++k) got[k] = (long long)shmem_##N##_atomic_fetch_inc(&a[0], 0);                            \
    gather(got, K);                                                                                                    \
    check_permutation((long)npes* K, 0, "fetch_inc", tn, where, __LINE__);                                             \
    /* fetch_inc_nbi, generic: continues from npes*K */                                                                \
    T f[K];                                                                                                            \
    for (int k = 0; k < K; ++k) f[k] = (T)-1;                                                                          \
    for (int k = 0; k < K; ++k) shmem_atomic_fetch_inc_nbi(&f[k], &a[0], 0);                                           \
    shmem_quiet();                                                                                                     \
    for (int k = 0; k < K; ++k) got[k] = (long long)f[k];                                                              \
    gather(got, K);                                                                                                    \
    check_permutation((long)npes* K, (long long)npes* K, "fetch_inc_nbi", tn, where, __LINE__);                        \
    T v = shmem_atomic_fetch(&a[0], 0);                                                                                \
    CHECK(v == (T)(2 * npes * K), "%s %s: counter %lld after fetch_inc, expected %lld", tn, where, (long long)v,       \
          (long long)(2 * npes * K));                                                                                  \
    /* inc (typed and generic), add (generic and typed) on a[1] */                                                     \
    shmem_##N##_atomic_inc(&a[1], 0);                                                                                  \
    shmem_atomic_inc(&a[1], 0);                                                                                        \
    shmem_atomic_add(&a[1], (T)(me + 1), 0);                                                                           \
    shmem_##N##_atomic_add(&a[1], (T)(me + 1), 0);                                                                     \
    /* fetch_add (generic) then fetch_add_nbi (typed) on a[2] */                                                       \
    const T r1 = shmem_atomic_fetch_add(&a[2], (T)(me + 1), 0);                                                        \
    T r2 = (T)-1;                                                                                                      \
    shmem_##N##_atomic_fetch_add_nbi(&r2, &a[2], (T)(10 * (me + 1)), 0);                                               \
    shmem_quiet();                                                                                                     \
    CHECK((long long)r1 + me + 1 <= 11 * S, "%s %s: fetch_add fetched %lld, above the total %lld", tn, where,          \
          (long long)r1, 11 * S);                                                                                      \
    CHECK((long long)r2 >= (long long)r1 + me + 1 && (long long)r2 + 10 * (me + 1) <= 11 * S,                          \
          "%s %s: fetch_add_nbi fetched %lld after fetch_add fetched %lld (total %lld)", tn, where, (long long)r2,     \
          (long long)r1, 11 * S);                                                                                      \
    shmem_barrier_all();                                                                                               \
    v = shmem_##N##_atomic_fetch(&a[1], 0);                                                                            \
    CHECK(v == (T)(2 * npes + 2 * S), "%s %s: inc/add total %lld, expected %lld", tn, where, (long long)v,             \
          (long long)(2 * npes + 2 * S));                                                                              \
    v = shmem_atomic_fetch(&a[2], 0);                                                                                  \
    CHECK(v == (T)(11 * S), "%s %s: fetch_add total %lld, expected %lld", tn, where, (long long)v, 11 * S);            \
    if (me == 0) {                                                                                                     \
      CHECK(a[1] == (T)(2 * npes + 2 * S) && a[2] == (T)(11 * S),                                                      \
            "%s %s: PE 0 reads %lld and %lld locally, expected %lld and %lld", tn, where, (long long)a[1],             \
            (long long)a[2], (long long)(2 * npes + 2 * S), 11 * S);                                                   \
    }                                                                                                                  \
    /* compare_swap from 0: exactly one PE wins, the others see its value */                                           \
    const T c = shmem_atomic_compare_swap(&a[3], (T)0, (T)(me + 1), 0);                                                \
    got[0] = (long long)c;                                                                                             \
    gather(got, 1);                                                                                                    \
    const T final = shmem_##N##_atomic_fetch(&a[3], 0);                                                                \
    int zeros = 0, others_ok = 1;                                                                                      \
    for (int p = 0; p < npes; ++p) {                                                                                   \
      if (gall[p] == 0) ++zeros;                                                                                       \
      else if (gall[p] != (long long) final) others_ok = 0;                                                            \
    }                                                                                                                  \
    CHECK(zeros == 1 && others_ok && final >= (T)1 && final <= (T)npes && gall[(long long) final - 1] == 0,            \
          "%s %s: compare_swap: %d winners, final value %lld", tn, where, zeros, (long long) final);                   \
    /* compare_swap loop: every PE increments a[4] K times */                                                          \
    for (int k = 0; k < K; ++k) {                                                                                      \
      T old;                                                                                                           \
      do old = shmem_##N##_atomic_fetch(&a[4], 0);                                                                     \
      while (shmem_##N##_atomic_compare_swap(&a[4], old, (T)(old + 1), 0) != old);                                     \
    }                                                                                                                  \
    /* compare_swap_nbi on this PE's slot: succeeds once, then fails */                                                \
    T s0 = (T)-1, s1 = (T)-1;                                                                                          \
    shmem_##N##_atomic_compare_swap_nbi(&s0, &a[8 + me], (T)0, (T)(me + 7), 0);                                        \
    shmem_quiet();                                                                                                     \
    shmem_atomic_compare_swap_nbi(&s1, &a[8 + me], (T)0, (T)(me + 9), 0);                                              \
    shmem_quiet();                                                                                                     \
    CHECK(s0 == (T)0 && s1 == (T)(me + 7), "%s %s: compare_swap_nbi fetched %lld and %lld, expected 0, %d", tn, where, \
          (long long)s0, (long long)s1, me + 7);                                                                       \
    shmem_barrier_all();                                                                                               \
    v = shmem_atomic_fetch(&a[4], 0);                                                                                  \
    CHECK(v == (T)(npes * K), "%s %s: compare_swap loop total %lld, expected %d", tn, where, (long long)v, npes * K);  \
    for (int p = 0; p < npes; ++p) {                                                                                   \
      v = shmem_##N##_atomic_fetch(&a[8 + p], 0);                                                                      \
      CHECK(v == (T)(p + 7), "%s %s: slot of PE %d holds %lld, expected %d", tn, where, p, (long long)v, p + 7);       \
    }                                                                                                                  \
    /* the context forms on a created context */                                                                       \
    shmem_barrier_all();                                                                                               \
    if (me == 0)                                                                                                       \
      for (int i = 0; i < 4; ++i) a[i] = (T)0;                                                                         \
    shmem_barrier_all();                                                                                               \
    for (int k = 0; k < K; ++k) got[k] = (long long)shmem_atomic_fetch_inc(ctx, &a[0], 0);                             \
    shmem_ctx_##N##_atomic_inc(ctx, &a[1], 0);                                                                         \
    shmem_atomic_inc(ctx, &a[1], 0);                                                                                   \
    shmem_atomic_add(ctx, &a[1], (T)(me + 1), 0);                                                                      \
    shmem_ctx_##N##_atomic_add(ctx, &a[1], (T)(me + 1), 0);                                                            \
    const T q1 = shmem_ctx_##N##_atomic_fetch_add(ctx, &a[2], (T)(me + 1), 0);                                         \
    T q2 = (T)-1, q3 = (T)-1;                                                                                          \
    shmem_atomic_fetch_add_nbi(ctx, &q2, &a[2], (T)(10 * (me + 1)), 0);                                                \
    shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, &q3, &a[3], 0);                                                          \
    shmem_ctx_quiet(ctx);                                                                                              \
    CHECK((long long)q2 >= (long long)q1 + me + 1 && (long long)q3 < npes,                                             \
          "%s %s ctx: fetch_add fetched %lld then %lld, fetch_inc_nbi %lld", tn, where, (long long)q1, (long long)q2,  \
          (long long)q3);                                                                                              \
    gather(got, K);                                                                                                    \
    check_permutation((long)npes* K, 0, "ctx fetch_inc", tn, where, __LINE__);                                         \
    shmem_barrier_all();                                                                                               \
    v = shmem_atomic_fetch(ctx, &a[1], 0);                                                                             \
    CHECK(v == (T)(2 * npes + 2 * S), "%s %s ctx: inc/add total %lld, expected %lld", tn, where, (long long)v,         \
          (long long)(2 * npes + 2 * S));                                                                              \
    v = shmem_ctx_##N##_atomic_fetch(ctx, &a[2], 0);                                                                   \
    CHECK(v == (T)(11 * S), "%s %s ctx: fetch_add total %lld, expected %lld", tn, where, (long long)v, 11 * S);        \
    v = shmem_ctx_##N##_atomic_compare_swap(ctx, &a[3], (T)npes, (T)npes, 0);                                          \
    CHECK(v == (T)npes, "%s %s ctx: compare_swap read %lld, expected %d fetch_inc_nbi", tn, where, (long long)v,       \
          npes);                                                                                                       \
    shmem_barrier_all();                                                                                               \
  }

DEF_STD(int, int)
DEF_STD(long, long)
DEF_STD(long long, longlong)
DEF_STD(unsigned long long, ulonglong)
DEF_STD(int32_t, int32)
DEF_STD(uint64_t, uint64)
DEF_STD(size_t, size)

/* ---- extended AMOs: fetch, set, swap (also float and double) --------- */

#define DEF_EXT(T, N)                                                                                                  \
  static void ext_##N(T* a, const char* where) {                                                                       \
    const char* tn = #N;                                                                                               \
    const int X = NMAX + 1; /* the swap slot */                                                                        \
    if (me == 0)                                                                                                       \
      for (int i = 0; i < SLOTS; ++i) a[i] = (T)0;                                                                     \
    shmem_barrier_all();                                                                                               \
    /* set: each PE its slot on PE 0 (typed on even PEs, generic on odd) */                                            \
    if (me % 2 == 0) shmem_##N##_atomic_set(&a[me], (T)(3 * me + 1), 0);                                               \
    else shmem_atomic_set(&a[me], (T)(3 * me + 1), 0);                                                                 \
    shmem_barrier_all();                                                                                               \
    T f[NMAX];                                                                                                         \
    for (int p = 0; p < npes; ++p) {                                                                                   \
      const T v = p % 2 ? shmem_atomic_fetch(&a[p], 0) : shmem_##N##_atomic_fetch(&a[p], 0);                           \
      CHECK(v == (T)(3 * p + 1), "%s %s: fetch of PE %d's slot gave %lld, expected %d", tn, where, p, (long long)v,    \
            3 * p + 1);                                                                                                \
      f[p] = (T)-5;                                                                                                    \
    }                                                                                                                  \
    for (int p = 0; p < npes; ++p) shmem_##N##_atomic_fetch_nbi(&f[p], &a[p], 0);                                      \
    shmem_quiet();                                                                                                     \
    for (int p = 0; p < npes; ++p)                                                                                     \
      CHECK(f[p] == (T)(3 * p + 1), "%s %s: fetch_nbi of PE %d's slot gave %lld, expected %d", tn, where, p,           \
            (long long)f[p], 3 * p + 1);                                                                               \
    /* swap: the fetched values and the final value are the first value and every PE's, each once */                   \
    if (me == 0) a[X] = (T)1000;                                                                                       \
    shmem_barrier_all();                                                                                               \
    long long got[2];                                                                                                  \
    got[0] = (long long)shmem_atomic_swap(&a[X], (T)(100 + me), 0);                                                    \
    T sw = (T)-5;                                                                                                      \
    shmem_##N##_atomic_swap_nbi(&sw, &a[X], (T)(200 + me), 0);                                                         \
    shmem_quiet();                                                                                                     \
    got[1] = (long long)sw;                                                                                            \
    if (npes == 1)                                                                                                     \
      CHECK(got[0] == 1000 && got[1] == 100, "%s %s: swaps fetched %lld, %lld; expected 1000, 100", tn, where, got[0], \
            got[1]);                                                                                                   \
    gather(got, 2);                                                                                                    \
    const long long fin = (long long)shmem_##N##_atomic_fetch(&a[X], 0);                                               \
    char seen[2 * NMAX + 1];                                                                                           \
    memset(seen, 0, sizeof seen);                                                                                      \
    int bad = 0;                                                                                                       \
    for (int i = 0; i <= 2 * npes; ++i) {                                                                              \
      const long long v = i < 2 * npes ? gall[i] : fin;                                                                \
      int idx = -1;                                                                                                    \
      if (v == 1000) idx = 2 * npes;                                                                                   \
      else if (v >= 100 && v < 100 + npes) idx = (int)(v - 100);                                                       \
      else if (v >= 200 && v < 200 + npes) idx = npes + (int)(v - 200);                                                \
      if (idx < 0 || seen[idx]) bad = 1;                                                                               \
      else seen[idx] = 1;                                                                                              \
    }                                                                                                                  \
    CHECK(!bad, "%s %s: the swapped-out values and the final %lld are not 1000 and each PE's two", tn, where, fin);    \
    /* the context forms */                                                                                            \
    shmem_barrier_all();                                                                                               \
    shmem_atomic_set(ctx, &a[me], (T)(5 * me + 2), 0);                                                                 \
    shmem_ctx_quiet(ctx);                                                                                              \
    shmem_barrier_all();                                                                                               \
    const int peer = (me + 1) % npes;                                                                                  \
    T v = shmem_atomic_fetch(ctx, &a[peer], 0);                                                                        \
    CHECK(v == (T)(5 * peer + 2), "%s %s ctx: fetch gave %lld, expected %d", tn, where, (long long)v, 5 * peer + 2);   \
    shmem_barrier_all();                                                                                               \
    v = shmem_ctx_##N##_atomic_swap(ctx, &a[me], (T)(7 * me + 3), 0);                                                  \
    CHECK(v == (T)(5 * me + 2), "%s %s ctx: swap fetched %lld, expected %d", tn, where, (long long)v, 5 * me + 2);     \
    T w = (T)-5;                                                                                                       \
    shmem_ctx_##N##_atomic_fetch_nbi(ctx, &w, &a[me], 0);                                                              \
    shmem_ctx_quiet(ctx);                                                                                              \
    CHECK(w == (T)(7 * me + 3), "%s %s ctx: fetch_nbi gave %lld, expected %d", tn, where, (long long)w, 7 * me + 3);   \
    w = (T)-5;                                                                                                         \
    shmem_atomic_swap_nbi(ctx, &w, &a[me], (T)(me + 11), 0);                                                           \
    shmem_ctx_quiet(ctx);                                                                                              \
    v = shmem_ctx_##N##_atomic_fetch(ctx, &a[me], 0);                                                                  \
    CHECK(w == (T)(7 * me + 3) && v == (T)(me + 11), "%s %s ctx: swap_nbi fetched %lld, left %lld", tn, where,         \
          (long long)w, (long long)v);                                                                                 \
    shmem_barrier_all();                                                                                               \
  }

DEF_EXT(int, int)
DEF_EXT(long, long)
DEF_EXT(unsigned long long, ulonglong)
DEF_EXT(uint64_t, uint64)
DEF_EXT(size_t, size)
DEF_EXT(float, float)
DEF_EXT(double, double)

/* ---- bitwise AMOs: and, or, xor, with fetch_ and _nbi forms ----------- */

#define XINIT 0x5A5A5A5AUL

#define DEF_BIT(T, N)                                                                                           \
  static void bit_##N(T* a, const char* where) {                                                                \
    const char* tn = #N;                                                                                        \
    if (me == 0)                                                                                                \
      for (int i = 0; i < 3; ++i) {                                                                             \
        a[3 * i] = (T)0;                                                                                        \
        a[3 * i + 1] = (T) ~(T)0;                                                                               \
        a[3 * i + 2] = (T)XINIT;                                                                                \
      }                                                                                                         \
    shmem_barrier_all();                                                                                        \
    const T bit = (T)((T)1 << me), hi = (T)((T)1 << (me + 16));                                                 \
    T mask = 0;                                                                                                 \
    for (int p = 0; p < npes; ++p) mask = (T)(mask | ((T)1 << p) | ((T)1 << (p + 16)));                         \
    /* blocking: fetch_ forms for the low bit, plain forms for the high */                                      \
    T r = shmem_atomic_fetch_or(&a[0], bit, 0);                                                                 \
    CHECK(!(r & bit), "%s %s: fetch_or fetched %llx with this PE's bit set", tn, where, (unsigned long long)r); \
    shmem_##N##_atomic_or(&a[0], hi, 0);                                                                        \
    r = shmem_##N##_atomic_fetch_and(&a[1], (T)~bit, 0);                                                        \
    CHECK(r& bit, "%s %s: fetch_and fetched %llx without this PE's bit", tn, where, (unsigned long long)r);     \
    shmem_atomic_and(&a[1], (T)~hi, 0);                                                                         \
    r = shmem_atomic_fetch_xor(&a[2], bit, 0);                                                                  \
    CHECK((r & bit) == ((T)XINIT & bit), "%s %s: fetch_xor fetched %llx", tn, where, (unsigned long long)r);    \
    shmem_##N##_atomic_xor(&a[2], hi, 0);                                                                       \
    /* non-blocking fetch_ forms, completed by quiet */                                                         \
    T f[3] = {(T)0xEE, (T)0xEE, (T)0xEE};                                                                       \
    shmem_##N##_atomic_fetch_or_nbi(&f[0], &a[3], bit, 0);                                                      \
    shmem_atomic_fetch_and_nbi(&f[1], &a[4], (T)~bit, 0);                                                       \
    shmem_##N##_atomic_fetch_xor_nbi(&f[2], &a[5], bit, 0);                                                     \
    shmem_quiet();                                                                                              \
    shmem_atomic_fetch_or_nbi(&f[0], &a[3], hi, 0);                                                             \
    shmem_##N##_atomic_fetch_and_nbi(&f[1], &a[4], (T)~hi, 0);                                                  \
    shmem_atomic_fetch_xor_nbi(&f[2], &a[5], hi, 0);                                                            \
    shmem_quiet();                                                                                              \
    CHECK((f[0] & bit) && !(f[1] & bit) && (f[2] & bit) == (((T)XINIT & bit) ^ bit),                            \
          "%s %s: fetch_or/and/xor_nbi fetched %llx %llx %llx", tn, where, (unsigned long long)f[0],            \
          (unsigned long long)f[1], (unsigned long long)f[2]);                                                  \
    /* the context forms */                                                                                     \
    r = shmem_atomic_fetch_or(ctx, &a[6], bit, 0);                                                              \
    CHECK(!(r & bit), "%s %s ctx: fetch_or fetched %llx", tn, where, (unsigned long long)r);                    \
    shmem_ctx_##N##_atomic_or(ctx, &a[6], hi, 0);                                                               \
    shmem_atomic_and(ctx, &a[7], (T)~bit, 0);                                                                   \
    shmem_ctx_fence(ctx); /* the and is delivered before the fetch_and */                                       \
    r = shmem_ctx_##N##_atomic_fetch_and(ctx, &a[7], (T)~hi, 0);                                                \
    CHECK(!(r & bit) && (r & hi), "%s %s ctx: fetch_and fetched %llx", tn, where, (unsigned long long)r);       \
    shmem_ctx_##N##_atomic_xor(ctx, &a[8], bit, 0);                                                             \
    shmem_ctx_fence(ctx);                                                                                       \
    T x = (T)0xEE;                                                                                              \
    shmem_atomic_fetch_xor_nbi(ctx, &x, &a[8], hi, 0);                                                          \
    shmem_ctx_quiet(ctx);                                                                                       \
    CHECK((x & bit) == (((T)XINIT & bit) ^ bit), "%s %s ctx: fetch_xor_nbi fetched %llx", tn, where,            \
          (unsigned long long)x);                                                                               \
    shmem_barrier_all();                                                                                        \
    for (int i = 0; i < 3; ++i) {                                                                               \
      const T o = shmem_##N##_atomic_fetch(&a[3 * i], 0);                                                       \
      const T n = shmem_atomic_fetch(&a[3 * i + 1], 0);                                                         \
      const T e = shmem_##N##_atomic_fetch(&a[3 * i + 2], 0);                                                   \
      CHECK(o == mask && n == (T)~mask && e == (T)((T)XINIT ^ mask),                                            \
            "%s %s: set %d: or %llx, and %llx, xor %llx; expected %llx, %llx, %llx", tn, where, i,              \
            (unsigned long long)o, (unsigned long long)n, (unsigned long long)e, (unsigned long long)mask,      \
            (unsigned long long)(T)~mask, (unsigned long long)(T)((T)XINIT ^ mask));                            \
    }                                                                                                           \
    shmem_barrier_all();                                                                                        \
  }

DEF_BIT(unsigned int, uint)
DEF_BIT(unsigned long long, ulonglong)
DEF_BIT(int32_t, int32)
DEF_BIT(int64_t, int64)
DEF_BIT(uint64_t, uint64)

/* ---- the deprecated names --------------------------------------------- */

#define DEF_DEPRECATED(T, N)                                                                                        \
  static void deprecated_##N(T* a, const char* where) {                                                             \
    const char* tn = #N;                                                                                            \
    const long long S = (long long)npes * (npes + 1) / 2;                                                           \
    if (me == 0)                                                                                                    \
      for (int i = 0; i < 4; ++i) a[i] = (T)0;                                                                      \
    shmem_barrier_all();                                                                                            \
    long long got[K];                                                                                               \
    for (int k = 0; k < K; ++k) got[k] = (long long)shmem_##N##_finc(&a[0], 0);                                     \
    shmem_##N##_inc(&a[1], 0);                                                                                      \
    shmem_##N##_add(&a[1], (T)(me + 1), 0);                                                                         \
    const T r = shmem_##N##_fadd(&a[2], (T)(me + 1), 0);                                                            \
    CHECK((long long)r + me + 1 <= S, "%s %s: fadd fetched %lld", tn, where, (long long)r);                         \
    const T c = shmem_##N##_cswap(&a[3], (T)0, (T)(me + 1), 0);                                                     \
    gather(got, K);                                                                                                 \
    check_permutation((long)npes* K, 0, "finc", tn, where, __LINE__);                                               \
    const T t1 = shmem_##N##_fetch(&a[1], 0), t2 = shmem_##N##_fetch(&a[2], 0);                                     \
    const T w = shmem_##N##_fetch(&a[3], 0);                                                                        \
    CHECK(t1 == (T)(npes + S) && t2 == (T)S, "%s %s: inc/add total %lld, fadd total %lld; expected %lld, %lld", tn, \
          where, (long long)t1, (long long)t2, npes + S, S);                                                        \
    CHECK(w >= (T)1 && w <= (T)npes && (c == 0) == (w == (T)(me + 1)) && (c == 0 || c == w),                        \
          "%s %s: cswap fetched %lld, final %lld", tn, where, (long long)c, (long long)w);                          \
    shmem_barrier_all();                                                                                            \
    shmem_##N##_set(&a[4 + me], (T)(me + 40), 0);                                                                   \
    shmem_barrier_all();                                                                                            \
    const int peer = (me + npes - 1) % npes;                                                                        \
    const T sw = shmem_##N##_swap(&a[4 + peer], (T)(peer + 50), 0);                                                 \
    CHECK(sw == (T)(peer + 40), "%s %s: swap fetched %lld, expected %d", tn, where, (long long)sw, peer + 40);      \
    shmem_barrier_all();                                                                                            \
    const T mine = shmem_##N##_fetch(&a[4 + me], 0);                                                                \
    CHECK(mine == (T)(me + 50), "%s %s: slot %lld after swap, expected %d", tn, where, (long long)mine, me + 50);   \
    shmem_barrier_all();                                                                                            \
  }
#define DEF_DEPRECATED_EXT(T, N)                                                                          \
  static void deprecated_##N(T* a, const char* where) {                                                   \
    const char* tn = #N;                                                                                  \
    shmem_##N##_set(&a[me], (T)(me + 0.5), 0);                                                            \
    shmem_barrier_all();                                                                                  \
    const int peer = (me + 1) % npes;                                                                     \
    const T v = shmem_##N##_fetch(&a[peer], 0);                                                           \
    CHECK(v == (T)(peer + 0.5), "%s %s: fetch gave %f, expected %f", tn, where, (double)v, peer + 0.5);   \
    shmem_barrier_all();                                                                                  \
    const T s = shmem_##N##_swap(&a[peer], (T)(peer + 2.25), 0);                                          \
    CHECK(s == (T)(peer + 0.5), "%s %s: swap fetched %f, expected %f", tn, where, (double)s, peer + 0.5); \
    shmem_barrier_all();                                                                                  \
    CHECK(shmem_##N##_fetch(&a[me], 0) == (T)(me + 2.25), "%s %s: swap did not store", tn, where);        \
    shmem_barrier_all();                                                                                  \
  }

DEF_DEPRECATED(int, int)
DEF_DEPRECATED(long, long)
DEF_DEPRECATED(long long, longlong)
DEF_DEPRECATED_EXT(float, float)
DEF_DEPRECATED_EXT(double, double)

/* ---- the objects: heap blocks and global variables -------------------- */

static int g_int[SLOTS];
static long g_long[SLOTS];
static long long g_longlong[SLOTS];
static unsigned int g_uint[SLOTS];
static unsigned long long g_ulonglong[SLOTS];
static int32_t g_int32[SLOTS];
static int64_t g_int64[SLOTS];
static uint64_t g_uint64[SLOTS];
static size_t g_size[SLOTS];
static float g_float[SLOTS];
static double g_double[SLOTS];

/* ---- locks ------------------------------------------------------------ */

#define ROUNDS 20
static long g_lock;        /* a global lock (symmetric, zero) */
static long g_unused_lock; /* never taken */
static int g_counter;      /* guarded by g_lock, on PE 0 */

static void locks(long* heap_lock, long* heap_counter) {
  shmem_barrier_all();
  /* set_lock / clear_lock around a get, a put and a quiet: a lost update
   * would leave the counter short. */
  for (int r = 0; r < ROUNDS; ++r) {
    shmem_set_lock(&g_lock);
    if (r == 0) {
      CHECK(shmem_test_lock(&g_lock) != 0, "test_lock on a lock this PE holds claimed it");
      CHECK_ERR(SHMEMX_SUCCESS, "test_lock on a held lock");
    }
    const int v = shmem_int_g(&g_counter, 0);
    shmem_int_p(&g_counter, v + 1, 0);
    shmem_quiet();
    shmem_clear_lock(&g_lock);
  }
  /* test_lock in a loop, on a heap lock guarding a heap counter */
  for (int r = 0; r < ROUNDS; ++r) {
    while (shmem_test_lock(heap_lock)) {
    }
    long v;
    shmem_long_get(&v, heap_counter, 1, 0);
    v += me + 1;
    shmem_long_put(heap_counter, &v, 1, 0);
    shmem_clear_lock(heap_lock);
  }
  CHECK_ERR(SHMEMX_SUCCESS, "lock rounds");
  shmem_barrier_all();
  const int c = shmem_int_g(&g_counter, 0);
  long hc = 0;
  shmem_get(&hc, heap_counter, 1, 0);
  CHECK(c == npes * ROUNDS, "counter under the global lock is %d, expected %d", c, npes * ROUNDS);
  CHECK(hc == (long)ROUNDS * npes * (npes + 1) / 2, "counter under the heap lock is %ld, expected %ld", hc,
        (long)ROUNDS * npes * (npes + 1) / 2);
  CHECK(shmem_long_atomic_fetch(&g_lock, 0) == 0 && shmem_long_atomic_fetch(heap_lock, 0) == 0,
        "a lock is still held after every PE cleared it");
  shmem_barrier_all();
  /* clearing a lock nobody holds is an error and leaves it free */
  shmem_clear_lock(&g_unused_lock);
  CHECK_ERR(SHMEMX_ERR_ARG, "clear_lock of a free lock");
  CHECK(shmem_long_atomic_fetch(&g_unused_lock, 0) == 0, "clear_lock of a free lock changed it");
  /* a lock that is not symmetric */
  long stack_lock = 0;
  shmem_set_lock(&stack_lock);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "set_lock on a stack variable");
  CHECK(shmem_test_lock(&stack_lock) != 0, "test_lock on a stack variable returned 0 (acquired)");
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "test_lock on a stack variable");
  shmem_clear_lock(&stack_lock);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "clear_lock on a stack variable");
  CHECK(stack_lock == 0, "a lock call changed a stack variable");
  shmem_barrier_all();
}

/* ---- bad input -------------------------------------------------------- */

static void bad_input(int* hi, long* hl, double* hd, unsigned int* hu) {
  /* PE 0's values, known to everyone */
  const int I0 = 4242;
  const long L0 = 77;
  const double D0 = 2.5;
  const unsigned int U0 = 0xF0F0u;
  if (me == 0) {
    hi[0] = I0;
    hl[0] = L0;
    hd[0] = D0;
    hu[0] = U0;
    g_int[0] = I0;
    g_long[0] = L0;
  }
  shmem_barrier_all();
  (void)shmemx_last_error();
  const int bad_pes[2] = {-1, npes};
  for (int b = 0; b < 2; ++b) {
    const int pe = bad_pes[b];
    char what[64];
    int* targets[2] = {hi, g_int};
    for (int t = 0; t < 2; ++t) {
      int* d = targets[t];
      const char* where = t ? "global" : "heap";
      snprintf(what, sizeof what, "fetch_add on %s, PE %d", where, pe);
      const int r = shmem_int_atomic_fetch_add(d, 5, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      CHECK(r == 0, "%s returned %d", what, r);
      snprintf(what, sizeof what, "inc on %s, PE %d", where, pe);
      shmem_atomic_inc(d, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      snprintf(what, sizeof what, "add on %s, PE %d", where, pe);
      shmem_int_atomic_add(d, 3, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      snprintf(what, sizeof what, "set on %s, PE %d", where, pe);
      shmem_atomic_set(d, 99, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      snprintf(what, sizeof what, "swap on %s, PE %d", where, pe);
      shmem_int_atomic_swap(d, 98, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      snprintf(what, sizeof what, "compare_swap on %s, PE %d", where, pe);
      shmem_atomic_compare_swap(d, I0, 97, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      snprintf(what, sizeof what, "fetch_inc_nbi on %s, PE %d", where, pe);
      int f = -7;
      shmem_int_atomic_fetch_inc_nbi(&f, d, pe);
      shmem_quiet();
      CHECK_ERR(SHMEMX_ERR_PE, what);
      CHECK(f == -7, "%s wrote %d to fetch", what, f);
      snprintf(what, sizeof what, "fetch on %s, PE %d", where, pe);
      shmem_int_atomic_fetch(d, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      snprintf(what, sizeof what, "ctx fetch_inc on %s, PE %d", where, pe);
      shmem_atomic_fetch_inc(ctx, d, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
      snprintf(what, sizeof what, "deprecated finc on %s, PE %d", where, pe);
      shmem_int_finc(d, pe);
      CHECK_ERR(SHMEMX_ERR_PE, what);
    }
    snprintf(what, sizeof what, "long fetch_add, PE %d", pe);
    shmem_long_atomic_fetch_add(hl, 1, pe);
    CHECK_ERR(SHMEMX_ERR_PE, what);
    snprintf(what, sizeof what, "double swap, PE %d", pe);
    shmem_double_atomic_swap(hd, 9.0, pe);
    CHECK_ERR(SHMEMX_ERR_PE, what);
    snprintf(what, sizeof what, "uint fetch_xor, PE %d", pe);
    shmem_uint_atomic_fetch_xor(hu, 0xFFu, pe);
    CHECK_ERR(SHMEMX_ERR_PE, what);
    snprintf(what, sizeof what, "uint and, PE %d", pe);
    shmem_atomic_and(hu, 0u, pe);
    CHECK_ERR(SHMEMX_ERR_PE, what);
  }
  /* a stack address: not symmetric */
  int local = 31;
  double dlocal = 1.5;
  unsigned int ulocal = 5u;
  shmem_int_atomic_add(&local, 1, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "add on a stack variable");
  shmem_atomic_fetch_inc(&local, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "fetch_inc on a stack variable");
  shmem_int_atomic_compare_swap(&local, 31, 0, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "compare_swap on a stack variable");
  shmem_atomic_set(&dlocal, 8.0, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "double set on a stack variable");
  shmem_uint_atomic_or(&ulocal, 0xF0u, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "uint or on a stack variable");
  shmem_ctx_int_atomic_inc(ctx, &local, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "ctx inc on a stack variable");
  CHECK(local == 31 && dlocal == 1.5 && ulocal == 5u, "an AMO on a stack variable changed it: %d %f %u", local, dlocal,
        ulocal);
  /* misaligned: inside the heap block, but not on an int boundary */
  shmem_int_atomic_add((int*)((char*)&hi[4] + 1), 1 << 20, 0);
  CHECK_ERR(SHMEMX_ERR_ADDRESS, "add on a misaligned address");
  /* a NULL fetch address for the non-blocking fetching forms */
  shmem_int_atomic_fetch_add_nbi(NULL, &hi[6], 5, 0);
  shmem_quiet();
  CHECK_ERR(SHMEMX_ERR_ARG, "fetch_add_nbi with a NULL fetch address");
  shmem_atomic_swap_nbi((int*)NULL, &hi[7], 9, 0);
  shmem_quiet();
  CHECK_ERR(SHMEMX_ERR_ARG, "swap_nbi with a NULL fetch address");
  /* an invalid context */
  shmem_ctx_int_atomic_add(SHMEM_CTX_INVALID, hi, 1, 0);
  CHECK_ERR(SHMEMX_ERR_CTX, "add on SHMEM_CTX_INVALID");
  shmem_ctx_t dead;
  CHECK(shmem_ctx_create(0, &dead) == 0, "shmem_ctx_create failed");
  shmem_ctx_destroy(dead);
  shmem_atomic_fetch_add(dead, hi, 1, 0);
  CHECK_ERR(SHMEMX_ERR_CTX, "fetch_add on a destroyed context");
  /* nothing changed */
  shmem_barrier_all();
  if (me == 0) {
    CHECK(hi[0] == I0 && g_int[0] == I0 && hl[0] == L0 && hd[0] == D0 && hu[0] == U0,
          "bad input changed PE 0's data: %d %d %ld %f %x", hi[0], g_int[0], hl[0], hd[0], hu[0]);
    CHECK(hi[4] == 0 && hi[5] == 0, "the misaligned add changed the heap: %x %x", (unsigned)hi[4], (unsigned)hi[5]);
    CHECK(hi[6] == 0 && hi[7] == 0, "AMOs with a NULL fetch address changed the heap: %d %d", hi[6], hi[7]);
  }
  CHECK(shmem_int_atomic_fetch(hi, 0) == I0 && shmem_int_atomic_fetch(g_int, 0) == I0,
        "bad input changed PE 0's data (read remotely)");
  CHECK_ERR(SHMEMX_SUCCESS, "the reads after bad input");
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes > NMAX || npes > 15) {
    if (me == 0) fprintf(stderr, "test_shmem_amo: at most 15 PEs\n");
    shmem_finalize();
    return EXIT_FAILURE;
  }
  CHECK(shmem_ctx_create(0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "shmem_ctx_create failed");
  gsrc = shmem_malloc(K * sizeof(long long));
  gall = shmem_malloc(NMAX * K * sizeof(long long));
  CHECK(gsrc && gall, "shmem_malloc failed");

#define HEAP_AND_GLOBAL(kind, T, N)                                \
  do {                                                             \
    T* h = shmem_calloc(SLOTS, sizeof(T));                         \
    CHECK(h != NULL, "shmem_calloc failed");                       \
    kind##_##N(h, "heap");                                         \
    kind##_##N(g_##N, "global");                                   \
    CHECK_ERR(SHMEMX_SUCCESS, #kind " " #N ": no routine failed"); \
    shmem_free(h);                                                 \
  } while (0)

  HEAP_AND_GLOBAL(std, int, int);
  HEAP_AND_GLOBAL(std, long, long);
  HEAP_AND_GLOBAL(std, long long, longlong);
  HEAP_AND_GLOBAL(std, unsigned long long, ulonglong);
  HEAP_AND_GLOBAL(std, int32_t, int32);
  HEAP_AND_GLOBAL(std, uint64_t, uint64);
  HEAP_AND_GLOBAL(std, size_t, size);

  HEAP_AND_GLOBAL(ext, int, int);
  HEAP_AND_GLOBAL(ext, long, long);
  HEAP_AND_GLOBAL(ext, unsigned long long, ulonglong);
  HEAP_AND_GLOBAL(ext, uint64_t, uint64);
  HEAP_AND_GLOBAL(ext, size_t, size);
  HEAP_AND_GLOBAL(ext, float, float);
  HEAP_AND_GLOBAL(ext, double, double);

  HEAP_AND_GLOBAL(bit, unsigned int, uint);
  HEAP_AND_GLOBAL(bit, unsigned long long, ulonglong);
  HEAP_AND_GLOBAL(bit, int32_t, int32);
  HEAP_AND_GLOBAL(bit, int64_t, int64);
  HEAP_AND_GLOBAL(bit, uint64_t, uint64);

  HEAP_AND_GLOBAL(deprecated, int, int);
  HEAP_AND_GLOBAL(deprecated, long, long);
  HEAP_AND_GLOBAL(deprecated, long long, longlong);
  HEAP_AND_GLOBAL(deprecated, float, float);
  HEAP_AND_GLOBAL(deprecated, double, double);

  long* heap_lock = shmem_calloc(2, sizeof(long));
  CHECK(heap_lock != NULL, "shmem_calloc failed");
  locks(&heap_lock[0], &heap_lock[1]);
  shmem_free(heap_lock);

  int* hi = shmem_calloc(8, sizeof(int));
  long* hl = shmem_malloc(sizeof(long));
  double* hd = shmem_malloc(sizeof(double));
  unsigned int* hu = shmem_malloc(sizeof(unsigned int));
  CHECK(hi && hl && hd && hu, "shmem_malloc failed");
  bad_input(hi, hl, hd, hu);
  shmem_free(hu);
  shmem_free(hd);
  shmem_free(hl);
  shmem_free(hi);

  shmem_ctx_destroy(ctx);
  shmem_free(gall);
  shmem_free(gsrc);
  return check_finish("test_shmem_amo");
}
