// The job's stdin path: unit 0 hosts a PMIx shim server and feeds the
// target units' fd 0 (stdin/host.hpp; README "stdin path and dartrun").
//
// Data path. The shim server hands each chunk to on_push_stdin (on the
// shim's progress thread). The host copies it once into a shared buffer and
// queues it for every target still reading:
//   - unit 0 itself: a writer thread writes the queue into the pipe that
//     replaced unit 0's fd 0;
//   - unit k != 0: a courier thread sends the chunks over a private
//     communicator; unit k's receiver thread writes them into its pipe and
//     acknowledges each one once it is in the pipe.
// Flow control. A target's queue counts the bytes accepted for it and not
// yet in its pipe (for a remote target: not yet acknowledged). When a chunk
// lifts any queue to the high-water mark, push_stdin completes with
// PMIX_ERR_IOF_XOFF ("taken, now stop"): the shim stops reading the
// producer, so the bytes stay in the producer's pipe or socket and `cat`
// blocks. When every queue is below the low-water mark again, the host
// resumes the producer with PMIx_server_IOF_flow_control. Memory is thus
// bounded by high-water + one chunk per target (chunks are shared among
// targets), whatever the size of the input. The shim takes our XON from the
// moment it can hand us a chunk, so a resume that falls due while unit 0's
// main thread is still inside PMIx_server_init is not lost.
// End of stream. The zero-length chunk that ends the producer's stream is
// queued behind the data for every target; a target's writer closes its
// pipe when it reaches it, so each target reads EOF exactly once. A target
// whose reader closed its stdin is dropped; when no target reads any more,
// the next chunk is refused, which closes the producer's stream (dartrun's
// push fails and it closes its own stdin, so the process feeding it is told
// by EPIPE).
#include "stdin/host.hpp"

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/mpi_handles.hpp"
#include "core/runtime.hpp"
#include "stdin/rendezvous.hpp"

#include <pmix_server.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dart {
namespace {

constexpr const char* kCall = "dart_stdin";
// Tags on the private communicator: data and end of stream from unit 0 to a
// target, acknowledgements back.
constexpr int kTagData = 1;
constexpr int kTagAck = 2;
// Acknowledgement flags (second word of an ack).
constexpr std::uint64_t kAckClosed = 1;  // the target's reader closed its stdin
constexpr std::uint64_t kAckBye = 2;     // the target saw the end of the stream
// Chunks the shim reads from a descriptor (plain-launcher mode). 128 KiB is
// the shim's default and twice the default pipe capacity.
constexpr std::size_t kChunk = 128 * 1024;
// The pipes we create ask for 1 MiB (Linux's default pipe-max-size): fewer,
// larger reads for the application and fewer wake-ups for the writer. Pipe
// pages are kernel memory, not the process's.
constexpr int kPipeBytes = 1 << 20;
// Chunks a courier keeps in MPI_Isend at once per target.
constexpr std::size_t kMaxInflight = 4;

using Chunk = std::shared_ptr<const std::vector<char>>;  // nullptr: end of stream

// ---- configuration --------------------------------------------------------

std::string lower(const char* s) {
  std::string out = s ? s : "";
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "65536", "64K", "1M" -> bytes; false on anything else or zero.
bool parse_bytes(const char* text, std::size_t* out) {
  if (!text || !*text) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || end == text || v == 0) return false;
  unsigned shift = 0;
  if (*end) {
    switch (std::toupper(static_cast<unsigned char>(*end))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: return false;
    }
    if (end[1]) return false;
  }
  *out = static_cast<std::size_t>(v << shift);
  return true;
}

// DART_STDIN_TARGET: "0" (default), "k", a list "1,3,5-7", "all" or
// "none". Fills one flag per unit; false on a malformed spec or a unit out
// of range (the caller falls back to unit 0).
bool parse_targets(const std::string& spec, int n, std::vector<unsigned char>* flags) {
  flags->assign(static_cast<std::size_t>(n), 0);
  if (spec == "all") {
    std::fill(flags->begin(), flags->end(), 1);
    return true;
  }
  if (spec == "none") return true;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    std::size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long a = std::strtol(item.c_str(), &end, 10);
    long b = a;
    if (end == item.c_str()) return false;
    if (*end == '-') {
      const char* rest = end + 1;
      b = std::strtol(rest, &end, 10);
      if (end == rest) return false;
    }
    if (*end || a < 0 || b < a || b >= n) return false;
    for (long u = a; u <= b; ++u) (*flags)[static_cast<std::size_t>(u)] = 1;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

// What unit 0 decided and broadcast; identical on every unit.
struct Plan {
  std::int32_t active = 0;        // the path is set up at all
  std::int32_t serve = 0;         // unit 0 runs a server (some unit is a target)
  std::uint64_t high = 512 * 1024;  // DART_STDIN_HIGH_WATER, bytes per target
  std::uint64_t low = 128 * 1024;   // DART_STDIN_LOW_WATER
};

bool is_dev_null(int fd) {
  struct stat a, b;
  return ::fstat(fd, &a) == 0 && ::stat("/dev/null", &b) == 0 && S_ISCHR(a.st_mode) && a.st_rdev == b.st_rdev;
}

// ---- pipes ---------------------------------------------------------------

// SIGPIPE from a write to a pipe whose reader is gone is directed at the
// writing thread: our writer threads block it and take any pending one back,
// so a reader that closes its stdin early never kills the process.
void block_sigpipe() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

void discard_sigpipe() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  timespec zero{0, 0};
  while (sigtimedwait(&s, nullptr, &zero) == SIGPIPE) {
  }
}

// Writes all of [p, p+n) into the non-blocking pipe fd. False when the
// reader is gone (EPIPE) or `stop` was raised while the pipe was full.
bool pipe_write(int fd, const char* p, std::size_t n, const std::atomic<bool>& stop) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w > 0) {
      p += w;
      n -= static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      if (stop.load()) return false;
      pollfd pfd{fd, POLLOUT, 0};
      ::poll(&pfd, 1, 100);  // bounded, so a raised `stop` is seen
      continue;
    }
    if (errno == EPIPE) discard_sigpipe();
    return false;
  }
  return true;
}

