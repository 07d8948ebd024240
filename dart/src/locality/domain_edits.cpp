// The local operations of dart_locality.h that reshape a tree: select,
// exclude, add and move subdomains, group, and split by scope. Every
// operation allocates all it needs before its first change to the tree, so
// a failure leaves the tree as it was.
#include "locality/domain_nodes.hpp"
#include "locality/domains.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace dart::locality {

using namespace nodes;

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
    invalid("position " + std::to_string(pos) + " is beyond the " + std::to_string(target.size()) + " subdomains of '" +
            tag_of(new_parent) + "'");
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
  const bool siblings = std::all_of(paths.begin(), paths.end(), [&](const auto& p) { return p.size() == depth + 2; });
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

void split_scope(const dart_domain_locality_t& d, dart_locality_scope_t scope, int parts, dart_domain_locality_t* out) {
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
