// Communication contexts (ext/dart_ctx.h).
//
// A context is a stream of operations with its own completion. Every call
// resolves its global pointer once and takes one of two paths, as the
// plain calls do:
//   - load/store and CPU atomics when the caller maps the target (a node
//     mate with load/store on): complete when the call returns; a quiet
//     owes them one memory fence;
//   - MPI RMA on the segment's window otherwise: the operation is issued,
//     noted on the window (so dart_flush still sees it) and its
//     (window, target) pair recorded in the context's pending set, which
//     dart_ctx_quiet flushes pair by pair (MPI_Win_flush), nothing more.
//
// Operands may be reused on return, so what MPI may still read after the
// call returns is copied into a stage owned by the context (released by
// the next quiet): a copy of a few bytes costs nanoseconds, while the
// alternative, a local flush of the target, is a round through the MPI
// library (about a microsecond with shared-memory windows, a network round
// trip with UCX; under MPICH it is a full flush, mpi::flush_local). Puts
// and accumulates larger than kStageMax are not copied (copying them costs
// as much as sending them): they are issued from the caller's buffer and
// completed locally before the call returns.
//
// Locking. The default context and contexts created without
// DART_CTX_PRIVATE or DART_CTX_SERIALIZED may be used by several threads at
// once: a mutex guards their pending set and stage (held from staging
// through issuing to recording, so a quiet of another thread never recycles
// a stage MPI still reads). Private and serialised contexts take no lock.
// The load/store path touches neither, so it takes no lock on any context.
//
// Lifetime. A context's memory never returns to the allocator: destroyed
// contexts go to a free list, so a call on a destroyed context reads a
// valid struct whose state word says "dead" and is refused (DART_ERR_INVAL)
// without a lookup; the registry of live contexts (a mutex and a set) is
// consulted by create and destroy only. A destroyed context's memory is
// reused only after kKeepFree later destroys, so a stale pointer is
// detected until then (after that it may name a new context: the check
// cannot tell the two apart). Pointers that never came from dart_ctx_create
// are detected by dart_ctx_destroy only; the other calls read their state
// word.
//
// Pending pairs whose segment was freed since (dart_team_memfree,
// dart_memfree, dart_team_destroy, dart_exit: all of them complete the
// window's operations before freeing it) must not reach MPI_Win_flush, whose
// window handle would be dangling. A pair is therefore kept with the global
// pointer it came from; the quiet resolves it again and flushes only when
// the segment still resolves to the same window and rank.
#include <dash/dart/ext/dart_ctx.h>

#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/mpi_handles.hpp"
#include "core/runtime.hpp"
#include "core/stats.hpp"
#include "rma/access.hpp"
#include "rma/atomics.hpp"
#include "rma/copy.hpp"
#include "rma/signal.hpp"
#include "rma/transfer.hpp"

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

namespace dart::ctx {

// Puts and accumulates of at most this many bytes are copied into the
// stage; larger ones are completed locally instead.
constexpr std::size_t kStageMax = 8192;

// Operands MPI may read after the call returned, until the next quiet.
// Blocks of kBlock bytes, kept across quiets; when kMaxBlocks are full,
// the context completes everything (a quiet) and starts over.
class Stage {
 public:
  static constexpr std::size_t kBlock = std::size_t(64) << 10;
  static constexpr std::size_t kMaxBlocks = 16;  // 1 MiB in flight per context at most

  // Room for `n` <= kBlock bytes, 16-byte aligned; nullptr when full.
  void* take(std::size_t n) {
    n = (n + 15) & ~std::size_t(15);
    if (in_use_ == 0 || used_ + n > kBlock) {
      if (in_use_ == kMaxBlocks) return nullptr;
      if (in_use_ == blocks_.size()) blocks_.emplace_back(new unsigned char[kBlock]);
      ++in_use_;
      used_ = 0;
    }
    unsigned char* p = blocks_[in_use_ - 1].get() + used_;
    used_ += n;
    return p;
  }
  void reset() noexcept {
    in_use_ = 0;
    used_ = 0;
  }
  void release() noexcept {
    blocks_.clear();
    reset();
  }

 private:
  std::vector<std::unique_ptr<unsigned char[]>> blocks_;
  std::size_t in_use_ = 0;
  std::size_t used_ = 0;
};

// A (window, target) pair with RMA issued on the context since its last
// quiet, and the global pointer that named it (to check at the quiet that
// the window still exists).
struct Pending {
  MPI_Win win;
  int rank;
  dart_gptr_t g;
};

// What a context owns besides its state word.
class Stream {
 public:
  // Set at creation: whether threads share the stream (a lock).
  bool shared = true;
  std::mutex mutex;