// The application's fd 0 as this unit sets it up: a pipe we write (target),
// or /dev/null (not a target: EOF at once). The original descriptor is kept
// and put back at stop, if fd 0 is still ours then.
struct Stdin0 {
  int saved = -1;      // the original fd 0 (-1: it was closed)
  int write_fd = -1;   // our end of the pipe, or -1
  dev_t dev = 0;       // identity of what we installed as fd 0
  ino_t ino = 0;

  bool install(bool target) {
    saved = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
    int read_fd = -1;
    if (target) {
      int p[2];
      if (::pipe2(p, O_CLOEXEC) != 0) return fail_install();
      ::fcntl(p[1], F_SETPIPE_SZ, kPipeBytes);  // best effort: the default works too
      read_fd = p[0];
      write_fd = p[1];
      ::fcntl(write_fd, F_SETFL, ::fcntl(write_fd, F_GETFL) | O_NONBLOCK);
    } else {
      read_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (read_fd < 0) return fail_install();
    }
    // dup2 leaves the new fd 0 without FD_CLOEXEC, as a stdin should be.
    if (::dup2(read_fd, 0) < 0) {
      ::close(read_fd);
      return fail_install();
    }
    ::close(read_fd);
    struct stat st;
    ::fstat(0, &st);
    dev = st.st_dev;
    ino = st.st_ino;
    return true;
  }

  bool fail_install() {
    log(LogLevel::Error, kCall, "cannot replace fd 0: %s", std::strerror(errno));
    if (write_fd >= 0) ::close(write_fd);
    write_fd = -1;
    if (saved >= 0) ::close(saved);
    saved = -1;
    return false;
  }

