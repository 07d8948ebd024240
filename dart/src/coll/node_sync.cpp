#include "coll/node_sync.hpp"

#include "abort.hpp"
#include "core/activity.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "team/team.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <thread>

#include <sys/uio.h>
#include <unistd.h>

namespace dart::coll {

namespace {
// `p` rounded up to the alignment of a part's Lines.
void* aligned(void* p) noexcept {
  constexpr std::uintptr_t a = 128;
  return reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(p) + a - 1) & ~(a - 1));
}
}  // namespace

const char* call_name(Call c) noexcept {
  switch (c) {
    case Call::Bcast: return "dart_bcast";
    case Call::Scatter: return "dart_scatter";
    case Call::Gather: return "dart_gather";
    case Call::Allgather: return "dart_allgather";
    case Call::Allgatherv: return "dart_allgatherv";
    case Call::Alltoall: return "dart_alltoall";
    case Call::Allreduce: return "dart_allreduce";
    case Call::Reduce: return "dart_reduce";
    case Call::Barrier: return "dart_barrier";
    case Call::TeamMemalloc: return "dart_team_memalloc_aligned";
    case Call::TeamMemfree: return "dart_team_memfree";
    case Call::TeamMemregister: return "dart_team_memregister";
    case Call::RegisterGlobals: return "dart_team_memregister_globals";
    case Call::NodeStep: return "a collective";
    case Call::TeamCreate: return "dart_team_create";
    case Call::Exit: return "dart_exit";
  }
  return "an unknown collective";
}

namespace {

// Waits until done() while yielding the CPU; after every
// DART_COLLECTIVE_TIMEOUT period it calls report(seconds waited), and with
// DART_COLLECTIVE_TIMEOUT_ACTION=abort it then aborts the job. Returns
// whether a yield gave the CPU to another process (it took more than a few
// microseconds): then this core has more work than it can run at once.
template <class Done, class Report>
bool wait_patiently(Call call, Done&& done, Report&& report) {
  const Config& cfg = rt().config();
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const bool timed = cfg.collective_timeout_s > 0;
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.collective_timeout_s));
  auto next_report = start + period;
  bool gave_way = false;
  for (unsigned long k = 0;; ++k) {
    if (done()) return gave_way;
    const auto before = Clock::now();
    std::this_thread::yield();
    const auto now = Clock::now();
    gave_way = gave_way || now - before > std::chrono::microseconds(5);
    if ((k & 63) != 0 || !timed) continue;
    if (now < next_report) continue;
    report(std::chrono::duration<double>(now - start).count());
    if (cfg.collective_timeout_abort) {
      log(LogLevel::Error, call_name(call), "aborting the job (DART_COLLECTIVE_TIMEOUT_ACTION=abort)");
      mpifix::abort_job(MPI_COMM_WORLD, DART_EXIT_ABORT);
    }
    next_report = now + period;
  }
}

// A team other than DART_TEAM_ALL makes its window at its first
// collective, inside MPI, where a member that never comes would leave the
// others waiting without a word. A non-blocking barrier first lets them
// wait as in any other collective: yielding, and saying so after the
// collective timeout (MPI does not tell which members are missing).
void await_members(const Team& team) {
  MPI_Request req = MPI_REQUEST_NULL;
  {
    activity::InMpi in_mpi;
    mpi_check(MPI_Ibarrier(team.comm(), &req), "MPI_Ibarrier");
  }
  (void)wait_patiently(
      Call::NodeStep,
      [&] {
        int done = 0;
        activity::InMpi in_mpi;
        mpi_check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
        return done != 0;
      },
      [&](double waited) {
        log(LogLevel::Error, call_name(Call::NodeStep),
            "waited %.0f s for the members of team %d to reach the team's first collective (which sets up its "
            "shared-memory window); some have not arrived",
            waited, static_cast<int>(team.id()));
      });
}

}  // namespace

