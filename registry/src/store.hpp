// One replica of the registry: segments, token dictionaries, objects, the
// inverted index and the subscription records. It knows nothing of MPI;
// Impl feeds it operations in the agreed order and every replica that is fed
// the same operations ends in the same state (all iteration that influences
// state or output goes through ordered containers or sorted ids).
#pragma once

#include <registry/registry.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace registry::detail {

using Key = std::uint64_t;    // a token's key within its segment's dictionary
using ObjId = std::uint64_t;  // creation sequence number within a segment
using SubId = std::uint64_t;  // creation sequence number within the store

// The matching mode of a mode mask: exactly one of kAnd/kOr/kXand/kXor
// (none given means kAnd). Returns 0 if more than one is set.
std::uint16_t match_of(std::uint16_t mode);

// Hash of a sorted key vector, for the identity map (object identity is its
// exact token set).
struct KeysHash {
  std::size_t operator()(const std::vector<Key>& keys) const noexcept;
};

struct Object {
  std::vector<Key> keys;  // sorted ascending, unique
  std::vector<std::byte> data;
};

struct Token {
  std::string text;
  // Ids of the objects tagged by this token, ascending. New objects get the
  // largest id so far, so insertion is an append; removal is batched per
  // erase operation (one pass per affected token).
  std::vector<ObjId> postings;
};

struct Subscription {
  int rank = 0;
  std::uint16_t match = kAnd;
  std::uint16_t actions = 0;
  std::vector<std::string> tokens;  // sorted, unique
};

struct Segment {
  std::string name;
  std::vector<int> writers;  // sorted; empty = every rank may write
  Key next_key = 0;
  ObjId next_id = 0;
  // Dictionary. key_of's views point into Token::text of `tokens`, whose
  // nodes never move. A token is dropped when its last object goes; its key
  // is never reused.
  std::unordered_map<std::string_view, Key> key_of;
  std::unordered_map<Key, Token> tokens;
  std::unordered_map<ObjId, Object> objects;
  std::unordered_map<std::vector<Key>, ObjId, KeysHash> by_identity;
  std::map<SubId, Subscription> subs;  // ordered: notification order

  [[nodiscard]] bool may_write(int rank) const;
};

// A notification for a subscription of this rank, with copies of what the
// callback will see (the store may change before it is delivered).
struct Event {
  SubId sub;
  Action action;
  std::string segment;
  std::vector<std::string> tokens;
  std::vector<std::byte> object;
  int issuer;
};

class Store {
 public:
  explicit Store(int my_rank) : my_rank_(my_rank) {}

  // Mutations, applied in the agreed order. `tokens` are sorted and unique
  // (the recording side canonicalises them). Notifications for this rank's
  // subscriptions are appended to `events`.
  Status define_segment(std::string_view name, std::vector<int> writers);
  Status put(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
             const std::byte* data, std::size_t size, std::uint16_t mode,
             std::vector<Event>& events);
  Status erase(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
               std::uint16_t match, std::vector<Event>& events);
  // *id: the subscription's id (new or replaced) on success.
  Status subscribe(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                   std::uint16_t match, std::uint16_t actions, std::vector<Event>& events,
                   SubId* id);
  // *removed: the id of the removed subscription, if any.
  Status unsubscribe(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                     std::uint16_t match, std::optional<SubId>* removed);

  // Reads.
  [[nodiscard]] const Segment* find(std::string_view segment) const;
  // Ids of the objects of `seg` matching the query, ascending.
  template <class Tokens>
  [[nodiscard]] std::vector<ObjId> match(const Segment& seg, std::uint16_t match,
                                         const Tokens& tokens) const;
  [[nodiscard]] std::vector<std::string> tokens_of(const Segment& seg, const Object& obj) const;
  [[nodiscard]] std::vector<std::string> segment_names() const;
  [[nodiscard]] std::uint64_t digest() const;

 private:
  Segment* find_mutable(std::string_view segment);
  // Resolves query tokens to sorted unique keys; *missing counts tokens
  // absent from the dictionary.
  template <class Tokens>
  std::vector<Key> resolve(const Segment& seg, const Tokens& tokens, std::size_t* missing) const;
  bool matches(const Segment& seg, const Subscription& sub, const Object& obj) const;
  void notify(const Segment& seg, Action action, const Object& obj, int issuer,
              std::vector<Event>& events) const;

  int my_rank_;
  SubId next_sub_ = 0;
  std::map<std::string, std::unique_ptr<Segment>, std::less<>> segments_;
};

// Whether an object with sorted keys `obj` matches sorted query keys `q`
// (`missing` query tokens are not in the dictionary at all).
bool keys_match(std::uint16_t match, const std::vector<Key>& q, std::size_t missing,
                const std::vector<Key>& obj);

template <class Tokens>
std::vector<Key> Store::resolve(const Segment& seg, const Tokens& tokens, std::size_t* missing) const {
  std::vector<Key> keys;
  keys.reserve(tokens.size());
  *missing = 0;
  for (const auto& t : tokens) {
    auto it = seg.key_of.find(std::string_view(t));
    if (it == seg.key_of.end()) {
      ++*missing;
    } else {
      keys.push_back(it->second);
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

template <class Tokens>
std::vector<ObjId> Store::match(const Segment& seg, std::uint16_t mode, const Tokens& tokens) const {
  std::size_t missing = 0;
  const std::vector<Key> q = resolve(seg, tokens, &missing);
  std::vector<ObjId> out;
  if (q.empty()) return out;
  switch (mode) {
    case kXand: {
      if (missing != 0) return out;
      auto it = seg.by_identity.find(q);
      if (it != seg.by_identity.end()) out.push_back(it->second);
      return out;
    }
    case kOr:
    case kXor: {
      for (Key k : q) {
        const auto& p = seg.tokens.at(k).postings;
        out.insert(out.end(), p.begin(), p.end());
      }
      if (q.size() > 1) {
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
      }
      if (mode == kXor) {
        // Keep objects carrying no token outside the query.
        out.erase(std::remove_if(out.begin(), out.end(),
                                 [&](ObjId id) {
                                   const auto& ok = seg.objects.at(id).keys;
                                   return !std::includes(q.begin(), q.end(), ok.begin(), ok.end());
                                 }),
                  out.end());
      }
      return out;
    }
    default: {  // kAnd: walk the shortest posting list, check the others
      if (missing != 0) return out;
      const std::vector<ObjId>* shortest = nullptr;
      for (Key k : q) {
        const auto& p = seg.tokens.at(k).postings;
        if (shortest == nullptr || p.size() < shortest->size()) shortest = &p;
      }
      if (q.size() == 1) return *shortest;
      for (ObjId id : *shortest) {
        const auto& ok = seg.objects.at(id).keys;
        if (std::includes(ok.begin(), ok.end(), q.begin(), q.end())) out.push_back(id);
      }
      return out;
    }
  }
}

}  // namespace registry::detail
