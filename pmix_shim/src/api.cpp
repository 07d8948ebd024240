// The public C entry points.  Each validates its arguments on the calling
// thread, then posts a request to the progress thread (the thread-shift);
// the non-blocking form returns at once, the blocking form waits on a
// future.  A blocking form called on the progress thread returns
// PMIX_ERR_WOULD_BLOCK with a diagnostic instead of waiting for itself.
//
// Library instance: one per process, shared by the server and tool sides so
// that a relay (both at once) keeps all its state on one thread.  The
// engine starts with the first init and stops with the last finalize.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "internal.hpp"
#include "log.hpp"

namespace pmixshim {

Stats g_stats;

void Stats::reset() {
  for (auto *c : {&xoff, &xon, &xon_on_close, &xoff_sent, &xon_sent, &streams_opened, &streams_closed, &bytes_delivered,
                  &chunks_delivered, &peers_refused, &peers_malformed, &legacy_peers, &xoff_received, &xon_received,
                  &bytes_pushed, &bytes_acked, &relayed_xoff, &relayed_xon})
    c->store(0);
}

void Completion::finish(pmix_status_t st) {
  if (fn) {
    auto f = fn;
    fn = nullptr;
    f(st, cbdata);
  } else if (waiter) {
    waiter->set_value(st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st);
    waiter.reset();
  }
}

namespace {

// Whether epoll can watch fd. It refuses files without poll support
// (regular files, /dev/null, /dev/zero and other simple character devices),
// and the file type alone does not tell which character devices those are:
// so ask epoll itself, on a scratch instance, instead of libevent's (which
// would log a warning and leave the event dead).
bool epoll_accepts(int fd) {
  int ep = ::epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return true;  // cannot tell: libevent's own add will say
  epoll_event e{};
  e.events = EPOLLIN;
  bool ok = ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) == 0;
  ::close(ep);
  return ok;
}

}  // namespace

bool Input::open(event_base *base, int fd_in, size_t chunk, event_callback_fn cb, void *arg) {
  fd = fd_in;
  buf.resize(chunk);
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) return false;
  // Files epoll cannot watch are the ones poll(2) reports as always
  // readable: for them an event activated by hand stands in for readiness.
  pollable = epoll_accepts(fd);
  saved_flags = fcntl(fd, F_GETFL);
  if (saved_flags < 0) return false;
  if (pollable && !(saved_flags & O_NONBLOCK)) fcntl(fd, F_SETFL, saved_flags | O_NONBLOCK);
  ev = pollable ? event_new(base, fd, EV_READ | EV_PERSIST, cb, arg) : event_new(base, -1, 0, cb, arg);
  return ev != nullptr;
}

void Input::arm(bool want) {
  if (!ev || want == armed) return;
  if (want) {
    if (pollable) event_add(ev, nullptr);
    else event_active(ev, EV_READ, 0);
  } else {
    event_del(ev);
  }
  armed = want;
}

void Input::retry() {
  if (!ev || pollable) return;  // a pollable read stays armed by itself
  // Someone else made the descriptor non-blocking and it has nothing now:
  // look again in a millisecond rather than spin on EAGAIN.
  static const timeval kRetry{0, 1000};
  event_add(ev, &kRetry);
  armed = true;
}

void Input::close() {
  if (ev) {
    event_free(ev);
    ev = nullptr;
  }
  if (fd >= 0 && saved_flags >= 0) fcntl(fd, F_SETFL, saved_flags);
  fd = -1;
  saved_flags = -1;
  armed = false;
}

