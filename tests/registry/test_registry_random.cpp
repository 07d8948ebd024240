// Randomized run against a sequential model: every rank issues 10^4 mixed
// operations (define with and without writer restrictions, put with and
// without OVERWRITE, erase and subscribe under all four modes, unsubscribe)
// from a fixed seed, in batches of 500 per sync. Every rank regenerates all
// ranks' operations and applies them to a naive model (linear scans, no
// index) in the registry's order (rank, then issue order). After each sync
// it checks: each own ticket's status equals the model's; the replica's
// content equals the model's and is identical on all ranks; random gets
// agree with the model; the notifications this rank received equal the
// model's, in order. It does not cover bad input (see test_registry_ops).
#include "util.hpp"

#include <map>
#include <random>
#include <set>

using namespace registry;
using Set = std::set<std::string>;

namespace {

constexpr int kOpsPerRank = 10000;
constexpr int kBatch = 500;
const std::vector<std::string> kSegments = {"universe", "s0", "s1", "s2", "s3"};
const std::uint16_t kModes[] = {kAnd, kOr, kXand, kXor};

struct Op {
  enum Kind { define, put, erase, subscribe, unsubscribe } kind = put;
  std::string seg;
  std::vector<std::string> tokens;
  std::string data;
  std::uint16_t mode = 0;
  std::uint16_t actions = 0;
  std::vector<int> writers;
};

Op generate(std::mt19937_64& g, int nranks) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(g() % n); };
  Op op;
  op.seg = kSegments[pick(kSegments.size())];
  const std::size_t ntok = 1 + pick(3);
  for (std::size_t i = 0; i < ntok; ++i) op.tokens.push_back("t" + std::to_string(pick(8)));
  const std::size_t roll = pick(100);
  if (roll < 3) {
    op.kind = Op::define;
    // Half the segments are owner-only (one random rank), or two ranks.
    if (pick(2) == 0) {
      op.writers.push_back(static_cast<int>(pick(static_cast<std::size_t>(nranks))));
      if (pick(2) == 0) op.writers.push_back(static_cast<int>(pick(static_cast<std::size_t>(nranks))));
    }
  } else if (roll < 65) {
    op.kind = Op::put;
    op.mode = pick(2) == 0 ? kOverwrite : 0;
    op.data = std::string(pick(13), static_cast<char>('a' + pick(26)));
  } else if (roll < 90) {
    op.kind = Op::erase;
    op.mode = kModes[pick(4)];
  } else if (roll < 96) {
    op.kind = Op::subscribe;
    op.mode = kModes[pick(4)];
    const std::uint16_t choices[] = {kModification, kDelete, kAddSubscriber, kModification | kDelete, kAll};
    op.actions = choices[pick(5)];
  } else {
    op.kind = Op::unsubscribe;
    op.mode = kModes[pick(4)];
  }
  return op;
}

std::string join(const Set& s) {
  std::string out;
  for (const auto& t : s) out += (out.empty() ? "" : ",") + t;
  return out;
}

const char* action_name(std::uint16_t a) { return a == kModification ? "MOD" : a == kDelete ? "DEL" : "ADD"; }

// The identity of a subscription as its callback reports it.
std::string identity(const std::string& seg, std::uint16_t mode, const Set& toks) {
  return seg + "|" + std::to_string(mode) + "|" + join(toks);
}

bool matches(std::uint16_t mode, const Set& q, const Set& o) {
  const bool meets = std::any_of(q.begin(), q.end(), [&](const std::string& t) { return o.count(t) != 0; });
  switch (mode) {
    case kOr: return meets;
    case kXand: return q == o;
    case kXor: return meets && std::includes(q.begin(), q.end(), o.begin(), o.end());
    default: return std::includes(o.begin(), o.end(), q.begin(), q.end());
  }
}

// The sequential model: the seed's semantics written the obvious way.
class Model {
 public:
  explicit Model(int me) : me_(me) {
    segs_["universe"];
    segs_["world.0"];
  }

