// Teams: creation from a group, destruction, cloning and unit id
// translation. A team is made collectively over its parent: one agreement
// on the new id and on the validity of every caller's group (a meeting in
// shared memory when the parent lives on one node, else one MPI_Allreduce),
// one MPI_Comm_split (or MPI_Comm_dup of the whole parent) makes the
// communicator.
#include "coll/node_sync.hpp"
#include "core/activity.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"
#include "team/group.hpp"

#include <dash/dart/if/dart_team_group.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dart {

namespace {

constexpr std::size_t kIdWords = Runtime::kMaxTeams / 64;

// FNV-1a over the member list: equal groups hash equally, and unequal ones
// differ with overwhelming probability, which is enough to catch callers
// that passed different groups.
std::uint64_t membership_hash(const std::vector<int>& units) {
  std::uint64_t h = 1469598103934665603ull;
  for (int u : units)
    for (int b = 0; b < 4; ++b) {
      h ^= static_cast<std::uint64_t>((static_cast<unsigned>(u) >> (8 * b)) & 0xffu);
      h *= 1099511628211ull;
    }
  return h;
}

// Bitwise OR of `n` words over the parent's members (coll::agree; the
// signed and unsigned forms of a type may alias). On a parent on one node
// this meeting replaced an MPI_Allreduce that was about a fifth of creating
// a team under MPICH with threads.
void agree_or(Team& parent, std::uint64_t* words, std::size_t n) {
  auto* w = reinterpret_cast<std::int64_t*>(words);
  coll::agree(parent, coll::Call::TeamCreate, coll::Combine::BitOr, w, w, static_cast<int>(n));
}

// Collective over the parent. `group` may be null: the caller is then not a
// member but still takes part. Returns the new id on members and
// DART_TEAM_NULL elsewhere.
//
// Team ids are reused after destruction. The new id is the lowest one that
// no member of the parent uses for a live team, which gives every rule of
// the spec: all members agree, it differs from every live team made from
// the same parent (their members are parent members), and no unit is in two
// live teams with one id. The agreement is a bitwise OR over the parent of
// each unit's ids in use plus a flag for invalid groups and the membership
// hash twice (h and ~h): the two ORs share a set bit exactly when some
// callers' groups differ.
//
// Programs hold few teams at once, so the first agreement carries only the
// lowest kFirstIdWords words of ids; only when all of those are taken on
// some member does a second one carry the rest. Both are reached by every
// member alike, since each decides by the same OR.
dart_team_t create_team(dart_team_t parent_id, const dart_group_struct* group) {
  constexpr std::size_t kFirstIdWords = 4;
  constexpr std::size_t kHead = 3;  // flags, h, ~h
  Runtime& r = rt();
  Team& parent = r.team(parent_id);
  std::string error;
  bool member = false;
  bool whole_parent = false;
  const std::vector<dart_team_t> ids_in_use = r.team_ids();
  std::uint64_t words[kHead + kFirstIdWords] = {};
  if (group) {
    for (int g : group->units)
      if (parent.team_unit_of(g) < 0) {
        error = "unit " + std::to_string(g) + " of the group is not a member of the parent team " +
                std::to_string(parent_id);
        break;
      }
    member = std::binary_search(group->units.begin(), group->units.end(), r.myid());
    whole_parent = error.empty() && group->units.size() == static_cast<std::size_t>(parent.size());
    const std::uint64_t h = membership_hash(group->units);
    words[1] = h;
    words[2] = ~h;
  }
  // Bit 0: an invalid group; bits 1 and 2: a caller whose group is / is
  // not the whole parent (a caller without a group is the latter).
  words[0] = (error.empty() ? 0u : 1u) | (whole_parent ? 2u : 4u);
  words[kHead] |= 1;  // DART_TEAM_ALL
  for (dart_team_t id : ids_in_use)
    if (static_cast<std::size_t>(id) < 64 * kFirstIdWords)
      words[kHead + static_cast<std::size_t>(id) / 64] |= 1ull << (id % 64);
  agree_or(parent, words, kHead + kFirstIdWords);
  if (!error.empty()) invalid(error);
  if ((words[0] & 1) != 0)
    invalid("another member of team " + std::to_string(parent_id) + " passed a group with non-members of it");
  if ((words[1] & words[2]) != 0)
    invalid("members of team " + std::to_string(parent_id) + " passed groups with different members");

  dart_team_t id = DART_TEAM_NULL;
  for (std::size_t w = 0; w < kFirstIdWords && id == DART_TEAM_NULL; ++w)
    if (words[kHead + w] != ~0ull)
      id = static_cast<dart_team_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(~words[kHead + w])));
  if (id == DART_TEAM_NULL) {
    std::vector<std::uint64_t> rest(kIdWords - kFirstIdWords, 0);
    for (dart_team_t t : ids_in_use)
      if (static_cast<std::size_t>(t) >= 64 * kFirstIdWords)
        rest[static_cast<std::size_t>(t) / 64 - kFirstIdWords] |= 1ull << (t % 64);
    agree_or(parent, rest.data(), rest.size());
    for (std::size_t w = 0; w < rest.size() && id == DART_TEAM_NULL; ++w)
      if (rest[w] != ~0ull)
        id = static_cast<dart_team_t>((w + kFirstIdWords) * 64 + static_cast<std::size_t>(__builtin_ctzll(~rest[w])));
  }
  if (id == DART_TEAM_NULL)
    fail(DART_ERR_OTHER, "all " + std::to_string(Runtime::kMaxTeams - 1) + " team ids are in use by members of team " +
                             std::to_string(parent_id));

  // Team order is ascending global id whatever order the group was built
  // in: the key of the split, and already the parent's order when the group
  // is the whole parent, which a duplicate then makes without exchanging
  // colours and keys. Every caller sees the same bits, so all take the
  // duplicate or none do.
  MPI_Comm comm = MPI_COMM_NULL;
  activity::InMpi in_mpi;
  if ((words[0] & 6) == 2) {
    mpi_check(MPI_Comm_dup(parent.comm(), &comm), "MPI_Comm_dup");
  } else {
    mpi_check(MPI_Comm_split(parent.comm(), member ? 0 : MPI_UNDEFINED, r.myid(), &comm), "MPI_Comm_split");
  }
  if (!member) return DART_TEAM_NULL;
  auto team = std::make_unique<Team>(id, mpi::Comm(comm), r.config());
  team->set_parent(parent);
  r.add_team(std::move(team));
  return id;
}

}  // namespace

}  // namespace dart