namespace {

enum class Role { down, up, finalizing };

Core g_core;
std::mutex g_init_mu;  // serialises init and finalize
std::mutex g_ptr_mu;   // guards g_engine and the contact strings
std::shared_ptr<Engine> g_engine;
std::atomic<Role> g_server{Role::down};
std::atomic<Role> g_tool{Role::down};
std::string g_uri, g_secret;
event_base *g_base = nullptr;  // progress thread only

std::shared_ptr<Engine> engine() {
  std::lock_guard<std::mutex> lock(g_ptr_mu);
  return g_engine;
}

pmix_status_t would_block(const char *call) {
  log(LogLevel::error, call,
      "blocking call made on the PMIx progress thread (inside push_stdin, an op callback or another "
      "upcall) would wait for itself; nothing done (PMIX_ERR_WOULD_BLOCK). Pass a cbfunc, or call it "
      "from a thread of your own");
  return PMIX_ERR_WOULD_BLOCK;
}

// Starts the engine if none runs (caller holds g_init_mu).
bool ensure_engine() {
  if (engine()) return true;
  std::unique_ptr<Engine> e = Engine::start();
  if (!e) return false;
  g_stats.reset();
  std::shared_ptr<Engine> s(std::move(e));
  event_base *b = s->base();
  if (!s->post([b] { g_base = b; })) return false;
  std::lock_guard<std::mutex> lock(g_ptr_mu);
  g_engine = s;
  g_stats.engine_running = 1;
  return true;
}

// Stops the engine when neither side uses it (caller holds g_init_mu).
void release_engine() {
  if (g_server.load() != Role::down || g_tool.load() != Role::down) return;
  std::shared_ptr<Engine> e;
  {
    std::lock_guard<std::mutex> lock(g_ptr_mu);
    e.swap(g_engine);
  }
  if (!e) return;
  g_stats.engine_running = 0;
  e->stop();
}

// Runs fn on the progress thread and waits for it.
template <class F>
bool run_sync(const std::shared_ptr<Engine> &e, F fn) {
  auto done = std::make_shared<std::promise<void>>();
  auto fut = done->get_future();
  if (!e->post([fn, done]() mutable {
        fn();
        done->set_value();
      }))
    return false;
  fut.wait();
  return true;
}

const pmix_info_t *find_info(const pmix_info_t *info, size_t n, const char *key) {
  for (size_t i = 0; i < n; ++i)
    if (std::strncmp(info[i].key, key, PMIX_MAX_KEYLEN) == 0) return &info[i];
  return nullptr;
}

bool info_string(const pmix_info_t *info, size_t n, const char *key, std::string *out) {
  const pmix_info_t *i = find_info(info, n, key);
  if (!i || i->value.type != PMIX_STRING || !i->value.data.string) return false;
  *out = i->value.data.string;
  return true;
}

bool info_uint(const pmix_info_t *info, size_t n, const char *key, uint64_t *out) {
  const pmix_info_t *i = find_info(info, n, key);
  if (!i) return false;
  switch (i->value.type) {
    case PMIX_UINT32:
    case PMIX_PROC_RANK: *out = i->value.data.uint32; return true;
    case PMIX_SIZE: *out = i->value.data.size; return true;
    case PMIX_UINT64: *out = i->value.data.uint64; return true;
    case PMIX_INT:
      if (i->value.data.integer < 0) return false;
      *out = static_cast<uint64_t>(i->value.data.integer);
      return true;
    default: return false;
  }
}

bool info_flag(const pmix_info_t *info, size_t n, const char *key) {
  const pmix_info_t *i = find_info(info, n, key);
  // OpenPMIx's reading: no value, a true bool, or a string such as "true"
  // or "yes" all mean true.
  return i && PMIx_Info_true(i) == PMIX_BOOL_TRUE;
}

std::string random_secret() {
  unsigned char b[16];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t r = getrandom(b + got, sizeof b - got, 0);
    if (r > 0) got += static_cast<size_t>(r);
  }
  char hex[33];
  for (size_t i = 0; i < sizeof b; ++i) std::snprintf(hex + 2 * i, 3, "%02x", b[i]);
  return std::string(hex, 32);
}