  // Whether the pending set is not empty; read without the lock by the
  // fences' fast path.
  [[nodiscard]] bool has_pending() const noexcept { return has_pending_.load(std::memory_order_acquire); }

  // Records RMA issued to `t` (found from `g`). Under the lock if shared.
  void note(const Target& t, const dart_gptr_t& g) {
    // The last pair first: a stream of operations to one target.
    if (!pending_.empty() && pending_.back().win == t.win && pending_.back().rank == t.rank) return;
    for (const Pending& p : pending_)
      if (p.win == t.win && p.rank == t.rank) return;
    pending_.push_back({t.win, t.rank, g});
    has_pending_.store(true, std::memory_order_release);
  }

  // A copy of `n` bytes at `src` that lives until the next completion;
  // completes the stream first when the stage is full. Under the lock.
  const void* stage(const void* src, std::size_t n) {
    void* p = stage_.take(n);
    if (!p) {
      complete();
      p = stage_.take(n);
    }
    std::memcpy(p, src, n);
    return p;
  }

  // Flushes every pending pair whose window still exists, then forgets
  // them and recycles the stage. Under the lock if shared.
  void complete() {
    activity::InMpi in_mpi;  // blocking MPI calls (core/activity.hpp)
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const Pending& p = pending_[i];
      if (!still_valid(p)) continue;
      stats::add(stats::MpiFlush);
      const int rc = MPI_Win_flush(p.rank, p.win);
      if (rc != MPI_SUCCESS) {
        // The pairs not flushed yet stay pending (and the stage with them).
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        mpi_check(rc, "MPI_Win_flush");
      }
    }
    pending_.clear();
    has_pending_.store(false, std::memory_order_release);
    stage_.reset();
  }

  // A destroyed context's memory: nothing pending, no stage.
  void release() noexcept {
    pending_.clear();
    pending_.shrink_to_fit();
    has_pending_.store(false, std::memory_order_relaxed);
    stage_.release();
  }

 private:
  static bool still_valid(const Pending& p) noexcept {
    if (!runtime()) return false;
    try {
      const Target t = resolve(p.g);
      return t.win == p.win && t.rank == p.rank;
    } catch (const Error&) {
      return false;  // the segment, its team or the runtime went away
    }
  }

  std::vector<Pending> pending_;
  std::atomic<bool> has_pending_{false};
  Stage stage_;
};

// The state word: kLive | options while the context lives.
constexpr std::uint32_t kMagicMask = 0xffff0000u;
constexpr std::uint32_t kLive = 0xc0de0000u;
constexpr std::uint32_t kDead = 0xdead0000u;
constexpr unsigned kOptions = DART_CTX_SERIALIZED | DART_CTX_PRIVATE | DART_CTX_NOSTORE;

}  // namespace dart::ctx

struct dart_ctx_struct {
  std::atomic<std::uint32_t> state{0};
  pthread_t owner{};  // the creating thread (checked for DART_CTX_PRIVATE)
  dart::ctx::Stream stream;
};

using namespace dart;
using namespace dart::ctx;

