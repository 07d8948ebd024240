// General containers behind the registry's store (store.hpp), kept apart
// from it because nothing in them knows about segments, tokens or objects:
// a vector with inline storage for the hot paths' short lists, a bump arena
// whose chunks never move, and an open-addressing table of node pointers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
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

// Large blocks the registry fills come in whole 2 MiB pages offered to
// transparent huge pages. Measured here: a 4 KiB first-touch fault costs
// about 9 us, filling a 2 MiB huge page about 0.15 ms, so for a block that
// is written whole at once (a sync's receive buffer, from kHugeFrom on)
// one huge page beats 64 KiB of small ones even when most of it stays
// unused. Blocks that grow step by step start using them later (arena
// chunks from 2 MiB, table slots from 1 MiB; see their comments). Without
// transparent huge pages the kernel falls back to small pages, and only
// what is touched costs.
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
inline constexpr std::size_t kHugeFrom = std::size_t{64} << 10;
// At least *bytes of memory, not zeroed, rounded up (in *bytes) to whole
// huge pages, 2 MiB aligned and offered to transparent huge pages. Freed
// with std::free. Throws std::bad_alloc.
std::byte* huge_alloc(std::size_t* bytes);

// At least *bytes of memory, not zeroed: from kHugeFrom on whole huge
// pages (huge_alloc), below that from malloc. *bytes becomes what was
// really allocated. Freed with std::free. Throws std::bad_alloc.
char* byte_alloc(std::size_t* bytes);

// A growable byte buffer whose storage can be handed over whole: the
// registry records operations into it, and at sync it becomes the receive
// buffer of the exchange (registry.cpp). Its capacity is what byte_alloc
// really allocated, so growing into the rest of a huge page moves nothing.
// Bytes past size() that resize() adds are not initialised.
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(ByteBuffer&& o) noexcept { *this = std::move(o); }
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    swap_storage(o);
    factor_ = o.factor_;
    ahead_max_ = o.ahead_max_;
    warm_max_ = o.warm_max_;
    rearm();
    return *this;
  }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ~ByteBuffer() { std::free(p_); }
  [[nodiscard]] char* data() { return p_; }
  [[nodiscard]] const char* data() const { return p_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t capacity() const { return cap_; }
  void clear() {
    size_ = 0;
    rearm();
  }
  // Room for n bytes, with the room ahead that set_growth asks for. One
  // comparison while nothing is to be done: appends call it per field.
  void reserve(std::size_t n) {
    if (n > limit_) advance(n);
  }
  // Room for exactly n bytes if it must grow (rounded as byte_alloc does).
  void reserve_exact(std::size_t n) {
    if (n > cap_) grow(n, false);
  }
  void resize(std::size_t n) {
    reserve(n);
    size_ = n;
  }
  // resize without the growth factor.
  void resize_exact(std::size_t n) {
    reserve_exact(n);
    size_ = n;
  }
  void append(const void* p, std::size_t n) {
    reserve(size_ + n);
    if (n != 0) std::memcpy(p_ + size_, p, n);
    size_ += n;
  }
  // Exchanges storage (and so contents) with `o`; each keeps its growth
  // settings, which belong to the role a buffer plays, not to its memory.
  void swap_storage(ByteBuffer& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    std::swap(warmed_, o.warmed_);
    ahead_denied_ = o.ahead_denied_ = false;
    rearm();
    o.rearm();
  }
  // For a buffer expected to grow in one step to `factor` times what was
  // appended (the registry's pending operations into the exchange's
  // receive buffer, with reserve_exact): appending keeps room for that,
  // looking at most `ahead_max` bytes ahead and only where memory allows,
  // so the step moves nothing. Untouched room costs address space only.
  // Of that room, up to `warm_max` bytes past the end are touched while
  // appending, so that the step does not meet fresh pages (the kernel
  // clears each on first touch: 0.15 ms per 2 MiB here) inside the
  // exchange, where every rank waits for the slowest.
  void set_growth(std::size_t factor, std::size_t ahead_max, std::size_t warm_max) {
    factor_ = factor;
    ahead_max_ = ahead_max;
    warm_max_ = warm_max;
    rearm();
  }

 private:
  // The room wanted for n bytes: n * factor, at most ahead_max past n.
  [[nodiscard]] std::size_t wanted(std::size_t n) const;
  // The slow path of reserve: grows or touches pages, then rearms.
  void advance(std::size_t n);
  void grow(std::size_t n, bool ahead);
  // Touches the pages past size n up to what it wants, within warm_max.
  void warm(std::size_t n);
  // Sets limit_ (the next size at which reserve must act) from the
  // storage and the settings.
  void rearm() noexcept;
  char* p_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  std::size_t limit_ = 0;
  std::size_t ahead_ok_ = 0;  // sizes up to this have their room ahead
  std::size_t warmed_ = 0;    // pages below this were touched
  bool ahead_denied_ = false;  // memory refused the room ahead
  std::size_t factor_ = 1;
  std::size_t ahead_max_ = 0;
  std::size_t warm_max_ = 0;
};

