#include "locality/hwinfo.hpp"

#include "core/runtime.hpp"

#include "core/log.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <optional>
#include <utility>

#include <sched.h>
#include <unistd.h>

namespace dart::locality {

namespace {

constexpr unsigned long long kMiB = 1ULL << 20;
constexpr int kDefaultShmemMbps = 1235;  // DASH's value when DASH_MAX_SHMEM_MBPS is unset

int clamp_int(unsigned long long v) {
  return v > static_cast<unsigned long long>(INT_MAX) ? INT_MAX : static_cast<int>(v);
}

class Topology {
 public:
  Topology() {
    if (hwloc_topology_init(&topo_) != 0) topo_ = nullptr;
  }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  ~Topology() {
    if (topo_) hwloc_topology_destroy(topo_);
  }
  // Discovers this machine (or what HWLOC_XMLFILE / HWLOC_SYNTHETIC name:
  // hwloc honours them, which is how tests feed fixed topologies). I/O
  // devices and instruction caches have no place in the hierarchy;
  // leaving them out also makes discovery cheaper.
  bool load() {
    if (!topo_) return false;
    hwloc_topology_set_io_types_filter(topo_, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo_, HWLOC_TYPE_FILTER_KEEP_NONE);
    return hwloc_topology_load(topo_) == 0;
  }
  [[nodiscard]] hwloc_topology_t get() const { return topo_; }

 private:
  hwloc_topology_t topo_ = nullptr;
};

class Bitmap {
 public:
  Bitmap() : map_(hwloc_bitmap_alloc()) {
    if (!map_) throw std::bad_alloc();
  }
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
  Bitmap(Bitmap&& o) noexcept : map_(std::exchange(o.map_, nullptr)) {}
  ~Bitmap() {
    if (map_) hwloc_bitmap_free(map_);
  }
  [[nodiscard]] hwloc_bitmap_t get() const { return map_; }

 private:
  hwloc_bitmap_t map_;
};

// The NUMA node whose memory is local to `core`: the smallest one whose
// CPU set covers the core (hwloc 2 hangs NUMA nodes beside the CPU tree,
// not in it), the first of equals (e.g. DRAM before HBM).
hwloc_obj_t numa_of(hwloc_topology_t topo, hwloc_obj_t core) {
  hwloc_obj_t best = nullptr;
  for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr); n;
       n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)) {
    if (!n->cpuset || !hwloc_bitmap_isincluded(core->cpuset, n->cpuset)) continue;
    if (!best || hwloc_bitmap_weight(n->cpuset) < hwloc_bitmap_weight(best->cpuset)) best = n;
  }
  return best;
}

