// Queries and manipulation of locality domains (spec 2.9, 3.4.1, 5),
// second half of the dart_locality executable: find, scope_tags /
// scope_domains (pre-order, NOTFOUND), clone/assign/destroy (deep copies,
// team trees protected), select, exclude (component-wise tag matching),
// split_scope, group (siblings and cousins), add/move subdomain on
// client-built trees; dart_group_locality_split (one group per domain,
// merged groups, sub-groups, NOTFOUND); locality of a sub-team
// (team-relative unit table, same records as in DART_TEAM_ALL, data gone
// with the team); bad input.
// Not covered: several nodes (one machine only: a single NODE domain;
// node grouping by shared-memory domain is exercised with one node),
// the POSIX fallback when hwloc fails, and bound units (the harness runs
// with --bind-to none; placement of bound units is checked only when the
// launcher binds).
#include "locality_common.hpp"

using namespace localitytest;

BOOST_FIXTURE_TEST_SUITE(locality, Fixture)

// ---- queries ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(find_and_scope_queries) {
  Domain* d = nullptr;
  CHECK_OK(dart_domain_find(root, ".", &d));
  CHECK_EQ(d, root);
  const dart_unit_locality_t* mine = unit(me);
  CHECK_OK(dart_domain_team_locality(DART_TEAM_ALL, mine->domain_tag, &d));
  REQUIRE_RANK(d != nullptr);
  CHECK_EQ(std::string(d->domain_tag), std::string(mine->domain_tag));
  // find below a subdomain, and not above it
  Domain* node0 = root->children[0];
  Domain* again = nullptr;
  CHECK_OK(dart_domain_find(node0, node0->children[0]->domain_tag, &again));
  CHECK_EQ(again, node0->children[0]);
  {
    QuietDart quiet;
    again = root;
    CHECK_EQ(dart_domain_find(node0, ".", &again), DART_ERR_NOTFOUND);
    CHECK_EQ(again, nullptr);
    d = root;
    CHECK_EQ(dart_domain_team_locality(DART_TEAM_ALL, ".0.999", &d), DART_ERR_NOTFOUND);
    CHECK_EQ(d, nullptr);
    CHECK_EQ(dart_domain_find(root, "", &d), DART_ERR_NOTFOUND);
    CHECK_EQ(dart_domain_find(root, ".0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0", &d), DART_ERR_NOTFOUND);
  }

  // scope_tags / scope_domains: the same domains, in pre-order.
  for (auto scope :
       {DART_LOCALITY_SCOPE_NODE, DART_LOCALITY_SCOPE_MODULE, DART_LOCALITY_SCOPE_NUMA, DART_LOCALITY_SCOPE_CORE}) {
    std::vector<std::string> expect;
    preorder(*root, scope, expect);
    REQUIRE_RANK(!expect.empty());
    CHECK_RANK(scope_tags(root, scope) == expect);
    CHECK_RANK(tags_of(scope_domains(root, scope)) == expect);
  }
  // The domain itself counts when it has the scope.
  CHECK_RANK(tags_of(scope_domains(node0, DART_LOCALITY_SCOPE_NODE)) == std::vector<std::string>{node0->domain_tag});
  // None found: DART_ERR_NOTFOUND, 0 and NULL.
  for (auto scope : {DART_LOCALITY_SCOPE_NETWORK, DART_LOCALITY_SCOPE_GROUP, DART_LOCALITY_SCOPE_CPU}) {
    QuietDart quiet;
    int num = 7;
    char** tags = reinterpret_cast<char**>(&num);
    CHECK_EQ(dart_domain_scope_tags(root, scope, &num, &tags), DART_ERR_NOTFOUND);
    CHECK_EQ(num, 0);
    CHECK_EQ(tags, nullptr);
    num = 7;
    Domain** ds = reinterpret_cast<Domain**>(&num);
    CHECK_EQ(dart_domain_scope_domains(root, scope, &num, &ds), DART_ERR_NOTFOUND);
    CHECK_EQ(num, 0);
    CHECK_EQ(ds, nullptr);
  }
}

