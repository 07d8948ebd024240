// The nodes of locality domain trees: tags, children, unit lists, paths
// and pruning, on dart_domain_locality_t as the public header defines it.
// domains.cpp builds and copies trees with these, domain_edits.cpp
// reshapes them (select, exclude, move, group, split).
#pragma once

#include <dash/dart/if/dart_locality.h>

#include "locality/domains.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace dart::locality::nodes {

using Domain = dart_domain_locality_t;

using DomainSet = std::unordered_set<const Domain*>;

constexpr std::size_t kMaxTag = DART_LOCALITY_DOMAIN_TAG_MAX_SIZE - 1;

template <class T>
T* alloc_array(std::size_t n) {
  if (n == 0) return nullptr;
  void* p = std::malloc(n * sizeof(T));
  if (!p) throw std::bad_alloc();
  return static_cast<T*>(p);
}

// A tag as stored: NUL-terminated within its buffer (a client's struct is
// not trusted to be).
std::string_view tag_view(const Domain& d);

std::string tag_of(const Domain& d);

void set_tag(Domain& d, const std::string& tag);

std::string child_tag(std::string_view parent, int index);

// Component-wise (spec 5.6): ".0.1.3" and ".0.1" are within ".0.1",
// ".0.10" is not. Every tag is within the root ".".
bool is_within(std::string_view tag, std::string_view ancestor);

// Trees reach us from clients; refuse shapes that would make us read
// through null pointers.
void check_shape(const Domain& d);

int unit_count(const Domain& d);

void init_empty(Domain& d);

// Owns a domain until released.
class Owned {
 public:
  explicit Owned(Domain* d) : d_(d) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { free_domain(d_); }
  Domain* get() const { return d_; }
  Domain* operator->() const { return d_; }
  Domain* release() { return std::exchange(d_, nullptr); }

 private:
  Domain* d_;
};

// Domains built but not yet attached to a parent; freed unless released.
struct Pending {
  std::vector<Domain*> v;
  Pending() = default;
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  ~Pending() {
    for (Domain* d : v) free_domain(d);
  }
  std::vector<Domain*> release() { return std::exchange(v, {}); }
};

// Child arrays are replaced in two steps so that every allocation of an
// operation can happen before its first change to the tree.
Domain** make_child_array(const std::vector<Domain*>& kids);

void install_children(Domain& d, Domain** arr, std::size_t n) noexcept;

void set_children(Domain& d, const std::vector<Domain*>& kids);

std::vector<Domain*> children_of(const Domain& d);

void set_units(Domain& d, const std::vector<int>& ids);

// Rule 4 of spec 5.3: a domain with children lists their units, in child
// order. Domains at CORE scope or finer keep the units bound to them even
// if a client hangs domains below them (as DASH does).
void units_from_children(Domain& d);

// Sets is_symmetric in the whole subtree (1: all children have the same
// shape: scopes, unit counts and children, recursively) and returns the
// subtree's shape.
std::string update_symmetry(Domain& d);

Domain& top_of(Domain& d);

// After the children of `d` changed: unit lists of `d` and its ancestors,
// and the symmetry flags of the whole tree.
void refresh_from(Domain& d);

// The path root -> ... -> domain tagged `tag`, or empty. Tags normally
// follow the tree (a tag extends its parent's), which lets the search walk
// straight down; a client-built tree that does not is searched
// exhaustively.
bool path_to(Domain* d, std::string_view tag, bool guided, std::vector<Domain*>& path);

std::vector<Domain*> find_path(const Domain& root, std::string_view tag);

// Paths to every listed domain; DART_ERR_NOTFOUND names a missing tag.
std::vector<std::vector<Domain*>> find_paths(const Domain& d, const std::vector<std::string>& tags);

void check_retag(const Domain& d, const std::string& tag);

// Gives a moved subtree the tags of its new place: `tag` for `d`, and
// parent tag + "." + position below. check_retag first.
void retag(Domain& d, const std::string& tag, int level, dart_team_t team);

// Index for a new child's tag: one more than the last component of any
// child's tag, so it collides with no tag in use even after exclude left
// gaps (the spec's "last index used + 1" of dart_domain_group).
int next_child_index(const Domain& parent, const Domain* ignore = nullptr);

void remove_child_in_place(Domain& parent, const Domain* child) noexcept;

// select/exclude: `listed` are the listed domains, `on_path` their
// ancestors within the domain operated on.
void prune_select(Domain& d, const DomainSet& listed, const DomainSet& on_path);

void prune_exclude(Domain& d, const DomainSet& listed, const DomainSet& on_path);

void mark(const std::vector<std::vector<Domain*>>& paths, DomainSet& listed, DomainSet& on_path);

}  // namespace dart::locality::nodes
