#include "store.hpp"

#include <cstdlib>
#include <functional>
#include <new>

#include <sys/mman.h>

namespace registry::detail {

namespace {

// Objects above this many bytes get their own heap block instead of a
// place in the arena, so one big object does not inflate a chunk.
constexpr std::size_t kArenaDataMax = 64 * 1024;
// Compaction starts once this many arena bytes are dead (and outnumber the
// live ones).
constexpr std::size_t kCompactMin = 64 * 1024;

void sort_keys(Key* b, Key* e) {
  // Token sets are small: insertion sort beats std::sort's set-up.
  for (Key* i = b + (b != e ? 1 : 0); i < e; ++i) {
    const Key v = *i;
    Key* j = i;
    for (; j > b && *(j - 1) > v; --j) *j = *(j - 1);
    *j = v;
  }
}

// An object block in `arena` (node, keys, token pointers and, unless
// `heap`, room for `size` bytes), with its pointers set; a `heap` object's
// data pointer is left null.
ObjectNode* place(Arena& arena, std::uint32_t ntok, std::size_t size, bool heap) {
  const std::size_t head = sizeof(ObjectNode) + ntok * (sizeof(Key) + sizeof(TokenNode*));
  const std::size_t room = heap ? 0 : (size + 7) & ~std::size_t{7};
  auto* o = new (arena.alloc(head + room)) ObjectNode{};
  o->ntok = ntok;
  o->keys = reinterpret_cast<Key*>(o + 1);
  o->toks = reinterpret_cast<TokenNode**>(o->keys + ntok);
  o->block = head + room;
  o->heap = heap;
  if (heap) {
    o->data = nullptr;  // the caller allocates or hands over the bytes
    o->cap = 0;
  } else {
    o->data = reinterpret_cast<std::byte*>(o->toks + ntok);
    o->cap = static_cast<std::uint32_t>(room);
  }
  o->size = static_cast<std::uint32_t>(size);
  return o;
}

}  // namespace

std::uint16_t match_of(std::uint16_t mode) {
  const std::uint16_t m = mode & (kAnd | kOr | kXand | kXor);
  if (m == 0) return kAnd;
  // More than one matching bit is ambiguous; the caller rejects it.
  if ((m & (m - 1)) != 0) return 0;
  return m;
}

std::uint64_t hash_text(std::string_view s) { return std::hash<std::string_view>{}(s); }

Segment::~Segment() {
  if (heap_objects == 0) return;
  for (ObjectNode* o : order)
    if (o != nullptr && o->heap) delete[] o->data;
}

bool Segment::may_write(int rank) const {
  return writers.empty() || std::binary_search(writers.begin(), writers.end(), rank);
}

TokenNode* Segment::new_token(std::string_view text, std::uint64_t h) {
  if (free_tokens.empty()) {
    // 16, 32, ... nodes per chunk, at most 1024.
    const std::size_t n = std::size_t{16} << std::min<std::size_t>(token_chunks.size(), 6);
    token_chunks.emplace_back(new TokenNode[n]);
    TokenNode* c = token_chunks.back().get();
    for (std::size_t i = n; i-- > 0;) free_tokens.push_back(c + i);
  }
  TokenNode* t = free_tokens.back();
  free_tokens.pop_back();
  t->text.assign(text.data(), text.size());
  t->key = next_key++;
  t->hash = h;
  dict.insert(h, t);
  return t;
}

void Segment::drop_token(TokenNode* t) {
  dict.erase(t->hash, t);
  free_tokens.push_back(t);
}

ObjectNode* Segment::new_object(TokenNode* const* toks, std::uint32_t ntok, std::uint64_t hash, const std::byte* data,
                                std::size_t size) {
  ObjectNode* o = place(arena, ntok, size, size > kArenaDataMax);
  if (o->heap) {
    o->data = new std::byte[size];
    ++heap_objects;
  }
  for (std::uint32_t i = 0; i < ntok; ++i) {
    o->toks[i] = toks[i];
    o->keys[i] = toks[i]->key;
  }
  sort_keys(o->keys, o->keys + ntok);
  o->hash = hash;
  if (size != 0) std::memcpy(o->data, data, size);
  o->id = next_id++;
  o->pos = order.size();
  order.push_back(o);
  ++live;
  live_bytes += o->block;
  for (std::uint32_t i = 0; i < ntok; ++i) toks[i]->postings.push_back(o);
  identity.insert(o->hash, o);
  return o;
}

void Segment::set_data(ObjectNode* o, const std::byte* data, std::size_t size) {
  if (!o->heap && size <= o->cap) {
    if (size != 0) std::memcpy(o->data, data, size);
    o->size = static_cast<std::uint32_t>(size);
    return;
  }
  // Does not fit: the old room (if in the arena) is dead from now on.
  if (o->heap) {
    delete[] o->data;
    --heap_objects;
  } else {
    o->block -= o->cap;
    live_bytes -= o->cap;
    dead_bytes += o->cap;
  }
  o->heap = size > kArenaDataMax;
  if (o->heap) {
    o->data = new std::byte[size];
    o->cap = 0;
    ++heap_objects;
  } else {
    const std::size_t room = (size + 7) & ~std::size_t{7};
    o->data = static_cast<std::byte*>(arena.alloc(room));
    o->cap = static_cast<std::uint32_t>(room);
    o->block += o->cap;
    live_bytes += o->cap;
  }
  std::memcpy(o->data, data, size);
  o->size = static_cast<std::uint32_t>(size);
}

void Segment::compact() {
  Arena fresh;
  std::vector<ObjectNode*> kept;
  kept.reserve(live);
  std::size_t bytes = 0;
  for (ObjectNode* o : order) {
    if (o == nullptr) continue;
    ObjectNode* n = place(fresh, o->ntok, o->heap ? 0 : o->size, o->heap);
    n->id = o->id;
    n->hash = o->hash;
    n->pos = kept.size();
    std::copy(o->keys, o->keys + o->ntok, n->keys);
    std::copy(o->toks, o->toks + o->ntok, n->toks);
    if (o->heap) {
      n->data = o->data;  // hand over the heap block
      n->size = o->size;
    } else if (o->size != 0) {
      std::memcpy(n->data, o->data, o->size);
    }
    o->moved = n;
    kept.push_back(n);
    bytes += n->block;
  }
  dict.for_each([](TokenNode& t) {
    for (ObjectNode*& p : t.postings) p = p->moved;
  });
  identity.remap([](ObjectNode* o) { return o->moved; });
  order.swap(kept);
  arena = std::move(fresh);
  live_bytes = bytes;
  dead_bytes = 0;
}

std::vector<std::string> Segment::token_texts() const {
  std::vector<std::string> out;
  out.reserve(dict.size());
  dict.for_each([&](const TokenNode& t) { out.push_back(t.text); });
  std::sort(out.begin(), out.end());
  return out;
}

bool keys_match(std::uint16_t match, const Key* qb, const Key* qe, std::size_t missing, const Key* ob, const Key* oe) {
  auto intersects = [&] {
    const Key* a = qb;
    const Key* b = ob;
    while (a != qe && b != oe) {
      if (*a == *b) return true;
      if (*a < *b) ++a;
      else ++b;
    }
    return false;
  };
  switch (match) {
    case kXand: return missing == 0 && std::equal(qb, qe, ob, oe);
    case kOr: return intersects();
    case kXor: return intersects() && std::includes(qb, qe, ob, oe);
    default: return missing == 0 && qb != qe && std::includes(ob, oe, qb, qe);
  }
}

Segment* Store::lookup(std::string_view segment) const {
  if (last_ != nullptr && last_->name == segment) return last_;
  auto it = segments_.find(segment);
  return it == segments_.end() ? nullptr : it->second.get();
}

Segment* Store::find_mutable(std::string_view segment) {
  Segment* seg = lookup(segment);
  if (seg != nullptr) last_ = seg;
  return seg;
}

std::size_t Store::largest_table() const {
  std::size_t n = 0;
  for (const auto& [name, seg] : segments_) n = std::max({n, seg->dict.size(), seg->identity.size()});
  return n;
}

void Store::prefetch(std::string_view segment, const std::vector<std::uint64_t>& hashes,
                     std::uint64_t identity) const {
  const Segment* seg = lookup(segment);
  if (seg == nullptr) return;
  // Tables that fit in the caches gain nothing from it.
  if (seg->dict.size() >= kPrefetchMin)
    for (std::uint64_t h : hashes) seg->dict.prefetch(h);
  if (seg->identity.size() >= kPrefetchMin) seg->identity.prefetch(identity);
}

const Segment* Store::find(std::string_view segment) const { return lookup(segment); }

Status Store::define_segment(std::string_view name, std::vector<int> writers) {
  if (find(name) != nullptr) return Status::exists;
  auto seg = std::make_unique<Segment>();
  seg->name = std::string(name);
  seg->writers = std::move(writers);
  segments_.emplace(seg->name, std::move(seg));
  return Status::ok;
}

std::vector<std::string> Store::tokens_of(const ObjectNode& obj) {
  // toks are kept in token-text order, the order results report.
  std::vector<std::string> out;
  out.reserve(obj.ntok);
  for (std::uint32_t i = 0; i < obj.ntok; ++i) out.push_back(obj.toks[i]->text);
  return out;
}

bool Store::matches(const Segment& seg, const Subscription& sub, const ObjectNode& obj) {
  Query q;
  resolve(seg, sub.tokens, q);
  return keys_match(sub.match, q.keys.begin(), q.keys.end(), q.missing, obj.keys_begin(), obj.keys_end());
}

// Only this rank's subscriptions produce events: the others' callbacks live
// on their ranks, and the replicated state does not depend on events.
void Store::notify(const Segment& seg, Action action, const ObjectNode& obj, int issuer,
                   std::vector<Event>& events) const {
  for (const auto& [id, sub] : seg.subs) {
    if (sub.rank != my_rank_ || (sub.actions & action) == 0) continue;
    if (!matches(seg, sub, obj)) continue;
    events.push_back(
        Event{id, action, seg.name, tokens_of(obj), std::vector<std::byte>(obj.data, obj.data + obj.size), issuer});
  }
}

Status Store::put(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                  const std::vector<std::uint64_t>& hashes, std::uint64_t identity, const std::byte* data,
                  std::size_t size,
                  std::uint16_t mode, std::vector<Event>& events) {
  Segment* seg = find_mutable(segment);
  if (seg == nullptr) return Status::not_found;
  if (!seg->may_write(issuer)) return Status::denied;

  const auto n = static_cast<std::uint32_t>(tokens.size());
  SmallVec<TokenNode*, 8> toks;
  toks.resize(n);
  std::size_t missing = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string_view t = tokens[i];
    toks[i] = seg->dict.find(hashes[i], [&](const TokenNode& c) { return c.text == t; });
    if (toks[i] == nullptr) ++missing;
  }
  if (missing == 0) {
    // Every token is known: the object may exist already. Its tokens are
    // in text order, like `tokens`, so equal token sets have equal nodes
    // position by position.
    ObjectNode* obj = seg->identity.find(
        identity, [&](const ObjectNode& c) { return c.ntok == n && std::equal(toks.begin(), toks.end(), c.toks); });
    if (obj != nullptr) {
      if ((mode & kOverwrite) == 0) return Status::exists;
      seg->set_data(obj, data, size);
      notify(*seg, kModification, *obj, issuer, events);
      if (seg->dead_bytes > kCompactMin && seg->dead_bytes > seg->live_bytes) seg->compact();
      return Status::ok;
    }
  } else {
    // A new object with tokens new to the dictionary: give them keys (in
    // token order, like every replica).
    for (std::uint32_t i = 0; i < n; ++i)
      if (toks[i] == nullptr) toks[i] = seg->new_token(tokens[i], hashes[i]);
  }
  const ObjectNode* obj = seg->new_object(toks.data(), n, identity, data, size);
  if (!seg->subs.empty()) notify(*seg, kModification, *obj, issuer, events);
  return Status::ok;
}

