// dart_locality.h (team locality data, domain queries and manipulation)
// and dart_group_locality_split of dart_team_group.h.
//
// dart_team_locality_init(team), collective over the team:
//  1. Every unit decides with its peers whether it already knows its own
//     hardware record: records computed for DART_TEAM_ALL are kept for the
//     life of the runtime and reused by every other team, so a unit's core
//     does not change from team to team and the topology is not read
//     again. Otherwise (DART_TEAM_ALL itself, or a team set up before
//     DART_TEAM_ALL's data existed):
//  2. MPI_Comm_split_type(team comm, SHARED) gives the units of each node
//     (a real shared-memory domain, also when DART_SHARED_MEMORY=0 makes
//     the runtime treat units as separate nodes). Each unit sends its CPU
//     affinity and current CPU to the node's leader (node rank 0, the
//     lowest team rank there); the leader alone reads the topology with
//     hwloc, places all the node's units on cores at once (rules in
//     locality/hwinfo.cpp) and scatters one dart_hwinfo_t to each unit.
//     So the topology is read once per node, never once per unit.
//  3. Each unit adds what it knows itself (host name, DASH_MAX_SHMEM_MBPS),
//     and one allgather over the team gives every member every record;
//     each member then builds the same tree (locality/domains.cpp).
// A node whose leader failed to compute records makes every member fail
// with DART_ERR_OTHER after the allgather, so nobody is left waiting.
//
// The data of a team lives here, keyed by team id. It is dropped by
// dart_team_locality_finalize, and also when the team's communicator is
// freed (an MPI attribute whose delete callback drops it), so that a
// destroyed team (or dart_exit) never leaves data behind for a later team
// that reuses the id.
#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart_team_group.h>

#include "core/error.hpp"
#include "core/mpi_handles.hpp"
#include "core/runtime.hpp"
#include "locality/domains.hpp"
#include "locality/hwinfo.hpp"
#include "team/group.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dart {

namespace {

using namespace locality;

struct TeamLocality {
  dart_domain_locality_t* root = nullptr;
  std::vector<dart_unit_locality_t> units;  // by team unit id
  TeamLocality() = default;
  TeamLocality(const TeamLocality&) = delete;
  TeamLocality& operator=(const TeamLocality&) = delete;
  ~TeamLocality() { free_domain(root); }
};

struct State {
  std::mutex mutex;
  std::map<dart_team_t, std::unique_ptr<TeamLocality>> teams;
  // This unit's record as computed for DART_TEAM_ALL (placement among all
  // units of its node), and its node's key; valid until DART_TEAM_ALL's
  // communicator is freed (dart_exit).
  bool have_world = false;
  UnitRecord world{};
  int keyval = MPI_KEYVAL_INVALID;
};

// Never destroyed: a team communicator may be freed by static destructors
// (a program that skips dart_exit) after this file's statics are gone.
State& state() {
  static State* s = new State;
  return *s;
}

int on_team_comm_free(MPI_Comm, int, void* attribute, void*) {
  const auto id = static_cast<dart_team_t>(reinterpret_cast<std::intptr_t>(attribute));
  std::unique_ptr<TeamLocality> doomed;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.teams.find(id);
  if (it != s.teams.end()) {
    doomed = std::move(it->second);
    s.teams.erase(it);
  }
  if (id == DART_TEAM_ALL) s.have_world = false;
  return MPI_SUCCESS;
}

// Ties the lifetime of the team's locality data to its communicator.
void watch_team_comm(const Team& team) {
  State& s = state();
  int keyval = MPI_KEYVAL_INVALID;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.keyval == MPI_KEYVAL_INVALID)
      mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_team_comm_free, &s.keyval, nullptr),
                "MPI_Comm_create_keyval");
    keyval = s.keyval;
  }
  void* value = nullptr;
  int present = 0;
  mpi_check(MPI_Comm_get_attr(team.comm(), keyval, &value, &present), "MPI_Comm_get_attr");
  if (!present)
    mpi_check(MPI_Comm_set_attr(team.comm(), keyval, reinterpret_cast<void*>(static_cast<std::intptr_t>(team.id()))),
              "MPI_Comm_set_attr");
}

// What a node leader sends each unit of its node.
struct NodeReply {
  dart_hwinfo_t hwinfo;
  int node_key;
  int ok;
};

