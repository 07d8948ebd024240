// OpenSHMEM remote memory access and put with signal over DART.
//
// Each routine is one of five transfers (contiguous put, contiguous get,
// strided put, strided get, put with signal) over bytes; the typed and
// sized routines only fix the element size. A transfer to a PE whose heap
// the caller maps is a copy here (complete on return, ordered by the
// quiet's fence); anything else goes to DART on the context's stream.
#include "internal.hpp"

#include <dash/dart/ext/dart_signal.h>

namespace dshmem {
namespace {

// Whether `ctx` may take the load/store fast path: the default context,
// or a created context of the world team that may store. Other contexts
// take the checked path, which translates team PEs and checks options.
[[gnu::always_inline]] inline bool fast_ctx(shmem_ctx_t ctx, bool store) noexcept {
  if (ctx == SHMEM_CTX_DEFAULT) return true;
  return ctx && ctx->magic == kCtxMagic && ctx->team == SHMEM_TEAM_WORLD &&
         !(store && (ctx->options & SHMEM_CTX_NOSTORE));
}

// Logs an element count whose bytes overflow (out of line: never taken).
[[gnu::noinline]] void overflow(const char* call, std::size_t nelems, std::size_t size) {
  fail(call, SHMEMX_ERR_ARG, std::to_string(nelems) + " elements of " + std::to_string(size) + " bytes overflow");
}

[[gnu::always_inline]] inline bool bytes_of(const char* call, std::size_t nelems, std::size_t size,
                                            std::size_t* bytes) {
  if (__builtin_expect(!__builtin_mul_overflow(nelems, size, bytes), 1)) return true;
  overflow(call, nelems, size);
  return false;
}

// The checks every slow path makes: initialised, a valid context (that may
// store, for stores), a PE of its team. The world PE, or -1 (logged).
int checked_target(const char* call, shmem_ctx_t ctx, int pe, bool store) {
  if (!require_init(call) || !valid_ctx(call, ctx)) return -1;
  if (store && (ctx->options & SHMEM_CTX_NOSTORE)) {
    fail(call, SHMEMX_ERR_CTX, "the context was created with SHMEM_CTX_NOSTORE");
    return -1;
  }
  return world_pe(call, ctx, pe);
}

[[gnu::noinline]] void put_slow(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes,
                                int pe) {
  const int w = checked_target(call, ctx, pe, true);
  if (w < 0 || bytes == 0) return;
  if (!src) return fail(call, SHMEMX_ERR_ARG, "source is NULL");
  Remote r;
  if (!remote(call, dest, bytes, w, &r)) return;
  if (r.direct) {
    std::memcpy(r.direct, src, bytes);
    return;
  }
  const dart_ret_t ret = dart_ctx_put(ctx->dart, r.g, src, bytes, DART_TYPE_BYTE);
  if (ret != DART_OK) return dart_failed(call, ret);
  note_mpi(ctx);
}

// A copy whose common small sizes are single moves: memcpy with a size
// known only at run time is a call into libc, which costs as much as the
// rest of an 8-byte put (the typed routines' sizes are constants anyway).
[[gnu::always_inline]] inline void copy(char* dst, const void* src, std::size_t bytes) noexcept {
  switch (bytes) {
    case 8: std::memcpy(dst, src, 8); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 16: std::memcpy(dst, src, 16); return;
    case 2: std::memcpy(dst, src, 2); return;
    case 1: std::memcpy(dst, src, 1); return;
    default: std::memcpy(dst, src, bytes); return;
  }
}

[[gnu::always_inline]] inline void put_bytes(const char* call, shmem_ctx_t ctx, void* dest, const void* src,
                                             std::size_t bytes, int pe) {
  if (fast_ctx(ctx, true) && src) {
    if (char* p = heap_direct(dest, bytes, pe)) {
      copy(p, src, bytes);
      return;
    }
  }
  put_slow(call, ctx, dest, src, bytes, pe);
}

[[gnu::noinline]] void get_slow(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes,
                                int pe, bool nbi) {
  const int w = checked_target(call, ctx, pe, false);
  if (w < 0 || bytes == 0) return;
  if (!dest) return fail(call, SHMEMX_ERR_ARG, "dest is NULL");
  Remote r;
  if (!remote(call, src, bytes, w, &r)) return;
  if (r.direct) {
    std::atomic_thread_fence(std::memory_order_acquire);
    std::memcpy(dest, r.direct, bytes);
    return;
  }
  dart_ret_t ret;
  if (nbi) {
    ret = dart_ctx_get(ctx->dart, dest, r.g, bytes, DART_TYPE_BYTE);
    if (ret == DART_OK) note_mpi(ctx);
  } else {
    // Complete on return: this get alone, not the context's other traffic.
    ret = dart_get_blocking(dest, r.g, bytes, DART_TYPE_BYTE, DART_TYPE_BYTE);
  }
  if (ret != DART_OK) dart_failed(call, ret);
}

[[gnu::always_inline]] inline void get_bytes_ctx(const char* call, shmem_ctx_t ctx, void* dest, const void* src,
                                                 std::size_t bytes, int pe, bool nbi) {
  if (fast_ctx(ctx, false) && dest) {
    if (const char* p = heap_direct(src, bytes, pe)) {
      std::atomic_thread_fence(std::memory_order_acquire);
      copy(static_cast<char*>(dest), p, bytes);
      return;
    }
  }
  get_slow(call, ctx, dest, src, bytes, pe, nbi);
}

[[gnu::always_inline]] inline void put_elems(const char* call, shmem_ctx_t ctx, void* dest, const void* src,
                                             std::size_t nelems, std::size_t size, int pe) {
  std::size_t bytes;
  if (bytes_of(call, nelems, size, &bytes)) put_bytes(call, ctx, dest, src, bytes, pe);
}

[[gnu::always_inline]] inline void get_elems(const char* call, shmem_ctx_t ctx, void* dest, const void* src,
                                             std::size_t nelems, std::size_t size, int pe, bool nbi) {
  std::size_t bytes;
  if (bytes_of(call, nelems, size, &bytes)) get_bytes_ctx(call, ctx, dest, src, bytes, pe, nbi);
}

// Moves `count` blocks of `block` bytes between local + k*lstride*size
// and the resolved remote address + k*rstride*size (strides in elements):
// a copy each to or from a mapped PE, one DART put or get each otherwise.
// A get is blocking: it completes the context before returning.
void move_blocks(const char* call, shmem_ctx_t ctx, bool put, const Remote& r, char* local, std::size_t lstride,
                 std::size_t rstride, std::size_t size, std::size_t block, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) {
    char* l = local + k * lstride * size;
    const std::size_t roff = k * rstride * size;
    if (r.direct) {
      if (put) std::memcpy(r.direct + roff, l, block);
      else std::memcpy(l, r.direct + roff, block);
      continue;
    }
    dart_gptr_t g = r.g;
    g.addr_or_offs.offset += roff;
    const dart_ret_t ret = put ? dart_ctx_put(ctx->dart, g, l, block, DART_TYPE_BYTE)
                               : dart_ctx_get(ctx->dart, l, g, block, DART_TYPE_BYTE);
    if (ret != DART_OK) return dart_failed(call, ret);
  }
  if (r.direct) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  note_mpi(ctx);
  if (!put) quiet(call, ctx);
}

// Strided transfers: element i moves between remote + i*rstride and
// local + i*lstride (strides in elements). Both ends of the remote range
// are checked before anything moves.
void strided(const char* call, shmem_ctx_t ctx, bool put, void* dest, const void* src, std::ptrdiff_t dst,
             std::ptrdiff_t sst, std::size_t nelems, std::size_t size, int pe) {
  const int w = checked_target(call, ctx, pe, put);
  if (w < 0 || nelems == 0) return;
  if (dst < 1 || sst < 1)
    return fail(call, SHMEMX_ERR_ARG, "strides must be positive (dst " + std::to_string(dst) + ", sst " +
                                          std::to_string(sst) + ")");
  const std::ptrdiff_t rstride = put ? dst : sst;
  const std::ptrdiff_t lstride = put ? sst : dst;
  const void* rbase = put ? dest : src;
  std::size_t span;
  if (!bytes_of(call, (nelems - 1) * static_cast<std::size_t>(rstride) + 1, size, &span)) return;
  Remote r;
  if (!remote(call, rbase, span, w, &r)) return;
  move_blocks(call, ctx, put, r, static_cast<char*>(put ? const_cast<void*>(src) : dest),
              static_cast<std::size_t>(lstride), static_cast<std::size_t>(rstride), size, size, nelems);
}

// Interleaved block transfers (shmem_ibput, shmem_ibget): block k of
// bsize elements moves between remote + k*rstride and local + k*lstride
// (strides in elements). One transfer per block: a copy to or from a
// mapped PE, one DART put or get otherwise, never one per element. The
// whole remote range is checked before anything moves; a get completes
// the context before it returns (the routine is blocking).
void blocked(const char* call, shmem_ctx_t ctx, bool put, void* dest, const void* src, std::ptrdiff_t dst,
             std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t size, int pe) {
  const int w = checked_target(call, ctx, pe, put);
  if (w < 0 || nblocks == 0 || bsize == 0) return;
  if (dst < 0 || sst < 0 || static_cast<std::size_t>(dst) < bsize || static_cast<std::size_t>(sst) < bsize)
    return fail(call, SHMEMX_ERR_ARG, "strides must be at least the block size (dst " + std::to_string(dst) +
                                          ", sst " + std::to_string(sst) + ", bsize " + std::to_string(bsize) + ")");
  if (put ? !src : !dest) return fail(call, SHMEMX_ERR_ARG, put ? "source is NULL" : "dest is NULL");
  const auto rstride = static_cast<std::size_t>(put ? dst : sst);
  const auto lstride = static_cast<std::size_t>(put ? sst : dst);
  std::size_t block, reach, span;
  if (__builtin_mul_overflow(nblocks - 1, rstride, &reach) || __builtin_add_overflow(reach, bsize, &reach))
    return fail(call, SHMEMX_ERR_ARG, std::to_string(nblocks) + " blocks overflow the address space");
  if (!bytes_of(call, bsize, size, &block) || !bytes_of(call, reach, size, &span)) return;
  Remote r;
  if (!remote(call, put ? dest : src, span, w, &r)) return;
  move_blocks(call, ctx, put, r, static_cast<char*>(put ? const_cast<void*>(src) : dest), lstride, rstride, size,
              block, nblocks);
}

bool valid_signal_op(const char* call, int sig_op) {
  if (sig_op == SHMEM_SIGNAL_SET || sig_op == SHMEM_SIGNAL_ADD) return true;
  fail(call, SHMEMX_ERR_ARG, "signal operation " + std::to_string(sig_op) + " is neither SHMEM_SIGNAL_SET nor ADD");
  return false;
}

void put_signal(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t nelems, std::size_t size,
                uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  std::size_t bytes;
  if (!bytes_of(call, nelems, size, &bytes)) return;
  // Fast path: data and signal word mapped, and signal updates by CPU
  // atomics (the path DART's atomics take on this heap: they must agree).
  if (fast_ctx(ctx, true) && st.cpu_atomics && (sig_op == SHMEM_SIGNAL_SET || sig_op == SHMEM_SIGNAL_ADD)) {
    char* d = heap_direct(dest, bytes, pe);
    char* s = heap_direct(sig_addr, sizeof(uint64_t), pe);
    if ((bytes == 0 || (d && src)) && s && (reinterpret_cast<std::uintptr_t>(s) % 8) == 0) {
      if (bytes) std::memcpy(d, src, bytes);
      auto* word = reinterpret_cast<uint64_t*>(s);
      if (sig_op == SHMEM_SIGNAL_SET) __atomic_store_n(word, signal, __ATOMIC_RELEASE);
      else __atomic_fetch_add(word, signal, __ATOMIC_RELEASE);
      return;
    }
  }
  const int w = checked_target(call, ctx, pe, true);
  if (w < 0 || !valid_signal_op(call, sig_op)) return;
  if (bytes && !src) return fail(call, SHMEMX_ERR_ARG, "source is NULL");
  Remote rd, rs;
  if (!remote(call, sig_addr, sizeof(uint64_t), w, &rs)) return;
  if (bytes && !remote(call, dest, bytes, w, &rd)) return;
  dart_ret_t ret;
  if (bytes == 0) {
    ret = dart_signal_update(rs.g, signal, sig_op == SHMEM_SIGNAL_SET ? DART_SIGNAL_SET : DART_SIGNAL_ADD);
  } else {
    ret = dart_ctx_put_signal(ctx->dart, rd.g, src, bytes, DART_TYPE_BYTE, rs.g, signal,
                              sig_op == SHMEM_SIGNAL_SET ? DART_SIGNAL_SET : DART_SIGNAL_ADD);
    if (ret == DART_OK) note_mpi(ctx);
  }
  if (ret != DART_OK) dart_failed(call, ret);
}

}  // namespace

