/*
 * dart_globmem.h -- global pointers and global memory management.
 *
 * Defines the 16-byte global pointer dart_gptr_t {unit, flags, segment,
 * team, byte offset}, its null value and comparison macros, pointer
 * helpers (address translation, offset/unit updates, per-segment flags),
 * and the ways to obtain global memory: non-collective allocation from a
 * team-wide pool (dart_allocator_*), non-collective local allocation
 * (dart_memalloc) and collective team allocation and registration.
 */
#ifndef DART_GLOBMEM_H_INCLUDED
#define DART_GLOBMEM_H_INCLUDED

#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_team_group.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/* ---------------------------------------------------------------------
 * Global pointers
 * ------------------------------------------------------------------ */

/*
 * Global pointer, passed by value.
 *   unitid        target unit, relative to teamid (24-bit signed; for
 *                 DART_SEGMENT_LOCAL it is the global id)
 *   flags         cached low 8 bits of the segment's flag word; ignored
 *                 by all operations
 *   segid         segment id within teamid
 *   teamid        team owning the segment
 *   addr_or_offs  byte offset from the start of the target unit's portion
 *                 of the segment (DART never stores an address here)
 * Must stay an aggregate (no constructors) so DART_GPTR_NULL can be
 * brace-initialised in C++.
 */
typedef struct
{
  dart_unit_t  unitid : 24;
  unsigned int flags  :  8;
  int16_t     segid;
  int16_t     teamid;
  union
  {
    uint64_t offset;
    void*    addr;
  } addr_or_offs;
} dart_gptr_t;

/*
 * The null global pointer: unitid -1, flags 0, segid 0,
 * teamid DART_TEAM_NULL, offset 0.
 */
#ifdef __cplusplus
#define DART_GPTR_NULL (dart_gptr_t { -1, 0, 0, DART_TEAM_NULL, { 0 } })
#else
#define DART_GPTR_NULL \
(dart_gptr_t){ .unitid = -1, \
               .flags  =  0, \
               .segid  =  0, \
               .teamid  =  DART_TEAM_NULL, \
               .addr_or_offs.offset = 0 }
#endif

/*
 * Tests whether a gptr equals DART_GPTR_NULL. The argument must be a
 * simple lvalue of type dart_gptr_t (it is not parenthesised).
 */
#define DART_GPTR_ISNULL(gptr_)         \
  (gptr_.unitid<0 && gptr_.segid==0 &&  \
   gptr_.teamid==DART_TEAM_NULL   &&    \
   gptr_.addr_or_offs.addr==0)

/*
 * Compares unit, segment, team and offset of two gptrs (flags are
 * ignored). Arguments must be simple lvalues of type dart_gptr_t.
 */
#define DART_GPTR_EQUAL(gptr1_, gptr2_ )    \
  ((gptr1_.unitid == gptr2_.unitid) &&      \
   (gptr1_.segid  == gptr2_.segid)  &&      \
   (gptr1_.teamid == gptr2_.teamid) &&      \
   (gptr1_.addr_or_offs.offset ==           \
    gptr2_.addr_or_offs.offset) )

/*
 * Segment id of the per-unit dart_memalloc() pool; valid only with
 * teamid == DART_TEAM_ALL. Collective segments never use it.
 */
#define DART_SEGMENT_LOCAL ((int16_t)0)

/* ---------------------------------------------------------------------
 * Pointer helpers
 * ------------------------------------------------------------------ */

/*
 * Translates a gptr into a local address. If gptr.unitid is the caller's
 * id in gptr.teamid, *addr is the address of byte `offset` of the caller's
 * portion of the segment; otherwise *addr is NULL and DART_OK is still
 * returned (addresses of other units' memory are never handed out).
 *   addr  [out] local address or NULL
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment or a
 * caller that is not a team member (including DART_GPTR_NULL).
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_gptr_getaddr(
  const dart_gptr_t    gptr,
        void        ** addr) DART_NOTHROW;

/*
 * Inverse of dart_gptr_getaddr for the caller: sets gptr's offset so that
 * it designates `addr`, which must lie in the caller's portion of the
 * segment. unitid, teamid and segid are left unchanged.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_gptr_setaddr(
  dart_gptr_t * gptr,
  void        * addr) DART_NOTHROW;

/*
 * Adds `offs` bytes (may be negative) to the offset of *gptr. No checks.
 * Returns DART_OK.
 * Not collective; header-inline, touches only *gptr (no annotation).
 */
DART_INLINE DART_NOTHROW
dart_ret_t
dart_gptr_incaddr(
  dart_gptr_t * gptr,
  int64_t       offs)
{
  gptr->addr_or_offs.offset += offs;
  return DART_OK;
}

/*
 * Sets the target unit of *gptr (team-relative to gptr->teamid,
 * truncated to 24 bits).
 * Returns DART_OK.
 * Not collective; header-inline, touches only *gptr (no annotation).
 */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_setunit(
  dart_gptr_t      * gptr,
  dart_team_unit_t   unit)
{
  gptr->unitid = unit.id;
  return DART_OK;
}

/*
 * Reads the 16-bit flag word the calling unit keeps for the segment of
 * `gptr`. Flags are per unit, never communicated and have no meaning to
 * DART.
 *   flags  [out] the flag word (0 unless set)
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_gptr_getflags(
  dart_gptr_t   gptr,
  uint16_t    * flags) DART_NOTHROW;

/*
 * Stores `flags` as the caller's flag word of the segment of *gptr and
 * copies its low 8 bits into gptr->flags.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_gptr_setflags(
  dart_gptr_t * gptr,
  uint16_t      flags) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Non-collective allocation from a team pool
 * ------------------------------------------------------------------ */

