// Team locks (dart_synchronization.h): an MCS queue lock built only from
// accumulate-type operations on global memory, so lock traffic never
// appears as a message on any communicator and acquisition is FIFO.
//
// Each member owns three 64-bit words of one team allocation:
//   [0] tail   (used on unit 0 only): team id of the last waiter, or -1
//   [1] next   team id of the unit queued behind this one, or -1
//   [2] locked nonzero while this unit waits for the lock
// Threads of one unit share one queue node, so a per-lock mutex admits one
// thread of the unit into the queue at a time.
#include <dash/dart/if/dart_synchronization.h>

#include "core/error.hpp"
#include "core/runtime.hpp"
#include "rma/atomics.hpp"

#include <dash/dart/if/dart_globmem.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

struct dart_lock_struct {
  dart_team_t team = DART_TEAM_NULL;
  std::uint64_t team_serial = 0;  // team ids are reused; this tells the incarnations apart
  dart_gptr_t words = DART_GPTR_NULL;
  int me = -1;
  std::mutex local;
  std::atomic<std::thread::id> owner{};
};

using namespace dart;

namespace {

using Word = long long;
constexpr Word kNone = -1;
enum : std::uint64_t { kTail = 0, kNext = sizeof(Word), kLocked = 2 * sizeof(Word) };

dart_gptr_t word(const dart_lock_struct& l, int unit, std::uint64_t offset) {
  dart_gptr_t g = l.words;
  g.unitid = unit;
  g.addr_or_offs.offset = offset;
  return g;
}

// Completes an operation issued on the MPI path (CPU atomics complete at once).
void complete(const Target& t) {
  if (!cpu_atomics(t, DART_TYPE_LONGLONG)) flush_target(t);
}

Word fetch_op(const dart_lock_struct& l, int unit, std::uint64_t offset, dart_operation_t op, Word value) {
  const Target t = resolve(word(l, unit, offset));
  Word old = 0;
  fetch_and_op(t, &value, &old, DART_TYPE_LONGLONG, op);
  complete(t);
  return old;
}

Word cas(const dart_lock_struct& l, int unit, std::uint64_t offset, Word value, Word compare) {
  const Target t = resolve(word(l, unit, offset));
  Word old = 0;
  compare_and_swap(t, &value, &compare, &old, DART_TYPE_LONGLONG);
  complete(t);
  return old;
}

Word read(const dart_lock_struct& l, int unit, std::uint64_t offset) {
  return fetch_op(l, unit, offset, DART_OP_NO_OP, 0);
}

void write(const dart_lock_struct& l, int unit, std::uint64_t offset, Word value) {
  (void)fetch_op(l, unit, offset, DART_OP_REPLACE, value);
}

// Polls `offset` of this unit until it satisfies `done`. Reading through the
// accumulate path (an MPI call when that is the path) keeps the MPI library
// progressing while we wait. When the read is a CPU load instead, nothing
// here calls MPI, and the progress thread serves the unit that hands the
// lock on, which writes this word by RMA (core/activity.hpp).
template <class Pred>
Word spin(const dart_lock_struct& l, std::uint64_t offset, Pred done) {
  for (;;) {
    const Word v = read(l, l.me, offset);
    if (done(v)) return v;
    std::this_thread::yield();
  }
}

// Every handle dart_team_lock_init gave out and dart_team_lock_destroy has
// not taken back. A handle is looked up here before it is dereferenced, so
// a copy of a destroyed handle is an error, not a use after free. A
// destroyed lock's memory is kept until kQuarantine more locks have been
// destroyed, so a stale handle does not at once name a new lock that
// happens to get the same address.
class Handles {
 public:
  void add(dart_lock_struct* l) {
    std::lock_guard<std::mutex> g(m_);
    live_.insert(l);
  }
  [[nodiscard]] bool live(const dart_lock_struct* l) {
    std::lock_guard<std::mutex> g(m_);
    return live_.count(l) != 0;
  }
  // Ends the handle's life; nullptr when it was not live.
  dart_lock_struct* take(dart_lock_struct* l) {
    std::lock_guard<std::mutex> g(m_);
    return live_.erase(l) ? l : nullptr;
  }
  void quarantine(std::unique_ptr<dart_lock_struct> l) {
    std::lock_guard<std::mutex> g(m_);
    dead_.push_back(std::move(l));
    if (dead_.size() > kQuarantine) dead_.pop_front();
  }

 private:
  static constexpr std::size_t kQuarantine = 1024;
  std::mutex m_;
  std::unordered_set<const dart_lock_struct*> live_;
  std::deque<std::unique_ptr<dart_lock_struct>> dead_;
};

// Never destroyed: handles may be checked during static destruction.
Handles& handles() {
  static auto* h = new Handles();
  return *h;
}

// The team of the lock while it and the lock's words live, else nullptr.
Team* lock_team(const dart_lock_struct& l) noexcept {
  Runtime* r = runtime();
  Team* team = r ? r->find_team(l.team) : nullptr;
  if (!team || team->serial() != l.team_serial || !team->segments().find(l.words.segid)) return nullptr;
  return team;
}

dart_lock_struct& live_lock(dart_lock_t lock) {
  if (!lock) invalid("lock is DART_LOCK_NULL");
  (void)rt();
  if (!handles().live(lock)) invalid("the lock handle was destroyed (or never made by dart_team_lock_init)");
  if (!lock_team(*lock)) invalid("the lock's team or its global memory no longer exists");
  return *lock;
}

// Joins the queue and waits until this unit is at its head.
void enqueue_and_wait(dart_lock_struct& l) {
  write(l, l.me, kNext, kNone);
  write(l, l.me, kLocked, 1);
  const Word prev = fetch_op(l, 0, kTail, DART_OP_REPLACE, l.me);
  if (prev == kNone) return;
  write(l, static_cast<int>(prev), kNext, l.me);
  spin(l, kLocked, [](Word v) { return v == 0; });
}

}  // namespace

