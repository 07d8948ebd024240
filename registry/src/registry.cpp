// Recording, exchange and application of operations; the C++ API's thin
// forwarding to Impl.
#include "abort.hpp"
#include "impl.hpp"
#include "wire.hpp"
#include "ucx_close.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <numeric>

#include <sys/mman.h>

namespace registry {

const char* to_string(Status s) noexcept {
  switch (s) {
    case Status::ok: return "ok";
    case Status::pending: return "pending (not yet synced)";
    case Status::invalid_argument: return "invalid argument";
    case Status::not_found: return "not found (unknown segment or no matching object)";
    case Status::exists: return "already exists";
    case Status::denied: return "write denied (segment is restricted to other ranks)";
    case Status::too_large: return "too large";
    case Status::busy: return "busy (sync called from a notification callback)";
    case Status::mpi_error: return "MPI error";
  }
  return "unknown status";
}

Status Ticket::status() const {
  // A default-constructed ticket was never issued by a registry.
  if (!outcome_) return Status::invalid_argument;
  // Applies the backlog if this operation waits in it (settle() is cheap
  // when there is none, e.g. before the sync).
  if (outcome_->status == Status::pending && outcome_->registry != nullptr) outcome_->registry->settle();
  return outcome_->status;
}

namespace detail {
namespace {

constexpr std::uint16_t kAllModeBits = kOverwrite | kAnd | kOr | kXand | kXor;

[[noreturn]] void fatal(int rank, const char* fn, const std::string& reason) {
  std::fprintf(stderr, "[registry rank %d] %s: fatal: %s\n", rank, fn, reason.c_str());
  dart::mpifix::abort_job(MPI_COMM_WORLD, 1);
}

// Sorted, duplicate-free copy of a token list (object identity is a set).
std::vector<std::string> canonical(const std::vector<std::string>& tokens) {
  std::vector<std::string> t = tokens;
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

// Why a token list is unacceptable, or empty if it is fine.
std::string token_problem(const std::vector<std::string>& tokens) {
  if (tokens.empty()) return "empty token list";
  if (tokens.size() > std::numeric_limits<std::uint32_t>::max()) return "too many tokens";
  for (const auto& t : tokens) {
    if (t.empty()) return "empty token";
    if (t.size() > std::numeric_limits<std::uint32_t>::max()) return "token too long";
  }
  return {};
}

std::string segment_problem(std::string_view segment) {
  if (segment.empty()) return "empty segment name";
  if (segment.size() > std::numeric_limits<std::uint32_t>::max()) return "segment name too long";
  return {};
}

}  // namespace


Comm::~Comm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && finalized == 0) MPI_Comm_free(&comm_);
}

Impl::Impl(Comm comm, int rank, int size, const Options& options, std::string world_segment)
    : comm_(std::move(comm)),
      rank_(rank),
      size_(size),
      options_(options),
      world_segment_(std::move(world_segment)),
      store_(rank) {
  // At sync the pending operations grow in place into the receive buffer,
  // which holds every rank's: room for as many contributions as there are
  // ranks (looking at most kKeepRecv ahead) spares the move, and a copy in
  // fresh memory, when they are alike; touching up to kWarmRecv of that
  // room while recording keeps the kernel's clearing of fresh pages out
  // of the exchange, where every rank would wait for it.
  pending_.set_growth(static_cast<std::size_t>(size), kKeepRecv, kWarmRecv);
}

Impl::~Impl() {
  // Tickets the caller still holds must not call back into this registry:
  // those of operations never synced stay pending; those of the backlog
  // learn their outcome now (apply the backlog if any is held).
  for (const Recorded& r : recorded_)
    if (r.outcome.use_count() > 1) r.outcome->registry = nullptr;
  if (!backlog_) return;
  for (const Recorded& r : backlog_->own) {
    if (r.outcome.use_count() > 1) {
      settle();
      return;
    }
  }
}

void Impl::log(const char* fn, const std::string& reason) const {
  if (options_.log_errors) std::fprintf(stderr, "[registry rank %d] %s: error: %s\n", rank_, fn, reason.c_str());
}

Ticket Impl::fail(const char* fn, Status s, const std::string& reason) const {
  log(fn, reason);
  return resolved(s);
}

Ticket Impl::record(Encoding& enc, Callback callback) {
  auto outcome = std::make_shared<Outcome>(Outcome{Status::pending, this});
  recorded_.push_back(Recorded{outcome, std::move(callback)});
  enc.commit();
  return Ticket(std::move(outcome));
}

Ticket Impl::define_segment(std::string_view segment, const std::vector<int>& writers) {
  if (auto p = segment_problem(segment); !p.empty()) return fail("define_segment", Status::invalid_argument, p);
  std::vector<int> w = writers;
  std::sort(w.begin(), w.end());
  w.erase(std::unique(w.begin(), w.end()), w.end());
  if (!w.empty() && (w.front() < 0 || w.back() >= size_))
    return fail("define_segment", Status::invalid_argument, "writer rank out of range");
  Encoding enc(pending_);
  Writer out(pending_);
  out.num(OpKind::define);
  out.str(segment);
  out.num(static_cast<std::uint32_t>(w.size()));
  for (int r : w) out.num(static_cast<std::int32_t>(r));
  return record(enc);
}

Ticket Impl::put(std::string_view segment, const std::vector<std::string>& tokens, Bytes object, std::uint16_t mode) {
  if (auto p = segment_problem(segment); !p.empty()) return fail("put", Status::invalid_argument, p);
  if (auto p = token_problem(tokens); !p.empty()) return fail("put", Status::invalid_argument, p);
  if ((mode & ~kAllModeBits) != 0) return fail("put", Status::invalid_argument, "unknown mode bits");
  if (object.data == nullptr && object.size > 0)
    return fail("put", Status::invalid_argument, "NULL object with non-zero size");
  if (object.size > max_object_size)
    return fail("put", Status::too_large, "object of " + std::to_string(object.size) + " bytes exceeds INT_MAX");
  Encoding enc(pending_);
  Writer out(pending_);
  out.num(OpKind::put);
  out.num(static_cast<std::uint16_t>(mode & kOverwrite));
  out.str(segment);
  out.tokens(canonical(tokens));
  out.num(static_cast<std::uint64_t>(object.size));
  out.bytes(object.data, object.size);
  return record(enc);
}

std::uint16_t Impl::check_query(const char* fn, std::string_view segment, const std::vector<std::string>& tokens,
                                std::uint16_t mode) const {
  std::string problem = segment_problem(segment);
  if (problem.empty()) problem = token_problem(tokens);
  if (problem.empty() && (mode & ~kAllModeBits) != 0) problem = "unknown mode bits";
  const std::uint16_t match = match_of(mode);
  if (problem.empty() && match == 0) problem = "more than one of AND/OR/XAND/XOR";
  if (!problem.empty()) {
    log(fn, problem);
    return 0;
  }
  return match;
}

Ticket Impl::erase(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode) {
  const std::uint16_t match = check_query("erase", segment, tokens, mode);
  if (match == 0) return resolved(Status::invalid_argument);
  Encoding enc(pending_);
  Writer out(pending_);
  out.num(OpKind::erase);
  out.num(match);
  out.str(segment);
  out.tokens(canonical(tokens));
  return record(enc);
}

Ticket Impl::subscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode,
                       std::uint16_t actions, Callback callback) {
  const std::uint16_t match = check_query("subscribe", segment, tokens, mode);
  if (match == 0) return resolved(Status::invalid_argument);
  if (actions == 0) return fail("subscribe", Status::invalid_argument, "no action to notify");
  if (!callback) return fail("subscribe", Status::invalid_argument, "no callback");
  Encoding enc(pending_);
  Writer out(pending_);
  out.num(OpKind::subscribe);
  out.num(match);
  out.num(actions);
  out.str(segment);
  out.tokens(canonical(tokens));
  subscribing_ = true;
  return record(enc, std::move(callback));
}