  // Puts the original fd 0 back if fd 0 is still what we installed (an
  // application that closed it and opened something else keeps that).
  // Closing our pipe's read end this way also wakes a writer blocked on it.
  void restore() {
    struct stat st;
    bool ours = ::fstat(0, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
    if (ours) {
      if (saved >= 0)
        ::dup2(saved, 0);
      else
        ::close(0);
    }
    if (saved >= 0) ::close(saved);
    saved = -1;
  }

  void close_write() {
    if (write_fd >= 0) ::close(write_fd);
    write_fd = -1;
  }
};

// Polls MPI without spinning a core when nothing happens: a few yields,
// then sleeps that double up to 1 ms.
class Backoff {
 public:
  void reset() noexcept { idle_ = 0; }
  void wait() {
    if (idle_ < 32) {
      ++idle_;
      std::this_thread::yield();
      return;
    }
    unsigned us = 1u << std::min(idle_ - 32, 10u);
    if (idle_ < 64) ++idle_;
    std::this_thread::sleep_for(std::chrono::microseconds(std::min(us, 1000u)));
  }

 private:
  unsigned idle_ = 0;
};

// ---- unit 0: the host ----------------------------------------------------

struct Sink {
  int unit = 0;
  bool local = false;
  std::deque<Chunk> queue;   // not yet handed to the pipe / to MPI
  std::size_t queued = 0;    // accepted and not yet in the target's pipe
  bool closed = false;       // its reader closed stdin (or we stopped)
  // courier state (remote sinks)
  std::vector<std::pair<MPI_Request, Chunk>> inflight;
  bool end_sent = false;
  bool bye = false;
};

class Host {
 public:
  Host(const Plan& plan, std::vector<int> targets, MPI_Comm comm, Stdin0* local)
      : plan_(plan), comm_(comm), local_(local) {
    for (int u : targets) {
      auto s = std::make_unique<Sink>();
      s->unit = u;
      s->local = u == 0;
      sinks_.push_back(std::move(s));
    }
  }

  void start_threads() {
    bool remote = false;
    for (auto& s : sinks_) {
      if (s->local) writer_ = std::thread([this, sp = s.get()] { local_writer(*sp); });
      else remote = true;
    }
    if (remote) courier_ = std::thread([this] { courier(); });
  }

  // push_stdin upcall (shim progress thread).
  pmix_status_t on_chunk(const pmix_proc_t* src, const pmix_byte_object_t* bo) {
    std::unique_lock<std::mutex> l(mu_);
    if (bo->size == 0) {
      if (!ended_) {
        ended_ = true;
        for (auto& s : sinks_)
          if (!s->closed) s->queue.push_back(nullptr);
        cv_.notify_all();
      }
      return PMIX_OPERATION_SUCCEEDED;
    }
    // Data after the end, or nobody left to read: refuse, which closes the
    // producer's stream and tells it.
    bool open = false;
    for (auto& s : sinks_) open = open || !s->closed;
    if (ended_ || stopping_ || !open) return PMIX_ERR_IOF_FAILURE;
    auto c = std::make_shared<const std::vector<char>>(bo->bytes, bo->bytes + bo->size);
    bool over = false;
    for (auto& s : sinks_) {
      if (s->closed) continue;
      s->queue.push_back(c);
      s->queued += bo->size;
      over = over || s->queued >= plan_.high;
    }
    cv_.notify_all();
    if (!over) return PMIX_OPERATION_SUCCEEDED;
    // Returned synchronously, the XOFF is applied on the progress thread
    // before any XON another thread posts from now on can be.
    suspended_ = true;
    source_ = *src;
    return PMIX_ERR_IOF_XOFF;
  }

