/*
 * dart_team_group.h -- groups and teams.
 *
 * Groups (dart_group_t) are local, ordered sets of global unit ids;
 * group functions never communicate. Teams (dart_team_t) are created
 * collectively from a parent team and a group; a member's team-relative
 * id is its position in ascending global-id order. Also defines
 * DART_TEAM_ALL, DART_TEAM_NULL and DART_GROUP_NULL, the caller's global
 * id / job size queries and id translation between teams.
 */
#ifndef DART_TEAM_GROUP_H_INCLUDED
#define DART_TEAM_GROUP_H_INCLUDED

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/* ---------------------------------------------------------------------
 * Groups
 *
 * All group functions are local (not collective) and require DART to be
 * initialised. A null input group yields DART_ERR_INVAL. Every function
 * with a group output allocates a new group that the caller releases with
 * dart_group_destroy().
 * ------------------------------------------------------------------ */

/* Opaque handle of a group: global unit ids, ascending, no duplicates. */
typedef struct dart_group_struct* dart_group_t;

/*
 * Allocates an empty group.
 *   group  [out] the new group
 * Returns DART_OK; DART_ERR_INVAL for a null pointer.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_group_create(dart_group_t *group) DART_NOTHROW;

/*
 * Releases *group and sets it to DART_GROUP_NULL; a null *group is a
 * no-op.
 *   group  [in,out] the group to release
 * Returns DART_OK; DART_ERR_INVAL if `group` itself is NULL.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_group_destroy(
  dart_group_t *group) DART_NOTHROW;

/*
 * Allocates a copy of `gin` in *gout.
 * Returns DART_OK; DART_ERR_INVAL if gin or gout is null (*gout is then
 * set to null where possible).
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_group_clone(
  const dart_group_t   gin,
  dart_group_t       * gout) DART_NOTHROW;

/*
 * Allocates in *gout the union of g1 and g2 (ascending).
 * Returns DART_OK; DART_ERR_INVAL for null arguments (*gout is then null).
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_union(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/*
 * Allocates in *gout the intersection of g1 and g2.
 * Returns DART_OK; DART_ERR_INVAL for null arguments.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_intersect(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/*
 * Inserts global unit `unitid` into `g` (no effect if present), keeping
 * the ascending order.
 * Returns DART_OK; DART_ERR_INVAL for a null group or an invalid id.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_addmember(
  dart_group_t       g,
  dart_global_unit_t unitid) DART_NOTHROW;

/*
 * Removes global unit `unitid` from `g` if it is a member.
 * Returns DART_OK; DART_ERR_INVAL for a null group.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_delmember(
  dart_group_t        g,
  dart_global_unit_t  unitid) DART_NOTHROW;

/*
 * Sets *ismember to 1 if `unitid` is in `g`, else (also on error) to 0.
 * Returns DART_OK; DART_ERR_INVAL for null arguments.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_ismember(
  const dart_group_t   g,
  dart_global_unit_t   unitid,
  int32_t            * ismember) DART_NOTHROW;

/*
 * Stores the number of members of `g` in *size.
 * Returns DART_OK; DART_ERR_INVAL for null arguments.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_size(
  const dart_group_t   g,
  size_t             * size) DART_NOTHROW;

/*
 * Writes the members of `g` in ascending order to `unitids`, which must
 * have room for dart_group_size() entries.
 * Returns DART_OK; DART_ERR_INVAL for null arguments.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_getmembers(
  const dart_group_t   g,
  dart_global_unit_t * unitids) DART_NOTHROW;

/*
 * Splits `g` into `n` groups of consecutive members (at most
 * ceil(size / n) each). All n entries of `gout` are allocated (surplus
 * ones as empty groups) and must be destroyed by the caller; existing
 * entries are overwritten, not destroyed.
 *   n     number of output groups (1 .. INT_MAX)
 *   nout  [out] number of non-empty groups
 *   gout  [out] array with room for n groups
 * Returns DART_OK; DART_ERR_INVAL for null arguments, n == 0 or
 * n > INT_MAX.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_split(
  const dart_group_t    g,
  size_t                n,
  size_t              * nout,
  dart_group_t        * gout) DART_NOTHROW;

/*
 * Splits `g` by locality: one group per domain of scope `scope` below
 * `domain` (in dart_domain_scope_domains order), or, if there are more
 * such domains than `n`, groups of consecutive domains. Each output group
 * holds the members of `g` located in its domain(s). Results are
 * identical on all units holding the same team locality data.
 *   domain  locality domain of the team being split (usually its root)
 *   scope   split level
 *   n       maximum number of groups; gout must have room for n entries
 *   nout    [out] number of groups produced
 *   gout    [out] the allocated groups
 * Returns DART_OK; DART_ERR_INVAL for invalid arguments;
 * DART_ERR_NOTFOUND if there is no domain at `scope`.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_group_locality_split(
  const dart_group_t        g,
  dart_domain_locality_t  * domain,
  dart_locality_scope_t     scope,
  size_t                    n,
  size_t                  * nout,
  dart_group_t            * gout) DART_NOTHROW;

/* ---------------------------------------------------------------------
 * Predefined teams and null handles
 * ------------------------------------------------------------------ */

