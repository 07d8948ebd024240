#include "core/mpi_handles.hpp"

#include "core/error.hpp"

namespace dart::mpi {

Comm Comm::dup(MPI_Comm base) {
  MPI_Comm c = MPI_COMM_NULL;
  mpi_check(MPI_Comm_dup(base, &c), "MPI_Comm_dup");
  Comm owned(c);
  mpi_check(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return owned;
}

Info::Info() { mpi_check(MPI_Info_create(&info_), "MPI_Info_create"); }

void Info::set(const char* key, const char* value) { mpi_check(MPI_Info_set(info_, key, value), "MPI_Info_set"); }

namespace {

// The window hints, all in one place.
Info window_hints() {
  Info info;
  // Each unit's part of a shared window may live on its own pages (and its
  // own NUMA node); we never address across parts, so contiguity buys
  // nothing. It also gives every part page alignment.
  info.set("alloc_shared_noncontig", "true");
  // Every window uses disp_unit 1 (byte displacements) on every unit.
  info.set("same_disp_unit", "true");
  // accumulate_ordering stays at MPI's default (rar,raw,war,waw): DART
  // promises that accumulate-type operations to one location from one
  // origin take effect in issue order.
  return info;
}

}  // namespace

Window::Window(MPI_Win w) : win_(w) {}

// Takes ownership of a new window and opens its one passive-target epoch.
Window Window::open(MPI_Win w) {
  Window owned(w);
  mpi_check(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  owned.issued_ = std::make_unique<Issued>();
  for (auto& s : owned.issued_->slot) s.store(kFree, std::memory_order_relaxed);
  mpi_check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w), "MPI_Win_lock_all");
  return owned;
}

Window Window::allocate_shared(MPI_Aint bytes, MPI_Comm comm, void** base) {
  Info info = window_hints();
  MPI_Win w = MPI_WIN_NULL;
  activity::InMpi in_mpi;
  mpi_check(MPI_Win_allocate_shared(bytes, 1, info.get(), comm, base, &w), "MPI_Win_allocate_shared");
  return open(w);
}

Window Window::allocate(MPI_Aint bytes, MPI_Comm comm, void** base) {
  Info info = window_hints();
  MPI_Win w = MPI_WIN_NULL;
  activity::InMpi in_mpi;
  mpi_check(MPI_Win_allocate(bytes, 1, info.get(), comm, base, &w), "MPI_Win_allocate");
  return open(w);
}

Window Window::create(void* base, MPI_Aint bytes, MPI_Comm comm) {
  Info info = window_hints();
  MPI_Win w = MPI_WIN_NULL;
  activity::InMpi in_mpi;
  mpi_check(MPI_Win_create(base, bytes, 1, info.get(), comm, &w), "MPI_Win_create");
  return open(w);
}

Window Window::create_dynamic(MPI_Comm comm) {
  Info info = window_hints();
  MPI_Win w = MPI_WIN_NULL;
  activity::InMpi in_mpi;
  mpi_check(MPI_Win_create_dynamic(info.get(), comm, &w), "MPI_Win_create_dynamic");
  return open(w);
}

void Window::note_issued(int rank) noexcept {
  Issued& is = *issued_;
  bool noted = is.overflow.load(std::memory_order_acquire);
  for (int i = 0; !noted && i < kSlots; ++i)
    noted = is.slot[static_cast<std::size_t>(i)].load(std::memory_order_acquire) == rank;
  for (int i = 0; !noted && i < kSlots; ++i) {
    int expected = kFree;
    noted = is.slot[static_cast<std::size_t>(i)].compare_exchange_strong(expected, rank, std::memory_order_acq_rel);
  }
  if (!noted) is.overflow.store(true, std::memory_order_release);
  is.any.store(true, std::memory_order_release);
}

bool Window::take_issued_slow(int rank) noexcept {
  Issued& is = *issued_;
  // Past the bound nothing is known per target: flush, and keep the mark
  // for the others until a flush_all.
  if (is.overflow.load(std::memory_order_acquire)) return true;
  bool found = false;
  // Two threads may have noted the same target in two slots: clear all.
  for (auto& s : is.slot) {
    int expected = rank;
    found |= s.compare_exchange_strong(expected, kFree, std::memory_order_acq_rel);
  }
  return found;
}

bool Window::issued(int rank) const noexcept {
  const Issued& is = *issued_;
  if (!is.any.load(std::memory_order_acquire)) return false;
  if (is.overflow.load(std::memory_order_acquire)) return true;
  for (const auto& s : is.slot)
    if (s.load(std::memory_order_acquire) == rank) return true;
  return false;
}

bool Window::take_issued_all() noexcept {
  Issued& is = *issued_;
  if (!is.any.load(std::memory_order_acquire) || !is.any.exchange(false, std::memory_order_acq_rel)) return false;
  is.overflow.store(false, std::memory_order_release);
  for (auto& s : is.slot) s.store(kFree, std::memory_order_release);
  return true;
}

void Window::reset() noexcept {
  if (win_ == MPI_WIN_NULL) return;
  activity::InMpi in_mpi;
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
  win_ = MPI_WIN_NULL;
}

void flush(int rank, MPI_Win win, activity::Reach reach) {
  activity::InMpi in_mpi(reach);
  mpi_check(MPI_Win_flush(rank, win), "MPI_Win_flush");
}

void flush_all(MPI_Win win) {
  activity::InMpi in_mpi;
  mpi_check(MPI_Win_flush_all(win), "MPI_Win_flush_all");
}

void flush_local(int rank, MPI_Win win, activity::Reach reach) {
#ifdef OPEN_MPI
  activity::InMpi in_mpi(reach);
  mpi_check(MPI_Win_flush_local(rank, win), "MPI_Win_flush_local");
#else
  flush(rank, win, reach);
#endif
}

void flush_local_all(MPI_Win win) {
#ifdef OPEN_MPI
  activity::InMpi in_mpi;
  mpi_check(MPI_Win_flush_local_all(win), "MPI_Win_flush_local_all");
#else
  flush_all(win);
#endif
}

}  // namespace dart::mpi
