/*
 * Extension (not part of the DART interface): direct pointers, as
 * OpenSHMEM's shmem_ptr. Where the caller maps a unit's memory (a unit of
 * the caller's node, load/store between units on, which
 * DART_SHARED_MEMORY=0 switches off), a global pointer has a plain address
 * in the caller's address space, through which the caller may load and
 * store directly.
 */
#ifndef DART__EXT__DART_DIRECT_H_
#define DART__EXT__DART_DIRECT_H_

#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * *addr = the caller's address of the byte `gptr` names, or NULL when the
 * caller does not map it (a unit on another node, load/store off, memory
 * registered by another unit). DART_OK in both cases; DART_ERR_INVAL, with
 * *addr = NULL, for a pointer that names no memory (unknown team or
 * segment, unit out of range, offset past the unit's portion) or a NULL
 * addr. Unlike dart_gptr_getaddr, which answers for the caller's own
 * memory only, this answers for every unit of the node.
 *
 * The address stays valid while the segment lives. Loads and stores
 * through it are ordinary memory accesses: against DART's one-sided
 * operations on the same memory they are ordered like accesses to the
 * caller's own portion (dart_flush completes the caller's operations; a
 * wait or a barrier orders them with other units').
 */
dart_ret_t dart_gptr_direct(dart_gptr_t gptr, void** addr) DART_NOTHROW;

#ifdef __cplusplus
}
#endif

#endif /* DART__EXT__DART_DIRECT_H_ */