// Step 2 above. Collective over the team (the split), then over each node.
NodeReply hwinfo_from_node(const Team& team) {
  // With shared memory on, the team's node communicator is this very split
  // (same key, the team rank), made when the team was: it is used rather
  // than split again, which under MPICH on a busy node cost as much as a
  // window allocation (about 50 ms at 3 units on 2 CPUs).
  mpi::Comm split;
  MPI_Comm raw = team.node_comm();
  if (!rt().config().shared_memory) {
    mpi_check(MPI_Comm_split_type(team.comm(), MPI_COMM_TYPE_SHARED, team.myid(), MPI_INFO_NULL, split.out()),
              "MPI_Comm_split_type");
    raw = split.get();
    mpi_check(MPI_Comm_set_errhandler(raw, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  }
  int rank = 0, size = 0;
  mpi_check(MPI_Comm_rank(raw, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(raw, &size), "MPI_Comm_size");
  const bool leader = rank == 0;
  const auto n = static_cast<std::size_t>(size);

  const Binding mine = my_binding();
  const int header[2] = {static_cast<int>(mine.cpus.size()), mine.last_cpu};
  std::vector<int> headers(leader ? 2 * n : 0);
  mpi_check(MPI_Gather(header, 2, MPI_INT, headers.data(), 2, MPI_INT, 0, raw), "MPI_Gather");
  std::vector<int> counts(leader ? n : 0), displs(leader ? n : 0);
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    counts[r] = headers[2 * r];
    displs[r] = total;
    total += counts[r];
  }
  std::vector<int> cpus(static_cast<std::size_t>(total));
  mpi_check(
      MPI_Gatherv(mine.cpus.data(), header[0], MPI_INT, cpus.data(), counts.data(), displs.data(), MPI_INT, 0, raw),
      "MPI_Gatherv");

  std::vector<NodeReply> replies(leader ? n : 0);
  if (leader) {
    // The leader's global id names the node in every team's records.
    const int key = team.global_unit(team.myid());
    try {
      std::vector<Binding> units(n);
      for (std::size_t r = 0; r < n; ++r) {
        units[r].cpus.assign(cpus.begin() + displs[r], cpus.begin() + displs[r] + counts[r]);
        units[r].last_cpu = headers[2 * r + 1];
      }
      const auto hw = node_hwinfo(units);
      for (std::size_t r = 0; r < n; ++r) replies[r] = {hw[r], key, 1};
    } catch (...) {
      // Reported by every member after the allgather (see the top).
      for (auto& rep : replies) rep = {blank_hwinfo(), key, 0};
    }
  }
  NodeReply reply{};
  mpi_check(MPI_Scatter(replies.data(), sizeof(NodeReply), MPI_BYTE, &reply, sizeof(NodeReply), MPI_BYTE, 0, raw),
            "MPI_Scatter");
  return reply;
}

struct WireRecord {
  UnitRecord rec;
  int ok;
};

void team_locality_init(dart_team_t id) {
  const Team& team = rt().team(id);
  State& s = state();
  int reuse = 0;
  UnitRecord mine{};
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.teams.count(id))
      fail(DART_ERR_OTHER, "team " + std::to_string(id) + " already has locality data (initialised twice)");
    reuse = id != DART_TEAM_ALL && s.have_world ? 1 : 0;
    if (reuse) mine = s.world;
  }
  // All members must take the same path (step 1 above).
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &reuse, 1, MPI_INT, MPI_MIN, team.comm()), "MPI_Allreduce");
  WireRecord wire{};
  wire.ok = 1;
  if (reuse) {
    wire.rec = mine;
  } else {
    const NodeReply reply = hwinfo_from_node(team);
    wire.rec.hwinfo = reply.hwinfo;
    wire.rec.node_key = reply.node_key;
    wire.ok = reply.ok;
  }
  fill_own(wire.rec.hwinfo);
  wire.rec.global_id = team.global_unit(team.myid());

  std::vector<WireRecord> all(static_cast<std::size_t>(team.size()));
  mpi_check(MPI_Allgather(&wire, sizeof wire, MPI_BYTE, all.data(), sizeof wire, MPI_BYTE, team.comm()),
            "MPI_Allgather");
  std::vector<UnitRecord> records;
  for (const auto& w : all) {
    if (!w.ok)
      fail(DART_ERR_OTHER,
           "reading the hardware topology failed on the node of unit " + std::to_string(w.rec.global_id));
    records.push_back(w.rec);
  }

  auto data = std::make_unique<TeamLocality>();
  data->root = build_tree(id, records, data->units);
  watch_team_comm(team);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (id == DART_TEAM_ALL) {
    s.world = wire.rec;
    s.have_world = true;
  }
  s.teams[id] = std::move(data);
}

