// The stdin path's flow control (dart/src/stdin/fanout.hpp) in one
// process, without MPI or PMIx: the tests stand in for the producer (the
// shim's push_stdin) and for the transports (unit 0's pipe writer, the MPI
// courier). Covered: XOFF as soon as any target reaches the high-water
// mark, XON only once every target still fed is at or below the low-water
// mark, and exactly once per XOFF; the resume called without the fan-out's
// lock; take()'s limit; the end of the stream queued once behind the data;
// refusals after the end, after stop() and with no target left; dropped
// targets (no longer counted, no longer fed); stop() joining every
// transport and ending every stream; direct delivery (set_direct) only
// while its target is the only one fed and owed nothing; chunk buffers
// reused; and, with a thread per target and
// uneven readers, every byte delivered exactly once and in order with
// what is outstanding per target bounded by the water marks.
#define BOOST_TEST_MODULE stdin_fanout
#include <boost/test/unit_test.hpp>

#include "pattern.hpp"
#include "stdin/fanout.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using dart::stdin_path::Chunk;
using dart::stdin_path::Fanout;
using dart::stdin_path::Transport;
using Verdict = Fanout::Verdict;

namespace {

// A transport without threads: the test moves the chunks itself, through
// the fan-out's transport side. Counts start() and join().
class ManualTransport final : public Transport {
 public:
  void start(Fanout& fanout) override {
    fanout_ = &fanout;
    ++starts;
  }
  void join() override { ++joins; }

  // Everything queued for `target` (at most `max` chunks).
  std::vector<Chunk> take(int target, std::size_t max = 1000) {
    std::vector<Chunk> out;
    fanout_->take(target, max, &out);
    return out;
  }
  // Takes everything queued for `target` and reports it delivered; the
  // number of bytes.
  std::size_t drain(int target) {
    std::size_t n = 0;
    for (const Chunk& c : take(target))
      if (c) n += c->size();
    fanout_->delivered(target, n);
    return n;
  }

  int starts = 0;
  int joins = 0;

 private:
  Fanout* fanout_ = nullptr;
};

std::vector<char> bytes(std::size_t n, char fill = 'x') { return std::vector<char>(n, fill); }

// Counts resumes; the resume callback push() is given.
struct Resumes {
  std::atomic<int> calls{0};
  Fanout::Resume callback() {
    return [this] { ++calls; };
  }
};

// A fan-out to `targets` with a manual transport, started.
struct Rig {
  Rig(const std::vector<int>& targets, std::size_t high, std::size_t low) : fanout(targets, high, low) {
    fanout.start({&transport});
  }
  Verdict push(std::size_t n) {
    const auto b = bytes(n);
    return fanout.push(b.data(), n, resumes.callback());
  }
  Fanout fanout;
  ManualTransport transport;
  Resumes resumes;
};

}  // namespace

BOOST_AUTO_TEST_CASE(xoff_when_any_target_reaches_high_water) {
  Rig rig({0, 1, 2}, 100, 40);
  BOOST_TEST(rig.transport.starts == 1);
  BOOST_TEST((rig.push(60) == Verdict::Taken));
  // Targets 0 and 2 drain; target 1 keeps its 60 bytes.
  BOOST_TEST(rig.transport.drain(0) == 60u);
  BOOST_TEST(rig.transport.drain(2) == 60u);
  BOOST_TEST((rig.push(39) == Verdict::Taken));  // target 1: 99 < 100
  BOOST_TEST((rig.push(1) == Verdict::Xoff));    // target 1: 100, the mark itself
  BOOST_TEST(rig.resumes.calls == 0);
}

