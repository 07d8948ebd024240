// Locality of DART (spec 2.8, 2.9, 3.8, 5) on the machine and on fixed
// topologies, first half of the dart_locality executable: the domain tree
// of DART_TEAM_ALL on the live machine (shape and fields per spec 5.3,
// identical on every unit, every unit in exactly one leaf, leaf tags in
// the unit table), each unit's dart_hwinfo_t against an independent hwloc
// query (cores, NUMA, packages, caches, memory, core and CPU ids
// consistent), placement of oversubscribed unbound units (units share
// cores only when there are more units than cores, evenly); the hwloc XML
// topologies checked in under topologies/ (a two-socket machine with 4
// NUMA nodes, 16 cores, 32 PUs, and a single-socket machine with 4 cores),
// fed through HWLOC_XMLFILE across dart_exit + dart_init: domain counts
// per level and scope, tags, scopes and hardware indices along each path,
// hwinfo (counts, ids, caches, memory) and the placement of units 0..n-1
// written down per n = 1..4; DASH_MAX_SHMEM_MBPS, init/finalize cycles and
// double init. Queries and manipulation of domains are in
// test_locality_domains.cpp.
// Not covered: several nodes (one machine only: a single NODE domain;
// node grouping by shared-memory domain is exercised with one node),
// the POSIX fallback when hwloc fails, and bound units (the harness runs
// with --bind-to none; placement of bound units is checked only when the
// launcher binds).
#include "locality_common.hpp"

using namespace localitytest;

BOOST_FIXTURE_TEST_SUITE(locality, Fixture)

// ---- the team tree on the live machine --------------------------------------------

BOOST_AUTO_TEST_CASE(hierarchy_shape) {
  const NodeInfo node = node_info();
  CHECK_EQ(std::string(root->domain_tag), std::string("."));
  CHECK_EQ(root->scope, DART_LOCALITY_SCOPE_GLOBAL);
  CHECK_EQ(root->level, 0);
  CHECK_EQ(root->team, DART_TEAM_ALL);
  CHECK_EQ(root->parent, nullptr);
  CHECK_EQ(root->num_units, n);
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int u = 0; u < n; ++u) all[static_cast<std::size_t>(u)] = u;
  CHECK_RANK(unit_list(*root) == all);  // team order
  CHECK_EQ(root->num_nodes, node.nodes);
  CHECK_EQ(root->num_domains, node.nodes);
  CHECK_EQ(root->shared_mem_bytes, 0);
  CHECK_EQ(root->num_aliases, 0);
  const std::string v = violation(*root, true);
  BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);

  // Level 1 NODE, level 2 MODULE (one per node), leaves CORE; host names.
  std::vector<int> units_below_nodes;
  int cores = 0;
  for (int i = 0; i < root->num_domains; ++i) {
    const Domain& nd = *root->children[i];
    CHECK_EQ(nd.scope, DART_LOCALITY_SCOPE_NODE);
    CHECK_EQ(nd.node_id, i);
    CHECK_EQ(nd.global_index, i);
    CHECK_EQ(nd.num_nodes, -1);
    CHECK_EQ(nd.shared_mem_bytes, -1);
    REQUIRE_EQ(nd.num_domains, 1);
    const Domain& mod = *nd.children[0];
    CHECK_EQ(mod.scope, DART_LOCALITY_SCOPE_MODULE);
    CHECK_EQ(std::string(mod.host), std::string(nd.host));
    CHECK_EQ(nd.num_cores, mod.num_cores);
    cores += nd.num_cores;
    for (int u : unit_list(nd)) units_below_nodes.push_back(u);
  }
  CHECK_EQ(root->num_cores, cores);
  std::sort(units_below_nodes.begin(), units_below_nodes.end());
  CHECK_RANK(units_below_nodes == all);

  // My node: its host is mine; the leaf of every unit is a CORE domain
  // below a NODE at level 1, reached by walking parents as DASH does.
  dart_unit_locality_t* mine = unit(me);
  REQUIRE_RANK(mine != nullptr);
  Domain* leaf = find(root, mine->domain_tag);
  REQUIRE_RANK(leaf != nullptr);
  CHECK_EQ(leaf->scope, DART_LOCALITY_SCOPE_CORE);
  CHECK_EQ(leaf->num_domains, 0);
  const Domain* up = leaf;
  while (up->scope > DART_LOCALITY_SCOPE_NODE) {
    CHECK_RANK(up->node_id == up->parent->node_id || up->parent->scope == DART_LOCALITY_SCOPE_GLOBAL);
    CHECK_EQ(std::string(up->host), hostname());
    up = up->parent;
  }
  CHECK_EQ(up->scope, DART_LOCALITY_SCOPE_NODE);
  CHECK_EQ(up->level, 1);
  CHECK_EQ(std::string(up->host), hostname());
  CHECK_EQ(up->num_units, node.size);
}

