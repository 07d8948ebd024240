// Global pointers and references into block-distributed global memory.
//
// A BlockPattern splits n elements over the units of a team in contiguous
// blocks of ceil(n / units): unit u holds [u * block, min(n, (u+1) * block)),
// so trailing units may hold fewer elements or none. A GlobPtr<T> is a
// global element index plus what it takes to turn the index into a DART
// global pointer; it is a random-access iterator whose reference type is
// GlobRef<T>, so standard algorithms run on global ranges (element by
// element; the algorithms in algorithm.hpp work block-wise instead).
#pragma once

#include "core.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>

namespace dartpp {

class BlockPattern {
 public:
  BlockPattern() = default;
  // n elements over `units` units in blocks of ceil(n / units).
  BlockPattern(std::size_t n, std::size_t units) : BlockPattern(n, units, units == 0 ? 0 : (n + units - 1) / units) {}
  // n elements in blocks of `block` (rows of a matrix: block = rows per
  // unit times the row length).
  BlockPattern(std::size_t n, std::size_t units, std::size_t block) : n_(n), units_(units), block_(block) {}

  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] std::size_t units() const noexcept { return units_; }
  [[nodiscard]] std::size_t block() const noexcept { return block_; }
  // Unit holding element i (i < size()).
  [[nodiscard]] int unit_of(std::size_t i) const noexcept {
    if (block_ == 0) return 0;
    // A 64-bit division costs tens of ns on some x86 cores, more than the
    // rest of an element access; indices below 2^32 take the 32-bit one.
    if (((i | block_) >> 32) == 0)
      return static_cast<int>(static_cast<std::uint32_t>(i) / static_cast<std::uint32_t>(block_));
    return static_cast<int>(i / block_);
  }
  // Position of element i inside its unit's block.
  [[nodiscard]] std::size_t offset_of(std::size_t i) const noexcept {
    return block_ == 0 ? 0 : i - static_cast<std::size_t>(unit_of(i)) * block_;
  }
  // Global index of the first element of unit u, and how many it holds.
  [[nodiscard]] std::size_t begin_of(int u) const noexcept {
    return std::min(n_, static_cast<std::size_t>(u) * block_);
  }
  [[nodiscard]] std::size_t size_of(int u) const noexcept {
    return std::min(n_, (static_cast<std::size_t>(u) + 1) * block_) - begin_of(u);
  }
  friend bool operator==(const BlockPattern& a, const BlockPattern& b) noexcept {
    return a.n_ == b.n_ && a.units_ == b.units_ && a.block_ == b.block_;
  }

 private:
  std::size_t n_ = 0;
  std::size_t units_ = 0;
  std::size_t block_ = 0;
};

template <class T>
class GlobRef;

template <class T>
class GlobPtr {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = GlobPtr<T>;
  using reference = GlobRef<T>;

  GlobPtr() = default;
  // `base`: the allocation (any unit, offset 0); `my_block`: the caller's
  // block in local memory (nullptr if it holds none); `myid`: the
  // caller's id in the allocation's team.
  GlobPtr(dart_gptr_t base, const BlockPattern& pattern, std::size_t index, T* my_block, int myid) noexcept
      : base_(base),
        pattern_(pattern),
        index_(static_cast<difference_type>(index)),
        my_block_(my_block),
        myid_(myid),
        my_begin_(my_block ? pattern.begin_of(myid) : 0),
        my_end_(my_block ? my_begin_ + pattern.size_of(myid) : 0) {}

  [[nodiscard]] std::size_t index() const noexcept { return static_cast<std::size_t>(index_); }
  [[nodiscard]] const BlockPattern& pattern() const noexcept { return pattern_; }
  [[nodiscard]] dart_team_t team() const noexcept { return base_.teamid; }
  [[nodiscard]] int unit() const noexcept { return pattern_.unit_of(index()); }
  [[nodiscard]] int myid() const noexcept { return myid_; }
  [[nodiscard]] dart_gptr_t base() const noexcept { return base_; }
  [[nodiscard]] T* my_block() const noexcept { return my_block_; }