// ---- copies ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(clone_assign_destroy) {
  const std::string team_tree = serialize(*root);
  Domain* copy = nullptr;
  REQUIRE_OK(dart_domain_clone(root, &copy));
  CHECK_EQ(serialize(*copy), team_tree);
  CHECK_RANK(copy != root);
  CHECK_EQ(copy->parent, nullptr);
  CHECK_RANK(copy->unit_ids != root->unit_ids);
  const std::string v = violation(*copy, true);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": clone: " << v);
  // Deep: changing the copy leaves the team's tree alone.
  const char* first_node = ".0";
  CHECK_OK(dart_domain_exclude(copy, 1, &first_node));
  CHECK_EQ(copy->num_domains, root->num_domains - 1);
  CHECK_EQ(serialize(*root), team_tree);

  // Clone of a subdomain: a root of its own.
  Domain* sub = nullptr;
  REQUIRE_OK(dart_domain_clone(root->children[0], &sub));
  CHECK_EQ(sub->parent, nullptr);
  CHECK_EQ(serialize(*sub), serialize(*root->children[0]));

  // assign: the left side becomes a deep copy, keeping its own place.
  Domain* lhs = nullptr;
  REQUIRE_OK(dart_domain_create(&lhs));
  CHECK_EQ(lhs->scope, DART_LOCALITY_SCOPE_UNDEFINED);
  CHECK_EQ(lhs->global_index, -1);
  CHECK_EQ(lhs->team, DART_TEAM_NULL);
  CHECK_EQ(lhs->num_units, -1);
  CHECK_EQ(lhs->num_cores, -1);
  CHECK_EQ(lhs->num_domains, 0);
  CHECK_EQ(lhs->children, nullptr);
  CHECK_EQ(std::string(lhs->domain_tag), std::string());
  REQUIRE_OK(dart_domain_assign(lhs, root));
  CHECK_EQ(serialize(*lhs), team_tree);
  for (int i = 0; i < lhs->num_domains; ++i) CHECK_EQ(lhs->children[i]->parent, lhs);
  // ... also from inside its own subtree.
  REQUIRE_OK(dart_domain_assign(lhs, lhs->children[0]));
  CHECK_EQ(serialize(*lhs), serialize(*root->children[0]));
  CHECK_OK(dart_domain_assign(lhs, lhs));

  // Domains of a team's tree are not the client's to destroy.
  {
    QuietDart quiet;
    CHECK_EQ(dart_domain_destroy(root), DART_ERR_INVAL);
    CHECK_EQ(dart_domain_destroy(root->children[0]), DART_ERR_INVAL);
  }
  CHECK_EQ(serialize(*root), team_tree);
  CHECK_OK(dart_domain_destroy(nullptr));
  CHECK_OK(dart_domain_destroy(lhs));
  CHECK_OK(dart_domain_destroy(sub));
  CHECK_OK(dart_domain_destroy(copy));
}

// ---- manipulation on client trees -------------------------------------------------

BOOST_AUTO_TEST_CASE(built_tree_add_subdomain) {
  Domain* t = make_tree();
  CHECK_EQ(serialize(*t).empty(), false);
  CHECK_RANK(unit_list(*t) == (std::vector<int>{0, 1, 2, 3, 4, 5}));
  const std::string v = violation(*t, true);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
  CHECK_RANK(tags_of(scope_domains(t, DART_LOCALITY_SCOPE_CORE)) ==
             (std::vector<std::string>{".0.0", ".0.1", ".1.0", ".2.0"}));
  CHECK_EQ(t->is_symmetric, 0);              // A has two leaves, B one
  CHECK_EQ(find(t, ".0")->is_symmetric, 0);  // leaves with 2 and 1 units

  // Insert at the front of A: a fresh tag (last index in use + 1), the
  // units join A's and the root's lists first.
  Domain* a = find(t, ".0");
  Domain* extra = make_domain(DART_LOCALITY_SCOPE_CORE, {9});
  REQUIRE_OK(dart_domain_add_subdomain(a, extra, 0));
  CHECK_EQ(std::string(extra->domain_tag), std::string(".0.2"));
  CHECK_EQ(extra->parent, a);
  CHECK_EQ(extra->relative_index, 0);
  CHECK_EQ(extra->level, 2);
  CHECK_EQ(a->children[1]->relative_index, 1);
  CHECK_EQ(std::string(a->children[1]->domain_tag), std::string(".0.0"));
  CHECK_RANK(unit_list(*a) == (std::vector<int>{9, 0, 1, 2}));
  CHECK_RANK(unit_list(*t) == (std::vector<int>{9, 0, 1, 2, 3, 4, 5}));
  CHECK_EQ(find(t, ".0.2"), extra);
  // A subtree gets tags below its new tag.
  Domain* inner = make_domain(DART_LOCALITY_SCOPE_NUMA);
  CHECK_OK(dart_domain_add_subdomain(inner, make_domain(DART_LOCALITY_SCOPE_CORE, {7}), -1));
  REQUIRE_OK(dart_domain_add_subdomain(t, inner, -1));
  CHECK_EQ(std::string(inner->domain_tag), std::string(".3"));
  CHECK_EQ(std::string(inner->children[0]->domain_tag), std::string(".3.0"));
  CHECK_EQ(inner->children[0]->level, 2);
  CHECK_EQ(t->num_units, 8);
  {
    QuietDart quiet;
    Domain* loose = make_domain(DART_LOCALITY_SCOPE_CORE);
    CHECK_EQ(dart_domain_add_subdomain(t, loose, 99), DART_ERR_INVAL);      // beyond the end
    CHECK_EQ(dart_domain_add_subdomain(loose, loose, -1), DART_ERR_INVAL);  // itself
    CHECK_EQ(dart_domain_add_subdomain(inner, t, -1), DART_ERR_INVAL);      // a cycle
    CHECK_EQ(dart_domain_add_subdomain(t, extra, -1), DART_ERR_INVAL);      // already in the tree
    CHECK_EQ(dart_domain_add_subdomain(nullptr, loose, -1), DART_ERR_INVAL);
    CHECK_EQ(dart_domain_add_subdomain(t, nullptr, -1), DART_ERR_INVAL);
    CHECK_OK(dart_domain_destroy(loose));
  }
  CHECK_OK(dart_domain_destroy(t));
}

