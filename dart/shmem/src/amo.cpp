// OpenSHMEM atomic memory operations and distributed locks over DART.
//
// Atomicity holds only among operations that take the same path, so the
// choice follows DART's own rule for the heap segment (rma/atomics.hpp):
// CPU atomics on the shared mapping when every PE maps every other
// (st.cpu_atomics), DART's accumulate-type operations otherwise. Global
// variables are private memory and always take DART's path.
#include "internal.hpp"

#include <dash/dart/ext/dart_atomic_handle.h>

#include <sched.h>

namespace dshmem {
namespace {

enum class Op { Fetch, Set, Swap, Cas, Add, And, Or, Xor };

dart_operation_t dart_op(Op op) {
  switch (op) {
    case Op::Fetch: return DART_OP_NO_OP;
    case Op::Set:
    case Op::Swap: return DART_OP_REPLACE;
    case Op::Add: return DART_OP_SUM;
    case Op::And: return DART_OP_BAND;
    case Op::Or: return DART_OP_BOR;
    case Op::Xor: return DART_OP_BXOR;
    case Op::Cas: break;
  }
  return DART_OP_UNDEFINED;
}

template <class T>
T cpu(Op op, T* p, T value, T compare) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Op::Fetch: return __atomic_load_n(p, __ATOMIC_ACQUIRE);
      case Op::Set: __atomic_store_n(p, value, __ATOMIC_RELEASE); return T{};
      case Op::Swap: return __atomic_exchange_n(p, value, __ATOMIC_SEQ_CST);
      case Op::Cas: __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
                    return compare;
      case Op::Add: return __atomic_fetch_add(p, value, __ATOMIC_SEQ_CST);
      case Op::And: return __atomic_fetch_and(p, value, __ATOMIC_SEQ_CST);
      case Op::Or: return __atomic_fetch_or(p, value, __ATOMIC_SEQ_CST);
      case Op::Xor: return __atomic_fetch_xor(p, value, __ATOMIC_SEQ_CST);
    }
  } else {
    T out{};
    switch (op) {
      case Op::Fetch: __atomic_load(p, &out, __ATOMIC_ACQUIRE); return out;
      case Op::Set: __atomic_store(p, &value, __ATOMIC_RELEASE); return out;
      case Op::Swap: __atomic_exchange(p, &value, &out, __ATOMIC_SEQ_CST); return out;
      default: break;
    }
  }
  return T{};
}

// How the result is wanted: returned (the call completes the operation),
// written to *nbi_result once the context is quiet, or not at all.
enum class Want { Result, Later, Nothing };

template <class T>
T amo(const char* call, shmem_ctx_t ctx, Op op, T* dest, T value, T compare, int pe, Want want, T* nbi_result) {
  const bool store = op != Op::Fetch;
  // The fast path, for the default context and created contexts of the
  // world team.
  if (st.cpu_atomics && (want != Want::Later || nbi_result) &&
      (ctx == SHMEM_CTX_DEFAULT || (ctx && ctx->magic == kCtxMagic && ctx->team == SHMEM_TEAM_WORLD &&
                                    !(store && (ctx->options & SHMEM_CTX_NOSTORE))))) {
    if (char* p = heap_direct(dest, sizeof(T), pe); p && reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0) {
      const T r = cpu(op, reinterpret_cast<T*>(p), value, compare);
      if (want == Want::Later && nbi_result) *nbi_result = r;
      return r;
    }
  }
  if (!require_init(call) || !valid_ctx(call, ctx)) return T{};
  if (store && (ctx->options & SHMEM_CTX_NOSTORE)) {
    fail(call, SHMEMX_ERR_CTX, "the context was created with SHMEM_CTX_NOSTORE");
    return T{};
  }
  if (want == Want::Later && !nbi_result) {
    fail(call, SHMEMX_ERR_ARG, "fetch is NULL");
    return T{};
  }
  const int w = world_pe(call, ctx, pe);
  if (w < 0) return T{};
  Remote r;
  if (!remote(call, dest, sizeof(T), w, &r)) return T{};
  if (reinterpret_cast<std::uintptr_t>(dest) % sizeof(T) != 0) {
    fail(call, SHMEMX_ERR_ADDRESS, "dest is not aligned to its type");
    return T{};
  }
  constexpr dart_datatype_t type = dart_type<T>();
  T result{};
  dart_ret_t ret = DART_OK;
  if (want == Want::Nothing) {
    ret = dart_ctx_accumulate(ctx->dart, r.g, &value, 1, type, dart_op(op));
    if (ret == DART_OK) note_mpi(ctx);
  } else if (want == Want::Later) {
    ret = op == Op::Cas ? dart_ctx_compare_and_swap(ctx->dart, r.g, &value, &compare, nbi_result, type)
                        : dart_ctx_fetch_and_op(ctx->dart, r.g, &value, nbi_result, type, dart_op(op));
    if (ret == DART_OK) note_mpi(ctx);
  } else {
    // Complete on return: this operation's handle alone.
    dart_handle_t h = DART_HANDLE_NULL;
    ret = op == Op::Cas ? dart_compare_and_swap_handle(r.g, &value, &compare, &result, type, &h)
                        : dart_fetch_and_op_handle(r.g, &value, &result, type, dart_op(op), &h);
    if (ret == DART_OK && h != DART_HANDLE_NULL) ret = dart_wait(&h);
  }
  if (ret != DART_OK) dart_failed(call, ret);
  return result;
}

}  // namespace