// The record of a unit placed on `core` (a Core, or a PU where hwloc
// reports no cores) and hardware thread `pu`.
dart_hwinfo_t describe(hwloc_topology_t topo, hwloc_obj_type_t core_type, hwloc_obj_t core, hwloc_obj_t pu) {
  dart_hwinfo_t hw = blank_hwinfo();
  const int ncores = hwloc_get_nbobjs_by_type(topo, core_type);
  const int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  const int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  const int npackages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  hw.num_cores = ncores;
  hw.num_numa = nnuma > 0 ? nnuma : -1;
  hw.num_sockets = npackages > 0 ? npackages : -1;
  hw.core_id = static_cast<int>(core->logical_index);
  hw.cpu_id = static_cast<int>(pu->logical_index);
  hw.min_threads = 1;
  hw.max_threads = std::max(1, npus / std::max(1, ncores));
  // MiB, not bytes, as DASH stores them (spec 5.4): the fields are int.
  const hwloc_obj_t root = hwloc_get_root_obj(topo);
  if (root->total_memory > 0) hw.system_memory_bytes = clamp_int(root->total_memory / kMiB);
  const hwloc_obj_t numa = numa_of(topo, core);
  if (numa) {
    hw.numa_id = static_cast<int>(numa->logical_index);
    if (numa->attr && numa->attr->numanode.local_memory > 0)
      hw.numa_memory_bytes = clamp_int(numa->attr->numanode.local_memory / kMiB);
  }

  // scopes: the core, then its ancestors below the machine (data caches
  // -> CACHE, packages -> PACKAGE), then its NUMA node outermost. hwloc
  // objects without a DART scope (groups, dies) are skipped rather than
  // mapped to UNDEFINED as DASH does: an UNDEFINED (-1) domain inside the
  // tree would break the rule that scopes grow from root to leaf, and DASH's
  // walk from a leaf up to "scope <= NODE" would stop at it. NUMA goes
  // outermost for the same rule: NUMA (300) must lie above PACKAGE (500)
  // and CACHE (530) even where hwloc puts NUMA nodes inside a package
  // (sub-NUMA clustering); a package split over NUMA nodes then appears
  // under each of them.
  const int room = DART_LOCALITY_MAX_DOMAIN_SCOPES - (numa ? 1 : 0);
  int n = 0;
  hw.scopes[n++] = {DART_LOCALITY_SCOPE_CORE, static_cast<int>(core->logical_index)};
  for (hwloc_obj_t a = core->parent; a && a->type != HWLOC_OBJ_MACHINE; a = a->parent) {
    if (hwloc_obj_type_is_cache(a->type)) {
      if (a->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
      const unsigned level = a->attr->cache.depth;
      if (level >= 1 && level <= 3 && hw.cache_sizes[level - 1] < 0) {
        hw.cache_sizes[level - 1] = clamp_int(a->attr->cache.size);
        hw.cache_line_sizes[level - 1] = static_cast<int>(a->attr->cache.linesize);
        hw.cache_ids[level - 1] = static_cast<int>(a->logical_index);
      }
      if (n < room) hw.scopes[n++] = {DART_LOCALITY_SCOPE_CACHE, static_cast<int>(a->logical_index)};
    } else if (a->type == HWLOC_OBJ_PACKAGE) {
      if (n < room) hw.scopes[n++] = {DART_LOCALITY_SCOPE_PACKAGE, static_cast<int>(a->logical_index)};
    }
  }
  if (numa) hw.scopes[n++] = {DART_LOCALITY_SCOPE_NUMA, static_cast<int>(numa->logical_index)};
  hw.num_scopes = n;
  return hw;
}

// Placement of the node's units on cores, decided in one place for the
// whole node so that it is consistent:
// - A unit whose binding lies within one core is placed on that core.
// - Any other unit (bound to several cores, or not bound at all, as with
//   mpirun --bind-to none, where the binding is the whole machine) is
//   attributed to one core of its binding: walking down from the machine,
//   at each level into the child with the fewest units per core so far
//   (first child on ties). Units thus spread over packages and NUMA
//   domains first, then over cores, and share cores only when there are
//   more units than cores (oversubscription), round-robin.
// Such a unit may actually run anywhere in its binding; the attribution
// describes where its share of the machine is, deterministically, instead
// of where the scheduler happened to run it for an instant.
// Units bound first: they occupy their cores before the others are spread.
// The hardware thread is the CPU the unit was running on if that lies in
// its core, else the core's threads in turn.
std::optional<std::vector<dart_hwinfo_t>> from_topology(hwloc_topology_t topo, const std::vector<Binding>& units) {
  const hwloc_obj_type_t core_type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int ncores = hwloc_get_nbobjs_by_type(topo, core_type);
  if (ncores <= 0) return std::nullopt;
  std::vector<hwloc_obj_t> cores(static_cast<std::size_t>(ncores));
  for (int i = 0; i < ncores; ++i)
    cores[static_cast<std::size_t>(i)] = hwloc_get_obj_by_type(topo, core_type, static_cast<unsigned>(i));
  const hwloc_obj_t root = hwloc_get_root_obj(topo);
  if (!root->cpuset) return std::nullopt;
  // CPU numbers of the units refer to this machine; a topology read from
  // XML or a synthetic description is not this machine, so there every
  // unit counts as unbound.
  const bool this_system = hwloc_topology_is_thissystem(topo) != 0;

  std::vector<Bitmap> avail;
  std::vector<std::vector<int>> cand(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    avail.emplace_back();
    hwloc_bitmap_t set = avail.back().get();
    if (this_system)
      for (int c : units[u].cpus) hwloc_bitmap_set(set, static_cast<unsigned>(c));
    hwloc_bitmap_and(set, set, root->cpuset);
    for (int pass = 0; pass < 2 && cand[u].empty(); ++pass) {
      if (pass == 1 || hwloc_bitmap_iszero(set)) hwloc_bitmap_copy(set, root->cpuset);
      for (int i = 0; i < ncores; ++i)
        if (cores[static_cast<std::size_t>(i)]->cpuset &&
            hwloc_bitmap_intersects(cores[static_cast<std::size_t>(i)]->cpuset, set))
          cand[u].push_back(i);
    }
    if (cand[u].empty()) return std::nullopt;
  }

  std::vector<int> load(static_cast<std::size_t>(ncores), 0);
  std::vector<int> core_of(units.size(), -1);
  std::vector<int> turn(units.size(), 0);  // units on the core before this one
  auto place = [&](std::size_t u, int core) {
    core_of[u] = core;
    turn[u] = load[static_cast<std::size_t>(core)]++;
  };
  for (std::size_t u = 0; u < units.size(); ++u)
    if (cand[u].size() == 1) place(u, cand[u].front());
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (core_of[u] >= 0) continue;
    hwloc_obj_t obj = root;
    while (obj->type != core_type) {
      hwloc_obj_t best = nullptr;
      long long best_load = 0, best_cores = 0;
      for (hwloc_obj_t c = obj->first_child; c; c = c->next_sibling) {
        if (!c->cpuset || !hwloc_bitmap_intersects(c->cpuset, avail[u].get())) continue;
        long long n = 0, l = 0;
        for (int i : cand[u])
          if (hwloc_bitmap_isincluded(cores[static_cast<std::size_t>(i)]->cpuset, c->cpuset)) {
            ++n;
            l += load[static_cast<std::size_t>(i)];
          }
        if (n == 0) continue;
        if (!best || l * best_cores < best_load * n) {
          best = c;
          best_load = l;
          best_cores = n;
        }
      }
      if (!best) break;
      obj = best;
    }
    int core = -1;
    if (obj->type == core_type) {
      core = static_cast<int>(obj->logical_index);
    } else {
      for (int i : cand[u])
        if (core < 0 || load[static_cast<std::size_t>(i)] < load[static_cast<std::size_t>(core)]) core = i;
    }
    place(u, core);
  }

  std::vector<dart_hwinfo_t> out;
  for (std::size_t u = 0; u < units.size(); ++u) {
    const hwloc_obj_t core = cores[static_cast<std::size_t>(core_of[u])];
    std::vector<hwloc_obj_t> pus;
    if (core_type == HWLOC_OBJ_PU) {
      pus.push_back(core);
    } else {
      for (hwloc_obj_t p = hwloc_get_next_obj_inside_cpuset_by_type(topo, core->cpuset, HWLOC_OBJ_PU, nullptr); p;
           p = hwloc_get_next_obj_inside_cpuset_by_type(topo, core->cpuset, HWLOC_OBJ_PU, p))
        if (hwloc_bitmap_isset(avail[u].get(), p->os_index)) pus.push_back(p);
    }
    if (pus.empty()) return std::nullopt;
    hwloc_obj_t pu = pus[static_cast<std::size_t>(turn[u]) % pus.size()];
    if (this_system && units[u].last_cpu >= 0) {
      const hwloc_obj_t last = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(units[u].last_cpu));
      if (last && std::find(pus.begin(), pus.end(), last) != pus.end()) pu = last;
    }
    out.push_back(describe(topo, core_type, core, pu));
  }
  return out;
}