  // The DART global pointer of the element.
  [[nodiscard]] dart_gptr_t dart_gptr() const noexcept {
    const int u = unit();  // one division; the offset follows from it
    // Field by field rather than copying base_ and patching unitid: the
    // patch is a narrow store into the copy, and reading the whole struct
    // back then stalls store forwarding (tens of ns per element here).
    dart_gptr_t g;
    g.unitid = u;
    g.flags = base_.flags;
    g.segid = base_.segid;
    g.teamid = base_.teamid;
    g.addr_or_offs.offset = (index() - pattern_.begin_of(u)) * sizeof(T);
    return g;
  }
  // The element's address when the caller holds it, else nullptr. A range
  // check against the caller's block, no division: this is the hot path of
  // element access.
  [[nodiscard]] T* local() const noexcept {
    const std::size_t i = index();
    return i >= my_begin_ && i < my_end_ ? my_block_ + (i - my_begin_) : nullptr;
  }
  [[nodiscard]] bool is_local() const noexcept { return local() != nullptr; }

  GlobRef<T> operator*() const noexcept { return GlobRef<T>(*this); }
  GlobRef<T> operator[](difference_type d) const noexcept { return *(*this + d); }

  GlobPtr& operator++() noexcept {
    ++index_;
    return *this;
  }
  GlobPtr& operator--() noexcept {
    --index_;
    return *this;
  }
  GlobPtr operator++(int) noexcept {
    GlobPtr old = *this;
    ++index_;
    return old;
  }
  GlobPtr operator--(int) noexcept {
    GlobPtr old = *this;
    --index_;
    return old;
  }
  GlobPtr& operator+=(difference_type d) noexcept {
    index_ += d;
    return *this;
  }
  GlobPtr& operator-=(difference_type d) noexcept {
    index_ -= d;
    return *this;
  }
  friend GlobPtr operator+(GlobPtr p, difference_type d) noexcept { return p += d; }
  friend GlobPtr operator+(difference_type d, GlobPtr p) noexcept { return p += d; }
  friend GlobPtr operator-(GlobPtr p, difference_type d) noexcept { return p -= d; }
  friend difference_type operator-(const GlobPtr& a, const GlobPtr& b) noexcept { return a.index_ - b.index_; }
  friend bool operator==(const GlobPtr& a, const GlobPtr& b) noexcept {
    return a.index_ == b.index_ && a.base_.segid == b.base_.segid && a.base_.teamid == b.base_.teamid;
  }
  friend bool operator!=(const GlobPtr& a, const GlobPtr& b) noexcept { return !(a == b); }
  friend bool operator<(const GlobPtr& a, const GlobPtr& b) noexcept { return a.index_ < b.index_; }
  friend bool operator>(const GlobPtr& a, const GlobPtr& b) noexcept { return b < a; }
  friend bool operator<=(const GlobPtr& a, const GlobPtr& b) noexcept { return !(b < a); }
  friend bool operator>=(const GlobPtr& a, const GlobPtr& b) noexcept { return !(a < b); }

 private:
  dart_gptr_t base_ = DART_GPTR_NULL;
  BlockPattern pattern_;
  difference_type index_ = 0;
  T* my_block_ = nullptr;
  int myid_ = -1;
  std::size_t my_begin_ = 0;  // the caller's block: [my_begin_, my_end_)
  std::size_t my_end_ = 0;
};

// A reference to one element of global memory. Reads and writes are
// blocking (a write is visible at the target when it returns); an element
// the caller holds is read and written in place. The atomic operations
// (fetch_op and what builds on it, compound assignment included) go through
// dart_fetch_and_op / dart_compare_and_swap and are atomic with respect to
// each other from all units; they need a DART basic type.
template <class T>
class GlobRef {
 public:
  explicit GlobRef(const GlobPtr<T>& p) noexcept : p_(p) {}
  GlobRef(const GlobRef&) = default;