  // Every unit's dart_exit: discard what is unread, end every target's
  // stream, join the threads.
  void stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stopping_ = true;
    }
    stop_flag_ = true;
    cv_.notify_all();
    if (writer_.joinable()) writer_.join();
    if (courier_.joinable()) courier_.join();
  }

 private:
  // Called with mu_ held after a queue shrank: resumes the producer once
  // every target still reading is below the low-water mark.
  void maybe_resume(std::unique_lock<std::mutex>& l) {
    if (!suspended_) return;
    for (auto& s : sinks_)
      if (!s->closed && s->queued > plan_.low) return;
    suspended_ = false;
    pmix_proc_t src = source_;
    l.unlock();
    // Non-blocking form: legal from any thread. After finalize it fails with
    // PMIX_ERR_INIT/NOT_AVAILABLE, and finalize has released the stream.
    PMIx_server_IOF_flow_control(&src, PMIX_FWD_STDIN_CHANNEL, false, nullptr, 0, [](pmix_status_t, void*) {},
                                 nullptr);
    l.lock();
  }

  void drop(Sink& s, std::unique_lock<std::mutex>& l) {
    s.closed = true;
    s.queue.clear();
    s.queued = 0;
    maybe_resume(l);
  }

  void local_writer(Sink& s) {
    block_sigpipe();
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      cv_.wait(l, [&] { return stopping_ || !s.queue.empty(); });
      if (stopping_ || s.closed) break;
      Chunk c = s.queue.front();
      if (!c) break;  // end of stream
      l.unlock();
      bool ok = pipe_write(local_->write_fd, c->data(), c->size(), stop_flag_);
      l.lock();
      if (!ok) {
        if (!stopping_)
          log(LogLevel::Info, kCall, "unit 0 closed its stdin; its remaining input is discarded");
        drop(s, l);
        break;
      }
      s.queue.pop_front();
      s.queued -= c->size();
      maybe_resume(l);
    }
    s.closed = true;
    s.queue.clear();
    l.unlock();
    local_->close_write();  // the reader's EOF, exactly once
  }

  Sink* find_remote(int unit) {
    for (auto& s : sinks_)
      if (s->unit == unit && !s->local) return s.get();
    return nullptr;
  }

  // Sends queued chunks to the remote targets and takes their acks, until
  // every remote target has said bye. Unit 0's only thread that uses comm_.
  void courier() {
    Backoff backoff;
    std::vector<std::pair<Sink*, Chunk>> to_send;
    for (;;) {
      bool progressed = false, all_bye = true;
      to_send.clear();
      {
        std::lock_guard<std::mutex> l(mu_);
        for (auto& sp : sinks_) {
          Sink& s = *sp;
          if (s.local || s.bye) continue;
          all_bye = false;
          if (s.end_sent) continue;
          if (s.closed || stopping_) {
            s.queue.clear();
            to_send.emplace_back(&s, nullptr);
            s.end_sent = true;
            continue;
          }
          while (!s.queue.empty() && s.inflight.size() + to_send.size() < kMaxInflight) {
            Chunk c = s.queue.front();
            s.queue.pop_front();
            to_send.emplace_back(&s, c);
            if (!c) {
              s.end_sent = true;
              break;
            }
          }
        }
      }
      if (all_bye) break;
      // MPI outside the lock: the upcall never waits for MPI.
      for (auto& [s, c] : to_send) {
        MPI_Request req;
        int n = c ? static_cast<int>(c->size()) : 0;
        MPI_Isend(c ? c->data() : nullptr, n, MPI_BYTE, s->unit, kTagData, comm_, &req);
        s->inflight.emplace_back(req, c);
        progressed = true;
      }
      for (auto& sp : sinks_) {
        auto& inf = sp->inflight;
        for (std::size_t i = 0; i < inf.size();) {
          int done = 0;
          MPI_Test(&inf[i].first, &done, MPI_STATUS_IGNORE);
          if (done) {
            inf.erase(inf.begin() + static_cast<std::ptrdiff_t>(i));
            progressed = true;
          } else {
            ++i;
          }
        }
      }
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagAck, comm_, &flag, &st);
      if (flag) {
        std::uint64_t ack[2];
        MPI_Recv(ack, 2, MPI_UINT64_T, st.MPI_SOURCE, kTagAck, comm_, MPI_STATUS_IGNORE);
        progressed = true;
        std::unique_lock<std::mutex> l(mu_);
        if (Sink* s = find_remote(st.MPI_SOURCE)) {
          if (ack[1] & kAckBye) s->bye = true;
          if (!s->closed) {
            s->queued -= std::min<std::size_t>(s->queued, static_cast<std::size_t>(ack[0]));
            if (ack[1] & kAckClosed) {
              if (!stopping_)
                log(LogLevel::Info, kCall, "unit %d closed its stdin; its remaining input is discarded",
                    s->unit);
              drop(*s, l);
            } else {
              maybe_resume(l);
            }
          }
        }
      }
      if (progressed)
        backoff.reset();
      else
        backoff.wait();
    }
    // Every send completed before its bye could come back.
    for (auto& sp : sinks_) {
      for (auto& f : sp->inflight) MPI_Wait(&f.first, MPI_STATUS_IGNORE);
      sp->inflight.clear();
    }
  }

  Plan plan_;
  MPI_Comm comm_;
  Stdin0* local_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  bool ended_ = false;
  bool stopping_ = false;
  bool suspended_ = false;
  pmix_proc_t source_{};
  std::atomic<bool> stop_flag_{false};
  std::thread writer_, courier_;
};

