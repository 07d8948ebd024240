// hello: who is running, on which team and where.
//
// Every unit looks up its own locality (host, NUMA node, core) from the
// runtime's hardware map, joins one of two teams (even or odd global id),
// and sends a line describing itself to unit 0, which prints all lines in
// unit order. The lines travel by dart_gather, so the output is ordered
// however the processes are scheduled.
//
// Run:  mpirun -np 4 ./hello
#include <dash/dart/if/dart_locality.h>
#include <dart/dart.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  dartpp::Runtime runtime(&argc, &argv);
  const int me = runtime.myid();
  const std::size_t units = runtime.size();

  // The runtime reads the hardware once per node at start-up; every unit
  // can ask about any unit of DART_TEAM_ALL.
  dart_unit_locality_t* loc = nullptr;
  dartpp::check(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(me), &loc), "dart_unit_locality");
  dart_domain_locality_t* root = nullptr;
  dartpp::check(dart_domain_team_locality(DART_TEAM_ALL, ".", &root), "dart_domain_team_locality");

  // Two teams: the even and the odd units. Creation is collective over
  // the parent, so every unit takes part in both.
  std::vector<int> even, odd;
  for (int u = 0; u < static_cast<int>(units); ++u) (u % 2 == 0 ? even : odd).push_back(u);
  dartpp::Team evens = dartpp::Team::create(dartpp::Team::all(), even);
  dartpp::Team odds = dartpp::Team::create(dartpp::Team::all(), odd);
  const dartpp::Team& mine = evens.valid() ? evens : odds;

  char line[256];
  std::snprintf(line, sizeof line,
                "unit %d of %zu: unit %d of the %s team (%zu units, id %d); host %s, NUMA node %d, core %d, "
                "domain %s",
                me, units, mine.myid(), evens.valid() ? "even" : "odd", mine.size(), static_cast<int>(mine.id()),
                loc->hwinfo.host, loc->hwinfo.numa_id, loc->hwinfo.core_id, loc->domain_tag);

  std::vector<char> all(me == 0 ? units * sizeof line : 0);
  dartpp::check(dart_gather(line, all.data(), sizeof line, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL),
                "dart_gather");
  if (me == 0) {
    std::printf("hello: %zu units on %d node(s)\n", units, root->num_nodes);
    for (std::size_t u = 0; u < units; ++u) std::printf("  %s\n", &all[u * sizeof line]);
  }
  return 0;
}
