// The tool side: one connection to a server, a queue of pushes written in
// order, and obedience to XOFF/XON.  Runs on the progress thread, except
// tool_connect which the initialising thread calls before the connection is
// handed to the engine.
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "internal.hpp"
#include "log.hpp"

namespace pmixshim {

namespace {

ToolState *tool() { return core().tool.get(); }

void tool_pump();

void fail_all(ToolState &t, pmix_status_t st) {
  // Completions may run user code that posts new pushes: those land in
  // the engine queue, not in these deques.  Acknowledged-or-not order:
  // the older requests (awaiting) complete first.
  for (auto *q : {&t.awaiting, &t.queue}) {
    while (!q->empty()) {
      std::unique_ptr<PushReq> r = std::move(q->front());
      q->pop_front();
      r->in.close();
      r->done.finish(st);
    }
  }
}


bool read_control(ToolState &t);

// The connection ended: every push still queued or awaiting its
// acknowledgement completes with st. PMIX_ERR_IOF_COMPLETE is the server's
// word that its host takes no more (it finalized, or no reader is left):
// the end of the stream, not a failure, so it is not logged as one.
void lost(ToolState &t, const char *why, pmix_status_t st = PMIX_ERR_IOF_FAILURE) {
  if (!t.connected) return;
  bool pending = !t.queue.empty() || !t.awaiting.empty();
  if (st == PMIX_ERR_IOF_COMPLETE)
    log(LogLevel::info, "pmix_shim tool",
        "the server's host takes no more stdin (%s): it took %llu of the %llu bytes pushed", why,
        static_cast<unsigned long long>(t.acked), static_cast<unsigned long long>(t.pushed));
  else if (t.server_ack && (pending || t.acked < t.pushed))
    log(LogLevel::error, "PMIx_IOF_push",
        "connection to the server lost (%s): its host took %llu of the %llu bytes pushed; the rest is not delivered",
        why, static_cast<unsigned long long>(t.acked), static_cast<unsigned long long>(t.pushed));
  else if (pending)
    log(LogLevel::error, "PMIx_IOF_push", "connection to the server lost (%s) with pushes pending", why);
  else
    log(LogLevel::warn, "pmix_shim tool", "connection to the server lost: %s", why);
  t.connected = false;
  t.end_status = st;
  t.tx_active = false;
  event_del(t.rev);
  event_del(t.wev);
  fail_all(t, st);
}

// Writes the current frame; true when it is completely written.
bool flush(ToolState &t) {
  for (;;) {
    size_t clen = t.txc.size();
    size_t total = clen + t.txp_len;
    if (t.tx_done == total) break;
    iovec iov[2];
    int n = 0;
    if (t.tx_done < clen) {
      iov[n].iov_base = t.txc.data() + t.tx_done;
      iov[n].iov_len = clen - t.tx_done;
      ++n;
    }
    if (t.txp_len) {
      size_t poff = t.tx_done > clen ? t.tx_done - clen : 0;
      iov[n].iov_base = const_cast<char *>(t.txp) + poff;
      iov[n].iov_len = t.txp_len - poff;
      ++n;
    }
    msghdr mh{};
    mh.msg_iov = iov;
    mh.msg_iovlen = static_cast<size_t>(n);
    ssize_t w = ::sendmsg(t.fd, &mh, MSG_NOSIGNAL);
    if (w > 0) {
      t.tx_done += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      event_add(t.wev, nullptr);
      return false;
    }
    // The server hung up.  Its last frames (the XON it sends before
    // closing, or a failure status) may still wait in our receive buffer:
    // act on them first, so the state and the reason are the server's.
    int err = errno;
    while (t.connected && read_control(t)) {
    }
    if (tool() == &t) lost(t, std::strerror(err));
    return false;
  }
  event_del(t.wev);
  t.tx_active = false;
  t.txc.clear();
  t.txp = nullptr;
  t.txp_len = 0;
  t.tx_done = 0;
  return true;
}

void start_frame(ToolState &t, wire::Type type, const unsigned char *ctl, uint32_t ctl_len, const char *payload,
                 size_t payload_len) {
  t.txc.resize(wire::kHeaderSize + ctl_len);
  wire::put_header(t.txc.data(), type, static_cast<uint32_t>(ctl_len + payload_len));
  if (ctl_len) std::memcpy(t.txc.data() + wire::kHeaderSize, ctl, ctl_len);
  t.txp = payload;
  t.txp_len = payload_len;
  t.tx_done = 0;
  t.tx_active = true;
}

bool same_targets(const std::vector<pmix_proc_t> &a, const std::vector<pmix_proc_t> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].rank != b[i].rank || std::strncmp(a[i].nspace, b[i].nspace, PMIX_MAX_NSLEN) != 0) return false;
  return true;
}