namespace {

// The default context's stream: shared by all threads, never destroyed.
Stream& default_stream() {
  static Stream s;
  return s;
}

// Live contexts and the memory of destroyed ones (never freed, see above).
struct Registry {
  static constexpr std::size_t kKeepFree = 64;
  std::mutex mutex;
  std::unordered_set<dart_ctx_t> live;
  std::deque<dart_ctx_t> free;  // oldest first
};
Registry& registry() {
  static auto* r = new Registry;  // outlives every static destructor that might still use a context
  return *r;
}

// The fast paths' check: whether `ctx` may be used by this thread (for a
// store with `store`). Everything it refuses goes to use(), which explains.
[[gnu::always_inline]] inline bool usable(dart_ctx_t ctx, bool store) noexcept {
  if (!ctx) return true;
  const std::uint32_t s = ctx->state.load(std::memory_order_relaxed);
  if ((s & kMagicMask) != kLive || (store && (s & DART_CTX_NOSTORE))) return false;
  return !(s & DART_CTX_PRIVATE) || pthread_equal(ctx->owner, pthread_self());
}

// The checked form: the context's stream, or DART_ERR_INVAL with the reason.
Stream& use(dart_ctx_t ctx, bool store) {
  if (!ctx) return default_stream();
  const std::uint32_t s = ctx->state.load(std::memory_order_acquire);
  if ((s & kMagicMask) != kLive) invalid("the context is not live (destroyed, or not made by dart_ctx_create)");
  if ((s & DART_CTX_PRIVATE) && !pthread_equal(ctx->owner, pthread_self()))
    invalid("the context is private (DART_CTX_PRIVATE) to the thread that created it");
  if (store && (s & DART_CTX_NOSTORE))
    invalid("the context was created with DART_CTX_NOSTORE: no puts, put-with-signal or non-fetching atomics");
  return ctx->stream;
}

// The stream's lock when threads share it; nothing otherwise.
class Lock {
 public:
  explicit Lock(Stream& s) : m_(s.shared ? &s.mutex : nullptr) {
    if (m_) m_->lock();
  }
  ~Lock() {
    if (m_) m_->unlock();
  }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  std::mutex* m_;
};

// The load/store address of `nelem` elements of `dtype` at `g` when the
// fast path may take the transfer; nullptr otherwise.
[[gnu::always_inline]] inline char* direct_elems(const dart_gptr_t& g, const void* buf, std::size_t nelem,
                                                 dart_datatype_t dtype, std::size_t* bytes) noexcept {
  const std::size_t size = basic_size_or_zero(dtype);
  if (size == 0 || !buf || __builtin_mul_overflow(nelem, size, bytes)) return nullptr;
  return direct(g, *bytes);
}

// A put's store and a get's load on the shared mapping, ordered as dart_put
// and dart_get order theirs (rma/dart_communication_rma.cpp).
[[gnu::always_inline]] inline void store(char* dst, const void* src, std::size_t bytes) noexcept {
  stats::add(stats::LocalPut);
  stats::add(stats::LocalBytes, bytes);
  copy(dst, src, bytes);
  std::atomic_thread_fence(std::memory_order_release);
}

[[gnu::always_inline]] inline void load(void* dst, const char* src, std::size_t bytes) noexcept {
  stats::add(stats::LocalGet);
  stats::add(stats::LocalBytes, bytes);
  std::atomic_thread_fence(std::memory_order_acquire);
  copy(dst, src, bytes);
}

// Bytes of `nelem` elements of the basic type `dtype` at `t`, checked
// against the target's portion.
std::size_t transfer_bytes(const Target& t, std::size_t nelem, dart_datatype_t dtype) {
  if (!is_basic_type(dtype)) invalid("the data type must be a basic type");
  const std::size_t bytes = checked_bytes(nelem, basic_type_size(dtype));
  if (bytes > t.avail)
    invalid("access of " + std::to_string(bytes) + " bytes runs past the end of the target's portion (" +
            std::to_string(t.avail) + " bytes left after the offset)");
  return bytes;
}

void put(Stream& s, const dart_gptr_t& dest, const void* src, std::size_t nelem, dart_datatype_t dtype) {
  const Target t = resolve(dest);
  const std::size_t bytes = transfer_bytes(t, nelem, dtype);
  if (bytes == 0) return;
  require(src, "src");
  if (t.local) {
    store(t.local, src, bytes);
    return;
  }
  if (!via_rma(t, src, bytes)) {
    put_complete(dest, src, nelem, dtype);
    return;
  }
  Lock lock(s);
  const void* from = bytes <= kStageMax ? s.stage(src, bytes) : src;
  rma_issue(true, t, const_cast<void*>(from), nelem, dtype);
  s.note(t, dest);
  if (from == src) flush_local_target(t);
}

void get(Stream& s, void* dest, const dart_gptr_t& src, std::size_t nelem, dart_datatype_t dtype) {
  const Target t = resolve(src);
  const std::size_t bytes = transfer_bytes(t, nelem, dtype);
  if (bytes == 0) return;
  require(dest, "dest");
  if (t.local) {
    load(dest, t.local, bytes);
    return;
  }
  if (!via_rma(t, dest, bytes)) {
    get_complete(dest, src, nelem, dtype);
    return;
  }
  Lock lock(s);
  rma_issue(false, t, dest, nelem, dtype);
  s.note(t, src);
}

void accumulate_on(Stream& s, const dart_gptr_t& dest, const void* values, std::size_t nelem, dart_datatype_t dtype,
                   dart_operation_t op) {
  const Target t = resolve(dest);
  const std::size_t size = basic_size_or_zero(dtype);
  // CPU atomics and the runtime's emulation complete inside the call; so
  // do calls that issue nothing; accumulate() checks everything.
  if (size == 0 || nelem == 0 || op == DART_OP_NO_OP || !values || !issued_through_mpi(t, dtype)) {
    accumulate(t, values, nelem, dtype, op, false);
    return;
  }
  check_atomic_op(op, dtype);
  const std::size_t bytes = checked_bytes(nelem, size);
  if (bytes > t.avail) invalid("atomic access of " + std::to_string(bytes) + " bytes runs past the end of the target's portion");
  Lock lock(s);
  const void* from = bytes <= kStageMax ? s.stage(values, bytes) : values;
  accumulate(t, from, nelem, dtype, op, from == values);
  s.note(t, dest);
}

void fetch_and_op_on(Stream& s, const dart_gptr_t& g, const void* value, void* result, dart_datatype_t dtype,
                     dart_operation_t op) {
  const Target t = resolve(g);
  const std::size_t size = basic_size_or_zero(dtype);
  if (size == 0 || !value || !result || !issued_through_mpi(t, dtype)) {
    fetch_and_op(t, value, result, dtype, op);
    return;
  }
  Lock lock(s);
  fetch_and_op(t, s.stage(value, size), result, dtype, op);
  s.note(t, g);
}

void compare_and_swap_on(Stream& s, const dart_gptr_t& g, const void* value, const void* compare, void* result,
                         dart_datatype_t dtype) {
  const Target t = resolve(g);
  const std::size_t size = basic_size_or_zero(dtype);
  if (size == 0 || !value || !compare || !result || !issued_through_mpi(t, dtype)) {
    compare_and_swap(t, value, compare, result, dtype);
    return;
  }
  Lock lock(s);
  const void* v = s.stage(value, size);
  const void* c = s.stage(compare, size);
  compare_and_swap(t, v, c, result, dtype);
  s.note(t, g);
}

// As dart_put_signal (rma/dart_ext_sync.cpp): the data is complete at the
// target (a fence, or MPI_Win_flush of its target) before the signal's
// update is issued, so it is ordered before the signal on every path; the
// signal takes the accumulate path of every update of that word.
void put_signal_on(Stream& s, const dart_gptr_t& dest, const void* src, std::size_t nelem, dart_datatype_t dtype,
                   const dart_gptr_t& signal, std::uint64_t value, dart_signal_op_t op) {
  const dart_operation_t aop = signal_op(op);
  const Target st = signal_target(signal, global_unit_of(dest));
  put_complete(dest, src, nelem, dtype);
  const unsigned long long v = value;
  if (!issued_through_mpi(st, DART_TYPE_ULONGLONG)) {
    accumulate(st, &v, 1, DART_TYPE_ULONGLONG, aop, false);
    return;
  }
  Lock lock(s);
  accumulate(st, s.stage(&v, sizeof v), 1, DART_TYPE_ULONGLONG, aop, false);
  s.note(st, signal);
}

// Completes the stream's RMA; `order` is the fence the load/store path owes.
void complete(Stream& s, std::memory_order order) {
  if (s.has_pending()) {
    Lock lock(s);
    s.complete();
  }
  std::atomic_thread_fence(order);
}

// The checked paths, out of line with their arguments by value, so the
// fast paths keep theirs in registers and have no exception frame.
[[gnu::noinline]] dart_ret_t put_checked(dart_ctx_t ctx, dart_gptr_t dest, const void* src, std::size_t nelem,
                                         dart_datatype_t dtype) {
  return entry("dart_ctx_put", [&] { put(use(ctx, true), dest, src, nelem, dtype); });
}

[[gnu::noinline]] dart_ret_t get_checked(dart_ctx_t ctx, void* dest, dart_gptr_t src, std::size_t nelem,
                                         dart_datatype_t dtype) {
  return entry("dart_ctx_get", [&] { get(use(ctx, false), dest, src, nelem, dtype); });
}

[[gnu::noinline]] dart_ret_t complete_checked(const char* call, dart_ctx_t ctx, std::memory_order order) {
  return entry(call, [&] { complete(use(ctx, false), order); });
}

}  // namespace