BOOST_AUTO_TEST_CASE(same_tree_and_unit_table_on_every_unit) {
  std::ostringstream os;
  os << serialize(*root);
  for (int u = 0; u < n; ++u) {
    const dart_unit_locality_t* l = unit(u);
    REQUIRE_RANK(l != nullptr);
    os << '#' << l->unit.id << ',' << l->team << ',' << l->domain_tag << ',' << l->hwinfo.core_id << ','
       << l->hwinfo.numa_id << ',' << l->hwinfo.num_cores << ',' << l->hwinfo.host;
  }
  BOOST_CHECK_MESSAGE(same_as_rank0(os.str()), "rank " << me << ": tree or unit table differs from rank 0's");
}

BOOST_AUTO_TEST_CASE(every_unit_in_exactly_one_leaf) {
  const auto leaves = scope_domains(root, DART_LOCALITY_SCOPE_CORE);
  REQUIRE_RANK(!leaves.empty());
  std::map<int, int> seen;
  std::map<int, std::string> leaf_of;
  for (const Domain* leaf : leaves) {
    CHECK_EQ(leaf->num_domains, 0);
    CHECK_RANK(leaf->num_units >= 1);
    for (int u : unit_list(*leaf)) {
      ++seen[u];
      leaf_of[u] = leaf->domain_tag;
    }
  }
  CHECK_EQ(static_cast<int>(seen.size()), n);
  for (const auto& [u, count] : seen) CHECK_EQ(count, 1);
  for (int u = 0; u < n; ++u) {
    const dart_unit_locality_t* l = unit(u);
    REQUIRE_RANK(l != nullptr);
    CHECK_EQ(l->unit.id, u);
    CHECK_EQ(l->team, DART_TEAM_ALL);
    CHECK_EQ(std::string(l->domain_tag), leaf_of[u]);
    const Domain* leaf = find(root, l->domain_tag);
    REQUIRE_RANK(leaf != nullptr);
    // The unit's share of its leaf's cores.
    CHECK_EQ(l->hwinfo.num_cores, std::max(1, leaf->num_cores / leaf->num_units));
  }
}

