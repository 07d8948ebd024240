/*
 * Extension (not part of the DART interface): put with signal, as
 * OpenSHMEM 1.5's shmem_put_signal. A transfer to a unit followed by an
 * update of a 64-bit signal word on the same unit, ordered so that a unit
 * that observes the update (dart_signal_wait_until, dart_wait_until on
 * DART_TYPE_ULONGLONG, dart_signal_fetch) also observes the data.
 *
 * The signal word is a uint64_t aligned to 8 bytes in any segment (the
 * same or another one as the data) on the data's target unit. Updates of
 * signal words are atomic with respect to each other and to DART's
 * accumulate-type operations on DART_TYPE_ULONGLONG at the same word.
 *
 * Errors (DART_ERR_INVAL, one log line): everything dart_put reports, a
 * signal on another unit than the data, a misaligned or out-of-range
 * signal, an unknown signal operation.
 */
#ifndef DART__EXT__DART_SIGNAL_H_
#define DART__EXT__DART_SIGNAL_H_

#include <dash/dart/ext/dart_wait.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  DART_SIGNAL_SET = 1, /* signal = value */
  DART_SIGNAL_ADD = 2  /* signal += value (modulo 2^64) */
} dart_signal_op_t;

/*
 * Puts `nelem` elements of the basic type `dtype` from `src` to `dest`,
 * then updates the signal word at `signal`. On return `src` may be reused;
 * data and signal are complete at the target after a flush of `signal`'s
 * segment (dart_flush, dart_flush_all). Like dart_put otherwise.
 */
dart_ret_t dart_put_signal(dart_gptr_t dest, const void* src, size_t nelem, dart_datatype_t dtype,
                           dart_gptr_t signal, uint64_t value, dart_signal_op_t op) DART_NOTHROW;

/* As dart_put_signal, and data and signal are complete at the target on
 * return (as dart_put_blocking). */
dart_ret_t dart_put_signal_blocking(dart_gptr_t dest, const void* src, size_t nelem, dart_datatype_t dtype,
                                    dart_gptr_t signal, uint64_t value, dart_signal_op_t op) DART_NOTHROW;

/* Updates the signal word at `signal` alone (no data), with the same
 * ordering after the caller's completed transfers. Remotely complete on
 * return. */
dart_ret_t dart_signal_update(dart_gptr_t signal, uint64_t value, dart_signal_op_t op) DART_NOTHROW;

/* *value = the signal word at `signal` (any unit), read atomically. */
dart_ret_t dart_signal_fetch(dart_gptr_t signal, uint64_t* value) DART_NOTHROW;

/* Waits until the caller's signal word at `signal` satisfies `cmp` with
 * `value`; *observed (may be NULL) receives the value that satisfied it.
 * Ordering and progress as dart_wait_until. */
dart_ret_t dart_signal_wait_until(dart_gptr_t signal, dart_cmp_t cmp, uint64_t value,
                                  uint64_t* observed) DART_NOTHROW;

#ifdef __cplusplus
}
#endif

#endif /* DART__EXT__DART_SIGNAL_H_ */
