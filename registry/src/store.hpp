// One replica of the registry: segments, token dictionaries, objects, the
// inverted index and the subscription records. It knows nothing of MPI;
// Impl feeds it operations in the agreed order and every replica that is fed
// the same operations ends in the same state (all iteration that influences
// state or output goes through ordered containers or creation order).
//
// Layout, chosen for the two hot paths (apply at sync, get):
// - An object is one block in its segment's bump arena: the node, its keys
//   (ascending, for matching and identity), pointers to its tokens (in
//   token-text order, i.e. the order results report them) and its bytes.
//   No per-object heap allocation; objects created together sit together.
// - A token is a node of a per-segment pool (stable address) holding its
//   text and its posting list: pointers to its objects in creation order
//   (small lists stay inside the node).
// - The dictionary (text -> token) and the identity index (token set ->
//   object) are open-addressing tables of node pointers with cached hashes.
// So a get is: one dictionary probe per query token, a walk of a posting
// list and, per result, direct reads of its node — no lookup by id.
// Erased objects and replaced bytes leave dead space in the arena; when it
// outgrows the live data the segment is compacted (amortised O(1)).
#pragma once

#include "containers.hpp"

#include <registry/registry.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace registry::detail {

using Key = std::uint64_t;    // a token's key within its segment's dictionary
using ObjId = std::uint64_t;  // creation sequence number within a segment
using SubId = std::uint64_t;  // creation sequence number within the store

// The matching mode of a mode mask: exactly one of kAnd/kOr/kXand/kXor
// (none given means kAnd). Returns 0 if more than one is set.
std::uint16_t match_of(std::uint16_t mode);

struct ObjectNode;

// Pointers to a token's objects in creation order. Most tokens tag one or
// two objects, which live inline; longer lists go to the heap.
class Postings {
 public:
  Postings() = default;
  Postings(const Postings&) = delete;
  Postings& operator=(const Postings&) = delete;
  ~Postings() {
    if (data_ != inline_) delete[] data_;
  }
  void push_back(ObjectNode* o) {
    if (size_ == cap_) grow();
    data_[size_++] = o;
  }
  template <class Pred>
  void remove_if(Pred p) {
    size_ = static_cast<std::size_t>(std::remove_if(begin(), end(), p) - begin());
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  ObjectNode* const* begin() const { return data_; }
  ObjectNode* const* end() const { return data_ + size_; }
  ObjectNode** begin() { return data_; }
  ObjectNode** end() { return data_ + size_; }

 private:
  void grow() {
    auto* d = new ObjectNode*[cap_ * 2];
    std::copy(data_, data_ + size_, d);
    if (data_ != inline_) delete[] data_;
    data_ = d;
    cap_ *= 2;
  }
  ObjectNode* inline_[2] = {nullptr, nullptr};
  ObjectNode** data_ = inline_;
  std::size_t size_ = 0;
  std::size_t cap_ = 2;
};

struct TokenNode {
  std::string text;
  Key key = 0;
  std::uint64_t hash = 0;  // of text
  bool mark = false;       // scratch flag of erase (dedups touched tokens)
  Postings postings;
};

struct ObjectNode {
  ObjId id;
  std::uint64_t hash;  // identity: identity_of its tokens' text hashes
  std::size_t pos;     // index in Segment::order
  std::uint32_t ntok;
  std::uint32_t size;  // object bytes
  std::uint32_t cap;   // room at data (0 if data lives on the heap)
  bool dead;
  bool heap;          // data was allocated with new[] (large objects)
  std::size_t block;  // arena bytes it keeps live (head, keys, toks, current data room)
  Key* keys;          // ntok, ascending
  TokenNode** toks;   // ntok, by token text
  std::byte* data;
  ObjectNode* moved;  // compaction: the copy in the new arena

  [[nodiscard]] const Key* keys_begin() const { return keys; }
  [[nodiscard]] const Key* keys_end() const { return keys + ntok; }
};

std::uint64_t hash_text(std::string_view s);
// An object's identity hash, from its tokens' text hashes in any order. It
// depends on the texts only, not on the keys a replica gives them, so the
// slot of the object a put would find or create is known as soon as the
// put is decoded, before any dictionary lookup.
class IdentityHash {
 public:
  void add(std::uint64_t text_hash) {
    // A sum of mixed hashes: order-independent, and distinct token sets
    // collide no more than random 64-bit values do.
    sum_ += mix(text_hash ^ 0x9e3779b97f4a7c15ULL);
    ++n_;
  }
  [[nodiscard]] std::uint64_t value() const { return mix(sum_ + n_); }
  static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
  }