bool printable(const std::string &s) {
  for (char ch : s)
    if (ch <= ' ' || ch > '~') return false;
  return true;
}

// Creates the listening socket described by spec; fills uri and the state.
pmix_status_t open_listener(const std::string &spec, ServerState &s, std::string *uri) {
  if (spec == "none") return PMIX_SUCCESS;
  if (spec == "unix" || spec.rfind("unix:", 0) == 0) {
    std::string path;
    if (spec == "unix") {
      const char *tmp = std::getenv("TMPDIR");
      std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/pmixshim-XXXXXX";
      std::vector<char> t(tmpl.begin(), tmpl.end());
      t.push_back('\0');
      if (!mkdtemp(t.data())) return PMIX_ERR_NO_PERMISSIONS;  // mkdtemp makes it 0700
      s.unix_dir = t.data();
      path = s.unix_dir + "/server.sock";
    } else {
      path = spec.substr(5);
    }
    sockaddr_un a{};
    if (path.empty() || path.size() >= sizeof a.sun_path) return PMIX_ERR_BAD_PARAM;
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return PMIX_ERR_OUT_OF_RESOURCE;
    // Bind under a restrictive umask so the socket is never, even
    // briefly, connectable by others; chmod below states it exactly.
    mode_t old = umask(0177);
    int rc = ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    umask(old);
    if (rc != 0 || ::chmod(path.c_str(), 0600) != 0 || ::listen(fd, 64) != 0) {
      log(LogLevel::error, "PMIx_server_init", "cannot listen on %s: %s", path.c_str(), std::strerror(errno));
      ::close(fd);
      if (!s.unix_dir.empty()) ::rmdir(s.unix_dir.c_str());
      return PMIX_ERR_NO_PERMISSIONS;
    }
    s.listen_fd = fd;
    s.listen_unix = true;
    s.unix_path = path;
    *uri = "unix:" + path;
    return PMIX_SUCCESS;
  }
  if (spec == "tcp" || spec.rfind("tcp:", 0) == 0) {
    std::string host = "127.0.0.1";
    uint16_t port = 0;
    if (spec != "tcp") {
      std::string hp = spec.substr(4);
      size_t colon = hp.rfind(':');
      if (colon == std::string::npos) return PMIX_ERR_BAD_PARAM;
      host = hp.substr(0, colon);
      port = static_cast<uint16_t>(std::atoi(hp.c_str() + colon + 1));
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) return PMIX_ERR_BAD_PARAM;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return PMIX_ERR_OUT_OF_RESOURCE;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &wire::kTcpBufferBytes, sizeof wire::kTcpBufferBytes);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &wire::kTcpBufferBytes, sizeof wire::kTcpBufferBytes);
    socklen_t al = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &al) != 0) {
      log(LogLevel::error, "PMIx_server_init", "cannot listen on %s: %s", spec.c_str(), std::strerror(errno));
      ::close(fd);
      return PMIX_ERR_NO_PERMISSIONS;
    }
    s.listen_fd = fd;
    *uri = "tcp:" + host + ":" + std::to_string(ntohs(a.sin_port));
    return PMIX_SUCCESS;
  }
  return PMIX_ERR_BAD_PARAM;
}

size_t chunk_of(const pmix_info_t *dirs, size_t n) {
  uint64_t c = 128 * 1024;
  info_uint(dirs, n, PMIX_SHIM_CHUNK_SIZE, &c);
  if (c < 1) c = 1;
  if (c > wire::kMaxDataPayload) c = wire::kMaxDataPayload;
  return static_cast<size_t>(c);
}

}  // namespace

Core &core() { return g_core; }
event_base *engine_base() { return g_base; }

bool post_to_engine(std::function<void()> fn) {
  auto e = engine();
  return e && e->post(std::move(fn));
}

}  // namespace pmixshim

using namespace pmixshim;

