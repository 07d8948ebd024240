// First-fit allocator of byte ranges inside [0, capacity).
//
// Used for three things: the symmetric heap of a team (every member runs the
// same sequence of calls with the same sizes and therefore computes the same
// offsets without communicating), the per-unit pool of dart_memalloc, and
// the per-unit part of a dart_allocator pool. Deterministic by construction:
// the result depends only on the sequence of calls. Not thread-safe; owners
// that need it lock around it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>

namespace dart {

class RangeAllocator {
 public:
  explicit RangeAllocator(std::size_t capacity);

  // Offset of a new block of `bytes` (> 0) aligned to `align` (a power of
  // two), or nullopt if no free range fits.
  [[nodiscard]] std::optional<std::size_t> allocate(std::size_t bytes, std::size_t align);

  // Releases the block starting at `offset`. False if no live block starts
  // there (double free, or a pointer that was never allocated).
  [[nodiscard]] bool release(std::size_t offset);

  // Size of the live block starting at `offset`, or nullopt.
  [[nodiscard]] std::optional<std::size_t> block_size(std::size_t offset) const;

  [[nodiscard]] bool empty() const noexcept { return live_.empty(); }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

  // Heap bytes of the bookkeeping (one tree node per free and per live range).
  [[nodiscard]] std::size_t metadata_bytes() const noexcept {
    // A std::map node holds its value and three links and a colour word.
    constexpr std::size_t kNode = sizeof(std::pair<const std::size_t, std::size_t>) + 4 * sizeof(void*);
    return (free_.size() + live_.size()) * kNode;
  }

 private:
  std::size_t capacity_;
  std::map<std::size_t, std::size_t> free_;  // offset -> length, disjoint, coalesced
  std::map<std::size_t, std::size_t> live_;  // offset -> length
};

}  // namespace dart