BOOST_AUTO_TEST_CASE(built_tree_move_subdomain) {
  Domain* t = make_tree();
  Domain* a1 = find(t, ".0.1");
  Domain* b = find(t, ".1");
  REQUIRE_OK(dart_domain_move_subdomain(a1, b, -1));
  CHECK_EQ(a1->parent, b);
  CHECK_EQ(std::string(a1->domain_tag), std::string(".1.1"));
  CHECK_EQ(a1->relative_index, 1);
  CHECK_RANK(unit_list(*find(t, ".0")) == (std::vector<int>{0, 1}));
  CHECK_RANK(unit_list(*b) == (std::vector<int>{3, 2}));
  CHECK_RANK(unit_list(*t) == (std::vector<int>{0, 1, 3, 2, 4, 5}));
  CHECK_EQ(find(t, ".0.1"), nullptr);
  // Up a level, to the front of the root.
  Domain* c0 = find(t, ".2.0");
  REQUIRE_OK(dart_domain_move_subdomain(c0, t, 0));
  CHECK_EQ(std::string(c0->domain_tag), std::string(".3"));
  CHECK_EQ(c0->level, 1);
  CHECK_EQ(t->children[0], c0);
  CHECK_EQ(find(t, ".2")->num_units, 0);
  CHECK_RANK(unit_list(*t) == (std::vector<int>{4, 5, 0, 1, 3, 2}));
  const std::string v = violation(*t, false);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
  {
    QuietDart quiet;
    CHECK_EQ(dart_domain_move_subdomain(t, b, -1), DART_ERR_INVAL);  // the root has no parent
    Domain* a = find(t, ".0");
    CHECK_EQ(dart_domain_move_subdomain(a, find(t, ".0.0"), -1), DART_ERR_INVAL);  // into itself
    CHECK_EQ(dart_domain_move_subdomain(a, b, 5), DART_ERR_INVAL);                 // beyond the end
    Domain* other = make_tree();
    CHECK_EQ(dart_domain_move_subdomain(a, other, -1), DART_ERR_INVAL);  // another tree
    CHECK_OK(dart_domain_destroy(other));
  }
  CHECK_OK(dart_domain_destroy(t));
}