BOOST_AUTO_TEST_CASE(xon_only_when_every_target_is_below_low_water) {
  Rig rig({0, 1}, 100, 40);
  // 12 chunks of 10 bytes: the 10th lifts both targets to 100.
  for (int i = 0; i < 9; ++i) BOOST_TEST((rig.push(10) == Verdict::Taken));
  BOOST_TEST((rig.push(10) == Verdict::Xoff));
  auto& t = rig.transport;
  // Target 0 empties completely: target 1 still holds 100.
  BOOST_TEST(t.drain(0) == 100u);
  BOOST_TEST(rig.resumes.calls == 0);
  // Target 1 down to 41, one above the low mark: still paused.
  std::vector<Chunk> got = t.take(1);
  BOOST_REQUIRE(got.size() == 10u);
  rig.fanout.delivered(1, 59);
  BOOST_TEST(rig.resumes.calls == 0);
  // At the low mark: resumed, once.
  rig.fanout.delivered(1, 1);
  BOOST_TEST(rig.resumes.calls == 1);
  rig.fanout.delivered(1, 40);
  BOOST_TEST(rig.resumes.calls == 1);
  // More than delivered is clamped: the next chunk is counted from zero.
  rig.fanout.delivered(1, 1000);
  BOOST_TEST((rig.push(99) == Verdict::Taken));
  BOOST_TEST(rig.resumes.calls == 1);
}

BOOST_AUTO_TEST_CASE(one_resume_per_xoff_to_the_latest_source) {
  Rig rig({0}, 10, 5);
  std::vector<int> resumed;
  const auto b = bytes(10);
  BOOST_TEST((rig.fanout.push(b.data(), 10, [&] { resumed.push_back(1); }) == Verdict::Xoff));
  rig.transport.drain(0);
  BOOST_TEST((rig.fanout.push(b.data(), 10, [&] { resumed.push_back(2); }) == Verdict::Xoff));
  rig.transport.drain(0);
  rig.fanout.delivered(0, 0);  // nothing pending any more: no further call
  BOOST_TEST(resumed == (std::vector<int>{1, 2}));
}

BOOST_AUTO_TEST_CASE(resume_runs_without_the_fanouts_lock) {
  // The callback pushes again, as a producer resumed on the spot would: with
  // the fan-out's lock held this would deadlock (and time out).
  Rig rig({0}, 10, 5);
  const auto b = bytes(10);
  Verdict inner = Verdict::Refused;
  BOOST_TEST((rig.fanout.push(b.data(), 10, [&] { inner = rig.fanout.push(b.data(), 3, nullptr); }) == Verdict::Xoff));
  BOOST_TEST(rig.transport.drain(0) == 10u);
  BOOST_TEST((inner == Verdict::Taken));
  BOOST_TEST(rig.transport.drain(0) == 3u);
}

BOOST_AUTO_TEST_CASE(chunks_are_shared_copies_in_order) {
  Rig rig({3, 1}, 1 << 20, 1 << 10);
  const std::string a = "first", b = "second";
  rig.fanout.push(a.data(), a.size(), nullptr);
  rig.fanout.push(b.data(), b.size(), nullptr);
  std::vector<Chunk> t3 = rig.transport.take(3), t1 = rig.transport.take(1);
  BOOST_REQUIRE(t3.size() == 2u);
  BOOST_REQUIRE(t1.size() == 2u);
  BOOST_TEST(std::string(t3[0]->begin(), t3[0]->end()) == a);
  BOOST_TEST(std::string(t3[1]->begin(), t3[1]->end()) == b);
  // One copy, shared by the targets, not the caller's buffer.
  BOOST_TEST(t3[0].get() == t1[0].get());
  BOOST_TEST(static_cast<const void*>(t3[0]->data()) != static_cast<const void*>(a.data()));
  // Nothing queued twice.
  BOOST_TEST(rig.transport.take(3).empty());
}

BOOST_AUTO_TEST_CASE(take_respects_its_limit) {
  Rig rig({0}, 1 << 20, 1 << 10);
  for (int i = 0; i < 5; ++i) rig.push(1);
  BOOST_TEST(rig.transport.take(0, 0).empty());
  BOOST_TEST(rig.transport.take(0, 2).size() == 2u);
  BOOST_TEST(rig.transport.take(0, 2).size() == 2u);
  rig.fanout.push(nullptr, 0, nullptr);
  // The last chunk and the end, and nothing after the end.
  std::vector<Chunk> rest = rig.transport.take(0, 10);
  BOOST_REQUIRE(rest.size() == 2u);
  BOOST_TEST(rest[0] != nullptr);
  BOOST_TEST(rest[1] == nullptr);
}