// ---- unit k != 0: the receiver -------------------------------------------

class Receiver {
 public:
  Receiver(MPI_Comm comm, Stdin0* local) : comm_(comm), local_(local) {
    thread_ = std::thread([this] { run(); });
  }
  void stop() {
    stop_flag_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    block_sigpipe();
    Backoff backoff;
    std::vector<char> buf;
    bool closed = false;
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(0, kTagData, comm_, &flag, &st);
      if (!flag) {
        backoff.wait();
        continue;
      }
      backoff.reset();
      int n = 0;
      MPI_Get_count(&st, MPI_BYTE, &n);
      buf.resize(static_cast<std::size_t>(n));
      MPI_Recv(buf.data(), n, MPI_BYTE, 0, kTagData, comm_, MPI_STATUS_IGNORE);
      if (n == 0) break;  // end of stream (or unit 0 stopping)
      if (!closed) {
        closed = !pipe_write(local_->write_fd, buf.data(), buf.size(), stop_flag_);
        if (closed) local_->close_write();
      }
      // Only after the bytes are in the pipe (or dropped): this is what
      // bounds unit 0's queue for us.
      std::uint64_t ack[2] = {static_cast<std::uint64_t>(n), closed ? kAckClosed : 0};
      MPI_Send(ack, 2, MPI_UINT64_T, 0, kTagAck, comm_);
    }
    local_->close_write();  // EOF for the reader, exactly once
    std::uint64_t bye[2] = {0, kAckBye | (closed ? kAckClosed : 0)};
    MPI_Send(bye, 2, MPI_UINT64_T, 0, kTagAck, comm_);
  }

  MPI_Comm comm_;
  Stdin0* local_;
  std::atomic<bool> stop_flag_{false};
  std::thread thread_;
};

// ---- the path on this unit -------------------------------------------------

struct StdinPath {
  Plan plan;
  Stdin0 fd0;
  mpi::Comm comm;
  std::unique_ptr<Host> host;
  std::unique_ptr<Receiver> receiver;
  bool server_up = false;
};

StdinPath* g_path = nullptr;  // set and cleared under dart_init/dart_exit's lock
std::atomic<Host*> g_host{nullptr};

pmix_status_t on_push_stdin(const pmix_proc_t* source, const pmix_proc_t[], std::size_t, const pmix_info_t[],
                            std::size_t, const pmix_byte_object_t* bo, pmix_op_cbfunc_t, void*) {
  Host* h = g_host.load();
  if (!h) return PMIX_ERR_IOF_FAILURE;
  return h->on_chunk(source, bo);
}

