/*
 * OpenSHMEM collectives.
 *
 * Barriers and syncs (puts before a barrier are seen after it), broadcast
 * from every root, collect with a different count on every PE, fcollect,
 * alltoall and strided alltoalls, every reduction operation for several
 * types (DART's native reductions and the gather-and-reduce fallback of
 * 8- and 16-bit and complex types), in place too, the shmem_*mem forms, a
 * team of the even PEs, and the deprecated active-set routines with pSync
 * arrays (on all PEs and on the even PEs, each call made twice with the
 * same pSync), and all of it at 64 KiB and more. Bad input: a root outside the team, SHMEM_TEAM_INVALID,
 * bad strides and active sets: nonzero returns, error codes, data intact.
 */
#include "shmem_check.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

#define NMAX 64
#define NB 8 /* elements per PE */

static int me, npes;

/* ---- barriers ---------------------------------------------------------- */

static void barriers(int* slots) {
  for (int round = 1; round <= 3; ++round) {
    /* every PE writes its slot on every PE, then a barrier */
    for (int p = 0; p < npes; ++p) shmem_int_p(&slots[me], round * 100 + me, p);
    if (round == 2) {
      shmem_quiet();
      shmem_sync_all();
    } else if (round == 3) {
      shmem_quiet();
      CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync on SHMEM_TEAM_WORLD failed");
    } else {
      shmem_barrier_all();
    }
    int bad = -1;
    for (int p = 0; p < npes; ++p)
      if (slots[p] != round * 100 + p) bad = p;
    CHECK(bad < 0, "round %d: after the barrier, slot %d holds %d, expected %d", round, bad, bad < 0 ? 0 : slots[bad],
          bad < 0 ? 0 : round * 100 + bad);
    shmem_barrier_all();
  }
}

/* ---- large broadcast and collect --------------------------------------- */

/* Sizes from 64 KiB, where PEs that map each other copy straight from the
 * others' source (coll.cpp, pull_broadcast): every root, the team and the
 * active-set broadcast (whose root's dest stays as it was), a collect
 * with a different large count on every PE, and a reversed team, whose
 * collect concatenates in its own PE order. */
#define BIG (72 * 1024 / 8) /* longs: 72 KiB */

static void large(void) {
  long* lsrc = shmem_malloc((size_t)npes * BIG * sizeof(long));
  long* ldst = shmem_malloc((size_t)npes * BIG * sizeof(long));
  static long psync[SHMEM_BCAST_SYNC_SIZE];
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  CHECK(lsrc && ldst, "shmem_malloc of the large buffers failed");
  shmem_barrier_all();
  for (int root = 0; root < npes; ++root) {
    for (int i = 0; i < BIG; ++i) lsrc[i] = root * 1000003L + i + me * 7;
    for (int i = 0; i < BIG; ++i) ldst[i] = -1;
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, ldst, lsrc, BIG, root) == 0, "large broadcast failed");
    int bad = -1;
    for (int i = 0; i < BIG; ++i)
      if (ldst[i] != root * 1000003L + i + root * 7) bad = i;
    CHECK(bad < 0, "large broadcast from %d: element %d is %ld", root, bad, bad < 0 ? 0 : ldst[bad]);
    for (int i = 0; i < BIG; ++i) ldst[i] = -1;
    shmem_barrier_all(); /* psync is free again, lsrc rewritten on every PE */
    shmem_broadcast64(ldst, lsrc, BIG, root, 0, 0, npes, psync);
    bad = -1;
    for (int i = 0; i < BIG; ++i)
      if (ldst[i] != (me == root ? -1 : root * 1000003L + i + root * 7)) bad = i;
    CHECK(bad < 0, "large broadcast64 from %d: element %d is %ld", root, bad, bad < 0 ? 0 : ldst[bad]);
    shmem_barrier_all();
  }
  /* collect: PE p contributes BIG - 3 * p longs */
  size_t total = 0;
  for (int p = 0; p < npes; ++p) total += (size_t)(BIG - 3 * p);
  for (int i = 0; i < BIG; ++i) lsrc[i] = me * 1000003L + i;
  CHECK(shmem_long_collect(SHMEM_TEAM_WORLD, ldst, lsrc, (size_t)(BIG - 3 * me)) == 0, "large collect failed");
  size_t at = 0;
  int bad = 0;
  for (int p = 0; p < npes; ++p)
    for (int i = 0; i < BIG - 3 * p; ++i, ++at)
      if (ldst[at] != p * 1000003L + i) bad = 1;
  CHECK(!bad && at == total, "large collect with counts BIG - 3p: wrong data");
  /* fcollect: BIG / npes longs each, team and active-set forms */
  const int per = BIG / npes;
  for (int form = 0; form < 2; ++form) {
    for (int i = 0; i < per; ++i) lsrc[i] = me * 1000003L + i + form;
    if (form == 0) {
      CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, ldst, lsrc, (size_t)per) == 0, "large fcollect failed");
    } else {
      static long csync[SHMEM_COLLECT_SYNC_SIZE];
      for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; ++i) csync[i] = SHMEM_SYNC_VALUE;
      shmem_barrier_all();
      shmem_fcollect64(ldst, lsrc, (size_t)per, 0, 0, npes, csync);
    }
    bad = 0;
    for (int p = 0; p < npes; ++p)
      for (int i = 0; i < per; ++i)
        if (ldst[p * per + i] != p * 1000003L + i + form) bad = 1;
    CHECK(!bad, "large fcollect (%s): wrong data", form ? "fcollect64" : "team");
    shmem_barrier_all();
  }
  /* the reversed world team: team PE k is world PE npes - 1 - k */
  for (int i = 0; i < BIG; ++i) lsrc[i] = me * 1000003L + i;
  shmem_barrier_all();
  shmem_team_t rev;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0, "reversed split failed");
  if (rev != SHMEM_TEAM_INVALID) {
    const int k = shmem_team_my_pe(rev);
    CHECK(shmem_long_collect(rev, ldst, lsrc, (size_t)(BIG - 3 * k)) == 0, "large collect on the reversed team failed");
    at = 0;
    bad = 0;
    for (int q = 0; q < npes; ++q)
      for (int i = 0; i < BIG - 3 * q; ++i, ++at)
        if (ldst[at] != (npes - 1 - q) * 1000003L + i) bad = 1;
    CHECK(!bad, "large collect on the reversed team: wrong data");
    CHECK(shmem_long_broadcast(rev, ldst, lsrc, BIG, 0) == 0, "large broadcast on the reversed team failed");
    bad = 0;
    for (int i = 0; i < BIG; ++i)
      if (ldst[i] != (npes - 1) * 1000003L + i) bad = 1;
    CHECK(!bad, "large broadcast on the reversed team from its PE 0 (world PE %d): wrong data", npes - 1);
    shmem_team_destroy(rev);
  }
  shmem_barrier_all();
  shmem_free(ldst);
  shmem_free(lsrc);
}