// Zero-filled memory for a table's slots. Small blocks come from calloc;
// from 1 MiB on a block is fresh anonymous memory from the kernel (zero
// already, so nothing is cleared twice) in huge pages: a bulk sync grows
// the object table to megabytes.
class ZeroedBlock {
 public:
  ZeroedBlock() = default;
  explicit ZeroedBlock(std::size_t bytes);
  ZeroedBlock(ZeroedBlock&& o) noexcept { swap(o); }
  ZeroedBlock& operator=(ZeroedBlock&& o) noexcept {
    swap(o);
    return *this;
  }
  ZeroedBlock(const ZeroedBlock&) = delete;
  ZeroedBlock& operator=(const ZeroedBlock&) = delete;
  ~ZeroedBlock();
  [[nodiscard]] void* get() const noexcept { return p_; }

 private:
  void swap(ZeroedBlock& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(map_, o.map_);
    std::swap(map_bytes_, o.map_bytes_);
  }
  void* p_ = nullptr;
  void* map_ = nullptr;  // the mapping, when the block is one
  std::size_t map_bytes_ = 0;
};

// Open-addressing table (linear probing) of node pointers with their hashes.
// A slot of all zero bits is empty.
template <class Node>
class NodeTable {
 public:
  struct Slot {
    std::uint64_t hash;
    Node* node;  // nullptr: never used; tomb(): erased
  };
  static Node* tomb() { return reinterpret_cast<Node*>(std::uintptr_t{1}); }

  NodeTable() = default;
  NodeTable(const NodeTable&) = delete;  // slots_ points into block_
  NodeTable& operator=(const NodeTable&) = delete;

  template <class Eq>
  Node* find(std::uint64_t h, Eq eq) const {
    if (cap_ == 0) return nullptr;
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.node == nullptr) return nullptr;
      if (s.hash == h && s.node != tomb() && eq(*s.node)) return s.node;
    }
  }
  // Starts fetching the slot where a probe for hash h begins.
  void prefetch(std::uint64_t h) const {
    // Through a local copy of the pointer: GCC 12 drops the prefetch
    // when the address is formed from the member under the test of cap_.
    const Slot* s = slots_;
    if (cap_ != 0) __builtin_prefetch(s + (h & mask_));
  }
  // Precondition: no equal node is present.
  void insert(std::uint64_t h, Node* n) {
    if ((used_ + 1) * 10 > cap_ * 7) rehash(live_ + 1);
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
    for (Slot* s = slots_; s != slots_ + cap_; ++s)
      if (s->node != nullptr && s->node != tomb()) s->node = f(s->node);
  }
  template <class F>
  void for_each(F f) const {
    for (const Slot* s = slots_; s != slots_ + cap_; ++s)
      if (s->node != nullptr && s->node != tomb()) f(*s->node);
  }
  [[nodiscard]] std::size_t size() const { return live_; }

 private:
  void rehash(std::size_t need) {
    std::size_t cap = 16;
    while (need * 10 > cap * 5) cap *= 2;  // at most half full after
    Slot* old = slots_;
    const std::size_t old_cap = cap_;
    ZeroedBlock fresh(cap * sizeof(Slot));
    slots_ = static_cast<Slot*>(fresh.get());
    cap_ = cap;
    mask_ = cap - 1;
    used_ = live_ = 0;
    ZeroedBlock old_block = std::move(block_);
    block_ = std::move(fresh);
    for (const Slot* s = old; s != old + old_cap; ++s)
      if (s->node != nullptr && s->node != tomb()) insert(s->hash, s->node);
  }
  ZeroedBlock block_;
  Slot* slots_ = nullptr;
  std::size_t cap_ = 0;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;  // live + tombs
  std::size_t live_ = 0;
};

}  // namespace registry::detail