NodeSync::NodeSync(MPI_Comm comm, dart_team_t team_id, bool whole_team, mpi::Comm leaders, std::vector<int> placement,
                   bool oversubscribed, bool try_single_copy)
    : leaders_(std::move(leaders)),
      placement_(std::move(placement)),
      team_id_(team_id),
      whole_team_(whole_team),
      oversubscribed_(oversubscribed),
      spin_(oversubscribed ? kMinSpin : kMaxSpin) {
  mpi_check(MPI_Comm_rank(comm, &me_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &n_), "MPI_Comm_size");
  for (std::size_t u = 1; u < placement_.size(); u += 2) nodes_shared_ = nodes_shared_ || placement_[u] > 0;
  slot_ = std::clamp<std::size_t>((std::size_t(8) << 20) / (2 * static_cast<std::size_t>(n_)), std::size_t(16) << 10,
                                  std::size_t(256) << 10);
  void* base = nullptr;
  // MPI places a part only 8-byte aligned (Open MPI's osc/sm): each part
  // gets room to start on its Line's alignment.
  win_ = mpi::Window::allocate_shared(static_cast<MPI_Aint>(sizeof(Part) + 2 * slot_ + alignof(Part)), comm, &base);
  // The window's memory is not zeroed by MPI: the headers must read as "no
  // meeting yet" before anyone looks at them (the barrier below).
  mine_ = new (aligned(base)) Part;
  parts_.resize(static_cast<std::size_t>(n_));
  for (int r = 0; r < n_; ++r) {
    MPI_Aint bytes = 0;
    int disp = 0;
    void* p = nullptr;
    mpi_check(MPI_Win_shared_query(win_.get(), r, &bytes, &disp, &p), "MPI_Win_shared_query");
    parts_[static_cast<std::size_t>(r)] = static_cast<Part*>(aligned(p));
  }
  parts_[static_cast<std::size_t>(me_)] = mine_;
  mine_->pid = static_cast<std::int64_t>(getpid());
  // A value no other process holds at that address by chance (two
  // processes in different PID namespaces may share a pid and a layout).
  probe_ = (static_cast<std::uint64_t>(std::random_device{}()) << 32 | std::random_device{}()) ^
           (static_cast<std::uint64_t>(me_) << 48) ^ static_cast<std::uint64_t>(mine_->pid);
  mine_->probe_addr = reinterpret_cast<std::uintptr_t>(&probe_);
  mine_->probe = probe_;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  activity::InMpi in_mpi;
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  // Single copy only if every member reads every other member's probe
  // word: containers, seccomp profiles and Yama's ptrace_scope can forbid
  // process_vm_readv, and members in different PID namespaces see other
  // pids. One member that cannot turns it off for all.
  int can = try_single_copy ? 1 : 0;
  for (int m = 0; m < n_ && can; ++m) {
    if (m == me_) continue;
    const Part* part = parts_[static_cast<std::size_t>(m)];
    std::uint64_t word = 0;
    // A member with this process's own pid is in another PID namespace.
    const bool read = part->pid != mine_->pid &&
                      read_from(m, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(part->probe_addr)),
                                &word, sizeof word);
    can = read && word == part->probe;
    if (!can)
      log(LogLevel::Info, call_name(Call::NodeStep),
          "team %d copies large collectives through shared memory: process_vm_readv from member %d: %s",
          static_cast<int>(team_id), m,
          part->pid == mine_->pid ? "it has this process's pid (another PID namespace)"
          : read                  ? "read a wrong value"
                                  : std::strerror(errno));
  }
  // Whether the node is oversubscribed decides how many meetings some
  // calls take (split_fold), so the members agree on it too: one member
  // that sees more units than CPUs makes it so for all.
  int agreed[2] = {can, oversubscribed ? 0 : 1};
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  single_copy_ = agreed[0] != 0;
  oversubscribed_ = agreed[1] == 0;
}

bool NodeSync::read_from(int m, const void* from, void* to, std::size_t bytes) const noexcept {
  const auto pid = static_cast<pid_t>(parts_[static_cast<std::size_t>(m)]->pid);
  auto* dst = static_cast<char*>(to);
  auto src = reinterpret_cast<std::uintptr_t>(from);
  while (bytes > 0) {
    // The kernel moves at most MAX_RW_COUNT (about 2 GiB) per call and may
    // stop early at a page it cannot read; a call that moved nothing failed.
    const iovec local{dst, bytes};
    const iovec remote{reinterpret_cast<void*>(src), bytes};
    const ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      if (got == 0) errno = EFAULT;
      return false;
    }
    dst += got;
    src += static_cast<std::uintptr_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
  return true;
}