Ticket Impl::unsubscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode) {
  const std::uint16_t match = check_query("unsubscribe", segment, tokens, mode);
  if (match == 0) return resolved(Status::invalid_argument);
  Encoding enc(pending_);
  Writer out(pending_);
  out.num(OpKind::unsubscribe);
  out.num(match);
  out.str(segment);
  out.tokens(canonical(tokens));
  return record(enc);
}

Status Impl::sync() {
  if (in_sync_) {
    log("sync", "called from a notification callback");
    return Status::busy;
  }
  // What the last sync left waiting is applied first: at most one sync's
  // operations wait at a time, and their buffer becomes the next one that
  // operations are recorded into. (Left
  // to pile up, ten syncs of 10^5 objects made the gets on the result 5x
  // slower: the store grew while 100 MB of buffers were live.)
  settle();
  MPI_Comm comm = comm_.get();
  // Sizes first, so every rank knows every contribution (and the total) and
  // can size the receive buffer: MPI has no variable-size allgather that
  // discovers sizes itself.
  const std::uint64_t mine = pending_.size();
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size_));
  if (MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm) != MPI_SUCCESS) {
    log("sync", "MPI_Allgather of the operation sizes failed");
    return Status::mpi_error;
  }
  const std::uint64_t total = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});

  std::vector<Event> events;
  if (total > 0) {
    // MPI_Allgatherv takes int counts and displacements. When the padded
    // total does not fit, exchange in units of a contiguous datatype of
    // `unit` bytes (a power of two) and pad each contribution to a whole
    // number of units; the count limit then applies to units, not bytes.
    // At least one unit per rank must fit, or no unit size would do.
    const auto limit = static_cast<std::uint64_t>(std::max(size_, options_.max_exchange_count));
    std::uint64_t unit = 1;
    auto padded = [&](std::uint64_t n) { return (n + unit - 1) / unit * unit; };
    auto units_needed = [&] {
      std::uint64_t u = 0;
      for (auto s : sizes) u += padded(s) / unit;
      return u;
    };
    while (units_needed() > limit) unit *= 2;

    // This rank's operations stay where they were recorded, at the start
    // of pending_, and the others' arrive after them: the receive buffer
    // is the pending buffer grown, so what was recorded is neither copied
    // nor in new memory (a first sync's buffer was otherwise all fresh
    // pages for the kernel to clear while MPI wrote them). Displacements
    // are each rank's own business in MPI_Allgatherv, and MPI_IN_PLACE
    // takes this rank's contribution from its place in the receive buffer.
    std::vector<std::uint64_t> offsets(sizes.size());
    std::vector<int> counts(sizes.size());
    std::vector<int> displs(sizes.size());
    const auto me = static_cast<std::size_t>(rank_);
    offsets[me] = 0;
    std::uint64_t at = padded(mine);
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      if (r != me) {
        offsets[r] = at;
        at += padded(sizes[r]);
      }
      counts[r] = static_cast<int>(padded(sizes[r]) / unit);
      displs[r] = static_cast<int>(offsets[r] / unit);
    }
    pending_.resize_exact(at);
    // The padding after this rank's operations travels too.
    std::memset(pending_.data() + mine, 0, padded(mine) - mine);

    MPI_Datatype type = MPI_BYTE;
    if (unit > 1) {
      MPI_Type_contiguous(static_cast<int>(unit), MPI_BYTE, &type);
      MPI_Type_commit(&type);
    }
    const int rc =
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, pending_.data(), counts.data(), displs.data(), type, comm);
    if (unit > 1) MPI_Type_free(&type);
    if (rc != MPI_SUCCESS) {
      pending_.resize(mine);
      log("sync", "MPI_Allgatherv of the operations failed");
      return Status::mpi_error;
    }
    Batch batch{ByteBuffer(), std::move(sizes), std::move(offsets), std::move(recorded_)};
    batch.buf.swap_storage(pending_);
    pending_.swap_storage(spare_);  // empty if no buffer was kept
    pending_.clear();
    recorded_.clear();
    // Every replica now holds the same operations in the same order, which
    // fixes the state they lead to; applying them (about 100-400 ns per
    // object and replica: dictionary, postings, identity index, a copy,
    // against ~10 ns per object to exchange them) can wait for the first
    // read, so a rank that publishes and goes on computing does not pay
    // for indexing it has not asked for yet. Applied now when this rank
    // has subscriptions (their notifications are delivered in this sync),
    // when replicas are checked, or above 256 MiB.
    const bool eager = options_.check_replicas || !callbacks_.empty() || subscribing_ || at > kMaxBacklog;
    if (eager) {
      apply(batch, events);
    } else {
      backlog_ = std::move(batch);
    }
  }
  pending_.clear();
  recorded_.clear();
  subscribing_ = false;
  if (options_.check_replicas) check_replicas();

  // Deliver after everything is applied, so a callback that reads the
  // registry sees the state of this sync, and may record new operations
  // (they go to the next sync).
  in_sync_ = true;
  for (const Event& ev : events) {
    auto it = callbacks_.find(ev.sub);
    if (it == callbacks_.end()) continue;
    const Notification n{ev.action, ev.segment, ev.tokens, ev.object, ev.issuer};
    try {
      it->second(n);
    } catch (const std::exception& e) {
      // The sync itself has completed on every rank; one failing callback
      // must not stop the others' deliveries.
      log("sync", std::string("notification callback threw: ") + e.what());
    }
  }
  in_sync_ = false;
  return Status::ok;
}

