#include "locality/domains.hpp"

#include "core/error.hpp"

#include <dash/dart/if/dart_team_group.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace dart::locality {

namespace {

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
std::string_view tag_view(const Domain& d) {
  return {d.domain_tag, strnlen(d.domain_tag, sizeof d.domain_tag)};
}
std::string tag_of(const Domain& d) { return std::string(tag_view(d)); }

void set_tag(Domain& d, const std::string& tag) {
  if (tag.size() > kMaxTag)
    fail(DART_ERR_OTHER, "domain tag " + tag + " would be longer than " + std::to_string(kMaxTag) + " characters");
  std::memcpy(d.domain_tag, tag.c_str(), tag.size() + 1);
}

std::string child_tag(std::string_view parent, int index) {
  std::string t(parent);
  if (t != ".") t += '.';
  return t + std::to_string(index);
}

// Component-wise (spec 5.6): ".0.1.3" and ".0.1" are within ".0.1",
// ".0.10" is not. Every tag is within the root ".".
bool is_within(std::string_view tag, std::string_view ancestor) {
  if (ancestor == ".") return !tag.empty() && tag[0] == '.';
  return tag.size() >= ancestor.size() && tag.compare(0, ancestor.size(), ancestor) == 0 &&
         (tag.size() == ancestor.size() || tag[ancestor.size()] == '.');
}

// Trees reach us from clients; refuse shapes that would make us read
// through null pointers.
void check_shape(const Domain& d) {
  if (d.num_domains < 0 || (d.num_domains > 0 && !d.children))
    invalid("domain '" + tag_of(d) + "' is malformed: num_domains = " + std::to_string(d.num_domains) +
            " with children " + (d.children ? "set" : "NULL"));
  for (int i = 0; i < d.num_domains; ++i)
    if (!d.children[i]) invalid("domain '" + tag_of(d) + "' has a NULL child " + std::to_string(i));
  if (d.num_units > 0 && !d.unit_ids)
    invalid("domain '" + tag_of(d) + "' is malformed: num_units = " + std::to_string(d.num_units) +
            " with unit_ids NULL");
}

int unit_count(const Domain& d) { return std::max(0, d.num_units); }

void init_empty(Domain& d) {
  std::memset(&d, 0, sizeof d);
  d.scope = DART_LOCALITY_SCOPE_UNDEFINED;
  d.global_index = -1;
  d.team = DART_TEAM_NULL;
  d.num_units = -1;
  d.num_nodes = -1;
  d.node_id = -1;
  d.num_cores = -1;
  d.shared_mem_bytes = -1;
}

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
Domain** make_child_array(const std::vector<Domain*>& kids) {
  Domain** arr = alloc_array<Domain*>(kids.size());
  std::copy(kids.begin(), kids.end(), arr);
  return arr;
}
void install_children(Domain& d, Domain** arr, std::size_t n) noexcept {
  std::free(d.children);
  d.children = arr;
  d.num_domains = static_cast<int>(n);
  for (std::size_t i = 0; i < n; ++i) {
    arr[i]->parent = &d;
    arr[i]->relative_index = static_cast<int>(i);
  }
}
void set_children(Domain& d, const std::vector<Domain*>& kids) {
  install_children(d, make_child_array(kids), kids.size());
}

std::vector<Domain*> children_of(const Domain& d) {
  check_shape(d);
  return std::vector<Domain*>(d.children, d.children + d.num_domains);
}

void set_units(Domain& d, const std::vector<int>& ids) {
  auto* arr = alloc_array<dart_global_unit_t>(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) arr[i].id = ids[i];
  std::free(d.unit_ids);
  d.unit_ids = arr;
  d.num_units = static_cast<int>(ids.size());
}

// Rule 4 of spec 5.3: a domain with children lists their units, in child
// order. Domains at CORE scope or finer keep the units bound to them even
// if a client hangs domains below them (as DASH does).
void units_from_children(Domain& d) {
  if (d.scope >= DART_LOCALITY_SCOPE_CORE) return;
  std::vector<int> ids;
  for (int i = 0; i < d.num_domains; ++i) {
    const Domain& c = *d.children[i];
    for (int u = 0; u < unit_count(c); ++u) ids.push_back(c.unit_ids[u].id);
  }
  set_units(d, ids);
}

// Sets is_symmetric in the whole subtree (1: all children have the same
// shape: scopes, unit counts and children, recursively) and returns the
// subtree's shape.
std::string update_symmetry(Domain& d) {
  std::string shape = std::to_string(d.scope) + ':' + std::to_string(unit_count(d)) + '(';
  std::string first;
  bool same = true;
  for (int i = 0; i < d.num_domains; ++i) {
    std::string s = update_symmetry(*d.children[i]);
    if (i == 0) first = s;
    else if (s != first) same = false;
    shape += s;
    shape += ',';
  }
  d.is_symmetric = same ? 1 : 0;
  return shape + ')';
}

Domain& top_of(Domain& d) {
  Domain* p = &d;
  while (p->parent) p = p->parent;
  return *p;
}

// After the children of `d` changed: unit lists of `d` and its ancestors,
// and the symmetry flags of the whole tree.
void refresh_from(Domain& d) {
  for (Domain* p = &d; p; p = p->parent) units_from_children(*p);
  update_symmetry(top_of(d));
}

// The path root -> ... -> domain tagged `tag`, or empty. Tags normally
// follow the tree (a tag extends its parent's), which lets the search walk
// straight down; a client-built tree that does not is searched
// exhaustively.
bool path_to(Domain* d, std::string_view tag, bool guided, std::vector<Domain*>& path) {
  path.push_back(d);
  if (tag_view(*d) == tag) return true;
  check_shape(*d);
  for (int i = 0; i < d->num_domains; ++i) {
    Domain* c = d->children[i];
    if (guided && !is_within(tag, tag_view(*c))) continue;
    if (path_to(c, tag, guided, path)) return true;
  }
  path.pop_back();
  return false;
}

std::vector<Domain*> find_path(const Domain& root, std::string_view tag) {
  std::vector<Domain*> path;
  if (tag.empty() || tag.size() > kMaxTag) return path;
  auto* r = const_cast<Domain*>(&root);
  if (path_to(r, tag, true, path)) return path;
  path.clear();
  if (path_to(r, tag, false, path)) return path;
  path.clear();
  return path;
}

// Paths to every listed domain; DART_ERR_NOTFOUND names a missing tag.
std::vector<std::vector<Domain*>> find_paths(const Domain& d, const std::vector<std::string>& tags) {
  std::vector<std::vector<Domain*>> paths;
  for (const auto& t : tags) {
    auto p = find_path(d, t);
    if (p.empty()) fail(DART_ERR_NOTFOUND, "no domain '" + t + "' below domain '" + tag_of(d) + "'");
    paths.push_back(std::move(p));
  }
  return paths;
}

void check_retag(const Domain& d, const std::string& tag) {
  if (tag.size() > kMaxTag)
    fail(DART_ERR_OTHER, "domain tag " + tag + " would be longer than " + std::to_string(kMaxTag) + " characters");
  check_shape(d);
  for (int i = 0; i < d.num_domains; ++i) check_retag(*d.children[i], child_tag(tag, i));
}

// Gives a moved subtree the tags of its new place: `tag` for `d`, and
// parent tag + "." + position below. check_retag first.
void retag(Domain& d, const std::string& tag, int level, dart_team_t team) {
  set_tag(d, tag);
  d.level = level;
  d.team = team;
  for (int i = 0; i < d.num_domains; ++i) {
    Domain& c = *d.children[i];
    c.parent = &d;
    c.relative_index = i;
    retag(c, child_tag(tag, i), level + 1, team);
  }
}

// Index for a new child's tag: one more than the last component of any
// child's tag, so it collides with no tag in use even after exclude left
// gaps (the spec's "last index used + 1" of dart_domain_group).
int next_child_index(const Domain& parent, const Domain* ignore = nullptr) {
  int next = 0;
  for (int i = 0; i < parent.num_domains; ++i) {
    const Domain* c = parent.children[i];
    if (c == ignore) continue;
    const std::string_view t = tag_view(*c);
    const auto dot = t.rfind('.');
    const std::string_view last = dot == std::string_view::npos ? t : t.substr(dot + 1);
    if (last.empty() || last.size() > 9 ||
        !std::all_of(last.begin(), last.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      continue;
    next = std::max(next, std::stoi(std::string(last)) + 1);
  }
  return next;
}

void remove_child_in_place(Domain& parent, const Domain* child) noexcept {
  int j = 0;
  for (int i = 0; i < parent.num_domains; ++i)
    if (parent.children[i] != child) parent.children[j++] = parent.children[i];
  parent.num_domains = j;
  for (int i = 0; i < j; ++i) parent.children[i]->relative_index = i;
  if (j == 0) {
    std::free(parent.children);
    parent.children = nullptr;
  }
}

// select/exclude: `listed` are the listed domains, `on_path` their
// ancestors within the domain operated on.
void prune_select(Domain& d, const DomainSet& listed, const DomainSet& on_path) {
  std::vector<Domain*> keep;
  std::vector<Domain*> drop;
  for (Domain* c : children_of(d)) {
    if (listed.count(c)) keep.push_back(c);
    else if (on_path.count(c)) {
      prune_select(*c, listed, on_path);
      keep.push_back(c);
    } else {
      drop.push_back(c);
    }
  }
  Domain** arr = make_child_array(keep);
  for (Domain* c : drop) free_domain(c);
  install_children(d, arr, keep.size());
  units_from_children(d);
}

void prune_exclude(Domain& d, const DomainSet& listed, const DomainSet& on_path) {
  std::vector<Domain*> keep;
  std::vector<Domain*> drop;
  for (Domain* c : children_of(d)) {
    if (listed.count(c)) drop.push_back(c);
    else {
      if (on_path.count(c)) prune_exclude(*c, listed, on_path);
      keep.push_back(c);
    }
  }
  Domain** arr = make_child_array(keep);
  for (Domain* c : drop) free_domain(c);
  install_children(d, arr, keep.size());
  units_from_children(d);
}

void mark(const std::vector<std::vector<Domain*>>& paths, DomainSet& listed, DomainSet& on_path) {
  for (const auto& p : paths) {
    listed.insert(p.back());
    on_path.insert(p.begin(), p.end() - 1);
  }
}

// ---- building a team's tree ---------------------------------------------

// Entry k of a unit's scope list counted from the outermost; past the end
// (or for a list that is malformed) the unit's core.
dart_locality_scope_pos_t chain_entry(const dart_hwinfo_t& hw, int k) {
  int n = hw.num_scopes;
  if (n < 1 || n > DART_LOCALITY_MAX_DOMAIN_SCOPES) n = 0;
  if (k < n) return hw.scopes[n - 1 - k];
  return {DART_LOCALITY_SCOPE_CORE, hw.core_id >= 0 ? hw.core_id : hw.cpu_id};
}

class TreeBuilder {
 public:
  TreeBuilder(dart_team_t team, const std::vector<UnitRecord>& recs)
      : team_(team), recs_(recs), leaf_of_(recs.size(), nullptr) {}

  Domain* build() {
    const int n = static_cast<int>(recs_.size());
    Owned root(new_domain());
    set_tag(*root.get(), ".");
    root->scope = DART_LOCALITY_SCOPE_GLOBAL;
    root->global_index = 0;
    root->team = team_;
    root->shared_mem_bytes = 0;

    // Level 1: one NODE per shared-memory node, ordered by host name (ties
    // by node key, e.g. containers with the same name on two machines).
    std::map<int, std::vector<int>> by_node;
    for (int u = 0; u < n; ++u) by_node[recs_[static_cast<std::size_t>(u)].node_key].push_back(u);
    std::vector<std::pair<std::string, int>> order;
    for (const auto& [key, units] : by_node) order.emplace_back(host_of(units.front()), key);
    std::sort(order.begin(), order.end());

    Pending nodes;
    int cores = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::vector<int>& units = by_node[order[i].second];
      const int index = static_cast<int>(i);
      Domain* node = new_domain();
      nodes.v.push_back(node);
      describe(*node, *root.get(), index, DART_LOCALITY_SCOPE_NODE, index);
      std::snprintf(node->host, sizeof node->host, "%s", order[i].first.c_str());
      node->node_id = index;

      // Level 2: the node's one MODULE (the host itself; attached
      // processing modules with host names of their own no longer exist).
      Pending modules;
      Domain* module = new_domain();
      modules.v.push_back(module);
      describe(*module, *node, 0, DART_LOCALITY_SCOPE_MODULE, 0);
      module->num_cores = std::max(1, recs_[static_cast<std::size_t>(units.front())].hwinfo.num_cores);
      build_below(*module, units, 0);
      set_children(*node, modules.v);
      modules.release();
      units_from_children(*node);
      node->num_cores = module->num_cores;
      cores += node->num_cores;
    }
    set_children(*root.get(), nodes.v);
    nodes.release();
    root->num_nodes = static_cast<int>(order.size());
    root->num_cores = cores;
    // Rule 1: the root lists the members in team order.
    std::vector<int> all;
    for (const auto& r : recs_) all.push_back(r.global_id);
    set_units(*root.get(), all);
    update_symmetry(*root.get());
    return root.release();
  }

  // Unit table (spec 5.5), after build().
  std::vector<dart_unit_locality_t> table() const {
    std::vector<dart_unit_locality_t> out(recs_.size());
    for (std::size_t u = 0; u < recs_.size(); ++u) {
      dart_unit_locality_t& ul = out[u];
      const Domain& leaf = *leaf_of_[u];
      ul.unit.id = static_cast<dart_unit_t>(u);
      ul.team = team_;
      ul.hwinfo = recs_[u].hwinfo;
      // The cores attributed to the unit: its leaf's share.
      ul.hwinfo.num_cores = std::max(1, leaf.num_cores / std::max(1, unit_count(leaf)));
      std::memcpy(ul.domain_tag, leaf.domain_tag, sizeof ul.domain_tag);
    }
    return out;
  }

 private:
  std::string host_of(int unit) const {
    const auto& h = recs_[static_cast<std::size_t>(unit)].hwinfo.host;
    return std::string(h, strnlen(h, sizeof h));
  }

  void describe(Domain& c, const Domain& parent, int pos, dart_locality_scope_t scope, int global_index) {
    std::memcpy(c.host, parent.host, sizeof c.host);
    set_tag(c, child_tag(tag_view(parent), pos));
    c.scope = scope;
    c.level = parent.level + 1;
    c.global_index = global_index;
    c.relative_index = pos;
    c.team = team_;
    c.node_id = parent.node_id;
  }

  // Levels 3 ...: one per entry of the units' scope lists, outermost first,
  // a domain per distinct (index, scope) among the parent's units, ordered
  // by hardware index; the CORE level holds the units.
  void build_below(Domain& parent, const std::vector<int>& units, int k) {
    if (parent.scope >= DART_LOCALITY_SCOPE_CORE) {
      std::vector<int> ids;
      for (int u : units) {
        ids.push_back(recs_[static_cast<std::size_t>(u)].global_id);
        leaf_of_[static_cast<std::size_t>(u)] = &parent;
      }
      set_units(parent, ids);
      return;
    }
    std::map<std::pair<int, int>, std::vector<int>> groups;
    for (int u : units) {
      const auto e = chain_entry(recs_[static_cast<std::size_t>(u)].hwinfo, k);
      groups[{e.index, static_cast<int>(e.scope)}].push_back(u);
    }
    Pending kids;
    int pos = 0;
    for (const auto& [key, members] : groups) {
      Domain* c = new_domain();
      kids.v.push_back(c);
      describe(*c, parent, pos++, static_cast<dart_locality_scope_t>(key.second), key.first);
      // The parent's cores shared out in proportion to units (spec 5.3),
      // multiplied first so that oversubscribed nodes do not round to 0.
      const long long share = static_cast<long long>(parent.num_cores) * static_cast<long long>(members.size()) /
                              static_cast<long long>(units.size());
      c->num_cores = static_cast<int>(std::max(1LL, share));
      build_below(*c, members, k + 1);
    }
    set_children(parent, kids.v);
    kids.release();
    units_from_children(parent);
  }

  dart_team_t team_;
  const std::vector<UnitRecord>& recs_;
  std::vector<Domain*> leaf_of_;
};

}  // namespace

// ---- allocation and copies ------------------------------------------------

dart_domain_locality_t* new_domain() {
  auto* d = static_cast<Domain*>(std::malloc(sizeof(Domain)));
  if (!d) throw std::bad_alloc();
  init_empty(*d);
  return d;
}

void free_content(dart_domain_locality_t* d) noexcept {
  if (!d) return;
  if (d->children)
    for (int i = 0; i < d->num_domains; ++i) free_domain(d->children[i]);
  std::free(d->children);
  std::free(d->unit_ids);
  std::free(d->aliases);
  d->children = nullptr;
  d->num_domains = 0;
  d->unit_ids = nullptr;
  d->num_units = 0;
  d->aliases = nullptr;
  d->num_aliases = 0;
}

void free_domain(dart_domain_locality_t* d) noexcept {
  if (!d) return;
  free_content(d);
  std::free(d);
}

void copy_into(dart_domain_locality_t& dst, const dart_domain_locality_t& src) {
  check_shape(src);
  std::memcpy(&dst, &src, sizeof dst);
  dst.parent = nullptr;
  dst.aliases = nullptr;
  dst.num_aliases = 0;
  dst.children = nullptr;
  dst.num_domains = 0;
  dst.unit_ids = nullptr;
  try {
    if (src.num_units > 0) {
      dst.unit_ids = alloc_array<dart_global_unit_t>(static_cast<std::size_t>(src.num_units));
      std::memcpy(dst.unit_ids, src.unit_ids, sizeof(dart_global_unit_t) * static_cast<std::size_t>(src.num_units));
    }
    Pending kids;
    for (int i = 0; i < src.num_domains; ++i) kids.v.push_back(clone_domain(*src.children[i]));
    set_children(dst, kids.v);
    kids.release();
  } catch (...) {
    free_content(&dst);
    dst.num_units = src.num_units > 0 ? 0 : src.num_units;
    throw;
  }
}

dart_domain_locality_t* clone_domain(const dart_domain_locality_t& src) {
  auto* d = static_cast<Domain*>(std::malloc(sizeof(Domain)));
  if (!d) throw std::bad_alloc();
  try {
    copy_into(*d, src);
  } catch (...) {
    std::free(d);
    throw;
  }
  return d;
}

dart_domain_locality_t* build_tree(dart_team_t team, const std::vector<UnitRecord>& units,
                                   std::vector<dart_unit_locality_t>& table) {
  TreeBuilder b(team, units);
  Owned root(b.build());
  table = b.table();
  return root.release();
}

// ---- queries --------------------------------------------------------------

dart_domain_locality_t* find(const dart_domain_locality_t& root, const char* tag) {
  const auto path = find_path(root, std::string_view(tag, strnlen(tag, kMaxTag + 1)));
  return path.empty() ? nullptr : path.back();
}

bool contains(const dart_domain_locality_t& root, const dart_domain_locality_t* d) {
  if (&root == d) return true;
  check_shape(root);
  for (int i = 0; i < root.num_domains; ++i)
    if (contains(*root.children[i], d)) return true;
  return false;
}

std::vector<dart_domain_locality_t*> scope_domains(const dart_domain_locality_t& root,
                                                   dart_locality_scope_t scope) {
  std::vector<Domain*> out;
  struct Walk {
    dart_locality_scope_t scope;
    std::vector<Domain*>& out;
    void operator()(const Domain& d) {
      if (d.scope == scope) {
        out.push_back(const_cast<Domain*>(&d));
        return;
      }
      check_shape(d);
      for (int i = 0; i < d.num_domains; ++i) (*this)(*d.children[i]);
    }
  };
  Walk{scope, out}(root);
  return out;
}

// ---- manipulation -----------------------------------------------------------

// Keeps the listed domains with their complete subtrees (spec 5.6 allows
// it and recommends it: parts of dart_domain_split_scope keep their units)
// and the domains on the paths to them. Tags are not changed, so they still
// name the same domains of the tree the client copied.
void select(dart_domain_locality_t& d, const std::vector<std::string>& tags) {
  const auto paths = find_paths(d, tags);
  DomainSet listed, on_path;
  mark(paths, listed, on_path);
  if (listed.count(&d)) return;
  prune_select(d, listed, on_path);
  refresh_from(d);
}

void exclude(dart_domain_locality_t& d, const std::vector<std::string>& tags) {
  const auto paths = find_paths(d, tags);
  DomainSet listed, on_path;
  mark(paths, listed, on_path);
  if (listed.count(&d)) invalid("domain '" + tag_of(d) + "' cannot exclude itself");
  if (listed.empty()) return;
  prune_exclude(d, listed, on_path);
  refresh_from(d);
}

// Inserted subtrees are retagged (the header's promise; DASH only inserts
// the pointer): the subdomain gets parent tag + "." + (last index in use +
// 1), which keeps every existing tag valid and unique, and its descendants
// get tags by position below it. Its units join the ancestors' lists.
void add_subdomain(dart_domain_locality_t& parent, dart_domain_locality_t* sub, int pos) {
  if (sub == &parent) invalid("a domain cannot be its own subdomain");
  check_shape(parent);
  if (contains(*sub, &parent)) invalid("domain '" + tag_of(parent) + "' lies inside the subdomain to add");
  if (contains(top_of(parent), sub))
    invalid("domain '" + tag_of(*sub) + "' is already part of the hierarchy (dart_domain_move_subdomain moves it)");
  if (pos > parent.num_domains)
    invalid("position " + std::to_string(pos) + " is beyond the " + std::to_string(parent.num_domains) +
            " subdomains of '" + tag_of(parent) + "'");
  if (pos < 0) pos = parent.num_domains;
  const std::string tag = child_tag(tag_view(parent), next_child_index(parent));
  check_retag(*sub, tag);
  std::vector<Domain*> kids = children_of(parent);
  kids.insert(kids.begin() + pos, sub);
  Domain** arr = make_child_array(kids);
  install_children(parent, arr, kids.size());
  retag(*sub, tag, parent.level + 1, parent.team);
  refresh_from(parent);
}

void move_subdomain(dart_domain_locality_t& d, dart_domain_locality_t& new_parent, int pos) {
  Domain* old = d.parent;
  if (!old) invalid("domain '" + tag_of(d) + "' has no parent to be moved from");
  const auto old_kids = children_of(*old);
  if (std::find(old_kids.begin(), old_kids.end(), &d) == old_kids.end())
    invalid("domain '" + tag_of(d) + "' is not a child of its parent '" + tag_of(*old) + "'");
  if (contains(d, &new_parent))
    invalid("new parent '" + tag_of(new_parent) + "' lies inside domain '" + tag_of(d) + "'");
  if (&top_of(*old) != &top_of(new_parent))
    invalid("domain '" + tag_of(d) + "' and new parent '" + tag_of(new_parent) + "' are in different hierarchies");

  std::vector<Domain*> remaining;
  for (Domain* c : old_kids)
    if (c != &d) remaining.push_back(c);
  std::vector<Domain*> target = old == &new_parent ? remaining : children_of(new_parent);
  if (pos > static_cast<int>(target.size()))
    invalid("position " + std::to_string(pos) + " is beyond the " + std::to_string(target.size()) +
            " subdomains of '" + tag_of(new_parent) + "'");
  if (pos < 0) pos = static_cast<int>(target.size());
  const std::string tag = child_tag(tag_view(new_parent), next_child_index(new_parent, &d));
  check_retag(d, tag);
  target.insert(target.begin() + pos, &d);

  Domain** target_arr = make_child_array(target);
  Domain** old_arr = nullptr;
  if (old != &new_parent) {
    try {
      old_arr = make_child_array(remaining);
    } catch (...) {
      std::free(target_arr);
      throw;
    }
    install_children(*old, old_arr, remaining.size());
  }
  install_children(new_parent, target_arr, target.size());
  retag(d, tag, new_parent.level + 1, new_parent.team);
  for (Domain* p = old; p; p = p->parent) units_from_children(*p);
  refresh_from(new_parent);
}

std::string group(dart_domain_locality_t& d, const std::vector<std::string>& tags) {
  const auto paths = find_paths(d, tags);
  DomainSet seen;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].size() < 2) invalid("domain '" + tags[i] + "' is the domain to group in, not a subdomain of it");
    if (!seen.insert(paths[i].back()).second) invalid("domain '" + tags[i] + "' is listed twice");
  }
  for (std::size_t i = 0; i < paths.size(); ++i)
    for (std::size_t j = 0; j < paths.size(); ++j)
      if (i != j && std::find(paths[j].begin(), paths[j].end() - 1, paths[i].back()) != paths[j].end() - 1)
        invalid("domain '" + tags[j] + "' lies inside listed domain '" + tags[i] + "'");

  // P: the lowest common ancestor, i.e. the deepest domain that every
  // listed domain's path passes through before its end.
  std::size_t depth = 0;  // index of P in every path
  for (;;) {
    const std::size_t next = depth + 1;
    bool common = true;
    for (const auto& p : paths)
      if (p.size() < next + 2 || p[next] != paths[0][next]) common = false;
    if (!common) break;
    depth = next;
  }
  Domain& P = *paths[0][depth];
  const bool siblings =
      std::all_of(paths.begin(), paths.end(), [&](const auto& p) { return p.size() == depth + 2; });
  const std::string gtag = child_tag(tag_view(P), next_child_index(P));

  Owned g(new_domain());
  std::memcpy(g->host, P.host, sizeof g->host);
  set_tag(*g.get(), gtag);
  g->scope = DART_LOCALITY_SCOPE_GROUP;
  g->level = P.level + 1;  // the reference gives P.level to non-sibling groups; we keep rule 2 of spec 5.3
  g->team = P.team;
  g->node_id = P.node_id;

  if (siblings) {
    // The listed children of P move into the group, in their order in P;
    // the group goes after all other children.
    std::vector<Domain*> members;
    std::vector<Domain*> rest;
    for (Domain* c : children_of(P)) (seen.count(c) ? members : rest).push_back(c);
    for (std::size_t j = 0; j < members.size(); ++j) check_retag(*members[j], child_tag(gtag, static_cast<int>(j)));
    rest.push_back(g.get());
    Domain** group_arr = make_child_array(members);
    Domain** parent_arr = nullptr;
    try {
      parent_arr = make_child_array(rest);
    } catch (...) {
      std::free(group_arr);
      throw;
    }
    int cores = 0;
    for (Domain* m : members) cores += std::max(0, m->num_cores);
    g->num_cores = cores;
    Domain* gp = g.release();
    install_children(*gp, group_arr, members.size());
    install_children(P, parent_arr, rest.size());
    retag(*gp, gtag, P.level + 1, P.team);
    units_from_children(*gp);
    refresh_from(P);
    return gtag;
  }

  // Cousins: the group holds copies of the children of P that lead to the
  // listed domains, pruned to them; the listed domains leave their places.
  // The group records P as its alias (spec 5.6).
  Pending copies;
  for (Domain* c : children_of(P)) {
    std::vector<std::string> below;
    for (std::size_t i = 0; i < paths.size(); ++i)
      if (paths[i][depth + 1] == c) below.push_back(tags[i]);
    if (below.empty()) continue;
    copies.v.push_back(clone_domain(*c));
    select(*copies.v.back(), below);
  }
  int cores = 0;
  for (std::size_t j = 0; j < copies.v.size(); ++j) {
    check_retag(*copies.v[j], child_tag(gtag, static_cast<int>(j)));
    cores += std::max(0, copies.v[j]->num_cores);
  }
  g->num_cores = cores;
  g->aliases = alloc_array<Domain*>(1);
  g->aliases[0] = &P;
  g->num_aliases = 1;
  std::vector<Domain*> pkids = children_of(P);
  pkids.push_back(g.get());
  Domain** group_arr = make_child_array(copies.v);
  Domain** parent_arr = nullptr;
  try {
    parent_arr = make_child_array(pkids);
  } catch (...) {
    std::free(group_arr);
    throw;
  }
  // From here on nothing allocates until the unit lists are rebuilt.
  for (const auto& p : paths) {
    remove_child_in_place(*p[p.size() - 2], p.back());
    free_domain(p.back());
  }
  for (const auto& p : paths)
    for (std::size_t k = p.size() - 1; k-- > depth + 1;) units_from_children(*p[k]);
  Domain* gp = g.release();
  install_children(*gp, group_arr, copies.v.size());
  copies.release();
  // P lost children when listed direct children of P left it.
  std::vector<Domain*> still;
  for (Domain* c : pkids)
    if (c == gp || std::find(P.children, P.children + P.num_domains, c) != P.children + P.num_domains)
      still.push_back(c);
  std::copy(still.begin(), still.end(), parent_arr);
  install_children(P, parent_arr, still.size());
  retag(*gp, gtag, P.level + 1, P.team);
  units_from_children(*gp);
  refresh_from(P);
  return gtag;
}

