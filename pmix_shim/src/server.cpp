// The server side: producers (own reads, tool connections), delivery to the
// host's push_stdin, and flow control.  Runs on the progress thread only.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "internal.hpp"
#include "log.hpp"

namespace pmixshim {

namespace {

uint64_t g_next_id = 1;  // progress thread only; never reset, so stale tokens never match

pmix_info_t g_abnormal_info;
const pmix_info_t *abnormal_info() {
  static bool done = false;
  if (!done) {
    bool t = true;
    pmixshim_info_load(&g_abnormal_info, PMIX_SHIM_IOF_ABNORMAL_END, &t, PMIX_BOOL);
    done = true;
  }
  return &g_abnormal_info;
}

void chunk_done_cb(pmix_status_t st, void *cbdata);
void on_producer_read(evutil_socket_t, short, void *arg);
void on_producer_write(evutil_socket_t, short, void *arg);
void on_own_read(evutil_socket_t, short, void *arg);
void pump(Producer &p);
bool finish_chunk(Producer &p, pmix_status_t st);

Producer *find(uint64_t id) {
  auto *s = core().server.get();
  if (!s) return nullptr;
  auto it = s->producers.find(id);
  return it == s->producers.end() ? nullptr : it->second.get();
}

void *id_to_ptr(uint64_t id) { return reinterpret_cast<void *>(static_cast<uintptr_t>(id)); }
uint64_t ptr_to_id(void *p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// Arms the producer's read exactly when a read is wanted: not suspended, no
// chunk with the host, not closing.  This is the whole flow-control
// mechanism on the receiving side: an un-armed read leaves the bytes in the
// producer's pipe or socket, where the kernel applies back-pressure.
void update_arming(Producer &p) {
  if (p.closed) return;
  bool want = !p.pending && !p.close_after_tx && !p.suspended();
  if (p.own) {
    p.in.arm(want && !p.ended);
    return;
  }
  if (want == p.read_armed) return;
  if (want) event_add(p.rev, nullptr);
  else event_del(p.rev);
  p.read_armed = want;
}

// Ends p: releases its events and descriptor, completes an own read, and
// retires the object (see ServerState::retired).  Idempotent, so no path
// can free an event or close a descriptor twice.
void close_producer(Producer &p, pmix_status_t own_status) {
  if (p.closed) return;
  p.closed = true;
  if (p.suspended()) {
    // The stream ends while suspended: its XOFF is released here, so the
    // counts stay paired even when no XON can be sent any more.
    g_stats.xon++;
    g_stats.xon_on_close++;
  }
  if (p.own) {
    p.in.close();
    if (!p.done.empty()) p.done.finish(own_status);
  } else {
    if (p.rev) event_free(p.rev);
    if (p.wev) event_free(p.wev);
    if (p.hello_timer) event_free(p.hello_timer);
    if (p.fd >= 0) ::close(p.fd);
    p.rev = p.wev = p.hello_timer = nullptr;
    p.fd = -1;
  }
  if (p.own || p.hello) g_stats.streams_closed++;  // connections never authenticated were no stream
  auto &s = *core().server;
  auto it = s.producers.find(p.id);
  if (it == s.producers.end()) return;
  s.retired.push_back(std::move(it->second));
  s.producers.erase(it);
  if (s.reaper) event_active(s.reaper, 0, 0);
}

void on_reap(evutil_socket_t, short, void *) {
  if (auto *s = core().server.get()) s->retired.clear();
}

// Writes queued control frames; returns false if the connection broke.
bool flush_tx(Producer &p) {
  if (p.closed) return false;
  while (p.tx_off < p.tx.size()) {
    ssize_t n = ::send(p.fd, p.tx.data() + p.tx_off, p.tx.size() - p.tx_off, MSG_NOSIGNAL);
    if (n > 0) {
      p.tx_off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      event_add(p.wev, nullptr);
      return true;
    }
    return false;
  }
  p.tx.clear();
  p.tx_off = 0;
  event_del(p.wev);
  return true;
}

void send_frame(Producer &p, wire::Type type, const unsigned char *payload, uint32_t len) {
  if (p.closed) return;
  unsigned char hdr[wire::kHeaderSize];
  wire::put_header(hdr, type, len);
  p.tx.append(reinterpret_cast<char *>(hdr), sizeof hdr);
  if (len) p.tx.append(reinterpret_cast<const char *>(payload), len);
  flush_tx(p);  // a broken connection shows up on the read side
}

// Tells an acknowledging tool how much its host has taken (see wire.hpp).
void send_ack(Producer &p, bool end) {
  if (p.own || !p.ack) return;
  unsigned char b[wire::kAckPayload];
  wire::put_u32(b, static_cast<uint32_t>(p.accepted));
  wire::put_u32(b + 4, static_cast<uint32_t>(p.accepted >> 32));
  wire::put_u32(b + 8, end ? wire::kAckEnd : 0);
  send_frame(p, wire::Type::ack, b, sizeof b);
}

// Moves one suspension reason of p; counts and signals transitions of the
// stream as a whole.  Producers without flow control are never touched.
void set_reason(Producer &p, bool relay, bool on) {
  if (p.closed || !p.flow || p.ended || (!p.own && !p.hello)) return;
  bool before = p.suspended();
  (relay ? p.relay_off : p.host_off) = on;
  bool after = p.suspended();
  if (before == after) return;
  if (after) {
    g_stats.xoff++;
    if (!p.own) {
      send_frame(p, wire::Type::xoff, nullptr, 0);
      g_stats.xoff_sent++;
    }
    update_arming(p);
  } else {
    g_stats.xon++;
    if (!p.own) {
      send_frame(p, wire::Type::xon, nullptr, 0);
      g_stats.xon_sent++;
      pump(p);  // frames read before the XOFF go first; may close p
    }
    update_arming(p);
  }
}

// Hands one chunk (or, with n == 0, the end of the stream) to the host.
// Returns false if p was closed meanwhile.
bool deliver(Producer &p, const unsigned char *data, size_t n, bool abnormal) {
  auto &s = *core().server;
  p.pending = true;
  p.inflight = n;
  if (n == 0) {
    p.eof_in_flight = true;
    p.ended = true;
  } else {
    g_stats.bytes_delivered += n;
    g_stats.chunks_delivered++;
  }
  if (!s.module.push_stdin) return finish_chunk(p, PMIX_SUCCESS);
  pmix_byte_object_t bo{const_cast<char *>(reinterpret_cast<const char *>(data)), n};
  uint64_t id = p.id;
  pmix_status_t rc =
      s.module.push_stdin(&p.source, p.targets.empty() ? nullptr : p.targets.data(), p.targets.size(),
                          abnormal ? abnormal_info() : nullptr, abnormal ? 1 : 0, &bo, chunk_done_cb, id_to_ptr(id));
  if (p.closed) return false;
  if (rc == PMIX_SUCCESS) return true;
  return finish_chunk(p, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
}

// The host completed a chunk.  Returns false if p was closed.
bool finish_chunk(Producer &p, pmix_status_t st) {
  p.pending = false;
  bool eof = p.eof_in_flight;
  p.eof_in_flight = false;
  if (eof) {
    // Before a close, so a tool still reading learns it.
    if (st == PMIX_SUCCESS || st == PMIX_ERR_IOF_XOFF) send_ack(p, true);
    if (p.own) {
      close_producer(p, p.close_when_done ? PMIX_ERR_IOF_FAILURE : PMIX_SUCCESS);
      return false;
    }
    if (p.close_when_done) {
      close_producer(p, PMIX_SUCCESS);
      return false;
    }
    update_arming(p);  // keep reading to see the tool hang up
    return true;
  }
  if (st == PMIX_SUCCESS || st == PMIX_ERR_IOF_XOFF) {
    p.accepted += p.inflight;
    send_ack(p, false);
  }
  if (st == PMIX_ERR_IOF_XOFF) {
    // "Taken, now stop": the data is delivered, the stream suspended.
    set_reason(p, false, true);
  } else if (st != PMIX_SUCCESS) {
    // PMIX_ERR_IOF_COMPLETE: the host takes no more (no reader is left),
    // the stream's normal end; anything else is a failure.
    log(st == PMIX_ERR_IOF_COMPLETE ? LogLevel::info : LogLevel::warn, "push_stdin",
        "the host refused a chunk of %s:%u (%s); closing that stream", p.source.nspace, p.source.rank,
        pmixshim_error_string(st));
    if (p.own) {
      close_producer(p, PMIX_ERR_IOF_FAILURE);
      return false;
    }
    unsigned char b[4];
    wire::put_u32(b, static_cast<uint32_t>(st));
    p.ended = true;
    send_frame(p, wire::Type::failure, b, 4);
    p.close_after_tx = true;
    if (p.tx.empty()) {
      close_producer(p, PMIX_SUCCESS);
      return false;
    }
  }
  update_arming(p);
  return true;
}

void chunk_done_cb(pmix_status_t st, void *cbdata) {
  uint64_t id = ptr_to_id(cbdata);
  // Thread-shift: the host may complete from any thread, and even on the
  // progress thread inside push_stdin we must not re-enter the producer.
  post_to_engine([id, st] {
    Producer *p = find(id);
    if (!p || !p->pending) return;
    if (finish_chunk(*p, st) && !p->own) pump(*p);
  });
}

// The end of a stream: the host is told by a zero-length chunk, marked
// abnormal when the producer vanished without saying EOF.
void end_stream(Producer &p, bool abnormal) {
  if (p.ended) {
    close_producer(p, PMIX_SUCCESS);
    return;
  }
  p.close_when_done = true;
  deliver(p, nullptr, 0, abnormal);
}

void drop_malformed(Producer &p, const char *why) {
  g_stats.peers_malformed++;
  log(LogLevel::warn, "pmix_shim server", "closing tool connection %s:%u: malformed message (%s)",
      p.hello ? p.source.nspace : "?", p.hello ? p.source.rank : 0u, why);
  if (p.hello && !p.ended && !p.pending) end_stream(p, true);
  else close_producer(p, PMIX_SUCCESS);
}

bool secrets_equal(const std::string &a, const char *b, size_t blen) {
  // Constant time in the secret's content, so timing reveals nothing.
  unsigned char diff = a.size() == blen ? 0 : 1;
  for (size_t i = 0; i < blen; ++i) diff |= static_cast<unsigned char>(a[i % (a.empty() ? 1 : a.size())] ^ b[i]);
  return diff == 0 && !a.empty();
}

// Returns false if p was closed.
bool handle_hello(Producer &p, const unsigned char *pl, uint32_t len) {
  auto &s = *core().server;
  wire::Reader r(pl, len);
  uint32_t magic = r.u32();
  uint16_t version = r.u16();
  uint32_t caps = r.u32();
  uint32_t rank = r.u32();
  char ns[PMIX_MAX_NSLEN + 1] = {0};
  uint16_t nslen = r.u16();
  r.bytes(ns, nslen, PMIX_MAX_NSLEN);
  char secret[wire::kMaxSecret] = {0};
  uint16_t seclen = r.u16();
  r.bytes(secret, seclen, sizeof secret);
  if (!r.ok() || !r.at_end() || magic != wire::kMagic || version < 1) {
    drop_malformed(p, "bad handshake");
    return false;
  }
  unsigned char w[14];
  wire::put_u32(w, wire::kMagic);
  wire::put_u16(w + 4, wire::kVersion);
  wire::put_u32(w + 6, wire::kCapFlowControl | wire::kCapAck);
  if (!secrets_equal(s.secret, secret, seclen)) {
    g_stats.peers_refused++;
    log(LogLevel::error, "pmix_shim server", "refused a tool connection (%s:%u): authentication failed", ns, rank);
    wire::put_u32(w + 10, static_cast<uint32_t>(PMIX_ERR_INVALID_CRED));
    send_frame(p, wire::Type::welcome, w, sizeof w);
    p.close_after_tx = true;
    if (p.tx.empty()) {
      close_producer(p, PMIX_SUCCESS);
      return false;
    }
    update_arming(p);
    return false;
  }
  wire::put_u32(w + 10, static_cast<uint32_t>(PMIX_SUCCESS));
  send_frame(p, wire::Type::welcome, w, sizeof w);
  p.hello = true;
  if (p.hello_timer) event_del(p.hello_timer);
  p.flow = (caps & wire::kCapFlowControl) != 0;
  p.ack = (caps & wire::kCapAck) != 0;
  if (!p.flow) g_stats.legacy_peers++;
  pmixshim_load_procid(&p.source, ns, rank);
  g_stats.streams_opened++;
  log(LogLevel::info, "pmix_shim server", "tool %s:%u connected (protocol %u, flow control %s)", ns, rank, version,
      p.flow ? "yes" : "no");
  if (s.upstream_off) set_reason(p, true, true);
  return true;
}

bool handle_targets(Producer &p, const unsigned char *pl, uint32_t len) {
  wire::Reader r(pl, len);
  uint32_t n = r.u32();
  if (!r.ok() || n > wire::kMaxTargets) return false;
  std::vector<pmix_proc_t> t(n);
  for (auto &proc : t) {
    proc.rank = r.u32();
    uint16_t l = r.u16();
    if (!r.bytes(proc.nspace, l, PMIX_MAX_NSLEN)) return false;
    proc.nspace[l] = '\0';
  }
  if (!r.ok() || !r.at_end()) return false;
  p.targets.swap(t);
  return true;
}

// Parses and acts on the frames in p's receive buffer, one at a time: a DATA
// frame goes to the host and parsing waits for its completion.
void pump(Producer &p) {
  while (!p.closed && !p.pending && !p.close_after_tx && !p.suspended()) {
    size_t avail = p.rx_len - p.rx_off;
    if (avail < wire::kHeaderSize) break;
    const unsigned char *h = p.rx.data() + p.rx_off;
    uint32_t len = wire::get_u32(h);
    auto type = static_cast<wire::Type>(wire::get_u16(h + 4));
    bool ok = wire::get_u16(h + 6) == 0;
    if (!p.hello) ok = ok && type == wire::Type::hello && len <= wire::kMaxHelloPayload;
    else if (type == wire::Type::data) ok = ok && !p.ended && len >= 1 && len <= wire::kMaxDataPayload;
    else if (type == wire::Type::targets) ok = ok && !p.ended && len <= wire::kMaxControlPayload;
    else if (type == wire::Type::end) ok = ok && !p.ended && len == 0;
    else ok = false;
    if (!ok) {
      drop_malformed(p, "unexpected frame");
      return;
    }
    if (avail < wire::kHeaderSize + len) {
      // Make room for the whole frame; the buffer grows to at most
      // one maximal frame.
      if (p.rx_off) {
        std::memmove(p.rx.data(), p.rx.data() + p.rx_off, avail);
        p.rx_len = avail;
        p.rx_off = 0;
      }
      if (p.rx.size() < wire::kHeaderSize + len) p.rx.resize(wire::kHeaderSize + len);
      break;
    }
    const unsigned char *pl = h + wire::kHeaderSize;
    p.rx_off += wire::kHeaderSize + len;
    if (type == wire::Type::hello) {
      if (!handle_hello(p, pl, len)) return;
    } else if (type == wire::Type::targets) {
      if (!handle_targets(p, pl, len)) {
        drop_malformed(p, "bad target list");
        return;
      }
    } else if (type == wire::Type::data) {
      if (!deliver(p, pl, len, false)) return;
    } else {
      if (!deliver(p, nullptr, 0, false)) return;
    }
  }
  update_arming(p);
}

void on_producer_read(evutil_socket_t, short, void *arg) {
  Producer *p = find(ptr_to_id(arg));
  if (!p) return;
  if (p->rx_off && !p->pending) {
    std::memmove(p->rx.data(), p->rx.data() + p->rx_off, p->rx_len - p->rx_off);
    p->rx_len -= p->rx_off;
    p->rx_off = 0;
  }
  if (p->rx_len == p->rx.size()) {
    update_arming(*p);
    return;
  }
  ssize_t n = ::recv(p->fd, p->rx.data() + p->rx_len, p->rx.size() - p->rx_len, 0);
  if (n > 0) {
    p->rx_len += static_cast<size_t>(n);
    pump(*p);
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  // Hang-up or error.  Bytes not yet parsed are an incomplete frame.
  if (p->rx_len - p->rx_off > 0 && p->hello && !p->ended) {
    drop_malformed(*p, "truncated frame");
    return;
  }
  if (!p->hello) {
    close_producer(*p, PMIX_SUCCESS);
    return;
  }
  end_stream(*p, !p->ended);
}

void on_producer_write(evutil_socket_t, short, void *arg) {
  Producer *p = find(ptr_to_id(arg));
  if (!p) return;
  if (!flush_tx(*p)) {
    // The peer is gone; the read side will notice (or we are closing).
    p->tx.clear();
    p->tx_off = 0;
    event_del(p->wev);
  }
  if (p->close_after_tx && p->tx.empty()) close_producer(*p, PMIX_SUCCESS);
}

// A peer that connects and never completes its hello (or sends half of it)
// would hold a descriptor and a 256 KiB buffer for the life of the server.
constexpr timeval kHelloTimeout{5, 0};

void on_hello_timeout(evutil_socket_t, short, void *arg) {
  Producer *p = find(ptr_to_id(arg));
  if (!p || p->hello) return;
  g_stats.peers_malformed++;
  log(LogLevel::warn, "pmix_shim server", "closing a connection that sent no handshake within %ld s",
      static_cast<long>(kHelloTimeout.tv_sec));
  close_producer(*p, PMIX_SUCCESS);
}

void on_accept(evutil_socket_t lfd, short, void *) {
  auto &s = *core().server;
  for (;;) {
    int fd = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (s.listen_unix) {
      // Belt and braces on top of the 0600 socket: the peer must be
      // our own user.
      struct ucred cred;
      socklen_t cl = sizeof cred;
      if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != geteuid()) {
        g_stats.peers_refused++;
        log(LogLevel::error, "pmix_shim server", "refused a connection from uid %ld", static_cast<long>(cred.uid));
        ::close(fd);
        continue;
      }
    }
    if (!s.listen_unix) {
      // XON and ACK frames are a few bytes each: sent at once, not when
      // the kernel's small-packet batching lets them go.
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    auto p = std::make_unique<Producer>();
    p->id = g_next_id++;
    p->fd = fd;
    p->rx.resize(wire::kHeaderSize + 256 * 1024);
    p->rev = event_new(engine_base(), fd, EV_READ | EV_PERSIST, on_producer_read, id_to_ptr(p->id));
    p->wev = event_new(engine_base(), fd, EV_WRITE | EV_PERSIST, on_producer_write, id_to_ptr(p->id));
    p->hello_timer = evtimer_new(engine_base(), on_hello_timeout, id_to_ptr(p->id));
    if (p->hello_timer) evtimer_add(p->hello_timer, &kHelloTimeout);
    Producer &ref = *p;
    s.producers.emplace(p->id, std::move(p));
    update_arming(ref);
  }
}

void on_own_read(evutil_socket_t, short, void *arg) {
  Producer *p = find(ptr_to_id(arg));
  if (!p) return;
  if (!p->in.pollable) p->in.armed = false;
  if (p->pending || p->suspended() || p->ended) {
    update_arming(*p);
    return;
  }
  ssize_t n = ::read(p->in.fd, p->in.buf.data(), p->in.buf.size());
  if (n > 0) {
    if (deliver(*p, p->in.buf.data(), static_cast<size_t>(n), false)) update_arming(*p);
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    if (p->in.pollable) update_arming(*p);
    else p->in.retry();
    return;
  }
  if (n < 0 && errno == EINTR) {
    update_arming(*p);
    return;
  }
  if (n < 0) {
    log(LogLevel::error, "pmixshim_server_read_stdin", "read(%d) failed: %s", p->in.fd, std::strerror(errno));
    p->close_when_done = true;
  }
  p->pending = false;
  deliver(*p, nullptr, 0, n < 0);
}

}  // namespace

// ---- requests run on the progress thread ---------------------------------

void srv_install(std::unique_ptr<ServerState> s) {
  Core &c = core();
  c.server = std::move(s);
  c.server->reaper = event_new(engine_base(), -1, 0, on_reap, nullptr);
  if (c.server->listen_fd >= 0) {
    c.server->accept_ev = event_new(engine_base(), c.server->listen_fd, EV_READ | EV_PERSIST, on_accept, nullptr);
    event_add(c.server->accept_ev, nullptr);
  }
  // A relay whose tool side is already suspended starts with that state.
  if (c.tool && c.tool->suspended) c.server->upstream_off = true;
}

void srv_teardown() {
  Core &c = core();
  if (!c.server) return;
  auto &s = *c.server;
  if (s.accept_ev) event_free(s.accept_ev);
  if (s.listen_fd >= 0) ::close(s.listen_fd);
  if (!s.unix_path.empty()) ::unlink(s.unix_path.c_str());
  if (!s.unix_dir.empty()) ::rmdir(s.unix_dir.c_str());
  while (!s.producers.empty()) {
    Producer &p = *s.producers.begin()->second;
    if (!p.own && p.hello && p.suspended()) {
      // Resume before hanging up, so every XOFF sent gets its XON; but
      // hand the host nothing more (no set_reason, whose XON pumps the
      // frames buffered meanwhile): a chunk given to the host now could
      // be completed after the server is gone.
      send_frame(p, wire::Type::xon, nullptr, 0);
      g_stats.xon++;
      g_stats.xon_sent++;
      p.host_off = p.relay_off = false;
    }
    if (!p.own && p.hello && !p.close_after_tx) {
      // The server ends the stream: say so before hanging up, so the tool
      // completes its pushes with "the host takes no more" instead of
      // taking the hang-up for a failure (a job that ends without reading
      // its stdin, or before the tool sent its END, is not one).
      unsigned char b[4];
      wire::put_u32(b, static_cast<uint32_t>(PMIX_ERR_IOF_COMPLETE));
      send_frame(p, wire::Type::failure, b, 4);
    }
    close_producer(p, PMIX_ERR_NOT_AVAILABLE);
  }
  s.retired.clear();
  if (s.reaper) event_free(s.reaper);
  c.server.reset();
}

pmix_status_t srv_read_stdin(int fd, size_t chunk, std::vector<pmix_proc_t> targets, Completion done,
                             bool at_end) {
  auto &s = *core().server;
  for (auto &kv : s.producers)
    if (kv.second->own && kv.second->in.fd == fd) return PMIX_ERR_EXISTS;
  auto p = std::make_unique<Producer>();
  p->id = g_next_id++;
  p->own = true;
  p->source = s.me;
  p->targets = std::move(targets);
  if (!p->in.open(engine_base(), fd, chunk, on_own_read, id_to_ptr(p->id))) return PMIX_ERR_BAD_PARAM;
  g_stats.streams_opened++;
  Producer &ref = *p;
  s.producers.emplace(p->id, std::move(p));
  if (at_end) ref.done = std::move(done);
  else done.finish(PMIX_SUCCESS);  // the read is set up: that is all the caller waits for
  if (s.upstream_off) set_reason(ref, true, true);
  update_arming(ref);
  return PMIX_SUCCESS;
}

namespace {

struct DirectPush {
  Completion done;
};

void direct_push_done(pmix_status_t st, void *cbdata) {
  // Thread-shift, as for producers: the host may complete from anywhere.
  auto *d = static_cast<DirectPush *>(cbdata);
  if (!post_to_engine([d, st] {
        d->done.finish(st == PMIX_ERR_IOF_XOFF ? PMIX_SUCCESS : st);
        delete d;
      })) {
    // The engine is gone (finalize ran first): report it here.
    d->done.finish(PMIX_ERR_NOT_AVAILABLE);
    delete d;
  }
}

}  // namespace

void srv_push_data(const std::vector<pmix_proc_t> &targets, const char *data, size_t size, Completion done) {
  auto &s = *core().server;
  if (!s.module.push_stdin) {
    done.finish(PMIX_ERR_NOT_SUPPORTED);
    return;
  }
  pmix_byte_object_t bo{const_cast<char *>(data), size};
  auto *d = new DirectPush{std::move(done)};
  pmix_status_t rc = s.module.push_stdin(&s.me, targets.empty() ? nullptr : targets.data(), targets.size(), nullptr, 0,
                                         &bo, direct_push_done, d);
  if (rc == PMIX_SUCCESS) return;  // the host completes through direct_push_done
  // Completed at once.  "Taken, now stop" has no stream to stop here: the
  // data was taken, which is all this push asked.
  d->done.finish(rc == PMIX_OPERATION_SUCCEEDED || rc == PMIX_ERR_IOF_XOFF ? PMIX_SUCCESS : rc);
  delete d;
}

// A source selects a producer as PMIx compares process names: an empty
// nspace matches every nspace and PMIX_RANK_WILDCARD every rank, so
// {nspace, WILDCARD} is every producer of that nspace and NULL everyone.
bool srv_matches(const pmix_proc_t &src, const pmix_proc_t *sel) {
  if (!sel) return true;
  bool ns = sel->nspace[0] == '\0' || std::strncmp(src.nspace, sel->nspace, PMIX_MAX_NSLEN) == 0;
  return ns && (sel->rank == PMIX_RANK_WILDCARD || src.rank == sel->rank);
}

void srv_flow_control(const pmix_proc_t *source, bool xoff) {
  auto &s = *core().server;
  // Applied to the producers there are now; one that connects later
  // starts running (OpenPMIx's rule: an XOFF is not a lasting state of
  // the server).  A host that wants it stopped answers its first chunk
  // with PMIX_ERR_IOF_XOFF.
  std::vector<uint64_t> ids;
  for (auto &kv : s.producers)
    if (srv_matches(kv.second->source, source)) ids.push_back(kv.first);
  for (uint64_t id : ids)
    if (Producer *p = find(id)) set_reason(*p, false, xoff);
}

void srv_relay(bool xoff) {
  auto &s = *core().server;
  s.upstream_off = xoff;
  std::vector<uint64_t> ids;
  for (auto &kv : s.producers) ids.push_back(kv.first);
  for (uint64_t id : ids)
    if (Producer *p = find(id)) set_reason(*p, true, xoff);
  (xoff ? g_stats.relayed_xoff : g_stats.relayed_xon)++;
}

}  // namespace pmixshim
