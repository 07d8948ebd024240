/*
 * dart_locality.h -- locality queries and domain manipulation.
 *
 * Each team can own a tree of locality domains (dart_domain_locality_t,
 * defined in dart_types.h) describing the nodes, modules, NUMA domains,
 * caches and cores its units run on, plus one dart_unit_locality_t per
 * member. This header declares the collective set-up / release of that
 * data and local functions to query, copy and reshape domain trees. Not
 * included by dart.h.
 *
 * Ownership: a team's tree and unit table belong to DART and keep stable
 * addresses from dart_team_locality_init to dart_team_locality_finalize
 * (for DART_TEAM_ALL: from dart_init to dart_exit). Domains created by
 * dart_domain_create / dart_domain_clone belong to the client. Only
 * dart_team_locality_init communicates.
 */
#ifndef DART__LOCALITY_H_
#define DART__LOCALITY_H_

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/*
 * Gathers every member's hardware information and builds the team's
 * domain tree and unit table. Required before other locality calls on a
 * team other than DART_TEAM_ALL; calling it twice for a team (including
 * DART_TEAM_ALL) is erroneous.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team; other codes on
 * backend failure.
 * Collective over all members of `team`. Thread safety: NTS.
 */
dart_ret_t dart_team_locality_init(
  dart_team_t                     team)                 DART_NOTHROW;

/*
 * Releases the team's locality data; all pointers obtained for it become
 * invalid. A team without locality data is a no-op.
 * Returns DART_OK; DART_ERR_INVAL for an unknown team.
 * Called by all members of `team` (no communication). Thread safety: NTS.
 */
dart_ret_t dart_team_locality_finalize(
  dart_team_t                     team)                 DART_NOTHROW;