/* ---- broadcast, collect, fcollect, alltoall(s) ------------------------ */

static void broadcasts(long* src, long* dst, int* isrc, int* idst) {
  for (int root = 0; root < npes; ++root) {
    for (int i = 0; i < NB; ++i) {
      src[i] = me * 1000L + i;
      dst[i] = -1;
      isrc[i] = me * 100 + i;
      idst[i] = -1;
    }
    shmem_barrier_all();
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, NB, root) == 0, "broadcast from %d failed", root);
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, idst, isrc, NB - 1, root) == 0, "int_broadcast failed");
    int bad = -1;
    for (int i = 0; i < NB; ++i)
      if (dst[i] != root * 1000L + i || idst[i] != (i < NB - 1 ? root * 100 + i : -1)) bad = i;
    CHECK(bad < 0, "broadcast from root %d: element %d is %ld / %d", root, bad, bad < 0 ? 0 : dst[bad],
          bad < 0 ? 0 : idst[bad]);
    /* in place on the root, as bytes */
    shmem_barrier_all();
    for (int i = 0; i < NB; ++i) isrc[i] = me * 100 + i + 50;
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, isrc, isrc, NB * sizeof(int), root) == 0, "broadcastmem failed");
    bad = -1;
    for (int i = 0; i < NB; ++i)
      if (isrc[i] != root * 100 + i + 50) bad = i;
    CHECK(bad < 0, "broadcastmem from root %d: element %d is %d", root, bad, bad < 0 ? 0 : isrc[bad]);
    shmem_barrier_all();
  }
}