Status Store::erase(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                    std::uint16_t match_mode, std::vector<Event>& events) {
  Segment* seg = find_mutable(segment);
  if (seg == nullptr) return Status::not_found;
  if (!seg->may_write(issuer)) return Status::denied;
  SmallVec<ObjectNode*, 16> hits;
  match(*seg, match_mode, tokens, hits);
  if (hits.empty()) return Status::not_found;

  for (ObjectNode* o : hits) notify(*seg, kDelete, *o, issuer, events);
  SmallVec<TokenNode*, 16> touched;
  for (ObjectNode* o : hits) {
    o->dead = true;
    for (std::uint32_t i = 0; i < o->ntok; ++i) {
      TokenNode* t = o->toks[i];
      if (!t->mark) {
        t->mark = true;
        touched.push_back(t);
      }
    }
  }
  // One pass per touched posting list, however many objects go.
  for (TokenNode* t : touched) {
    t->mark = false;
    t->postings.remove_if([](const ObjectNode* o) { return o->dead; });
    if (t->postings.empty()) seg->drop_token(t);
  }
  for (ObjectNode* o : hits) {
    seg->identity.erase(o->hash, o);
    seg->order[o->pos] = nullptr;
    --seg->live;
    seg->live_bytes -= o->block;
    seg->dead_bytes += o->block;
    if (o->heap) {
      delete[] o->data;
      --seg->heap_objects;
    }
  }
  if (seg->dead_bytes > kCompactMin && seg->dead_bytes > seg->live_bytes) seg->compact();
  return Status::ok;
}

