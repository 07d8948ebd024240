/*
 * Extension (not part of the DART interface): point-to-point
 * synchronisation on the caller's own memory. A unit waits until words of
 * a segment that other units update (by put, accumulate, put with signal)
 * satisfy a comparison, or tests whether they do, the way OpenSHMEM 1.5's
 * shmem_wait_until and shmem_test families do.
 *
 * The memory is named by a global pointer whose unit is the caller (in
 * the pointer's team): waits are on local memory. The elements are
 * `nelems` consecutive values of an integer type (DART_TYPE_BYTE ...
 * DART_TYPE_ULONGLONG, compared as that C type), aligned to their size.
 *
 * Ordering: when a wait returns, or a test reports a satisfied element,
 * the caller's later loads see every store the updating unit made before
 * the update it observed (the update is read with acquire semantics, and
 * completed RMA is synchronised into the caller's view of the window).
 *
 * Progress: while waiting, the caller drives the MPI library, so that
 * updates through MPI RMA complete even where the library applies them
 * only when the target calls MPI. A wait spins briefly, then yields the
 * CPU between checks: oversubscribed units still make progress.
 *
 * Errors (DART_ERR_INVAL, one log line naming the call and the reason): a
 * pointer that names another unit, an unknown team or segment, a range
 * past the end of the caller's portion, a misaligned pointer, a type that
 * is not an integer type, an unknown comparison, NULL arguments where
 * elements are to be compared or indices returned.
 *
 * All functions are thread-safe and not collective.
 */
#ifndef DART__EXT__DART_WAIT_H_
#define DART__EXT__DART_WAIT_H_

#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Comparisons of a waited-on element `x` with a value `v`. */
typedef enum {
  DART_CMP_EQ = 1, /* x == v */
  DART_CMP_NE = 2, /* x != v */
  DART_CMP_GT = 3, /* x >  v */
  DART_CMP_GE = 4, /* x >= v */
  DART_CMP_LT = 5, /* x <  v */
  DART_CMP_LE = 6  /* x <= v */
} dart_cmp_t;

/* Returned by the _any forms when no element can be or is satisfied. */
#define DART_WAIT_NONE ((size_t)-1)

/* Single element: waits until `*gptr cmp *value` holds. */
dart_ret_t dart_wait_until(dart_gptr_t gptr, dart_cmp_t cmp, const void* value, dart_datatype_t dtype) DART_NOTHROW;

/* Single element: *result = 1 if `*gptr cmp *value` holds now, else 0. */
dart_ret_t dart_test_until(dart_gptr_t gptr, dart_cmp_t cmp, const void* value, dart_datatype_t dtype,
                           int32_t* result) DART_NOTHROW;

/*
 * Forms over `nelems` elements starting at `gptr`. `status` (may be NULL)
 * excludes element i from the wait when status[i] != 0. The plain forms
 * compare every element with the one value `*value`; the _vector forms
 * compare element i with values[i] (an array of nelems elements of dtype).
 *
 * _all:  returns when every included element satisfies its comparison
 *        (at once when none is included).
 * _any:  returns when some included element does; *index receives its
 *        index (DART_WAIT_NONE at once when none is included). When
 *        several do, which one is returned varies from call to call (each
 *        look starts at a random element), so an element that stays
 *        satisfied is returned by some call of a series, as OpenSHMEM's
 *        _any routines require.
 * _some: returns when at least one included element does; the indices of
 *        all that do are written to `indices` (room for nelems entries) in
 *        increasing order and their number to *count (0 at once when none
 *        is included).
 */
dart_ret_t dart_wait_until_all(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype) DART_NOTHROW;
dart_ret_t dart_wait_until_any(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype, size_t* index) DART_NOTHROW;
dart_ret_t dart_wait_until_some(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                                dart_datatype_t dtype, size_t* indices, size_t* count) DART_NOTHROW;
dart_ret_t dart_wait_until_all_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype) DART_NOTHROW;
dart_ret_t dart_wait_until_any_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype, size_t* index) DART_NOTHROW;
dart_ret_t dart_wait_until_some_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                       const void* values, dart_datatype_t dtype, size_t* indices,
                                       size_t* count) DART_NOTHROW;

/*
 * The test forms check once and do not wait. _all: *result = 1 when every
 * included element is satisfied (also when none is included), else 0.
 * _any: *index as above, or DART_WAIT_NONE when none is satisfied. _some:
 * as above, *count = 0 when none is satisfied.
 */
dart_ret_t dart_test_until_all(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype, int32_t* result) DART_NOTHROW;
dart_ret_t dart_test_until_any(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                               dart_datatype_t dtype, size_t* index) DART_NOTHROW;
dart_ret_t dart_test_until_some(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp, const void* value,
                                dart_datatype_t dtype, size_t* indices, size_t* count) DART_NOTHROW;
dart_ret_t dart_test_until_all_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype, int32_t* result) DART_NOTHROW;
dart_ret_t dart_test_until_any_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                      const void* values, dart_datatype_t dtype, size_t* index) DART_NOTHROW;
dart_ret_t dart_test_until_some_vector(dart_gptr_t gptr, size_t nelems, const int* status, dart_cmp_t cmp,
                                       const void* values, dart_datatype_t dtype, size_t* indices,
                                       size_t* count) DART_NOTHROW;

#ifdef __cplusplus
}
#endif

#endif /* DART__EXT__DART_WAIT_H_ */
