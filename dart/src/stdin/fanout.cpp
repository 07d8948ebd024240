// The stdin path's flow control (stdin/fanout.hpp).
#include "stdin/fanout.hpp"

#include <algorithm>
#include <utility>

namespace dart::stdin_path {

Chunk ChunkPool::make(const char* data, std::size_t n) {
  std::unique_ptr<std::vector<char>> b;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!free_.empty()) {
      b = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (!b) b = std::make_unique<std::vector<char>>();
  b->assign(data, data + n);  // within its capacity: no allocation, no zeroing
  std::shared_ptr<ChunkPool> self = shared_from_this();
  return Chunk(b.release(), [self](const std::vector<char>* v) { self->give_back(const_cast<std::vector<char>*>(v)); });
}

void ChunkPool::give_back(std::vector<char>* b) noexcept {
  std::unique_ptr<std::vector<char>> owned(b);
  std::lock_guard<std::mutex> l(mu_);
  if (free_.size() < keep_) free_.push_back(std::move(owned));
}

// Buffers kept: a stream that reaches the high-water mark with chunks of
// the shim's default size (128 KiB) holds high/chunk + 1 of them per
// target, plus one the writer is on and one the producer is filling.
Fanout::Fanout(const std::vector<int>& targets, std::size_t high, std::size_t low)
    : high_(high), low_(low), pool_(std::make_shared<ChunkPool>(high / (128 * 1024) + 4)) {
  targets_.resize(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) targets_[i].unit = targets[i];
}

void Fanout::start(std::vector<Transport*> transports) {
  {
    std::lock_guard<std::mutex> l(mu_);
    transports_ = std::move(transports);
  }
  for (Transport* t : transports_) t->start(*this);
}

void Fanout::set_direct(int target, Direct direct) {
  std::lock_guard<std::mutex> l(mu_);
  direct_target_ = target;
  direct_ = std::move(direct);
}

std::size_t Fanout::push_direct(const char* data, std::size_t n) {
  if (!direct_) return 0;
  Target* only = nullptr;
  for (Target& t : targets_) {
    if (t.closed) continue;
    if (only || t.unit != direct_target_) return 0;
    only = &t;
  }
  // Bytes queued or still with the transport would be overtaken.
  if (!only || !only->queue.empty() || only->queued != 0) return 0;
  return std::min(direct_(data, n), n);
}

Fanout::Target* Fanout::find(int unit) {
  for (Target& t : targets_)
    if (t.unit == unit) return &t;
  return nullptr;
}

Fanout::Verdict Fanout::push(const char* data, std::size_t n, const Resume& resume) {
  std::unique_lock<std::mutex> l(mu_);
  if (n == 0) {
    if (!ended_) {
      ended_ = true;
      for (Target& t : targets_)
        if (!t.closed) t.queue.push_back(nullptr);
      cv_.notify_all();
    }
    return Verdict::Taken;
  }
  // Data after the end, or nobody left to read: refuse, which closes the
  // producer's stream and tells it.
  const bool open = std::any_of(targets_.begin(), targets_.end(), [](const Target& t) { return !t.closed; });
  if (ended_ || stopping_ || !open) return Verdict::Refused;
  // A reader that keeps up finds room in its pipe: the chunk goes there at
  // once, from the shim's buffer. Only what does not fit is copied and
  // queued for the transport.
  const std::size_t now = push_direct(data, n);
  if (now == n) return Verdict::Taken;
  data += now;
  n -= now;
  Chunk c = pool_->make(data, n);
  bool over = false;
  for (Target& t : targets_) {
    if (t.closed) continue;
    t.queue.push_back(c);
    t.queued += n;
    over = over || t.queued >= high_;
  }
  cv_.notify_all();
  if (!over) return Verdict::Taken;
  // `resume` may be called on a transport's thread as soon as mu_ is
  // released, possibly before the caller has acted on the Xoff: the caller
  // orders the two. The shim does: push_stdin's answer is applied on its
  // progress thread before any resume posted to that thread.
  suspended_ = true;
  resume_ = resume;
  return Verdict::Xoff;
}

void Fanout::stop() {
  std::vector<Transport*> transports;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    transports = transports_;
  }
  cv_.notify_all();
  for (Transport* t : transports) t->join();
}

void Fanout::take(int target, std::size_t max, std::vector<Chunk>* out) {
  std::lock_guard<std::mutex> l(mu_);
  Target* t = find(target);
  if (!t || t->closed || stopping_) {
    if (t) t->queue.clear();
    out->push_back(nullptr);
    return;
  }
  for (std::size_t k = 0; k < max && !t->queue.empty(); ++k) {
    Chunk c = std::move(t->queue.front());
    t->queue.pop_front();
    const bool end = !c;
    out->push_back(std::move(c));
    if (end) break;
  }
}

Chunk Fanout::next(int target) {
  std::unique_lock<std::mutex> l(mu_);
  Target* t = find(target);
  if (!t) return nullptr;
  cv_.wait(l, [&] { return stopping_ || t->closed || !t->queue.empty(); });
  Chunk c;
  if (!stopping_ && !t->closed) {
    c = std::move(t->queue.front());
    t->queue.pop_front();
  }
  if (!c) {
    // Its stream is over: whatever is queued behind is never read. The
    // bytes it still counts no longer hold the producer back either, since
    // only targets still fed count.
    t->closed = true;
    t->queue.clear();
  }
  return c;
}

void Fanout::delivered(int target, std::size_t n) {
  std::unique_lock<std::mutex> l(mu_);
  Target* t = find(target);
  if (!t || t->closed) return;
  t->queued -= std::min(t->queued, n);
  maybe_resume(l);
}

bool Fanout::drop(int target) {
  std::unique_lock<std::mutex> l(mu_);
  Target* t = find(target);
  if (!t || t->closed) return false;
  const bool tell = !stopping_;
  t->closed = true;
  t->queue.clear();
  t->queued = 0;
  cv_.notify_all();  // a transport waiting in next() for it
  maybe_resume(l);
  return tell;
}

void Fanout::maybe_resume(std::unique_lock<std::mutex>& l) {
  if (!suspended_) return;
  for (const Target& t : targets_)
    if (!t.closed && t.queued > low_) return;
  suspended_ = false;
  Resume resume = std::move(resume_);
  resume_ = nullptr;
  // Without the lock: the callback may take locks of its own, or push.
  l.unlock();
  if (resume) resume();
  l.lock();
}

}  // namespace dart::stdin_path