bool get_bytes(const char* call, void* dest, const void* source, std::size_t bytes, int world) {
  get_bytes_ctx(call, SHMEM_CTX_DEFAULT, dest, source, bytes, world, false);
  return true;
}

}  // namespace dshmem

using namespace dshmem;

#define DSHMEM_NAME(N, what) "shmem_" #N "_" what
#define DSHMEM_CTX_NAME(N, what) "shmem_ctx_" #N "_" what

#define DSHMEM_DEF_RMA(T, N)                                                                                   \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe) {                                     \
    put_elems(DSHMEM_NAME(N, "put"), SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe);                 \
  }                                                                                                           \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {                \
    put_elems(DSHMEM_CTX_NAME(N, "put"), ctx, dest, source, nelems, sizeof(T), pe);                           \
  }                                                                                                           \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe) {                                 \
    put_elems(DSHMEM_NAME(N, "put_nbi"), SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe);             \
  }                                                                                                           \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {            \
    put_elems(DSHMEM_CTX_NAME(N, "put_nbi"), ctx, dest, source, nelems, sizeof(T), pe);                       \
  }                                                                                                           \
  void shmem_##N##_p(T* dest, T value, int pe) {                                                              \
    put_bytes(DSHMEM_NAME(N, "p"), SHMEM_CTX_DEFAULT, dest, &value, sizeof(T), pe);                           \
  }                                                                                                           \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe) {                                         \
    put_bytes(DSHMEM_CTX_NAME(N, "p"), ctx, dest, &value, sizeof(T), pe);                                     \
  }                                                                                                           \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe) {                                     \
    get_elems(DSHMEM_NAME(N, "get"), SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, false);          \
  }                                                                                                           \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {                \
    get_elems(DSHMEM_CTX_NAME(N, "get"), ctx, dest, source, nelems, sizeof(T), pe, false);                    \
  }                                                                                                           \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe) {                                 \
    get_elems(DSHMEM_NAME(N, "get_nbi"), SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, true);       \
  }                                                                                                           \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {            \
    get_elems(DSHMEM_CTX_NAME(N, "get_nbi"), ctx, dest, source, nelems, sizeof(T), pe, true);                 \
  }                                                                                                           \
  T shmem_##N##_g(const T* source, int pe) {                                                                  \
    T v{};                                                                                                    \
    get_bytes_ctx(DSHMEM_NAME(N, "g"), SHMEM_CTX_DEFAULT, &v, source, sizeof(T), pe, false);                  \
    return v;                                                                                                 \
  }                                                                                                           \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe) {                                             \
    T v{};                                                                                                    \
    get_bytes_ctx(DSHMEM_CTX_NAME(N, "g"), ctx, &v, source, sizeof(T), pe, false);                            \
    return v;                                                                                                 \
  }                                                                                                           \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {      \
    strided(DSHMEM_NAME(N, "iput"), SHMEM_CTX_DEFAULT, true, dest, source, dst, sst, nelems, sizeof(T), pe);  \
  }                                                                                                           \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int pe) {                                                          \
    strided(DSHMEM_CTX_NAME(N, "iput"), ctx, true, dest, source, dst, sst, nelems, sizeof(T), pe);            \
  }                                                                                                           \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {      \
    strided(DSHMEM_NAME(N, "iget"), SHMEM_CTX_DEFAULT, false, dest, source, dst, sst, nelems, sizeof(T), pe); \
  }                                                                                                           \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int pe) {                                                          \
    strided(DSHMEM_CTX_NAME(N, "iget"), ctx, false, dest, source, dst, sst, nelems, sizeof(T), pe);           \
  }                                                                                                           \
  void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,   \
                              int sig_op, int pe) {                                                           \
    put_signal(DSHMEM_NAME(N, "put_signal"), SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), sig_addr,    \
               signal, sig_op, pe);                                                                           \
  }                                                                                                           \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,                   \
                                  uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                  \
    put_signal(DSHMEM_CTX_NAME(N, "put_signal"), ctx, dest, source, nelems, sizeof(T), sig_addr, signal,      \
               sig_op, pe);                                                                                   \
  }                                                                                                           \
  void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,                \
                                  uint64_t signal, int sig_op, int pe) {                                      \
    put_signal(DSHMEM_NAME(N, "put_signal_nbi"), SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T),          \
               sig_addr, signal, sig_op, pe);                                                                 \
  }                                                                                                           \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,               \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {              \
    put_signal(DSHMEM_CTX_NAME(N, "put_signal_nbi"), ctx, dest, source, nelems, sizeof(T), sig_addr, signal,  \
               sig_op, pe);                                                                                   \
  }