extern "C" {

void pmixshim_get_iof_stats(pmixshim_iof_stats_t *out) {
  if (!out) return;
  out->xoff = g_stats.xoff;
  out->xon = g_stats.xon;
  out->xon_on_close = g_stats.xon_on_close;
  out->xoff_sent = g_stats.xoff_sent;
  out->xon_sent = g_stats.xon_sent;
  out->streams_opened = g_stats.streams_opened;
  out->streams_closed = g_stats.streams_closed;
  out->bytes_delivered = g_stats.bytes_delivered;
  out->chunks_delivered = g_stats.chunks_delivered;
  out->peers_refused = g_stats.peers_refused;
  out->peers_malformed = g_stats.peers_malformed;
  out->legacy_peers = g_stats.legacy_peers;
  out->xoff_received = g_stats.xoff_received;
  out->xon_received = g_stats.xon_received;
  out->bytes_pushed = g_stats.bytes_pushed;
  out->bytes_acked = g_stats.bytes_acked;
  out->relayed_xoff = g_stats.relayed_xoff;
  out->relayed_xon = g_stats.relayed_xon;
  out->engine_running = g_stats.engine_running;
}

pmix_status_t pmixshim_server_init(pmix_server_module_t *module, pmix_info_t info[], size_t ninfo) {
  if (Engine::on_progress_thread()) return would_block("PMIx_server_init");
  if (ninfo && !info) return PMIX_ERR_BAD_PARAM;
  std::lock_guard<std::mutex> lock(g_init_mu);
  if (g_server.load() != Role::down) return PMIX_ERR_INIT;
  auto s = std::make_unique<ServerState>();
  if (module) s->module = *module;
  std::string ns = "pmixshim-server-" + std::to_string(getpid());
  info_string(info, ninfo, PMIX_SERVER_NSPACE, &ns);
  uint64_t rank = 0;
  info_uint(info, ninfo, PMIX_SERVER_RANK, &rank);
  pmixshim_load_procid(&s->me, ns.c_str(), static_cast<pmix_rank_t>(rank));
  if (!info_string(info, ninfo, PMIX_SHIM_SECRET, &s->secret)) s->secret = random_secret();
  if (s->secret.size() < 8 || s->secret.size() > wire::kMaxSecret || !printable(s->secret)) {
    log(LogLevel::error, "PMIx_server_init", "the secret must be 8..128 printable characters");
    return PMIX_ERR_BAD_PARAM;
  }
  std::string spec = "unix", uri;
  info_string(info, ninfo, PMIX_SHIM_LISTEN, &spec);
  pmix_status_t rc = open_listener(spec, *s, &uri);
  if (rc != PMIX_SUCCESS) return rc;
  if (!ensure_engine()) {
    if (s->listen_fd >= 0) ::close(s->listen_fd);
    return PMIX_ERR_OUT_OF_RESOURCE;
  }
  {
    std::lock_guard<std::mutex> l2(g_ptr_mu);
    g_uri = uri;
    g_secret = s->secret;
  }
  std::shared_ptr<ServerState> holder(std::move(s));
  run_sync(engine(), [holder]() mutable {
    srv_install(std::unique_ptr<ServerState>(new ServerState(std::move(*holder))));
    // Up from the moment the server can accept a producer and hand the
    // host a chunk, not when this call returns: a host that suspends a
    // producer from push_stdin and resumes it from another thread must
    // not have that resume refused (PMIX_ERR_INIT) while the caller of
    // init has yet to run again. Requests posted from now on queue
    // behind this one, so none reaches a half-installed server.
    g_server = Role::up;
  });
  return PMIX_SUCCESS;
}

pmix_status_t pmixshim_server_finalize(void) {
  if (Engine::on_progress_thread()) return would_block("PMIx_server_finalize");
  std::lock_guard<std::mutex> lock(g_init_mu);
  if (g_server.load() != Role::up) return PMIX_ERR_INIT;
  g_server = Role::finalizing;
  if (auto e = engine()) run_sync(e, [] { srv_teardown(); });
  {
    std::lock_guard<std::mutex> l2(g_ptr_mu);
    g_uri.clear();
    g_secret.clear();
  }
  g_server = Role::down;
  release_engine();
  return PMIX_SUCCESS;
}

pmix_status_t pmixshim_server_contact(char *uri, size_t urilen, char *secret, size_t secretlen) {
  if (g_server.load() != Role::up) return PMIX_ERR_INIT;
  std::lock_guard<std::mutex> lock(g_ptr_mu);
  if (g_uri.empty()) return PMIX_ERR_NOT_AVAILABLE;
  if ((uri && urilen <= g_uri.size()) || (secret && secretlen <= g_secret.size())) return PMIX_ERR_BAD_PARAM;
  if (uri) std::memcpy(uri, g_uri.c_str(), g_uri.size() + 1);
  if (secret) std::memcpy(secret, g_secret.c_str(), g_secret.size() + 1);
  return PMIX_SUCCESS;
}

// Common shape of the request calls once their arguments are checked:
// post (and wait, for the blocking form).  `r` is the role the request
// needs; the request finds that role gone if it was finalized meanwhile.
static pmix_status_t post_request(const char *call, Role r, pmix_op_cbfunc_t cbfunc, void *cbdata,
                                  std::function<void(Completion)> apply) {
  auto e = engine();
  if (r == Role::finalizing || !e || !e->accepting()) return PMIX_ERR_NOT_AVAILABLE;
  if (!cbfunc && Engine::on_progress_thread()) return would_block(call);
  Completion c;
  std::future<pmix_status_t> fut;
  if (cbfunc) {
    c.fn = cbfunc;
    c.cbdata = cbdata;
  } else {
    c.waiter = std::make_shared<std::promise<pmix_status_t>>();
    fut = c.waiter->get_future();
  }
  bool posted;
  try {
    posted = e->post([apply, c]() mutable { apply(std::move(c)); });
  } catch (const std::bad_alloc &) {
    return PMIX_ERR_NOMEM;
  }
  if (!posted) return PMIX_ERR_NOT_AVAILABLE;
  return cbfunc ? PMIX_SUCCESS : fut.get();
}

pmix_status_t pmixshim_server_IOF_flow_control(const pmix_proc_t *source, pmix_iof_channel_t channel, bool xoff,
                                               const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                               void *cbdata) {
  const char *call = "PMIx_server_IOF_flow_control";
  // The checks in OpenPMIx's order: initialised (as a server or a tool),
  // engine running, channel; then the shim's own argument check.
  Role srv = g_server.load(), tl = g_tool.load();
  if (srv == Role::down && tl == Role::down) return PMIX_ERR_INIT;
  Role r = srv != Role::down ? srv : tl;
  auto e = engine();
  if (r == Role::finalizing || !e || !e->accepting()) return PMIX_ERR_NOT_AVAILABLE;
  if (!(channel & PMIX_FWD_STDIN_CHANNEL)) {
    log(LogLevel::warn, call, "channel 0x%x does not include PMIX_FWD_STDIN_CHANNEL", channel);
    return PMIX_ERR_NOT_SUPPORTED;
  }
  if (ndirs && !directives) {
    log(LogLevel::error, call, "%zu directives given as NULL", ndirs);
    return PMIX_ERR_BAD_PARAM;
  }
  bool have_src = source != nullptr;
  pmix_proc_t src{};
  if (have_src) pmixshim_load_procid(&src, source->nspace, source->rank);
  // A server suspends its producers; in a tool (or a relay, which is both)
  // the tool's own reads of a descriptor are producers too.
  return post_request(call, r, cbfunc, cbdata, [have_src, src, xoff](Completion c) mutable {
    if (!core().server && !core().tool) {
      c.finish(PMIX_ERR_NOT_AVAILABLE);
      return;
    }
    const pmix_proc_t *sel = have_src ? &src : nullptr;
    if (core().server) srv_flow_control(sel, xoff);
    if (core().tool) tool_flow_control(sel, xoff);
    c.finish(PMIX_SUCCESS);
  });
}

pmix_status_t pmixshim_server_read_stdin(int fd, const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                         void *cbdata) {
  Role r = g_server.load();
  if (r == Role::down) return PMIX_ERR_INIT;
  if ((ndirs && !directives) || fd < 0) return PMIX_ERR_BAD_PARAM;
  size_t chunk = chunk_of(directives, ndirs);
  return post_request("pmixshim_server_read_stdin", r, cbfunc, cbdata, [fd, chunk](Completion c) mutable {
    if (!core().server) {
      c.finish(PMIX_ERR_NOT_AVAILABLE);
      return;
    }
    pmix_status_t rc = srv_read_stdin(fd, chunk, {}, c, true);
    // On success the stream owns the completion (finished at its end).
    if (rc != PMIX_SUCCESS) c.finish(rc);
  });
}

pmix_status_t pmixshim_tool_init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo) {
  if (Engine::on_progress_thread()) return would_block("PMIx_tool_init");
  if (ninfo && !info) return PMIX_ERR_BAD_PARAM;
  std::lock_guard<std::mutex> lock(g_init_mu);
  if (g_tool.load() != Role::down) return PMIX_ERR_INIT;
  std::string uri, secret, ns = "pmixshim-tool-" + std::to_string(getpid());
  if (!info_string(info, ninfo, PMIX_SERVER_URI, &uri)) {
    const char *e = std::getenv("PMIX_SHIM_SERVER_URI");
    if (!e) {
      log(LogLevel::error, "PMIx_tool_init", "no server URI (PMIX_SERVER_URI or $PMIX_SHIM_SERVER_URI)");
      return PMIX_ERR_BAD_PARAM;
    }
    uri = e;
  }
  if (!info_string(info, ninfo, PMIX_SHIM_SECRET, &secret)) {
    const char *e = std::getenv("PMIX_SHIM_SECRET");
    secret = e ? e : "";
  }
  info_string(info, ninfo, PMIX_TOOL_NSPACE, &ns);
  uint64_t rank = 0, tmo = 0;
  info_uint(info, ninfo, PMIX_TOOL_RANK, &rank);
  info_uint(info, ninfo, PMIX_SHIM_CONNECT_TIMEOUT_MS, &tmo);
  auto t = std::make_unique<ToolState>();
  pmixshim_load_procid(&t->me, ns.c_str(), static_cast<pmix_rank_t>(rank));
  t->flow = !info_flag(info, ninfo, PMIX_SHIM_NO_FLOW_CONTROL);
  pmix_status_t rc = tool_connect(uri, secret, t->me, t->flow, static_cast<unsigned>(tmo), &t->fd, &t->server_flow,
                                  &t->server_ack);
  if (rc != PMIX_SUCCESS) {
    log(LogLevel::error, "PMIx_tool_init", "cannot connect to %s: %s", uri.c_str(), pmixshim_error_string(rc));
    return rc;
  }
  if (!ensure_engine()) {
    ::close(t->fd);
    return PMIX_ERR_OUT_OF_RESOURCE;
  }
  if (proc) *proc = t->me;
  std::shared_ptr<ToolState> holder(std::move(t));
  run_sync(engine(), [holder] {
    auto fresh = std::make_unique<ToolState>();
    fresh->fd = holder->fd;
    fresh->flow = holder->flow;
    fresh->server_flow = holder->server_flow;
    fresh->server_ack = holder->server_ack;
    fresh->me = holder->me;
    tool_install(std::move(fresh));
  });
  g_tool = Role::up;
  return PMIX_SUCCESS;
}

