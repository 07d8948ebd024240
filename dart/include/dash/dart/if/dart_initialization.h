/*
 * dart_initialization.h -- start-up, shutdown and abort of DART.
 *
 * Declares dart_init / dart_init_thread (collective start-up of the
 * runtime, creation of DART_TEAM_ALL and its locality data), dart_exit
 * (collective shutdown), dart_initialized (state query) and dart_abort
 * (immediate termination of the whole job).
 */
#ifndef DART_INITIALIZATION_H_INCLUDED
#define DART_INITIALIZATION_H_INCLUDED

#include <stdbool.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/*
 * Initialises DART (and MPI, if it is not yet initialised; DART then also
 * finalises it in dart_exit). Creates DART_TEAM_ALL, the local allocation
 * pool and the locality data of DART_TEAM_ALL. DART calls must afterwards
 * be serialised by the application (as with DART_THREAD_SINGLE).
 *   argc, argv  program arguments, forwarded to MPI; either may be NULL
 * Returns DART_OK; DART_ERR_OTHER if already initialised or the backend
 * cannot be set up.
 * Collective over all processes of the job. Thread safety: NTS.
 */
dart_ret_t dart_init(int *argc, char ***argv) DART_NOTHROW;

/*
 * Like dart_init, but also requests support for concurrent calls from
 * several threads and reports the level actually granted.
 *   argc, argv     program arguments, forwarded to MPI; either may be NULL
 *   thread_safety  [out] DART_THREAD_MULTIPLE or DART_THREAD_SINGLE;
 *                  must not be NULL
 * Returns as dart_init.
 * Collective over all processes of the job. Thread safety: NTS.
 */
dart_ret_t dart_init_thread(
  int*                          argc,
  char***                       argv,
  dart_thread_support_level_t * thread_safety) DART_NOTHROW;

/*
 * Shuts DART down: releases DART_TEAM_ALL, its locality data, windows and
 * internal tables, and finalises MPI only if dart_init initialised it.
 * Resources the application did not release are not cleaned up
 * (implementation-defined). Re-initialisation afterwards works when the
 * application owns MPI.
 * Returns DART_OK; DART_ERR_OTHER if DART is not initialised, teardown
 * fails or a team of the caller is broken (its members were found in
 * different collectives; every broken team is logged). When
 * DART_TEAM_ALL is broken, waits at most DART_EXIT_TIMEOUT seconds for
 * every unit to reach dart_exit, then aborts the job.
 * Collective over all units. Thread safety: NTS.
 */
dart_ret_t dart_exit() DART_NOTHROW;

/*
 * Returns true between a successful dart_init / dart_init_thread and the
 * start of dart_exit, false otherwise. Never fails; callable at any time.
 * Not collective. Thread safety: TS.
 */
bool       dart_initialized() DART_NOTHROW;

/*
 * Terminates the whole job immediately with exit status `errorcode`,
 * without cleanup; never returns. Should also work before dart_init.
 *   errorcode  exit status, e.g. DART_EXIT_ABORT
 * Not collective. Thread safety: NTS.
 */
void       dart_abort(int errorcode) __attribute__((noreturn));

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_INITIALIZATION_H_INCLUDED */
