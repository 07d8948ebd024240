// Locality of DART (spec 2.8, 2.9, 3.4.1 dart_group_locality_split, 3.8,
// 5): the domain tree of DART_TEAM_ALL on the live machine (shape and
// fields per spec 5.3, identical on every unit, every unit in exactly one
// leaf, leaf tags in the unit table), each unit's dart_hwinfo_t against an
// independent hwloc query (cores, NUMA, packages, caches, memory, core and
// CPU ids consistent), placement of oversubscribed unbound units (units
// share cores only when there are more units than cores, evenly); the
// hwloc XML topologies checked in under topologies/ (a two-socket machine
// with 4 NUMA nodes, 16 cores, 32 PUs, and a single-socket machine with 4
// cores), fed through HWLOC_XMLFILE across dart_exit + dart_init: domain
// counts per level and scope, tags, scopes and hardware indices along each
// path, hwinfo (counts, ids, caches, memory) and the placement of units
// 0..n-1 written down per n = 1..4; DASH_MAX_SHMEM_MBPS, init/finalize cycles and
// double init; find, scope_tags/scope_domains (pre-order, NOTFOUND),
// clone/assign/destroy (deep copies, team trees protected), select,
// exclude (component-wise tag matching), split_scope, group (siblings and
// cousins), add/move subdomain on client-built trees;
// dart_group_locality_split (one group per domain, merged groups,
// sub-groups, NOTFOUND); locality of a sub-team (team-relative unit table,
// same records as in DART_TEAM_ALL, data gone with the team); bad input.
// Not covered: several nodes (one machine only: a single NODE domain;
// node grouping by shared-memory domain is exercised with one node),
// the POSIX fallback when hwloc fails, and bound units (the harness runs
// with --bind-to none; placement of bound units is checked only when the
// launcher binds).
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include <hwloc.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sched.h>
#include <unistd.h>

