// The copy of a load/store transfer (rma/dart_communication_rma.cpp).
//
// - Up to 64 bytes: fixed-size moves, no call; every load comes before the
//   first store, so overlapping buffers are copied correctly too.
// - 65 bytes to kVectorMax: a loop of 32-byte vector moves when the CPU
//   has AVX2. These sizes are not left to glibc because of what precedes
//   the copy: glibc moves them with `rep movsb`, whose start-up waits for
//   the instructions before it, so the few ns the call spends finding the
//   target (rma/access.hpp) were added to the copy instead of overlapping
//   it (4 KiB: 52 ns against 45 for a bare memcpy plus fence; with the
//   loop, 41). Above kVectorMax the string instruction's bandwidth wins
//   and its start-up no longer shows.
// - Larger, or when the buffers overlap (a put from inside the target's
//   own memory): memmove.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dart {

inline constexpr std::size_t kVectorMax = 16384;

// Whether copy_vector may be called (the CPU has AVX2); set once at load.
extern const bool g_copy_vector __attribute__((visibility("hidden")));

// Copies 65 .. kVectorMax bytes; the buffers must not overlap.
void copy_vector(char* dst, const char* src, std::size_t n) noexcept __attribute__((visibility("hidden")));

// Whether [a, a+na) and [b, b+nb) share a byte.
[[nodiscard]] inline bool overlapping(const void* a, std::size_t na, const void* b, std::size_t nb) noexcept {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return na != 0 && nb != 0 && x < y + nb && y < x + na;
}

[[gnu::always_inline]] inline void copy(void* dst, const void* src, std::size_t n) noexcept {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  // Two moves of one fixed size that overlap each other as needed.
  auto two = [&](auto tag) {
    using Chunk = decltype(tag);
    Chunk a, b;
    std::memcpy(&a, s, sizeof a);
    std::memcpy(&b, s + n - sizeof b, sizeof b);
    std::memcpy(d, &a, sizeof a);
    std::memcpy(d + n - sizeof b, &b, sizeof b);
  };
  struct B16 {
    char c[16];
  };
  struct B32 {
    char c[32];
  };
  if (n == 8) {
    std::memcpy(d, s, 8);
  } else if (n > 64) {
    // A put from a buffer inside the target's own memory may overlap it.
    if (n <= kVectorMax && g_copy_vector && !overlapping(d, n, s, n)) copy_vector(d, s, n);
    else std::memmove(d, s, n);
  } else if (n >= 32) {
    two(B32{});
  } else if (n >= 16) {
    two(B16{});
  } else if (n >= 8) {
    two(std::uint64_t{});
  } else if (n >= 4) {
    two(std::uint32_t{});
  } else if (n > 0) {
    const char a = s[0], b = s[n / 2], c = s[n - 1];
    d[0] = a;
    d[n / 2] = b;
    d[n - 1] = c;
  }
}

}  // namespace dart