long amo_long(const char* call, long* dest, long value, long compare, dart_operation_t op, bool cas, int world) {
  Op o = Op::Add;
  if (cas) o = Op::Cas;
  else if (op == DART_OP_REPLACE) o = Op::Swap;
  else if (op == DART_OP_NO_OP) o = Op::Fetch;
  return amo<long>(call, SHMEM_CTX_DEFAULT, o, dest, value, compare, world, Want::Result, nullptr);
}

}  // namespace dshmem

using namespace dshmem;

#define DSHMEM_D SHMEM_CTX_DEFAULT
#define DSHMEM_DEF_AMO(T, N)                                                                                    \
  T shmem_##N##_atomic_fetch_inc(T* dest, int pe) {                                                            \
    return amo<T>("shmem_" #N "_atomic_fetch_inc", DSHMEM_D, Op::Add, dest, static_cast<T>(1), static_cast<T>(0), pe, Want::Result, nullptr); \
  }                                                                                                            \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe) {                                       \
    return amo<T>("shmem_ctx_" #N "_atomic_fetch_inc", ctx, Op::Add, dest, static_cast<T>(1), static_cast<T>(0), pe, Want::Result, nullptr); \
  }                                                                                                            \
  void shmem_##N##_atomic_inc(T* dest, int pe) {                                                               \
    amo<T>("shmem_" #N "_atomic_inc", DSHMEM_D, Op::Add, dest, static_cast<T>(1), static_cast<T>(0), pe, Want::Nothing, nullptr);         \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe) {                                          \
    amo<T>("shmem_ctx_" #N "_atomic_inc", ctx, Op::Add, dest, static_cast<T>(1), static_cast<T>(0), pe, Want::Nothing, nullptr);          \
  }                                                                                                            \
  T shmem_##N##_atomic_fetch_add(T* dest, T value, int pe) {                                                   \
    return amo<T>("shmem_" #N "_atomic_fetch_add", DSHMEM_D, Op::Add, dest, value, static_cast<T>(0), pe, Want::Result, nullptr); \
  }                                                                                                            \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T* dest, T value, int pe) {                              \
    return amo<T>("shmem_ctx_" #N "_atomic_fetch_add", ctx, Op::Add, dest, value, static_cast<T>(0), pe, Want::Result, nullptr); \
  }                                                                                                            \
  void shmem_##N##_atomic_add(T* dest, T value, int pe) {                                                      \
    amo<T>("shmem_" #N "_atomic_add", DSHMEM_D, Op::Add, dest, value, static_cast<T>(0), pe, Want::Nothing, nullptr);        \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T* dest, T value, int pe) {                                 \
    amo<T>("shmem_ctx_" #N "_atomic_add", ctx, Op::Add, dest, value, static_cast<T>(0), pe, Want::Nothing, nullptr);         \
  }                                                                                                            \
  T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe) {                                        \
    return amo<T>("shmem_" #N "_atomic_compare_swap", DSHMEM_D, Op::Cas, dest, value, cond, pe, Want::Result,  \
                  nullptr);                                                                                    \
  }                                                                                                            \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe) {                   \
    return amo<T>("shmem_ctx_" #N "_atomic_compare_swap", ctx, Op::Cas, dest, value, cond, pe, Want::Result,   \
                  nullptr);                                                                                    \
  }                                                                                                            \
  void shmem_##N##_atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) {                                           \
    amo<T>("shmem_" #N "_atomic_fetch_inc_nbi", DSHMEM_D, Op::Add, dest, static_cast<T>(1), static_cast<T>(0), pe, Want::Later, fetch);   \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch, T* dest, int pe) {                      \
    amo<T>("shmem_ctx_" #N "_atomic_fetch_inc_nbi", ctx, Op::Add, dest, static_cast<T>(1), static_cast<T>(0), pe, Want::Later, fetch);    \
  }                                                                                                            \
  void shmem_##N##_atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe) {                                  \
    amo<T>("shmem_" #N "_atomic_fetch_add_nbi", DSHMEM_D, Op::Add, dest, value, static_cast<T>(0), pe, Want::Later, fetch);  \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) {             \
    amo<T>("shmem_ctx_" #N "_atomic_fetch_add_nbi", ctx, Op::Add, dest, value, static_cast<T>(0), pe, Want::Later, fetch);   \
  }                                                                                                            \
  void shmem_##N##_atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe) {                       \
    amo<T>("shmem_" #N "_atomic_compare_swap_nbi", DSHMEM_D, Op::Cas, dest, value, cond, pe, Want::Later,      \
           fetch);                                                                                             \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T cond, T value, int pe) {  \
    amo<T>("shmem_ctx_" #N "_atomic_compare_swap_nbi", ctx, Op::Cas, dest, value, cond, pe, Want::Later,       \
           fetch);                                                                                             \
  }

#define DSHMEM_DEF_EXT_AMO(T, N)                                                                                \
  T shmem_##N##_atomic_fetch(const T* source, int pe) {                                                        \
    return amo<T>("shmem_" #N "_atomic_fetch", DSHMEM_D, Op::Fetch, const_cast<T*>(source), static_cast<T>(0), static_cast<T>(0), pe,      \
                  Want::Result, nullptr);                                                                      \
  }                                                                                                            \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe) {                                   \
    return amo<T>("shmem_ctx_" #N "_atomic_fetch", ctx, Op::Fetch, const_cast<T*>(source), static_cast<T>(0), static_cast<T>(0), pe,       \
                  Want::Result, nullptr);                                                                      \
  }                                                                                                            \
  void shmem_##N##_atomic_set(T* dest, T value, int pe) {                                                      \
    amo<T>("shmem_" #N "_atomic_set", DSHMEM_D, Op::Set, dest, value, static_cast<T>(0), pe, Want::Nothing, nullptr);        \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T* dest, T value, int pe) {                                 \
    amo<T>("shmem_ctx_" #N "_atomic_set", ctx, Op::Set, dest, value, static_cast<T>(0), pe, Want::Nothing, nullptr);         \
  }                                                                                                            \
  T shmem_##N##_atomic_swap(T* dest, T value, int pe) {                                                        \
    return amo<T>("shmem_" #N "_atomic_swap", DSHMEM_D, Op::Swap, dest, value, static_cast<T>(0), pe, Want::Result, nullptr); \
  }                                                                                                            \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T* dest, T value, int pe) {                                   \
    return amo<T>("shmem_ctx_" #N "_atomic_swap", ctx, Op::Swap, dest, value, static_cast<T>(0), pe, Want::Result, nullptr); \
  }                                                                                                            \
  void shmem_##N##_atomic_fetch_nbi(T* fetch, const T* source, int pe) {                                       \
    amo<T>("shmem_" #N "_atomic_fetch_nbi", DSHMEM_D, Op::Fetch, const_cast<T*>(source), static_cast<T>(0), static_cast<T>(0), pe,         \
           Want::Later, fetch);                                                                                \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch, const T* source, int pe) {                  \
    amo<T>("shmem_ctx_" #N "_atomic_fetch_nbi", ctx, Op::Fetch, const_cast<T*>(source), static_cast<T>(0), static_cast<T>(0), pe,          \
           Want::Later, fetch);                                                                                \
  }                                                                                                            \
  void shmem_##N##_atomic_swap_nbi(T* fetch, T* dest, T value, int pe) {                                       \
    amo<T>("shmem_" #N "_atomic_swap_nbi", DSHMEM_D, Op::Swap, dest, value, static_cast<T>(0), pe, Want::Later, fetch);      \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) {                  \
    amo<T>("shmem_ctx_" #N "_atomic_swap_nbi", ctx, Op::Swap, dest, value, static_cast<T>(0), pe, Want::Later, fetch);       \
  }

#define DSHMEM_DEF_BITWISE_OP(T, N, OP, E)                                                                      \
  T shmem_##N##_atomic_fetch_##OP(T* dest, T value, int pe) {                                                  \
    return amo<T>("shmem_" #N "_atomic_fetch_" #OP, DSHMEM_D, E, dest, value, static_cast<T>(0), pe, Want::Result, nullptr); \
  }                                                                                                            \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T* dest, T value, int pe) {                             \
    return amo<T>("shmem_ctx_" #N "_atomic_fetch_" #OP, ctx, E, dest, value, static_cast<T>(0), pe, Want::Result, nullptr);  \
  }                                                                                                            \
  void shmem_##N##_atomic_##OP(T* dest, T value, int pe) {                                                     \
    amo<T>("shmem_" #N "_atomic_" #OP, DSHMEM_D, E, dest, value, static_cast<T>(0), pe, Want::Nothing, nullptr);             \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T* dest, T value, int pe) {                                \
    amo<T>("shmem_ctx_" #N "_atomic_" #OP, ctx, E, dest, value, static_cast<T>(0), pe, Want::Nothing, nullptr);              \
  }                                                                                                            \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T* fetch, T* dest, T value, int pe) {                               \
    amo<T>("shmem_" #N "_atomic_fetch_" #OP "_nbi", DSHMEM_D, E, dest, value, static_cast<T>(0), pe, Want::Later, fetch);    \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) {          \
    amo<T>("shmem_ctx_" #N "_atomic_fetch_" #OP "_nbi", ctx, E, dest, value, static_cast<T>(0), pe, Want::Later, fetch);     \
  }
#define DSHMEM_DEF_BITWISE(T, N)                                                                                \
  DSHMEM_DEF_BITWISE_OP(T, N, and, Op::And)                                                                    \
  DSHMEM_DEF_BITWISE_OP(T, N, or, Op::Or) DSHMEM_DEF_BITWISE_OP(T, N, xor, Op::Xor)

#define DSHMEM_DEF_DEPRECATED_AMO(T, N)                                                                         \
  T shmem_##N##_finc(T* dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, pe); }                       \
  void shmem_##N##_inc(T* dest, int pe) { shmem_##N##_atomic_inc(dest, pe); }                                 \
  T shmem_##N##_fadd(T* dest, T value, int pe) { return shmem_##N##_atomic_fetch_add(dest, value, pe); }       \
  void shmem_##N##_add(T* dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, pe); }                  \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe) {                                                      \
    return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                                             \
  }
#define DSHMEM_DEF_DEPRECATED_EXT_AMO(T, N)                                                                     \
  T shmem_##N##_fetch(const T* source, int pe) { return shmem_##N##_atomic_fetch(source, pe); }                \
  void shmem_##N##_set(T* dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, pe); }                  \
  T shmem_##N##_swap(T* dest, T value, int pe) { return shmem_##N##_atomic_swap(dest, value, pe); }

extern "C" {

DART_SHMEM_AMO_TYPES(DSHMEM_DEF_AMO)
DART_SHMEM_EXT_AMO_TYPES(DSHMEM_DEF_EXT_AMO)
DART_SHMEM_BITWISE_AMO_TYPES(DSHMEM_DEF_BITWISE)
DART_SHMEM_DEPRECATED_AMO_TYPES(DSHMEM_DEF_DEPRECATED_AMO)
DART_SHMEM_DEPRECATED_EXT_AMO_TYPES(DSHMEM_DEF_DEPRECATED_EXT_AMO)

// ---- locks -------------------------------------------------------------------
//
// A lock is a symmetric long whose copy on PE 0 holds 0 (free) or the
// owner's PE + 1. Acquiring is a compare-and-swap there; waiting re-reads
// with a growing pause, so waiters do not flood PE 0 with atomics.

int shmem_test_lock(long* lock) {
  constexpr const char* call = "shmem_test_lock";
  if (!require_init(call)) return 1;
  Remote r;
  if (!remote(call, lock, sizeof(long), 0, &r)) return 1;
  return amo_long(call, lock, st.me + 1, 0, DART_OP_UNDEFINED, true, 0) == 0 ? 0 : 1;
}

void shmem_set_lock(long* lock) {
  constexpr const char* call = "shmem_set_lock";
  if (!require_init(call)) return;
  Remote r;
  if (!remote(call, lock, sizeof(long), 0, &r)) return;
  unsigned pause = 1;
  while (amo_long(call, lock, st.me + 1, 0, DART_OP_UNDEFINED, true, 0) != 0) {
    do {
      for (unsigned i = 0; i < pause; ++i) sched_yield();
      pause = pause < 64 ? pause * 2 : pause;
    } while (amo_long(call, lock, 0, 0, DART_OP_NO_OP, false, 0) != 0);
  }
  std::atomic_thread_fence(std::memory_order_acquire);
}

void shmem_clear_lock(long* lock) {
  constexpr const char* call = "shmem_clear_lock";
  if (!require_init(call)) return;
  Remote r;
  if (!remote(call, lock, sizeof(long), 0, &r)) return;
  // The critical section's updates are complete before the lock is free.
  quiet(call, SHMEM_CTX_DEFAULT);
  // A compare-and-swap, so that a PE that does not hold the lock cannot
  // release another's.
  const long owner = amo_long(call, lock, 0, st.me + 1, DART_OP_UNDEFINED, true, 0);
  if (owner != st.me + 1)
    fail(call, SHMEMX_ERR_ARG, owner == 0 ? "the lock was not held" : "the lock was held by PE " + std::to_string(owner - 1));
}

}  // extern "C"
