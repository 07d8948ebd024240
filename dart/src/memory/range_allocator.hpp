// First-fit allocator of byte ranges inside [0, capacity): the one
// allocator of symmetric and per-unit memory in libdart and its
// OpenSHMEM front end.
//
// Used for four things: the symmetric heap of a team (every member runs the
// same sequence of calls with the same sizes and therefore computes the same
// offsets without communicating), the per-unit pool of dart_memalloc, the
// per-unit part of a dart_allocator pool, and OpenSHMEM's symmetric heap
// (dart/shmem/src/core.cpp, which compiles this file into libdartshmem:
// libdart exports dart_* only). Deterministic by construction: the result
// depends only on the sequence of calls. Not thread-safe; owners that need
// it lock around it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>

namespace dart {

class RangeAllocator {
 public:
  // `granule` (a power of two): every block's length is rounded up to a
  // multiple of it. OpenSHMEM's heap uses 64, a cache line, so that no two
  // objects share one; DART's callers round for themselves.
  explicit RangeAllocator(std::size_t capacity = 0, std::size_t granule = 1);

  // Forgets every block: [0, capacity) is one free range again.
  void reset(std::size_t capacity);

  // Offset of a new block of `bytes` (> 0) aligned to `align` (a power of
  // two), or nullopt if no free range fits.
  [[nodiscard]] std::optional<std::size_t> allocate(std::size_t bytes, std::size_t align);

  // Releases the block starting at `offset`. False if no live block starts
  // there (double free, or a pointer that was never allocated).
  [[nodiscard]] bool release(std::size_t offset);

  // Grows or shrinks the live block at `offset` to `bytes` (> 0) where it
  // is, when the free range after it allows. False, with nothing changed,
  // when it does not or no live block starts at `offset`.
  [[nodiscard]] bool resize(std::size_t offset, std::size_t bytes);

  // Size of the live block starting at `offset`, or nullopt.
  [[nodiscard]] std::optional<std::size_t> block_size(std::size_t offset) const;

  [[nodiscard]] bool empty() const noexcept { return live_.empty(); }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  // Bytes of the live blocks (after rounding to the granule).
  [[nodiscard]] std::size_t in_use() const noexcept { return in_use_; }

  // Heap bytes of the bookkeeping (one tree node per free and per live range).
  [[nodiscard]] std::size_t metadata_bytes() const noexcept {
    // A std::map node holds its value and three links and a colour word.
    constexpr std::size_t kNode = sizeof(std::pair<const std::size_t, std::size_t>) + 4 * sizeof(void*);
    return (free_.size() + live_.size()) * kNode;
  }

 private:
  // `bytes` rounded up to the granule; nullopt if that exceeds the capacity.
  [[nodiscard]] std::optional<std::size_t> rounded(std::size_t bytes) const noexcept;
  // Returns [start, start + len) to the free ranges, merged with its neighbours.
  void give_back(std::size_t start, std::size_t len);

  std::size_t capacity_ = 0;
  std::size_t granule_ = 1;
  std::size_t in_use_ = 0;
  std::map<std::size_t, std::size_t> free_;  // offset -> length, disjoint, coalesced
  std::map<std::size_t, std::size_t> live_;  // offset -> length
};

}  // namespace dart