BOOST_AUTO_TEST_CASE(select_and_exclude) {
  // Component-wise matching: with children .0 ... .10, ".1" is not ".10".
  Domain* wide = make_domain(DART_LOCALITY_SCOPE_GLOBAL);
  std::strcpy(wide->domain_tag, ".");
  for (int i = 0; i < 11; ++i) {
    Domain* mid = make_domain(DART_LOCALITY_SCOPE_NUMA);
    CHECK_OK(dart_domain_add_subdomain(wide, mid, -1));
    CHECK_OK(dart_domain_add_subdomain(mid, make_domain(DART_LOCALITY_SCOPE_CORE, {i}), -1));
  }
  CHECK_EQ(std::string(find(wide, ".1")->domain_tag), std::string(".1"));
  Domain* copy = nullptr;
  REQUIRE_OK(dart_domain_clone(wide, &copy));
  const char* one[] = {".1"};
  REQUIRE_OK(dart_domain_select(copy, 1, one));
  REQUIRE_EQ(copy->num_domains, 1);
  CHECK_EQ(std::string(copy->children[0]->domain_tag), std::string(".1"));
  CHECK_RANK(unit_list(*copy) == (std::vector<int>{1}));
  CHECK_OK(dart_domain_destroy(copy));
  REQUIRE_OK(dart_domain_exclude(wide, 1, one));
  CHECK_EQ(wide->num_domains, 10);
  CHECK_RANK(find(wide, ".10") != nullptr);
  CHECK_EQ(find(wide, ".1"), nullptr);
  // Remaining children re-indexed; tags unchanged.
  CHECK_EQ(find(wide, ".2")->relative_index, 1);
  CHECK_EQ(find(wide, ".10")->relative_index, 9);
  CHECK_RANK(unit_list(*wide) == (std::vector<int>{0, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  CHECK_OK(dart_domain_destroy(wide));

  // select keeps the listed domains whole and the paths to them.
  Domain* t = make_tree();
  const char* pick[] = {".0.1", ".2"};
  REQUIRE_OK(dart_domain_select(t, 2, pick));
  CHECK_EQ(t->num_domains, 2);
  CHECK_RANK(tags_of(scope_domains(t, DART_LOCALITY_SCOPE_CORE)) == (std::vector<std::string>{".0.1", ".2.0"}));
  CHECK_RANK(unit_list(*t) == (std::vector<int>{2, 4, 5}));
  CHECK_EQ(find(t, ".2")->relative_index, 1);
  std::string v = violation(*t, false);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
  {
    QuietDart quiet;
    const std::string before = serialize(*t);
    const char* unknown[] = {".0.1", ".7"};
    CHECK_EQ(dart_domain_select(t, 2, unknown), DART_ERR_NOTFOUND);
    CHECK_EQ(dart_domain_exclude(t, 2, unknown), DART_ERR_NOTFOUND);
    CHECK_EQ(serialize(*t), before);  // unchanged
    const char* self[] = {"."};
    CHECK_EQ(dart_domain_exclude(t, 1, self), DART_ERR_INVAL);
    CHECK_EQ(dart_domain_select(t, -1, self), DART_ERR_INVAL);
    CHECK_EQ(dart_domain_select(t, 1, nullptr), DART_ERR_INVAL);
    const char* null_tag[] = {nullptr};
    CHECK_EQ(dart_domain_exclude(t, 1, null_tag), DART_ERR_INVAL);
    CHECK_EQ(dart_domain_select(nullptr, 1, self), DART_ERR_INVAL);
  }
  const char* dot[] = {"."};
  CHECK_OK(dart_domain_select(t, 1, dot));  // selecting the domain itself keeps it
  CHECK_OK(dart_domain_exclude(t, 0, nullptr));
  CHECK_EQ(t->num_units, 3);
  CHECK_OK(dart_domain_destroy(t));

  // On a copy of the team tree: drop my leaf; the rest keeps its tags.
  Domain* team_copy = nullptr;
  REQUIRE_OK(dart_domain_clone(root, &team_copy));
  const char* my_leaf = unit(me)->domain_tag;
  const Domain* leaf = find(root, my_leaf);
  REQUIRE_OK(dart_domain_exclude(team_copy, 1, &my_leaf));
  CHECK_EQ(team_copy->num_units, n - leaf->num_units);
  for (int u : unit_list(*team_copy)) CHECK_RANK(u != me);
  for (const std::string& tag : scope_tags(team_copy, DART_LOCALITY_SCOPE_CORE))
    CHECK_RANK(find(root, tag.c_str()) != nullptr);
  v = violation(*team_copy, false);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
  // ... and select it alone: the path down to it, with its units.
  Domain* only = nullptr;
  REQUIRE_OK(dart_domain_clone(root, &only));
  REQUIRE_OK(dart_domain_select(only, 1, &my_leaf));
  CHECK_RANK(unit_list(*only) == unit_list(*leaf));
  CHECK_EQ(static_cast<int>(scope_domains(only, DART_LOCALITY_SCOPE_CORE).size()), 1);
  CHECK_OK(dart_domain_destroy(only));
  CHECK_OK(dart_domain_destroy(team_copy));
}

BOOST_AUTO_TEST_CASE(split_scope) {
  const auto cores = scope_tags(root, DART_LOCALITY_SCOPE_CORE);
  const int k = static_cast<int>(cores.size());
  for (int parts : {1, 2, k, k + 2}) {
    std::vector<Domain> out(static_cast<std::size_t>(parts));
    REQUIRE_OK(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, parts, out.data()));
    // Consecutive blocks of the core domains, sizes as equal as possible,
    // larger first; every unit in exactly one part.
    std::vector<std::string> seen;
    std::vector<int> units;
    for (int p = 0; p < parts; ++p) {
      std::vector<std::string> tags;
      {
        QuietDart quiet;  // parts beyond k have no core domains: NOTFOUND
        tags = scope_tags(&out[static_cast<std::size_t>(p)], DART_LOCALITY_SCOPE_CORE);
      }
      const int expect = k / parts + (p < k % parts ? 1 : 0);
      CHECK_EQ(static_cast<int>(tags.size()), expect);
      seen.insert(seen.end(), tags.begin(), tags.end());
      for (int u : unit_list(out[static_cast<std::size_t>(p)])) units.push_back(u);
      CHECK_EQ(std::string(out[static_cast<std::size_t>(p)].domain_tag), std::string("."));
      CHECK_EQ(out[static_cast<std::size_t>(p)].parent, nullptr);
    }
    CHECK_RANK(seen == cores);
    std::sort(units.begin(), units.end());
    CHECK_EQ(static_cast<int>(units.size()), n);
    CHECK_RANK(std::unique(units.begin(), units.end()) == units.end());
    // The parts live in our storage: release their content through assign
    // from an empty domain (the spec's workaround).
    Domain* empty = nullptr;
    CHECK_OK(dart_domain_create(&empty));
    for (auto& part : out) CHECK_OK(dart_domain_assign(&part, empty));
    CHECK_OK(dart_domain_destroy(empty));
  }
  Domain parts[2];
  QuietDart quiet;
  CHECK_EQ(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NETWORK, 2, parts), DART_ERR_NOTFOUND);
  CHECK_EQ(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, 0, parts), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, 2, nullptr), DART_ERR_INVAL);
}