unsigned char* NodeSync::out(std::size_t bytes) noexcept {
  const int p = static_cast<int>((gen_ + 1) & 1);
  return bytes <= kInline ? mine_->line[p].small : data(mine_, p);
}

const unsigned char* NodeSync::in(int m, std::size_t bytes) const noexcept {
  const int p = static_cast<int>(gen_ & 1);
  Part* part = parts_[static_cast<std::size_t>(m)];
  return bytes <= kInline ? part->line[p].small : data(part, p);
}

NodeSync::Verdict NodeSync::meet(Call call, const Fingerprint& fp, bool valid) {
  const std::uint64_t g = gen_ + 1;
  const int p = static_cast<int>(g & 1);
  Line& l = mine_->line[p];
  l.call = static_cast<std::uint64_t>(call) | (valid ? 0 : 0x100);
  for (int i = 0; i < 3; ++i) l.fp[i] = fp.w[i];
  l.seq.store(g, std::memory_order_release);
  wait_all(g, p, call);
  gen_ = g;
  if (left_ >= 0) {
    // The others are not all here, so their headers are not read; every
    // member that reaches this meeting stops the same way.
    Verdict v;
    v.first_call = call;
    v.other_call_member = v.split_member = v.left_member = left_;
    v.other_call = v.split_call = Call::Exit;
    return v;
  }

  // Every member reads the same headers, so every member reaches the same
  // verdict.
  Verdict v;
  v.first_call = static_cast<Call>(parts_[0]->line[p].call & 0xff);
  for (int m = 0; m < n_; ++m) {
    const Line& o = parts_[static_cast<std::size_t>(m)]->line[p];
    if (o.call & 0x100) v.someone_invalid = true;
    v.first_words |= o.fp[0];
    const auto c = static_cast<Call>(o.call & 0xff);
    if (c != call && v.other_call_member < 0) {
      v.other_call_member = m;
      v.other_call = c;
    }
    if (c != v.first_call && v.split_member < 0) {
      v.split_member = m;
      v.split_call = c;
    }
    if (o.fp[0] != fp.w[0] || o.fp[1] != fp.w[1] || o.fp[2] != fp.w[2]) v.mismatch = true;
  }
  return v;
}

bool NodeSync::break_on(const Verdict& v) const {
  if (v.split_member < 0) return false;
  Runtime* r = runtime();
  Team* team = r ? r->find_team(team_id_) : nullptr;
  if (team)
    r->break_team(*team, "members of team " + std::to_string(team_id_) +
                             " were in different collectives at its collective #" + std::to_string(gen_) +
                             (v.left_member >= 0 ? " (member " + std::to_string(v.left_member) +
                                                       " called dart_exit, others " + call_name(v.first_call) + ")"
                                                 : " (member 0 called " + std::string(call_name(v.first_call)) +
                                                       ", member " + std::to_string(v.split_member) + " " +
                                                       call_name(v.split_call) + ")"));
  return true;
}