BOOST_AUTO_TEST_CASE(end_of_stream_reaches_every_target_once) {
  Rig rig({0, 1}, 1 << 20, 1 << 10);
  rig.push(7);
  BOOST_TEST((rig.fanout.push(nullptr, 0, nullptr) == Verdict::Taken));
  BOOST_TEST((rig.fanout.push(nullptr, 0, nullptr) == Verdict::Taken));  // a second end changes nothing
  BOOST_TEST((rig.push(1) == Verdict::Refused));                         // data after the end
  for (int t : {0, 1}) {
    std::vector<Chunk> got = rig.transport.take(t);
    BOOST_REQUIRE(got.size() == 2u);
    BOOST_TEST(got[0]->size() == 7u);
    BOOST_TEST(got[1] == nullptr);
    // The end is in the queue once: afterwards a take finds nothing.
    BOOST_TEST(rig.transport.take(t).empty());
  }
}

BOOST_AUTO_TEST_CASE(dropped_targets_no_longer_count) {
  Rig rig({0, 1, 2}, 100, 40);
  BOOST_TEST((rig.push(100) == Verdict::Xoff));
  rig.transport.drain(0);
  rig.transport.drain(1);
  BOOST_TEST(rig.resumes.calls == 0);
  // Target 2's reader is gone while it holds the producer back: resumed.
  BOOST_TEST(rig.fanout.drop(2));
  BOOST_TEST(rig.resumes.calls == 1);
  BOOST_TEST(!rig.fanout.drop(2));  // reported once
  // No longer fed: its stream has ended, and new data skips it.
  BOOST_TEST((rig.push(50) == Verdict::Taken));
  std::vector<Chunk> got = rig.transport.take(2);
  BOOST_REQUIRE(got.size() == 1u);
  BOOST_TEST(got[0] == nullptr);
  BOOST_TEST(rig.transport.drain(0) == 50u);
  // Acknowledgements for a dropped target are ignored.
  rig.fanout.delivered(2, 10);
  // The last readers go: the producer is refused.
  BOOST_TEST(rig.fanout.drop(0));
  BOOST_TEST((rig.push(1) == Verdict::Taken));
  BOOST_TEST(rig.fanout.drop(1));
  BOOST_TEST((rig.push(1) == Verdict::Refused));
  BOOST_TEST((rig.fanout.push(nullptr, 0, nullptr) == Verdict::Taken));
}

BOOST_AUTO_TEST_CASE(a_finished_target_no_longer_holds_the_producer_back) {
  Rig rig({0, 1}, 100, 40);
  BOOST_TEST((rig.push(100) == Verdict::Xoff));
  rig.fanout.push(nullptr, 0, nullptr);
  // Target 1 takes its chunk and reaches the end without acknowledging.
  Chunk c = rig.fanout.next(1);
  BOOST_REQUIRE(c != nullptr);
  BOOST_TEST(rig.fanout.next(1) == nullptr);
  BOOST_TEST(rig.resumes.calls == 0);
  // Only target 0 counts now.
  BOOST_TEST(rig.transport.drain(0) == 100u);
  BOOST_TEST(rig.resumes.calls == 1);
}

