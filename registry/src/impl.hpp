// The replicated registry on one rank: the private communicator, the
// replica (Store), the operations recorded since the last sync and the
// callbacks of this rank's subscriptions.
#pragma once

#include <registry/registry.hpp>

#include "store.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace registry::detail {

class Impl;

struct Outcome {
  Status status = Status::pending;
  // The registry that recorded the operation, until it is applied. After
  // the sync the operation may wait in that registry's backlog: every
  // replica holds it, this one applies it at its next read (Impl::settle),
  // and a look at the status is such a read. (Set at record time, so a
  // sync need not touch every outcome to defer them.)
  Impl* registry = nullptr;
};

// Owns a communicator duplicated for the registry's own traffic, so no
// message of the application can ever match one of ours.
class Comm {
 public:
  Comm() = default;
  explicit Comm(MPI_Comm c) : comm_(c) {}
  Comm(Comm&& o) noexcept : comm_(o.comm_) { o.comm_ = MPI_COMM_NULL; }
  Comm& operator=(Comm&& o) noexcept {
    std::swap(comm_, o.comm_);
    return *this;
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm();
  [[nodiscard]] MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

class Impl {
 public:
  Impl(Comm comm, int rank, int size, const Options& options, std::string world_segment);
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl();

  static Ticket resolved(Status s) { return Ticket(std::make_shared<Outcome>(Outcome{s})); }
  Ticket fail(const char* fn, Status s, const std::string& reason) const;

  Ticket define_segment(std::string_view segment, const std::vector<int>& writers);
  Ticket put(std::string_view segment, const std::vector<std::string>& tokens, Bytes object, std::uint16_t mode);
  Ticket erase(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode);
  Ticket subscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode,
                   std::uint16_t actions, Callback callback);
  Ticket unsubscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode);
  Status sync();
  [[nodiscard]] std::size_t pending() const { return recorded_.size(); }

  // Reads apply the backlog first (settle), so they are not const here;
  // the Registry's read calls stay const for the caller, who cannot tell.
  Result<std::vector<Value>> get(std::string_view segment, const std::vector<std::string>& tokens,
                                 std::uint16_t mode);
  Result<std::vector<std::string>> index(std::string_view segment);

  // Applies the operations the last sync exchanged but left for the first
  // read: every read of the replica (get, index, digest, a ticket's
  // status) calls this first, so none can see the difference.
  void settle() {
    if (backlog_) apply_backlog();
  }

  // Checks a token list and a mode for a searching call; returns the
  // matching mode, or 0 after logging why the input is rejected.
  std::uint16_t check_query(const char* fn, std::string_view segment, const std::vector<std::string>& tokens,
                            std::uint16_t mode) const;
  void log(const char* fn, const std::string& reason) const;

  Comm comm_;
  int rank_;
  int size_;
  Options options_;
  std::string world_segment_;
  Store store_;

 private:
  struct Recorded {
    std::shared_ptr<Outcome> outcome;
    Callback callback;  // subscribe only
  };
  // The operations of one sync as every replica received them: each
  // rank's encoded operations at offsets[r], sizes[r] bytes, and this
  // rank's own records (their outcomes, in issue order).
  struct Batch {
    ByteBuffer buf;  // its size: the bytes of operations and padding
    std::vector<std::uint64_t> sizes;
    std::vector<std::uint64_t> offsets;
    std::vector<Recorded> own;
  };

  // An operation being encoded into pending_: unless it is committed (by
  // record), its bytes are taken out again, so an exception while encoding
  // or recording (std::bad_alloc) leaves no partial operation for the next
  // sync to choke on.
  class Encoding {
   public:
    explicit Encoding(ByteBuffer& b) : b_(b), at_(b.size()) {}
    Encoding(const Encoding&) = delete;
    Encoding& operator=(const Encoding&) = delete;
    ~Encoding() {
      if (!done_) b_.resize(at_);
    }
    void commit() { done_ = true; }

   private:
    ByteBuffer& b_;
    std::size_t at_;
    bool done_ = false;
  };
  // Appends the operation just encoded into pending_ to the local list.
  Ticket record(Encoding& enc, Callback callback = {});
  // Applies a batch (every rank's operations, by rank, then issue order),
  // then keeps its buffer as spare_ or frees it.
  // An unreadable batch is fatal: the replicas can no longer be trusted.
  void apply(Batch& batch, std::vector<Event>& events);
  void apply_ops(Batch& batch, std::vector<Event>& events);  // throws if unreadable
  void apply_backlog();
  void check_replicas();

  // The operations recorded since the last sync, encoded (wire.hpp). At
  // sync this buffer grows into the exchange's receive buffer and goes to
  // the batch; then it takes over spare_, if there is one, to record the
  // next operations into.
  ByteBuffer pending_;
  // The buffer of an applied batch, kept (up to kKeepRecv bytes) to record
  // the next sync's operations into, so a steady stream of syncs neither
  // allocates nor page-faults a buffer each time.
  static constexpr std::uint64_t kKeepRecv = 64u << 20;
  // How much of the receive buffer's room is touched while recording
  // (the constructor says why). A bound on what a rank whose peers
  // publish less than it does holds for nothing until the sync.
  static constexpr std::uint64_t kWarmRecv = 16u << 20;
  // A sync's operations above this size are applied at once.
  static constexpr std::uint64_t kMaxBacklog = 256u << 20;
  ByteBuffer spare_;
  std::vector<Recorded> recorded_;
  // The last sync's operations while they wait for a read (the next sync
  // applies them first; see sync()).
  std::optional<Batch> backlog_;
  bool subscribing_ = false;  // a subscribe is among the recorded operations
  std::map<SubId, Callback> callbacks_;
  bool in_sync_ = false;
};

}  // namespace registry::detail