  [[nodiscard]] T get() const {
    if (const T* l = p_.local()) {
      // The ordering a get on the node gives (spec: loads see what was
      // completed before).
      std::atomic_thread_fence(std::memory_order_acquire);
      return *l;
    }
    T v;
    check(
        dart_get_blocking(&v, p_.dart_gptr(), detail::Wire<T>::count(1), detail::Wire<T>::type, detail::Wire<T>::type),
        "dart_get_blocking");
    return v;
  }
  void put(const T& v) const {
    if (T* l = p_.local()) {
      *l = v;
      std::atomic_thread_fence(std::memory_order_seq_cst);  // as dart_put_blocking
      return;
    }
    check(
        dart_put_blocking(p_.dart_gptr(), &v, detail::Wire<T>::count(1), detail::Wire<T>::type, detail::Wire<T>::type),
        "dart_put_blocking");
  }
  operator T() const { return get(); }  // NOLINT: a reference converts like one
  const GlobRef& operator=(const T& v) const {
    put(v);
    return *this;
  }
  const GlobRef& operator=(const GlobRef& other) const {
    put(other.get());
    return *this;
  }

  // *this = *this op v atomically; returns the previous value.
  T fetch_op(dart_operation_t op, const T& v) const {
    static_assert(has_dart_type<T>, "atomic operations need a DART basic type");
    T old;
    const dart_gptr_t g = p_.dart_gptr();
    check(dart_fetch_and_op(g, &v, &old, dart_type_of<T>(), op), "dart_fetch_and_op");
    check(dart_flush(g), "dart_flush");
    return old;
  }
  T fetch_add(const T& v) const { return fetch_op(DART_OP_SUM, v); }
  T exchange(const T& v) const { return fetch_op(DART_OP_REPLACE, v); }
  [[nodiscard]] T load() const { return fetch_op(DART_OP_NO_OP, T{}); }
  void store(const T& v) const { (void)exchange(v); }
  // Replaces the value with `desired` if it equals `expected`; otherwise
  // stores the current value in `expected`. Integer types only.
  bool compare_exchange(T& expected, const T& desired) const {
    static_assert(std::is_integral_v<T> && has_dart_type<T>, "compare-and-swap takes integer types");
    T old;
    const dart_gptr_t g = p_.dart_gptr();
    check(dart_compare_and_swap(g, &desired, &expected, &old, dart_type_of<T>()), "dart_compare_and_swap");
    check(dart_flush(g), "dart_flush");
    const bool swapped = old == expected;
    expected = old;
    return swapped;
  }

  // Compound assignment is atomic (one fetch-and-op each).
  const GlobRef& operator+=(const T& v) const {
    (void)fetch_op(DART_OP_SUM, v);
    return *this;
  }
  const GlobRef& operator-=(const T& v) const {
    (void)fetch_op(DART_OP_SUM, static_cast<T>(T{} - v));
    return *this;
  }
  const GlobRef& operator*=(const T& v) const {
    (void)fetch_op(DART_OP_PROD, v);
    return *this;
  }
  const GlobRef& operator&=(const T& v) const {
    (void)fetch_op(DART_OP_BAND, v);
    return *this;
  }
  const GlobRef& operator|=(const T& v) const {
    (void)fetch_op(DART_OP_BOR, v);
    return *this;
  }
  const GlobRef& operator^=(const T& v) const {
    (void)fetch_op(DART_OP_BXOR, v);
    return *this;
  }
  const GlobRef& operator++() const { return *this += T{1}; }
  const GlobRef& operator--() const { return *this -= T{1}; }

  [[nodiscard]] GlobPtr<T> operator&() const noexcept { return p_; }  // NOLINT: the global address

  friend void swap(const GlobRef& a, const GlobRef& b) {
    const T tmp = a.get();
    a.put(b.get());
    b.put(tmp);
  }

 private:
  GlobPtr<T> p_;
};

}  // namespace dartpp