namespace {

using dartcheck::QuietDart;
using Domain = dart_domain_locality_t;

// ---- helpers --------------------------------------------------------------------

std::string child_tag(const std::string& parent, int i) {
  return (parent == "." ? std::string(".") : parent + ".") + std::to_string(i);
}

std::vector<int> unit_list(const Domain& d) {
  std::vector<int> out;
  for (int i = 0; i < d.num_units; ++i) out.push_back(d.unit_ids[i].id);
  return out;
}

// Everything a client can see of a tree, as text.
void serialize(const Domain& d, std::ostringstream& os) {
  os << d.domain_tag << '|' << d.scope << '|' << d.level << '|' << d.global_index << '|' << d.relative_index << '|'
     << d.host << '|' << d.num_cores << '|' << d.node_id << '|' << d.num_nodes << '|' << d.is_symmetric << '|'
     << d.shared_mem_bytes << '|' << d.team << "|u";
  for (int u : unit_list(d)) os << ',' << u;
  os << "|{";
  for (int i = 0; i < d.num_domains; ++i) serialize(*d.children[i], os);
  os << '}';
}
std::string serialize(const Domain& d) {
  std::ostringstream os;
  serialize(d, os);
  return os.str();
}

// Whether `s` equals rank 0's `s`.
bool same_as_rank0(const std::string& s) {
  int len = static_cast<int>(s.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root(static_cast<std::size_t>(len), '\0');
  if (mpitest::world_rank() == 0) root = s;
  MPI_Bcast(root.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  return root == s;
}

// Spec 5.3 rules 2 and 4 and monotonic scopes, below `d`; the first
// violation, or "". `exact_tags`: tag == parent tag + "." + relative index
// (after select/exclude tags are kept, so only "extends the parent's tag").
std::string violation(const Domain& d, bool exact_tags) {
  const std::string tag = d.domain_tag;
  std::vector<int> concat;
  for (int i = 0; i < d.num_domains; ++i) {
    const Domain* c = d.children[i];
    if (!c) return tag + ": child " + std::to_string(i) + " is NULL";
    const std::string ct = c->domain_tag;
    if (c->parent != &d) return ct + ": parent pointer";
    if (c->relative_index != i) return ct + ": relative_index " + std::to_string(c->relative_index);
    if (c->level != d.level + 1) return ct + ": level " + std::to_string(c->level);
    if (c->team != d.team) return ct + ": team";
    if (exact_tags && ct != child_tag(tag, i)) return ct + ": tag is not " + child_tag(tag, i);
    const std::string prefix = tag == "." ? "." : tag + ".";
    if (ct.compare(0, prefix.size(), prefix) != 0) return ct + ": tag does not extend " + tag;
    if (c->scope < d.scope) return ct + ": scope " + std::to_string(c->scope) + " above parent's";
    for (int u : unit_list(*c)) concat.push_back(u);
    const std::string sub = violation(*c, exact_tags);
    if (!sub.empty()) return sub;
  }
  if (d.num_domains > 0 && d.scope != DART_LOCALITY_SCOPE_GLOBAL && unit_list(d) != concat)
    return tag + ": units are not the concatenation of the children's";
  return "";
}

std::vector<Domain*> scope_domains(const Domain* root, dart_locality_scope_t scope) {
  int n = -1;
  Domain** arr = nullptr;
  const dart_ret_t rc = dart_domain_scope_domains(root, scope, &n, &arr);
  std::vector<Domain*> out;
  if (rc == DART_OK) out.assign(arr, arr + n);
  std::free(arr);
  return out;
}

std::vector<std::string> scope_tags(const Domain* root, dart_locality_scope_t scope) {
  int n = -1;
  char** arr = nullptr;
  const dart_ret_t rc = dart_domain_scope_tags(root, scope, &n, &arr);
  std::vector<std::string> out;
  if (rc == DART_OK)
    for (int i = 0; i < n; ++i) {
      out.emplace_back(arr[i]);
      std::free(arr[i]);
    }
  std::free(arr);
  return out;
}

std::vector<std::string> tags_of(const std::vector<Domain*>& ds) {
  std::vector<std::string> out;
  for (const Domain* d : ds) out.emplace_back(d->domain_tag);
  return out;
}

// Pre-order walk that collects every domain of `scope` (and below no
// further): the reference order for scope_domains.
void preorder(const Domain& d, dart_locality_scope_t scope, std::vector<std::string>& out) {
  if (d.scope == scope) {
    out.emplace_back(d.domain_tag);
    return;
  }
  for (int i = 0; i < d.num_domains; ++i) preorder(*d.children[i], scope, out);
}

std::string hostname() {
  char h[DART_LOCALITY_HOST_MAX_SIZE] = {};
  gethostname(h, sizeof h - 1);
  return h;
}

// The node of this rank as MPI sees it (shared memory): rank and size.
struct NodeInfo {
  int rank = 0;
  int size = 1;
  int nodes = 1;
};
NodeInfo node_info() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpitest::world_rank(), MPI_INFO_NULL, &node);
  NodeInfo info;
  MPI_Comm_rank(node, &info.rank);
  MPI_Comm_size(node, &info.size);
  MPI_Comm_free(&node);
  int leader = info.rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &info.nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return info;
}

// A domain for a client-built tree: scope and (malloc'ed, as the library
// frees unit lists with free()) units.
Domain* make_domain(dart_locality_scope_t scope, const std::vector<int>& units = {}) {
  Domain* d = nullptr;
  CHECK_OK(dart_domain_create(&d));
  d->scope = scope;
  if (!units.empty()) {
    d->unit_ids = static_cast<dart_global_unit_t*>(std::malloc(units.size() * sizeof(dart_global_unit_t)));
    for (std::size_t i = 0; i < units.size(); ++i) d->unit_ids[i].id = units[i];
    d->num_units = static_cast<int>(units.size());
  }
  return d;
}

// "." -> A ".0" {a0 ".0.0" [0,1], a1 ".0.1" [2]}, B ".1" {b0 ".1.0" [3]},
// C ".2" {c0 ".2.0" [4,5]}, built with dart_domain_add_subdomain.
Domain* make_tree() {
  Domain* root = make_domain(DART_LOCALITY_SCOPE_GLOBAL);
  std::strcpy(root->domain_tag, ".");
  root->team = 0;
  const std::vector<std::vector<std::vector<int>>> shape = {{{0, 1}, {2}}, {{3}}, {{4, 5}}};
  for (const auto& inner : shape) {
    Domain* mid = make_domain(DART_LOCALITY_SCOPE_NUMA);
    CHECK_OK(dart_domain_add_subdomain(root, mid, -1));
    for (const auto& leaf : inner) CHECK_OK(dart_domain_add_subdomain(mid, make_domain(DART_LOCALITY_SCOPE_CORE, leaf), -1));
  }
  return root;
}

// nullptr when not found (quietly: tests probe for absent tags).
Domain* find(const Domain* root, const char* tag) {
  QuietDart quiet;
  Domain* d = nullptr;
  return dart_domain_find(root, tag, &d) == DART_OK ? d : nullptr;
}

// The independent view of the machine: hwloc loaded by the test itself.
class Hwloc {
 public:
  Hwloc() {
    hwloc_topology_init(&topo_);
    hwloc_topology_load(topo_);
    core_type_ = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  }
  ~Hwloc() { hwloc_topology_destroy(topo_); }
  Hwloc(const Hwloc&) = delete;
  Hwloc& operator=(const Hwloc&) = delete;
  int count(hwloc_obj_type_t t) const { return hwloc_get_nbobjs_by_type(topo_, t); }
  int cores() const { return count(core_type_); }
  hwloc_obj_t core(int i) const { return hwloc_get_obj_by_type(topo_, core_type_, static_cast<unsigned>(i)); }
  hwloc_obj_t pu(int i) const { return hwloc_get_obj_by_type(topo_, HWLOC_OBJ_PU, static_cast<unsigned>(i)); }
  hwloc_topology_t get() const { return topo_; }