#define DSHMEM_DEF_SIZED_AS(B, NAME, SIZE)                                                                     \
  void shmem_put##NAME(void* dest, const void* source, size_t nelems, int pe) {                               \
    put_elems("shmem_put" #NAME, SHMEM_CTX_DEFAULT, dest, source, nelems, SIZE, pe);                          \
  }                                                                                                           \
  void shmem_ctx_put##NAME(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {          \
    put_elems("shmem_ctx_put" #NAME, ctx, dest, source, nelems, SIZE, pe);                                    \
  }                                                                                                           \
  void shmem_get##NAME(void* dest, const void* source, size_t nelems, int pe) {                               \
    get_elems("shmem_get" #NAME, SHMEM_CTX_DEFAULT, dest, source, nelems, SIZE, pe, false);                   \
  }                                                                                                           \
  void shmem_ctx_get##NAME(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {          \
    get_elems("shmem_ctx_get" #NAME, ctx, dest, source, nelems, SIZE, pe, false);                             \
  }                                                                                                           \
  void shmem_put##NAME##_nbi(void* dest, const void* source, size_t nelems, int pe) {                         \
    put_elems("shmem_put" #NAME "_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, SIZE, pe);                   \
  }                                                                                                           \
  void shmem_ctx_put##NAME##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {    \
    put_elems("shmem_ctx_put" #NAME "_nbi", ctx, dest, source, nelems, SIZE, pe);                             \
  }                                                                                                           \
  void shmem_get##NAME##_nbi(void* dest, const void* source, size_t nelems, int pe) {                         \
    get_elems("shmem_get" #NAME "_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, SIZE, pe, true);             \
  }                                                                                                           \
  void shmem_ctx_get##NAME##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {    \
    get_elems("shmem_ctx_get" #NAME "_nbi", ctx, dest, source, nelems, SIZE, pe, true);                       \
  }                                                                                                           \
  void shmem_put##NAME##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,            \
                                uint64_t signal, int sig_op, int pe) {                                        \
    put_signal("shmem_put" #NAME "_signal", SHMEM_CTX_DEFAULT, dest, source, nelems, SIZE, sig_addr, signal,  \
               sig_op, pe);                                                                                   \
  }                                                                                                           \
  void shmem_ctx_put##NAME##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,           \
                                    uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                \
    put_signal("shmem_ctx_put" #NAME "_signal", ctx, dest, source, nelems, SIZE, sig_addr, signal, sig_op,    \
               pe);                                                                                           \
  }                                                                                                           \
  void shmem_put##NAME##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,        \
                                    uint64_t signal, int sig_op, int pe) {                                    \
    put_signal("shmem_put" #NAME "_signal_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, SIZE, sig_addr,      \
               signal, sig_op, pe);                                                                           \
  }                                                                                                           \
  void shmem_ctx_put##NAME##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,       \
                                        uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {            \
    put_signal("shmem_ctx_put" #NAME "_signal_nbi", ctx, dest, source, nelems, SIZE, sig_addr, signal,        \
               sig_op, pe);                                                                                   \
  }