void Impl::apply_backlog() {
  Batch batch = std::move(*backlog_);
  backlog_.reset();
  // No notification can arise: a backlog exists only while this rank has
  // no subscription (sync applies at once otherwise).
  std::vector<Event> events;
  apply(batch, events);
}

void Impl::apply(Batch& batch, std::vector<Event>& events) {
  try {
    apply_ops(batch, events);
  } catch (const std::exception& e) {
    // Our own encoding came back unreadable: the replicas can no longer be
    // trusted, and peers may already have diverged.
    fatal(rank_, "sync", e.what());
  }
  // The batch's buffer is freed with it, or the spare it replaces is.
  if (batch.buf.capacity() <= kKeepRecv && batch.buf.capacity() > spare_.capacity()) spare_.swap_storage(batch.buf);
}

void Impl::apply_ops(Batch& batch, std::vector<Event>& events) {
  const char* all = batch.buf.data();
  const std::vector<std::uint64_t>& sizes = batch.sizes;
  const std::vector<std::uint64_t>& offsets = batch.offsets;
  std::vector<Recorded>& own_records = batch.own;
  // Operations are decoded kAhead ahead of the one being applied. A put's
  // token hashes are computed once, when it is decoded, and the dictionary
  // slots of its tokens and the identity slot of its object (whose hash
  // depends on the token texts only) are fetched into the cache then: on a
  // large replica each probe is a cache miss (100 ns or more), and by the
  // time the put is applied they have arrived.
  // Small replicas and batches stay in the caches: there the look-ahead
  // only costs (about 10-15 ns per operation at 10^3 objects), so they
  // decode and apply one operation at a time.
  constexpr std::size_t kAhead = 16;
  constexpr std::uint64_t kAheadBytes = std::uint64_t{1} << 20;
  const bool prefetch = batch.buf.size() >= kAheadBytes || store_.largest_table() >= Store::kPrefetchMin;
  const std::size_t depth = prefetch ? kAhead : 1;
  std::array<Op, kAhead> ring;
  std::size_t decoded = 0, applied = 0;
  std::size_t r = 0;
  Reader in(all, 0);
  auto decode_ahead = [&] {
    while (decoded - applied < depth) {
      while (in.done() && r < sizes.size()) {
        in = Reader(all + offsets[r], sizes[r]);
        ++r;
      }
      if (in.done()) return;
      Op& op = ring[decoded % kAhead];
      op.issuer = static_cast<int>(r - 1);
      decode(in, op);
      if (op.kind == OpKind::put) {
        op.hashes.resize(op.tokens.size());
        for (std::size_t i = 0; i < op.tokens.size(); ++i) op.hashes[i] = hash_text(op.tokens[i]);
        op.identity = identity_of(op.hashes);
        if (prefetch) store_.prefetch(op.segment, op.hashes, op.identity);
      }
      ++decoded;
    }
  };
  std::size_t seq = 0;  // this rank's operations applied so far
  for (decode_ahead(); applied < decoded; decode_ahead()) {
    Op& op = ring[applied % kAhead];
    const bool own = op.issuer == rank_;
    Status st = Status::ok;
    switch (op.kind) {
      case OpKind::define: st = store_.define_segment(op.segment, std::move(op.writers)); break;
      case OpKind::put:
        st = store_.put(op.issuer, op.segment, op.tokens, op.hashes, op.identity,
                        reinterpret_cast<const std::byte*>(op.data), op.size, op.mode, events);
        break;
      case OpKind::erase: st = store_.erase(op.issuer, op.segment, op.tokens, op.mode, events); break;
      case OpKind::subscribe: {
        SubId id = 0;
        st = store_.subscribe(op.issuer, op.segment, op.tokens, op.mode, op.actions, events, &id);
        if (own && st == Status::ok) callbacks_[id] = std::move(own_records.at(seq).callback);
        break;
      }
      case OpKind::unsubscribe: {
        std::optional<SubId> removed;
        st = store_.unsubscribe(op.issuer, op.segment, op.tokens, op.mode, &removed);
        // Events already raised for it are dropped with the callback: the
        // subscriber asked to stop hearing about this pattern.
        if (own && removed) callbacks_.erase(*removed);
        break;
      }
    }
    if (own) {
      Outcome& o = *own_records.at(seq).outcome;
      o.status = st;
      o.registry = nullptr;
      ++seq;
    }
    ++applied;
  }
}