extern "C" {

dart_ret_t dart_team_lock_init(dart_team_t teamid, dart_lock_t* lock) {
  if (lock) *lock = DART_LOCK_NULL;
  return entry("dart_team_lock_init", [&] {
    if (!lock) invalid("lock is NULL");
    Team& team = rt().team(teamid);
    auto l = std::make_unique<dart_lock_struct>();
    l->team = teamid;
    l->team_serial = team.serial();
    l->me = team.myid();
    const dart_ret_t rc = dart_team_memalloc_aligned(teamid, 3, DART_TYPE_LONGLONG, &l->words);
    if (rc != DART_OK) fail(rc, "allocating the lock's global memory failed");
    try {
      if (l->me == 0) write(*l, 0, kTail, kNone);
      write(*l, l->me, kNext, kNone);
      write(*l, l->me, kLocked, 0);
      activity::InMpi in_mpi;
      mpi_check(MPI_Barrier(team.comm()), "MPI_Barrier");  // every node initialised before use
    } catch (...) {
      (void)dart_team_memfree(l->words);
      throw;
    }
    handles().add(l.get());
    *lock = l.release();
  });
}

dart_ret_t dart_team_lock_destroy(dart_lock_t* lock) {
  return entry("dart_team_lock_destroy", [&] {
    if (!lock || !*lock) return;
    dart_lock_struct* taken = handles().take(*lock);
    if (!taken) invalid("the lock handle was already destroyed (or never made by dart_team_lock_init)");
    std::unique_ptr<dart_lock_struct> owned(taken);
    *lock = DART_LOCK_NULL;
    struct Quarantine {
      std::unique_ptr<dart_lock_struct>& l;
      ~Quarantine() { handles().quarantine(std::move(l)); }
    } keep{owned};
    (void)rt();
    if (Team* team = lock_team(*owned)) {
      activity::InMpi in_mpi;
      mpi_check(MPI_Barrier(team->comm()), "MPI_Barrier");  // nobody still uses the words
      const dart_ret_t rc = dart_team_memfree(owned->words);
      if (rc != DART_OK) fail(rc, "freeing the lock's global memory failed");
    }
  });
}

dart_ret_t dart_lock_acquire(dart_lock_t lock) {
  return entry("dart_lock_acquire", [&] {
    dart_lock_struct& l = live_lock(lock);
    if (l.owner.load() == std::this_thread::get_id()) invalid("the calling thread already holds this lock");
    l.local.lock();
    try {
      enqueue_and_wait(l);
    } catch (...) {
      l.local.unlock();
      throw;
    }
    l.owner.store(std::this_thread::get_id());
  });
}

dart_ret_t dart_lock_try_acquire(dart_lock_t lock, int32_t* result) {
  if (result) *result = 0;
  return entry("dart_lock_try_acquire", [&] {
    if (!result) invalid("result is NULL");
    dart_lock_struct& l = live_lock(lock);
    if (l.owner.load() == std::this_thread::get_id()) {
      *result = 1;
      invalid("the calling thread already holds this lock");
    }
    if (!l.local.try_lock()) return;  // another thread of this unit holds or wants it
    try {
      // Free right now means: nobody holds it and nobody queues.
      write(l, l.me, kNext, kNone);
      if (cas(l, 0, kTail, l.me, kNone) != kNone) {
        l.local.unlock();
        return;
      }
    } catch (...) {
      l.local.unlock();
      throw;
    }
    l.owner.store(std::this_thread::get_id());
    *result = 1;
  });
}

dart_ret_t dart_lock_release(dart_lock_t lock) {
  return entry("dart_lock_release", [&] {
    dart_lock_struct& l = live_lock(lock);
    if (l.owner.load() != std::this_thread::get_id()) invalid("the calling thread does not hold this lock");
    Word next = read(l, l.me, kNext);
    if (next == kNone) {
      // Nobody visible behind us: try to close the queue.
      if (cas(l, 0, kTail, kNone, l.me) == l.me) {
        l.owner.store(std::thread::id());
        l.local.unlock();
        return;
      }
      // A unit swapped itself into the tail and will link in shortly.
      next = spin(l, kNext, [](Word v) { return v != kNone; });
    }
    write(l, static_cast<int>(next), kLocked, 0);
    l.owner.store(std::thread::id());
    l.local.unlock();
  });
}

bool dart_lock_initialized(struct dart_lock_struct const* lock) {
  return lock && handles().live(lock) && lock_team(*lock);
}

}  // extern "C"