static void collects(long* src, long* dst, int* isrc, int* idst) {
  /* collect: PE p contributes p + 1 elements */
  const int total = npes * (npes + 1) / 2;
  for (int i = 0; i < NB; ++i) src[i] = me * 1000L + i, isrc[i] = me * 100 + i;
  for (int i = 0; i < total + 4 && i < NMAX * NB; ++i) dst[i] = -1, idst[i] = -1;
  shmem_barrier_all();
  CHECK(shmem_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)(me + 1)) == 0, "collect failed");
  CHECK(shmem_int_collect(SHMEM_TEAM_WORLD, idst, isrc, (size_t)(npes - me)) == 0, "int_collect failed");
  int at = 0, iat = 0, bad = 0;
  for (int p = 0; p < npes; ++p) {
    for (int i = 0; i < p + 1; ++i) bad |= dst[at++] != p * 1000L + i;
    for (int i = 0; i < npes - p; ++i) bad |= idst[iat++] != p * 100 + i;
  }
  bad |= dst[total] != -1 || idst[total] != -1;
  CHECK(!bad, "collect with counts p + 1 and npes - p: wrong data");
  /* collectmem: PE p contributes 3 * (p % 2) bytes (PE 0 none) */
  unsigned char* bsrc = (unsigned char*)isrc;
  unsigned char* bdst = (unsigned char*)idst;
  for (int i = 0; i < 8; ++i) bsrc[i] = (unsigned char)(me * 16 + i);
  memset(bdst, 0xEE, 3 * (size_t)npes + 1);
  shmem_barrier_all();
  CHECK(shmem_collectmem(SHMEM_TEAM_WORLD, bdst, bsrc, (size_t)(3 * (me % 2))) == 0, "collectmem failed");
  at = 0;
  bad = 0;
  for (int p = 0; p < npes; ++p)
    for (int i = 0; i < 3 * (p % 2); ++i) bad |= bdst[at++] != (unsigned char)(p * 16 + i);
  bad |= bdst[at] != 0xEE;
  CHECK(!bad, "collectmem with counts 3 * (p %% 2): wrong data");
  shmem_barrier_all();

  /* fcollect: NB each, typed and generic and mem */
  for (int i = 0; i < NB; ++i) isrc[i] = me * 100 + i; /* collectmem used its bytes */
  for (int i = 0; i < NB * npes + 1; ++i) dst[i] = -1, idst[i] = -1;
  shmem_barrier_all();
  CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, NB) == 0, "long_fcollect failed");
  CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, idst, isrc, 2) == 0, "fcollect failed");
  bad = 0;
  for (int p = 0; p < npes; ++p) {
    for (int i = 0; i < NB; ++i) bad |= dst[p * NB + i] != p * 1000L + i;
    for (int i = 0; i < 2; ++i) bad |= idst[p * 2 + i] != p * 100 + i;
  }
  bad |= dst[npes * NB] != -1 || idst[npes * 2] != -1;
  CHECK(!bad, "fcollect: wrong data");
  shmem_barrier_all();
  for (int i = 0; i < NB; ++i) isrc[i] = me * 100 + i;
  CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, idst, isrc, 3 * sizeof(int)) == 0, "fcollectmem failed");
  bad = 0;
  for (int p = 0; p < npes; ++p)
    for (int i = 0; i < 3; ++i) bad |= idst[p * 3 + i] != p * 100 + i;
  CHECK(!bad, "fcollectmem: wrong data");
  shmem_barrier_all();
}

static void alltoalls(long* src, long* dst, int* isrc, int* idst) {
  /* block j of the source goes to PE j */
  for (int j = 0; j < npes; ++j)
    for (int i = 0; i < NB; ++i) {
      src[j * NB + i] = me * 100000L + j * 100 + i;
      dst[j * NB + i] = -1;
    }
  shmem_barrier_all();
  CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, NB) == 0, "alltoall failed");
  int bad = 0;
  for (int j = 0; j < npes; ++j)
    for (int i = 0; i < NB; ++i) bad |= dst[j * NB + i] != j * 100000L + me * 100 + i;
  CHECK(!bad, "alltoall: wrong data");
  shmem_barrier_all();
  CHECK(shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, 3 * sizeof(long)) == 0, "alltoallmem failed");
  bad = 0;
  for (int j = 0; j < npes; ++j)
    for (int i = 0; i < 3; ++i) /* PE j's source longs 3 * me .. 3 * me + 2 */
      bad |= dst[j * 3 + i] != j * 100000L + (long)((3 * me + i) / NB) * 100 + (3 * me + i) % NB;
  CHECK(!bad, "alltoallmem: wrong data");
  shmem_barrier_all();

  /* strided: source stride 3, dest stride 2, 2 elements per PE */
  const int ne = 2, sst = 3, dstr = 2;
  for (int e = 0; e < npes * ne * sst; ++e) isrc[e] = -9;
  for (int j = 0; j < npes; ++j)
    for (int i = 0; i < ne; ++i) isrc[(j * ne + i) * sst] = me * 1000 + j * 10 + i;
  for (int e = 0; e < npes * ne * dstr; ++e) idst[e] = -1;
  shmem_barrier_all();
  CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, idst, isrc, dstr, sst, ne) == 0, "alltoalls failed");
  bad = 0;
  for (int j = 0; j < npes; ++j)
    for (int i = 0; i < ne; ++i) {
      bad |= idst[(j * ne + i) * dstr] != j * 1000 + me * 10 + i;
      bad |= idst[(j * ne + i) * dstr + 1] != -1; /* the gaps stay */
    }
  CHECK(!bad, "alltoalls (dst 2, sst 3): wrong data");
  shmem_barrier_all();
  /* alltoallsmem: bytes, dst 1, sst 2 */
  unsigned char* b = (unsigned char*)isrc;
  unsigned char* d = (unsigned char*)idst;
  for (int e = 0; e < npes * 4; ++e) b[e * 2] = (unsigned char)(me * 32 + e), b[e * 2 + 1] = 0xAA;
  shmem_barrier_all();
  CHECK(shmem_alltoallsmem(SHMEM_TEAM_WORLD, d, b, 1, 2, 4) == 0, "alltoallsmem failed");
  bad = 0;
  for (int j = 0; j < npes; ++j)
    for (int i = 0; i < 4; ++i) bad |= d[j * 4 + i] != (unsigned char)(j * 32 + me * 4 + i);
  CHECK(!bad, "alltoallsmem: wrong data");
  shmem_barrier_all();
}

/* ---- reductions ------------------------------------------------------- */