extern "C" {

dart_ret_t dart_ctx_create(unsigned options, dart_ctx_t* ctx) {
  return entry("dart_ctx_create", [&] {
    require(ctx, "ctx");
    *ctx = DART_CTX_DEFAULT;
    (void)rt();
    if (options & ~kOptions)
      invalid("unknown options 0x" + [&] {
        char b[16];
        std::snprintf(b, sizeof b, "%x", options & ~kOptions);
        return std::string(b);
      }() + " (DART_CTX_SERIALIZED, DART_CTX_PRIVATE and DART_CTX_NOSTORE are known)");
    Registry& r = registry();
    dart_ctx_t c = nullptr;
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      if (r.free.size() > Registry::kKeepFree) {
        c = r.free.front();
        r.free.pop_front();
      }
    }
    if (!c) c = new dart_ctx_struct;
    c->owner = pthread_self();
    c->stream.shared = !(options & (DART_CTX_PRIVATE | DART_CTX_SERIALIZED));
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      r.live.insert(c);
    }
    c->state.store(kLive | options, std::memory_order_release);
    *ctx = c;
  });
}

dart_ret_t dart_ctx_destroy(dart_ctx_t* ctx) {
  return entry("dart_ctx_destroy", [&] {
    require(ctx, "ctx");
    dart_ctx_t c = *ctx;
    if (c == DART_CTX_DEFAULT) invalid("DART_CTX_DEFAULT cannot be destroyed");
    Registry& r = registry();
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      if (!r.live.count(c)) invalid("the context is not live (destroyed, or not made by dart_ctx_create)");
    }
    complete(use(c, false), std::memory_order_seq_cst);
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.live.erase(c)) invalid("the context was destroyed by another thread meanwhile");
    c->state.store(kDead, std::memory_order_release);
    c->stream.release();
    r.free.push_back(c);
    *ctx = DART_CTX_DEFAULT;
  });
}

