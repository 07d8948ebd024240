// General containers behind the registry's store (store.hpp), kept apart
// from it because nothing in them knows about segments, tokens or objects:
// a vector with inline storage for the hot paths' short lists, a bump arena
// whose chunks never move, and an open-addressing table of node pointers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace registry::detail {

// A vector with N elements of inline storage, for short-lived lists of
// trivially copyable things (query keys, matched nodes) on the hot paths.
template <class T, std::size_t N>
class SmallVec {
 public:
  SmallVec() = default;
  SmallVec(const SmallVec&) = delete;
  SmallVec& operator=(const SmallVec&) = delete;
  void push_back(T v) {
    if (size_ == cap_) grow();
    data_[size_++] = v;
  }
  void reserve(std::size_t n) {
    while (cap_ < n) grow();
  }
  void resize(std::size_t n) {
    reserve(n);
    size_ = n;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* erase(T* first, T* last) {
    std::copy(last, end(), first);
    size_ -= static_cast<std::size_t>(last - first);
    return first;
  }

 private:
  void grow() {
    const bool was_inline = data_ == inline_;
    heap_.resize(cap_ * 2);  // keeps the elements if they are there already
    if (was_inline) std::copy(inline_, inline_ + size_, heap_.data());
    data_ = heap_.data();
    cap_ *= 2;
  }
  T inline_[N]{};
  std::vector<T> heap_;
  T* data_ = inline_;
  std::size_t size_ = 0;
  std::size_t cap_ = N;
};

// Bump allocator: chunks never move and are freed with the arena.
class Arena {
 public:
  Arena() = default;
  Arena(Arena&&) noexcept = default;
  Arena& operator=(Arena&&) noexcept = default;
  void* alloc(std::size_t n) {
    n = (n + 7) & ~std::size_t{7};
    if (n > left_) refill(n);
    void* p = cur_;
    cur_ += n;
    left_ -= n;
    return p;
  }

 private:
  void refill(std::size_t n);
  struct Free {
    void operator()(std::byte* p) const noexcept;
  };
  std::vector<std::unique_ptr<std::byte, Free>> chunks_;
  std::byte* cur_ = nullptr;
  std::size_t left_ = 0;
  std::size_t next_ = 4 * 1024;
};

// Open-addressing table (linear probing) of node pointers with their hashes.
template <class Node>
class NodeTable {
 public:
  struct Slot {
    std::uint64_t hash;
    Node* node;  // nullptr: never used; tomb(): erased
  };
  static Node* tomb() { return reinterpret_cast<Node*>(std::uintptr_t{1}); }

  template <class Eq>
  Node* find(std::uint64_t h, Eq eq) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.node == nullptr) return nullptr;
      if (s.hash == h && s.node != tomb() && eq(*s.node)) return s.node;
    }
  }
  // Starts fetching the slot where a probe for hash h begins.
  void prefetch(std::uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  // Precondition: no equal node is present.
  void insert(std::uint64_t h, Node* n) {
    if ((used_ + 1) * 10 > slots_.size() * 7) rehash(live_ + 1);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.node == nullptr || s.node == tomb()) {
        if (s.node == nullptr) ++used_;
        s = Slot{h, n};
        ++live_;
        return;
      }
    }
  }
  void erase(std::uint64_t h, const Node* n) {
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.node == n) {
        s.node = tomb();
        --live_;
        return;
      }
    }
  }
  // Replaces every node n by f(n) (same hash).
  template <class F>
  void remap(F f) {
    for (Slot& s : slots_)
      if (s.node != nullptr && s.node != tomb()) s.node = f(s.node);
  }
  template <class F>
  void for_each(F f) const {
    for (const Slot& s : slots_)
      if (s.node != nullptr && s.node != tomb()) f(*s.node);
  }
  [[nodiscard]] std::size_t size() const { return live_; }

 private:
  void rehash(std::size_t need) {
    std::size_t cap = 16;
    while (need * 10 > cap * 5) cap *= 2;  // at most half full after
    std::vector<Slot> old(cap, Slot{0, nullptr});
    old.swap(slots_);
    mask_ = cap - 1;
    used_ = live_ = 0;
    for (const Slot& s : old)
      if (s.node != nullptr && s.node != tomb()) insert(s.hash, s.node);
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;  // live + tombs
  std::size_t live_ = 0;
};

}  // namespace registry::detail
