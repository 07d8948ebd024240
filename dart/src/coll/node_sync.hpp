// Meetings of a team's members through shared memory, for teams whose
// members all share a node (and DART_SHARED_MEMORY=1).
//
// Every collective call of such a team is one or more meetings (large ones
// may instead copy between the members' own buffers: see single_copy). In a
// meeting each member writes what it brings (the call it is in, whether its
// arguments were valid, a fingerprint of what must match, and a payload)
// into its own part of a shared window, publishes it with one release
// store, and waits until every other member has published the same
// meeting. Then every member reads every member's header, so all reach the
// same verdict, and reads the payloads it needs straight from the other
// members' parts. A barrier is a meeting without payload, an 8-byte
// broadcast is one with the root's 8 bytes in the same cache lines as its
// header: a few cache-line hand-offs, where MPI's shared-memory path costs
// a few hundred nanoseconds more and carries no argument check.
//
// Parts are double-buffered by the meeting's parity. A member writes parity
// p of meeting g only after every member arrived at meeting g-1, and a
// member arrives there only after it has finished reading meeting g-2,
// which used parity p too; so a part is never overwritten while read, and
// no meeting needs a second hand-off to release it.
//
// A member that waits longer than DART_COLLECTIVE_TIMEOUT seconds logs the
// call it waits in, the team and the members that have not arrived (with
// the last call each finished), then keeps waiting or aborts the job
// (DART_COLLECTIVE_TIMEOUT_ACTION). Members that arrive in different calls
// (a barrier on one, dart_team_memfree on another) fail the call on all of
// them at once instead of hanging, and break the team (Team::mark_broken):
// one of them skipped a call or made one too many, so every later meeting
// would pair its calls with the others' one off. dart_exit meets too
// (Call::Exit), so a member that leaves while the others still wait in a
// call it skipped breaks the team instead of leaving them there.
#pragma once

#include "core/mpi_handles.hpp"

#include <dash/dart/if/dart_types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dart {
class Team;
}

namespace dart::coll {

// The collective calls that meet; the value also goes into the MPI path's
// fingerprint, so it must stay below 256.
enum class Call : std::uint8_t {
  Bcast = 1,
  Scatter,
  Gather,
  Allgather,
  Allgatherv,
  Alltoall,
  Allreduce,
  Reduce,
  Barrier,
  TeamMemalloc,
  TeamMemfree,
  TeamMemregister,
  RegisterGlobals,
  // A step of a team across nodes: the call itself is in the agreement
  // packet the units of a node meet to combine (allreduce_packet, coll/agreement.cpp).
  NodeStep,
  TeamCreate,
  Exit,
};

// The DART function a call is, for messages ("dart_barrier").
const char* call_name(Call c) noexcept;

// What must be equal on every member for a meeting to succeed.
struct Fingerprint {
  std::uint64_t w[3] = {0, 0, 0};
};

class NodeSync {
 public:
  // Payloads up to kInline bytes travel in the header's cache lines.
  static constexpr std::size_t kInline = 64;
  // The largest payload of one member in one meeting: 256 KiB on small
  // teams (a 1 MiB broadcast in 256 KiB rounds took 34 us on 2 units, in
  // 32 KiB rounds 48, MPI 61), less on teams of more than 16 units on the
  // node, so a team's window stays at about 8 MiB: at least 16 KiB.
  [[nodiscard]] std::size_t slot() const noexcept { return slot_; }

  // Collective over `comm`: the team, when it lives on one node
  // (whole_team), else the team's units on this node, of which the first
  // (node rank 0) also holds `leaders`, a communicator of one unit per node
  // (MPI_COMM_NULL on the others), and `placement`, two ints per team
  // member (see node_of). `oversubscribed`: the node runs more units than it
  // has CPUs (see wait_all). `try_single_copy`: probe whether single copy
  // works (see single_copy).
  NodeSync(MPI_Comm comm, dart_team_t team_id, bool whole_team, mpi::Comm leaders, std::vector<int> placement,
           bool oversubscribed, bool try_single_copy);
  NodeSync(const NodeSync&) = delete;
  NodeSync& operator=(const NodeSync&) = delete;