 private:
  hwloc_topology_t topo_ = nullptr;
  hwloc_obj_type_t core_type_ = HWLOC_OBJ_CORE;
};

// Whether this unit may run on every CPU of the machine (not bound).
bool unbound() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return false;
  return CPU_COUNT(&set) == static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
}

// ---- fixed topologies checked in under tests/dart/topologies ------------------------
//
// Each file is fed to DART through HWLOC_XMLFILE with dart_exit + dart_init
// (DART_TEAM_ALL's locality is set up inside dart_init). The expected
// values below are written down from the topology descriptions in
// topologies/README.md, not read back from the files. A topology loaded
// from XML is not "this system" for hwloc, so every unit counts as unbound
// and is placed by DART's rule (dart/src/locality/hwinfo.cpp, from_topology):
// walking down from the machine, into the child with the fewest units per
// core so far, first child on ties; units are placed in node-rank order,
// so the core of node rank r does not depend on how many ranks follow.

// Hardware ids (hwloc logical indices) of the unit of node rank r.
struct XmlUnit {
  int core, cpu, numa, package, l1, l2, l3;
};

struct XmlTopology {
  const char* file;
  int cores;        // hwinfo.num_cores as detected, module num_cores
  int numa_nodes;   // hwinfo.num_numa
  int packages;     // hwinfo.num_sockets
  int max_threads;  // PUs per core
  int cache_size[3];
  int system_mib, numa_mib;
  XmlUnit unit[4];  // node ranks 0..3
  // For n = 1..4 units (index n-1):
  const char* leaf_tag[4][4];   // [n-1][unit]: dart_unit_locality_t::domain_tag
  int unit_cores[4][4];         // [n-1][unit]: hwinfo.num_cores in the unit table (leaf's share)
  int per_level[4][9];          // [n-1][level]: domains per tree level (GLOBAL .. CORE)
  std::vector<int> numa_index[4];     // NUMA domains' global_index, pre-order
  std::vector<int> package_index[4];  // PACKAGE domains' global_index, pre-order
  std::vector<int> core_index[4];     // CORE domains' global_index, pre-order
  int numa_cores[4];            // num_cores of each NUMA domain
  int l3_symmetric[4];          // is_symmetric of the first L3 domain
};

