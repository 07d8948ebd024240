// Hardware information of units (dart_hwinfo_t, spec 5.4), read with hwloc
// once per node: one unit of each node (its leader) loads the node's
// topology and computes the record of every unit there from what each unit
// reports about itself (Binding). The other units never touch hwloc.
#pragma once

#include <dash/dart/if/dart_types.h>

#include <vector>

namespace dart::locality {

// Where a unit may run, as the unit itself sees it: the OS indices of the
// CPUs of its affinity mask (empty when unknown) and the CPU it ran on
// when asked (-1 when unknown).
struct Binding {
  std::vector<int> cpus;
  int last_cpu = -1;
};

// The calling unit's binding.
Binding my_binding();

// The records of the units of one node, in the order of `units`, from one
// reading of the node's topology (hwloc; POSIX when hwloc fails). host and
// max_shmem_mbps are left for each unit to fill (fill_own). Never throws
// anything but std::bad_alloc.
std::vector<dart_hwinfo_t> node_hwinfo(const std::vector<Binding>& units);

// Fills the fields a unit knows best itself: host (gethostname) and
// max_shmem_mbps (DASH_MAX_SHMEM_MBPS if > 0, else 1235 as in DASH).
void fill_own(dart_hwinfo_t& hw);

// A record with every value unknown (-1, empty host, no scopes).
dart_hwinfo_t blank_hwinfo();

}  // namespace dart::locality
