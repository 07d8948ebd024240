// The byte stream the stdin tests push: position-dependent, so loss,
// duplication and reordering all show up as a mismatch at a known offset.
// byte(i) = T[i % P] + i / P (mod 256) with P = 65521 (prime, so no chunk or
// pipe size is a multiple of it) and T a fixed pseudo-random table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stdin_test {

constexpr std::uint64_t kPeriod = 65521;

inline const unsigned char* table() {
  static unsigned char t[kPeriod];
  static bool done = [] {
    std::uint32_t x = 2463534242u;
    for (std::uint64_t k = 0; k < kPeriod; ++k) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      t[k] = static_cast<unsigned char>(x);
    }
    return true;
  }();
  (void)done;
  return t;
}

// Fills out[0..n) with bytes pos .. pos+n-1 of the stream.
inline void fill(std::uint64_t pos, unsigned char* out, std::size_t n) {
  const unsigned char* t = table();
  while (n) {
    std::uint64_t k = pos % kPeriod;
    auto add = static_cast<unsigned char>(pos / kPeriod);
    std::size_t run = static_cast<std::size_t>(kPeriod - k);
    if (run > n) run = n;
    for (std::size_t j = 0; j < run; ++j) out[j] = static_cast<unsigned char>(t[k + j] + add);
    out += run;
    pos += run;
    n -= run;
  }
}

// Index of the first byte of in[0..n) that is not bytes pos.. of the
// stream, or n when all match.
inline std::size_t check(std::uint64_t pos, const unsigned char* in, std::size_t n) {
  const unsigned char* t = table();
  std::size_t done = 0;
  while (done < n) {
    std::uint64_t k = pos % kPeriod;
    auto add = static_cast<unsigned char>(pos / kPeriod);
    std::size_t run = static_cast<std::size_t>(kPeriod - k);
    if (run > n - done) run = n - done;
    for (std::size_t j = 0; j < run; ++j)
      if (in[done + j] != static_cast<unsigned char>(t[k + j] + add)) return done + j;
    done += run;
    pos += run;
  }
  return n;
}

// The text stream of the terminal tests: 80-byte lines "NNNNNNNN " + 70
// characters + "\n", printable only, so a terminal in canonical mode passes
// it unchanged (tests/stdin/run_kind.py writes the same).
constexpr std::uint64_t kTextLine = 80;

inline unsigned char text_byte(std::uint64_t pos) {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::uint64_t line = pos / kTextLine, col = pos % kTextLine;
  if (col < 8) {
    std::uint64_t d = line;
    for (std::uint64_t k = 7; k > col; --k) d /= 10;
    return static_cast<unsigned char>('0' + d % 10);
  }
  if (col == 8) return ' ';
  if (col == kTextLine - 1) return '\n';
  return static_cast<unsigned char>(kAlphabet[(line * 7 + (col - 9)) % 36]);
}

enum class Stream { pattern, zeros, text };

// check() for any of the streams.
inline std::size_t check(Stream s, std::uint64_t pos, const unsigned char* in, std::size_t n) {
  if (s == Stream::pattern) return check(pos, in, n);
  for (std::size_t j = 0; j < n; ++j)
    if (in[j] != (s == Stream::zeros ? 0 : text_byte(pos + j))) return j;
  return n;
}

}  // namespace stdin_test
