// RAII owners for the MPI objects the runtime creates.
//
// Each owner frees its object exactly once, in its destructor, and is
// move-only. Freeing a communicator or a window is collective in MPI, so
// owners of those are destroyed in the same order on every member (the
// runtime's tables are torn down deterministically in dart_exit and in the
// collective free calls).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace dart::mpi {

class Comm {
 public:
  Comm() = default;
  explicit Comm(MPI_Comm c) : comm_(c) {}
  Comm(Comm&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  Comm& operator=(Comm&& o) noexcept {
    if (this != &o) { reset(); comm_ = std::exchange(o.comm_, MPI_COMM_NULL); }
    return *this;
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm() { reset(); }

  void reset() noexcept {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }
  [[nodiscard]] MPI_Comm get() const noexcept { return comm_; }

  // Duplicate of `base` for the runtime's private use, with errors returned
  // to the caller instead of aborting.
  static Comm dup(MPI_Comm base);

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
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

  void reset() noexcept;
  [[nodiscard]] MPI_Win get() const noexcept { return win_; }

  // Whether RMA calls were issued on the window since the last flush, per
  // target rank. Transfers to units on the node use load/store and never
  // touch MPI, so most flushes there have nothing to complete; these flags
  // let them skip MPI_Win_flush (which costs more than the transfer).
  // Callers mark *after* issuing and take *before* flushing, so an
  // operation is either seen by a flush or issued after it started.
  void note_issued(int rank) noexcept {
    issued_->rank[static_cast<std::size_t>(rank)].store(true, std::memory_order_release);
    issued_->any.store(true, std::memory_order_release);
  }
  // Clears and returns the flag of `rank` (for MPI_Win_flush).
  [[nodiscard]] bool take_issued(int rank) noexcept {
    // A plain load first: the locked exchange costs more than the rest of
    // a flush, and on-node work never sets the flag.
    auto& flag = issued_->rank[static_cast<std::size_t>(rank)];
    return flag.load(std::memory_order_acquire) && flag.exchange(false, std::memory_order_acq_rel);
  }
  // Clears and returns the flags of all ranks (for MPI_Win_flush_all).
  [[nodiscard]] bool take_issued_all() noexcept;
  // Reads without clearing: local completion leaves remote completion due.
  [[nodiscard]] bool issued(int rank) const noexcept {
    return issued_->rank[static_cast<std::size_t>(rank)].load(std::memory_order_acquire);
  }
  [[nodiscard]] bool issued_any() const noexcept { return issued_->any.load(std::memory_order_acquire); }

 private:
  struct Issued {
    std::atomic<bool> any{false};
    std::unique_ptr<std::atomic<bool>[]> rank;
    std::size_t size = 0;
  };
  explicit Window(MPI_Win w);
  static Window open(MPI_Win w);
  MPI_Win win_ = MPI_WIN_NULL;
  std::unique_ptr<Issued> issued_;
};

}  // namespace dart::mpi
