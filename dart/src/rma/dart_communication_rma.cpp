// One-sided transfers, handles and flushes (dart_communication.h).
//
// Every transfer resolves its global pointer once (rma/access.cpp) and then
// takes one of two paths: load/store (memcpy) when the target's memory is
// mapped into this process, or MPI RMA on the segment's window. Load/store
// transfers are complete when the call returns, so their handles are
// DART_HANDLE_NULL; RMA transfers are completed by flushes or by their
// handles' MPI requests.
#include <dash/dart/ext/dart_atomic_handle.h>
#include <dash/dart/if/dart_communication.h>

#include "coll/pieces.hpp"
#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"
#include "core/stats.hpp"
#include "rma/access.hpp"
#include "rma/atomics.hpp"
#include "rma/copy.hpp"
#include "rma/transfer.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

struct dart_handle_struct {
  MPI_Win win = MPI_WIN_NULL;
  int rank = -1;
  bool put = false;
  std::vector<MPI_Request> requests;
  // Completes by a flush of its target instead of by requests: a fetching
  // atomic (ext/dart_atomic_handle.h; MPI has no request for
  // MPI_Fetch_and_op or MPI_Compare_and_swap), and under Open MPI a put
  // (kPutHandleByFlush).
  bool by_flush = false;
  // MPI may still read operands[] (a fetching atomic's): the handle must
  // complete before it is freed.
  bool holds_operands = false;
  alignas(16) unsigned char operands[2][16] = {};
};

using namespace dart;