#define DSHMEM_DEF_STRIDED_SIZED(B)                                                                            \
  void shmem_iput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {   \
    strided("shmem_iput" #B, SHMEM_CTX_DEFAULT, true, dest, source, dst, sst, nelems, B / 8, pe);             \
  }                                                                                                           \
  void shmem_ctx_iput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,       \
                         size_t nelems, int pe) {                                                             \
    strided("shmem_ctx_iput" #B, ctx, true, dest, source, dst, sst, nelems, B / 8, pe);                       \
  }                                                                                                           \
  void shmem_iget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {   \
    strided("shmem_iget" #B, SHMEM_CTX_DEFAULT, false, dest, source, dst, sst, nelems, B / 8, pe);            \
  }                                                                                                           \
  void shmem_ctx_iget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,       \
                         size_t nelems, int pe) {                                                             \
    strided("shmem_ctx_iget" #B, ctx, false, dest, source, dst, sst, nelems, B / 8, pe);                      \
  }
#define DSHMEM_DEF_SIZED(B) DSHMEM_DEF_SIZED_AS(B, B, B / 8) DSHMEM_DEF_STRIDED_SIZED(B)

extern "C" {

DART_SHMEM_RMA_TYPES(DSHMEM_DEF_RMA)
DART_SHMEM_SIZES(DSHMEM_DEF_SIZED)

// shmem_ibput/ibget (OpenSHMEM 1.6) and Sandia OpenSHMEM's shmemx_ names
// for them, typed and sized, each with its context form.
#define DSHMEM_DEF_IB_AS(PRE, NAME, T, SIZE)                                                                   \
  void PRE##_##NAME##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                            size_t nblocks, int pe) {                                                         \
    blocked(#PRE "_" #NAME "_ibput", SHMEM_CTX_DEFAULT, true, dest, source, dst, sst, bsize, nblocks, SIZE,   \
            pe);                                                                                              \
  }                                                                                                           \
  void PRE##_ctx_##NAME##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                                size_t bsize, size_t nblocks, int pe) {                                       \
    blocked(#PRE "_ctx_" #NAME "_ibput", ctx, true, dest, source, dst, sst, bsize, nblocks, SIZE, pe);        \
  }                                                                                                           \
  void PRE##_##NAME##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                            size_t nblocks, int pe) {                                                         \
    blocked(#PRE "_" #NAME "_ibget", SHMEM_CTX_DEFAULT, false, dest, source, dst, sst, bsize, nblocks, SIZE,  \
            pe);                                                                                              \
  }                                                                                                           \
  void PRE##_ctx_##NAME##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                                size_t bsize, size_t nblocks, int pe) {                                       \
    blocked(#PRE "_ctx_" #NAME "_ibget", ctx, false, dest, source, dst, sst, bsize, nblocks, SIZE, pe);       \
  }
#define DSHMEM_DEF_IB_TYPED(T, N) DSHMEM_DEF_IB_AS(shmem, N, T, sizeof(T)) DSHMEM_DEF_IB_AS(shmemx, N, T, sizeof(T))
DART_SHMEM_RMA_TYPES(DSHMEM_DEF_IB_TYPED)

#define DSHMEM_DEF_IB_SIZED_AS(PRE, B)                                                                         \
  void PRE##_ibput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,             \
                      size_t nblocks, int pe) {                                                               \
    blocked(#PRE "_ibput" #B, SHMEM_CTX_DEFAULT, true, dest, source, dst, sst, bsize, nblocks, B / 8, pe);    \
  }                                                                                                           \
  void PRE##_ctx_ibput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t bsize, size_t nblocks, int pe) {                                             \
    blocked(#PRE "_ctx_ibput" #B, ctx, true, dest, source, dst, sst, bsize, nblocks, B / 8, pe);              \
  }                                                                                                           \
  void PRE##_ibget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,             \
                      size_t nblocks, int pe) {                                                               \
    blocked(#PRE "_ibget" #B, SHMEM_CTX_DEFAULT, false, dest, source, dst, sst, bsize, nblocks, B / 8, pe);   \
  }                                                                                                           \
  void PRE##_ctx_ibget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t bsize, size_t nblocks, int pe) {                                             \
    blocked(#PRE "_ctx_ibget" #B, ctx, false, dest, source, dst, sst, bsize, nblocks, B / 8, pe);             \
  }
#define DSHMEM_DEF_IB_SIZED(B) DSHMEM_DEF_IB_SIZED_AS(shmem, B) DSHMEM_DEF_IB_SIZED_AS(shmemx, B)
DART_SHMEM_SIZES(DSHMEM_DEF_IB_SIZED)
DSHMEM_DEF_SIZED_AS(8, mem, 1)

// OpenSHMEM 1.6: an update of a remote signal alone, ordered and completed
// as the signal of a put-with-signal (one atomic on the signal word: a
// put-with-signal of no data).
void shmem_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) {
  put_signal("shmem_signal_add", SHMEM_CTX_DEFAULT, nullptr, nullptr, 0, 1, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) {
  put_signal("shmem_ctx_signal_add", ctx, nullptr, nullptr, 0, 1, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
void shmem_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) {
  put_signal("shmem_signal_set", SHMEM_CTX_DEFAULT, nullptr, nullptr, 0, 1, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) {
  put_signal("shmem_ctx_signal_set", ctx, nullptr, nullptr, 0, 1, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}
// The names Sandia OpenSHMEM gives them as extensions.
void shmemx_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) { shmem_signal_add(sig_addr, signal, pe); }
void shmemx_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) {
  shmem_ctx_signal_add(ctx, sig_addr, signal, pe);
}
void shmemx_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) { shmem_signal_set(sig_addr, signal, pe); }
void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) {
  shmem_ctx_signal_set(ctx, sig_addr, signal, pe);
}

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) {
  constexpr const char* call = "shmem_signal_fetch";
  if (st.cpu_atomics && heap_direct(sig_addr, 8, st.me)) return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
  if (!require_init(call)) return 0;
  dart_gptr_t g;
  if (!local_gptr(call, sig_addr, sizeof(uint64_t), &g)) return 0;
  uint64_t v = 0;
  const dart_ret_t ret = dart_signal_fetch(g, &v);
  if (ret != DART_OK) dart_failed(call, ret);
  return v;
}

uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  constexpr const char* call = "shmem_signal_wait_until";
  if (!require_init(call)) return 0;
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) {
    fail(call, SHMEMX_ERR_ARG, "comparison " + std::to_string(cmp) + " is not one of SHMEM_CMP_*");
    return 0;
  }
  dart_gptr_t g;
  if (!local_gptr(call, sig_addr, sizeof(uint64_t), &g)) return 0;
  uint64_t observed = 0;
  const dart_ret_t ret = dart_signal_wait_until(g, static_cast<dart_cmp_t>(cmp), cmp_value, &observed);
  if (ret != DART_OK) dart_failed(call, ret);
  return observed;
}

}  // extern "C"
