// RAII owners for the MPI objects the runtime creates.
//
// Each owner frees its object exactly once, in its destructor, and is
// move-only. Freeing a communicator or a window is collective in MPI, so
// owners of those are destroyed in the same order on every member (the
// runtime's tables are torn down deterministically in dart_exit and in the
// collective free calls).
#pragma once

#include <mpi.h>

#include "core/activity.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace dart::mpi {

// Move-only owner of one MPI handle; `Traits` names the handle type, its
// null value and its free call. Every kind of handle the runtime owns is
// one instance, so the rules above hold for all of them in one place.
template <class Traits>
class Owned {
 public:
  using Handle = typename Traits::Handle;
  Owned() = default;
  explicit Owned(Handle h) noexcept : h_(h) {}
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, Traits::null())) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, Traits::null());
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }

  void reset() noexcept {
    if (h_ != Traits::null()) Traits::free(&h_);
    h_ = Traits::null();
  }
  [[nodiscard]] Handle get() const noexcept { return h_; }
  // Gives the handle up without freeing it (another owner frees it).
  Handle release() noexcept { return std::exchange(h_, Traits::null()); }
  // Where a creating call writes the new handle (the old one is freed).
  [[nodiscard]] Handle* out() noexcept {
    reset();
    return &h_;
  }

 private:
  Handle h_ = Traits::null();
};

struct CommTraits {
  using Handle = MPI_Comm;
  static Handle null() noexcept { return MPI_COMM_NULL; }
  static void free(Handle* h) noexcept { MPI_Comm_free(h); }
};
struct GroupTraits {
  using Handle = MPI_Group;
  static Handle null() noexcept { return MPI_GROUP_NULL; }
  static void free(Handle* h) noexcept { MPI_Group_free(h); }
};
struct DatatypeTraits {
  using Handle = MPI_Datatype;
  static Handle null() noexcept { return MPI_DATATYPE_NULL; }
  static void free(Handle* h) noexcept { MPI_Type_free(h); }
};
struct OpTraits {
  using Handle = MPI_Op;
  static Handle null() noexcept { return MPI_OP_NULL; }
  static void free(Handle* h) noexcept { MPI_Op_free(h); }
};

using Group = Owned<GroupTraits>;
using Datatype = Owned<DatatypeTraits>;
using Op = Owned<OpTraits>;

class Comm : public Owned<CommTraits> {
 public:
  using Owned::Owned;
  // Duplicate of `base` for the runtime's private use, with errors returned
  // to the caller instead of aborting.
  static Comm dup(MPI_Comm base);
};