BOOST_AUTO_TEST_CASE(group_siblings_and_cousins) {
  // Siblings: moved into a GROUP child placed after the others.
  Domain* t = make_tree();
  const char* ac[] = {".2", ".0"};
  char tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE] = {};
  REQUIRE_OK(dart_domain_group(t, 2, ac, tag));
  CHECK_EQ(std::string(tag), std::string(".3"));
  REQUIRE_EQ(t->num_domains, 2);
  CHECK_EQ(std::string(t->children[0]->domain_tag), std::string(".1"));  // ungrouped: tag kept
  Domain* g = t->children[1];
  CHECK_EQ(g, find(t, ".3"));
  CHECK_EQ(g->scope, DART_LOCALITY_SCOPE_GROUP);
  CHECK_EQ(g->level, 1);
  CHECK_EQ(g->relative_index, 1);
  REQUIRE_EQ(g->num_domains, 2);
  CHECK_EQ(std::string(g->children[0]->domain_tag), std::string(".3.0"));  // A, first in the parent
  CHECK_EQ(std::string(g->children[1]->domain_tag), std::string(".3.1"));  // C
  CHECK_EQ(std::string(g->children[0]->children[1]->domain_tag), std::string(".3.0.1"));
  CHECK_EQ(g->children[0]->children[1]->level, 3);
  CHECK_RANK(unit_list(*g) == (std::vector<int>{0, 1, 2, 4, 5}));
  CHECK_RANK(unit_list(*t) == (std::vector<int>{3, 0, 1, 2, 4, 5}));
  CHECK_EQ(find(t, ".0"), nullptr);
  std::string v = violation(*t, false);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
  // Again: the next tag, after earlier groups.
  const char* b[] = {".1"};
  REQUIRE_OK(dart_domain_group(t, 1, b, tag));
  CHECK_EQ(std::string(tag), std::string(".4"));
  CHECK_EQ(t->children[1], find(t, ".4"));
  CHECK_OK(dart_domain_destroy(t));

  // Cousins: the group holds copies of the paths, pruned to the listed
  // domains, which leave their places; P is the group's alias.
  t = make_tree();
  const char* cousins[] = {".0.0", ".1.0"};
  REQUIRE_OK(dart_domain_group(t, 2, cousins, tag));
  CHECK_EQ(std::string(tag), std::string(".3"));
  g = find(t, ".3");
  REQUIRE_RANK(g != nullptr);
  CHECK_EQ(g->parent, t);
  CHECK_EQ(g->num_aliases, 1);
  CHECK_EQ(g->aliases[0], t);
  CHECK_RANK(tags_of(scope_domains(g, DART_LOCALITY_SCOPE_CORE)) == (std::vector<std::string>{".3.0.0", ".3.1.0"}));
  CHECK_RANK(unit_list(*g) == (std::vector<int>{0, 1, 3}));
  CHECK_RANK(unit_list(*find(t, ".0")) == (std::vector<int>{2}));
  CHECK_EQ(find(t, ".1")->num_units, 0);
  CHECK_EQ(find(t, ".0.0"), nullptr);
  // Every unit still in exactly one leaf.
  std::vector<int> all;
  for (const Domain* leaf : scope_domains(t, DART_LOCALITY_SCOPE_CORE))
    for (int u : unit_list(*leaf)) all.push_back(u);
  std::sort(all.begin(), all.end());
  CHECK_RANK(all == (std::vector<int>{0, 1, 2, 3, 4, 5}));
  v = violation(*t, false);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
  Domain* copy = nullptr;
  CHECK_OK(dart_domain_clone(t, &copy));
  CHECK_EQ(find(copy, ".3")->num_aliases, 0);  // clones drop aliases
  CHECK_OK(dart_domain_destroy(copy));
  {
    QuietDart quiet;
    const char* nested[] = {".0", ".0.1"};
    CHECK_EQ(dart_domain_group(t, 2, nested, tag), DART_ERR_INVAL);
    const char* unknown[] = {".0.1", ".9"};
    CHECK_EQ(dart_domain_group(t, 2, unknown, tag), DART_ERR_NOTFOUND);
    const char* self[] = {"."};
    CHECK_EQ(dart_domain_group(t, 1, self, tag), DART_ERR_INVAL);
    const char* twice[] = {".2", ".2"};
    CHECK_EQ(dart_domain_group(t, 2, twice, tag), DART_ERR_INVAL);
    CHECK_EQ(dart_domain_group(t, 0, self, tag), DART_ERR_INVAL);
    CHECK_EQ(dart_domain_group(t, 1, self, nullptr), DART_ERR_INVAL);
  }
  CHECK_OK(dart_domain_destroy(t));

  // On a copy of the team tree: group my node's core domains.
  Domain* team_copy = nullptr;
  REQUIRE_OK(dart_domain_clone(root, &team_copy));
  auto core_tags = scope_tags(team_copy, DART_LOCALITY_SCOPE_CORE);
  std::vector<const char*> list;
  for (const auto& s : core_tags) list.push_back(s.c_str());
  REQUIRE_OK(dart_domain_group(team_copy, static_cast<int>(list.size()), list.data(), tag));
  Domain* grp = find(team_copy, tag);
  REQUIRE_RANK(grp != nullptr);
  CHECK_EQ(grp->scope, DART_LOCALITY_SCOPE_GROUP);
  std::vector<int> units = unit_list(*grp);
  std::sort(units.begin(), units.end());
  CHECK_EQ(static_cast<int>(units.size()), n);
  BOOST_CHECK_MESSAGE(same_as_rank0(serialize(*team_copy)), "rank " << me << ": grouped copies differ");
  CHECK_OK(dart_domain_destroy(team_copy));
}