/* The team of all units (id 0). */
#define DART_TEAM_ALL   ((dart_team_t)0)
/* "No team" (id -1). */
#define DART_TEAM_NULL  ((dart_team_t)-1)
/* The null group handle. */
#define DART_GROUP_NULL ((struct dart_group_struct*)NULL)

/* ---------------------------------------------------------------------
 * Teams
 * ------------------------------------------------------------------ */

/*
 * Allocates a group holding the global ids of the members of `teamid`
 * (ascending, i.e. in team order).
 *   group  [out] the new group; null on error
 * Returns DART_OK; DART_ERR_INVAL for an unknown team or a caller that is
 * not a member.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_team_get_group(
  dart_team_t    teamid,
  dart_group_t * group) DART_NOTHROW;

/*
 * Creates a team with the members of `group` (a subset of the parent
 * team's members; all callers pass the same membership). Team-relative ids
 * follow ascending global ids. Callers outside the group, and all callers
 * for an empty group, receive DART_TEAM_NULL with DART_OK. The new team has
 * no locality data until dart_team_locality_init() is called.
 *   teamid   parent team
 *   group    members of the new team
 *   newteam  [out] id of the new team (>= 1), DART_TEAM_NULL for
 *            non-members and on error
 * Returns DART_OK; DART_ERR_INVAL for an unknown parent, a caller outside
 * the parent or members outside the parent; DART_ERR_OTHER on backend
 * failure.
 * Collective over all members of the parent team `teamid`.
 * Thread safety: NTS.
 */
dart_ret_t dart_team_create(
  dart_team_t          teamid,
  const dart_group_t   group,
  dart_team_t        * newteam) DART_NOTHROW;

/*
 * Destroys the team *teamid and sets *teamid to DART_TEAM_NULL
 * (DART_TEAM_NULL is a no-op). Must not be applied to DART_TEAM_ALL.
 * Segments still allocated on the team become invalid; locality data
 * must be released first with dart_team_locality_finalize().
 * Returns DART_OK; DART_ERR_INVAL for an unknown team.
 * Collective over all members of the team. Thread safety: NTS.
 */
dart_ret_t dart_team_destroy(
  dart_team_t * teamid) DART_NOTHROW;

/*
 * Creates a new team with the same members and order as `team`.
 *   newteam  [out] id of the new team
 * Returns as dart_team_create.
 * Collective over all members of `team`. Thread safety: NTS.
 */
dart_ret_t dart_team_clone(
  dart_team_t   team,
  dart_team_t * newteam) DART_NOTHROW;

/*
 * Stores the caller's team-relative id in *myid.
 * Returns DART_OK; DART_ERR_INVAL for DART_TEAM_NULL, an unknown team or a
 * non-member (myid->id is then DART_UNDEFINED_UNIT_ID).
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_team_myid(
  dart_team_t        teamid,
  dart_team_unit_t * myid) DART_NOTHROW;

/*
 * Stores the number of members of `teamid` in *size.
 * Returns DART_OK; DART_ERR_INVAL for DART_TEAM_NULL or an unknown team
 * (*size untouched).
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_team_size(
  dart_team_t   teamid,
  size_t      * size) DART_NOTHROW;

/*
 * Stores the caller's global unit id in *myid.
 * Returns DART_OK; DART_ERR_OTHER if DART is not initialised
 * (myid->id = -1).
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_myid(dart_global_unit_t *myid) DART_NOTHROW;

/*
 * Stores the number of units in DART_TEAM_ALL in *size.
 * Returns DART_OK; DART_ERR_OTHER if DART is not initialised (*size = 0).
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_size(size_t *size) DART_NOTHROW;

/*
 * Translates the team-relative id `localid` of `team` into a global id
 * (identity for DART_TEAM_ALL).
 *   globalid  [out] DART_UNDEFINED_GLOBAL_UNIT_ID on error
 * Returns DART_OK; DART_ERR_INVAL for a null output, an unknown team or
 * an id outside [0, size).
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_team_unit_l2g(
  dart_team_t          team,
  dart_team_unit_t     localid,
  dart_global_unit_t * globalid) DART_NOTHROW;

/*
 * Translates global id `globalid` into the team-relative id in `team`
 * (identity for DART_TEAM_ALL). For a non-member the result is DART_OK
 * with a negative id (DART_UNDEFINED_UNIT_ID recommended; test for < 0).
 *   localid  [out] the team-relative id
 * Returns DART_OK; DART_ERR_INVAL for a null output or an unknown team.
 * Not collective. Thread safety: NTS.
 */
dart_ret_t dart_team_unit_g2l(
  dart_team_t          team,
  dart_global_unit_t   globalid,
  dart_team_unit_t   * localid) DART_NOTHROW;

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_TEAM_GROUP_H_INCLUDED */
