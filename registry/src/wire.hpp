// Encoding of recorded operations for the exchange at sync.
//
// An operation is appended to the issuing rank's pending buffer when it is
// recorded, so sync sends that buffer as it is. Integers are in host byte
// order: every rank of one MPI job here runs the same binary on the same
// architecture (MPI_BYTE transfers do no conversion either).
//
//   define      u8 kind, str segment, u32 n, n x i32 writer ranks
//   put         u8 kind, u16 mode, str segment, tokens, u64 size, size bytes
//   erase       u8 kind, u16 match, str segment, tokens
//   subscribe   u8 kind, u16 match, u16 actions, str segment, tokens
//   unsubscribe u8 kind, u16 match, str segment, tokens
//   str = u32 length + bytes; tokens = u32 count + count x str
#pragma once

#include "containers.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace registry::detail {

enum class OpKind : std::uint8_t { define = 1, put, erase, subscribe, unsubscribe };

class Writer {
 public:
  explicit Writer(ByteBuffer& out) : out_(out) {}
  template <class T>
  void num(T v) {
    out_.append(&v, sizeof v);
  }
  void bytes(const void* p, std::size_t n) { out_.append(p, n); }
  void str(std::string_view s) {
    num(static_cast<std::uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  template <class Tokens>
  void tokens(const Tokens& t) {
    num(static_cast<std::uint32_t>(t.size()));
    for (const auto& s : t) str(s);
  }

 private:
  ByteBuffer& out_;
};

// Reads what Writer wrote. A truncated buffer means the exchange itself is
// broken (our own bytes), so it throws and sync treats that as fatal.
class Reader {
 public:
  Reader(const char* p, std::size_t n) : p_(p), end_(p + n) {}
  [[nodiscard]] bool done() const { return p_ == end_; }
  template <class T>
  T num() {
    T v;
    need(sizeof v);
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  const char* bytes(std::size_t n) {
    need(n);
    const char* at = p_;
    p_ += n;
    return at;
  }
  std::string_view str() {
    const auto n = num<std::uint32_t>();
    return {bytes(n), n};
  }
  // Reuses `out` to spare an allocation per operation.
  void tokens(std::vector<std::string_view>& out) {
    out.clear();
    const auto n = num<std::uint32_t>();
    for (std::uint32_t i = 0; i < n; ++i) out.push_back(str());
  }

 private:
  void need(std::size_t n) const {
    if (static_cast<std::size_t>(end_ - p_) < n) throw std::runtime_error("truncated operation record");
  }
  const char* p_;
  const char* end_;
};

// One operation of a batch, decoded. The views point into the batch's
// buffer; the vectors are reused from one operation to the next.
struct Op {
  OpKind kind = OpKind::define;
  int issuer = 0;
  std::uint16_t mode = 0;     // put: mode; erase, subscribe, unsubscribe: match
  std::uint16_t actions = 0;  // subscribe
  std::string_view segment;
  std::vector<std::string_view> tokens;
  std::vector<std::uint64_t> hashes;  // put: each token's text hash (set by the applying side)
  std::uint64_t identity = 0;         // put: identity_of(hashes) (set by the applying side)
  std::vector<int> writers;           // define
  const char* data = nullptr;
  std::uint64_t size = 0;  // put
};

// Decodes one operation from `in` into `op` (issuer set by the caller).
inline void decode(Reader& in, Op& op) {
  op.kind = in.num<OpKind>();
  switch (op.kind) {
    case OpKind::define:
      op.segment = in.str();
      op.writers.resize(in.num<std::uint32_t>());
      for (int& w : op.writers) w = in.num<std::int32_t>();
      return;
    case OpKind::put:
      op.mode = in.num<std::uint16_t>();
      op.segment = in.str();
      in.tokens(op.tokens);
      op.size = in.num<std::uint64_t>();
      op.data = in.bytes(op.size);
      return;
    case OpKind::subscribe:
      op.mode = in.num<std::uint16_t>();
      op.actions = in.num<std::uint16_t>();
      op.segment = in.str();
      in.tokens(op.tokens);
      return;
    case OpKind::erase:
    case OpKind::unsubscribe:
      op.mode = in.num<std::uint16_t>();
      op.segment = in.str();
      in.tokens(op.tokens);
      return;
  }
  throw std::runtime_error("unknown operation kind");
}

}  // namespace registry::detail
