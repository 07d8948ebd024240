#include "memory/range_allocator.hpp"

#include <iterator>

namespace dart {

RangeAllocator::RangeAllocator(std::size_t capacity, std::size_t granule) : granule_(granule) { reset(capacity); }

void RangeAllocator::reset(std::size_t capacity) {
  capacity_ = capacity;
  in_use_ = 0;
  free_.clear();
  live_.clear();
  if (capacity > 0) free_.emplace(0, capacity);
}

std::optional<std::size_t> RangeAllocator::rounded(std::size_t bytes) const noexcept {
  if (bytes == 0 || bytes > capacity_) return std::nullopt;
  const std::size_t r = (bytes + granule_ - 1) & ~(granule_ - 1);
  if (r < bytes || r > capacity_) return std::nullopt;
  return r;
}

std::optional<std::size_t> RangeAllocator::allocate(std::size_t bytes, std::size_t align) {
  const std::optional<std::size_t> want = rounded(bytes);
  if (!want) return std::nullopt;
  bytes = *want;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const std::size_t start = it->first;
    const std::size_t len = it->second;
    const std::size_t aligned = (start + align - 1) & ~(align - 1);
    const std::size_t pad = aligned - start;
    // aligned < start: the alignment ran past the end of the address space.
    if (aligned < start || pad > len || len - pad < bytes) continue;
    // Split [start, start+len) into [start, aligned) + block + tail.
    free_.erase(it);
    if (pad > 0) free_.emplace(start, pad);
    const std::size_t tail = len - pad - bytes;
    if (tail > 0) free_.emplace(aligned + bytes, tail);
    live_.emplace(aligned, bytes);
    in_use_ += bytes;
    return aligned;
  }
  return std::nullopt;
}

bool RangeAllocator::release(std::size_t offset) {
  auto live = live_.find(offset);
  if (live == live_.end()) return false;
  const std::size_t len = live->second;
  live_.erase(live);
  in_use_ -= len;
  give_back(offset, len);
  return true;
}

bool RangeAllocator::resize(std::size_t offset, std::size_t bytes) {
  const auto live = live_.find(offset);
  const std::optional<std::size_t> want = rounded(bytes);
  if (live == live_.end() || !want) return false;
  const std::size_t old = live->second;
  if (*want <= old) {
    live->second = *want;
    in_use_ -= old - *want;
    if (old > *want) give_back(offset + *want, old - *want);
    return true;
  }
  // Growing takes the front of the free range right after the block.
  const auto next = free_.find(offset + old);
  if (next == free_.end() || next->second < *want - old) return false;
  const std::size_t rest = next->second - (*want - old);
  free_.erase(next);
  if (rest > 0) free_.emplace(offset + *want, rest);
  live->second = *want;
  in_use_ += *want - old;
  return true;
}

void RangeAllocator::give_back(std::size_t start, std::size_t len) {
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
}

std::optional<std::size_t> RangeAllocator::block_size(std::size_t offset) const {
  auto it = live_.find(offset);
  if (it == live_.end()) return std::nullopt;
  return it->second;
}

}  // namespace dart