// Without hwloc: one core per online CPU (SMT threads included, as DASH's
// POSIX fallback counts), the same placement rule over CPUs, and a flat
// scope list [CORE].
std::vector<dart_hwinfo_t> from_posix(const std::vector<Binding>& units) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int ncpus = online > 0 ? static_cast<int>(std::min<long>(online, INT_MAX)) : 1;
  std::map<int, int> load;
  std::vector<int> cpu_of(units.size(), -1);
  for (std::size_t u = 0; u < units.size(); ++u)
    if (units[u].cpus.size() == 1) ++load[cpu_of[u] = units[u].cpus.front()];
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (cpu_of[u] >= 0) continue;
    std::vector<int> cand = units[u].cpus;
    if (cand.empty())
      for (int c = 0; c < ncpus; ++c) cand.push_back(c);
    int best = cand.front();
    for (int c : cand)
      if (load[c] < load[best]) best = c;
    ++load[cpu_of[u] = best];
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  std::vector<dart_hwinfo_t> out;
  for (std::size_t u = 0; u < units.size(); ++u) {
    dart_hwinfo_t hw = blank_hwinfo();
    hw.num_cores = ncpus;
    hw.core_id = cpu_of[u];
    hw.cpu_id = cpu_of[u];
    hw.min_threads = 1;
    hw.max_threads = 1;
    if (pages > 0 && page_size > 0)
      hw.system_memory_bytes =
          clamp_int(static_cast<unsigned long long>(pages) * static_cast<unsigned long long>(page_size) / kMiB);
    hw.scopes[0] = {DART_LOCALITY_SCOPE_CORE, cpu_of[u]};
    hw.num_scopes = 1;
    out.push_back(hw);
  }
  return out;
}

}  // namespace