pmix_status_t pmixshim_tool_finalize(void) {
  if (Engine::on_progress_thread()) return would_block("PMIx_tool_finalize");
  std::lock_guard<std::mutex> lock(g_init_mu);
  if (g_tool.load() != Role::up) return PMIX_ERR_INIT;
  g_tool = Role::finalizing;
  if (auto e = engine()) run_sync(e, [] { tool_teardown(); });
  g_tool = Role::down;
  release_engine();
  return PMIX_SUCCESS;
}

pmix_status_t pmixshim_iof_push(const pmix_proc_t targets[], size_t ntargets, pmix_byte_object_t *bo,
                                const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata) {
  const char *call = "PMIx_IOF_push";
  // A tool (or a relay: tool and server) pushes to its server; a server
  // alone hands its own stdin to its host, as OpenPMIx does.
  Role tl = g_tool.load(), srv = g_server.load();
  bool as_tool = tl != Role::down;
  if (!as_tool && srv == Role::down) return PMIX_ERR_INIT;
  Role role = as_tool ? tl : srv;
  auto e = engine();
  if (role == Role::finalizing || !e || !e->accepting()) return PMIX_ERR_NOT_AVAILABLE;
  if (!cbfunc && Engine::on_progress_thread()) return would_block(call);
  if ((ntargets && !targets) || (ndirs && !directives) || ntargets > wire::kMaxTargets ||
      (bo && bo->size && !bo->bytes)) {
    log(LogLevel::error, call, "bad arguments (ntargets %zu with targets %s, ndirs %zu with directives %s, bo size %zu)",
        ntargets, targets ? "set" : "NULL", ndirs, directives ? "set" : "NULL", bo ? bo->size : size_t{0});
    return PMIX_ERR_BAD_PARAM;
  }
  bool at_end = info_flag(directives, ndirs, PMIX_SHIM_IOF_COMPLETE_AT_END);
  std::unique_ptr<PushReq> r;
  std::future<pmix_status_t> fut;
  try {
    r = std::make_unique<PushReq>();
    r->targets.assign(targets, targets + ntargets);
  } catch (const std::bad_alloc &) {
    return PMIX_ERR_NOMEM;
  }
  if (bo && bo->size) {
    r->kind = PushReq::Kind::buffer;
    r->data = bo->bytes;
    r->size = bo->size;
  } else if (!bo && info_flag(directives, ndirs, PMIX_IOF_PUSH_STDIN)) {
    uint64_t fd = 0;
    info_uint(directives, ndirs, PMIX_SHIM_IOF_FD, &fd);
    r->kind = PushReq::Kind::input;
    r->in.fd = static_cast<int>(fd);
    r->in.buf.resize(chunk_of(directives, ndirs));
  } else {
    r->kind = PushReq::Kind::end;
  }
  if (cbfunc) {
    r->done.fn = cbfunc;
    r->done.cbdata = cbdata;
  } else {
    r->done.waiter = std::make_shared<std::promise<pmix_status_t>>();
    fut = r->done.waiter->get_future();
  }
  std::shared_ptr<PushReq> holder(std::move(r));
  bool posted = e->post([holder, as_tool, at_end] {
    PushReq &q = *holder;
    if (as_tool) {
      auto req = std::make_unique<PushReq>();
      *req = std::move(q);
      tool_push(std::move(req), at_end);
    } else if (!core().server) {
      q.done.finish(PMIX_ERR_NOT_AVAILABLE);
    } else if (q.kind == PushReq::Kind::input) {
      pmix_status_t rc = srv_read_stdin(q.in.fd, q.in.buf.size(), q.targets, q.done, at_end);
      if (rc != PMIX_SUCCESS) q.done.finish(rc);
    } else {
      srv_push_data(q.targets, q.data, q.size, q.done);
    }
  });
  if (!posted) return PMIX_ERR_NOT_AVAILABLE;
  return cbfunc ? PMIX_SUCCESS : fut.get();
}

}  // extern "C"