  // This member's payload buffer for the next meeting (bytes <= slot()).
  [[nodiscard]] unsigned char* out(std::size_t bytes) noexcept;

  // What the next meeting decided, the same on every member.
  struct Verdict {
    bool someone_invalid = false;  // a member's own arguments were bad
    bool mismatch = false;         // the fingerprints differ
    int other_call_member = -1;    // a member in another call, or -1
    Call other_call = Call::Barrier;
    // The same on every member: member 0's call, and the first member in
    // another one (-1 if none) with its call.
    Call first_call = Call::Barrier;
    int split_member = -1;
    Call split_call = Call::Barrier;
    // A member that will never come: it is in dart_exit (mark_leaving),
    // or -1. Then split_member is that member and split_call Call::Exit.
    int left_member = -1;
    std::uint64_t first_words = 0;  // the members' fingerprint words 0, or-ed
  };
  // Publishes this member's header (its payload already in out()) and
  // waits until every member has published the same meeting.
  Verdict meet(Call call, const Fingerprint& fp, bool valid);

  // Member `m`'s payload of the last meeting, `bytes` long (the size the
  // caller knows that member wrote, so the same rule finds it).
  [[nodiscard]] const unsigned char* in(int m, std::size_t bytes) const noexcept;

  // Member `m`'s data slot (slot() bytes) for the next meeting, for a
  // collective in which m sends nothing itself: one member (a scatter's
  // root) then fills every member's slot, and m reads its own with
  // own_slot() after the meeting. Safe because everyone left the last
  // meeting with that parity before this member could get here.
  [[nodiscard]] unsigned char* slot_of(int m) const noexcept {
    return data(parts_[static_cast<std::size_t>(m)], static_cast<int>((gen_ + 1) & 1));
  }
  [[nodiscard]] const unsigned char* own_slot() const noexcept { return data(mine_, static_cast<int>(gen_ & 1)); }

  // Single copy: whether every member can read every other member's
  // memory with process_vm_readv (same user, ptrace allowed, one PID
  // namespace; probed when the engine is made, and agreed by all), so a
  // large collective can copy from the sender's buffer straight into the
  // receiver's: one copy instead of two through the slots, and no line
  // that one core has just written crosses to another. Off with
  // DART_COLLECTIVE_SINGLE_COPY=0.
  [[nodiscard]] bool single_copy() const noexcept { return single_copy_; }
  // Turns single copy off for the engine's later calls. Every member calls
  // it after the same meeting, so they keep agreeing.
  void stop_single_copy() noexcept { single_copy_ = false; }
  [[nodiscard]] dart_team_t team_id() const noexcept { return team_id_; }
  // Whether the node runs more units of the job than it has CPUs (for
  // some member, agreed when the engine is made).
  [[nodiscard]] bool oversubscribed() const noexcept { return oversubscribed_; }
  // Copies `bytes` from address `from` in member m's memory to `to`;
  // false (errno set) if the kernel refused or the range is not mapped.
  bool read_from(int m, const void* from, void* to, std::size_t bytes) const noexcept;

  [[nodiscard]] int size() const noexcept { return n_; }
  [[nodiscard]] int me() const noexcept { return me_; }
  [[nodiscard]] bool whole_team() const noexcept { return whole_team_; }
  [[nodiscard]] MPI_Comm leaders() const noexcept { return leaders_.get(); }
  // On the engine of a team across nodes: the node of team member u, as the
  // rank of that node's first unit in leaders(), and u's rank among the
  // team's units on its node (its member number in this engine there).
  [[nodiscard]] int node_of(int u) const noexcept { return placement_[2 * static_cast<std::size_t>(u)]; }
  [[nodiscard]] int rank_on_node(int u) const noexcept { return placement_[2 * static_cast<std::size_t>(u) + 1]; }
  // Whether some node holds more than one member (else the leaders are
  // the whole team).
  [[nodiscard]] bool nodes_shared() const noexcept { return nodes_shared_; }

  // A meeting's verdict as the error this member throws (none if it passed).
  // Members found in different calls also break the team (break_on).
  void throw_on(const Verdict& v, Call call) const;
  // If the verdict found members in different calls, breaks the team and
  // every team made from it, naming this meeting and the calls; the same
  // on every member. Returns whether it did.
  bool break_on(const Verdict& v) const;