// ---- groups by locality ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(group_locality_split) {
  dart_group_t all = DART_GROUP_NULL;
  CHECK_OK(dart_group_create(&all));
  for (int u = 0; u < n; ++u) CHECK_OK(dart_group_addmember(all, DART_GLOBAL_UNIT_ID(u)));
  const auto cores = scope_domains(root, DART_LOCALITY_SCOPE_CORE);
  const int k = static_cast<int>(cores.size());

  auto members = [](dart_group_t g) {
    size_t size = 0;
    CHECK_OK(dart_group_size(g, &size));
    std::vector<dart_global_unit_t> ids(size);
    if (size) CHECK_OK(dart_group_getmembers(g, ids.data()));
    std::vector<int> out;
    for (auto id : ids) out.push_back(id.id);
    return out;
  };

  // n >= |D|: one group per core domain, in scope_domains order; the
  // entries beyond are DART_GROUP_NULL.
  std::vector<dart_group_t> out(static_cast<std::size_t>(k + 2), reinterpret_cast<dart_group_t>(&out));
  size_t nout = 0;
  REQUIRE_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, out.size(), &nout, out.data()));
  REQUIRE_EQ(static_cast<int>(nout), k);
  std::ostringstream os;
  for (int i = 0; i < k; ++i) {
    auto expect = unit_list(*cores[static_cast<std::size_t>(i)]);
    std::sort(expect.begin(), expect.end());
    CHECK_RANK(members(out[static_cast<std::size_t>(i)]) == expect);
    for (int u : expect) os << u << ',';
    os << ';';
  }
  CHECK_EQ(out[static_cast<std::size_t>(k)], DART_GROUP_NULL);
  CHECK_EQ(out[static_cast<std::size_t>(k + 1)], DART_GROUP_NULL);
  BOOST_CHECK_MESSAGE(same_as_rank0(os.str()), "rank " << me << ": split differs from rank 0's");
  for (auto& g : out) CHECK_OK(dart_group_destroy(&g));

  // n == 1: everything in one group; by NODE: one group per node.
  dart_group_t one = DART_GROUP_NULL;
  REQUIRE_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, 1, &nout, &one));
  CHECK_EQ(nout, 1u);
  CHECK_EQ(static_cast<int>(members(one).size()), n);
  CHECK_OK(dart_group_destroy(&one));
  std::vector<dart_group_t> nodes(4, DART_GROUP_NULL);
  REQUIRE_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NODE, nodes.size(), &nout, nodes.data()));
  CHECK_EQ(static_cast<int>(nout), root->num_domains);
  CHECK_EQ(static_cast<int>(members(nodes[0]).size()), root->children[0]->num_units);
  for (auto& g : nodes) CHECK_OK(dart_group_destroy(&g));

  // Merged: 2 groups of consecutive core domains; only members of g.
  if (k >= 2) {
    dart_group_t even = DART_GROUP_NULL;
    CHECK_OK(dart_group_create(&even));
    for (int u = 0; u < n; u += 2) CHECK_OK(dart_group_addmember(even, DART_GLOBAL_UNIT_ID(u)));
    dart_group_t two[2] = {DART_GROUP_NULL, DART_GROUP_NULL};
    REQUIRE_OK(dart_group_locality_split(even, root, DART_LOCALITY_SCOPE_CORE, 2, &nout, two));
    CHECK_EQ(nout, 2u);
    std::vector<int> first, second;
    for (int i = 0; i < k; ++i)
      for (int u : unit_list(*cores[static_cast<std::size_t>(i)]))
        if (u % 2 == 0) (i < (k + 1) / 2 ? first : second).push_back(u);
    std::sort(first.begin(), first.end());
    std::sort(second.begin(), second.end());
    CHECK_RANK(members(two[0]) == first);  // empty groups are groups too
    CHECK_RANK(members(two[1]) == second);
    for (auto& g : two) CHECK_OK(dart_group_destroy(&g));
    CHECK_OK(dart_group_destroy(&even));
  }

  {
    QuietDart quiet;
    dart_group_t g = DART_GROUP_NULL;
    CHECK_EQ(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NETWORK, 1, &nout, &g), DART_ERR_NOTFOUND);
    CHECK_EQ(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, 0, &nout, &g), DART_ERR_INVAL);
    CHECK_EQ(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, size_t(INT_MAX) + 1, &nout, &g),
             DART_ERR_INVAL);
    CHECK_EQ(dart_group_locality_split(DART_GROUP_NULL, root, DART_LOCALITY_SCOPE_CORE, 1, &nout, &g), DART_ERR_INVAL);
    CHECK_EQ(dart_group_locality_split(all, nullptr, DART_LOCALITY_SCOPE_CORE, 1, &nout, &g), DART_ERR_INVAL);
    CHECK_EQ(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, 1, nullptr, &g), DART_ERR_INVAL);
    CHECK_EQ(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, 1, &nout, nullptr), DART_ERR_INVAL);
  }
  CHECK_OK(dart_group_destroy(&all));
}

