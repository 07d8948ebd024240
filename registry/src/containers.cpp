#include "containers.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace registry::detail {

std::byte* huge_alloc(std::size_t* bytes) {
  if (*bytes > SIZE_MAX - (kHugePage - 1)) throw std::bad_alloc();  // rounding up would wrap
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

namespace {
constexpr std::size_t kWarmStep = std::size_t{64} << 10;
}  // namespace

std::size_t ByteBuffer::wanted(std::size_t n) const {
  if (factor_ <= 1 || n > SIZE_MAX / 2 / factor_ || n > SIZE_MAX - ahead_max_) return n;
  return std::max(n, std::min(n * factor_, n + ahead_max_));
}

void ByteBuffer::rearm() noexcept {
  if (factor_ <= 1 || ahead_denied_) {
    ahead_ok_ = cap_;
  } else {
    // The largest n with wanted(n) <= cap_.
    ahead_ok_ = std::min(cap_, std::max(cap_ / factor_, cap_ > ahead_max_ ? cap_ - ahead_max_ : 0));
  }
  // Pages are touched a step at a time, and a step ahead of the room
  // wanted, so that the room is touched whole at every size (the last
  // bytes of an exchange otherwise met a fresh huge page): warm_at is the
  // smallest n whose wanted room reaches what is touched.
  std::size_t warm_at = SIZE_MAX;
  const std::size_t x = warmed_;
  if (warm_max_ != 0 && factor_ > 1 && x < cap_) {
    warm_at = std::max({(x + factor_ - 1) / factor_, x > ahead_max_ ? x - ahead_max_ : 0,
                        x + kWarmStep > warm_max_ ? x + kWarmStep - warm_max_ : 0});
  }
  limit_ = std::min(ahead_ok_, warm_at);
}

void ByteBuffer::advance(std::size_t n) {
  if (n > ahead_ok_) grow(n, true);
  if (n > limit_) warm(n);
}

void ByteBuffer::warm(std::size_t n) {
  constexpr std::size_t kPage = 4096;
  const std::size_t target = std::min({cap_, wanted(n) + kWarmStep, n + warm_max_});
  // Bytes past n are not in use: a store per page makes the kernel map it.
  auto* bytes = reinterpret_cast<volatile char*>(p_);
  for (std::size_t at = (std::max(warmed_, n) + kPage - 1) / kPage * kPage; at < target; at += kPage) bytes[at] = 0;
  warmed_ = std::max(warmed_, target);
  rearm();
}

void ByteBuffer::grow(std::size_t n, bool ahead) {
  std::size_t cap = ahead ? std::max({n, cap_ * 2, std::size_t{256}}) : n;
  char* p = nullptr;
  if (ahead && factor_ > 1) {
    // Room ahead for twice n, so that looking ahead grows by doubling;
    // and once the buffer is in huge pages, all of ahead_max at once:
    // each move copies what was appended and throws away the room touched
    // ahead, while untouched address space costs nothing.
    std::size_t got = std::max(cap, wanted(n <= SIZE_MAX / 2 ? 2 * n : n));
    if (got >= kHugeFrom) got = std::max(got, ahead_max_);
    try {
      p = byte_alloc(&got);
      cap = got;
      ahead_denied_ = false;
    } catch (const std::bad_alloc&) {
      p = nullptr;  // too much address space: grow by what is needed
      ahead_denied_ = true;
    }
  }
  if (p == nullptr) {
    if (n <= cap_) {
      rearm();  // the room ahead was refused, and n fits
      return;
    }
    p = byte_alloc(&cap);
  }
  if (size_ != 0) std::memcpy(p, p_, size_);
  std::free(p_);
  p_ = p;
  cap_ = cap;
  warmed_ = size_;
  rearm();
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