/*
 * Looks up the domain tagged `domain_tag` ("." for the root) in the tree
 * of `team`.
 *   team_domain_out  [out] DART-owned domain; NULL if not found
 * Returns DART_OK; DART_ERR_NOTFOUND for a missing tag; DART_ERR_INVAL
 * (recommended) for a team without locality data.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_team_locality(
  dart_team_t                     team,
  const char                    * domain_tag,
  dart_domain_locality_t       ** team_domain_out)      DART_NOTHROW;

/*
 * Allocates an empty, client-owned domain (empty strings, undefined
 * scope, no children or units, counts -1 or 0).
 *   domain_out  [out] the new domain
 * Returns DART_OK; DART_ERR_INVAL for a null output.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_create(
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

/*
 * Allocates a client-owned deep copy of `domain_in` (children and unit
 * lists copied, aliases dropped).
 *   domain_out  [out] the copy
 * Returns DART_OK; DART_ERR_INVAL for null arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_clone(
  const dart_domain_locality_t  * domain_in,
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

/*
 * Releases a client-owned domain with its subtree, unit and alias lists.
 * Must not be used on domains owned by a team tree or stored in client
 * memory. NULL should be a no-op.
 * Returns DART_OK.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_destroy(
  dart_domain_locality_t        * domain)               DART_NOTHROW;

/*
 * Releases the content of `domain_lhs` (keeping the object) and makes it
 * a deep copy of `domain_rhs`.
 * Returns DART_OK; DART_ERR_INVAL for null arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_assign(
  dart_domain_locality_t        * domain_lhs,
  const dart_domain_locality_t  * domain_rhs)           DART_NOTHROW;

/*
 * Searches the subtree of `domain_in` (including itself) for
 * `domain_tag`.
 *   subdomain_out  [out] pointer into the same tree; NULL if not found
 * Returns DART_OK; DART_ERR_NOTFOUND if there is no such domain.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_find(
  const dart_domain_locality_t  * domain_in,
  const char                    * domain_tag,
  dart_domain_locality_t       ** subdomain_out)        DART_NOTHROW;

/*
 * Prunes `domain_in` in place to the listed domains and the domains on
 * the paths to them; unit lists and counts are recomputed.
 * Returns DART_OK; DART_ERR_INVAL or DART_ERR_NOTFOUND for invalid
 * arguments or unknown tags.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_select(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

/*
 * Removes the listed domains and their subtrees from `domain_in` in
 * place; unit lists and counts of the remaining domains are recomputed.
 * Returns DART_OK; DART_ERR_INVAL or DART_ERR_NOTFOUND for invalid
 * arguments or unknown tags.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_exclude(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

/*
 * Inserts `subdomain` as child of `domain` at position
 * `subdomain_rel_id` (negative: append); the hierarchy takes ownership
 * of it. Retagging of the inserted subtree is implementation-defined.
 * Returns DART_OK; DART_ERR_INVAL for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_add_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * subdomain,
  int                             subdomain_rel_id)     DART_NOTHROW;

/*
 * Detaches `domain` from its parent and inserts it under
 * `new_parent_domain` (same tree) at position `new_domain_rel_id`.
 * Returns DART_OK; DART_ERR_INVAL for invalid arguments.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_move_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * new_parent_domain,
  int                             new_domain_rel_id)    DART_NOTHROW;

/*
 * Partitions the domains of `scope` below `domain_in`, in order, into
 * `num_parts` groups of consecutive domains; part p becomes a copy of
 * `domain_in` pruned to group p.
 *   split_domain_out  caller-provided array of num_parts structs; their
 *                     children and unit arrays are heap memory
 * Returns DART_OK; DART_ERR_NOTFOUND or DART_ERR_INVAL if there are no
 * domains at `scope` or arguments are invalid.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_split_scope(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                             num_parts,
  dart_domain_locality_t        * split_domain_out)     DART_NOTHROW;

/*
 * Returns the tags of all domains of `scope` in the subtree of
 * `domain_in` (order as dart_domain_scope_domains).
 *   num_domains_out  [out] number of tags (0 if none)
 *   domain_tags_out  [out] malloc'ed array of malloc'ed strings (NULL if
 *                    none); the caller free()s each string and the array
 * Returns DART_OK; DART_ERR_NOTFOUND if there is no such domain.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_scope_tags(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  char                        *** domain_tags_out)      DART_NOTHROW;

/*
 * Returns pointers to all domains of `scope` in the subtree of
 * `domain_in`, in depth-first pre-order (children in index order; the
 * subtree of a match is not searched further).
 *   num_domains_out  [out] number of domains (0 if none)
 *   domains_out      [out] malloc'ed array of pointers into the tree (NULL
 *                    if none); the caller free()s only the array
 * Returns DART_OK; DART_ERR_NOTFOUND if there is no such domain.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_scope_domains(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  dart_domain_locality_t      *** domains_out)          DART_NOTHROW;

/*
 * Groups the listed domains of the tree `domain_in` into a new domain of
 * scope DART_LOCALITY_SCOPE_GROUP below their lowest common ancestor.
 *   group_domain_tag_out  [out] tag of the new domain; room for
 *                         DART_LOCALITY_DOMAIN_TAG_MAX_SIZE chars
 * Returns DART_OK; DART_ERR_INVAL if num_group_subdomains < 1;
 * DART_ERR_NOTFOUND for an unknown tag.
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_domain_group(
  dart_domain_locality_t        * domain_in,
  int                             num_group_subdomains,
  const char                   ** group_subdomain_tags,
  char                          * group_domain_tag_out) DART_NOTHROW;

/*
 * Looks up the locality of team-relative `unit` in `team`.
 *   loc  [out] DART-owned entry; NULL on error
 * Returns DART_OK; DART_ERR_INVAL for a unit outside [0, size) (also
 * recommended for a team without locality data).
 * Not collective. Thread safety: TS.
 */
dart_ret_t dart_unit_locality(
  dart_team_t                     team,
  dart_team_unit_t                unit,
  dart_unit_locality_t         ** loc)                  DART_NOTHROW;

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__LOCALITY_H_ */