// ---- teams ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(sub_team_locality) {
  // Units 0, 2, 4, ... (all units when alone).
  dart_group_t g = DART_GROUP_NULL;
  CHECK_OK(dart_group_create(&g));
  for (int u = 0; u < n; u += 2) CHECK_OK(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(u)));
  dart_team_t team = DART_TEAM_NULL;
  REQUIRE_OK(dart_team_create(DART_TEAM_ALL, g, &team));
  CHECK_OK(dart_group_destroy(&g));
  const bool member = me % 2 == 0;
  const int size = (n + 1) / 2;
  dart_team_t old_id = DART_TEAM_NULL;
  if (member) {
    REQUIRE_RANK(team != DART_TEAM_NULL);
    {
      QuietDart quiet;
      Domain* d = nullptr;
      CHECK_EQ(dart_domain_team_locality(team, ".", &d), DART_ERR_INVAL);  // not yet
    }
    REQUIRE_OK(dart_team_locality_init(team));
    Domain* troot = nullptr;
    REQUIRE_OK(dart_domain_team_locality(team, ".", &troot));
    CHECK_EQ(troot->team, team);
    CHECK_EQ(troot->num_units, size);
    std::vector<int> ids;
    for (int u = 0; u < n; u += 2) ids.push_back(u);
    CHECK_RANK(unit_list(*troot) == ids);  // global ids, team order
    const std::string v = violation(*troot, true);
    BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
    for (int u = 0; u < size; ++u) {
      dart_unit_locality_t* l = unit(u, team);
      REQUIRE_RANK(l != nullptr);
      CHECK_EQ(l->unit.id, u);
      CHECK_EQ(l->team, team);
      const Domain* leaf = find(troot, l->domain_tag);
      REQUIRE_RANK(leaf != nullptr);
      const auto in_leaf = unit_list(*leaf);
      CHECK_EQ(std::count(in_leaf.begin(), in_leaf.end(), 2 * u), 1);
      // The same hardware record as in DART_TEAM_ALL: a unit keeps its core.
      const dart_unit_locality_t* w = unit(2 * u);
      CHECK_EQ(l->hwinfo.core_id, w->hwinfo.core_id);
      CHECK_EQ(l->hwinfo.cpu_id, w->hwinfo.cpu_id);
      CHECK_EQ(l->hwinfo.numa_id, w->hwinfo.numa_id);
      CHECK_EQ(std::string(l->hwinfo.host), std::string(w->hwinfo.host));
    }
    {
      QuietDart quiet;
      dart_unit_locality_t* l = nullptr;
      CHECK_EQ(dart_unit_locality(team, DART_TEAM_UNIT_ID(size), &l), DART_ERR_INVAL);
      CHECK_EQ(l, nullptr);
    }
    // Destroyed without finalize: the data goes with the team, so a later
    // team with the same id starts without any.
    old_id = team;
    REQUIRE_OK(dart_team_destroy(&team));
  } else {
    CHECK_EQ(team, DART_TEAM_NULL);
  }
  dart_team_t again = DART_TEAM_NULL;
  REQUIRE_OK(dart_team_clone(DART_TEAM_ALL, &again));
  if (again == old_id) BOOST_TEST_MESSAGE("rank " << me << ": the clone reuses id " << again);
  {
    QuietDart quiet;
    Domain* d = nullptr;
    CHECK_EQ(dart_domain_team_locality(again, ".", &d), DART_ERR_INVAL);
  }
  REQUIRE_OK(dart_team_locality_init(again));
  Domain* aroot = nullptr;
  REQUIRE_OK(dart_domain_team_locality(again, ".", &aroot));
  CHECK_EQ(aroot->num_units, n);
  CHECK_OK(dart_team_locality_finalize(again));
  REQUIRE_OK(dart_team_destroy(&again));
}