void complete_front(ToolState &t, pmix_status_t st) {
  std::unique_ptr<PushReq> r = std::move(t.queue.front());
  t.queue.pop_front();
  r->in.close();
  r->done.finish(st);
}

// Completes the acknowledged requests, oldest first.
void complete_acked(ToolState &t) {
  while (!t.awaiting.empty()) {
    PushReq &r = *t.awaiting.front();
    if (r.end_offset > t.acked || (r.await_end && !t.end_acked)) break;
    std::unique_ptr<PushReq> done = std::move(t.awaiting.front());
    t.awaiting.pop_front();
    done->done.finish(PMIX_SUCCESS);
  }
}

// The front request is completely written.  A server that acknowledges
// completes it once its host has taken every byte (success then means
// delivered); an older server's only word is the written socket.
void written_front(ToolState &t) {
  std::unique_ptr<PushReq> r = std::move(t.queue.front());
  t.queue.pop_front();
  r->in.close();
  if (!t.server_ack) {
    r->done.finish(PMIX_SUCCESS);
    return;
  }
  r->end_offset = t.pushed;
  r->await_end = r->kind != PushReq::Kind::buffer;
  t.awaiting.push_back(std::move(r));
  complete_acked(t);
}

void on_input(evutil_socket_t, short, void *);

// Chooses and writes frames until the socket is full, the queue is empty,
// an input has nothing to read yet, or we are suspended.  A frame already
// started is always finished (its bytes were taken from the input), but no
// new data frame starts while suspended.
void tool_pump() {
  ToolState *tp = tool();
  if (!tp || tp->in_pump) return;
  ToolState &t = *tp;
  t.in_pump = true;
  while (t.connected) {
    if (t.tx_active) {
      if (!flush(t)) break;
      // The frame just written may finish the request at the front.
      if (!t.queue.empty()) {
        PushReq &f = *t.queue.front();
        bool finished =
            (f.kind == PushReq::Kind::buffer && f.off == f.size) || (f.kind != PushReq::Kind::buffer && f.end_sent);
        if (finished) written_front(t);
      }
      continue;
    }
    if (t.queue.empty()) break;
    PushReq &r = *t.queue.front();
    if (!t.targets_sent || !same_targets(r.targets, t.sent_targets)) {
      std::vector<unsigned char> b(4);
      wire::put_u32(b.data(), static_cast<uint32_t>(r.targets.size()));
      for (auto &p : r.targets) {
        size_t l = strnlen(p.nspace, PMIX_MAX_NSLEN);
        size_t o = b.size();
        b.resize(o + 6 + l);
        wire::put_u32(b.data() + o, p.rank);
        wire::put_u16(b.data() + o + 4, static_cast<uint16_t>(l));
        std::memcpy(b.data() + o + 6, p.nspace, l);
      }
      start_frame(t, wire::Type::targets, b.data(), static_cast<uint32_t>(b.size()), nullptr, 0);
      t.sent_targets = r.targets;
      t.targets_sent = true;
      continue;
    }
    if (t.suspended || (t.local_off && r.kind == PushReq::Kind::input)) {
      if (r.kind == PushReq::Kind::input) r.in.arm(false);
      break;
    }
    if (r.kind == PushReq::Kind::buffer) {
      size_t n = std::min<size_t>(r.size - r.off, wire::kMaxDataPayload);
      start_frame(t, wire::Type::data, nullptr, 0, r.data + r.off, n);
      r.off += n;
      t.pushed += n;
      g_stats.bytes_pushed += n;
    } else if (r.kind == PushReq::Kind::end || r.eof_seen) {
      start_frame(t, wire::Type::end, nullptr, 0, nullptr, 0);
      r.end_sent = true;
    } else {
      r.in.arm(true);  // on_input starts the next frame
      break;
    }
  }
  t.in_pump = false;
}

