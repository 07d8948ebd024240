/*
 * dart_communication.h -- communication operations.
 *
 * Collectives on teams (barrier, broadcast, scatter/gather, reductions,
 * all-to-all), atomic accumulate / fetch-and-op / compare-and-swap,
 * non-blocking, handle-based and blocking one-sided get/put on global
 * pointers together with the flushes that complete them, and blocking
 * two-sided send/receive between global unit ids.
 *
 * One-sided model: non-blocking operations guarantee neither local nor
 * remote completion on return; dart_flush* completes them. Puts and gets
 * are unordered until completed; accumulate-type operations from one
 * origin to one location with the same type take effect in issue order
 * and are element-wise atomic with respect to each other. Collectives and
 * barriers do not complete outstanding one-sided operations.
 */
#ifndef DART__COMMUNICATION_H_
#define DART__COMMUNICATION_H_

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_globmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/* ---------------------------------------------------------------------
 * Collectives
 *
 * Common rules: collective over all members of the team argument, in the
 * same order and with matching arguments; roots are team-relative ids;
 * buffers hold elements of `dtype`, which must be contiguous; data is
 * placed in team order. Thread safety: TS-team. All return DART_OK, or
 * DART_ERR_INVAL for an unknown team, a non-member caller, a root outside
 * [0, size), a non-contiguous type or an unsupported count (or, on a team
 * whose units share a node, members found in different collectives);
 * DART_ERR_OTHER at once on a team broken by such members, or made from
 * one (docs/memory-model.md).
 * ------------------------------------------------------------------ */

/*
 * Returns once all members of `team` have entered the barrier. Does not
 * complete outstanding RMA, but local stores made before it are visible
 * to dart_get by other units after it.
 * Returns DART_OK; DART_ERR_INVAL for an unknown or undefined team.
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_barrier(
  dart_team_t team) DART_NOTHROW;

/*
 * Copies `nelem` elements of `buf` at `root` into `buf` on every member.
 * Counts above INT_MAX are supported.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives.
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_bcast(
  void              * buf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/*
 * Distributes size * nelem elements of `sendbuf` (read at the root only):
 * member i receives block i of `nelem` elements in `recvbuf`.
 * Counts above INT_MAX are supported.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives.
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_scatter(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

/*
 * Collects `nelem` elements from every member into the root's `recvbuf`
 * (size * nelem elements, team order; written at the root only).
 * Counts above INT_MAX are supported.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives.
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_gather(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/*
 * Like dart_gather with the result on every member. In place if
 * `sendbuf` is NULL or equals `recvbuf` (each member's contribution is
 * then its own block of recvbuf). Counts above INT_MAX are supported.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives.
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_allgather(
  const void      * sendbuf,
  void            * recvbuf,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_team_t       team) DART_NOTHROW;

/*
 * Variable-size allgather: member i contributes nrecvelem[i] elements
 * (equal to its own nsendelem), stored at element offset recvdispls[i]
 * of `recvbuf` on every member. Both arrays have one entry per member,
 * indexed by team-relative id. Same in-place rule as dart_allgather.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives (counts above
 * INT_MAX may be rejected).
 * Collective over all members of `teamid`. Thread safety: TS-team.
 */
dart_ret_t dart_allgatherv(
  const void      * sendbuf,
  size_t            nsendelem,
  dart_datatype_t   dtype,
  void            * recvbuf,
  const size_t    * nrecvelem,
  const size_t    * recvdispls,
  dart_team_t       teamid) DART_NOTHROW;

/*
 * Element-wise reduction of all members' `sendbuf` with `op` (predefined
 * or created by dart_op_create for `dtype`) into every member's
 * `recvbuf`. For DART_OP_MINMAX `nelem` counts scalars and must be even.
 * The buffers must not overlap.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives (counts above
 * INT_MAX may be rejected).
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_allreduce(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op,
  dart_team_t      team) DART_NOTHROW;

/*
 * Block j (nelem elements) of each member's `sendbuf` is sent to member
 * j, which stores it as block i (sender's id) of `recvbuf`. In place if
 * `sendbuf` is NULL or equals `recvbuf`. `dtype` should be basic.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives (counts above
 * INT_MAX may be rejected).
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_alltoall(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_team_t      team) DART_NOTHROW;

/*
 * Like dart_allreduce, but the result is stored only in the root's
 * `recvbuf`.
 * Returns DART_OK; DART_ERR_INVAL as for all collectives (counts above
 * INT_MAX may be rejected).
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_reduce(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_operation_t    op,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Atomic operations
 *
 * `dtype` must be a basic type; `op` one of MIN, MAX, SUM, PROD, BAND,
 * LAND, BOR, LOR, BXOR, LXOR, REPLACE, NO_OP (MINMAX and user operations
 * are rejected). Target rules as for dart_put.
 * ------------------------------------------------------------------ */

