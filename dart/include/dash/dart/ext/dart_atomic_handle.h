/*
 * Extension (not part of the DART interface): fetching atomics that do not
 * block, completed by a handle, as OpenSHMEM 1.5's shmem_atomic_fetch_*_nbi
 * and shmem_atomic_compare_swap_nbi.
 *
 * dart_fetch_and_op and dart_compare_and_swap already return before their
 * result arrives (it is valid after a flush of the segment). These forms
 * add a handle, so that one operation can be completed without flushing
 * the others: *result is valid once dart_wait, dart_wait_local, dart_test
 * or dart_test_local report the handle complete, or after a flush of the
 * segment as before. The operands (*value, *compare) are copied: the
 * caller may reuse them on return. Where the operation completes inside
 * the call (CPU atomics on a node's shared memory, the runtime's own
 * emulation), *handle is DART_HANDLE_NULL and *result is valid on return.
 *
 * Arguments and errors as dart_fetch_and_op and dart_compare_and_swap,
 * plus DART_ERR_INVAL for a NULL handle.
 */
#ifndef DART__EXT__DART_ATOMIC_HANDLE_H_
#define DART__EXT__DART_ATOMIC_HANDLE_H_

#include <dash/dart/if/dart_communication.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As dart_fetch_and_op (*result = the value at gptr, then the value at
 * gptr = value op *result, atomically), and *handle completes it. Not
 * collective; thread safety as dart_fetch_and_op. */
dart_ret_t dart_fetch_and_op_handle(dart_gptr_t gptr, const void* value, void* result, dart_datatype_t dtype,
                                    dart_operation_t op, dart_handle_t* handle) DART_NOTHROW;

/* As dart_compare_and_swap (*result = the value at gptr, replaced by *value
 * when it equals *compare, atomically), and *handle completes it. Not
 * collective; thread safety as dart_compare_and_swap. */
dart_ret_t dart_compare_and_swap_handle(dart_gptr_t gptr, const void* value, const void* compare, void* result,
                                        dart_datatype_t dtype, dart_handle_t* handle) DART_NOTHROW;

#ifdef __cplusplus
}
#endif

#endif /* DART__EXT__DART_ATOMIC_HANDLE_H_ */