  // dart_exit marks every team engine of the unit but DART_TEAM_ALL's, which
  // it meets on instead: members waiting in a meeting this member will now
  // never join find it leaving and break the team (Verdict::left_member).
  void mark_leaving() noexcept { mine_->leaving.store(1, std::memory_order_release); }

  // dart_exit on a broken DART_TEAM_ALL: marks this member as leaving and
  // waits until every member is, at most `seconds`. Returns the members
  // that have not come (empty when all did). No MPI: the team's window
  // stays mapped while any member may still use it.
  std::string await_leaving(double seconds);

 private:
  // One member's header of one parity: two cache lines, read in one go.
  struct alignas(128) Line {
    std::atomic<std::uint64_t> seq{0};  // the meeting last published in this parity
    std::uint64_t call = 0;             // Call | valid << 8
    std::uint64_t fp[3] = {0, 0, 0};
    unsigned char small[kInline] = {};
  };
  // A member's part of the window: its two Lines, then its two data
  // buffers of slot_ bytes.
  struct Part {
    Line line[2];
    std::int64_t pid = 0;          // the member's process, for read_from
    std::uint64_t probe_addr = 0;  // where its probe word lives in its memory
    std::uint64_t probe = 0;       // and what that word holds
    std::atomic<std::uint64_t> leaving{0};  // 1 once the member is in dart_exit (await_leaving)
  };
  [[nodiscard]] unsigned char* data(Part* part, int parity) const noexcept {
    return reinterpret_cast<unsigned char*>(part + 1) + static_cast<std::size_t>(parity) * slot_;
  }

  void wait_all(std::uint64_t g, int parity, Call call);
  void report_wait(std::uint64_t g, int parity, Call call, double waited) const;

  mpi::Comm leaders_;
  std::vector<int> placement_;
  bool nodes_shared_ = false;
  mpi::Window win_;
  std::vector<Part*> parts_;
  Part* mine_ = nullptr;
  std::uint64_t gen_ = 0;  // meetings completed
  int me_ = 0;
  int n_ = 0;
  std::size_t slot_ = 0;
  dart_team_t team_id_ = 0;
  bool whole_team_ = true;
  bool single_copy_ = false;
  bool oversubscribed_ = false;
  std::uint64_t probe_ = 0;  // read by the other members when the engine is made
  // Pauses a waiting member spins before it yields (see wait_all).
  static constexpr int kMinSpin = 16;
  static constexpr int kMaxSpin = 2048;
  int spin_ = kMaxSpin;
  int in_step_ = 0;  // meetings in a row that ended within the spin
  int left_ = -1;    // wait_all stopped for this member in dart_exit, or -1
};

// The engine of `team` when its collectives meet through shared memory
// (created at the first call that asks, which every member reaches at the
// same point), nullptr when they go through MPI: teams of one, teams across
// nodes, DART_SHARED_MEMORY=0.
NodeSync* node_sync(Team& team);
// The engine of a team across nodes: the units of each node meet (alone,
// where a node holds one), their first unit speaks for them in MPI
// (nullptr where node_sync applies, and for teams of one or
// DART_SHARED_MEMORY=0).
NodeSync* node_step_sync(Team& team);

// An agreement of the runtime's own collective calls (allocation, free,
// registration, team creation): `n` words combined element-wise over the
// members, as signed maxima or bitwise ORs; `in` may equal `out`. Through
// the node engine when the team has one (a few cache-line hand-offs, and a
// member found in a different call fails it on all of them), else one
// MPI_Allreduce.
enum class Combine { Max, BitOr };
void agree(Team& team, Call call, Combine op, const std::int64_t* in, std::int64_t* out, int n);

// dart_exit's meeting on DART_TEAM_ALL, while it is not broken and meets
// through shared memory: a member still in a collective that this member
// skipped meets it here instead of waiting for ever, and both break the
// team. Never throws for that (the caller reads Team::broken()).
void meet_at_exit(Team& world);

// Deletes an engine; used by Team, which cannot see the type.
struct NodeSyncDeleter {
  void operator()(NodeSync* p) const noexcept;
};

}  // namespace dart::coll