/* The values PE p contributes at element i, per operation class. */
static long v_arith(int p, int i) { return p + i + 1; }
static long v_prod(int p, int i) { return (p + i) % 2 + 1; }
static long v_minmax(int p, int i) { return (p * 7 + i * 3) % 11 - 5; }
static unsigned long v_and(int p, int i) { return ~(1UL << ((p + i) % 8)); }
static unsigned long v_or(int p, int i) { return 1UL << ((p + i) % 8); }
static unsigned long v_xor(int p, int i) { return (unsigned long)(p * 37 + i * 11) & 0x7F; }

/* Reduces with `call` (a typed or generic routine) and checks against the
 * same operation done here on every PE's values. INPLACE: dest == source. */
#define REDUCE_CHECK(T, call, vfun, OP, INPLACE, label)                                \
  do {                                                                                 \
    T* s_ = (T*)rsrc;                                                                  \
    T* d_ = INPLACE ? s_ : (T*)rdst;                                                   \
    for (int i = 0; i < NB; ++i) {                                                     \
      s_[i] = (T)vfun(me, i);                                                          \
      if (!INPLACE) d_[i] = (T)99;                                                     \
    }                                                                                  \
    shmem_barrier_all();                                                               \
    const int rc_ = call(SHMEM_TEAM_WORLD, d_, s_, NB);                                \
    CHECK(rc_ == 0, "%s returned %d", label, rc_);                                     \
    int bad_ = -1;                                                                     \
    for (int i = 0; i < NB; ++i) {                                                     \
      T want_ = (T)vfun(0, i);                                                         \
      for (int p = 1; p < npes; ++p) {                                                 \
        const T x_ = (T)vfun(p, i);                                                    \
        want_ = OP(want_, x_);                                                         \
      }                                                                                \
      if (d_[i] != want_) bad_ = i;                                                    \
    }                                                                                  \
    CHECK(bad_ < 0, "%s: element %d is %lld, expected a different value", label, bad_, \
          bad_ < 0 ? 0LL : (long long)d_[bad_]);                                       \
    CHECK(INPLACE || s_[0] == (T)vfun(me, 0), "%s changed its source", label);         \
    shmem_barrier_all();                                                               \
  } while (0)

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define OP_MAX(a, b) ((a) < (b) ? (b) : (a))
#define OP_MIN(a, b) ((b) < (a) ? (b) : (a))
#define OP_AND(a, b) ((a) & (b))
#define OP_OR(a, b) ((a) | (b))
#define OP_XOR(a, b) ((a) ^ (b))

static void* rsrc;
static void* rdst;

