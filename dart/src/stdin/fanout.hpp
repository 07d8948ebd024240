// Flow control of the job's stdin: one producer, several target units.
//
// The fan-out takes the producer's chunks, copies each one once and queues
// it for every target still reading (or, when one target alone is fed and
// nothing is owed to it, hands it what fits at once, uncopied: see
// set_direct). A target's queue counts the bytes
// accepted for it and not yet delivered (in its pipe). When a chunk lifts
// any queue to the high-water mark, push() answers Xoff ("taken, now stop"):
// the producer is paused, so its bytes stay where they are (in dartrun's
// pipe, in the launcher's socket) and `cat` feeding it blocks. When every
// target still reading is below the low-water mark again, the fan-out calls
// the resume callback push() was given (XON). Memory is thus bounded by
// high water + one chunk per target (chunks are shared among targets),
// whatever the size of the input.
//
// The end of the producer's stream (an empty push) is queued behind the
// data for every target, so each one sees it exactly once. A target whose
// reader is gone is dropped; once none is left, push() refuses, which
// closes the producer's stream.
//
// How chunks reach the targets is not the fan-out's business: a Transport
// takes them out of the queues and reports what got delivered. libdart has
// two (stdin/writer.hpp: unit 0's own pipe; stdin/courier.hpp: MPI to the
// other units); tests/stdin/test_stdin_fanout.cpp has its own. So the flow
// control knows nothing of MPI or PMIx and runs in a single process.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace dart::stdin_path {

// One chunk of the stream, shared by every target's queue; nullptr marks
// the end of a target's stream.
using Chunk = std::shared_ptr<const std::vector<char>>;

// Buffers of chunks no target holds any more, kept for the next ones. A
// stream is thousands of chunks of the same size; allocating each afresh
// costs page faults and zeroing on the producer's thread, and an munmap
// (a TLB shoot-down on every core) on the thread that drops the last
// reference, whenever malloc maps chunks this large. Under MPICH it did
// for every chunk: the shim's thread spent more than half its time there
// for 1 GiB. Chunks hold a reference to the pool, so one that outlives the
// fan-out still frees its buffer.
class ChunkPool : public std::enable_shared_from_this<ChunkPool> {
 public:
  // Keeps at most `keep` buffers: as many as the flow control lets be in
  // circulation, so memory stays what it is without the pool.
  explicit ChunkPool(std::size_t keep) : keep_(keep) { free_.reserve(keep); }
  // A chunk holding a copy of [data, data+n).
  Chunk make(const char* data, std::size_t n);

 private:
  void give_back(std::vector<char>* b) noexcept;

  const std::size_t keep_;
  std::mutex mu_;
  std::vector<std::unique_ptr<std::vector<char>>> free_;
};

class Fanout;

// Carries chunks from the fan-out's queues to some of its targets, on
// threads of its own. It calls the fan-out's transport side: take() or
// next() for chunks, delivered() once bytes are in a target's hands, drop()
// when a target's reader is gone.
class Transport {
 public:
  virtual ~Transport() = default;
  // Begins serving its targets. Called once, by Fanout::start.
  virtual void start(Fanout& fanout) = 0;
  // The fan-out is stopping (take() and next() now end every stream):
  // finish up and return once the fan-out is no longer used. Called once,
  // by Fanout::stop.
  virtual void join() = 0;
};

class Fanout {
 public:
  enum class Verdict {
    Taken,    // queued (or the end noted); the producer may go on
    Xoff,     // queued, but the producer must pause until resumed
    Refused,  // not taken: no target reads any more, the stream ended or
              // the fan-out stopped; the producer's stream is over
  };
  // Resumes the paused producer. Called at most once per Xoff, on a
  // transport's thread, with no lock of the fan-out held.
  using Resume = std::function<void()>;
  // Hands a target bytes at once, without waiting: returns how many of
  // [data, data+n) it delivered (0 when it cannot now, for whatever
  // reason; its transport finds out why on the queued path).
  using Direct = std::function<std::size_t(const char* data, std::size_t n)>;

  // `targets`: the units fed, in any order, each once. Water marks in bytes
  // per target, low < high.
  Fanout(const std::vector<int>& targets, std::size_t high, std::size_t low);
  Fanout(const Fanout&) = delete;
  Fanout& operator=(const Fanout&) = delete;

  // Starts the transports; may be called before or after the first push.
  void start(std::vector<Transport*> transports);

  // Lets push() deliver to `target` itself, on the producer's thread, when
  // it is the only target still fed and nothing is queued or in flight for
  // it: then ordering cannot suffer, and the chunk needs neither a copy
  // nor a transport's thread woken for it. What `direct` does not take is
  // queued as usual. It is called with the fan-out's lock held. Call
  // before the first push.
  void set_direct(int target, Direct direct);

  // ---- the producer's side (one thread at a time) -------------------------

  // Queues a copy of [data, data+n) for every target still reading; n == 0
  // ends the stream (always Taken). On Xoff, `resume` is kept and called
  // once every target still reading is below the low-water mark.
  Verdict push(const char* data, std::size_t n, const Resume& resume);

  // Discards what is unread and ends every target's stream; no chunk is
  // taken from now on. Returns once every transport has returned from
  // join(). Called once, after start().
  void stop();

  // ---- a transport's side (any thread) -----------------------------------

  // Moves up to `max` chunks queued for `target` to `out`, without waiting.
  // A nullptr (appended last, even when max is 0) ends the target's stream:
  // the producer's end, or the target was dropped, or the fan-out stops;
  // what was queued behind it is discarded.
  void take(int target, std::size_t max, std::vector<Chunk>* out);

  // Waits for the next chunk queued for `target` and returns it; nullptr
  // when its stream ends (as for take()). From then on the target is no
  // longer fed.
  Chunk next(int target);

  // `n` bytes taken for `target` are delivered: they no longer count
  // against its high-water mark.
  void delivered(int target, std::size_t n);

  // The reader of `target` is gone: its queue is discarded and nothing is
  // queued for it any more. True when this dropped a target that was still
  // being fed while the fan-out was not stopping (worth telling the user).
  bool drop(int target);

 private:
  struct Target {
    int unit = 0;
    std::deque<Chunk> queue;  // not yet taken by the transport
    std::size_t queued = 0;   // accepted and not yet delivered
    bool closed = false;      // no longer fed (reader gone, or finished)
  };

  Target* find(int unit);
  // push()'s shortcut; with mu_ held. Returns the bytes delivered.
  std::size_t push_direct(const char* data, std::size_t n);
  // Called with mu_ held after a queue shrank.
  void maybe_resume(std::unique_lock<std::mutex>& l);

  const std::size_t high_, low_;
  std::shared_ptr<ChunkPool> pool_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Target> targets_;
  std::vector<Transport*> transports_;
  bool ended_ = false;
  bool stopping_ = false;
  bool suspended_ = false;
  Resume resume_;
  int direct_target_ = -1;
  Direct direct_;
};

}  // namespace dart::stdin_path
