// The stdin path's MPI transport (stdin/courier.hpp).
#include "stdin/courier.hpp"

#include "core/config.hpp"
#include "core/log.hpp"
#include "stdin/backoff.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace dart::stdin_path {
namespace {

// Tags on the private communicator: data and end of stream from unit 0 to a
// target, acknowledgements back.
constexpr int kTagData = 1;
constexpr int kTagAck = 2;
// Acknowledgement flags (second word of an ack).
constexpr std::uint64_t kAckClosed = 1;  // the target's reader closed its stdin
constexpr std::uint64_t kAckBye = 2;     // the target saw the end of the stream
// Chunks a courier keeps in MPI_Isend at once per target.
constexpr std::size_t kMaxInflight = 4;

}  // namespace

// ---- unit 0: the courier ---------------------------------------------------

Courier::Courier(const std::vector<int>& units, MPI_Comm comm) : comm_(comm) {
  remotes_.resize(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) remotes_[i].unit = units[i];
}

void Courier::start(Fanout& fanout) {
  thread_ = std::thread([this, &fanout] { run(fanout); });
}

void Courier::join() {
  if (thread_.joinable()) thread_.join();
}

Courier::Remote* Courier::find(int unit) {
  for (Remote& r : remotes_)
    if (r.unit == unit) return &r;
  return nullptr;
}

// Sends queued chunks to the remote targets and takes their acks, until
// every remote target has said bye.
void Courier::run(Fanout& fanout) {
  Backoff backoff;
  std::vector<std::pair<Remote*, Chunk>> to_send;
  std::vector<Chunk> taken;
  for (;;) {
    bool progressed = false, all_bye = true;
    to_send.clear();
    for (Remote& r : remotes_) {
      if (r.bye) continue;
      all_bye = false;
      if (r.end_sent) continue;
      // Room is shared with what this round already picked for others.
      const std::size_t busy = r.inflight.size() + to_send.size();
      taken.clear();
      fanout.take(r.unit, busy < kMaxInflight ? kMaxInflight - busy : 0, &taken);
      for (Chunk& c : taken) {
        if (!c) r.end_sent = true;
        to_send.emplace_back(&r, std::move(c));
      }
    }
    if (all_bye) break;
    // MPI outside the fan-out's lock: the producer never waits for MPI.
    for (auto& [r, c] : to_send) {
      MPI_Request req;
      int n = c ? static_cast<int>(c->size()) : 0;
      MPI_Isend(c ? c->data() : nullptr, n, MPI_BYTE, r->unit, kTagData, comm_, &req);
      r->inflight.emplace_back(req, c);
      progressed = true;
    }
    for (Remote& r : remotes_) {
      auto& inf = r.inflight;
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
      if (Remote* r = find(st.MPI_SOURCE)) {
        if (ack[1] & kAckBye) r->bye = true;
        if (ack[1] & kAckClosed) {
          if (fanout.drop(r->unit))
            log(LogLevel::Info, "dart_stdin", "unit %d closed its stdin; its remaining input is discarded", r->unit);
        } else {
          fanout.delivered(r->unit, static_cast<std::size_t>(ack[0]));
        }
      }
    }
    if (progressed) backoff.reset();
    else backoff.wait();
  }
  // Every send completed before its bye could come back.
  for (Remote& r : remotes_) {
    for (auto& f : r.inflight) MPI_Wait(&f.first, MPI_STATUS_IGNORE);
    r.inflight.clear();
  }
}

// ---- unit k != 0: the receiver ---------------------------------------------

Receiver::Receiver(MPI_Comm comm, Fd0& fd0) : comm_(comm), fd0_(fd0) {
  thread_ = std::thread([this] { run(); });
}

void Receiver::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Receiver::run() {
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
      closed = !pipe_write(fd0_.write_fd(), buf.data(), buf.size(), stop_);
      if (closed) fd0_.close_write();
    }
    // Only after the bytes are in the pipe (or dropped): this is what
    // bounds unit 0's queue for us.
    std::uint64_t ack[2] = {static_cast<std::uint64_t>(n), closed ? kAckClosed : 0};
    MPI_Send(ack, 2, MPI_UINT64_T, 0, kTagAck, comm_);
  }
  fd0_.close_write();  // EOF for the reader, exactly once
  std::uint64_t bye[2] = {0, kAckBye | (closed ? kAckClosed : 0)};
  MPI_Send(bye, 2, MPI_UINT64_T, 0, kTagAck, comm_);
}

}  // namespace dart::stdin_path