std::vector<int> block_sizes(int k, int parts) {
  std::vector<int> sizes(static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p) sizes[static_cast<std::size_t>(p)] = k / parts + (p < k % parts ? 1 : 0);
  return sizes;
}

void split_scope(const dart_domain_locality_t& d, dart_locality_scope_t scope, int parts,
                 dart_domain_locality_t* out) {
  const auto found = scope_domains(d, scope);
  if (found.empty())
    fail(DART_ERR_NOTFOUND, "no domain of scope " + std::to_string(scope) + " below domain '" + tag_of(d) + "'");
  std::vector<std::string> tags;
  for (const Domain* f : found) tags.push_back(tag_of(*f));
  const auto sizes = block_sizes(static_cast<int>(found.size()), parts);
  int done = 0;
  std::size_t first = 0;
  try {
    for (int p = 0; p < parts; ++p) {
      const std::size_t n = static_cast<std::size_t>(sizes[static_cast<std::size_t>(p)]);
      copy_into(out[p], d);
      ++done;
      select(out[p], std::vector<std::string>(tags.begin() + static_cast<long>(first),
                                              tags.begin() + static_cast<long>(first + n)));
      first += n;
    }
  } catch (...) {
    for (int p = 0; p < done; ++p) free_content(&out[p]);
    throw;
  }
}

}  // namespace dart::locality
