#include "memory/range_allocator.hpp"

#include <iterator>

namespace dart {

RangeAllocator::RangeAllocator(std::size_t capacity) : capacity_(capacity) {
  if (capacity > 0) free_.emplace(0, capacity);
}

std::optional<std::size_t> RangeAllocator::allocate(std::size_t bytes, std::size_t align) {
  if (bytes == 0) return std::nullopt;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const std::size_t start = it->first;
    const std::size_t len = it->second;
    const std::size_t aligned = (start + align - 1) & ~(align - 1);
    const std::size_t pad = aligned - start;
    if (pad > len || len - pad < bytes) continue;
    // Split [start, start+len) into [start, aligned) + block + tail.
    free_.erase(it);
    if (pad > 0) free_.emplace(start, pad);
    const std::size_t tail = len - pad - bytes;
    if (tail > 0) free_.emplace(aligned + bytes, tail);
    live_.emplace(aligned, bytes);
    return aligned;
  }
  return std::nullopt;
}

bool RangeAllocator::release(std::size_t offset) {
  auto live = live_.find(offset);
  if (live == live_.end()) return false;
  std::size_t start = live->first;
  std::size_t len = live->second;
  live_.erase(live);

  // Coalesce with the free neighbours on both sides.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  free_.emplace(start, len);
  return true;
}

std::optional<std::size_t> RangeAllocator::block_size(std::size_t offset) const {
  auto it = live_.find(offset);
  if (it == live_.end()) return std::nullopt;
  return it->second;
}

}  // namespace dart