namespace {

// Open MPI's osc/ucx completes an MPI_Rput's request only once the put is
// complete at the target (an endpoint flush), so a put handle that waits
// for its request and then flushes for remote completion paid two round
// trips across hosts: dart_put_handle + dart_wait 50 us against 33 for
// MPI_Put + MPI_Win_flush (rig, 2 hosts x 1). There a put handle issues
// MPI_Put and completes by one flush of its target. MPICH's request is
// local completion, so it keeps the request.
#ifdef OPEN_MPI
constexpr bool kPutHandleByFlush = true;
#else
constexpr bool kPutHandleByFlush = false;
#endif

// The most bytes one RMA call moves (DART_RMA_PIECE_SIZE, at most 1 GiB:
// MPI counts are int). Larger transfers are issued in pieces, all in
// flight at once: under MPICH a large RMA call across hosts is 2.4x
// slower than the same bytes in 64 KiB pieces (core/config.hpp).
std::size_t rma_piece() { return rt().config().rma_piece_bytes; }

// Calls fn(offset, piece) for consecutive pieces of `bytes`, each at most
// rma_piece().
template <class Fn>
void for_each_piece(std::size_t bytes, Fn&& fn) {
  coll::for_each_piece(bytes, rma_piece(), std::forward<Fn>(fn));
}

enum class Dir { Put, Get };
enum class Mode { Blocking, Nonblocking, Handle };

// Live handles. A handle is freed by wait/test/free; the registry turns a
// second use of the same pointer into DART_ERR_INVAL instead of a crash.
struct HandleRegistry {
  std::mutex mutex;
  std::unordered_set<dart_handle_t> live;
};
HandleRegistry& handles() {
  static HandleRegistry r;
  return r;
}

// A handle for an operation on `t`, not yet live: a caller that may still
// complete the operation inside the call registers it only once it knows.
std::unique_ptr<dart_handle_struct> unregistered_handle(const Target& t, bool put) {
  auto h = std::make_unique<dart_handle_struct>();
  h->win = t.win;
  h->rank = t.rank;
  h->put = put;
  h->by_flush = put && kPutHandleByFlush;
  return h;
}

dart_handle_t register_handle(std::unique_ptr<dart_handle_struct> h) {
  std::lock_guard<std::mutex> lock(handles().mutex);
  handles().live.insert(h.get());
  return h.release();
}

dart_handle_t new_handle(const Target& t, bool put) { return register_handle(unregistered_handle(t, put)); }

void require_live(dart_handle_t h) {
  std::lock_guard<std::mutex> lock(handles().mutex);
  if (!handles().live.count(h)) invalid("handle is not live (already completed or freed)");
}

void release_handle(dart_handle_t* hp) {
  {
    std::lock_guard<std::mutex> lock(handles().mutex);
    handles().live.erase(*hp);
  }
  delete *hp;
  *hp = DART_HANDLE_NULL;
}

// Moves `nelem` elements between the local buffer and the target. The
// global side is laid out by `remote_type`, the local buffer by
// `local_type`. Returns the handle in Handle mode (or DART_HANDLE_NULL when
// the transfer completed inside the call).
// The common case, a basic type on both sides and a target on this node:
// one copy, with none of the layout machinery.
void transfer_basic_local(Dir dir, const Target& t, void* buf, std::size_t nelem, dart_datatype_t type, Mode mode) {
  const std::size_t bytes = checked_bytes(nelem, basic_type_size(type));
  if (bytes > t.avail)
    invalid("access of " + std::to_string(bytes) + " bytes runs past the end of the target's portion (" +
            std::to_string(t.avail) + " bytes left after the offset)");
  if (bytes == 0) return;
  if (!buf) invalid(dir == Dir::Put ? "src is NULL" : "dest is NULL");
  stats::add(dir == Dir::Put ? stats::LocalPut : stats::LocalGet);
  stats::add(stats::LocalBytes, bytes);
  // Ordering as in transfer() below.
  if (dir == Dir::Get) {
    std::atomic_thread_fence(std::memory_order_acquire);
    copy(buf, t.local, bytes);
  } else {
    copy(t.local, buf, bytes);
    std::atomic_thread_fence(mode == Mode::Blocking ? std::memory_order_seq_cst : std::memory_order_release);
  }
}

#ifndef OPEN_MPI
// A blocking get under MPICH completes by its requests, which say that the
// data has arrived, not by a flush. MPICH 4.0 (ch4:ucx) spends a second
// round trip on the flush across hosts: DASH's GUPS (a blocking get and a
// blocking put per update) on 2 rig hosts x 1 took 0.95-1.06 s with
// MPI_Get + MPI_Win_flush and 0.70-0.72 s with MPI_Rget + MPI_Wait, against
// 0.68-0.70 s on DASH's own DART-MPI. It is also the completion that stays
// right while other threads are in MPI (see mpi::flush_local).
void get_by_requests(const Target& t, char* p, std::size_t bytes) {
  MPI_Request one = MPI_REQUEST_NULL;
  std::vector<MPI_Request> many;
  const bool whole = bytes <= rma_piece();
  for_each_piece(bytes, [&](std::size_t done, int piece) {
    MPI_Request* r = &one;
    if (!whole) r = &many.emplace_back(MPI_REQUEST_NULL);
    const int rc = MPI_Rget(p + done, piece, MPI_BYTE, t.rank, t.disp + static_cast<MPI_Aint>(done), piece, MPI_BYTE,
                            t.win, r);
    if (rc != MPI_SUCCESS) {
      // Pieces already issued write into the caller's buffer: let them
      // finish before the error returns.
      if (!whole) MPI_Waitall(static_cast<int>(many.size()), many.data(), MPI_STATUSES_IGNORE);
      mpi_check(rc, "MPI_Rget");
    }
  });
  if (whole) mpi_check(MPI_Wait(&one, MPI_STATUS_IGNORE), "MPI_Wait");
  else mpi_check(MPI_Waitall(static_cast<int>(many.size()), many.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}
#endif

// The common case through MPI: a basic type on both sides, no handle. One
// MPI call per GiB, none of the layout machinery (which costs tens of ns
// per call, as much as the MPI call itself on a shared-memory window).
void transfer_basic_rma(Dir dir, const Target& t, void* buf, std::size_t nelem, dart_datatype_t type, Mode mode) {
  const std::size_t bytes = checked_bytes(nelem, basic_type_size(type));
  if (bytes > t.avail)
    invalid("access of " + std::to_string(bytes) + " bytes runs past the end of the target's portion (" +
            std::to_string(t.avail) + " bytes left after the offset)");
  if (bytes == 0) return;
  if (!buf) invalid(dir == Dir::Put ? "src is NULL" : "dest is NULL");
  stats::add(dir == Dir::Put ? stats::RmaPut : stats::RmaGet);
  stats::add(stats::RmaBytes, bytes);
  char* p = static_cast<char*>(buf);
  activity::InMpi in_mpi(reach(t));
#ifndef OPEN_MPI
  if (dir == Dir::Get && mode == Mode::Blocking) {
    get_by_requests(t, p, bytes);
    return;
  }
#endif
  for_each_piece(bytes, [&](std::size_t done, int piece) {
    const MPI_Aint disp = t.disp + static_cast<MPI_Aint>(done);
    if (dir == Dir::Put) mpi_check(MPI_Put(p + done, piece, MPI_BYTE, t.rank, disp, piece, MPI_BYTE, t.win), "MPI_Put");
    else mpi_check(MPI_Get(p + done, piece, MPI_BYTE, t.rank, disp, piece, MPI_BYTE, t.win), "MPI_Get");
    t.window->note_issued(t.rank);
  });
  if (mode == Mode::Blocking) {
    if (dir == Dir::Put) flush_target(t);
    else flush_local_target(t);
  }
}

// The fast path of every basic transfer to memory this unit maps: the
// target's address that `look(g, bytes)` finds, with `bytes` set, when both
// types are the same basic type and the access is valid; nullptr for
// everything else, which transfer() then checks and explains. No call, no
// exception frame: an 8-byte put is a store and a fence plus a few
// predictable branches.
template <class Look>
[[gnu::always_inline]] inline char* direct_transfer(const dart_gptr_t& g, const void* buf, std::size_t nelem,
                                                    dart_datatype_t a, dart_datatype_t b, std::size_t* bytes,
                                                    Look look) noexcept {
  const std::size_t size = basic_size_or_zero(a);
  if (a != b || size == 0 || !buf || __builtin_mul_overflow(nelem, size, bytes)) return nullptr;
  return look(g, *bytes);
}
[[gnu::always_inline]] inline char* direct_transfer(const dart_gptr_t& g, const void* buf, std::size_t nelem,
                                                    dart_datatype_t a, dart_datatype_t b, std::size_t* bytes) noexcept {
  return direct_transfer(g, buf, nelem, a, b, bytes, [](const dart_gptr_t& p, std::size_t n) { return direct(p, n); });
}

// Direct put and get; the ordering is the one explained in transfer().
[[gnu::always_inline]] inline void direct_put(char* dst, const void* src, std::size_t bytes, Mode mode) noexcept {
  stats::add(stats::LocalPut);
  stats::add(stats::LocalBytes, bytes);
  copy(dst, src, bytes);
  if (mode == Mode::Blocking) std::atomic_thread_fence(std::memory_order_seq_cst);
  else std::atomic_thread_fence(std::memory_order_release);
}

[[gnu::always_inline]] inline void direct_get(void* dst, const char* src, std::size_t bytes) noexcept {
  stats::add(stats::LocalGet);
  stats::add(stats::LocalBytes, bytes);
  std::atomic_thread_fence(std::memory_order_acquire);
  copy(dst, src, bytes);
}

dart_handle_t transfer(Dir dir, const dart_gptr_t& gptr, void* buf, std::size_t nelem, dart_datatype_t local_type,
                       dart_datatype_t remote_type, Mode mode);

// The checked path of the blocking and non-blocking transfers, out of line
// and taking the pointer by value, so the fast path keeps its arguments in
// registers instead of spilling the pointer for a reference.
[[gnu::noinline]] dart_ret_t transfer_checked(const char* call, Dir dir, dart_gptr_t gptr, void* buf, std::size_t nelem,
                                              dart_datatype_t local_type, dart_datatype_t remote_type, Mode mode) {
  // First the second chance of the fast path: extents of dart_memalloc
  // mapped on this node.
  std::size_t bytes = 0;
  if (char* p = direct_transfer(gptr, buf, nelem, local_type, remote_type, &bytes, direct_extent)) {
    if (dir == Dir::Put) direct_put(p, buf, bytes, mode);
    else direct_get(buf, p, bytes);
    return DART_OK;
  }
  return entry(call, [&] { transfer(dir, gptr, buf, nelem, local_type, remote_type, mode); });
}

dart_handle_t transfer(Dir dir, const dart_gptr_t& gptr, void* buf, std::size_t nelem, dart_datatype_t local_type,
                       dart_datatype_t remote_type, Mode mode) {
  const Target t = resolve(gptr);
  if (local_type == remote_type && is_basic_type(local_type)) {
    if (t.local) {
      transfer_basic_local(dir, t, buf, nelem, local_type, mode);
      return DART_HANDLE_NULL;
    }
    std::size_t bytes = 0;
    const bool own_overlap = t.mine && !__builtin_mul_overflow(nelem, basic_type_size(local_type), &bytes) &&
                             overlapping(buf, bytes, t.mine, bytes);
    if (mode != Mode::Handle && t.win != MPI_WIN_NULL && !own_overlap) {
      transfer_basic_rma(dir, t, buf, nelem, local_type, mode);
      return DART_HANDLE_NULL;
    }
  }
  const TypeDesc& ld = type_desc(local_type);
  const TypeDesc& rd = type_desc(remote_type);
  const std::size_t bytes = dir == Dir::Put ? check_transfer_types(nelem, ld, rd) : check_transfer_types(nelem, rd, ld);
  const Layout remote(rd, nelem);
  if (remote.span_bytes() > t.avail)
    invalid("access of " + std::to_string(remote.span_bytes()) + " bytes runs past the end of the target's portion (" +
            std::to_string(t.avail) + " bytes left after the offset)");
  if (bytes == 0) return DART_HANDLE_NULL;
  if (!buf) invalid(dir == Dir::Put ? "src is NULL" : "dest is NULL");
  char* local = static_cast<char*>(buf);
  const Layout mine(ld, nelem);

  // A buffer that overlaps the target's range in the caller's own memory:
  // MPI forbids that (MPICH aborts the process) and memcpy is undefined for
  // it, so the transfer goes through a copy of its source, as if the source
  // were read whole before the destination is written, and by load/store
  // since the memory is the caller's.
  char* const near = t.local ? t.local : t.mine;
  std::vector<char> stage;
  if (near && overlapping(local, mine.span_bytes(), near, remote.span_bytes())) {
    if (dir == Dir::Put) stage.assign(local, local + mine.span_bytes());
    else stage.assign(near, near + remote.span_bytes());
  }
  if (t.local || !stage.empty()) {
    const char* src = !stage.empty() ? stage.data() : dir == Dir::Put ? local : near;
    // Ordering on the shared mapping (the MPI shared-memory model leaves it
    // to us): a get's loads must not move before anything this unit
    // observed earlier (acquire); a put's stores must not move after
    // anything it does next, such as setting a flag (release). A blocking
    // put is also remotely complete on return, so it must be visible
    // before this unit's next load of any location, which takes a full
    // fence (store-load ordering); the non-blocking forms leave that to
    // their flush.
    stats::add(dir == Dir::Put ? stats::LocalPut : stats::LocalGet);
    stats::add(stats::LocalBytes, bytes);
    if (dir == Dir::Get) std::atomic_thread_fence(std::memory_order_acquire);
    if (ld.contiguous() && rd.contiguous()) {
      std::memcpy(dir == Dir::Put ? near : local, src, bytes);
    } else {
      for_each_matched_run(mine, remote, [&](std::size_t lo, std::size_t ro, std::size_t n) {
        if (dir == Dir::Put) std::memcpy(near + ro, src + lo, n);
        else std::memcpy(local + lo, src + ro, n);
      });
    }
    if (dir == Dir::Put)
      std::atomic_thread_fence(mode == Mode::Blocking ? std::memory_order_seq_cst : std::memory_order_release);
    return DART_HANDLE_NULL;
  }

  stats::add(dir == Dir::Put ? stats::RmaPut : stats::RmaGet);
  stats::add(stats::RmaBytes, bytes);
  dart_handle_t h = mode == Mode::Handle ? new_handle(t, dir == Dir::Put) : DART_HANDLE_NULL;
  activity::InMpi in_mpi(reach(t));
  try {
    for_each_matched_run(mine, remote, [&](std::size_t lo, std::size_t ro, std::size_t n) {
      for_each_piece(n, [&](std::size_t done, int piece) {
        const MPI_Aint disp = t.disp + static_cast<MPI_Aint>(ro + done);
        char* p = local + lo + done;
        if (h && !h->by_flush) {
          MPI_Request req = MPI_REQUEST_NULL;
          if (dir == Dir::Put)
            mpi_check(MPI_Rput(p, piece, MPI_BYTE, t.rank, disp, piece, MPI_BYTE, t.win, &req), "MPI_Rput");
          else mpi_check(MPI_Rget(p, piece, MPI_BYTE, t.rank, disp, piece, MPI_BYTE, t.win, &req), "MPI_Rget");
          h->requests.push_back(req);
        } else if (dir == Dir::Put) {
          mpi_check(MPI_Put(p, piece, MPI_BYTE, t.rank, disp, piece, MPI_BYTE, t.win), "MPI_Put");
        } else {
          mpi_check(MPI_Get(p, piece, MPI_BYTE, t.rank, disp, piece, MPI_BYTE, t.win), "MPI_Get");
        }
        t.window->note_issued(t.rank);
      });
    });
  } catch (...) {
    if (h) {
      // Requests already started must finish before the handle goes away.
      activity::InMpi in_mpi;
      MPI_Waitall(static_cast<int>(h->requests.size()), h->requests.data(), MPI_STATUSES_IGNORE);
      release_handle(&h);
    }
    throw;
  }
  if (mode == Mode::Blocking) {
    if (dir == Dir::Put) flush_target(t);
    else flush_local_target(t);
  }
  return h;
}

// Flushes what completes `h`: a flush of its target when it is a put that
// must be visible there (`remote`), otherwise a local flush.
void flush_for(const dart_handle_struct& h, bool remote) {
  if (remote && h.put) mpi::flush(h.rank, h.win);
  else mpi::flush_local(h.rank, h.win);
}

// Completion of one handle. `remote`: also wait for a put to be visible at
// the target. `block`: wait; otherwise only test. True when complete (the
// handle is then released and nulled).
bool complete(dart_handle_t* hp, bool remote, bool block) {
  if (!hp || !*hp) return true;
  dart_handle_t h = *hp;
  require_live(h);
  if (h->by_flush) {
    // Nothing to test: the flush is the completion, and it is short.
    flush_for(*h, remote);
    release_handle(hp);
    return true;
  }
  const int n = static_cast<int>(h->requests.size());
  if (block) {
    activity::InMpi in_mpi;
    mpi_check(MPI_Waitall(n, h->requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  } else {
    int flag = 0;
    mpi_check(MPI_Testall(n, h->requests.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (!flag) return false;
  }
  // The requests completed locally; a put owes the flush that makes it
  // visible at the target.
  if (remote && h->put) mpi::flush(h->rank, h->win);
  release_handle(hp);
  return true;
}

void check_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) invalid("more than INT_MAX handles");
}

void wait_all(dart_handle_t handles_[], std::size_t n, bool remote) {
  check_count(n);
  if (n > 0 && !handles_) invalid("handles is NULL");
  // Fetching atomics (and puts without a request) complete by a flush of
  // their target: one flush per target completes all of them (a batch of
  // non-blocking atomics to one unit costs one flush, not one each). A
  // full flush also completes what needs only a local one.
  MPI_Win flushed_win = MPI_WIN_NULL;
  int flushed_rank = -1;
  bool flushed_full = false;
  for (std::size_t i = 0; i < n; ++i) {
    dart_handle_t h = handles_[i];
    if (!h || !h->by_flush) continue;
    require_live(h);
    const bool full = remote && h->put;
    if (h->win != flushed_win || h->rank != flushed_rank || (full && !flushed_full)) {
      flush_for(*h, remote);
      flushed_win = h->win;
      flushed_rank = h->rank;
      flushed_full = full;
    }
    release_handle(&handles_[i]);
  }
  for (std::size_t i = 0; i < n; ++i) (void)complete(&handles_[i], remote, true);
}

// All-or-nothing test of n handles: releases them only if all completed.
bool test_all(dart_handle_t handles_[], std::size_t n, bool remote) {
  check_count(n);
  if (n == 0 || !handles_) return true;
  for (std::size_t i = 0; i < n; ++i) {
    dart_handle_t h = handles_[i];
    if (!h) continue;
    require_live(h);
    if (h->by_flush) continue;  // completes by its flush in complete()
    int flag = 0;
    mpi_check(MPI_Testall(static_cast<int>(h->requests.size()), h->requests.data(), &flag, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (!flag) return false;
  }
  for (std::size_t i = 0; i < n; ++i) (void)complete(&handles_[i], remote, true);
  return true;
}

enum class FlushKind { One, All, LocalOne, LocalAll };

// A flush of a mapped segment on whose windows nothing was issued through
// MPI (all its traffic was load/store) owes only the fence. True when that
// is the case and the call is valid.
[[gnu::always_inline]] inline bool flush_direct(dart_gptr_t gptr, FlushKind kind) noexcept {
  using direct_cache::racy;
  std::uint64_t word;
  const direct_cache::Entry* e = direct_entry(gptr, word);
  // Memory of dart_memalloc beyond the pool has a window of its own.
  if (!e || names_extent(gptr)) return false;
  if ((kind == FlushKind::One || kind == FlushKind::LocalOne) &&
      static_cast<unsigned>(gptr.unitid) >= static_cast<unsigned>(racy(e->d.team_size)))
    return false;
  const std::atomic<bool>* issued0 = racy(e->d.issued[0]);
  const std::atomic<bool>* issued1 = racy(e->d.issued[1]);
  // Confirmed before the flags are followed: they live in the segment's
  // chunk, which a concurrent free may release. A cached slot implies a
  // runtime: dart_exit frees every segment, and with it its slot, before
  // the runtime goes.
  if (!direct_cache::still(*e, word)) return false;
  if (issued0->load(std::memory_order_acquire) || issued1->load(std::memory_order_acquire) || have_orphans())
    return false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  stats::add(stats::SkippedFlush);
  return true;
}

void flush(dart_gptr_t gptr, FlushKind kind) {
  // Names the segment (and unit) only; for memory of dart_memalloc beyond
  // the pool, also the extent, whose window differs.
  const bool extent = names_extent(gptr);
  gptr.addr_or_offs.offset = extent ? gptr.addr_or_offs.offset & ~Extents::kByteMask : 0;
  Target t;
  if ((kind == FlushKind::All || kind == FlushKind::LocalAll) && !extent) {
    // The unit is irrelevant; resolve through the caller's own portion
    // (an extent exists on its owner only, so it resolves through that).
    Team* team = nullptr;
    find_segment(gptr, &team);
    gptr.unitid = team->myid();
  }
  t = resolve(gptr);
  rt().reap_requests(false);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (t.win == MPI_WIN_NULL) return;
  // Only operations issued through MPI need an MPI flush (Window::note_issued).
  bool needed = false;
  switch (kind) {
    case FlushKind::One: needed = t.window->take_issued(t.rank); break;
    case FlushKind::All: needed = t.window->take_issued_all(); break;
    case FlushKind::LocalOne: needed = t.window->issued(t.rank); break;
    case FlushKind::LocalAll: needed = t.window->issued_any(); break;
  }
  stats::add(needed ? stats::MpiFlush : stats::SkippedFlush);
  if (!needed) return;
  switch (kind) {
    case FlushKind::One: flush_target(t); break;
    case FlushKind::All: mpi::flush_all(t.win); break;
    case FlushKind::LocalOne: flush_local_target(t); break;
    case FlushKind::LocalAll: mpi::flush_local_all(t.win); break;
  }
}

// The checked path of the flushes, out of line (see transfer_checked).
[[gnu::noinline]] dart_ret_t flush_checked(const char* call, dart_gptr_t gptr, FlushKind kind) {
  return entry(call, [&] { flush(gptr, kind); });
}

}  // namespace

// Fetching atomics with a handle. The CPU and emulated paths complete
// inside the call (DART_HANDLE_NULL); the MPI path returns a handle whose
// completion is a local flush of the target.
namespace {

template <class Issue>
void fetching_with_handle(dart_gptr_t gptr, const void* value, const void* compare, dart_datatype_t dtype,
                          dart_handle_t* handle, Issue&& issue) {
  const std::size_t size = basic_size_or_zero(dtype);
  if (!handle) invalid("handle is NULL");
  const Target t = resolve(gptr);
  auto h = unregistered_handle(t, false);
  h->by_flush = true;
  h->holds_operands = true;
  if (size > sizeof h->operands[0]) invalid("the data type is too large for an atomic");
  if (value) std::memcpy(h->operands[0], value, size);
  if (compare) std::memcpy(h->operands[1], compare, size);
  issue(t, value ? h->operands[0] : nullptr, compare ? h->operands[1] : nullptr);
  if (issued_through_mpi(t, dtype)) *handle = register_handle(std::move(h));
}

}  // namespace

void dart::put_complete(const dart_gptr_t& g, const void* src, std::size_t nelem, dart_datatype_t dtype) {
  if (!is_basic_type(dtype)) invalid("the data type must be a basic type");
  (void)transfer(Dir::Put, g, const_cast<void*>(src), nelem, dtype, dtype, Mode::Blocking);
}

void dart::get_complete(void* dest, const dart_gptr_t& g, std::size_t nelem, dart_datatype_t dtype) {
  if (!is_basic_type(dtype)) invalid("the data type must be a basic type");
  (void)transfer(Dir::Get, g, dest, nelem, dtype, dtype, Mode::Blocking);
}

bool dart::via_rma(const Target& t, const void* buf, std::size_t bytes) noexcept {
  // As transfer() decides for a basic type without a handle.
  return !t.local && t.win != MPI_WIN_NULL && !(t.mine && overlapping(buf, bytes, t.mine, bytes));
}

void dart::rma_issue(bool put, const Target& t, void* buf, std::size_t nelem, dart_datatype_t dtype) {
  if (!is_basic_type(dtype)) invalid("the data type must be a basic type");
  transfer_basic_rma(put ? Dir::Put : Dir::Get, t, buf, nelem, dtype, Mode::Nonblocking);
}

extern "C" {

dart_ret_t dart_put_blocking(dart_gptr_t gptr, const void* src, size_t nelem, dart_datatype_t src_type,
                             dart_datatype_t dst_type) {
  std::size_t bytes = 0;
  if (char* dst = direct_transfer(gptr, src, nelem, src_type, dst_type, &bytes)) {
    direct_put(dst, src, bytes, Mode::Blocking);
    return DART_OK;
  }
  return transfer_checked("dart_put_blocking", Dir::Put, gptr, const_cast<void*>(src), nelem, src_type, dst_type,
                          Mode::Blocking);
}

dart_ret_t dart_get_blocking(void* dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,
                             dart_datatype_t dst_type) {
  std::size_t bytes = 0;
  if (const char* src = direct_transfer(gptr, dest, nelem, src_type, dst_type, &bytes)) {
    direct_get(dest, src, bytes);
    return DART_OK;
  }
  return transfer_checked("dart_get_blocking", Dir::Get, gptr, dest, nelem, dst_type, src_type, Mode::Blocking);
}

dart_ret_t dart_put(dart_gptr_t gptr, const void* src, size_t nelem, dart_datatype_t src_type,
                    dart_datatype_t dst_type) {
  std::size_t bytes = 0;
  if (char* dst = direct_transfer(gptr, src, nelem, src_type, dst_type, &bytes)) {
    direct_put(dst, src, bytes, Mode::Nonblocking);
    return DART_OK;
  }
  return transfer_checked("dart_put", Dir::Put, gptr, const_cast<void*>(src), nelem, src_type, dst_type,
                          Mode::Nonblocking);
}

dart_ret_t dart_get(void* dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type) {
  std::size_t bytes = 0;
  if (const char* src = direct_transfer(gptr, dest, nelem, src_type, dst_type, &bytes)) {
    direct_get(dest, src, bytes);
    return DART_OK;
  }
  return transfer_checked("dart_get", Dir::Get, gptr, dest, nelem, dst_type, src_type, Mode::Nonblocking);
}

dart_ret_t dart_put_handle(dart_gptr_t gptr, const void* src, size_t nelem, dart_datatype_t src_type,
                           dart_datatype_t dst_type, dart_handle_t* handle) {
  if (handle) *handle = DART_HANDLE_NULL;
  return entry("dart_put_handle", [&] {
    if (!handle) invalid("handle is NULL");
    *handle = transfer(Dir::Put, gptr, const_cast<void*>(src), nelem, src_type, dst_type, Mode::Handle);
  });
}

dart_ret_t dart_get_handle(void* dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,
                           dart_datatype_t dst_type, dart_handle_t* handle) {
  if (handle) *handle = DART_HANDLE_NULL;
  return entry("dart_get_handle", [&] {
    if (!handle) invalid("handle is NULL");
    *handle = transfer(Dir::Get, gptr, dest, nelem, dst_type, src_type, Mode::Handle);
  });
}

dart_ret_t dart_wait(dart_handle_t* handle) {
  return entry("dart_wait", [&] { (void)complete(handle, true, true); });
}

dart_ret_t dart_wait_local(dart_handle_t* handle) {
  return entry("dart_wait_local", [&] { (void)complete(handle, false, true); });
}

dart_ret_t dart_waitall(dart_handle_t handles_[], size_t n) {
  return entry("dart_waitall", [&] { wait_all(handles_, n, true); });
}

dart_ret_t dart_waitall_local(dart_handle_t handles_[], size_t n) {
  return entry("dart_waitall_local", [&] { wait_all(handles_, n, false); });
}

dart_ret_t dart_test_local(dart_handle_t* handle, int32_t* result) {
  return entry("dart_test_local", [&] {
    if (!result) invalid("result is NULL");
    *result = complete(handle, false, false) ? 1 : 0;
  });
}

dart_ret_t dart_test(dart_handle_t* handleptr, int32_t* is_finished) {
  return entry("dart_test", [&] {
    if (!is_finished) invalid("is_finished is NULL");
    *is_finished = complete(handleptr, true, false) ? 1 : 0;
  });
}

dart_ret_t dart_testall_local(dart_handle_t handles_[], size_t n, int32_t* result) {
  return entry("dart_testall_local", [&] {
    if (!result) invalid("result is NULL");
    *result = test_all(handles_, n, false) ? 1 : 0;
  });
}

dart_ret_t dart_testall(dart_handle_t handles_[], size_t n, int32_t* is_finished) {
  return entry("dart_testall", [&] {
    if (!is_finished) invalid("is_finished is NULL");
    *is_finished = test_all(handles_, n, true) ? 1 : 0;
  });
}

dart_ret_t dart_handle_free(dart_handle_t* handle) {
  return entry("dart_handle_free", [&] {
    if (!handle || !*handle) return;
    require_live(*handle);
    // The operation proceeds; a later flush on its segment completes it,
    // and the runtime completes its requests.
    // A fetching atomic's operands live in the handle: complete it first.
    if ((*handle)->holds_operands) mpi::flush_local((*handle)->rank, (*handle)->win);
    rt().adopt_requests((*handle)->requests);
    release_handle(handle);
  });
}


dart_ret_t dart_fetch_and_op_handle(dart_gptr_t gptr, const void* value, void* result, dart_datatype_t dtype,
                                    dart_operation_t op, dart_handle_t* handle) {
  if (handle) *handle = DART_HANDLE_NULL;
  if (handle && fetch_and_op_direct(gptr, value, result, dtype, op)) return DART_OK;
  return entry("dart_fetch_and_op_handle", [&] {
    fetching_with_handle(gptr, value, nullptr, dtype, handle,
                         [&](const Target& t, const void* v, const void*) { fetch_and_op(t, v, result, dtype, op); });
  });
}

dart_ret_t dart_compare_and_swap_handle(dart_gptr_t gptr, const void* value, const void* compare, void* result,
                                        dart_datatype_t dtype, dart_handle_t* handle) {
  if (handle) *handle = DART_HANDLE_NULL;
  if (handle && compare_and_swap_direct(gptr, value, compare, result, dtype)) return DART_OK;
  return entry("dart_compare_and_swap_handle", [&] {
    fetching_with_handle(gptr, value, compare, dtype, handle,
                         [&](const Target& t, const void* v, const void* c) {
                           compare_and_swap(t, v, c, result, dtype);
                         });
  });
}

dart_ret_t dart_flush(dart_gptr_t gptr) {
  if (flush_direct(gptr, FlushKind::One)) return DART_OK;
  return flush_checked("dart_flush", gptr, FlushKind::One);
}

dart_ret_t dart_flush_all(dart_gptr_t gptr) {
  if (flush_direct(gptr, FlushKind::All)) return DART_OK;
  return flush_checked("dart_flush_all", gptr, FlushKind::All);
}

dart_ret_t dart_flush_local(dart_gptr_t gptr) {
  if (flush_direct(gptr, FlushKind::LocalOne)) return DART_OK;
  return flush_checked("dart_flush_local", gptr, FlushKind::LocalOne);
}

dart_ret_t dart_flush_local_all(dart_gptr_t gptr) {
  if (flush_direct(gptr, FlushKind::LocalAll)) return DART_OK;
  return flush_checked("dart_flush_local_all", gptr, FlushKind::LocalAll);
}

}  // extern "C"