static void reductions(void) {
  /* sum and product */
  REDUCE_CHECK(int, shmem_int_sum_reduce, v_arith, OP_SUM, 0, "int sum");
  REDUCE_CHECK(int, shmem_sum_reduce, v_arith, OP_SUM, 1, "int sum in place (generic)");
  REDUCE_CHECK(long, shmem_sum_reduce, v_arith, OP_SUM, 0, "long sum (generic)");
  REDUCE_CHECK(long long, shmem_longlong_prod_reduce, v_prod, OP_PROD, 0, "longlong prod");
  REDUCE_CHECK(int, shmem_prod_reduce, v_prod, OP_PROD, 1, "int prod in place (generic)");
  REDUCE_CHECK(float, shmem_float_sum_reduce, v_arith, OP_SUM, 0, "float sum");
  REDUCE_CHECK(double, shmem_double_sum_reduce, v_arith, OP_SUM, 0, "double sum");
  REDUCE_CHECK(double, shmem_sum_reduce, v_arith, OP_SUM, 1, "double sum in place (generic)");
  REDUCE_CHECK(double, shmem_double_prod_reduce, v_prod, OP_PROD, 0, "double prod");
  REDUCE_CHECK(char, shmem_char_sum_reduce, v_arith, OP_SUM, 0, "char sum (fallback)");
  REDUCE_CHECK(unsigned char, shmem_uchar_sum_reduce, v_arith, OP_SUM, 1, "uchar sum in place (fallback)");
  REDUCE_CHECK(int8_t, shmem_int8_prod_reduce, v_prod, OP_PROD, 0, "int8 prod (fallback)");
  REDUCE_CHECK(uint16_t, shmem_uint16_sum_reduce, v_arith, OP_SUM, 0, "uint16 sum (fallback)");
  REDUCE_CHECK(uint16_t, shmem_uint16_prod_reduce, v_prod, OP_PROD, 1, "uint16 prod in place (fallback)");
  REDUCE_CHECK(size_t, shmem_size_sum_reduce, v_arith, OP_SUM, 0, "size sum");
  /* max and min */
  REDUCE_CHECK(int, shmem_int_max_reduce, v_minmax, OP_MAX, 0, "int max");
  REDUCE_CHECK(int, shmem_min_reduce, v_minmax, OP_MIN, 0, "int min (generic)");
  REDUCE_CHECK(long, shmem_long_min_reduce, v_minmax, OP_MIN, 1, "long min in place");
  REDUCE_CHECK(long long, shmem_max_reduce, v_minmax, OP_MAX, 0, "longlong max (generic)");
  REDUCE_CHECK(double, shmem_double_max_reduce, v_minmax, OP_MAX, 0, "double max");
  REDUCE_CHECK(float, shmem_float_min_reduce, v_minmax, OP_MIN, 0, "float min");
  REDUCE_CHECK(char, shmem_char_max_reduce, v_minmax, OP_MAX, 0, "char max (fallback)");
  REDUCE_CHECK(signed char, shmem_schar_min_reduce, v_minmax, OP_MIN, 1, "schar min in place (fallback)");
  REDUCE_CHECK(int8_t, shmem_int8_max_reduce, v_minmax, OP_MAX, 0, "int8 max (fallback)");
  REDUCE_CHECK(unsigned char, shmem_uchar_max_reduce, v_arith, OP_MAX, 0, "uchar max (fallback)");
  REDUCE_CHECK(uint16_t, shmem_uint16_min_reduce, v_arith, OP_MIN, 0, "uint16 min (fallback)");
  REDUCE_CHECK(unsigned int, shmem_uint_max_reduce, v_arith, OP_MAX, 0, "uint max");
  /* and, or, xor */
  REDUCE_CHECK(unsigned int, shmem_uint_and_reduce, v_and, OP_AND, 0, "uint and");
  REDUCE_CHECK(unsigned int, shmem_or_reduce, v_or, OP_OR, 0, "uint or (generic)");
  REDUCE_CHECK(unsigned int, shmem_uint_xor_reduce, v_xor, OP_XOR, 1, "uint xor in place");
  REDUCE_CHECK(uint64_t, shmem_uint64_and_reduce, v_and, OP_AND, 1, "uint64 and in place");
  REDUCE_CHECK(int32_t, shmem_int32_or_reduce, v_or, OP_OR, 0, "int32 or");
  REDUCE_CHECK(long, shmem_xor_reduce, v_xor, OP_XOR, 0, "int64 xor (generic on long)");
  REDUCE_CHECK(unsigned char, shmem_uchar_and_reduce, v_and, OP_AND, 0, "uchar and (fallback)");
  REDUCE_CHECK(unsigned char, shmem_uchar_or_reduce, v_or, OP_OR, 1, "uchar or in place (fallback)");
  REDUCE_CHECK(uint8_t, shmem_uint8_xor_reduce, v_xor, OP_XOR, 0, "uint8 xor (fallback)");
  REDUCE_CHECK(int8_t, shmem_int8_or_reduce, v_or, OP_OR, 0, "int8 or (fallback)");
  REDUCE_CHECK(uint16_t, shmem_uint16_and_reduce, v_and, OP_AND, 0, "uint16 and (fallback)");
  REDUCE_CHECK(uint16_t, shmem_xor_reduce, v_xor, OP_XOR, 1, "ushort xor in place (generic, fallback)");
  REDUCE_CHECK(size_t, shmem_size_or_reduce, v_or, OP_OR, 0, "size or");

  /* complex sums: real part p + i + 1, imaginary part p - i */
  double complex* cs = rsrc;
  double complex* cd = rdst;
  for (int inplace = 0; inplace < 2; ++inplace) {
    for (int i = 0; i < NB; ++i) cs[i] = CMPLX((double)(me + i + 1), (double)(me - i));
    double complex* d = inplace ? cs : cd;
    shmem_barrier_all();
    CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, d, cs, NB) == 0, "complexd sum failed");
    int bad = -1;
    for (int i = 0; i < NB; ++i) {
      double re = 0, im = 0;
      for (int p = 0; p < npes; ++p) re += p + i + 1, im += p - i;
      if (creal(d[i]) != re || cimag(d[i]) != im) bad = i;
    }
    CHECK(bad < 0, "complexd sum%s: element %d is %f%+fi", inplace ? " in place" : "", bad,
          bad < 0 ? 0.0 : creal(d[bad]), bad < 0 ? 0.0 : cimag(d[bad]));
    shmem_barrier_all();
  }
  float complex* fs = rsrc;
  float complex* fd = rdst;
  for (int i = 0; i < NB; ++i) fs[i] = CMPLXF((float)((me + i) % 2 + 1), 0.0f);
  shmem_barrier_all();
  CHECK(shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fd, fs, NB) == 0, "complexf prod failed");
  int bad = -1;
  for (int i = 0; i < NB; ++i) {
    float want = 1;
    for (int p = 0; p < npes; ++p) want *= (float)((p + i) % 2 + 1);
    if (crealf(fd[i]) != want || cimagf(fd[i]) != 0.0f) bad = i;
  }
  CHECK(bad < 0, "complexf prod: element %d wrong", bad);
  CHECK_ERR(SHMEMX_SUCCESS, "the reductions");
  shmem_barrier_all();
}

/* ---- a team of the even PEs ------------------------------------------- */

