#include "containers.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace registry::detail {

std::byte* huge_alloc(std::size_t* bytes) {
  *bytes = (*bytes + kHugePage - 1) & ~(kHugePage - 1);
  void* p = std::aligned_alloc(kHugePage, *bytes);
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, *bytes, MADV_HUGEPAGE);
#endif
  return static_cast<std::byte*>(p);
}

char* byte_alloc(std::size_t* bytes) {
  if (*bytes >= kHugeFrom) return reinterpret_cast<char*>(huge_alloc(bytes));
  void* p = std::malloc(*bytes);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<char*>(p);
}

void ByteBuffer::grow(std::size_t n, bool ahead) {
  std::size_t cap = ahead ? std::max({n, cap_ * 2, std::size_t{256}}) : n;
  char* p = nullptr;
  // (The bound leaves room for byte_alloc's rounding to whole huge pages.)
  if (ahead && factor_ > 1 && n <= (SIZE_MAX - kHugePage) / factor_) {
    const std::size_t ample = std::max(cap, std::min(n * factor_, n + ahead_max_));
    std::size_t got = ample;
    try {
      p = byte_alloc(&got);
      cap = got;
    } catch (const std::bad_alloc&) {
      p = nullptr;  // too much address space: grow by what is needed
    }
  }
  if (p == nullptr) p = byte_alloc(&cap);
  if (size_ != 0) std::memcpy(p, p_, size_);
  std::free(p_);
  p_ = p;
  cap_ = cap;
}

ZeroedBlock::ZeroedBlock(std::size_t bytes) {
  // Below 1 MiB calloc stays: a table grows by rehashing into a block
  // twice the size, and calloc reuses the freed smaller ones, which fresh
  // huge pages (zeroed whole each time) cannot.
  if (bytes < kHugePage / 2) {
    p_ = std::calloc(bytes, 1);
    if (p_ == nullptr) throw std::bad_alloc();
    return;
  }
  // A huge page more than needed, used from its first 2 MiB boundary on
  // (the kernel aligns a mapping to pages only).
  const std::size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
  map_bytes_ = rounded + kHugePage;
  map_ = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw std::bad_alloc();
  }
  const auto at = (reinterpret_cast<std::uintptr_t>(map_) + kHugePage - 1) & ~std::uintptr_t{kHugePage - 1};
  p_ = reinterpret_cast<void*>(at);
#ifdef MADV_HUGEPAGE
  madvise(p_, rounded, MADV_HUGEPAGE);
#endif
}

ZeroedBlock::~ZeroedBlock() {
  if (map_ != nullptr) {
    munmap(map_, map_bytes_);
  } else {
    std::free(p_);
  }
}

void Arena::Free::operator()(std::byte* p) const noexcept { std::free(p); }

void Arena::refill(std::size_t n) {
  // Chunks grow 4 KiB, 16 KiB, ... up to 4 MiB, whole huge pages from
  // 2 MiB on: a bulk sync fills megabytes of new arena. (Huge pages from
  // kHugeFrom on made applying 2 x 10^3 new objects 2-3x faster and 2 x
  // 10^4 up to 2x slower and erratic in bench_registry: fresh huge pages
  // are zeroed whole, and some take the kernel milliseconds to find.)
  std::size_t size = std::max(next_, n);
  std::byte* p = nullptr;
  if (size >= kHugePage) {
    p = huge_alloc(&size);
  } else {
    p = static_cast<std::byte*>(std::malloc(size));
    if (p == nullptr) throw std::bad_alloc();
  }
  chunks_.emplace_back(p);
  cur_ = p;
  left_ = size;
  next_ = std::min<std::size_t>(next_ * 4, std::size_t{4} << 20);
}

}  // namespace registry::detail