// Scopes of the levels below the root, for both files: hwloc's Group
// objects (two_socket_numa.xml) have no DART scope and are skipped, L1i
// caches are not loaded, and NUMA is outermost (spec 5.2: scopes never
// decrease from root to leaf).
const dart_locality_scope_t kXmlLevelScope[9] = {
    DART_LOCALITY_SCOPE_GLOBAL,  DART_LOCALITY_SCOPE_NODE,  DART_LOCALITY_SCOPE_MODULE,
    DART_LOCALITY_SCOPE_NUMA,    DART_LOCALITY_SCOPE_PACKAGE, DART_LOCALITY_SCOPE_CACHE /* L3 */,
    DART_LOCALITY_SCOPE_CACHE /* L2 */, DART_LOCALITY_SCOPE_CACHE /* L1d */, DART_LOCALITY_SCOPE_CORE};

const XmlTopology kTwoSocket = {
    "two_socket_numa.xml",
    // 2 packages x (L3 32 MiB, 2 NUMA nodes of 16 GiB x 4 cores (L2 1 MiB, L1d 48 KiB) x 2 PUs)
    16, 4, 2, 2, {49152, 1048576, 33554432}, 65536, 16384,
    // Package 0, then package 1 (empty), then NUMA 1 of package 0 (NUMA 0
    // has a unit), then NUMA 3; the first PU of each core (logical 2c).
    {{0, 0, 0, 0, 0, 0, 0}, {8, 16, 2, 1, 8, 8, 1}, {4, 8, 1, 0, 4, 4, 0}, {12, 24, 3, 1, 12, 12, 1}},
    // Leaf tags: .node.module.NUMA.package.L3.L2.L1.core; NUMA domains are
    // ordered by NUMA id, one per unit.
    {{".0.0.0.0.0.0.0.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.1.0.0.0.0.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.2.0.0.0.0.0", ".0.0.1.0.0.0.0.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.2.0.0.0.0.0", ".0.0.1.0.0.0.0.0", ".0.0.3.0.0.0.0.0"}},
    // 16 cores shared out by units: 16, 8, 16/3 = 5, 4.
    {{16}, {8, 8}, {5, 5, 5}, {4, 4, 4, 4}},
    {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 2, 2, 2, 2, 2, 2}, {1, 1, 1, 3, 3, 3, 3, 3, 3}, {1, 1, 1, 4, 4, 4, 4, 4, 4}},
    {{0}, {0, 2}, {0, 1, 2}, {0, 1, 2, 3}},
    {{0}, {0, 1}, {0, 0, 1}, {0, 0, 1, 1}},  // a package appears below each of its NUMA nodes
    {{0}, {0, 8}, {0, 4, 8}, {0, 4, 8, 12}},
    {16, 8, 5, 4},
    {1, 1, 1, 1},
};

const XmlTopology kSingleSocket = {
    "single_socket.xml",
    // 1 package, 1 NUMA node of 8 GiB, L3 8 MiB, 2 L2 of 2 MiB each shared
    // by 2 cores (L1d 32 KiB), 1 PU per core.
    4, 1, 1, 1, {32768, 2097152, 8388608}, 8192, 8192,
    // L2 0, L2 1, L2 0 (second core), L2 1 (second core).
    {{0, 0, 0, 0, 0, 0, 0}, {2, 2, 0, 0, 2, 1, 0}, {1, 1, 0, 0, 1, 0, 0}, {3, 3, 0, 0, 3, 1, 0}},
    {{".0.0.0.0.0.0.0.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.0.0.0.1.0.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.0.0.0.1.0.0", ".0.0.0.0.0.0.1.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.0.0.0.1.0.0", ".0.0.0.0.0.0.1.0", ".0.0.0.0.0.1.1.0"}},
    // n = 3: L2 0 holds 2 of 3 units: 4 * 2 / 3 = 2 cores, 1 per unit;
    // L2 1 holds 1: 4 / 3 = 1.
    {{4}, {2, 2}, {1, 1, 1}, {1, 1, 1, 1}},
    {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 2, 3, 3}, {1, 1, 1, 1, 1, 1, 2, 4, 4}},
    {{0}, {0}, {0}, {0}},
    {{0}, {0}, {0}, {0}},
    {{0}, {0, 2}, {0, 1, 2}, {0, 1, 2, 3}},
    {4, 4, 4, 4},
    {1, 1, 0, 1},  // n = 3: the L2 domains hold 2 and 1 units
};