void on_input(evutil_socket_t, short, void *) {
  ToolState *tp = tool();
  if (!tp || tp->queue.empty()) return;
  ToolState &t = *tp;
  PushReq &r = *t.queue.front();
  if (!r.in.pollable) r.in.armed = false;
  if (r.kind != PushReq::Kind::input || t.tx_active || t.suspended || t.local_off || !t.connected) {
    r.in.arm(false);
    return;
  }
  ssize_t n = ::read(r.in.fd, r.in.buf.data(), r.in.buf.size());
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    if (!r.in.pollable) r.in.retry();  // nothing else would wake us
    return;
  }
  // One chunk at a time: the read stays un-armed until it is written.
  r.in.arm(false);
  if (n > 0) {
    start_frame(t, wire::Type::data, nullptr, 0, reinterpret_cast<const char *>(r.in.buf.data()),
                static_cast<size_t>(n));
    t.pushed += static_cast<uint64_t>(n);
    g_stats.bytes_pushed += static_cast<uint64_t>(n);
  } else if (n == 0) {
    r.eof_seen = true;
  } else {
    log(LogLevel::error, "PMIx_IOF_push", "read(%d) failed: %s", r.in.fd, std::strerror(errno));
    complete_front(t, PMIX_ERR_IOF_FAILURE);
  }
  tool_pump();
}