Status Store::subscribe(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                        std::uint16_t match_mode, std::uint16_t actions, std::vector<Event>& events, SubId* id) {
  Segment* seg = find_mutable(segment);
  if (seg == nullptr) return Status::not_found;
  std::vector<std::string> toks(tokens.begin(), tokens.end());
  for (auto& [sid, sub] : seg->subs) {
    if (sub.rank == issuer && sub.match == match_mode && sub.tokens == toks) {
      sub.actions = actions;
      *id = sid;
      return Status::ok;
    }
  }
  const SubId new_id = next_sub_++;
  *id = new_id;
  const Subscription& added =
      seg->subs.emplace(new_id, Subscription{issuer, match_mode, actions, std::move(toks)}).first->second;

  // ADD_SUBSCRIBER: tell this rank's other subscriptions that share an
  // object with the new one (a subscriber of another rank).
  std::vector<const ObjectNode*> shared;
  bool computed = false;
  for (const auto& [sid, sub] : seg->subs) {
    if (sid == new_id || sub.rank != my_rank_ || sub.rank == issuer || (sub.actions & kAddSubscriber) == 0) continue;
    if (!computed) {
      match(*seg, match_mode, added.tokens, shared);
      computed = true;
    }
    for (const ObjectNode* o : shared) {
      if (matches(*seg, sub, *o)) {
        events.push_back(Event{sid, kAddSubscriber, seg->name, added.tokens, {}, issuer});
        break;
      }
    }
  }
  return Status::ok;
}