class Info {
 public:
  Info();
  Info(Info&& o) noexcept : info_(std::exchange(o.info_, MPI_INFO_NULL)) {}
  Info(const Info&) = delete;
  Info& operator=(const Info&) = delete;
  Info& operator=(Info&&) = delete;
  ~Info() {
    if (info_ != MPI_INFO_NULL) MPI_Info_free(&info_);
  }
  void set(const char* key, const char* value);
  [[nodiscard]] MPI_Info get() const noexcept { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

// A window that lives in one passive-target epoch (MPI_Win_lock_all with
// MPI_MODE_NOCHECK) from creation to destruction; completion is by flush.
class Window {
 public:
  Window() = default;
  Window(Window&& o) noexcept : win_(std::exchange(o.win_, MPI_WIN_NULL)), issued_(std::move(o.issued_)) {}
  Window& operator=(Window&& o) noexcept {
    if (this != &o) {
      reset();
      win_ = std::exchange(o.win_, MPI_WIN_NULL);
      issued_ = std::move(o.issued_);
    }
    return *this;
  }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  ~Window() { reset(); }

  // MPI_Win_allocate_shared over `comm`; *base receives this unit's memory.
  static Window allocate_shared(MPI_Aint bytes, MPI_Comm comm, void** base);
  // MPI_Win_allocate over `comm`; *base receives this unit's memory.
  static Window allocate(MPI_Aint bytes, MPI_Comm comm, void** base);
  // MPI_Win_create over memory the caller owns.
  static Window create(void* base, MPI_Aint bytes, MPI_Comm comm);
  // MPI_Win_create_dynamic: memory is attached and detached later, locally.
  static Window create_dynamic(MPI_Comm comm);

  void reset() noexcept;
  [[nodiscard]] MPI_Win get() const noexcept { return win_; }

  // Which targets had RMA calls issued on the window since their last
  // flush. Transfers to units on the node use load/store and never touch
  // MPI, so most flushes there have nothing to complete; this record lets
  // them skip MPI_Win_flush (which costs more than the transfer).
  //
  // The record is bounded, whatever the size of the team: up to kSlots
  // distinct targets are remembered exactly; beyond that it only says
  // "some", and every flush goes to MPI until the next flush_all clears
  // it. A program that talks to many targets between flushes pays what
  // raw MPI pays; nobody pays memory per unit of the job.
  //
  // Callers note *after* issuing and take *before* flushing, so an
  // operation is either seen by a flush or issued after it started.
  void note_issued(int rank) noexcept;
  // Clears and returns whether `rank` needs MPI_Win_flush.
  [[nodiscard]] bool take_issued(int rank) noexcept {
    // A plain load first: on-node work never sets anything.
    return issued_->any.load(std::memory_order_acquire) && take_issued_slow(rank);
  }
  // Clears and returns whether anything needs MPI_Win_flush_all.
  [[nodiscard]] bool take_issued_all() noexcept;
  // Reads without clearing: local completion leaves remote completion due.
  [[nodiscard]] bool issued(int rank) const noexcept;
  [[nodiscard]] bool issued_any() const noexcept { return issued_->any.load(std::memory_order_acquire); }
  // The flag issued_any reads, for fast paths that keep it at hand; a
  // flag that is never set for a null window.
  [[nodiscard]] const std::atomic<bool>* issued_flag() const noexcept {
    static const std::atomic<bool> never{false};
    return issued_ ? &issued_->any : &never;
  }
  // Heap bytes of the record (0 for a null window).
  [[nodiscard]] std::size_t metadata_bytes() const noexcept { return issued_ ? sizeof(Issued) : 0; }

 private:
  static constexpr int kSlots = 8;
  static constexpr int kFree = -1;
  struct Issued {
    std::atomic<bool> any{false};       // something may be unflushed
    std::atomic<bool> overflow{false};  // more targets than slots
    std::array<std::atomic<int>, kSlots> slot{};
  };
  explicit Window(MPI_Win w);
  static Window open(MPI_Win w);
  bool take_issued_slow(int rank) noexcept;
  MPI_Win win_ = MPI_WIN_NULL;
  std::unique_ptr<Issued> issued_;
};

// Local completion of the operations issued to `rank` (all ranks) on
// `win`: MPI_Win_flush_local(_all), except under MPICH, where it is the
// full flush. MPICH 4.0 (ch4:ucx) can return from MPI_Win_flush_local
// before a get's data has arrived when other threads make MPI calls at
// the same time (two threads each putting, flushing, getting and
// flush_local-ing their own range, plus a thread in MPI_Test: a get read
// the previous put's first element in 2 of 3 runs of 300,000 iterations;
// with MPI_Win_flush, 0 of 10). A get completes at the same time either
// way, so the cost is that of waiting for this unit's puts to the target.
void flush_local(int rank, MPI_Win win, activity::Reach reach = activity::Reach::Others);
void flush_local_all(MPI_Win win);

// Remote completion: MPI_Win_flush(_all). These four mark their flush as a
// blocking MPI call for the progress thread (core/activity.hpp); `reach`
// says whether `rank` is the caller itself (activity::Reach::Self).
void flush(int rank, MPI_Win win, activity::Reach reach = activity::Reach::Others);
void flush_all(MPI_Win win);

}  // namespace dart::mpi