// Reads once from the server and acts on every whole frame received.
// Returns true when it read something and the connection is still up, so a
// caller draining the socket knows to read again.
bool read_control(ToolState &t) {
  // Whole frames already received go before the socket.  This matters when
  // acting on a frame writes, the write finds the server gone, and the
  // drain after it comes back here: the server's last frames (XON, then
  // its final status) were often received in the same read as the frame
  // being acted on, and the socket itself now holds only the reset.
  bool whole = t.rx_len >= wire::kHeaderSize && t.rx_len >= wire::kHeaderSize + wire::get_u32(t.rx);
  if (!whole) {
    ssize_t n = ::recv(t.fd, t.rx + t.rx_len, sizeof t.rx - t.rx_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
    if (n <= 0) {
      lost(t, n == 0 ? "the server closed the connection" : std::strerror(errno));
      return false;
    }
    t.rx_len += static_cast<size_t>(n);
  }
  while (t.rx_len >= wire::kHeaderSize) {
    const unsigned char *h = t.rx;
    uint32_t len = wire::get_u32(h);
    auto type = static_cast<wire::Type>(wire::get_u16(h + 4));
    bool ok = wire::get_u16(h + 6) == 0 && (((type == wire::Type::xoff || type == wire::Type::xon) && len == 0) ||
                                            (type == wire::Type::failure && len == 4) ||
                                            (type == wire::Type::ack && len == wire::kAckPayload && t.server_ack));
    if (!ok) {
      lost(t, "malformed message from the server");
      return false;
    }
    if (t.rx_len < wire::kHeaderSize + len) break;
    auto st =
        type == wire::Type::failure ? static_cast<pmix_status_t>(wire::get_u32(h + wire::kHeaderSize)) : PMIX_SUCCESS;
    uint64_t acked = 0;
    uint32_t ack_flags = 0;
    if (type == wire::Type::ack) {
      const unsigned char *a = h + wire::kHeaderSize;
      acked = wire::get_u32(a) | (static_cast<uint64_t>(wire::get_u32(a + 4)) << 32);
      ack_flags = wire::get_u32(a + 8);
    }
    // Out of the buffer before it is acted on: acting may write
    // (tool_pump), and a write that finds the server gone reads and
    // handles whatever the server sent before hanging up, which brings
    // us back here; a frame still in the buffer would be handled twice.
    size_t used = wire::kHeaderSize + len;
    std::memmove(t.rx, t.rx + used, t.rx_len - used);
    t.rx_len -= used;
    if (type == wire::Type::failure) {
      if (st == PMIX_ERR_IOF_COMPLETE) {
        lost(t, "the server ended the stream", st);
        return false;
      }
      log(LogLevel::warn, "pmix_shim tool", "the server's host refused our data (%s)", pmixshim_error_string(st));
      lost(t, "refused by the server");
      return false;
    }
    if (type == wire::Type::ack) {
      // Acknowledged counts only grow and never pass what was pushed: a
      // server that says otherwise is broken, and believing it would
      // report undelivered data as delivered.
      if (acked < t.acked || acked > t.pushed) {
        lost(t, "the server acknowledged bytes never pushed");
        return false;
      }
      g_stats.bytes_acked += acked - t.acked;
      t.acked = acked;
      if (ack_flags & wire::kAckEnd) t.end_acked = true;
      complete_acked(t);
      continue;
    }
    bool off_now = type == wire::Type::xoff;
    (off_now ? g_stats.xoff_received : g_stats.xon_received)++;
    if (off_now == t.suspended) continue;  // repeated request: already in that state
    t.suspended = off_now;
    // A process that is also a server passes the request on to its own
    // producers, so a chain carries it back to the holder of the input.
    if (core().server) srv_relay(off_now);
    if (off_now) {
      if (!t.queue.empty() && t.queue.front()->kind == PushReq::Kind::input) t.queue.front()->in.arm(false);
    } else {
      tool_pump();
    }
    if (tool() != &t || !t.connected) return false;
  }
  return t.connected;
}

void on_sock_read(evutil_socket_t, short, void *) {
  if (ToolState *tp = tool()) read_control(*tp);
}

void on_sock_write(evutil_socket_t, short, void *) { tool_pump(); }

bool write_all(int fd, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, unsigned char *p, size_t n, int timeout_ms) {
  while (n) {
    pollfd pfd{fd, POLLIN, 0};
    int pr = ::poll(&pfd, 1, timeout_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) return false;
    ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

int open_socket(const std::string &uri) {
  if (uri.rfind("unix:", 0) == 0) {
    std::string path = uri.substr(5);
    sockaddr_un a{};
    if (path.empty() || path.size() >= sizeof a.sun_path) return -2;
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }
  if (uri.rfind("tcp:", 0) == 0) {
    std::string hp = uri.substr(4);
    size_t colon = hp.rfind(':');
    if (colon == std::string::npos) return -2;
    std::string host = hp.substr(0, colon), port = hp.substr(colon + 1);
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return -2;
    int fd = -1;
    for (addrinfo *ai = res; ai; ai = ai->ai_next) {
      fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &wire::kTcpBufferBytes, sizeof wire::kTcpBufferBytes);
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &wire::kTcpBufferBytes, sizeof wire::kTcpBufferBytes);
      if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
        // Small frames (HELLO, TARGETS, END) must not wait for the kernel
        // to batch them: with Nagle on, a rendezvous over TCP ran at 0.4x
        // the speed of the Unix socket.
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        break;
      }
      ::close(fd);
      fd = -1;
    }
    freeaddrinfo(res);
    return fd;
  }
  return -2;
}

}  // namespace