static void even_team(long* src, long* dst) {
  shmem_team_t even = SHMEM_TEAM_INVALID;
  const int m = (npes + 1) / 2;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, m, NULL, 0, &even) == 0, "split_strided failed");
  if (me % 2) {
    CHECK(even == SHMEM_TEAM_INVALID, "an odd PE got a handle to the even team");
    CHECK(shmem_team_sync(even) != 0, "team_sync on SHMEM_TEAM_INVALID returned 0");
    CHECK_ERR(SHMEMX_ERR_TEAM, "team_sync on SHMEM_TEAM_INVALID");
  } else {
    CHECK(shmem_team_my_pe(even) == me / 2 && shmem_team_n_pes(even) == m, "even team: PE %d of %d",
          shmem_team_my_pe(even), shmem_team_n_pes(even));
    CHECK(shmem_team_sync(even) == 0, "team_sync on the even team failed");
    for (int i = 0; i < NB; ++i) src[i] = me + i, dst[i] = -1;
    CHECK(shmem_long_sum_reduce(even, dst, src, NB) == 0, "sum over the even team failed");
    int bad = 0;
    for (int i = 0; i < NB; ++i) {
      long want = 0;
      for (int k = 0; k < m; ++k) want += 2 * k + i;
      bad |= dst[i] != want;
    }
    CHECK(!bad, "sum over the even team: wrong data");
    const int root = m - 1; /* the last even PE */
    for (int i = 0; i < NB; ++i) src[i] = me * 10L + i, dst[i] = -1;
    CHECK(shmem_broadcast(even, dst, src, NB, root) == 0, "broadcast over the even team failed");
    bad = 0;
    for (int i = 0; i < NB; ++i) bad |= dst[i] != 2 * root * 10L + i;
    CHECK(!bad, "broadcast over the even team from team PE %d: wrong data", root);
    CHECK(shmem_fcollect(even, dst, src, 1) == 0, "fcollect over the even team failed");
    bad = 0;
    for (int k = 0; k < m; ++k) bad |= dst[k] != 2 * k * 10L;
    CHECK(!bad, "fcollect over the even team: wrong data");
    shmem_team_destroy(even);
    CHECK_ERR(SHMEMX_SUCCESS, "the even team");
  }
  shmem_barrier_all();
}

/* ---- the deprecated active-set routines ------------------------------ */

