/*
 * Extension (not part of the DART interface): communication contexts, as
 * OpenSHMEM 1.5's shmem_ctx_t. A context is an independent stream of puts,
 * gets and atomics: dart_ctx_quiet completes the operations issued on that
 * context and no others, and dart_ctx_fence orders them among themselves
 * only. Threads that each use a context of their own therefore never wait
 * for each other's traffic, and a private context takes no lock.
 *
 * Paths. Targets whose memory the caller maps (node mates, load/store on)
 * are reached by loads, stores and CPU atomics, which are complete when the
 * call returns; a quiet then costs one memory fence. Other targets are
 * reached by MPI RMA on the segment's window; the context records the
 * (window, target) pairs it issued to, and its quiet flushes those pairs
 * alone. MPI completes a window's operations per target process, so a
 * quiet whose context issued to a target may also complete another
 * context's operations to the same target: it never waits for a target it
 * did not use.
 *
 * Operations on a context are also completed by dart_flush and
 * dart_flush_all of their segment (the window is the same), so a context
 * adds streams without adding windows; creating one is local and cheap.
 *
 * Errors (DART_ERR_INVAL, one log line naming the unit, the call and the
 * reason): everything the corresponding dart_* call reports, an unknown or
 * destroyed context, a private context used by a thread other than its
 * creator, a store (put, accumulate, put with signal) on a context created
 * with DART_CTX_NOSTORE. A destroyed context is recognised until its memory
 * serves a later dart_ctx_create (not before 64 further destroys); only
 * dart_ctx_destroy recognises pointers that never named a context.
 *
 * Freeing a segment with operations of a context pending to it is allowed:
 * the free completes them, and the context's next quiet skips the freed
 * window.
 */
#ifndef DART__EXT__DART_CTX_H_
#define DART__EXT__DART_CTX_H_

#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dart_ctx_struct* dart_ctx_t;

/* The context that exists from dart_init to dart_exit; shared by all
 * threads; cannot be destroyed. */
#define DART_CTX_DEFAULT ((dart_ctx_t)0)

/* Options of dart_ctx_create (OR-ed), as SHMEM_CTX_*. */
#define DART_CTX_SERIALIZED 0x1u /* the caller serialises calls on the context */
#define DART_CTX_PRIVATE    0x2u /* only the creating thread uses the context: no lock */
#define DART_CTX_NOSTORE    0x4u /* no puts, put-with-signal or non-fetching atomics */

/* Creates a context with the OR of `options` (0 for a context that any
 * thread may use concurrently). Local, not collective. */
dart_ret_t dart_ctx_create(unsigned options, dart_ctx_t* ctx) DART_NOTHROW;

/* Completes the context's operations (as dart_ctx_quiet), frees it and sets
 * *ctx to DART_CTX_DEFAULT. DART_ERR_INVAL for DART_CTX_DEFAULT. */
dart_ret_t dart_ctx_destroy(dart_ctx_t* ctx) DART_NOTHROW;

/* Puts `nelem` elements of the basic type `dtype` from `src` to `dest`;
 * `src` may be reused on return; complete at the target after
 * dart_ctx_quiet. */
dart_ret_t dart_ctx_put(dart_ctx_t ctx, dart_gptr_t dest, const void* src, size_t nelem,
                        dart_datatype_t dtype) DART_NOTHROW;

/* Gets `nelem` elements from `src` into `dest`; `dest` is valid after
 * dart_ctx_quiet (at once on the load/store path). */
dart_ret_t dart_ctx_get(dart_ctx_t ctx, void* dest, dart_gptr_t src, size_t nelem,
                        dart_datatype_t dtype) DART_NOTHROW;

/* As dart_accumulate on the context: `values` may be reused on return. */
dart_ret_t dart_ctx_accumulate(dart_ctx_t ctx, dart_gptr_t dest, const void* values, size_t nelem,
                               dart_datatype_t dtype, dart_operation_t op) DART_NOTHROW;

/* As dart_fetch_and_op and dart_compare_and_swap on the context: the
 * operands may be reused on return, *result is valid after dart_ctx_quiet
 * (at once on the CPU path). */
dart_ret_t dart_ctx_fetch_and_op(dart_ctx_t ctx, dart_gptr_t gptr, const void* value, void* result,
                                 dart_datatype_t dtype, dart_operation_t op) DART_NOTHROW;
dart_ret_t dart_ctx_compare_and_swap(dart_ctx_t ctx, dart_gptr_t gptr, const void* value, const void* compare,
                                     void* result, dart_datatype_t dtype) DART_NOTHROW;

/* As dart_put_signal on the context: the data is ordered before the
 * signal; both are complete at the target after dart_ctx_quiet. */
dart_ret_t dart_ctx_put_signal(dart_ctx_t ctx, dart_gptr_t dest, const void* src, size_t nelem,
                               dart_datatype_t dtype, dart_gptr_t signal, uint64_t value,
                               dart_signal_op_t op) DART_NOTHROW;

/* Orders: puts, accumulates and signals issued on `ctx` before the fence
 * are delivered to each target before those issued after it. */
dart_ret_t dart_ctx_fence(dart_ctx_t ctx) DART_NOTHROW;

/* Completes every operation issued on `ctx`: puts and accumulates are
 * visible at their targets, gets and fetches have their results. */
dart_ret_t dart_ctx_quiet(dart_ctx_t ctx) DART_NOTHROW;

#ifdef __cplusplus
}
#endif

#endif /* DART__EXT__DART_CTX_H_ */
