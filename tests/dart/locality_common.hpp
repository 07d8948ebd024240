// What the two files of the locality suite (test_locality.cpp and
// test_locality_domains.cpp, one executable: dart_locality) share:
// serialising and walking domain trees, client-built trees, an independent
// hwloc query of the machine, the fixed XML topologies of topologies/ with
// what DART must report for them, environment save/restore, and the
// fixture that makes DART_TEAM_ALL's locality data available.
#pragma once

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

namespace localitytest {

using dartcheck::QuietDart;
using Domain = dart_domain_locality_t;

// ---- helpers --------------------------------------------------------------------

inline std::string child_tag(const std::string& parent, int i) {
  return (parent == "." ? std::string(".") : parent + ".") + std::to_string(i);
}

inline std::vector<int> unit_list(const Domain& d) {
  std::vector<int> out;
  for (int i = 0; i < d.num_units; ++i) out.push_back(d.unit_ids[i].id);
  return out;
}

// Everything a client can see of a tree, as text.
inline void serialize(const Domain& d, std::ostringstream& os) {
  os << d.domain_tag << '|' << d.scope << '|' << d.level << '|' << d.global_index << '|' << d.relative_index << '|'
     << d.host << '|' << d.num_cores << '|' << d.node_id << '|' << d.num_nodes << '|' << d.is_symmetric << '|'
     << d.shared_mem_bytes << '|' << d.team << "|u";
  for (int u : unit_list(d)) os << ',' << u;
  os << "|{";
  for (int i = 0; i < d.num_domains; ++i) serialize(*d.children[i], os);
  os << '}';
}
inline std::string serialize(const Domain& d) {
  std::ostringstream os;
  serialize(d, os);
  return os.str();
}

// Whether `s` equals rank 0's `s`.
inline bool same_as_rank0(const std::string& s) {
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
inline std::string violation(const Domain& d, bool exact_tags) {
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

inline std::vector<Domain*> scope_domains(const Domain* root, dart_locality_scope_t scope) {
  int n = -1;
  Domain** arr = nullptr;
  const dart_ret_t rc = dart_domain_scope_domains(root, scope, &n, &arr);
  std::vector<Domain*> out;
  if (rc == DART_OK) out.assign(arr, arr + n);
  std::free(arr);
  return out;
}

inline std::vector<std::string> scope_tags(const Domain* root, dart_locality_scope_t scope) {
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

inline std::vector<std::string> tags_of(const std::vector<Domain*>& ds) {
  std::vector<std::string> out;
  for (const Domain* d : ds) out.emplace_back(d->domain_tag);
  return out;
}

// Pre-order walk that collects every domain of `scope` (and below no
// further): the reference order for scope_domains.
inline void preorder(const Domain& d, dart_locality_scope_t scope, std::vector<std::string>& out) {
  if (d.scope == scope) {
    out.emplace_back(d.domain_tag);
    return;
  }
  for (int i = 0; i < d.num_domains; ++i) preorder(*d.children[i], scope, out);
}

inline std::string hostname() {
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
inline NodeInfo node_info() {
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
inline Domain* make_domain(dart_locality_scope_t scope, const std::vector<int>& units = {}) {
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
inline Domain* make_tree() {
  Domain* root = make_domain(DART_LOCALITY_SCOPE_GLOBAL);
  std::strcpy(root->domain_tag, ".");
  root->team = 0;
  const std::vector<std::vector<std::vector<int>>> shape = {{{0, 1}, {2}}, {{3}}, {{4, 5}}};
  for (const auto& inner : shape) {
    Domain* mid = make_domain(DART_LOCALITY_SCOPE_NUMA);
    CHECK_OK(dart_domain_add_subdomain(root, mid, -1));
    for (const auto& leaf : inner)
      CHECK_OK(dart_domain_add_subdomain(mid, make_domain(DART_LOCALITY_SCOPE_CORE, leaf), -1));
  }
  return root;
}

// nullptr when not found (quietly: tests probe for absent tags).
inline Domain* find(const Domain* root, const char* tag) {
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
inline bool unbound() {
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
  const char* leaf_tag[4][4];         // [n-1][unit]: dart_unit_locality_t::domain_tag
  int unit_cores[4][4];               // [n-1][unit]: hwinfo.num_cores in the unit table (leaf's share)
  int per_level[4][9];                // [n-1][level]: domains per tree level (GLOBAL .. CORE)
  std::vector<int> numa_index[4];     // NUMA domains' global_index, pre-order
  std::vector<int> package_index[4];  // PACKAGE domains' global_index, pre-order
  std::vector<int> core_index[4];     // CORE domains' global_index, pre-order
  int numa_cores[4];                  // num_cores of each NUMA domain
  int l3_symmetric[4];                // is_symmetric of the first L3 domain
};

// Scopes of the levels below the root, for both files: hwloc's Group
// objects (two_socket_numa.xml) have no DART scope and are skipped, L1i
// caches are not loaded, and NUMA is outermost (spec 5.2: scopes never
// decrease from root to leaf).
inline const dart_locality_scope_t kXmlLevelScope[9] = {DART_LOCALITY_SCOPE_GLOBAL,
                                                        DART_LOCALITY_SCOPE_NODE,
                                                        DART_LOCALITY_SCOPE_MODULE,
                                                        DART_LOCALITY_SCOPE_NUMA,
                                                        DART_LOCALITY_SCOPE_PACKAGE,
                                                        DART_LOCALITY_SCOPE_CACHE /* L3 */,
                                                        DART_LOCALITY_SCOPE_CACHE /* L2 */,
                                                        DART_LOCALITY_SCOPE_CACHE /* L1d */,
                                                        DART_LOCALITY_SCOPE_CORE};

inline const XmlTopology kTwoSocket = {
    "two_socket_numa.xml",
    // 2 packages x (L3 32 MiB, 2 NUMA nodes of 16 GiB x 4 cores (L2 1 MiB, L1d 48 KiB) x 2 PUs)
    16,
    4,
    2,
    2,
    {49152, 1048576, 33554432},
    65536,
    16384,
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
    {{1, 1, 1, 1, 1, 1, 1, 1, 1},
     {1, 1, 1, 2, 2, 2, 2, 2, 2},
     {1, 1, 1, 3, 3, 3, 3, 3, 3},
     {1, 1, 1, 4, 4, 4, 4, 4, 4}},
    {{0}, {0, 2}, {0, 1, 2}, {0, 1, 2, 3}},
    {{0}, {0, 1}, {0, 0, 1}, {0, 0, 1, 1}},  // a package appears below each of its NUMA nodes
    {{0}, {0, 8}, {0, 4, 8}, {0, 4, 8, 12}},
    {16, 8, 5, 4},
    {1, 1, 1, 1},
};

inline const XmlTopology kSingleSocket = {
    "single_socket.xml",
    // 1 package, 1 NUMA node of 8 GiB, L3 8 MiB, 2 L2 of 2 MiB each shared
    // by 2 cores (L1d 32 KiB), 1 PU per core.
    4,
    1,
    1,
    1,
    {32768, 2097152, 8388608},
    8192,
    8192,
    // L2 0, L2 1, L2 0 (second core), L2 1 (second core).
    {{0, 0, 0, 0, 0, 0, 0}, {2, 2, 0, 0, 2, 1, 0}, {1, 1, 0, 0, 1, 0, 0}, {3, 3, 0, 0, 3, 1, 0}},
    {{".0.0.0.0.0.0.0.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.0.0.0.1.0.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.0.0.0.1.0.0", ".0.0.0.0.0.0.1.0"},
     {".0.0.0.0.0.0.0.0", ".0.0.0.0.0.1.0.0", ".0.0.0.0.0.0.1.0", ".0.0.0.0.0.1.1.0"}},
    // n = 3: L2 0 holds 2 of 3 units: 4 * 2 / 3 = 2 cores, 1 per unit;
    // L2 1 holds 1: 4 / 3 = 1.
    {{4}, {2, 2}, {1, 1, 1}, {1, 1, 1, 1}},
    {{1, 1, 1, 1, 1, 1, 1, 1, 1},
     {1, 1, 1, 1, 1, 1, 2, 2, 2},
     {1, 1, 1, 1, 1, 1, 2, 3, 3},
     {1, 1, 1, 1, 1, 1, 2, 4, 4}},
    {{0}, {0}, {0}, {0}},
    {{0}, {0}, {0}, {0}},
    {{0}, {0, 2}, {0, 1, 2}, {0, 1, 2, 3}},
    {4, 4, 4, 4},
    {1, 1, 0, 1},  // n = 3: the L2 domains hold 2 and 1 units
};

inline void count_levels(const Domain& d, std::vector<int>& per_level) {
  if (static_cast<std::size_t>(d.level) >= per_level.size()) per_level.resize(static_cast<std::size_t>(d.level) + 1, 0);
  ++per_level[static_cast<std::size_t>(d.level)];
  for (int i = 0; i < d.num_domains; ++i) count_levels(*d.children[i], per_level);
}

inline std::vector<int> global_indices(const std::vector<Domain*>& ds) {
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

}  // namespace localitytest