// ---- bad input -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(bad_input) {
  QuietDart quiet;
  Domain* d = root;
  CHECK_EQ(dart_domain_team_locality(DART_TEAM_ALL, ".", nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_team_locality(DART_TEAM_ALL, nullptr, &d), DART_ERR_INVAL);
  CHECK_EQ(d, nullptr);
  CHECK_EQ(dart_domain_team_locality(77, ".", &d), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_team_locality(DART_TEAM_NULL, ".", &d), DART_ERR_INVAL);
  CHECK_EQ(dart_team_locality_init(77), DART_ERR_INVAL);
  CHECK_EQ(dart_team_locality_init(DART_TEAM_NULL), DART_ERR_INVAL);
  CHECK_EQ(dart_team_locality_finalize(77), DART_ERR_INVAL);
  dart_unit_locality_t* loc = reinterpret_cast<dart_unit_locality_t*>(&d);
  CHECK_EQ(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(-1), &loc), DART_ERR_INVAL);
  CHECK_EQ(loc, nullptr);
  CHECK_EQ(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(n), &loc), DART_ERR_INVAL);
  CHECK_EQ(dart_unit_locality(77, DART_TEAM_UNIT_ID(0), &loc), DART_ERR_INVAL);
  CHECK_EQ(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_create(nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_clone(nullptr, &d), DART_ERR_INVAL);
  CHECK_EQ(d, nullptr);
  CHECK_EQ(dart_domain_clone(root, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_assign(nullptr, root), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_assign(root, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_find(nullptr, ".", &d), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_find(root, nullptr, &d), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_find(root, ".", nullptr), DART_ERR_INVAL);
  int num = 0;
  char** tags = nullptr;
  Domain** ds = nullptr;
  CHECK_EQ(dart_domain_scope_tags(nullptr, DART_LOCALITY_SCOPE_CORE, &num, &tags), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_CORE, nullptr, &tags), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_CORE, &num, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_CORE, nullptr, &ds), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_CORE, &num, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_move_subdomain(nullptr, root, 0), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_move_subdomain(root->children[0], nullptr, 0), DART_ERR_INVAL);
  // A malformed client domain is refused, not followed.
  Domain* bad = nullptr;
  CHECK_OK(dart_domain_create(&bad));
  bad->num_domains = 3;  // but no children array
  CHECK_EQ(dart_domain_clone(bad, &d), DART_ERR_INVAL);
  CHECK_EQ(dart_domain_find(bad, ".x", &d), DART_ERR_INVAL);
  bad->num_domains = 0;
  CHECK_OK(dart_domain_destroy(bad));
  // Locality calls before dart_init fail instead of crashing.
  CHECK_OK(dart_exit());
  CHECK_RANK(dart_team_locality_init(DART_TEAM_ALL) != DART_OK);
  CHECK_RANK(dart_domain_team_locality(DART_TEAM_ALL, ".", &d) != DART_OK);
  CHECK_RANK(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), &loc) != DART_OK);
  REQUIRE_OK(dart_init(nullptr, nullptr));
}

BOOST_AUTO_TEST_SUITE_END()