static long psync_w[6][SHMEM_REDUCE_SYNC_SIZE]; /* one per routine, all PEs */
static long psync_e[6][SHMEM_REDUCE_SYNC_SIZE]; /* the even PEs */
static int pwrk_i[NB / 2 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long pwrk_l[NB / 2 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static int64_t a_src[NMAX * NB], a_dst[NMAX * NB];
static int32_t a_src32[NB], a_dst32[NMAX * NB];
static int a_isrc[NB], a_idst[NB];
static long a_lsrc[NB];

/* One active set: start, log2 stride, size. The caller is a member. */
static void active_set(int start, int logs, int size, long ps[6][SHMEM_REDUCE_SYNC_SIZE], const char* set) {
  const int stride = 1 << logs;
  const int idx = (me - start) / stride;
  for (int rep = 0; rep < 2; ++rep) { /* the same pSync twice in a row */
    /* barrier: puts before it are seen after it */
    for (int k = 0; k < size; ++k) shmem_int64_p(&a_dst[me], rep * 100 + me, start + k * stride);
    shmem_barrier(start, logs, size, ps[0]);
    int bad = 0;
    for (int k = 0; k < size; ++k) bad |= a_dst[start + k * stride] != rep * 100 + start + k * stride;
    CHECK(!bad, "%s rep %d: shmem_barrier did not complete the puts", set, rep);
    shmem_barrier(start, logs, size, ps[0]);
  }
  for (int rep = 0; rep < 2; ++rep) {
    /* broadcast64 from the last member (the root's dest is not written) */
    const int root = size - 1 - rep % size;
    for (int i = 0; i < NB; ++i) a_src[i] = me * 1000 + i + rep, a_dst[i] = -1;
    shmem_barrier(start, logs, size, ps[0]);
    shmem_broadcast64(a_dst, a_src, NB, root, start, logs, size, ps[1]);
    int bad = 0;
    for (int i = 0; i < NB; ++i) bad |= a_dst[i] != (idx == root ? -1 : (start + root * stride) * 1000 + i + rep);
    CHECK(!bad, "%s rep %d: broadcast64 from member %d: wrong data", set, rep, root);
  }
  for (int rep = 0; rep < 2; ++rep) {
    /* collect32: member k contributes k % 4 + 1 + rep elements */
    for (int i = 0; i < NB; ++i) a_src32[i] = me * 100 + i;
    for (int i = 0; i < NMAX * NB; ++i) a_dst32[i] = -1;
    shmem_barrier(start, logs, size, ps[0]);
    shmem_collect32(a_dst32, a_src32, (size_t)(idx % 4 + 1 + rep), start, logs, size, ps[2]);
    int at = 0, bad = 0;
    for (int k = 0; k < size; ++k)
      for (int i = 0; i < k % 4 + 1 + rep; ++i) bad |= a_dst32[at++] != (start + k * stride) * 100 + i;
    bad |= a_dst32[at] != -1;
    CHECK(!bad, "%s rep %d: collect32: wrong data", set, rep);
  }
  for (int rep = 0; rep < 2; ++rep) {
    /* fcollect64: 2 + rep each */
    for (int i = 0; i < NB; ++i) a_src[i] = me * 100 + i + rep;
    for (int i = 0; i < NMAX * NB; ++i) a_dst[i] = -1;
    shmem_barrier(start, logs, size, ps[0]);
    shmem_fcollect64(a_dst, a_src, (size_t)(2 + rep), start, logs, size, ps[3]);
    int bad = 0;
    for (int k = 0; k < size; ++k)
      for (int i = 0; i < 2 + rep; ++i) bad |= a_dst[k * (2 + rep) + i] != (start + k * stride) * 100 + i + rep;
    bad |= a_dst[size * (2 + rep)] != -1;
    CHECK(!bad, "%s rep %d: fcollect64: wrong data", set, rep);
  }
  for (int rep = 0; rep < 2; ++rep) {
    /* alltoall64: block k to member k, 2 elements */
    for (int k = 0; k < size; ++k)
      for (int i = 0; i < 2; ++i) a_src[k * 2 + i] = me * 1000 + k * 10 + i + rep, a_dst[k * 2 + i] = -1;
    shmem_barrier(start, logs, size, ps[0]);
    shmem_alltoall64(a_dst, a_src, 2, start, logs, size, ps[4]);
    int bad = 0;
    for (int k = 0; k < size; ++k)
      for (int i = 0; i < 2; ++i) bad |= a_dst[k * 2 + i] != (start + k * stride) * 1000 + idx * 10 + i + rep;
    CHECK(!bad, "%s rep %d: alltoall64: wrong data", set, rep);
  }
  for (int rep = 0; rep < 2; ++rep) {
    /* int_sum_to_all and long_max_to_all, the second in place */
    for (int i = 0; i < NB; ++i) a_isrc[i] = me + i + rep, a_idst[i] = -1, a_lsrc[i] = v_minmax(me, i) + rep;
    shmem_barrier(start, logs, size, ps[0]);
    shmem_int_sum_to_all(a_idst, a_isrc, NB, start, logs, size, pwrk_i, ps[5]);
    int bad = 0;
    for (int i = 0; i < NB; ++i) {
      int want = 0;
      for (int k = 0; k < size; ++k) want += start + k * stride + i + rep;
      bad |= a_idst[i] != want;
    }
    CHECK(!bad, "%s rep %d: int_sum_to_all: wrong data", set, rep);
    shmem_long_max_to_all(a_lsrc, a_lsrc, NB, start, logs, size, pwrk_l, ps[5]);
    bad = 0;
    for (int i = 0; i < NB; ++i) {
      long want = v_minmax(start, i) + rep;
      for (int k = 1; k < size; ++k)
        if (v_minmax(start + k * stride, i) + rep > want) want = v_minmax(start + k * stride, i) + rep;
      bad |= a_lsrc[i] != want;
    }
    CHECK(!bad, "%s rep %d: long_max_to_all in place: wrong data", set, rep);
  }
  int bad = 0;
  for (int r = 0; r < 6; ++r)
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) bad |= ps[r][i] != SHMEM_SYNC_VALUE;
  CHECK(!bad, "%s: a pSync array is not back to SHMEM_SYNC_VALUE", set);
  CHECK_ERR(SHMEMX_SUCCESS, "the active-set routines");
}

static void active_sets(void) {
  for (int r = 0; r < 6; ++r)
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync_w[r][i] = psync_e[r][i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all(); /* every PE's pSync is set before any uses it */
  active_set(0, 0, npes, psync_w, "all PEs");
  shmem_barrier_all();
  if (npes >= 3 && me % 2 == 0) active_set(0, 1, (npes + 1) / 2, psync_e, "even PEs");
  shmem_barrier_all();
}

/* ---- bad input -------------------------------------------------------- */

static void bad_input(long* src, long* dst) {
  for (int i = 0; i < NB; ++i) src[i] = me + i, dst[i] = -7;
  shmem_barrier_all();
  const int roots[2] = {-1, npes};
  for (int r = 0; r < 2; ++r) {
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, NB, roots[r]) != 0, "broadcast from root %d returned 0",
          roots[r]);
    CHECK_ERR(SHMEMX_ERR_PE, "broadcast from a root outside the team");
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 8, roots[r]) != 0, "broadcastmem from root %d", roots[r]);
    CHECK_ERR(SHMEMX_ERR_PE, "broadcastmem from a root outside the team");
  }
  shmem_team_t inv = SHMEM_TEAM_INVALID;
  CHECK(shmem_long_broadcast(inv, dst, src, NB, 0) != 0, "broadcast on SHMEM_TEAM_INVALID returned 0");
  CHECK_ERR(SHMEMX_ERR_TEAM, "broadcast on SHMEM_TEAM_INVALID");
  CHECK(shmem_long_sum_reduce(inv, dst, src, NB) != 0, "sum_reduce on SHMEM_TEAM_INVALID returned 0");
  CHECK_ERR(SHMEMX_ERR_TEAM, "sum_reduce on SHMEM_TEAM_INVALID");
  CHECK(shmem_uchar_max_reduce(inv, (unsigned char*)dst, (unsigned char*)src, 4) != 0, "uchar max on invalid");
  CHECK_ERR(SHMEMX_ERR_TEAM, "uchar max_reduce (fallback) on SHMEM_TEAM_INVALID");
  CHECK(shmem_collect(inv, dst, src, 1) != 0, "collect on SHMEM_TEAM_INVALID returned 0");
  CHECK_ERR(SHMEMX_ERR_TEAM, "collect on SHMEM_TEAM_INVALID");
  CHECK(shmem_fcollectmem(inv, dst, src, 8) != 0, "fcollectmem on SHMEM_TEAM_INVALID returned 0");
  CHECK_ERR(SHMEMX_ERR_TEAM, "fcollectmem on SHMEM_TEAM_INVALID");
  CHECK(shmem_alltoall(inv, dst, src, 1) != 0, "alltoall on SHMEM_TEAM_INVALID returned 0");
  CHECK_ERR(SHMEMX_ERR_TEAM, "alltoall on SHMEM_TEAM_INVALID");
  CHECK(shmem_long_alltoalls(inv, dst, src, 1, 1, 1) != 0, "alltoalls on SHMEM_TEAM_INVALID returned 0");
  CHECK_ERR(SHMEMX_ERR_TEAM, "alltoalls on SHMEM_TEAM_INVALID");
  CHECK(shmem_team_sync(inv) != 0, "team_sync on SHMEM_TEAM_INVALID returned 0");
  CHECK_ERR(SHMEMX_ERR_TEAM, "team_sync on SHMEM_TEAM_INVALID");
  CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, dst, src, 0, 1, 1) != 0, "alltoalls with dst 0 returned 0");
  CHECK_ERR(SHMEMX_ERR_ARG, "alltoalls with dst 0");
  CHECK(shmem_alltoallsmem(SHMEM_TEAM_WORLD, dst, src, 1, -2, 1) != 0, "alltoallsmem with sst -2 returned 0");
  CHECK_ERR(SHMEMX_ERR_ARG, "alltoallsmem with sst -2");
  /* active sets that do not fit or do not include the caller */
  static long ps[SHMEM_BARRIER_SYNC_SIZE];
  shmem_barrier(0, 0, npes + 1, ps);
  CHECK_ERR(SHMEMX_ERR_PE, "shmem_barrier on npes + 1 PEs");
  shmem_barrier(0, 0, 0, ps);
  CHECK_ERR(SHMEMX_ERR_ARG, "shmem_barrier on 0 PEs");
  shmem_barrier(-1, 0, 1, ps);
  CHECK_ERR(SHMEMX_ERR_ARG, "shmem_barrier from PE -1");
  shmem_broadcast64(dst, src, 1, 0, me == 0 ? 1 : 0, 0, 1, ps); /* a set of one other PE */
  CHECK_ERR(SHMEMX_ERR_PE, "broadcast64 on a set without the caller");
  shmem_broadcast64(dst, src, 1, 3, me, 0, 1, ps); /* the caller alone, root 3 */
  CHECK_ERR(SHMEMX_ERR_PE, "broadcast64 with the root outside the set");
  shmem_long_sum_to_all(dst, src, -1, me, 0, 1, pwrk_l, ps);
  CHECK_ERR(SHMEMX_ERR_ARG, "sum_to_all with nreduce -1");
  /* nothing changed */
  int bad = 0;
  for (int i = 0; i < NB; ++i) bad |= dst[i] != -7 || src[i] != me + i;
  CHECK(!bad, "rejected collectives changed data");
  CHECK(ps[0] == SHMEM_SYNC_VALUE && ps[1] == SHMEM_SYNC_VALUE, "rejected active-set calls changed pSync");
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes > NMAX) {
    if (me == 0) fprintf(stderr, "test_shmem_coll: at most %d PEs\n", NMAX);
    shmem_finalize();
    return EXIT_FAILURE;
  }
  int* slots = shmem_calloc(NMAX, sizeof(int));
  long* src = shmem_malloc(NMAX * NB * sizeof(long));
  long* dst = shmem_malloc(NMAX * NB * sizeof(long));
  int* isrc = shmem_malloc(NMAX * NB * 4 * sizeof(int));
  int* idst = shmem_malloc(NMAX * NB * 4 * sizeof(int));
  rsrc = shmem_malloc(NB * sizeof(double complex));
  rdst = shmem_malloc(NB * sizeof(double complex));
  CHECK(slots && src && dst && isrc && idst && rsrc && rdst, "shmem_malloc failed");

  barriers(slots);
  broadcasts(src, dst, isrc, idst);
  collects(src, dst, isrc, idst);
  large();
  alltoalls(src, dst, isrc, idst);
  reductions();
  even_team(src, dst);
  active_sets();
  bad_input(src, dst);
  CHECK_ERR(SHMEMX_SUCCESS, "the last routines");

  shmem_free(rdst);
  shmem_free(rsrc);
  shmem_free(idst);
  shmem_free(isrc);
  shmem_free(dst);
  shmem_free(src);
  shmem_free(slots);
  return check_finish("test_shmem_coll");
}
