// Locality domain trees (dart_domain_locality_t): building a team's tree
// from its members' hardware info, and the local operations of
// dart_locality.h on any tree (copy, find, select, exclude, group, ...).
//
// Trees are plain C structs because clients walk them directly. All their
// memory (domains, child arrays, unit lists, alias lists) comes from
// malloc, so that a domain made by dart_domain_create can be handed to a
// team's tree (dart_domain_add_subdomain) and freed with the rest of it.
//
// Conventions every function here keeps (spec 5.3, 5.6):
// - children[i]->parent == the domain and children[i]->relative_index == i;
// - the unit list of a domain with children is the concatenation of its
//   children's lists (leaves list the units bound to them);
// - a tag extends its parent's tag by one component, so "is an ancestor"
//   and "is a tag prefix, component-wise" agree. select and exclude never
//   retag (tags from before still name the same domains); domains that are
//   moved or grouped get fresh tags below their new parent.
// Failures throw dart::Error (core/error.hpp) and leave the tree unchanged,
// except where a function says otherwise.
#pragma once

#include <dash/dart/if/dart_types.h>

#include <string>
#include <vector>

namespace dart::locality {

// What one unit contributes to its team's tree: its hardware info and the
// node it runs on (node_key: the global id of some unit of its
// shared-memory node, the same for all units there).
struct UnitRecord {
  dart_hwinfo_t hwinfo;
  int node_key;
  int global_id;
};

// An empty domain as dart_domain_create defines it. Throws bad_alloc.
dart_domain_locality_t* new_domain();
// Frees children, unit list and alias list, leaving an empty domain.
void free_content(dart_domain_locality_t* d) noexcept;
// free_content and the object itself; nullptr is a no-op.
void free_domain(dart_domain_locality_t* d) noexcept;
// Deep copy into raw storage `dst` (whose old content is not read):
// children copied with their parent pointers retargeted, unit list copied,
// aliases dropped, dst.parent = nullptr (a copy is the root of a tree of
// its own, so no operation on it can reach into the original's tree).
void copy_into(dart_domain_locality_t& dst, const dart_domain_locality_t& src);
// copy_into a new allocation.
dart_domain_locality_t* clone_domain(const dart_domain_locality_t& src);

// The tree of team `team` whose members (index = team unit id) are
// `units`, and their unit table (spec 5.3, 5.5). Throws on tags longer than
// DART_LOCALITY_DOMAIN_TAG_MAX_SIZE - 1.
dart_domain_locality_t* build_tree(dart_team_t team, const std::vector<UnitRecord>& units,
                                   std::vector<dart_unit_locality_t>& table);

// The domain tagged `tag` in the subtree of `root` (root included), or
// nullptr.
dart_domain_locality_t* find(const dart_domain_locality_t& root, const char* tag);
// Whether `d` is a node of the tree below `root` (root included), found by
// following child pointers only.
bool contains(const dart_domain_locality_t& root, const dart_domain_locality_t* d);
// Domains of `scope` in the subtree of `root` (root included), depth-first
// pre-order, children in index order; a match's subtree is not searched.
std::vector<dart_domain_locality_t*> scope_domains(const dart_domain_locality_t& root, dart_locality_scope_t scope);

// In-place manipulation (spec 3.8, 5.6). Unknown tags: DART_ERR_NOTFOUND.
void select(dart_domain_locality_t& d, const std::vector<std::string>& tags);
void exclude(dart_domain_locality_t& d, const std::vector<std::string>& tags);
// Takes ownership of `sub` (unless it throws).
void add_subdomain(dart_domain_locality_t& parent, dart_domain_locality_t* sub, int pos);
void move_subdomain(dart_domain_locality_t& d, dart_domain_locality_t& new_parent, int pos);
// Returns the tag of the new group domain.
std::string group(dart_domain_locality_t& d, const std::vector<std::string>& tags);
// Fills out[0 .. parts-1] (raw client storage).
void split_scope(const dart_domain_locality_t& d, dart_locality_scope_t scope, int parts, dart_domain_locality_t* out);

// Sizes of `parts` consecutive blocks of `k` items: as equal as possible,
// larger blocks first (each at most ceil(k / parts)); blocks beyond k are
// empty.
std::vector<int> block_sizes(int k, int parts);

}  // namespace dart::locality