  Status apply(int issuer, const Op& op) {
    const Set q(op.tokens.begin(), op.tokens.end());
    auto it = segs_.find(op.seg);
    if (op.kind == Op::define) {
      if (it != segs_.end()) return Status::exists;
      segs_[op.seg].writers = Set();
      for (int w : op.writers) segs_[op.seg].writers.insert(std::to_string(w));
      return Status::ok;
    }
    if (it == segs_.end()) return Status::not_found;
    Seg& s = it->second;
    const bool may_write = s.writers.empty() || s.writers.count(std::to_string(issuer)) != 0;
    switch (op.kind) {
      case Op::put: {
        if (!may_write) return Status::denied;
        auto o = std::find_if(s.objs.begin(), s.objs.end(), [&](const Obj& x) { return x.toks == q; });
        if (o != s.objs.end()) {
          if ((op.mode & kOverwrite) == 0) return Status::exists;
          o->data = op.data;
        } else {
          s.objs.push_back(Obj{q, op.data});
          o = s.objs.end() - 1;
        }
        event(op.seg, s, kModification, *o, issuer);
        return Status::ok;
      }
      case Op::erase: {
        if (!may_write) return Status::denied;
        bool any = false;
        for (const Obj& o : s.objs)
          if (matches(op.mode, q, o.toks)) {
            event(op.seg, s, kDelete, o, issuer);
            any = true;
          }
        s.objs.erase(
            std::remove_if(s.objs.begin(), s.objs.end(), [&](const Obj& o) { return matches(op.mode, q, o.toks); }),
            s.objs.end());
        return any ? Status::ok : Status::not_found;
      }
      case Op::subscribe: {
        for (Sub& sub : s.subs)
          if (sub.rank == issuer && sub.mode == op.mode && sub.toks == q) {
            sub.actions = op.actions;
            return Status::ok;
          }
        s.subs.push_back(Sub{next_sub_++, issuer, op.mode, op.actions, q});
        for (const Sub& other : s.subs) {
          if (other.rank != me_ || other.rank == issuer || (other.actions & kAddSubscriber) == 0) continue;
          const bool shared = std::any_of(s.objs.begin(), s.objs.end(), [&](const Obj& o) {
            return matches(op.mode, q, o.toks) && matches(other.mode, other.toks, o.toks);
          });
          if (shared)
            pending_events_.push_back({other.id, identity(op.seg, other.mode, other.toks) + " ADD " + op.seg + " " +
                                                     join(q) + "= @" + std::to_string(issuer)});
        }
        return Status::ok;
      }
      case Op::unsubscribe: {
        s.subs.erase(
            std::remove_if(s.subs.begin(), s.subs.end(),
                           [&](const Sub& sub) { return sub.rank == issuer && sub.mode == op.mode && sub.toks == q; }),
            s.subs.end());
        return Status::ok;
      }
      case Op::define: break;
    }
    return Status::invalid_argument;
  }

  // The notifications of the batch, dropping those of subscriptions that
  // were cancelled later in the same batch.
  std::vector<std::string> take_events() {
    std::set<std::uint64_t> live;
    for (const auto& [name, s] : segs_)
      for (const Sub& sub : s.subs) live.insert(sub.id);
    std::vector<std::string> out;
    for (auto& [id, line] : pending_events_)
      if (live.count(id) != 0) out.push_back(line);
    pending_events_.clear();
    return out;
  }

  [[nodiscard]] std::string content() const {
    std::string out;
    for (const auto& [name, s] : segs_) {
      out += "segment " + name + "\n";
      for (const Obj& o : s.objs) {
        for (const auto& t : o.toks) out += t + ",";
        out += "=" + o.data + "\n";
      }
    }
    return out;
  }

  [[nodiscard]] std::vector<std::string> get(const std::string& seg, std::uint16_t mode, const Set& q) const {
    auto it = segs_.find(seg);
    if (it == segs_.end()) return {"<not found>"};
    std::vector<std::string> out;
    for (const Obj& o : it->second.objs)
      if (matches(mode, q, o.toks)) out.push_back(join(o.toks) + "=" + o.data);
    return out;
  }

 private:
  struct Obj {
    Set toks;
    std::string data;
  };
  struct Sub {
    std::uint64_t id;
    int rank;
    std::uint16_t mode;
    std::uint16_t actions;
    Set toks;
  };
  struct Seg {
    Set writers;
    std::vector<Obj> objs;  // creation order
    std::vector<Sub> subs;  // creation order
  };

  void event(const std::string& name, const Seg& s, std::uint16_t action, const Obj& o, int issuer) {
    for (const Sub& sub : s.subs)
      if (sub.rank == me_ && (sub.actions & action) != 0 && matches(sub.mode, sub.toks, o.toks))
        pending_events_.push_back({sub.id, identity(name, sub.mode, sub.toks) + " " + action_name(action) + " " + name +
                                               " " + join(o.toks) + "=" + o.data + " @" + std::to_string(issuer)});
  }