// Unit 0: reads the environment and decides.
void decide(int nunits, Plan* plan, std::vector<unsigned char>* targets) {
  const std::string mode = lower(std::getenv("DART_STDIN"));
  const char* server = std::getenv("DART_STDIN_SERVER");
  if (!server || !*server) server = std::getenv("DART_STDIN_RENDEZVOUS");
  if (!mode.empty() && mode != "auto" && mode != "on" && mode != "off")
    log(LogLevel::Error, kCall, "DART_STDIN=%s is not auto, on or off; using auto", mode.c_str());
  if (mode == "off") return;
  const bool fd0_open = ::fcntl(0, F_GETFD) != -1;
  if (server && *server)
    plan->active = 1;  // dartrun: the launcher's stdin is out of the way
  else if (mode == "on")
    plan->active = 1;
  else
    plan->active = fd0_open && !::isatty(0) && !is_dev_null(0);
  if (!plan->active) return;

  const char* spec = std::getenv("DART_STDIN_TARGET");
  std::string s = lower(spec && *spec ? spec : "0");
  if (!parse_targets(s, nunits, targets)) {
    log(LogLevel::Error, kCall, "DART_STDIN_TARGET=%s is not a unit, a list of units (1,3,5-7), all or none "
        "for %d units; stdin goes to unit 0", s.c_str(), nunits);
    parse_targets("0", nunits, targets);
  }
  std::size_t high = plan->high, low = plan->low;
  const char* hv = std::getenv("DART_STDIN_HIGH_WATER");
  const char* lv = std::getenv("DART_STDIN_LOW_WATER");
  if (hv && !parse_bytes(hv, &high)) log(LogLevel::Error, kCall, "DART_STDIN_HIGH_WATER=%s is not a size", hv);
  if (lv && !parse_bytes(lv, &low)) log(LogLevel::Error, kCall, "DART_STDIN_LOW_WATER=%s is not a size", lv);
  if (low >= high) {
    log(LogLevel::Error, kCall, "the stdin low-water mark (%zu) must be below the high-water mark (%zu); using "
        "the defaults", low, high);
    high = plan->high;
    low = plan->low;
  }
  plan->high = high;
  plan->low = low;

  // Remote targets need a helper thread that calls MPI next to the
  // application's own calls.
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided != MPI_THREAD_MULTIPLE && std::count(targets->begin() + 1, targets->end(), 1) > 0) {
    log(LogLevel::Warn, kCall, "MPI does not provide MPI_THREAD_MULTIPLE: stdin can reach unit 0 only; the "
        "other target units read EOF");
    std::fill(targets->begin() + 1, targets->end(), 0);
  }
  plan->serve = std::count(targets->begin(), targets->end(), 1) > 0;
}