 private:
  std::uint64_t sum_ = 0;
  std::uint64_t n_ = 0;
};
template <class Hashes>
std::uint64_t identity_of(const Hashes& text_hashes) {
  IdentityHash h;
  for (std::uint64_t t : text_hashes) h.add(t);
  return h.value();
}

struct Subscription {
  int rank = 0;
  std::uint16_t match = kAnd;
  std::uint16_t actions = 0;
  std::vector<std::string> tokens;  // sorted, unique
};

struct Segment {
  Segment() = default;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  std::string name;
  std::vector<int> writers;  // sorted; empty = every rank may write
  Key next_key = 0;
  ObjId next_id = 0;
  // Dictionary: a token leaves it (and its node is recycled) when its last
  // object goes; its key is never reused.
  NodeTable<TokenNode> dict;
  NodeTable<ObjectNode> identity;
  // Live objects in creation order (nullptr where one was erased).
  std::vector<ObjectNode*> order;
  std::size_t live = 0;
  std::size_t heap_objects = 0;  // live objects whose bytes are on the heap
  std::size_t live_bytes = 0;    // arena bytes of live blocks
  std::size_t dead_bytes = 0;    // arena bytes no longer referenced
  Arena arena;
  std::vector<std::unique_ptr<TokenNode[]>> token_chunks;
  std::vector<TokenNode*> free_tokens;
  std::map<SubId, Subscription> subs;  // ordered: notification order

  [[nodiscard]] bool may_write(int rank) const;
  [[nodiscard]] const TokenNode* token(std::string_view text, std::uint64_t h) const {
    return dict.find(h, [&](const TokenNode& t) { return t.text == text; });
  }
  TokenNode* new_token(std::string_view text, std::uint64_t h);
  void drop_token(TokenNode* t);
  // `hash`: the identity hash of the tokens (identity_of their text hashes).
  ObjectNode* new_object(TokenNode* const* toks, std::uint32_t ntok, std::uint64_t hash, const std::byte* data,
                         std::size_t size);
  void set_data(ObjectNode* o, const std::byte* data, std::size_t size);
  void compact();
  [[nodiscard]] std::vector<std::string> token_texts() const;
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

// Query tokens resolved against a dictionary: their nodes sorted by key
// (unique), and how many were not in the dictionary at all.
struct Query {
  SmallVec<const TokenNode*, 8> toks;
  SmallVec<Key, 8> keys;
  std::size_t missing = 0;
};

class Store {
 public:
  explicit Store(int my_rank) : my_rank_(my_rank) {}

  // Mutations, applied in the agreed order. `tokens` are sorted and unique
  // (the recording side canonicalises them). Notifications for this rank's
  // subscriptions are appended to `events`.
  Status define_segment(std::string_view name, std::vector<int> writers);
  // `hashes[i]` is hash_text(tokens[i]), `identity` identity_of(hashes).
  Status put(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
             const std::vector<std::uint64_t>& hashes, std::uint64_t identity, const std::byte* data, std::size_t size,
             std::uint16_t mode, std::vector<Event>& events);
  Status erase(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens, std::uint16_t match,
               std::vector<Event>& events);
  // *id: the subscription's id (new or replaced) on success.
  Status subscribe(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                   std::uint16_t match, std::uint16_t actions, std::vector<Event>& events, SubId* id);
  // *removed: the id of the removed subscription, if any.
  Status unsubscribe(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                     std::uint16_t match, std::optional<SubId>* removed);

  // Tables of fewer nodes than this (16 B a slot: 512 KiB of table) stay
  // in the caches, and prefetching their slots only costs a hash.
  static constexpr std::size_t kPrefetchMin = std::size_t{1} << 15;
  [[nodiscard]] std::size_t largest_table() const;
  // A hint that a put of tokens with these text hashes to `segment`
  // follows soon: starts fetching the dictionary slots they hash to and
  // the identity slot of the object the put finds or creates.
  void prefetch(std::string_view segment, const std::vector<std::uint64_t>& hashes, std::uint64_t identity) const;

