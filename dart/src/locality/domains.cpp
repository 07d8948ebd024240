// Locality domain trees: building a team's tree from its units' hardware
// info, allocating, freeing and copying domains, and the queries
// (find, contains, scope_domains). The reshaping operations are in
// domain_edits.cpp; both work on the nodes of domain_nodes.hpp.
#include "locality/domains.hpp"

#include "core/error.hpp"
#include "locality/domain_nodes.hpp"

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

using namespace nodes;

namespace {

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

std::vector<dart_domain_locality_t*> scope_domains(const dart_domain_locality_t& root, dart_locality_scope_t scope) {
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

}  // namespace dart::locality