/*
 * Issues target[i] = target[i] op values[i] for i < nelem at `gptr`.
 * Non-blocking: `values` is reusable after local completion, the result
 * is visible after dart_flush.
 * Returns DART_OK; DART_ERR_INVAL for an invalid target, type or
 * operation.
 * Not collective. Thread safety: TS-team.
 */
dart_ret_t dart_accumulate(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/*
 * Like dart_accumulate, but returns only after local completion (`values`
 * reusable). Remote completion still requires a flush.
 * Returns DART_OK; DART_ERR_INVAL for an invalid target, type or
 * operation.
 * Not collective. Thread safety: TS-team.
 */
dart_ret_t dart_accumulate_blocking_local(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/*
 * Atomically, for one element: *result = target; target = target op
 * *value. REPLACE gives an atomic swap, NO_OP an atomic read (`value`
 * must still be a valid pointer). Non-blocking: *result is defined only
 * after dart_flush / dart_flush_local (or their _all forms).
 * Returns DART_OK; DART_ERR_INVAL for an invalid target, type or
 * operation.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_fetch_and_op(
  dart_gptr_t      gptr,
  const void *     value,
  void *           result,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/*
 * Atomically, for one element: *result = target; if target == *compare
 * then target = *value. The old target value is always returned (the swap
 * happened iff *result == *compare). `dtype` must be an integral basic
 * type (DART_TYPE_BYTE .. DART_TYPE_ULONGLONG). Completion as for
 * dart_fetch_and_op.
 * Returns DART_OK; DART_ERR_INVAL for an invalid target or type.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_compare_and_swap(
  dart_gptr_t      gptr,
  const void     * value,
  const void     * compare,
  void           * result,
  dart_datatype_t  dtype) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Non-blocking one-sided operations without handles, and flushes
 *
 * Targets: the caller must be a member of gptr.teamid, gptr.unitid must
 * be in [0, team size) and the accessed range must lie within the target's
 * portion of the segment. src_type and dst_type must share the base type;
 * for non-contiguous types nelem must be a multiple of their element
 * counts. nelem == 0 is a no-op.
 * ------------------------------------------------------------------ */

/*
 * Issues a read of `nelem` elements at `gptr` (layout src_type) into
 * `dest` (layout dst_type). `dest` is undefined until local completion.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment, a unit
 * out of range or incompatible types.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_get(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/*
 * Issues a write of `nelem` elements from `src` (layout src_type) to
 * `gptr` (layout dst_type). `src` must not change before local
 * completion; the target sees the data after dart_flush / dart_flush_all.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment, a unit
 * out of range or incompatible types.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_put(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/*
 * Completes, locally and remotely, all operations the calling unit issued
 * to unit gptr.unitid in the segment of `gptr` (offset ignored).
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment or a
 * unit out of range.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_flush(
  dart_gptr_t gptr) DART_NOTHROW;

/*
 * Completes, locally and remotely, all operations the calling unit issued
 * to any unit in the segment of `gptr`.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_flush_all(
  dart_gptr_t gptr) DART_NOTHROW;

/*
 * Like dart_flush, but guarantees local completion only (origin buffers
 * reusable, fetched data available).
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment or a
 * unit out of range.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_flush_local(
  dart_gptr_t gptr) DART_NOTHROW;

/*
 * Like dart_flush_all, but guarantees local completion only.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_flush_local_all(
  dart_gptr_t gptr) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Handle-based one-sided operations
 *
 * Wait/test functions accept a NULL pointer-to-handle and
 * DART_HANDLE_NULL entries and treat them as complete. On completion the
 * runtime releases the handle and sets the caller's variable to
 * DART_HANDLE_NULL. None of these functions is collective.
 * ------------------------------------------------------------------ */

/* Opaque handle of a pending one-sided operation. */
typedef struct dart_handle_struct * dart_handle_t;

/* "No pending operation". */
#define DART_HANDLE_NULL (dart_handle_t)NULL

/*
 * As dart_get, additionally returning a handle for the operation
 * (DART_HANDLE_NULL if it already completed inside the call or failed).
 * A non-null handle must be passed to a wait/test function or to
 * dart_handle_free.
 *   handle  [out] the operation's handle
 * Returns as dart_get.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_get_handle(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

/*
 * As dart_put, additionally returning a handle for the operation
 * (DART_HANDLE_NULL if it already completed inside the call or failed).
 *   handle  [out] the operation's handle
 * Returns as dart_put.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_put_handle(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

/*
 * Blocks until the operation is complete locally and remotely, then
 * releases the handle.
 * Returns DART_OK, or an error code if completion fails.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_wait(
  dart_handle_t * handle) DART_NOTHROW;

/*
 * dart_wait for `n` handles; n == 0 is a no-op. On success all entries
 * are DART_HANDLE_NULL.
 * Returns DART_OK; DART_ERR_INVAL for n > INT_MAX.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_waitall(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

/*
 * Blocks until local completion only (get: data in dest; put: src
 * reusable), then releases the handle. Remote completion of a put then
 * requires a flush on the segment.
 * Returns DART_OK, or an error code if completion fails.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_wait_local(
  dart_handle_t * handle) DART_NOTHROW;

/*
 * dart_wait_local for `n` handles.
 * Returns DART_OK, or an error code for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_waitall_local(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

/*
 * Checks for local completion without blocking. If complete: *result = 1
 * and the handle is released and nulled; otherwise *result = 0 and the
 * handle is untouched.
 * Returns DART_OK, or an error code for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_test_local(
  dart_handle_t * handle,
  int32_t       * result) DART_NOTHROW;

/*
 * Like dart_test_local, but a locally complete put is also completed
 * remotely (may block for a flush) before *is_finished = 1 is reported.
 * Returns DART_OK, or an error code for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_test(
  dart_handle_t * handleptr,
  int32_t       * is_finished);

/*
 * All-or-nothing dart_test_local for `n` handles: *result = 1 and all
 * handles released if every operation is complete, else 0 and none
 * released. Empty input gives 1.
 * Returns DART_OK, or an error code for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_testall_local(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * result) DART_NOTHROW;

/*
 * All-or-nothing dart_test for `n` handles (semantics as
 * dart_testall_local with remote completion of puts). Empty input
 * should give 1.
 * Returns DART_OK, or an error code for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_testall(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * is_finished);

/*
 * Releases the handle without waiting and sets it to DART_HANDLE_NULL;
 * the operation proceeds and is completed by a later flush on its
 * segment. A null input is a no-op.
 * Returns DART_OK.
 * Not collective. Thread safety: not annotated.
 */
dart_ret_t dart_handle_free(
  dart_handle_t * handle) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Blocking one-sided operations (argument rules as dart_get / dart_put)
 * ------------------------------------------------------------------ */

/*
 * Reads `nelem` elements at `gptr` into `dest`; returns when the data is
 * in `dest`.
 * Returns DART_OK; DART_ERR_INVAL as for dart_get.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_get_blocking(
  void         *  dest,
  dart_gptr_t     gptr,
  size_t          nelem,
  dart_datatype_t src_type,
  dart_datatype_t dst_type) DART_NOTHROW;

/*
 * Writes `nelem` elements from `src` to `gptr`; returns when the data is
 * visible at the target and `src` may be reused.
 * Returns DART_OK; DART_ERR_INVAL as for dart_put.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_put_blocking(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Two-sided messages
 *
 * Point-to-point between global unit ids; `dtype` must be contiguous,
 * counts at most INT_MAX, tags non-negative (portable up to 32767), no
 * wildcards. User messages never match DART-internal traffic.
 * ------------------------------------------------------------------ */

/*
 * Blocking send of `nelem` elements to global unit `unit` with `tag`;
 * returns when `sendbuf` may be reused.
 * Returns DART_OK; DART_ERR_INVAL for an invalid unit, type or count.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_send(
  const void         * sendbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/*
 * Blocking receive of a message with `tag` from global unit `unit` into
 * `recvbuf` (capacity `nelem` elements). Messages between the same pair
 * with the same tag arrive in send order.
 * Returns DART_OK; DART_ERR_INVAL for an invalid unit, type or count.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_recv(
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/*
 * Sends to `dest` and receives from `src` in one deadlock-free step.
 * Note the order: tag before unit for both halves.
 * Returns DART_OK; DART_ERR_INVAL for an invalid unit, type or count.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_sendrecv(
  const void         * sendbuf,
  size_t               send_nelem,
  dart_datatype_t      send_dtype,
  int                  send_tag,
  dart_global_unit_t   dest,
  void               * recvbuf,
  size_t               recv_nelem,
  dart_datatype_t      recv_dtype,
  int                  recv_tag,
  dart_global_unit_t   src) DART_NOTHROW;

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__COMMUNICATION_H_ */