/* Opaque per-unit handle of a team-wide memory pool. */
typedef struct dart_allocator_struct * dart_allocator_t;

/*
 * Collectively allocates a pool of `pool_size` bytes (rounded up to a
 * power of two) on every member of `team`; afterwards each member
 * allocates from its own part without communication.
 *   new_allocator  [out] the pool handle
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or unusable size;
 * errors of the underlying team allocation are passed on.
 * Collective over all members of `team`. Thread safety: TS-team.
 */
dart_ret_t dart_allocator_new(
  size_t             pool_size,
  dart_team_t        team,
  dart_allocator_t * new_allocator);

/*
 * Reserves nelem * size(dtype) bytes in the caller's part of the pool.
 * The resulting gptr (team = pool team, unit = caller's team-relative id)
 * may be passed to and accessed by other team members immediately.
 *   dtype  contiguous element type
 *   gptr   [out] the block; DART_GPTR_NULL on failure
 * Returns DART_OK; DART_ERR_NOMEM if the pool is exhausted;
 * DART_ERR_INVAL for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_allocator_alloc(
  size_t             nelem,
  dart_datatype_t    dtype,
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

/*
 * Returns a block to the pool (only the allocating unit may do this) and
 * sets *gptr to DART_GPTR_NULL.
 * Returns DART_OK; DART_ERR_INVAL for null arguments, a gptr of another
 * segment or an offset that does not start a live block.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_allocator_free(
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

/*
 * Collectively frees the pool and the handle and sets *allocator to NULL.
 * Blocks still allocated become invalid.
 * Returns DART_OK.
 * Collective over all members of the pool's team. Thread safety: TS-team.
 */
dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator);

/* ---------------------------------------------------------------------
 * Non-collective local allocation
 * ------------------------------------------------------------------ */

/*
 * Allocates nelem * size(dtype) bytes of global memory owned by the
 * caller from a per-unit pool that is already exposed for RMA. Result:
 * teamid DART_TEAM_ALL, unitid = caller's global id, segid
 * DART_SEGMENT_LOCAL. Any unit may access it once it has the gptr.
 *   dtype  contiguous element type
 *   gptr   [out] the block; DART_GPTR_NULL on failure
 * Returns DART_OK; DART_ERR_NOMEM (recommended) when the pool is
 * exhausted; DART_ERR_INVAL for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_memalloc(
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

/*
 * Releases a block obtained from dart_memalloc; must be called by the
 * owning unit. DART_GPTR_NULL should be accepted as a no-op.
 * Returns DART_OK; DART_ERR_INVAL if the gptr is not a live block of the
 * local pool (wrong team or segment, unknown offset).
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_memfree(dart_gptr_t gptr) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Collective team allocation and registration
 * ------------------------------------------------------------------ */

/*
 * Allocates a new team-aligned segment: each member contributes
 * nelem * size(dtype) bytes. Every caller receives the same gptr
 * {teamid, new segid, unitid 0, offset 0}; setting unitid/offset addresses
 * any member's portion. All portions are RMA-accessible on return.
 * nelem == 0 is allowed; differing nelem per unit should be tolerated.
 *   dtype  basic type
 *   gptr   [out] the segment; DART_GPTR_NULL on error
 * Returns DART_OK; DART_ERR_INVAL (unknown team, non-member, non-basic
 * type); DART_ERR_NOMEM (recommended) on exhaustion; DART_ERR_OTHER on
 * backend failure.
 * Collective over all members of `teamid`. Thread safety: TS-team.
 */
dart_ret_t dart_team_memalloc_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

/*
 * Frees the segment (gptr.teamid, gptr.segid); unitid and offset are
 * ignored; DART_GPTR_NULL is a no-op. Callers must have flushed their RMA
 * to the segment and ensure nobody accesses it any more.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment.
 * Collective over all members of gptr.teamid. Thread safety: TS-team.
 */
dart_ret_t dart_team_memfree(
  dart_gptr_t gptr) DART_NOTHROW;

/*
 * Exposes existing memory [addr, addr + nelem * size(dtype)) of every
 * member as a new segment without allocating (same nelem everywhere). The
 * memory must stay valid until deregistered.
 *   dtype  basic type
 *   gptr   [out] {teamid, new segid, unitid 0, offset 0}
 * Returns as dart_team_memalloc_aligned.
 * Collective over all members of `teamid`. Thread safety: TS-team.
 */
dart_ret_t dart_team_memregister_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

/*
 * Like dart_team_memregister_aligned, but every member registers its own
 * element count `nlelem`, which may be 0 (addr is then not dereferenced).
 * Returns as dart_team_memalloc_aligned.
 * Collective over all members of `teamid`. Thread safety: NTS.
 */
dart_ret_t dart_team_memregister(
  dart_team_t       teamid,
  size_t            nlelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

/*
 * Removes a registration; the memory stays with the caller.
 * DART_GPTR_NULL is a no-op. Same completion obligations as
 * dart_team_memfree.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or segment.
 * Collective over all members of gptr.teamid. Thread safety: NTS.
 */
dart_ret_t dart_team_memderegister(dart_gptr_t gptr) DART_NOTHROW;

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_GLOBMEM_H_INCLUDED */
