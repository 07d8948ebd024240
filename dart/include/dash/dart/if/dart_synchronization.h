/*
 * dart_synchronization.h -- team-wide locks.
 *
 * A DART lock is one non-recursive mutual-exclusion object shared by all
 * units of a team; every unit holds its own handle. It excludes other
 * units and other threads of the same unit. Acquiring or releasing a lock
 * neither completes nor orders one-sided operations: flush data written
 * in a critical section before releasing the lock.
 */
#ifndef DART_SYNCHRONIZATION_H_INCLUDED
#define DART_SYNCHRONIZATION_H_INCLUDED

#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/* Opaque per-unit handle of a team lock. */
typedef struct dart_lock_struct *dart_lock_t;

/* The null lock handle. */
#define DART_LOCK_NULL ((dart_lock_t)NULL)

/*
 * Creates a lock shared by the members of `teamid`.
 *   lock  [out] this unit's handle; DART_LOCK_NULL on failure
 * Returns DART_OK; DART_ERR_INVAL for an unknown team; errors of the
 * internal global-memory allocation are passed on.
 * Collective over all members of `teamid`. Thread safety: NTS.
 */
dart_ret_t dart_team_lock_init(
  dart_team_t   teamid,
  dart_lock_t * lock)   DART_NOTHROW;

/*
 * Releases the lock's global resources (if its team still exists) and the
 * handle, and sets *lock to DART_LOCK_NULL. The lock must not be held.
 * A NULL pointer or DART_LOCK_NULL is a no-op.
 * Returns DART_OK, or an error code if releasing resources fails.
 * Collective over all members of the lock's team. Thread safety: NTS.
 */
dart_ret_t dart_team_lock_destroy(
  dart_lock_t * lock)   DART_NOTHROW;

/*
 * Blocks until the calling thread holds the lock. Acquiring a lock the
 * caller already holds is erroneous.
 * Returns DART_OK; DART_ERR_INVAL for a null lock, a destroyed team or a
 * repeated acquire.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_lock_acquire(
  dart_lock_t   lock)   DART_NOTHROW;

/*
 * Takes the lock only if it is free right now; never waits.
 *   result  [out] 1 if acquired, 0 otherwise
 * Returns DART_OK; DART_ERR_INVAL for invalid arguments or if the calling
 * thread already holds the lock.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_lock_try_acquire(
  dart_lock_t   lock,
  int32_t     * result) DART_NOTHROW;

/*
 * Releases the lock held by the calling thread and hands it to the next
 * waiter, if any.
 * Returns DART_OK; DART_ERR_INVAL if the lock is not held.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_lock_release(
  dart_lock_t   lock)   DART_NOTHROW;

/*
 * Returns true iff `lock` is non-null and its team-wide state still
 * exists (false after its team was destroyed).
 * Not collective. Thread safety: NTS.
 */
bool dart_lock_initialized(
    struct dart_lock_struct const *lock) DART_NOTHROW;

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_SYNCHRONIZATION_H_INCLUDED */
