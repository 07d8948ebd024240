#include "store.hpp"

#include <cstring>
#include <functional>

namespace registry::detail {

std::uint16_t match_of(std::uint16_t mode) {
  const std::uint16_t m = mode & (kAnd | kOr | kXand | kXor);
  if (m == 0) return kAnd;
  // More than one matching bit is ambiguous; the caller rejects it.
  if ((m & (m - 1)) != 0) return 0;
  return m;
}

std::size_t KeysHash::operator()(const std::vector<Key>& keys) const noexcept {
  // The keys' bytes as one string: std::hash<string_view> is a good byte hash.
  return std::hash<std::string_view>{}(std::string_view(
      reinterpret_cast<const char*>(keys.data()), keys.size() * sizeof(Key)));
}

bool Segment::may_write(int rank) const {
  return writers.empty() || std::binary_search(writers.begin(), writers.end(), rank);
}

bool keys_match(std::uint16_t match, const std::vector<Key>& q, std::size_t missing,
                const std::vector<Key>& obj) {
  auto intersects = [&] {
    auto a = q.begin();
    auto b = obj.begin();
    while (a != q.end() && b != obj.end()) {
      if (*a == *b) return true;
      if (*a < *b) ++a; else ++b;
    }
    return false;
  };
  switch (match) {
    case kXand: return missing == 0 && q == obj;
    case kOr: return intersects();
    case kXor: return intersects() && std::includes(q.begin(), q.end(), obj.begin(), obj.end());
    default: return missing == 0 && !q.empty() && std::includes(obj.begin(), obj.end(), q.begin(), q.end());
  }
}

Segment* Store::find_mutable(std::string_view segment) {
  auto it = segments_.find(segment);
  return it == segments_.end() ? nullptr : it->second.get();
}

const Segment* Store::find(std::string_view segment) const {
  auto it = segments_.find(segment);
  return it == segments_.end() ? nullptr : it->second.get();
}

Status Store::define_segment(std::string_view name, std::vector<int> writers) {
  if (find(name) != nullptr) return Status::exists;
  auto seg = std::make_unique<Segment>();
  seg->name = std::string(name);
  seg->writers = std::move(writers);
  segments_.emplace(seg->name, std::move(seg));
  return Status::ok;
}

std::vector<std::string> Store::tokens_of(const Segment& seg, const Object& obj) const {
  std::vector<std::string> out;
  out.reserve(obj.keys.size());
  for (Key k : obj.keys) out.push_back(seg.tokens.at(k).text);
  std::sort(out.begin(), out.end());
  return out;
}

bool Store::matches(const Segment& seg, const Subscription& sub, const Object& obj) const {
  std::size_t missing = 0;
  const std::vector<Key> q = resolve(seg, sub.tokens, &missing);
  return keys_match(sub.match, q, missing, obj.keys);
}

// Only this rank's subscriptions produce events: the others' callbacks live
// on their ranks, and the replicated state does not depend on events.
void Store::notify(const Segment& seg, Action action, const Object& obj, int issuer,
                   std::vector<Event>& events) const {
  for (const auto& [id, sub] : seg.subs) {
    if (sub.rank != my_rank_ || (sub.actions & action) == 0) continue;
    if (!matches(seg, sub, obj)) continue;
    events.push_back(Event{id, action, seg.name, tokens_of(seg, obj), obj.data, issuer});
  }
}

Status Store::put(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                  const std::byte* data, std::size_t size, std::uint16_t mode,
                  std::vector<Event>& events) {
  Segment* seg = find_mutable(segment);
  if (seg == nullptr) return Status::not_found;
  if (!seg->may_write(issuer)) return Status::denied;

  std::size_t missing = 0;
  std::vector<Key> keys = resolve(*seg, tokens, &missing);
  if (missing == 0) {
    auto it = seg->by_identity.find(keys);
    if (it != seg->by_identity.end()) {
      if ((mode & kOverwrite) == 0) return Status::exists;
      Object& obj = seg->objects.at(it->second);
      obj.data.assign(data, data + size);
      notify(*seg, kModification, obj, issuer, events);
      return Status::ok;
    }
  } else {
    // A new object with tokens new to the dictionary: give them keys.
    for (std::string_view t : tokens) {
      if (seg->key_of.count(t) != 0) continue;
      const Key k = seg->next_key++;
      Token& tok = seg->tokens[k];
      tok.text = std::string(t);
      seg->key_of.emplace(std::string_view(tok.text), k);
      keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end());
  }
  const ObjId id = seg->next_id++;
  for (Key k : keys) seg->tokens.at(k).postings.push_back(id);
  seg->by_identity.emplace(keys, id);
  Object& obj = seg->objects[id];
  obj.keys = std::move(keys);
  obj.data.assign(data, data + size);
  notify(*seg, kModification, obj, issuer, events);
  return Status::ok;
}

Status Store::erase(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                    std::uint16_t match_mode, std::vector<Event>& events) {
  Segment* seg = find_mutable(segment);
  if (seg == nullptr) return Status::not_found;
  if (!seg->may_write(issuer)) return Status::denied;
  const std::vector<ObjId> ids = match(*seg, match_mode, tokens);
  if (ids.empty()) return Status::not_found;

  std::vector<Key> touched;
  for (ObjId id : ids) {
    const Object& obj = seg->objects.at(id);
    notify(*seg, kDelete, obj, issuer, events);
    touched.insert(touched.end(), obj.keys.begin(), obj.keys.end());
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  // One pass per touched posting list, however many objects go.
  for (Key k : touched) {
    auto tok = seg->tokens.find(k);
    auto& p = tok->second.postings;
    p.erase(std::remove_if(p.begin(), p.end(),
                           [&](ObjId id) { return std::binary_search(ids.begin(), ids.end(), id); }),
            p.end());
    if (p.empty()) {
      seg->key_of.erase(std::string_view(tok->second.text));
      seg->tokens.erase(tok);
    }
  }
  for (ObjId id : ids) {
    auto it = seg->objects.find(id);
    seg->by_identity.erase(it->second.keys);
    seg->objects.erase(it);
  }
  return Status::ok;
}

Status Store::subscribe(int issuer, std::string_view segment, const std::vector<std::string_view>& tokens,
                        std::uint16_t match_mode, std::uint16_t actions, std::vector<Event>& events,
                        SubId* id) {
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
  std::vector<ObjId> shared;
  bool computed = false;
  for (const auto& [sid, sub] : seg->subs) {
    if (sid == new_id || sub.rank != my_rank_ || sub.rank == issuer ||
        (sub.actions & kAddSubscriber) == 0)
      continue;
    if (!computed) {
      shared = match(*seg, match_mode, added.tokens);
      computed = true;
    }
    for (ObjId oid : shared) {
      if (matches(*seg, sub, seg->objects.at(oid))) {
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
    std::vector<ObjId> ids;
    ids.reserve(seg->objects.size());
    for (const auto& [id, obj] : seg->objects) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    d.u64(ids.size());
    for (ObjId id : ids) {
      const Object& obj = seg->objects.at(id);
      d.u64(id);
      for (const auto& t : tokens_of(*seg, obj)) d.str(t);
      d.u64(obj.data.size());
      d.bytes(obj.data.data(), obj.data.size());
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
