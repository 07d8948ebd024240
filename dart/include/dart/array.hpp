// Array<T>: a fixed-size array block-distributed over a team.
//
// Construction and destruction are collective over the team (one
// dart_team_memalloc_aligned / dart_team_memfree). Element access through
// operator[] and the global iterators works from any unit; local() is the
// caller's block as plain memory, which is where bulk work belongs.
#pragma once

#include "core.hpp"
#include "glob_ptr.hpp"

#include <cstddef>
#include <utility>

namespace dartpp {

// A contiguous view of local memory.
template <class T>
class LocalView {
 public:
  LocalView() = default;
  LocalView(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] T* begin() const noexcept { return data_; }
  [[nodiscard]] T* end() const noexcept { return data_ + size_; }
  T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

namespace detail {

// One team allocation of `per_unit` elements of T on every unit, freed
// collectively when the owner goes. Shared by Array and Matrix.
template <class T>
class Allocation {
 public:
  Allocation(dart_team_t team, std::size_t per_unit) : team_(team) {
    dart_team_unit_t me;
    check(dart_team_myid(team, &me), "dart_team_myid");
    myid_ = me.id;
    check(dart_team_memalloc_aligned(team, Wire<T>::count(per_unit), Wire<T>::type, &base_),
          "dart_team_memalloc_aligned");
    if (per_unit > 0) {
      dart_gptr_t mine = base_;
      mine.unitid = myid_;
      void* addr = nullptr;
      check(dart_gptr_getaddr(mine, &addr), "dart_gptr_getaddr");
      my_block_ = static_cast<T*>(addr);
    }
  }
  Allocation(Allocation&& o) noexcept
      : team_(o.team_), base_(std::exchange(o.base_, DART_GPTR_NULL)), my_block_(o.my_block_), myid_(o.myid_) {}
  Allocation& operator=(Allocation&&) = delete;
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation() {
    if (!DART_GPTR_ISNULL(base_)) dart_team_memfree(base_);
  }

  [[nodiscard]] dart_team_t team() const noexcept { return team_; }
  [[nodiscard]] dart_gptr_t base() const noexcept { return base_; }
  [[nodiscard]] T* my_block() const noexcept { return my_block_; }
  [[nodiscard]] int myid() const noexcept { return myid_; }

 private:
  dart_team_t team_;
  dart_gptr_t base_ = DART_GPTR_NULL;
  T* my_block_ = nullptr;
  int myid_ = -1;
};

inline std::size_t team_size(const Team& team) { return team.size(); }

}  // namespace detail

template <class T>
class Array {
 public:
  using value_type = T;
  using iterator = GlobPtr<T>;
  using reference = GlobRef<T>;
  using size_type = std::size_t;

  // Collective over `team`.
  explicit Array(std::size_t n, const Team& team = Team::all())
      : pattern_(n, detail::team_size(team)), mem_(team.id(), pattern_.block()) {}

  [[nodiscard]] std::size_t size() const noexcept { return pattern_.size(); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] const BlockPattern& pattern() const noexcept { return pattern_; }
  [[nodiscard]] dart_team_t team() const noexcept { return mem_.team(); }
  [[nodiscard]] int myid() const noexcept { return mem_.myid(); }

  [[nodiscard]] iterator begin() const noexcept { return at_index(0); }
  [[nodiscard]] iterator end() const noexcept { return at_index(size()); }
  reference operator[](std::size_t i) const noexcept { return *at_index(i); }
  // As operator[], but throws std::out_of_range.
  reference at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("dartpp::Array::at: index out of range");
    return (*this)[i];
  }

  // The caller's block, and the global index of its first element.
  [[nodiscard]] LocalView<T> local() const noexcept { return LocalView<T>(mem_.my_block(), pattern_.size_of(myid())); }
  [[nodiscard]] std::size_t local_begin_index() const noexcept { return pattern_.begin_of(myid()); }

  // Waits for every unit of the team (completes nothing by itself: the
  // element accesses of this layer are blocking already).
  void barrier() const { check(dart_barrier(team()), "dart_barrier"); }

 private:
  [[nodiscard]] iterator at_index(std::size_t i) const noexcept {
    return iterator(mem_.base(), pattern_, i, mem_.my_block(), mem_.myid());
  }
  BlockPattern pattern_;
  detail::Allocation<T> mem_;
};

}  // namespace dartpp