dart_ret_t dart_ctx_put(dart_ctx_t ctx, dart_gptr_t dest, const void* src, size_t nelem, dart_datatype_t dtype) {
  std::size_t bytes = 0;
  if (usable(ctx, true))
    if (char* d = direct_elems(dest, src, nelem, dtype, &bytes)) {
      store(d, src, bytes);
      return DART_OK;
    }
  return put_checked(ctx, dest, src, nelem, dtype);
}

dart_ret_t dart_ctx_get(dart_ctx_t ctx, void* dest, dart_gptr_t src, size_t nelem, dart_datatype_t dtype) {
  std::size_t bytes = 0;
  if (usable(ctx, false))
    if (const char* p = direct_elems(src, dest, nelem, dtype, &bytes)) {
      load(dest, p, bytes);
      return DART_OK;
    }
  return get_checked(ctx, dest, src, nelem, dtype);
}

dart_ret_t dart_ctx_accumulate(dart_ctx_t ctx, dart_gptr_t dest, const void* values, size_t nelem,
                               dart_datatype_t dtype, dart_operation_t op) {
  return entry("dart_ctx_accumulate", [&] { accumulate_on(use(ctx, true), dest, values, nelem, dtype, op); });
}

dart_ret_t dart_ctx_fetch_and_op(dart_ctx_t ctx, dart_gptr_t gptr, const void* value, void* result,
                                 dart_datatype_t dtype, dart_operation_t op) {
  if (usable(ctx, false) && fetch_and_op_direct(gptr, value, result, dtype, op)) return DART_OK;
  return entry("dart_ctx_fetch_and_op", [&] { fetch_and_op_on(use(ctx, false), gptr, value, result, dtype, op); });
}

dart_ret_t dart_ctx_compare_and_swap(dart_ctx_t ctx, dart_gptr_t gptr, const void* value, const void* compare,
                                     void* result, dart_datatype_t dtype) {
  if (usable(ctx, false) && compare_and_swap_direct(gptr, value, compare, result, dtype)) return DART_OK;
  return entry("dart_ctx_compare_and_swap",
               [&] { compare_and_swap_on(use(ctx, false), gptr, value, compare, result, dtype); });
}

dart_ret_t dart_ctx_put_signal(dart_ctx_t ctx, dart_gptr_t dest, const void* src, size_t nelem,
                               dart_datatype_t dtype, dart_gptr_t signal, uint64_t value, dart_signal_op_t op) {
  if (usable(ctx, true) && put_signal_direct(dest, src, nelem, dtype, signal, value, op, false)) return DART_OK;
  return entry("dart_ctx_put_signal",
               [&] { put_signal_on(use(ctx, true), dest, src, nelem, dtype, signal, value, op); });
}

dart_ret_t dart_ctx_fence(dart_ctx_t ctx) {
  // MPI does not order RMA operations among themselves, so the fence of a
  // context with RMA pending completes it; otherwise everything it issued
  // is already complete and a release fence orders it before what follows.
  if (usable(ctx, false) && !(ctx ? ctx->stream : default_stream()).has_pending()) {
    std::atomic_thread_fence(std::memory_order_release);
    return DART_OK;
  }
  return complete_checked("dart_ctx_fence", ctx, std::memory_order_release);
}

dart_ret_t dart_ctx_quiet(dart_ctx_t ctx) {
  if (usable(ctx, false) && !(ctx ? ctx->stream : default_stream()).has_pending()) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return DART_OK;
  }
  return complete_checked("dart_ctx_quiet", ctx, std::memory_order_seq_cst);
}

}  // extern "C"