// The direct path (Fanout::set_direct): taken only while its target is
// the only one fed and owes nothing, so no byte overtakes another; what it
// leaves is queued, counted and copied as usual.
BOOST_AUTO_TEST_CASE(direct_delivery_never_overtakes_queued_bytes) {
  Rig rig({0}, 100, 40);
  std::string direct;
  std::size_t room = 30;
  int calls = 0;
  rig.fanout.set_direct(0, [&](const char* p, std::size_t n) {
    ++calls;
    const std::size_t w = std::min(n, room);
    direct.append(p, w);
    room -= w;
    return w;
  });
  std::string in;
  for (int i = 0; i < 400; ++i) in.push_back(static_cast<char>('a' + i % 26));
  // 30 go direct, 70 are queued: they alone count against the marks.
  BOOST_TEST((rig.fanout.push(in.data(), 100, nullptr) == Verdict::Taken));
  BOOST_TEST(direct == in.substr(0, 30));
  // Owed bytes: the next chunk is queued behind them, not handed over.
  room = 1000;
  BOOST_TEST((rig.fanout.push(in.data() + 100, 30, rig.resumes.callback()) == Verdict::Xoff));
  BOOST_TEST(calls == 1);
  std::string queued;
  for (const Chunk& c : rig.transport.take(0)) queued.append(c->begin(), c->end());
  BOOST_TEST(queued == in.substr(30, 100));
  // Taken but not yet delivered still owes: nothing goes direct until the
  // transport reports it.
  rig.fanout.delivered(0, 60);
  BOOST_TEST(rig.resumes.calls == 1);
  BOOST_TEST((rig.fanout.push(in.data() + 130, 10, nullptr) == Verdict::Taken));
  BOOST_TEST(calls == 1);
  BOOST_TEST(rig.transport.drain(0) == 10u);
  rig.fanout.delivered(0, 40);
  // Nothing owed: straight through, nothing queued.
  BOOST_TEST((rig.fanout.push(in.data() + 140, 60, nullptr) == Verdict::Taken));
  BOOST_TEST(calls == 2);
  BOOST_TEST(direct == in.substr(0, 30) + in.substr(140, 60));
  BOOST_TEST(rig.transport.take(0).empty());
}

BOOST_AUTO_TEST_CASE(direct_delivery_waits_for_the_other_targets) {
  Rig rig({0, 1}, 100, 40);
  int calls = 0;
  rig.fanout.set_direct(0, [&](const char*, std::size_t n) {
    ++calls;
    return n;
  });
  BOOST_TEST((rig.push(10) == Verdict::Taken));
  BOOST_TEST(calls == 0);  // target 1 needs the chunk too
  BOOST_TEST(rig.transport.drain(0) == 10u);
  rig.fanout.drop(1);
  BOOST_TEST((rig.push(10) == Verdict::Taken));
  BOOST_TEST(calls == 1);
  BOOST_TEST(rig.transport.take(0).empty());
  // The end of the stream is always queued, so it comes after every byte.
  rig.fanout.push(nullptr, 0, nullptr);
  std::vector<Chunk> end = rig.transport.take(0);
  BOOST_REQUIRE(end.size() == 1u);
  BOOST_TEST(end[0] == nullptr);
}

BOOST_AUTO_TEST_CASE(chunk_buffers_are_reused) {
  Rig rig({0}, 1 << 20, 1 << 10);
  rig.push(1000);
  const void* first = rig.transport.take(0)[0]->data();  // the chunk is freed here
  rig.push(1000);
  std::vector<Chunk> again = rig.transport.take(0);
  BOOST_REQUIRE(again.size() == 1u);
  BOOST_TEST(static_cast<const void*>(again[0]->data()) == first);
  BOOST_TEST(again[0]->size() == 1000u);
}

BOOST_AUTO_TEST_CASE(no_targets_refuses_at_once) {
  Rig rig({}, 100, 40);
  BOOST_TEST((rig.push(1) == Verdict::Refused));
}

BOOST_AUTO_TEST_CASE(stop_ends_every_stream_and_joins_every_transport) {
  Fanout fanout({0, 1}, 100, 40);
  ManualTransport a, b;
  fanout.start({&a, &b});
  BOOST_TEST(a.starts == 1);
  BOOST_TEST(b.starts == 1);
  const auto data = bytes(30);
  fanout.push(data.data(), data.size(), nullptr);
  fanout.stop();
  BOOST_TEST(a.joins == 1);
  BOOST_TEST(b.joins == 1);
  // What is unread is discarded: the stream just ends.
  std::vector<Chunk> got;
  fanout.take(0, 10, &got);
  BOOST_REQUIRE(got.size() == 1u);
  BOOST_TEST(got[0] == nullptr);
  BOOST_TEST(fanout.next(1) == nullptr);
  BOOST_TEST((fanout.push(data.data(), data.size(), nullptr) == Verdict::Refused));
  // A reader gone while stopping is nothing to report.
  BOOST_TEST(!fanout.drop(0));
}