BOOST_AUTO_TEST_CASE(hwinfo_agrees_with_hwloc) {
  const Hwloc hw;
  const dart_unit_locality_t* mine = unit(me);
  REQUIRE_RANK(mine != nullptr);
  const dart_hwinfo_t& h = mine->hwinfo;
  CHECK_EQ(std::string(h.host), hostname());
  CHECK_EQ(h.num_numa, hw.count(HWLOC_OBJ_NUMANODE));
  CHECK_EQ(h.num_sockets, hw.count(HWLOC_OBJ_PACKAGE) > 0 ? hw.count(HWLOC_OBJ_PACKAGE) : -1);
  CHECK_EQ(h.min_threads, 1);
  CHECK_EQ(h.max_threads, std::max(1, hw.count(HWLOC_OBJ_PU) / hw.cores()));
  const char* mbps = std::getenv("DASH_MAX_SHMEM_MBPS");
  CHECK_EQ(h.max_shmem_mbps, mbps && std::atoi(mbps) > 0 ? std::atoi(mbps) : 1235);
  CHECK_EQ(h.min_cpu_mhz, -1);
  CHECK_EQ(h.max_cpu_mhz, -1);
  const hwloc_obj_t machine = hwloc_get_root_obj(hw.get());
  CHECK_EQ(h.system_memory_bytes, static_cast<int>(machine->total_memory >> 20));

  // The node's cores: the module domain carries the host's count.
  Domain* leaf = find(root, mine->domain_tag);
  REQUIRE_RANK(leaf != nullptr);
  const Domain* module = leaf;
  while (module->scope != DART_LOCALITY_SCOPE_MODULE) module = module->parent;
  CHECK_EQ(module->num_cores, hw.cores());

  // Core and CPU: valid, the CPU inside the core, the core the leaf's.
  REQUIRE_RANK(h.core_id >= 0 && h.core_id < hw.cores());
  REQUIRE_RANK(h.cpu_id >= 0 && h.cpu_id < hw.count(HWLOC_OBJ_PU));
  const hwloc_obj_t core = hw.core(h.core_id);
  CHECK_RANK(hwloc_bitmap_isincluded(hw.pu(h.cpu_id)->cpuset, core->cpuset));
  CHECK_EQ(leaf->global_index, h.core_id);
  // The CPU is one this unit may run on; a unit bound within one core
  // (mpirun --bind-to core) is placed on that core.
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  if (sched_getaffinity(0, sizeof affinity, &affinity) == 0) {
    CHECK_RANK(CPU_ISSET(hw.pu(h.cpu_id)->os_index, &affinity));
    std::vector<int> allowed_cores;
    for (int c = 0; c < hw.cores(); ++c) {
      bool allowed = false;
      unsigned i;
      hwloc_bitmap_foreach_begin(i, hw.core(c)->cpuset) {
        if (i < CPU_SETSIZE && CPU_ISSET(i, &affinity)) allowed = true;
      }
      hwloc_bitmap_foreach_end();
      if (allowed) allowed_cores.push_back(c);
    }
    if (allowed_cores.size() == 1) CHECK_EQ(h.core_id, allowed_cores.front());
  }
  REQUIRE_RANK(h.num_scopes >= 2 && h.num_scopes <= DART_LOCALITY_MAX_DOMAIN_SCOPES);
  CHECK_EQ(h.scopes[0].scope, DART_LOCALITY_SCOPE_CORE);
  CHECK_EQ(h.scopes[0].index, h.core_id);

  // NUMA: the node whose CPUs include the core; outermost scope.
  int numa = -1;
  for (int i = 0; i < hw.count(HWLOC_OBJ_NUMANODE); ++i) {
    const hwloc_obj_t nn = hwloc_get_obj_by_type(hw.get(), HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (numa < 0 && hwloc_bitmap_isincluded(core->cpuset, nn->cpuset)) numa = i;
  }
  CHECK_EQ(h.numa_id, numa);
  CHECK_EQ(h.scopes[h.num_scopes - 1].scope, DART_LOCALITY_SCOPE_NUMA);
  CHECK_EQ(h.scopes[h.num_scopes - 1].index, numa);
  if (numa >= 0) {
    const hwloc_obj_t nn = hwloc_get_obj_by_type(hw.get(), HWLOC_OBJ_NUMANODE, static_cast<unsigned>(numa));
    CHECK_EQ(h.numa_memory_bytes, static_cast<int>(nn->attr->numanode.local_memory >> 20));
  }

  // Caches above the core: L1..L3 sizes, line sizes and ids; every data
  // cache and package on the way up is a scope, in order.
  int expect_size[3] = {-1, -1, -1}, expect_line[3] = {-1, -1, -1}, expect_id[3] = {-1, -1, -1};
  std::vector<std::pair<int, int>> chain = {{DART_LOCALITY_SCOPE_CORE, h.core_id}};
  for (hwloc_obj_t a = core->parent; a && a->type != HWLOC_OBJ_MACHINE; a = a->parent) {
    if (hwloc_obj_type_is_dcache(a->type) ||
        (hwloc_obj_type_is_cache(a->type) && a->attr->cache.type == HWLOC_OBJ_CACHE_UNIFIED)) {
      const unsigned lvl = a->attr->cache.depth;
      if (lvl >= 1 && lvl <= 3 && expect_size[lvl - 1] < 0) {
        expect_size[lvl - 1] = static_cast<int>(a->attr->cache.size);
        expect_line[lvl - 1] = static_cast<int>(a->attr->cache.linesize);
        expect_id[lvl - 1] = static_cast<int>(a->logical_index);
      }
      chain.emplace_back(DART_LOCALITY_SCOPE_CACHE, static_cast<int>(a->logical_index));
    } else if (a->type == HWLOC_OBJ_PACKAGE) {
      chain.emplace_back(DART_LOCALITY_SCOPE_PACKAGE, static_cast<int>(a->logical_index));
    }
  }
  if (numa >= 0) chain.emplace_back(DART_LOCALITY_SCOPE_NUMA, numa);
  for (int l = 0; l < 3; ++l) {
    CHECK_EQ(h.cache_sizes[l], expect_size[l]);
    CHECK_EQ(h.cache_line_sizes[l], expect_line[l]);
    CHECK_EQ(h.cache_ids[l], expect_id[l]);
  }
  for (int l = 3; l < DART_LOCALITY_MAX_CACHE_LEVELS; ++l) CHECK_EQ(h.cache_sizes[l], -1);
  REQUIRE_EQ(h.num_scopes, static_cast<int>(chain.size()));
  for (int s = 0; s < h.num_scopes; ++s) {
    CHECK_EQ(static_cast<int>(h.scopes[s].scope), chain[static_cast<std::size_t>(s)].first);
    CHECK_EQ(h.scopes[s].index, chain[static_cast<std::size_t>(s)].second);
  }
  // The path from the module down to the leaf is that chain, outermost
  // first, with hwloc's indices.
  std::vector<std::pair<int, int>> path;
  for (const Domain* d = leaf; d != module; d = d->parent) path.emplace_back(d->scope, d->global_index);
  CHECK_RANK(path == chain);
}

BOOST_AUTO_TEST_CASE(oversubscribed_units_share_cores_evenly) {
  const Hwloc hw;
  const NodeInfo node = node_info();
  if (!mpitest::all_ranks(unbound())) {
    BOOST_TEST_MESSAGE("units are bound by the launcher; placement of unbound units not checked");
    return;
  }
  // Units of my node per core leaf: as many leaves as the node can fill,
  // counts differing by at most one.
  const dart_unit_locality_t* mine = unit(me);
  REQUIRE_RANK(mine != nullptr);
  const Domain* node_domain = find(root, mine->domain_tag);
  while (node_domain->scope != DART_LOCALITY_SCOPE_NODE) node_domain = node_domain->parent;
  const auto leaves = scope_domains(node_domain, DART_LOCALITY_SCOPE_CORE);
  CHECK_EQ(static_cast<int>(leaves.size()), std::min(node.size, hw.cores()));
  int lo = INT_MAX, hi = 0;
  for (const Domain* l : leaves) {
    lo = std::min(lo, l->num_units);
    hi = std::max(hi, l->num_units);
  }
  CHECK_RANK(hi - lo <= 1);
  // One leaf per core used.
  std::set<int> cores;
  for (const Domain* l : leaves) cores.insert(l->global_index);
  CHECK_EQ(cores.size(), leaves.size());
}

BOOST_AUTO_TEST_CASE(fixed_xml_topologies) {
  const NodeInfo node = node_info();
  const char* dir_env = std::getenv("DART_TEST_TOPOLOGY_DIR");
  const std::string dir = dir_env && *dir_env ? dir_env : DART_TEST_TOPOLOGY_DIR;
  // The placement tables cover one node with up to 4 units (the harness
  // runs 1-4 ranks on one machine).
  const bool exact = node.nodes == 1 && n <= 4;
  if (!exact) BOOST_TEST_MESSAGE("more than one node or more than 4 units: only per-node hardware info is checked");
  {
    const SavedEnv keep_xml("HWLOC_XMLFILE"), keep_thissystem("HWLOC_THISSYSTEM"), keep_synthetic("HWLOC_SYNTHETIC");
    // Not this system: the launcher's binding plays no part, every unit is
    // placed by the rule for unbound units.
    unsetenv("HWLOC_THISSYSTEM");
    unsetenv("HWLOC_SYNTHETIC");
    for (const XmlTopology* t : {&kTwoSocket, &kSingleSocket}) {
      BOOST_TEST_CONTEXT("topology " << t->file) {
        const std::string path = dir + "/" + t->file;
        REQUIRE_RANK(access(path.c_str(), R_OK) == 0);
        setenv("HWLOC_XMLFILE", path.c_str(), 1);
        restart_dart();  // DART_TEAM_ALL's locality comes from dart_init

        // My own record: what the machine has, whatever the placement.
        const dart_unit_locality_t* mine = unit(me);
        REQUIRE_RANK(mine != nullptr);
        CHECK_EQ(mine->hwinfo.num_numa, t->numa_nodes);
        CHECK_EQ(mine->hwinfo.num_sockets, t->packages);
        CHECK_EQ(mine->hwinfo.system_memory_bytes, t->system_mib);
        CHECK_EQ(mine->hwinfo.numa_memory_bytes, t->numa_mib);
        CHECK_EQ(mine->hwinfo.max_threads, t->max_threads);
        for (int l = 0; l < 3; ++l) CHECK_EQ(mine->hwinfo.cache_sizes[l], t->cache_size[l]);
        const std::string v = violation(*root, true);
        BOOST_CHECK_MESSAGE(v.empty(), "rank " << me << ": " << v);
        if (!exact) continue;
        const auto k = static_cast<std::size_t>(n - 1);

        // Every unit's record, as every unit holds it.
        for (int u = 0; u < n; ++u) {
          BOOST_TEST_CONTEXT("unit " << u << " of " << n) {
            const XmlUnit& e = t->unit[u];
            const dart_unit_locality_t* l = unit(u);
            REQUIRE_RANK(l != nullptr);
            const dart_hwinfo_t& h = l->hwinfo;
            CHECK_EQ(std::string(l->domain_tag), std::string(t->leaf_tag[k][u]));
            CHECK_EQ(h.num_cores, t->unit_cores[k][u]);
            CHECK_EQ(h.num_numa, t->numa_nodes);
            CHECK_EQ(h.num_sockets, t->packages);
            CHECK_EQ(h.core_id, e.core);
            CHECK_EQ(h.cpu_id, e.cpu);
            CHECK_EQ(h.numa_id, e.numa);
            CHECK_EQ(h.min_threads, 1);
            CHECK_EQ(h.max_threads, t->max_threads);
            CHECK_EQ(h.system_memory_bytes, t->system_mib);
            CHECK_EQ(h.numa_memory_bytes, t->numa_mib);
            const int ids[3] = {e.l1, e.l2, e.l3};
            for (int c = 0; c < 3; ++c) {
              CHECK_EQ(h.cache_sizes[c], t->cache_size[c]);
              CHECK_EQ(h.cache_line_sizes[c], 64);
              CHECK_EQ(h.cache_ids[c], ids[c]);
            }
            for (int c = 3; c < DART_LOCALITY_MAX_CACHE_LEVELS; ++c) CHECK_EQ(h.cache_sizes[c], -1);
            // Core, L1d, L2, L3, package, NUMA: no L1i, no Group.
            const std::vector<std::pair<int, int>> expect_scopes = {
                {DART_LOCALITY_SCOPE_CORE, e.core},       {DART_LOCALITY_SCOPE_CACHE, e.l1},
                {DART_LOCALITY_SCOPE_CACHE, e.l2},        {DART_LOCALITY_SCOPE_CACHE, e.l3},
                {DART_LOCALITY_SCOPE_PACKAGE, e.package}, {DART_LOCALITY_SCOPE_NUMA, e.numa}};
            std::vector<std::pair<int, int>> scopes;
            for (int s = 0; s < h.num_scopes && s < DART_LOCALITY_MAX_DOMAIN_SCOPES; ++s)
              scopes.emplace_back(h.scopes[s].scope, h.scopes[s].index);
            CHECK_RANK(scopes == expect_scopes);

            // The leaf and the path up to the root: scope and hardware
            // index at each level.
            const Domain* leaf = find(root, t->leaf_tag[k][u]);
            REQUIRE_RANK(leaf != nullptr);
            CHECK_EQ(leaf->level, 8);
            CHECK_EQ(leaf->num_domains, 0);
            CHECK_RANK(unit_list(*leaf) == std::vector<int>{u});
            CHECK_EQ(leaf->num_cores, t->unit_cores[k][u]);
            const int expect_index[9] = {0, 0, 0, e.numa, e.package, e.l3, e.l2, e.l1, e.core};
            for (const Domain* d = leaf; d; d = d->parent) {
              REQUIRE_RANK(d->level >= 0 && d->level <= 8);
              CHECK_EQ(d->scope, kXmlLevelScope[d->level]);
              CHECK_EQ(d->global_index, expect_index[d->level]);
              if (d->level >= 1) CHECK_EQ(std::string(d->host), hostname());
            }
          }
        }

        // The tree: domains per level and per scope, in pre-order.
        std::vector<int> levels;
        count_levels(*root, levels);
        CHECK_RANK(levels == std::vector<int>(t->per_level[k], t->per_level[k] + 9));
        CHECK_EQ(root->num_units, n);
        CHECK_EQ(root->num_cores, t->cores);
        CHECK_EQ(root->num_nodes, 1);
        const Domain* module = find(root, ".0.0");
        REQUIRE_RANK(module != nullptr);
        CHECK_EQ(module->scope, DART_LOCALITY_SCOPE_MODULE);
        CHECK_EQ(module->num_cores, t->cores);
        const auto numas = scope_domains(root, DART_LOCALITY_SCOPE_NUMA);
        CHECK_RANK(global_indices(numas) == t->numa_index[k]);
        for (const Domain* d : numas) CHECK_EQ(d->num_cores, t->numa_cores[k]);
        CHECK_RANK(global_indices(scope_domains(root, DART_LOCALITY_SCOPE_PACKAGE)) == t->package_index[k]);
        const auto caches = scope_domains(root, DART_LOCALITY_SCOPE_CACHE);  // the outermost: L3
        CHECK_EQ(static_cast<int>(caches.size()), t->per_level[k][5]);
        REQUIRE_RANK(!caches.empty());
        CHECK_EQ(caches.front()->is_symmetric, t->l3_symmetric[k]);
        const auto cores = scope_domains(root, DART_LOCALITY_SCOPE_CORE);
        CHECK_RANK(global_indices(cores) == t->core_index[k]);
        std::vector<std::string> sorted_tags(t->leaf_tag[k], t->leaf_tag[k] + n);
        std::sort(sorted_tags.begin(), sorted_tags.end());
        CHECK_RANK(scope_tags(root, DART_LOCALITY_SCOPE_CORE) == sorted_tags);
        const std::string tree = serialize(*root);
        BOOST_CHECK_MESSAGE(same_as_rank0(tree), "rank " << me << ": tree differs from rank 0's");

        // dart_team_locality_finalize + init reads the file again: the
        // same tree.
        reinit_world();
        CHECK_RANK(serialize(*root) == tree);
      }
    }
  }

  // The variables as they were: the live machine again.
  restart_dart();
  const Hwloc live;
  const dart_unit_locality_t* again = unit(me);
  REQUIRE_RANK(again != nullptr);
  CHECK_EQ(again->hwinfo.num_numa, live.count(HWLOC_OBJ_NUMANODE));
  CHECK_EQ(again->hwinfo.system_memory_bytes, static_cast<int>(hwloc_get_root_obj(live.get())->total_memory >> 20));
  const Domain* leaf2 = find(root, again->domain_tag);
  REQUIRE_RANK(leaf2 != nullptr);
  while (leaf2->scope != DART_LOCALITY_SCOPE_MODULE) leaf2 = leaf2->parent;
  CHECK_EQ(leaf2->num_cores, live.cores());
}

BOOST_AUTO_TEST_CASE(max_shmem_mbps_from_environment) {
  setenv("DASH_MAX_SHMEM_MBPS", "4321", 1);
  restart_dart();
  CHECK_EQ(unit(me)->hwinfo.max_shmem_mbps, 4321);
  CHECK_EQ(unit((me + 1) % n)->hwinfo.max_shmem_mbps, 4321);
  setenv("DASH_MAX_SHMEM_MBPS", "0", 1);  // <= 0: DASH's default
  restart_dart();
  CHECK_EQ(unit(me)->hwinfo.max_shmem_mbps, 1235);
  unsetenv("DASH_MAX_SHMEM_MBPS");
  restart_dart();
  CHECK_EQ(unit(me)->hwinfo.max_shmem_mbps, 1235);
}

BOOST_AUTO_TEST_CASE(init_and_finalize_repeated) {
  const std::string before = serialize(*root);
  for (int round = 0; round < 3; ++round) {
    CHECK_OK(dart_team_locality_finalize(DART_TEAM_ALL));
    Domain* d = root;
    dart_unit_locality_t* loc = reinterpret_cast<dart_unit_locality_t*>(&d);
    {
      QuietDart quiet;
      CHECK_EQ(dart_domain_team_locality(DART_TEAM_ALL, ".", &d), DART_ERR_INVAL);
      CHECK_EQ(d, nullptr);
      CHECK_EQ(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), &loc), DART_ERR_INVAL);
      CHECK_EQ(loc, nullptr);
    }
    CHECK_OK(dart_team_locality_finalize(DART_TEAM_ALL));  // no data: nothing to do
    REQUIRE_OK(dart_team_locality_init(DART_TEAM_ALL));
    {
      QuietDart quiet;  // twice is erroneous; refused without communicating
      CHECK_EQ(dart_team_locality_init(DART_TEAM_ALL), DART_ERR_OTHER);
    }
    REQUIRE_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
    CHECK_EQ(serialize(*root), before);
  }
}

BOOST_AUTO_TEST_SUITE_END()