std::string NodeSync::await_leaving(double seconds) {
  mine_->leaving.store(1, std::memory_order_release);
  auto missing = [&] {
    std::string list;
    for (int m = 0; m < n_; ++m)
      if (parts_[static_cast<std::size_t>(m)]->leaving.load(std::memory_order_acquire) == 0)
        list += (list.empty() ? "" : ", ") + std::to_string(m);
    return list;
  };
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  // A member may first wait for its own RMA to this unit, which some MPI
  // libraries complete only while the target is in MPI (as in wait_all).
  ProgressPoller poller(rt().progress_comm(), /*probe_only=*/true);
  for (;;) {
    std::string list = missing();
    if (list.empty() || Clock::now() >= deadline) return list;
    poller.drive();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void NodeSync::throw_on(const Verdict& v, Call call) const {
  if (v.other_call_member >= 0) {
    (void)break_on(v);
    invalid(std::string("members of team ") + std::to_string(team_id_) + " are in different collectives: member " +
            std::to_string(v.other_call_member) + " called " + call_name(v.other_call) + ", this member " +
            call_name(call));
  }
  if (v.someone_invalid) invalid("another member passed invalid arguments");
  if (v.mismatch)
    invalid("the members passed different roots, counts, types or operations (or called different collectives)");
}

void NodeSync::wait_all(std::uint64_t g, int parity, Call call) {
  left_ = -1;
  int next = 0;  // members before `next` have arrived
  auto arrived_all = [&] {
    while (next < n_ && (next == me_ ||
                         parts_[static_cast<std::size_t>(next)]->line[parity].seq.load(std::memory_order_acquire) >= g))
      ++next;
    return next == n_;
  };
  // Members that call in step arrive within a few hundred nanoseconds, so
  // a member spins first. But when the member it waits for is not running
  // (more busy processes than CPUs: an oversubscribed node, other jobs,
  // several simulated hosts on one machine), spinning holds the very core
  // that member needs: with a fixed 2048 pauses (tens of microseconds) a
  // meeting of 4 units on 2 CPUs cost ~50 us. So the spin adapts: a wait
  // in which yielding handed the CPU to another process halves it (a
  // member that is merely busy, e.g. copying a large round, does not), 64
  // meetings in a row that ended within the spin double it again; a node
  // with more of the job's units than CPUs starts at the bottom.
  for (int spin = 0; spin < spin_; ++spin) {
    if (arrived_all()) {
      if (++in_step_ >= 64 && spin_ < kMaxSpin) {
        spin_ *= 2;
        in_step_ = 0;
      }
      return;
    }
    __builtin_ia32_pause();
  }
  if (arrived_all()) return;
  in_step_ = 0;
  // A late member: give up the CPU (another unit may need this core), and
  // keep MPI progressing, since a member may first wait for its own RMA to
  // this unit, which some libraries complete only while the target is in MPI.
  ProgressPoller poller(rt().progress_comm(), /*probe_only=*/true);
  // A missing member in dart_exit never comes (it marked itself leaving
  // after its last meeting here, so a member seen leaving and not arrived
  // stays so). dart_exit's own meeting is exempt: there the others publish
  // after marking their other teams.
  auto left = [&] {
    if (call == Call::Exit) return -1;
    for (int m = next; m < n_; ++m) {
      const Part* part = parts_[static_cast<std::size_t>(m)];
      if (m != me_ && part->leaving.load(std::memory_order_acquire) != 0 &&
          part->line[parity].seq.load(std::memory_order_acquire) < g)
        return m;
    }
    return -1;
  };
  const bool gave_way = wait_patiently(
      call,
      [&] {
        if (arrived_all()) return true;
        left_ = left();
        if (left_ >= 0) return true;
        poller.drive();
        return false;
      },
      [&](double waited) { report_wait(g, parity, call, waited); });
  if (gave_way) spin_ = std::max(kMinSpin, spin_ / 2);
}

void NodeSync::report_wait(std::uint64_t g, int parity, Call call, double waited) const {
  std::string missing;
  for (int m = 0; m < n_; ++m) {
    if (m == me_) continue;
    const Part* part = parts_[static_cast<std::size_t>(m)];
    if (part->line[parity].seq.load(std::memory_order_acquire) >= g) continue;
    const Line& last = part->line[parity ^ 1];
    const std::uint64_t done = last.seq.load(std::memory_order_acquire);
    if (!missing.empty()) missing += ", ";
    missing += std::to_string(m);
    missing += done == 0 ? " (no collective on this team yet)"
                         : " (last finished collective #" + std::to_string(done) + ", " +
                               call_name(static_cast<Call>(last.call & 0xff)) + ")";
  }
  log(LogLevel::Error, call_name(call),
      "waited %.0f s in collective #%llu on team %d; members that have not arrived: %s", waited,
      static_cast<unsigned long long>(g), static_cast<int>(team_id_), missing.c_str());
}

namespace {

// Whether this node runs more of the job's units than it has CPUs online.
// DART_TEAM_ALL knows the units of the node; its engine is made while the
// runtime is being built, so it answers for itself.
bool node_oversubscribed(const Team& team) {
  const Team& world = team.id() == DART_TEAM_ALL ? team : rt().world();
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 && world.node_size() > cpus;
}

NodeSync* engine(Team& team) {
  // Every collective starts here (node_sync, node_step_sync, agree), on
  // every path: a broken team fails before anything waits for its members.
  team.require_intact();
  auto& slot = team.node_sync_slot();
  if (slot) return slot.get();
  if (team.size() < 2 || !team.load_store()) return nullptr;
  const bool over = node_oversubscribed(team);
  if (team.id() != DART_TEAM_ALL) await_members(team);
  if (team.single_node()) {
    slot.reset(new NodeSync(team.comm(), team.id(), true, mpi::Comm(), {}, over, team.config().collective_single_copy));
    return slot.get();
  }
  int node_rank = 0;
  mpi_check(MPI_Comm_rank(team.node_comm(), &node_rank), "MPI_Comm_rank");
  MPI_Comm leaders = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split(team.comm(), node_rank == 0 ? 0 : MPI_UNDEFINED, team.myid(), &leaders), "MPI_Comm_split");
  mpi::Comm owned(leaders);
  if (leaders != MPI_COMM_NULL)
    mpi_check(MPI_Comm_set_errhandler(leaders, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  // Where every member sits: its node's rank among the leaders (which the
  // node's first unit tells the others) and its rank on the node, so that a
  // root anywhere in the team can be found on its node and among the nodes.
  int here[2] = {0, node_rank};
  if (leaders != MPI_COMM_NULL) mpi_check(MPI_Comm_rank(leaders, &here[0]), "MPI_Comm_rank");
  std::vector<int> placement(2 * static_cast<std::size_t>(team.size()));
  {
    activity::InMpi in_mpi;
    mpi_check(MPI_Bcast(&here[0], 1, MPI_INT, 0, team.node_comm()), "MPI_Bcast");
    mpi_check(MPI_Allgather(here, 2, MPI_INT, placement.data(), 2, MPI_INT, team.comm()), "MPI_Allgather");
  }
  slot.reset(new NodeSync(team.node_comm(), team.id(), false, std::move(owned), std::move(placement), over, false));
  return slot.get();
}

}  // namespace

NodeSync* node_sync(Team& team) {
  NodeSync* e = engine(team);
  return e && e->whole_team() ? e : nullptr;
}

NodeSync* node_step_sync(Team& team) {
  NodeSync* e = engine(team);
  return e && !e->whole_team() ? e : nullptr;
}

void agree(Team& team, Call call, Combine op, const std::int64_t* in, std::int64_t* out, int n) {
  NodeSync* ns = node_sync(team);
  if (!ns) {
    activity::InMpi in_mpi;
    mpi_check(MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out, n, MPI_INT64_T, op == Combine::Max ? MPI_MAX : MPI_BOR,
                            team.comm()),
              "MPI_Allreduce");
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(std::int64_t);
  if (bytes > std::max(ns->slot(), NodeSync::kInline))
    fail(DART_ERR_OTHER, "an agreement of " + std::to_string(n) + " words is too large");
  std::memcpy(ns->out(bytes), in, bytes);
  Fingerprint fp;
  fp.w[0] = static_cast<std::uint64_t>(n);
  fp.w[1] = static_cast<std::uint64_t>(op);
  ns->throw_on(ns->meet(call, fp, true), call);
  for (int i = 0; i < n; ++i) {
    std::int64_t acc = op == Combine::Max ? INT64_MIN : 0;
    for (int r = 0; r < ns->size(); ++r) {
      std::int64_t x;
      std::memcpy(&x, ns->in(r, bytes) + static_cast<std::size_t>(i) * sizeof x, sizeof x);
      acc = op == Combine::Max ? std::max(acc, x) : (acc | x);
    }
    out[i] = acc;
  }
}

void meet_at_exit(Team& world) {
  if (world.broken()) return;
  NodeSync* ns = node_sync(world);
  if (!ns) return;
  (void)ns->break_on(ns->meet(Call::Exit, Fingerprint{}, true));
}

void NodeSyncDeleter::operator()(NodeSync* p) const noexcept { delete p; }

}  // namespace dart::coll
