#include "locality/domain_nodes.hpp"

#include "core/error.hpp"

#include <dash/dart/if/dart_team_group.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace dart::locality::nodes {

std::string_view tag_view(const Domain& d) { return {d.domain_tag, strnlen(d.domain_tag, sizeof d.domain_tag)}; }

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

bool is_within(std::string_view tag, std::string_view ancestor) {
  if (ancestor == ".") return !tag.empty() && tag[0] == '.';
  return tag.size() >= ancestor.size() && tag.compare(0, ancestor.size(), ancestor) == 0 &&
         (tag.size() == ancestor.size() || tag[ancestor.size()] == '.');
}

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

void units_from_children(Domain& d) {
  if (d.scope >= DART_LOCALITY_SCOPE_CORE) return;
  std::vector<int> ids;
  for (int i = 0; i < d.num_domains; ++i) {
    const Domain& c = *d.children[i];
    for (int u = 0; u < unit_count(c); ++u) ids.push_back(c.unit_ids[u].id);
  }
  set_units(d, ids);
}

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

void refresh_from(Domain& d) {
  for (Domain* p = &d; p; p = p->parent) units_from_children(*p);
  update_symmetry(top_of(d));
}

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

int next_child_index(const Domain& parent, const Domain* ignore) {
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

}  // namespace dart::locality::nodes