// The locality data of a team of which the caller is a member.
TeamLocality& data_of(dart_team_t id) {
  (void)rt().team(id);  // DART_ERR_INVAL for unknown teams and non-members
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.teams.find(id);
  if (it == s.teams.end())
    invalid("team " + std::to_string(id) + " has no locality data (dart_team_locality_init was not called)");
  return *it->second;
}

std::vector<std::string> tag_list(int num, const char** tags, const char* what) {
  if (num < 0) invalid(std::string("number of ") + what + " is negative (" + std::to_string(num) + ")");
  if (num > 0) require(tags, what);
  std::vector<std::string> out;
  for (int i = 0; i < num; ++i) {
    if (!tags[i]) invalid(std::string(what) + "[" + std::to_string(i) + "] is NULL");
    out.emplace_back(tags[i]);
  }
  return out;
}

std::string tag_of(const dart_domain_locality_t& d) {
  return std::string(d.domain_tag, strnlen(d.domain_tag, sizeof d.domain_tag));
}

}  // namespace

}  // namespace dart

using namespace dart;
using namespace dart::locality;

extern "C" {

dart_ret_t dart_team_locality_init(dart_team_t team) {
  return entry("dart_team_locality_init", [&] { team_locality_init(team); });
}

dart_ret_t dart_team_locality_finalize(dart_team_t team) {
  return entry("dart_team_locality_finalize", [&] {
    (void)rt().team(team);
    std::unique_ptr<TeamLocality> doomed;
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.teams.find(team);
    if (it == s.teams.end()) return;
    doomed = std::move(it->second);
    s.teams.erase(it);
  });
}

dart_ret_t dart_domain_team_locality(dart_team_t team, const char* domain_tag,
                                     dart_domain_locality_t** team_domain_out) {
  if (team_domain_out) *team_domain_out = nullptr;
  return entry("dart_domain_team_locality", [&] {
    require(team_domain_out, "team_domain_out");
    require(domain_tag, "domain_tag");
    TeamLocality& data = data_of(team);
    dart_domain_locality_t* d = find(*data.root, domain_tag);
    if (!d) fail(DART_ERR_NOTFOUND, "team " + std::to_string(team) + " has no domain '" + domain_tag + "'");
    *team_domain_out = d;
  });
}

dart_ret_t dart_domain_create(dart_domain_locality_t** domain_out) {
  if (domain_out) *domain_out = nullptr;
  return entry("dart_domain_create", [&] {
    require(domain_out, "domain_out");
    *domain_out = new_domain();
  });
}

dart_ret_t dart_domain_clone(const dart_domain_locality_t* domain_in, dart_domain_locality_t** domain_out) {
  if (domain_out) *domain_out = nullptr;
  return entry("dart_domain_clone", [&] {
    require(domain_in, "domain_in");
    require(domain_out, "domain_out");
    *domain_out = clone_domain(*domain_in);
  });
}

dart_ret_t dart_domain_destroy(dart_domain_locality_t* domain) {
  return entry("dart_domain_destroy", [&] {
    if (!domain) return;
    // Freeing a domain of a team's tree would leave the tree dangling;
    // refuse it (the trees are searched, no pointer of the argument is
    // followed, since a client domain's parent may be long gone).
    {
      State& s = state();
      std::lock_guard<std::mutex> lock(s.mutex);
      for (const auto& [id, data] : s.teams)
        if (contains(*data->root, domain))
          invalid("domain '" + tag_of(*domain) + "' belongs to the locality data of team " + std::to_string(id) +
                  "; only domains from dart_domain_create/clone can be destroyed");
    }
    free_domain(domain);
  });
}

dart_ret_t dart_domain_assign(dart_domain_locality_t* domain_lhs, const dart_domain_locality_t* domain_rhs) {
  return entry("dart_domain_assign", [&] {
    require(domain_lhs, "domain_lhs");
    require(domain_rhs, "domain_rhs");
    if (domain_lhs == domain_rhs) return;
    // Copy first: the right side may lie inside the left one's subtree.
    dart_domain_locality_t copy;
    copy_into(copy, *domain_rhs);
    // The left side keeps its place: its parent pointer stays.
    dart_domain_locality_t* const parent = domain_lhs->parent;
    free_content(domain_lhs);
    *domain_lhs = copy;
    domain_lhs->parent = parent;
    for (int i = 0; i < domain_lhs->num_domains; ++i) domain_lhs->children[i]->parent = domain_lhs;
  });
}

dart_ret_t dart_domain_find(const dart_domain_locality_t* domain_in, const char* domain_tag,
                            dart_domain_locality_t** subdomain_out) {
  if (subdomain_out) *subdomain_out = nullptr;
  return entry("dart_domain_find", [&] {
    require(domain_in, "domain_in");
    require(domain_tag, "domain_tag");
    require(subdomain_out, "subdomain_out");
    dart_domain_locality_t* d = find(*domain_in, domain_tag);
    if (!d) fail(DART_ERR_NOTFOUND, "no domain '" + std::string(domain_tag) + "' below '" + tag_of(*domain_in) + "'");
    *subdomain_out = d;
  });
}

dart_ret_t dart_domain_select(dart_domain_locality_t* domain_in, int num_subdomain_tags, const char** subdomain_tags) {
  return entry("dart_domain_select", [&] {
    require(domain_in, "domain_in");
    select(*domain_in, tag_list(num_subdomain_tags, subdomain_tags, "subdomain_tags"));
  });
}

dart_ret_t dart_domain_exclude(dart_domain_locality_t* domain_in, int num_subdomain_tags, const char** subdomain_tags) {
  return entry("dart_domain_exclude", [&] {
    require(domain_in, "domain_in");
    exclude(*domain_in, tag_list(num_subdomain_tags, subdomain_tags, "subdomain_tags"));
  });
}

dart_ret_t dart_domain_add_subdomain(dart_domain_locality_t* domain, dart_domain_locality_t* subdomain,
                                     int subdomain_rel_id) {
  return entry("dart_domain_add_subdomain", [&] {
    require(domain, "domain");
    require(subdomain, "subdomain");
    add_subdomain(*domain, subdomain, subdomain_rel_id);
  });
}

dart_ret_t dart_domain_move_subdomain(dart_domain_locality_t* domain, dart_domain_locality_t* new_parent_domain,
                                      int new_domain_rel_id) {
  return entry("dart_domain_move_subdomain", [&] {
    require(domain, "domain");
    require(new_parent_domain, "new_parent_domain");
    move_subdomain(*domain, *new_parent_domain, new_domain_rel_id);
  });
}

dart_ret_t dart_domain_split_scope(const dart_domain_locality_t* domain_in, dart_locality_scope_t scope, int num_parts,
                                   dart_domain_locality_t* split_domain_out) {
  return entry("dart_domain_split_scope", [&] {
    require(domain_in, "domain_in");
    require(split_domain_out, "split_domain_out");
    if (num_parts < 1) invalid("num_parts must be at least 1 (is " + std::to_string(num_parts) + ")");
    split_scope(*domain_in, scope, num_parts, split_domain_out);
  });
}

dart_ret_t dart_domain_scope_tags(const dart_domain_locality_t* domain_in, dart_locality_scope_t scope,
                                  int* num_domains_out, char*** domain_tags_out) {
  if (num_domains_out) *num_domains_out = 0;
  if (domain_tags_out) *domain_tags_out = nullptr;
  return entry("dart_domain_scope_tags", [&] {
    require(domain_in, "domain_in");
    require(num_domains_out, "num_domains_out");
    require(domain_tags_out, "domain_tags_out");
    const auto found = scope_domains(*domain_in, scope);
    if (found.empty())
      fail(DART_ERR_NOTFOUND, "no domain of scope " + std::to_string(scope) + " below '" + tag_of(*domain_in) + "'");
    // malloc'ed because the client releases them with free().
    auto** tags = static_cast<char**>(std::calloc(found.size(), sizeof(char*)));
    if (!tags) throw std::bad_alloc();
    for (std::size_t i = 0; i < found.size(); ++i) {
      tags[i] = strndup(found[i]->domain_tag, sizeof found[i]->domain_tag - 1);
      if (!tags[i]) {
        for (std::size_t j = 0; j < i; ++j) std::free(tags[j]);
        std::free(tags);
        throw std::bad_alloc();
      }
    }
    *domain_tags_out = tags;
    *num_domains_out = static_cast<int>(found.size());
  });
}

dart_ret_t dart_domain_scope_domains(const dart_domain_locality_t* domain_in, dart_locality_scope_t scope,
                                     int* num_domains_out, dart_domain_locality_t*** domains_out) {
  if (num_domains_out) *num_domains_out = 0;
  if (domains_out) *domains_out = nullptr;
  return entry("dart_domain_scope_domains", [&] {
    require(domain_in, "domain_in");
    require(num_domains_out, "num_domains_out");
    require(domains_out, "domains_out");
    const auto found = scope_domains(*domain_in, scope);
    if (found.empty())
      fail(DART_ERR_NOTFOUND, "no domain of scope " + std::to_string(scope) + " below '" + tag_of(*domain_in) + "'");
    auto** arr = static_cast<dart_domain_locality_t**>(std::malloc(found.size() * sizeof(dart_domain_locality_t*)));
    if (!arr) throw std::bad_alloc();
    std::copy(found.begin(), found.end(), arr);
    *domains_out = arr;
    *num_domains_out = static_cast<int>(found.size());
  });
}

dart_ret_t dart_domain_group(dart_domain_locality_t* domain_in, int num_group_subdomains,
                             const char** group_subdomain_tags, char* group_domain_tag_out) {
  return entry("dart_domain_group", [&] {
    require(domain_in, "domain_in");
    require(group_domain_tag_out, "group_domain_tag_out");
    if (num_group_subdomains < 1)
      invalid("num_group_subdomains must be at least 1 (is " + std::to_string(num_group_subdomains) + ")");
    const std::string tag =
        group(*domain_in, tag_list(num_group_subdomains, group_subdomain_tags, "group_subdomain_tags"));
    std::memcpy(group_domain_tag_out, tag.c_str(), tag.size() + 1);
  });
}

dart_ret_t dart_unit_locality(dart_team_t team, dart_team_unit_t unit, dart_unit_locality_t** loc) {
  if (loc) *loc = nullptr;
  return entry("dart_unit_locality", [&] {
    require(loc, "loc");
    TeamLocality& data = data_of(team);
    if (unit.id < 0 || static_cast<std::size_t>(unit.id) >= data.units.size())
      invalid("unit " + std::to_string(unit.id) + " is not in team " + std::to_string(team) + " (size " +
              std::to_string(data.units.size()) + ")");
    *loc = &data.units[static_cast<std::size_t>(unit.id)];
  });
}

dart_ret_t dart_group_locality_split(const dart_group_t g, dart_domain_locality_t* domain, dart_locality_scope_t scope,
                                     size_t n, size_t* nout, dart_group_t* gout) {
  return entry("dart_group_locality_split", [&] {
    require(nout, "nout");
    require(gout, "gout");
    require(domain, "domain");
    (void)rt();
    const auto& members = group_of(g, "g").units;
    if (n == 0 || n > static_cast<size_t>(INT_MAX)) invalid("n must be in [1, INT_MAX] (is " + std::to_string(n) + ")");
    const auto found = scope_domains(*domain, scope);
    if (found.empty())
      fail(DART_ERR_NOTFOUND, "no domain of scope " + std::to_string(scope) + " below '" + tag_of(*domain) + "'");
    // One group per domain, or consecutive domains merged into n groups
    // of as equal size as possible (each at most ceil(|D| / n) domains).
    const int k = static_cast<int>(found.size());
    const int m = std::min(static_cast<int>(n), k);
    std::vector<std::vector<int>> units(static_cast<std::size_t>(m));
    std::size_t next = 0;
    const auto sizes = block_sizes(k, m);
    for (int p = 0; p < m; ++p) {
      auto& out = units[static_cast<std::size_t>(p)];
      for (int j = 0; j < sizes[static_cast<std::size_t>(p)]; ++j) {
        const dart_domain_locality_t& d = *found[next++];
        for (int u = 0; u < d.num_units && d.unit_ids; ++u)
          if (std::binary_search(members.begin(), members.end(), d.unit_ids[u].id)) out.push_back(d.unit_ids[u].id);
      }
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
    std::vector<dart_group_t> made;
    try {
      for (auto& u : units) made.push_back(new_group(std::move(u)));
    } catch (...) {
      for (dart_group_t x : made) delete x;
      throw;
    }
    for (size_t i = 0; i < n; ++i) gout[i] = i < made.size() ? made[i] : DART_GROUP_NULL;
    *nout = made.size();
  });
}

}  // extern "C"