  int me_;
  std::uint64_t next_sub_ = 0;
  std::map<std::string, Seg> segs_;
  std::vector<std::pair<std::uint64_t, std::string>> pending_events_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(random_against_model) {
  const int me = mpitest::world_rank();
  const int n = mpitest::world_size();
  auto reg = regtest::make_registry();
  Model model(me);
  std::vector<std::mt19937_64> gens;
  for (int r = 0; r < n; ++r) gens.emplace_back(0x5eed0000u + static_cast<unsigned>(r));
  std::mt19937_64 queries(0xfeed);
  std::vector<std::string> log;

  std::size_t checked_ops = 0;
  std::size_t failures = 0;
  std::size_t events = 0;
  std::map<Status, std::size_t> outcomes;  // of every rank's operations, per the model
  for (int batch = 0; batch < kOpsPerRank / kBatch; ++batch) {
    std::vector<std::vector<Op>> ops(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < kBatch; ++i)
        ops[static_cast<std::size_t>(r)].push_back(generate(gens[static_cast<std::size_t>(r)], n));

    std::vector<Ticket> tickets;
    for (const Op& op : ops[static_cast<std::size_t>(me)]) {
      switch (op.kind) {
        case Op::define: tickets.push_back(reg.define_segment(op.seg, op.writers)); break;
        case Op::put: tickets.push_back(reg.put(op.seg, op.tokens, std::string_view(op.data), op.mode)); break;
        case Op::erase: tickets.push_back(reg.erase(op.seg, op.tokens, op.mode)); break;
        case Op::subscribe: {
          const std::string id = identity(op.seg, op.mode, Set(op.tokens.begin(), op.tokens.end()));
          tickets.push_back(reg.subscribe(op.seg, op.tokens, op.mode, op.actions, [&log, id](const Notification& nt) {
            std::string toks;
            for (const auto& t : nt.tokens) toks += (toks.empty() ? "" : ",") + t;
            log.push_back(id + " " + action_name(nt.action) + " " + nt.segment + " " + toks + "=" +
                          std::string(nt.object_string()) + " @" + std::to_string(nt.issuer));
          }));
          break;
        }
        case Op::unsubscribe: tickets.push_back(reg.unsubscribe(op.seg, op.tokens, op.mode)); break;
      }
    }
    regtest::sync(reg);

    for (int r = 0; r < n; ++r) {
      const auto& mine = ops[static_cast<std::size_t>(r)];
      for (std::size_t i = 0; i < mine.size(); ++i) {
        const Status expect = model.apply(r, mine[i]);
        ++outcomes[expect];
        if (r == me) {
          ++checked_ops;
          if (tickets[i].status() != expect && failures++ < 5)
            BOOST_ERROR(RANK_MSG "batch " << batch << " op " << i << ": " << tickets[i].status() << ", model says "
                                          << expect);
        }
      }
    }
    const std::vector<std::string> expect_log = model.take_events();
    events += expect_log.size();
    BOOST_TEST(log == expect_log, RANK_MSG "notifications of batch " << batch);
    log.clear();

    const std::string content = regtest::content(reg);
    BOOST_REQUIRE_MESSAGE(content == model.content(), RANK_MSG "replica differs from the model after batch " << batch);
    BOOST_REQUIRE(regtest::same_on_all_ranks(regtest::fnv(content)));
    BOOST_REQUIRE(regtest::same_on_all_ranks(reg.digest()));

    for (int k = 0; k < 50; ++k) {
      const std::string seg = kSegments[queries() % kSegments.size()];
      const std::uint16_t mode = kModes[queries() % 4];
      std::vector<std::string> q;
      for (std::size_t i = 0, m = 1 + queries() % 3; i < m; ++i) q.push_back("t" + std::to_string(queries() % 9));
      auto got = reg.get(seg, q, mode);
      std::vector<std::string> flat;
      if (!got.ok()) {
        flat.push_back(got.status() == Status::not_found ? "<not found>" : "<error>");
      } else {
        for (const auto& v : *got) {
          std::string toks;
          for (const auto& t : v.tokens) toks += (toks.empty() ? "" : ",") + t;
          flat.push_back(toks + "=" + std::string(v.as_string()));
        }
      }
      const auto expect = model.get(seg, mode, Set(q.begin(), q.end()));
      BOOST_TEST(flat == expect, RANK_MSG "get " << seg << " mode " << mode);
    }
  }
  BOOST_TEST(failures == 0u);
  // The mix must actually reach every outcome, or the run proves little.
  BOOST_TEST(outcomes[Status::ok] > 1000u);
  BOOST_TEST(outcomes[Status::exists] > 100u);
  BOOST_TEST(outcomes[Status::not_found] > 100u);
  if (n > 1) BOOST_TEST(outcomes[Status::denied] > 0u);
  BOOST_TEST(mpitest::all_ranks(events > 0) == true);
  BOOST_TEST_MESSAGE(RANK_MSG "ok " << outcomes[Status::ok] << ", exists " << outcomes[Status::exists] << ", not_found "
                                    << outcomes[Status::not_found] << ", denied " << outcomes[Status::denied]
                                    << ", notifications " << events);
  BOOST_TEST(checked_ops == static_cast<std::size_t>(kOpsPerRank));
}
