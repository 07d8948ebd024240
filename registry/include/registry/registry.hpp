// The replicated general purpose registry: C++ API.
//
// A registry holds named segments; a segment holds objects (opaque byte
// buffers, copied in) tagged by one or more tokens. Every rank of the
// communicator a registry is created on holds a full replica.
//
// Consistency model (read this first):
// - Mutations (define_segment, put, erase, subscribe, unsubscribe) are only
//   *recorded* by the calling rank and return a Ticket at once. They take
//   effect at the next sync(), a collective that exchanges every rank's
//   recorded operations and applies all of them on every replica in one
//   order: by rank, then by the order each rank issued them. Each operation's
//   outcome is decided by that order and readable from its Ticket afterwards.
// - Reads (get, index, contains_segment, digest) are local and never
//   communicate. They see the state of the last sync only: a rank does NOT
//   see its own recorded writes before sync. (Seeing them would make a read's
//   answer depend on operations whose outcome is not decided yet, e.g. a put
//   that a lower rank's put in the same sync will make fail.)
// - After sync() returns, all replicas hold the same operations in the same
//   order, so every read on every rank sees the same state. A rank applies
//   them to its replica at its first read after the sync (a ticket's
//   status() counts), or within sync() when it has subscriptions; reads
//   cannot tell the difference.
// - Notifications (subscribe) are delivered on the subscribing rank inside
//   sync(), after every operation of that sync is applied, in apply order.
//
// Thread safety: a Registry is not thread-safe; use it from one thread at a
// time. Collective calls (create, sync, destruction) must be entered by
// every rank of the communicator in the same order, like MPI collectives.
//
// Input is validated when an operation is recorded (empty names, empty
// tokens, empty token lists, bad mode bits, too large objects): such an
// operation is never recorded, its Ticket is resolved at once with the error
// and one line is logged on stderr. Errors that depend on the replicated
// state (unknown segment, existing object, denied write) are decided at sync.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#define REGISTRY_API __attribute__((visibility("default")))

namespace registry {

// Mode bits of put/get/erase/subscribe/unsubscribe; the values are the
// seed's. OVERWRITE concerns put only; the four matching modes concern the
// searching calls, at most one of them at a time (none means AND).
enum Mode : std::uint16_t {
  kOverwrite = 0x0001,  // put may replace an object with the identical token set
  kAnd = 0x0002,        // object carries every query token (and maybe others)
  kOr = 0x0004,         // object carries at least one query token
  kXand = 0x0008,       // object's token set equals the query's exactly
  kXor = 0x0010,        // object carries at least one query token and no other
};

// Notification actions (bit mask); values are the seed's.
enum Action : std::uint16_t {
  kModification = 0x0001,   // a matching object was put (created or replaced)
  kAddSubscriber = 0x0002,  // another subscription now shares a matching object
  kDelete = 0x0004,         // a matching object was deleted
  kAll = 0xffff,
};

enum class Status : int {
  ok = 0,
  pending,           // recorded, the next sync decides its outcome
  invalid_argument,  // malformed input; nothing was recorded
  not_found,         // unknown segment, or erase matched nothing
  exists,            // segment exists, or put without OVERWRITE onto an existing object
  denied,            // write to a segment restricted to other ranks
  too_large,         // object or op above the limits (see max_object_size)
  busy,              // sync() called from inside a notification callback
  mpi_error,         // an MPI call failed
};

// A short English description of a status ("ok", "unknown segment", ...).
REGISTRY_API const char* to_string(Status s) noexcept;

// Objects are limited to INT_MAX bytes (2 GiB - 1): every replica holds a
// copy, and larger objects are refused with Status::too_large.
inline constexpr std::size_t max_object_size = 0x7fffffff;

// The segments that exist from the start.
inline constexpr std::string_view universe_segment = "universe";

// A read-only view of bytes (the role std::span<const std::byte> plays in
// C++20): an object passed to put.
struct Bytes {
  const void* data = nullptr;
  std::size_t size = 0;
  Bytes() = default;
  Bytes(const void* d, std::size_t n) : data(d), size(n) {}
  Bytes(std::string_view s) : data(s.data()), size(s.size()) {}  // NOLINT: implicit on purpose
  template <class T>
  Bytes(const std::vector<T>& v) : data(v.data()), size(v.size() * sizeof(T)) {}  // NOLINT
};

// An object returned by get: copies the caller owns.
struct Value {
  std::vector<std::string> tokens;  // the object's token set, sorted
  std::vector<std::byte> object;
  [[nodiscard]] std::string_view as_string() const {
    return {reinterpret_cast<const char*>(object.data()), object.size()};
  }
};

// What a subscription callback receives. The references are valid for the
// duration of the callback only.
struct Notification {
  Action action;
  const std::string& segment;
  // MODIFICATION/DELETE: the object's tokens (sorted); ADD_SUBSCRIBER: the
  // tokens of the new subscription.
  const std::vector<std::string>& tokens;
  // MODIFICATION: the new content; DELETE: the content that was removed;
  // ADD_SUBSCRIBER: empty.
  const std::vector<std::byte>& object;
  int issuer;  // rank whose operation caused the notification
  [[nodiscard]] std::string_view object_string() const {
    return {reinterpret_cast<const char*>(object.data()), object.size()};
  }
};
using Callback = std::function<void(const Notification&)>;

// A status result with a value (an expected-like type).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(Status s) : status_(s) {}                            // NOLINT: implicit from an error status
  Result(T v) : status_(Status::ok), value_(std::move(v)) {}  // NOLINT
  [[nodiscard]] bool ok() const { return status_ == Status::ok; }
  [[nodiscard]] Status status() const { return status_; }
  explicit operator bool() const { return ok(); }
  // Precondition: ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace detail {
struct Outcome;
class Impl;
}  // namespace detail