pmix_status_t tool_connect(const std::string &uri, const std::string &secret, const pmix_proc_t &me, bool flow,
                           unsigned timeout_ms, int *fd_out, bool *server_flow, bool *server_ack) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int fd;
  // The server may not have created its socket yet (a launcher starts the
  // job and connects at once): retry until the deadline.
  while ((fd = open_socket(uri)) == -1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (fd == -2) return PMIX_ERR_BAD_PARAM;
  if (fd < 0) return PMIX_ERR_UNREACH;
  size_t nslen = strnlen(me.nspace, PMIX_MAX_NSLEN);
  size_t seclen = std::min(secret.size(), wire::kMaxSecret);
  std::vector<unsigned char> f(wire::kHeaderSize + 4 + 2 + 4 + 4 + 2 + nslen + 2 + seclen);
  unsigned char *p = f.data() + wire::kHeaderSize;
  wire::put_header(f.data(), wire::Type::hello, static_cast<uint32_t>(f.size() - wire::kHeaderSize));
  wire::put_u32(p, wire::kMagic);
  wire::put_u16(p + 4, wire::kVersion);
  // Every tool asks for acknowledgements: they cost the server one small
  // frame per chunk and are what lets our success mean "delivered".
  wire::put_u32(p + 6, (flow ? wire::kCapFlowControl : 0) | wire::kCapAck);
  wire::put_u32(p + 10, me.rank);
  wire::put_u16(p + 14, static_cast<uint16_t>(nslen));
  std::memcpy(p + 16, me.nspace, nslen);
  wire::put_u16(p + 16 + nslen, static_cast<uint16_t>(seclen));
  std::memcpy(p + 18 + nslen, secret.data(), seclen);
  unsigned char w[wire::kHeaderSize + 14];
  if (!write_all(fd, f.data(), f.size()) || !read_all(fd, w, sizeof w, 10000) ||
      wire::get_u16(w + 4) != static_cast<uint16_t>(wire::Type::welcome) || wire::get_u32(w) != 14 ||
      wire::get_u32(w + wire::kHeaderSize) != wire::kMagic) {
    ::close(fd);
    return PMIX_ERR_UNREACH;
  }
  auto st = static_cast<pmix_status_t>(wire::get_u32(w + wire::kHeaderSize + 10));
  if (st != PMIX_SUCCESS) {
    ::close(fd);
    return st;
  }
  uint32_t caps = wire::get_u32(w + wire::kHeaderSize + 6);
  *server_flow = (caps & wire::kCapFlowControl) != 0;
  *server_ack = (caps & wire::kCapAck) != 0;
  int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  *fd_out = fd;
  return PMIX_SUCCESS;
}

void tool_flow_control(const pmix_proc_t *source, bool xoff) {
  ToolState *tp = tool();
  if (!tp || !srv_matches(tp->me, source) || tp->local_off == xoff) return;
  ToolState &t = *tp;
  t.local_off = xoff;
  (xoff ? g_stats.xoff : g_stats.xon)++;
  if (xoff) {
    if (!t.queue.empty() && t.queue.front()->kind == PushReq::Kind::input) t.queue.front()->in.arm(false);
  } else {
    tool_pump();
  }
}

void tool_install(std::unique_ptr<ToolState> t) {
  Core &c = core();
  c.tool = std::move(t);
  ToolState &s = *c.tool;
  s.rev = event_new(engine_base(), s.fd, EV_READ | EV_PERSIST, on_sock_read, nullptr);
  s.wev = event_new(engine_base(), s.fd, EV_WRITE | EV_PERSIST, on_sock_write, nullptr);
  s.connected = true;
  event_add(s.rev, nullptr);
}

void tool_teardown() {
  Core &c = core();
  if (!c.tool) return;
  ToolState &t = *c.tool;
  bool was_suspended = t.suspended;
  // A suspension of our own reads ends with them: pair the counts.
  if (t.local_off) g_stats.xon++;
  fail_all(t, PMIX_ERR_IOF_FAILURE);
  if (t.rev) event_free(t.rev);
  if (t.wev) event_free(t.wev);
  if (t.fd >= 0) ::close(t.fd);
  c.tool.reset();
  // A relay must not leave its producers suspended on our account.
  if (was_suspended && c.server) srv_relay(false);
}

void tool_push(std::unique_ptr<PushReq> r, bool at_end) {
  ToolState *t = tool();
  if (!t || !t->connected) {
    r->in.close();
    r->done.finish(t ? t->end_status : PMIX_ERR_IOF_FAILURE);
    return;
  }
  if (r->kind == PushReq::Kind::input) {
    if (!r->in.open(engine_base(), r->in.fd, r->in.buf.size(), on_input, nullptr)) {
      r->done.finish(PMIX_ERR_BAD_PARAM);
      return;
    }
    // OpenPMIx's rule: a push of stdin completes once the read is set up;
    // only with PMIX_SHIM_IOF_COMPLETE_AT_END does it wait for the end.
    if (!at_end) r->done.finish(PMIX_SUCCESS);
  }
  t->queue.push_back(std::move(r));
  tool_pump();
}

}  // namespace pmixshim
