#include "rma/copy.hpp"

#include <immintrin.h>

namespace dart {

// __builtin_cpu_init first: this initialiser may run before libgcc's.
const bool g_copy_vector = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();

namespace {
[[gnu::always_inline, gnu::target("avx2")]] inline __m256i load(const char* p) noexcept {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
[[gnu::always_inline, gnu::target("avx2")]] inline void store(char* p, __m256i v) noexcept {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}
}  // namespace

// 128 bytes per step in four unaligned 32-byte moves; the last step is the
// last 128 bytes, overlapping the one before (n > 64, so a first step of
// fewer than 128 bytes is two overlapping 64-byte halves).
[[gnu::target("avx2")]] void copy_vector(char* dst, const char* src, std::size_t n) noexcept {
  if (n < 128) {
    const __m256i a = load(src), b = load(src + 32), c = load(src + n - 64), e = load(src + n - 32);
    store(dst, a);
    store(dst + 32, b);
    store(dst + n - 64, c);
    store(dst + n - 32, e);
    return;
  }
  const __m256i t0 = load(src + n - 128), t1 = load(src + n - 96), t2 = load(src + n - 64), t3 = load(src + n - 32);
  for (std::size_t i = 0; i + 128 <= n; i += 128) {
    const __m256i a = load(src + i), b = load(src + i + 32), c = load(src + i + 64), e = load(src + i + 96);
    store(dst + i, a);
    store(dst + i + 32, b);
    store(dst + i + 64, c);
    store(dst + i + 96, e);
  }
  store(dst + n - 128, t0);
  store(dst + n - 96, t1);
  store(dst + n - 64, t2);
  store(dst + n - 32, t3);
}

}  // namespace dart