void Impl::check_replicas() {
  settle();
  // Every replica must hold the same state: compare min and max of the
  // digests in one allreduce (max(d) = ~min(~d)).
  const std::uint64_t d = store_.digest();
  std::uint64_t local[2] = {d, ~d};
  std::uint64_t global[2] = {0, 0};
  if (MPI_Allreduce(local, global, 2, MPI_UINT64_T, MPI_MIN, comm_.get()) != MPI_SUCCESS)
    fatal(rank_, "sync", "MPI_Allreduce of the replica digests failed");
  if (global[0] != ~global[1]) fatal(rank_, "sync", "replicas differ after sync");
}

Result<std::vector<Value>> Impl::get(std::string_view segment, const std::vector<std::string>& tokens,
                                     std::uint16_t mode) {
  const std::uint16_t match = check_query("get", segment, tokens, mode);
  if (match == 0) return Status::invalid_argument;
  settle();
  const Segment* seg = store_.find(segment);
  if (seg == nullptr) {
    log("get", "unknown segment '" + std::string(segment) + "'");
    return Status::not_found;
  }
  // Nodes straight from the posting lists: no lookup per result, and per
  // result only the copies the caller owns (token strings, bytes).
  SmallVec<const ObjectNode*, 32> hits;
  store_.match(*seg, match, tokens, hits);
  std::vector<Value> out(hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const ObjectNode& obj = *hits[i];
    out[i].tokens = Store::tokens_of(obj);
    out[i].object.assign(obj.data, obj.data + obj.size);
  }
  return out;
}

