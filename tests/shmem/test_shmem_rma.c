/*
 * OpenSHMEM remote memory access: every put and get form (typed, sized,
 * mem, strided, non-blocking, with a context, type-generic) on the heap
 * and on global variables, between every pair of PEs; and the errors of
 * bad input, which must leave the target untouched.
 */
#include "shmem_check.h"

#include <stdint.h>
#include <string.h>

#define N 16

/* Symmetric globals: one array per type, as OpenSHMEM programs keep them. */
static long g_long[N];
static double g_double[N];
static signed char g_schar[N];
static long double g_ldouble[N];
static int g_strided[4 * N];
static char g_mem[256];

/* Value that PE `from` writes into element i for PE `to`. */
static long val(int from, int to, int i) { return 1000L * from + 10L * to + i + 1; }

#define FILL(buf, T, from, to)                                 \
  for (int i_ = 0; i_ < N; ++i_) (buf)[i_] = (T)val((from), (to), i_)

/* Every typed put/get (blocking, nbi, ctx) for one type, on `heap` and on a
 * global array `glob`; a ring: each PE writes to its right neighbour. */
#define RMA_TYPE(T, NAME, glob)                                                                   \
  do {                                                                                            \
    T* heap = shmem_malloc(N * sizeof(T));                                                        \
    T src[N], back[N];                                                                            \
    T* targets[2] = {heap, glob};                                                                 \
    for (int t = 0; t < 2; ++t) {                                                                 \
      T* dst = targets[t];                                                                        \
      for (int form = 0; form < 4; ++form) {                                                      \
        memset(dst, 0, N * sizeof(T));                                                            \
        shmem_barrier_all();                                                                      \
        FILL(src, T, me, right);                                                                  \
        src[0] = (T)(src[0] + form);                                                              \
        switch (form) {                                                                           \
          case 0: shmem_##NAME##_put(dst, src, N, right); break;                                  \
          case 1: shmem_##NAME##_put_nbi(dst, src, N, right); break;                              \
          case 2: shmem_ctx_##NAME##_put(ctx, dst, src, N, right); shmem_ctx_quiet(ctx); break;   \
          default: shmem_put(dst, src, N, right); break;                                          \
        }                                                                                         \
        shmem_barrier_all();                                                                      \
        int bad = 0;                                                                              \
        for (int i = 0; i < N; ++i)                                                               \
          bad += dst[i] != (T)((T)val(left, me, i) + (i == 0 ? form : 0));                        \
        CHECK(bad == 0, #NAME " put form %d into %s: %d elements wrong", form,                    \
              t ? "a global" : "the heap", bad);                                                  \
        /* Get it back from the right neighbour: what this PE wrote there. */                     \
        memset(back, 0, sizeof back);                                                             \
        if (form == 0) shmem_##NAME##_get(back, dst, N, right);                                   \
        else if (form == 1) { shmem_##NAME##_get_nbi(back, dst, N, right); shmem_quiet(); }       \
        else if (form == 2) { shmem_ctx_##NAME##_get_nbi(ctx, back, dst, N, right);               \
                              shmem_ctx_quiet(ctx); }                                             \
        else shmem_get(back, dst, N, right);                                                      \
        bad = 0;                                                                                  \
        for (int i = 0; i < N; ++i) bad += back[i] != src[i];                                     \
        CHECK(bad == 0, #NAME " get form %d from %s: %d elements wrong", form,                    \
              t ? "a global" : "the heap", bad);                                                  \
        /* Single elements. */                                                                    \
        shmem_barrier_all();                                                                      \
        shmem_##NAME##_p(&dst[N - 1], (T)(me + 7), right);                                        \
        shmem_p(ctx, &dst[N - 2], (T)(me + 9), right);                                            \
        shmem_ctx_quiet(ctx);                                                                     \
        shmem_barrier_all();                                                                      \
        CHECK(dst[N - 1] == (T)(left + 7) && dst[N - 2] == (T)(left + 9), #NAME " p into %s",    \
              t ? "a global" : "the heap");                                                       \
        CHECK(shmem_##NAME##_g(&dst[N - 1], right) == (T)(me + 7) &&                              \
                  shmem_g(ctx, &dst[N - 2], right) == (T)(me + 9),                                \
              #NAME " g from %s", t ? "a global" : "the heap");                                   \
        shmem_barrier_all();                                                                      \
      }                                                                                           \
    }                                                                                             \
    shmem_free(heap);                                                                             \
  } while (0)

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");

  RMA_TYPE(long, long, g_long);
  RMA_TYPE(double, double, g_double);
  RMA_TYPE(signed char, schar, g_schar);
  RMA_TYPE(long double, longdouble, g_ldouble);
  {
    static int32_t g32[N];
    RMA_TYPE(int32_t, int32, g32);
    static uint16_t g16[N];
    RMA_TYPE(uint16_t, uint16, g16);
    static size_t gsz[N];
    RMA_TYPE(size_t, size, gsz);
    static ptrdiff_t gpd[N];
    RMA_TYPE(ptrdiff_t, ptrdiff, gpd);
    static unsigned long long gull[N];
    RMA_TYPE(unsigned long long, ulonglong, gull);
  }

  /* Sized and mem forms: every size, into the heap, byte-exact. */
  {
    unsigned char* heap = shmem_malloc(256);
    unsigned char src[256], back[256];
    const size_t bits[] = {8, 16, 32, 64, 128};
    for (int s = 0; s < 6; ++s) {
      const size_t bytes = s < 5 ? bits[s] / 8 : 1;
      const size_t nelems = 240 / bytes;
      memset(heap, 0, 256);
      for (int i = 0; i < 256; ++i) src[i] = (unsigned char)(me * 31 + i * 7 + s);
      shmem_barrier_all();
      switch (s) {
        case 0: shmem_put8(heap, src, nelems, right); break;
        case 1: shmem_put16(heap, src, nelems, right); break;
        case 2: shmem_put32_nbi(heap, src, nelems, right); break;
        case 3: shmem_ctx_put64(ctx, heap, src, nelems, right); shmem_ctx_quiet(ctx); break;
        case 4: shmem_put128(heap, src, nelems, right); break;
        default: shmem_putmem(heap, src, nelems, right); break;
      }
      shmem_barrier_all();
      int bad = 0;
      for (int i = 0; i < 240; ++i) bad += heap[i] != (unsigned char)(left * 31 + i * 7 + s);
      for (int i = 240; i < 256; ++i) bad += heap[i] != 0;
      CHECK(bad == 0, "sized put %d: %d bytes wrong", s, bad);
      memset(back, 0, sizeof back);
      switch (s) {
        case 0: shmem_get8(back, heap, nelems, right); break;
        case 1: shmem_get16_nbi(back, heap, nelems, right); shmem_quiet(); break;
        case 2: shmem_get32(back, heap, nelems, right); break;
        case 3: shmem_ctx_get64(ctx, back, heap, nelems, right); break;
        case 4: shmem_get128(back, heap, nelems, right); break;
        default: shmem_getmem_nbi(back, heap, nelems, right); shmem_quiet(); break;
      }
      CHECK(memcmp(back, src, 240) == 0, "sized get %d", s);
      shmem_barrier_all();
    }
    /* Into a global, with the mem forms. */
    memset(g_mem, 0, sizeof g_mem);
    shmem_barrier_all();
    shmem_putmem(g_mem, src, 200, right);
    shmem_barrier_all();
    int bad = 0;
    for (int i = 0; i < 200; ++i) bad += (unsigned char)g_mem[i] != (unsigned char)(left * 31 + i * 7 + 5);
    CHECK(bad == 0, "putmem into a global: %d bytes wrong", bad);
    shmem_free(heap);
  }

  /* Strided: every third element of the source to every second of dest. */
  {
    int src[4 * N], back[4 * N];
    for (int i = 0; i < 4 * N; ++i) src[i] = me * 1000 + i;
    for (int pass = 0; pass < 2; ++pass) {
      memset(g_strided, 0, sizeof g_strided);
      shmem_barrier_all();
      if (pass == 0) shmem_int_iput(g_strided, src, 2, 3, N, right);
      else shmem_iput32(g_strided, src, 2, 3, N, right);
      shmem_barrier_all();
      int bad = 0;
      for (int i = 0; i < 2 * N; ++i) bad += g_strided[i] != (i % 2 ? 0 : left * 1000 + 3 * (i / 2));
      CHECK(bad == 0, "iput pass %d: %d elements wrong", pass, bad);
      memset(back, 0, sizeof back);
      if (pass == 0) shmem_int_iget(back, g_strided, 1, 2, N, right);
      else shmem_ctx_iget32(ctx, back, g_strided, 1, 2, N, right);
      bad = 0;
      for (int i = 0; i < N; ++i) bad += back[i] != me * 1000 + 3 * i;
      CHECK(bad == 0, "iget pass %d: %d elements wrong", pass, bad);
      shmem_barrier_all();
    }
  }

  /* Bad input: an error code, a log line and no write anywhere. */
  {
    long* heap = shmem_calloc(N, sizeof(long));
    long src[N], on_stack[N];
    for (int i = 0; i < N; ++i) src[i] = 77;
    shmemx_last_error();
    shmem_barrier_all();
    shmem_long_put(heap, src, N, n);
    CHECK_ERR(SHMEMX_ERR_PE, "put to PE n_pes");
    shmem_long_put(heap, src, N, -1);
    CHECK_ERR(SHMEMX_ERR_PE, "put to PE -1");
    shmem_long_put(on_stack, src, N, right);
    CHECK_ERR(SHMEMX_ERR_ADDRESS, "put to a stack address");
    shmem_long_put(heap, src, shmemx_heap_size(), right);
    CHECK_ERR(SHMEMX_ERR_ADDRESS, "put past the end of the heap");
    shmem_long_put(g_long, src, 1u << 20, right);
    CHECK_ERR(SHMEMX_ERR_ADDRESS, "put past the end of the globals");
    (void)shmem_long_g(on_stack, right);
    CHECK_ERR(SHMEMX_ERR_ADDRESS, "g from a stack address");
    shmem_int_iput(g_strided, (int*)src, 0, 1, 2, right);
    CHECK_ERR(SHMEMX_ERR_ARG, "iput with stride 0");
    shmem_ctx_long_put(SHMEM_CTX_INVALID, heap, src, N, right);
    CHECK_ERR(SHMEMX_ERR_CTX, "put on SHMEM_CTX_INVALID");
    shmem_ctx_t nostore;
    CHECK(shmem_ctx_create(SHMEM_CTX_NOSTORE, &nostore) == 0, "NOSTORE context");
    shmem_ctx_long_put(nostore, heap, src, N, right);
    CHECK_ERR(SHMEMX_ERR_CTX, "put on a NOSTORE context");
    shmem_ctx_long_get(nostore, on_stack, heap, 1, right);
    CHECK_ERR(SHMEMX_SUCCESS, "get on a NOSTORE context");
    shmem_ctx_destroy(nostore);
    shmem_ctx_long_put(nostore, heap, src, N, right);
    CHECK_ERR(SHMEMX_ERR_CTX, "put on a destroyed context");
    shmem_long_put(heap, src, 0, right);
    CHECK_ERR(SHMEMX_SUCCESS, "an empty put");
    shmem_barrier_all();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += heap[i] != 0;
    CHECK(bad == 0, "a bad put wrote %d elements", bad);
    shmem_free(heap);
  }

  shmem_ctx_destroy(ctx);
  return check_finish("test_shmem_rma");
}
