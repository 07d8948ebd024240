/*
 * Extension (not part of the DART interface): the program's global and
 * static variables as remotely accessible memory, as OpenSHMEM's
 * symmetric data objects.
 *
 * Every unit runs the same executable, so every global variable sits at
 * the same offset from the start of the executable's data on every unit
 * (the addresses differ when the executable is position-independent).
 * Registering that range (the writable data and bss, without the part the
 * dynamic linker makes read-only) as a segment makes each variable
 * reachable by every one-sided operation, atomic, signal and wait.
 *
 * Registered memory is private to its process, so other units reach it
 * through MPI RMA, also on the same node; dart_gptr_direct gives NULL for
 * it on other units.
 */
#ifndef DART__EXT__DART_GLOBALS_H_
#define DART__EXT__DART_GLOBALS_H_

#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Collective over `team`: registers the program's global and static
 * variables as a segment of `team` (like dart_team_memregister; undo with
 * dart_team_memderegister). *gptr is the segment's pointer. The pointer to
 * variable `v` on unit u:
 *
 *   dart_gptr_t p = *gptr;
 *   dart_gptr_setunit(&p, my_id_in_team);
 *   dart_gptr_setaddr(&p, &v);       offset of v in the caller's globals
 *   dart_gptr_setunit(&p, u);
 *
 * DART_ERR_INVAL on every unit when the units' global data differ in size
 * (different executables) or when there is none; the errors of
 * dart_team_memregister otherwise.
 */
dart_ret_t dart_team_memregister_globals(dart_team_t team, dart_gptr_t* gptr) DART_NOTHROW;

/*
 * The caller's range that dart_team_memregister_globals registers: *begin
 * and *bytes (NULL and 0 when the program has no writable globals). Lets a
 * layer above tell whether an address is a global variable without asking
 * DART for each one. Local; DART_ERR_INVAL for NULL arguments.
 */
dart_ret_t dart_globals_range(void** begin, size_t* bytes) DART_NOTHROW;

#ifdef __cplusplus
}
#endif

#endif /* DART__EXT__DART_GLOBALS_H_ */