  // Reads.
  [[nodiscard]] const Segment* find(std::string_view segment) const;
  // The objects of `seg` matching the query, in creation order, appended
  // to `out`.
  template <class Tokens, class Out>
  void match(const Segment& seg, std::uint16_t match, const Tokens& tokens, Out& out) const;
  // An object's tokens, sorted (as results and notifications report them).
  [[nodiscard]] static std::vector<std::string> tokens_of(const ObjectNode& obj);
  [[nodiscard]] std::vector<std::string> segment_names() const;
  [[nodiscard]] std::uint64_t digest() const;

 private:
  Segment* find_mutable(std::string_view segment);
  // The segment, from the one-entry cache of the last mutation when it is
  // that one (segments are never removed, so the pointer stays valid).
  [[nodiscard]] Segment* lookup(std::string_view segment) const;
  template <class Tokens>
  static void resolve(const Segment& seg, const Tokens& tokens, Query& q);
  static bool matches(const Segment& seg, const Subscription& sub, const ObjectNode& obj);
  void notify(const Segment& seg, Action action, const ObjectNode& obj, int issuer, std::vector<Event>& events) const;

  int my_rank_;
  SubId next_sub_ = 0;
  std::map<std::string, std::unique_ptr<Segment>, std::less<>> segments_;
  Segment* last_ = nullptr;  // the segment of the last mutation (apply runs in batches)
};

// Whether an object with sorted keys [ob, oe) matches the sorted query keys
// [qb, qe) (`missing` query tokens are not in the dictionary at all).
bool keys_match(std::uint16_t match, const Key* qb, const Key* qe, std::size_t missing, const Key* ob, const Key* oe);

template <class Tokens>
void Store::resolve(const Segment& seg, const Tokens& tokens, Query& q) {
  for (const auto& t : tokens) {
    const std::string_view s(t);
    const TokenNode* n = seg.token(s, hash_text(s));
    if (n == nullptr) {
      ++q.missing;
    } else {
      q.toks.push_back(n);
    }
  }
  std::sort(q.toks.begin(), q.toks.end(), [](const TokenNode* a, const TokenNode* b) { return a->key < b->key; });
  q.toks.erase(std::unique(q.toks.begin(), q.toks.end()), q.toks.end());
  q.keys.resize(q.toks.size());
  for (std::size_t i = 0; i < q.toks.size(); ++i) q.keys[i] = q.toks[i]->key;
}

template <class Tokens, class Out>
void Store::match(const Segment& seg, std::uint16_t mode, const Tokens& tokens, Out& out) const {
  Query q;
  resolve(seg, tokens, q);
  if (q.toks.empty()) return;
  const Key* qb = q.keys.begin();
  const Key* qe = q.keys.end();
  switch (mode) {
    case kXand: {
      if (q.missing != 0) return;
      const std::size_t n = q.keys.size();
      IdentityHash h;
      for (const TokenNode* t : q.toks) h.add(t->hash);
      ObjectNode* o = seg.identity.find(h.value(),
                                        [&](const ObjectNode& c) { return c.ntok == n && std::equal(qb, qe, c.keys); });
      if (o != nullptr) out.push_back(o);
      return;
    }
    case kOr:
    case kXor: {
      const std::size_t first = out.size();
      for (const TokenNode* t : q.toks) {
        for (ObjectNode* o : t->postings) {
          if (mode == kXor && !std::includes(qb, qe, o->keys_begin(), o->keys_end())) continue;
          out.push_back(o);
        }
      }
      if (q.toks.size() > 1) {
        auto b = out.begin() + static_cast<std::ptrdiff_t>(first);
        std::sort(b, out.end(), [](const ObjectNode* a, const ObjectNode* c) { return a->id < c->id; });
        out.erase(std::unique(b, out.end()), out.end());
      }
      return;
    }
    default: {  // kAnd: walk the shortest posting list, check the others
      if (q.missing != 0) return;
      const Postings* shortest = nullptr;
      for (const TokenNode* t : q.toks)
        if (shortest == nullptr || t->postings.size() < shortest->size()) shortest = &t->postings;
      if (q.toks.size() == 1) {
        for (ObjectNode* o : *shortest) out.push_back(o);
        return;
      }
      for (ObjectNode* o : *shortest)
        if (std::includes(o->keys_begin(), o->keys_end(), qb, qe)) out.push_back(o);
      return;
    }
  }
}

}  // namespace registry::detail