void start() {
  Runtime* r = runtime();
  if (!r) return;
  MPI_Comm world = r->world().comm();
  const int me = r->myid(), n = r->size();
  Plan plan;
  std::vector<unsigned char> targets(static_cast<std::size_t>(n), 0);
  if (me == 0) decide(n, &plan, &targets);
  // Every unit must hold the same plan: agree by broadcast, not by reading
  // the (possibly different) environment of each unit.
  mpi_check(MPI_Bcast(&plan, sizeof plan, MPI_BYTE, 0, world), "MPI_Bcast");
  if (!plan.active) return;
  mpi_check(MPI_Bcast(targets.data(), n, MPI_BYTE, 0, world), "MPI_Bcast");

  auto path = std::make_unique<StdinPath>();
  path->plan = plan;
  const bool target = targets[static_cast<std::size_t>(me)] != 0;
  // Unit 0 keeps the original fd 0 open (saved) whatever happens: in
  // plain-launcher mode the server reads it.
  const bool installed = path->fd0.install(target);
  std::vector<int> remote;
  for (int u = 1; u < n; ++u)
    if (targets[static_cast<std::size_t>(u)]) remote.push_back(u);
  // Collective: every unit takes part, whether it is a target or not.
  if (!remote.empty()) path->comm = mpi::Comm::dup(world);

  if (me == 0 && plan.serve) {
    std::vector<int> all;
    if (target && installed) all.push_back(0);
    all.insert(all.end(), remote.begin(), remote.end());
    path->host = std::make_unique<Host>(plan, all, path->comm.get(), &path->fd0);
    g_host = path->host.get();
    const char* server = std::getenv("DART_STDIN_SERVER");
    const char* secret = std::getenv("DART_STDIN_SECRET");
    // dartrun's TCP rendezvous: listen on the address that reaches it.
    const char* rendezvous = std::getenv("DART_STDIN_RENDEZVOUS");
    StdinRendezvous rv;
    std::string listen_spec;
    if ((!server || !*server) && rendezvous && *rendezvous) {
      listen_spec = rv.connect(rendezvous) ? "tcp:" + rv.local_address() + ":0" : "none";
      server = listen_spec.c_str();
    }
    const bool tcp = !listen_spec.empty() && listen_spec != "none";
    const bool dartrun = server && *server && listen_spec != "none";
    std::vector<pmix_info_t> info(2);
    const char* nspace = "dart-stdin";
    pmix_rank_t rank = 0;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
    pmix_info_t it;
    // Without dartrun nobody needs to connect: no socket at all.
    PMIX_INFO_LOAD(&it, PMIX_SHIM_LISTEN, dartrun ? server : "none", PMIX_STRING);
    info.push_back(it);
    if (dartrun && secret && *secret) {
      PMIX_INFO_LOAD(&it, PMIX_SHIM_SECRET, secret, PMIX_STRING);
      info.push_back(it);
    }
    pmix_server_module_t module{};
    module.push_stdin = on_push_stdin;
    path->host->start_threads();
    pmix_status_t rc = PMIx_server_init(&module, info.data(), info.size());
    if (rc == PMIX_SUCCESS && tcp) {
      char uri[256], key[256];
      rc = pmixshim_server_contact(uri, sizeof uri, key, sizeof key);
      if (rc == PMIX_SUCCESS && !rv.announce(secret ? secret : "", uri)) rc = PMIX_ERR_UNREACH;
      if (rc != PMIX_SUCCESS) PMIx_server_finalize();
    }
    if (rc == PMIX_SUCCESS) {
      path->server_up = true;
      if (!dartrun && path->fd0.saved >= 0) {
        pmix_info_t dir;
        std::size_t chunk = kChunk;
        PMIX_INFO_LOAD(&dir, PMIX_SHIM_CHUNK_SIZE, &chunk, PMIX_SIZE);
        rc = pmixshim_server_read_stdin(path->fd0.saved, &dir, 1, [](pmix_status_t, void*) {}, nullptr);
        if (rc != PMIX_SUCCESS)
          log(LogLevel::Error, kCall, "cannot read the launcher's stdin: %s", PMIx_Error_string(rc));
      }
    } else {
      log(LogLevel::Error, kCall, "cannot start the stdin server on %s: %s; the job reads no stdin",
          dartrun ? server : "fd 0", PMIx_Error_string(rc));
    }
    if (rc != PMIX_SUCCESS) {
      // Nothing will come: every target sees EOF.
      pmix_byte_object_t end{nullptr, 0};
      path->host->on_chunk(nullptr, &end);
    }
  } else if (target && me != 0) {
    // Also when fd 0 could not be replaced: unit 0 sends anyway, and the
    // receiver (whose pipe writes then fail) drops the bytes and acks them.
    path->receiver = std::make_unique<Receiver>(path->comm.get(), &path->fd0);
  }
  g_path = path.release();
}

void stop() {
  std::unique_ptr<StdinPath> path(g_path);
  g_path = nullptr;
  if (!path) return;
  // Units other than 0 may still be reading: unit 0 keeps delivering (its
  // server and courier threads run on) until every unit is in dart_exit.
  // A non-blocking barrier polled with back-off: MPI's blocking one spins
  // a core for as long as the slowest reader takes.
  if (path->comm.get() != MPI_COMM_NULL) {
    MPI_Request req;
    mpi_check(MPI_Ibarrier(path->comm.get(), &req), "MPI_Ibarrier");
    Backoff backoff;
    for (int done = 0; !done;) {
      mpi_check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) backoff.wait();
    }
  }
  // No new chunks: the producer's connection closes (dartrun's push fails,
  // which tells it the job is done with stdin).
  if (path->server_up) PMIx_server_finalize();
  // Closing our pipe's read end wakes a writer blocked on a full pipe.
  path->fd0.restore();
  if (path->host) path->host->stop();
  if (path->receiver) path->receiver->stop();
  g_host = nullptr;
  path->fd0.close_write();
}

}  // namespace

void stdin_host_start() noexcept {
  try {
    start();
  } catch (const std::exception& e) {
    log(LogLevel::Error, kCall, "the stdin path is not available: %s", e.what());
  }
}

void stdin_host_stop() noexcept {
  try {
    stop();
  } catch (const std::exception& e) {
    log(LogLevel::Error, kCall, "stopping the stdin path: %s", e.what());
  }
}

}  // namespace dart
