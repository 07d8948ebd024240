// The tool <-> server wire protocol, version 1.
//
// Every message is a frame: an 8-byte header {u32 payload length, u16 type,
// u16 zero} in little-endian order, then the payload.  A frame whose header
// or payload breaks a rule below is malformed: the receiver closes that one
// connection (and counts it), nothing else.
//
//   HELLO    tool -> server, first frame, at most kMaxHelloPayload bytes:
//            u32 magic, u16 protocol version, u32 capabilities, u32 rank,
//            u16 nspace length + nspace bytes, u16 secret length + secret.
//   WELCOME  server -> tool, reply to HELLO: u32 magic, u16 version,
//            u32 capabilities, i32 status (PMIX_SUCCESS or the refusal;
//            after a refusal the server closes the connection).
//   TARGETS  tool -> server: u32 count, then count x {u32 rank, u16 nspace
//            length, nspace}; applies to the DATA frames that follow.
//   DATA     tool -> server: 1..kMaxDataPayload bytes of stdin.
//   END      tool -> server, empty: end of the tool's stdin.
//   XOFF/XON server -> tool, empty: suspend / resume.  Sent only to a peer
//            that announced kCapFlowControl.
//   FAILURE  server -> tool: i32 status; the server closes the stream.
//            PMIX_ERR_IOF_COMPLETE: the stream's normal end, the host
//            takes no more (the server is finalizing, or no reader is
//            left); any other status: the host refused the data.
//   ACK      server -> tool, 12 bytes: u32 low, u32 high half of the count
//            of DATA bytes the server's host has taken so far on this
//            connection, u32 flags (kAckEnd: the host has also taken the
//            end of the stream).  Sent after every chunk the host took
//            and after the END, only to a peer that announced kCapAck, so
//            a tool's success can mean "delivered", not "written".
//
// Capabilities are a bit set, so a newer peer can announce more and an
// older one ignores what it does not know; the version is the highest the
// sender speaks, and both use the lower one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pmixshim::wire {

constexpr uint32_t kMagic = 0x53584d50;  // "PMXS"
constexpr uint16_t kVersion = 1;
constexpr uint32_t kCapFlowControl = 1u << 0;
constexpr uint32_t kCapAck = 1u << 1;
constexpr uint32_t kAckEnd = 1u << 0;
constexpr uint32_t kAckPayload = 12;

constexpr size_t kHeaderSize = 8;
// Socket buffers of a TCP connection between a tool and the server, set on
// both ends before connecting (the server's on its listening socket, which
// accepted sockets inherit). Linux otherwise grows them to several MiB
// (tcp_rmem/tcp_wmem maxima 6 and 4 MiB), all of it bytes in flight that
// XOFF cannot hold back: across hosts a reader that stopped saw 4.9 MiB
// arrive after it asked for a pause. The kernel doubles the value set, so
// each end holds at most 512 KiB; a Unix socket's buffers are ~200 KiB.
constexpr int kTcpBufferBytes = 256 * 1024;
constexpr uint32_t kMaxDataPayload = 1u << 20;
constexpr uint32_t kMaxHelloPayload = 1024;
constexpr uint32_t kMaxTargets = 1024;
constexpr uint32_t kMaxControlPayload = kMaxTargets * (4 + 2 + 256) + 4;
constexpr size_t kMaxSecret = 128;

enum class Type : uint16_t {
  hello = 1,
  welcome = 2,
  targets = 3,
  data = 4,
  end = 5,
  xoff = 6,
  xon = 7,
  failure = 8,
  ack = 9,
};

inline void put_u16(unsigned char *p, uint16_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
}
inline void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline uint16_t get_u16(const unsigned char *p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t get_u32(const unsigned char *p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

inline void put_header(unsigned char *p, Type type, uint32_t length) {
  put_u32(p, length);
  put_u16(p + 4, static_cast<uint16_t>(type));
  put_u16(p + 6, 0);
}

// Reads fields from a payload with bounds checks; any overrun marks the
// reader failed instead of touching memory outside the payload.
class Reader {
 public:
  Reader(const unsigned char *p, size_t n) : p_(p), n_(n) {}
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] bool at_end() const { return off_ == n_; }
  uint16_t u16() {
    if (!need(2)) return 0;
    uint16_t v = get_u16(p_ + off_);
    off_ += 2;
    return v;
  }
  uint32_t u32() {
    if (!need(4)) return 0;
    uint32_t v = get_u32(p_ + off_);
    off_ += 4;
    return v;
  }
  // Copies len bytes into out (which has room for cap bytes); fails when
  // the payload is too short or len exceeds cap.
  bool bytes(void *out, size_t len, size_t cap) {
    if (len > cap || !need(len)) return ok_ = false;
    std::memcpy(out, p_ + off_, len);
    off_ += len;
    return true;
  }

 private:
  bool need(size_t k) {
    if (!ok_ || n_ - off_ < k) return ok_ = false;
    return true;
  }
  const unsigned char *p_;
  size_t n_;
  size_t off_ = 0;
  bool ok_ = true;
};

}  // namespace pmixshim::wire