// The outcome of a recorded operation: Status::pending until the sync that
// applies it, then its final status. Cheap to copy; outlives the registry.
class REGISTRY_API Ticket {
 public:
  Ticket() = default;
  [[nodiscard]] Status status() const;
  [[nodiscard]] bool ready() const { return status() != Status::pending; }

 private:
  friend class detail::Impl;
  explicit Ticket(std::shared_ptr<detail::Outcome> o) : outcome_(std::move(o)) {}
  std::shared_ptr<detail::Outcome> outcome_;
};

struct Options {
  // Log one line on stderr for every rejected input.
  bool log_errors = true;
  // After every sync, compare the replicas' digests (an allreduce of min and
  // max) and abort on a mismatch. Costs a pass over the whole replica; the
  // tests turn it on.
  bool check_replicas = false;
  // Largest count one MPI_Allgatherv call may carry. Above it the exchange
  // switches to a larger MPI datatype unit (see sync). Only tests lower it,
  // to exercise that path without moving 2 GiB.
  int max_exchange_count = 0x7fffffff;
};

class REGISTRY_API Registry {
 public:
  // Collective over `comm`: duplicates it for the registry's own traffic and
  // creates the segments "universe" and one per MPI world among the members,
  // named "world.<r>" where r is the lowest rank in `comm` of that world's
  // processes (so "world.0" for a registry on MPI_COMM_WORLD).
  static Result<Registry> create(MPI_Comm comm, const Options& options = {});

  Registry(Registry&&) noexcept;
  Registry& operator=(Registry&&) noexcept;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;
  // Collective: frees the private communicator (skipped if MPI is already
  // finalized). Recorded operations that never reached a sync are dropped
  // and their tickets stay pending.
  ~Registry();

  [[nodiscard]] int rank() const;
  [[nodiscard]] int size() const;
  // The name of this rank's world segment.
  [[nodiscard]] const std::string& world_segment() const;

  // --- Mutations: recorded now, applied at the next sync ---

  // Define a segment. `writers` empty: every rank may put/erase; otherwise
  // only the listed ranks (of the registry's communicator) may, e.g.
  // {reg.rank()} for an owner-only segment. Fails with exists if the
  // segment exists (or an earlier operation of the same sync defined it).
  Ticket define_segment(std::string_view segment, const std::vector<int>& writers = {});

  // Store a copy of `object` tagged by `tokens` (a set: order and
  // duplicates do not matter; at least one, none empty). An object with the
  // identical token set is replaced with kOverwrite in `mode`, otherwise the
  // put fails with exists.
  Ticket put(std::string_view segment, const std::vector<std::string>& tokens, Bytes object, std::uint16_t mode = 0);

  // Delete every object matching `tokens` under `mode`'s matching mode.
  // not_found if nothing matched.
  Ticket erase(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode = kAnd);

  // Register `callback` on this rank for `actions` (bit mask of Action) on
  // objects of `segment` matching `tokens` under `mode`. A subscription is
  // identified by (rank, segment, matching mode, token set); subscribing
  // again with the same identity replaces its actions and callback. The
  // pattern may match objects that do not exist yet.
  Ticket subscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode,
                   std::uint16_t actions, Callback callback);

  // Cancel this rank's subscription with that identity. Succeeds if there
  // was none; not_found only for an unknown segment.
  Ticket unsubscribe(std::string_view segment, const std::vector<std::string>& tokens, std::uint16_t mode = kAnd);

  // Collective: exchange every rank's recorded operations (applied on this
  // replica now if this rank has subscriptions, else at its first read),
  // then deliver this rank's notifications. Returns ok, busy (called from a
  // callback; nothing happens) or mpi_error.
  Status sync();

  // Number of operations this rank has recorded since the last sync.
  [[nodiscard]] std::size_t pending() const;

  // --- Reads: local, the state of the last sync ---

  // Copies of every object of `segment` matching `tokens` under `mode`,
  // in the order the objects were first created. Cost: proportional to the
  // posting lists of the query tokens (AND: the shortest one), not to the
  // segment's size.
  [[nodiscard]] Result<std::vector<Value>> get(std::string_view segment, const std::vector<std::string>& tokens,
                                               std::uint16_t mode = kAnd) const;

  // The tokens of `segment` (those tagging at least one object), sorted.
  [[nodiscard]] Result<std::vector<std::string>> index(std::string_view segment) const;
  // All segment names, sorted (the seed's index with no segment).
  [[nodiscard]] std::vector<std::string> index() const;

  [[nodiscard]] bool contains_segment(std::string_view segment) const;
  // A 64-bit digest of the whole replica (segments, writers, objects in
  // creation order, subscriptions), equal on all ranks after a sync.
  [[nodiscard]] std::uint64_t digest() const;

 private:
  explicit Registry(std::unique_ptr<detail::Impl> impl);
  std::unique_ptr<detail::Impl> impl_;
};

}  // namespace registry