dart_hwinfo_t blank_hwinfo() {
  dart_hwinfo_t hw;
  std::memset(&hw, 0, sizeof hw);
  hw.num_cores = hw.num_numa = hw.numa_id = hw.num_sockets = -1;
  hw.core_id = hw.cpu_id = hw.min_cpu_mhz = hw.max_cpu_mhz = -1;
  for (int i = 0; i < DART_LOCALITY_MAX_CACHE_LEVELS; ++i)
    hw.cache_sizes[i] = hw.cache_line_sizes[i] = hw.cache_ids[i] = -1;
  hw.min_threads = hw.max_threads = hw.max_shmem_mbps = -1;
  hw.system_memory_bytes = hw.numa_memory_bytes = -1;
  for (auto& s : hw.scopes) s = {DART_LOCALITY_SCOPE_UNDEFINED, -1};
  hw.num_scopes = 0;
  return hw;
}

Binding my_binding() {
  Binding b;
  // The affinity mask as the OS reports it (what hwloc's binding query
  // reads on Linux), with a mask grown until it holds every CPU number.
  for (int ncpus = 1024; ncpus <= (1 << 22); ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (!set) break;
    const std::size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      for (int c = 0; c < ncpus; ++c)
        if (CPU_ISSET_S(c, size, set)) b.cpus.push_back(c);
      CPU_FREE(set);
      break;
    }
    const bool too_small = errno == EINVAL;
    CPU_FREE(set);
    if (!too_small) break;
  }
  b.last_cpu = sched_getcpu();
  return b;
}

std::vector<dart_hwinfo_t> node_hwinfo(const std::vector<Binding>& units) {
  {
    Topology topo;
    if (topo.load()) {
      auto hw = from_topology(topo.get(), units);
      if (hw) return std::move(*hw);
    }
  }
  log(LogLevel::Warn, "dart_team_locality_init",
      "hwloc could not describe this node; hardware info falls back to POSIX (one core per online CPU, no "
      "NUMA or cache levels)");
  return from_posix(units);
}

void fill_own(dart_hwinfo_t& hw) {
  if (gethostname(hw.host, sizeof hw.host) != 0) hw.host[0] = '\0';
  hw.host[sizeof hw.host - 1] = '\0';
  // DASH_MAX_SHMEM_MBPS, read with the rest of the configuration.
  const Runtime* r = runtime();
  hw.max_shmem_mbps = r ? r->config().max_shmem_mbps : kDefaultShmemMbps;
}

}  // namespace dart::locality