Result<std::vector<std::string>> Impl::index(std::string_view segment) {
  settle();
  const Segment* seg = store_.find(segment);
  if (seg == nullptr) {
    log("index", "unknown segment '" + std::string(segment) + "'");
    return Status::not_found;
  }
  return seg->token_texts();
}

}  // namespace detail

// --- Registry: forwarding to Impl ---

Result<Registry> Registry::create(MPI_Comm comm, const Options& options) {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized == 0 || finalized != 0) {
    std::fprintf(stderr, "[registry] create: error: MPI is not initialized\n");
    return Status::invalid_argument;
  }
  if (comm == MPI_COMM_NULL) {
    std::fprintf(stderr, "[registry] create: error: MPI_COMM_NULL\n");
    return Status::invalid_argument;
  }
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return Status::mpi_error;
  detail::Comm owned(dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  // Under MPICH, a registry whose ranks span hosts arms the workaround of
  // MPICH's finalize hang there (mpifix/ucx_close.cpp).
  if (dart::mpifix::note_comm_placement(dup, dart::mpifix::defaults_enabled()) != MPI_SUCCESS)
    return Status::mpi_error;

  // My world = the members that are also in my MPI_COMM_WORLD; it is named
  // after its lowest rank in `comm`, which every member of it computes alike.
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Comm_group(dup, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<int> in_world(ranks.size());
  MPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  int my_world = rank;
  for (int r = 0; r < size; ++r) {
    if (in_world[static_cast<std::size_t>(r)] != MPI_UNDEFINED) {
      my_world = r;
      break;
    }
  }
  std::vector<int> worlds(static_cast<std::size_t>(size));
  if (MPI_Allgather(&my_world, 1, MPI_INT, worlds.data(), 1, MPI_INT, dup) != MPI_SUCCESS) return Status::mpi_error;
  std::sort(worlds.begin(), worlds.end());
  worlds.erase(std::unique(worlds.begin(), worlds.end()), worlds.end());

  auto impl =
      std::make_unique<detail::Impl>(std::move(owned), rank, size, options, "world." + std::to_string(my_world));
  // Defined directly on every replica (not through a sync): all ranks
  // derive the same list from the allgather above.
  impl->store_.define_segment(universe_segment, {});
  for (int w : worlds) impl->store_.define_segment("world." + std::to_string(w), {});
  return Registry(std::move(impl));
}

Registry::Registry(std::unique_ptr<detail::Impl> impl) : impl_(std::move(impl)) {}
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;
Registry::~Registry() = default;

int Registry::rank() const { return impl_->rank_; }
int Registry::size() const { return impl_->size_; }
const std::string& Registry::world_segment() const { return impl_->world_segment_; }

Ticket Registry::define_segment(std::string_view segment, const std::vector<int>& writers) {
  return impl_->define_segment(segment, writers);
}
Ticket Registry::put(std::string_view segment, const std::vector<std::string>& tokens, Bytes object,
                     std::uint16_t mode) {
  return impl_->put(segment, tokens, object, mode);
}
Ticket Registry::erase(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode) {
  return impl_->erase(segment, tokens, mode);
}
Ticket Registry::subscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode,
                           std::uint16_t actions, Callback callback) {
  return impl_->subscribe(segment, tokens, mode, actions, std::move(callback));
}
Ticket Registry::unsubscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode) {
  return impl_->unsubscribe(segment, tokens, mode);
}
Status Registry::sync() { return impl_->sync(); }
std::size_t Registry::pending() const { return impl_->pending(); }

Result<std::vector<Value>> Registry::get(std::string_view segment, const std::vector<std::string>& tokens,
                                         std::uint16_t mode) const {
  return impl_->get(segment, tokens, mode);
}
Result<std::vector<std::string>> Registry::index(std::string_view segment) const { return impl_->index(segment); }
std::vector<std::string> Registry::index() const {
  impl_->settle();
  return impl_->store_.segment_names();
}
bool Registry::contains_segment(std::string_view segment) const {
  impl_->settle();
  return impl_->store_.find(segment) != nullptr;
}
std::uint64_t Registry::digest() const {
  impl_->settle();
  return impl_->store_.digest();
}

}  // namespace registry