BOOST_AUTO_TEST_CASE(next_waits_for_data_and_for_stop) {
  Fanout fanout({0}, 100, 40);
  ManualTransport t;
  fanout.start({&t});
  Chunk first;
  std::atomic<bool> got{false};
  std::thread reader([&] {
    first = fanout.next(0);
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  BOOST_TEST(!got.load());  // nothing queued yet: it waits
  const std::string s = "abc";
  fanout.push(s.data(), s.size(), nullptr);
  reader.join();
  BOOST_REQUIRE(first != nullptr);
  BOOST_TEST(std::string(first->begin(), first->end()) == s);
  // A wait with nothing coming ends with stop().
  Chunk last = std::make_shared<const std::vector<char>>();
  std::thread waiter([&] { last = fanout.next(0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  fanout.stop();
  waiter.join();
  BOOST_TEST(last == nullptr);
}

namespace {

// One thread per target, as unit 0's pipe writer: next(), "write", then
// delivered(). Readers may be slow, or go away after some bytes.
class ThreadedTransport final : public Transport {
 public:
  struct Reader {
    int unit = 0;
    unsigned pause_us = 0;                   // after every chunk
    std::uint64_t close_after = UINT64_MAX;  // the reader goes away
    // Results, read once joined.
    std::vector<unsigned char> got;
    int ends = 0;
    bool stays_ended = false;
    bool dropped = false;
    // Counted before the fan-out is told, so the producer's view of what
    // is outstanding never undercounts.
    std::atomic<std::uint64_t> delivered{0};
  };

  explicit ThreadedTransport(std::vector<Reader>* readers) : readers_(readers) {}

  void start(Fanout& fanout) override {
    for (Reader& r : *readers_) threads_.emplace_back([&fanout, &r] { run(fanout, r); });
  }
  void join() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  static void run(Fanout& fanout, Reader& r) {
    for (;;) {
      Chunk c = fanout.next(r.unit);
      if (!c) {
        ++r.ends;
        // Ended for good: asking again returns at once.
        r.stays_ended = fanout.next(r.unit) == nullptr;
        return;
      }
      if (r.got.size() + c->size() > r.close_after) {
        r.dropped = fanout.drop(r.unit);
        return;
      }
      r.got.insert(r.got.end(), c->begin(), c->end());
      if (r.pause_us) std::this_thread::sleep_for(std::chrono::microseconds(r.pause_us));
      r.delivered += c->size();
      fanout.delivered(r.unit, c->size());
    }
  }

  std::vector<Reader>* readers_;
  std::vector<std::thread> threads_;
};

// Pushes `total` bytes of the test pattern in uneven chunks from this
// thread, pausing on every Xoff until resumed, then the end; the fan-out is
// stopped once every reader is done.
struct StreamResult {
  int xoffs = 0;
  int resumes = 0;
  int bound_violations = 0;
  std::uint64_t max_outstanding = 0;
};

StreamResult stream(std::vector<ThreadedTransport::Reader>& readers, std::uint64_t total, std::size_t high,
                    std::size_t low, std::size_t max_chunk) {
  std::vector<int> units;
  for (auto& r : readers) units.push_back(r.unit);
  Fanout fanout(units, high, low);
  ThreadedTransport transport(&readers);
  fanout.start({&transport});

  std::mutex m;
  std::condition_variable cv;
  bool paused = false;
  StreamResult res;
  std::atomic<std::uint64_t> pushed{0};
  std::atomic<int> resumes{0}, violations{0};
  const Fanout::Resume resume = [&] {
    // The XON: every target still reading is at or below the low mark.
    for (auto& r : readers)
      if (r.close_after == UINT64_MAX && pushed - r.delivered > low) ++violations;
    ++resumes;
    std::lock_guard<std::mutex> l(m);
    paused = false;
    cv.notify_all();
  };

  std::mt19937_64 rng(12345);
  std::vector<unsigned char> buf(max_chunk);
  for (std::uint64_t pos = 0; pos < total;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(total - pos, 1 + rng() % max_chunk));
    stdin_test::fill(pos, buf.data(), n);
    // Before each push every reading target is below the high mark.
    for (auto& r : readers) {
      if (r.close_after != UINT64_MAX) continue;
      const std::uint64_t out = pos - r.delivered;
      res.max_outstanding = std::max(res.max_outstanding, out);
      if (out >= high) ++violations;
    }
    {
      std::lock_guard<std::mutex> l(m);
      paused = true;  // before the push: the resume may come before it returns
    }
    pushed += n;
    const Verdict v = fanout.push(reinterpret_cast<const char*>(buf.data()), n, resume);
    if (v == Verdict::Refused) {
      BOOST_TEST(false, "refused at " << pos);
      pushed -= n;
      break;
    }
    pos += n;
    std::unique_lock<std::mutex> l(m);
    if (v == Verdict::Xoff) {
      ++res.xoffs;
      cv.wait(l, [&] { return !paused; });
    } else {
      paused = false;
    }
  }
  BOOST_TEST((fanout.push(nullptr, 0, nullptr) == Verdict::Taken));
  // dart_exit stops the fan-out once every unit is done reading.
  for (auto& r : readers)
    while (r.close_after == UINT64_MAX && r.delivered < pushed)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  fanout.stop();
  res.resumes = resumes;
  res.bound_violations = violations;
  return res;
}

void check_stream(const ThreadedTransport::Reader& r, std::uint64_t total) {
  BOOST_TEST_CONTEXT("unit " << r.unit) {
    BOOST_TEST(r.got.size() == total);
    std::vector<unsigned char> want(r.got.size());
    stdin_test::fill(0, want.data(), want.size());
    std::size_t first_bad = 0;
    while (first_bad < want.size() && want[first_bad] == r.got[first_bad]) ++first_bad;
    BOOST_TEST(first_bad == want.size(), "first wrong byte at " << first_bad);
    BOOST_TEST(r.ends == 1);
    BOOST_TEST(r.stays_ended);
    BOOST_TEST(r.delivered.load() == total);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_byte_once_and_in_order_under_flow_control) {
  // One fast reader, one that sleeps after every chunk: the slow one holds
  // the producer back; both get everything.
  const std::uint64_t total = 8 << 20;
  std::vector<ThreadedTransport::Reader> readers(3);
  readers[0].unit = 0;
  readers[1].unit = 1;
  readers[1].pause_us = 200;
  readers[2].unit = 5;
  const std::size_t high = 256 << 10, low = 64 << 10, max_chunk = 48 << 10;
  StreamResult res = stream(readers, total, high, low, max_chunk);
  for (auto& r : readers) check_stream(r, total);
  BOOST_TEST(res.xoffs > 0);
  BOOST_TEST(res.xoffs == res.resumes);
  BOOST_TEST(res.bound_violations == 0);
  BOOST_TEST(res.max_outstanding < high);
}

BOOST_AUTO_TEST_CASE(tiny_water_marks_many_xoffs) {
  const std::uint64_t total = 1 << 20;
  std::vector<ThreadedTransport::Reader> readers(2);
  readers[0].unit = 0;
  readers[1].unit = 2;
  readers[1].pause_us = 100;  // about 700 chunks: the producer runs ahead again and again
  StreamResult res = stream(readers, total, 8 << 10, 2 << 10, 3000);
  for (auto& r : readers) check_stream(r, total);
  BOOST_TEST(res.xoffs >= 10);
  BOOST_TEST(res.xoffs == res.resumes);
  BOOST_TEST(res.bound_violations == 0);
}

BOOST_AUTO_TEST_CASE(a_reader_that_goes_away_releases_the_producer) {
  // Unit 1 stops reading after 1 MiB and never acknowledges again; were it
  // still counted, the producer would stay paused forever.
  const std::uint64_t total = 6 << 20;
  std::vector<ThreadedTransport::Reader> readers(2);
  readers[0].unit = 0;
  readers[1].unit = 1;
  readers[1].close_after = 1 << 20;
  StreamResult res = stream(readers, total, 128 << 10, 32 << 10, 16 << 10);
  check_stream(readers[0], total);
  BOOST_TEST(readers[1].dropped);
  BOOST_TEST(readers[1].got.size() <= std::size_t(1) << 20);
  BOOST_TEST(readers[1].ends == 0);
  BOOST_TEST(res.xoffs == res.resumes);
  BOOST_TEST(res.bound_violations == 0);
}