using namespace dart;

extern "C" {

dart_ret_t dart_team_get_group(dart_team_t teamid, dart_group_t* group) {
  if (group) *group = DART_GROUP_NULL;
  return entry("dart_team_get_group", [&] {
    require(group, "group");
    *group = new_group(rt().team(teamid).global_units());
  });
}

dart_ret_t dart_team_create(dart_team_t teamid, const dart_group_t group, dart_team_t* newteam) {
  if (newteam) *newteam = DART_TEAM_NULL;
  return entry("dart_team_create", [&] {
    // A missing out-pointer is still a member: fail only after taking part,
    // so the other callers are not stranded.
    const dart_team_t id = create_team(teamid, group);
    if (!newteam) {
      if (id != DART_TEAM_NULL) rt().remove_team(id);
      invalid("newteam is NULL");
    }
    *newteam = id;
  });
}

dart_ret_t dart_team_clone(dart_team_t team, dart_team_t* newteam) {
  if (newteam) *newteam = DART_TEAM_NULL;
  return entry("dart_team_clone", [&] {
    const dart_group_struct group{rt().team(team).global_units()};
    const dart_team_t id = create_team(team, &group);
    if (!newteam) {
      rt().remove_team(id);
      invalid("newteam is NULL");
    }
    *newteam = id;
  });
}

dart_ret_t dart_team_destroy(dart_team_t* teamid) {
  return entry("dart_team_destroy", [&] {
    require(teamid, "teamid");
    if (*teamid == DART_TEAM_NULL) return;
    if (*teamid == DART_TEAM_ALL) invalid("DART_TEAM_ALL cannot be destroyed (dart_exit does that)");
    Runtime& r = rt();
    // Freeing a team's windows is collective; on a broken team the other
    // members may never come.
    r.team(*teamid).require_intact();
    r.remove_team(*teamid);
    *teamid = DART_TEAM_NULL;
  });
}

dart_ret_t dart_team_unit_l2g(dart_team_t teamid, dart_team_unit_t localid, dart_global_unit_t* globalid) {
  if (globalid) *globalid = DART_UNDEFINED_GLOBAL_UNIT_ID;
  return entry("dart_team_unit_l2g", [&] {
    require(globalid, "globalid");
    const Team& team = rt().team(teamid);
    if (localid.id < 0 || localid.id >= team.size())
      invalid("unit " + std::to_string(localid.id) + " is out of range for team " + std::to_string(teamid) + " of " +
              std::to_string(team.size()) + " units");
    globalid->id = team.global_unit(localid.id);
  });
}

dart_ret_t dart_team_unit_g2l(dart_team_t teamid, dart_global_unit_t globalid, dart_team_unit_t* localid) {
  if (localid) *localid = DART_UNDEFINED_TEAM_UNIT_ID;
  return entry("dart_team_unit_g2l", [&] {
    require(localid, "localid");
    localid->id = rt().team(teamid).team_unit_of(globalid.id);
    if (localid->id < 0) localid->id = DART_UNDEFINED_UNIT_ID;
  });
}

}  // extern "C"