Status Store::unsubscribe(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                          std::uint16_t match_mode, std::optional<SubId>* removed) {
  Segment* seg = find_mutable(segment);
  if (seg == nullptr) return Status::not_found;
  for (auto it = seg->subs.begin(); it != seg->subs.end(); ++it) {
    const Subscription& sub = it->second;
    if (sub.rank == issuer && sub.match == match_mode &&
        std::equal(sub.tokens.begin(), sub.tokens.end(), tokens.begin(), tokens.end())) {
      *removed = it->first;
      seg->subs.erase(it);
      break;
    }
  }
  return Status::ok;
}

std::vector<std::string> Store::segment_names() const {
  std::vector<std::string> out;
  out.reserve(segments_.size());
  for (const auto& [name, seg] : segments_) out.push_back(name);
  return out;
}

namespace {

// FNV-1a over a canonical byte sequence: simple, stable across runs and
// processes (unlike std::hash, which need not be).
class Digest {
 public:
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h_ = (h_ ^ b[i]) * 0x100000001b3ULL;
  }
  void u64(std::uint64_t v) { bytes(&v, sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace

std::uint64_t Store::digest() const {
  Digest d;
  for (const auto& [name, seg] : segments_) {
    d.str(name);
    d.u64(seg->writers.size());
    for (int w : seg->writers) d.u64(static_cast<std::uint64_t>(w));
    d.u64(seg->live);
    for (const ObjectNode* obj : seg->order) {  // creation order
      if (obj == nullptr) continue;
      d.u64(obj->id);
      for (std::uint32_t i = 0; i < obj->ntok; ++i) d.str(obj->toks[i]->text);
      d.u64(obj->size);
      d.bytes(obj->data, obj->size);
    }
    d.u64(seg->subs.size());
    for (const auto& [id, sub] : seg->subs) {
      d.u64(id);
      d.u64(static_cast<std::uint64_t>(sub.rank));
      d.u64((std::uint64_t{sub.match} << 16) | sub.actions);
      for (const auto& t : sub.tokens) d.str(t);
    }
  }
  return d.value();
}

}  // namespace registry::detail