void count_levels(const Domain& d, std::vector<int>& per_level) {
  if (static_cast<std::size_t>(d.level) >= per_level.size()) per_level.resize(static_cast<std::size_t>(d.level) + 1, 0);
  ++per_level[static_cast<std::size_t>(d.level)];
  for (int i = 0; i < d.num_domains; ++i) count_levels(*d.children[i], per_level);
}

std::vector<int> global_indices(const std::vector<Domain*>& ds) {
  std::vector<int> out;
  for (const Domain* d : ds) out.push_back(d->global_index);
  return out;
}

// An environment variable's value, to put back afterwards.
struct SavedEnv {
  explicit SavedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) value_ = v, set_ = true;
  }
  ~SavedEnv() {
    if (set_) setenv(name_, value_.c_str(), 1);
    else unsetenv(name_);
  }
  SavedEnv(const SavedEnv&) = delete;
  SavedEnv& operator=(const SavedEnv&) = delete;

 private:
  const char* name_;
  std::string value_;
  bool set_ = false;
};

// ---- fixture --------------------------------------------------------------------

struct Fixture : dartcheck::PlainDartFixture {
  Fixture() {
    // DART_TEAM_ALL's data comes with dart_init once the runtime sets it
    // up there; until then the test does it (the same answer everywhere).
    Domain* d = nullptr;
    dart_ret_t rc;
    {
      QuietDart quiet;
      rc = dart_domain_team_locality(DART_TEAM_ALL, ".", &d);
    }
    if (rc == DART_ERR_INVAL) REQUIRE_OK(dart_team_locality_init(DART_TEAM_ALL));
    REQUIRE_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  }

  void reinit_world() {
    CHECK_OK(dart_team_locality_finalize(DART_TEAM_ALL));
    REQUIRE_OK(dart_team_locality_init(DART_TEAM_ALL));
    REQUIRE_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  }
  // dart_exit and dart_init again: the runtime reads its environment
  // (DASH_MAX_SHMEM_MBPS among it) once per dart_init.
  void restart_dart() {
    CHECK_OK(dart_exit());
    REQUIRE_OK(dart_init(nullptr, nullptr));
    REQUIRE_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  }
  dart_unit_locality_t* unit(int u, dart_team_t team = DART_TEAM_ALL) const {
    dart_unit_locality_t* loc = nullptr;
    CHECK_OK(dart_unit_locality(team, DART_TEAM_UNIT_ID(u), &loc));
    return loc;
  }

  Domain* root = nullptr;
};

}  // namespace

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
    if (hwloc_obj_type_is_dcache(a->type) || (hwloc_obj_type_is_cache(a->type) && a->attr->cache.type == HWLOC_OBJ_CACHE_UNIFIED)) {
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
                {DART_LOCALITY_SCOPE_CORE, e.core},     {DART_LOCALITY_SCOPE_CACHE, e.l1},
                {DART_LOCALITY_SCOPE_CACHE, e.l2},      {DART_LOCALITY_SCOPE_CACHE, e.l3},
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
  for (auto scope : {DART_LOCALITY_SCOPE_NODE, DART_LOCALITY_SCOPE_MODULE, DART_LOCALITY_SCOPE_NUMA,
                     DART_LOCALITY_SCOPE_CORE}) {
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
  CHECK_EQ(t->is_symmetric, 0);  // A has two leaves, B one
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
  for (const std::string& tag : scope_tags(team_copy, DART_LOCALITY_SCOPE_CORE)) CHECK_RANK(find(root, tag.c_str()) != nullptr);
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
