// Covers subscriptions: MODIFICATION, DELETE and ADD_SUBSCRIBER
// notifications with exact counts and order, their position in the apply
// order of a sync, identical logs on every rank, unsubscribe, and what a
// callback may do (read, record; not sync). It does not cover the C API's
// callbacks (see test_registry_c_api.cpp).
#include "util.hpp"

using namespace registry;
using regtest::sync;
using V = std::vector<std::string>;

namespace {

int rank() { return mpitest::world_rank(); }
int nranks() { return mpitest::world_size(); }

const char* name(Action a) {
  switch (a) {
    case kModification: return "MOD";
    case kAddSubscriber: return "ADD";
    case kDelete: return "DEL";
    default: return "?";
  }
}

// Records notifications as "TAG ACTION segment tokens=object @issuer".
struct Log {
  V lines;
  Callback callback(const std::string& tag) {
    return [this, tag](const Notification& n) {
      std::string toks;
      for (const auto& t : n.tokens) toks += (toks.empty() ? "" : ",") + t;
      lines.push_back(tag + " " + name(n.action) + " " + n.segment + " " + toks + "=" + std::string(n.object_string()) +
                      " @" + std::to_string(n.issuer));
    };
  }
};

std::string r(int k) { return std::to_string(k); }

}  // namespace

BOOST_AUTO_TEST_CASE(modification_and_delete) {
  auto reg = regtest::make_registry();
  Log log;
  Ticket t = reg.subscribe("universe", {"x"}, kAnd, kAll, log.callback("S"));
  sync(reg);
  BOOST_TEST(t.status() == Status::ok);
  BOOST_TEST(log.lines.empty());  // nothing matched: no ADD_SUBSCRIBER either

  reg.put("universe", {"x", "r" + r(rank())}, std::string_view("v" + r(rank())));
  reg.put("universe", {"y"}, std::string_view("unrelated"));
  sync(reg);
  V expect;
  for (int k = 0; k < nranks(); ++k) expect.push_back("S MOD universe r" + r(k) + ",x=v" + r(k) + " @" + r(k));
  BOOST_TEST(log.lines == expect, boost::test_tools::per_element());

  log.lines.clear();
  if (rank() == 0) {
    reg.put("universe", {"r0", "x"}, std::string_view("w0"), kOverwrite);
    reg.put("universe", {"r0", "x"}, std::string_view("refused"));  // exists: no event
  }
  sync(reg);
  BOOST_TEST(log.lines == (V{"S MOD universe r0,x=w0 @0"}), boost::test_tools::per_element());

  log.lines.clear();
  if (rank() == nranks() - 1) reg.erase("universe", {"x"});
  sync(reg);
  expect.clear();
  const std::string last = r(nranks() - 1);
  for (int k = 0; k < nranks(); ++k)
    expect.push_back("S DEL universe r" + r(k) + ",x=" + (k == 0 ? "w0" : "v" + r(k)) + " @" + last);
  BOOST_TEST(log.lines == expect, boost::test_tools::per_element());
  BOOST_TEST(regtest::same_on_all_ranks(regtest::fnv([&] {
    std::string all;
    for (const auto& l : log.lines) all += l + "\n";
    return all;
  }())));
}

BOOST_AUTO_TEST_CASE(apply_order_within_one_sync) {
  auto reg = regtest::make_registry();
  Log log;
  // Each rank subscribes and then puts, in one sync. Rank k's subscription
  // is applied after the puts of ranks < k, so it hears size - k puts.
  reg.subscribe("universe", {"z"}, kOr, kModification, log.callback("Z"));
  reg.put("universe", {"z", "p" + r(rank())}, std::string_view(r(rank())));
  sync(reg);
  V expect;
  for (int k = rank(); k < nranks(); ++k) expect.push_back("Z MOD universe p" + r(k) + ",z=" + r(k) + " @" + r(k));
  BOOST_TEST(log.lines == expect, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(modes_of_subscriptions) {
  auto reg = regtest::make_registry();
  Log log;
  if (rank() == 0) {
    reg.subscribe("universe", {"a", "b"}, kXand, kModification, log.callback("XAND"));
    reg.subscribe("universe", {"a", "b"}, kXor, kModification, log.callback("XOR"));
    reg.subscribe("universe", {"a", "b"}, kAnd, kModification, log.callback("AND"));
  }
  sync(reg);
  if (rank() == 0) {
    reg.put("universe", {"a"}, std::string_view("1"));            // XOR
    reg.put("universe", {"a", "b"}, std::string_view("2"));       // XAND XOR AND
    reg.put("universe", {"a", "b", "c"}, std::string_view("3"));  // AND
    reg.put("universe", {"c"}, std::string_view("4"));            // none
  }
  sync(reg);
  const V expect = rank() == 0 ? V{"XOR MOD universe a=1 @0", "XAND MOD universe a,b=2 @0", "XOR MOD universe a,b=2 @0",
                                   "AND MOD universe a,b=2 @0", "AND MOD universe a,b,c=3 @0"}
                               : V{};
  BOOST_TEST(log.lines == expect, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(add_subscriber) {
  auto reg = regtest::make_registry();
  Log log;
  if (rank() == 0) reg.put("universe", {"y", "shared"}, std::string_view("obj"));
  sync(reg);
  if (rank() == 0) reg.subscribe("universe", {"y"}, kAnd, kAddSubscriber, log.callback("W"));
  sync(reg);
  BOOST_TEST(log.lines.empty());
  // Every other rank subscribes to a pattern sharing the object; rank 0
  // also adds a second subscription of its own (not "another subscriber"),
  // and rank 1 one that shares nothing.
  if (rank() != 0) reg.subscribe("universe", {"shared", "other"}, kOr, kDelete, log.callback("T"));
  if (rank() == 0) reg.subscribe("universe", {"shared"}, kAnd, kAll, log.callback("U"));
  if (rank() == 1) reg.subscribe("universe", {"elsewhere"}, kAnd, kAll, log.callback("N"));
  sync(reg);
  V expect;
  if (rank() == 0)
    for (int k = 1; k < nranks(); ++k) {
      // Both of rank 0's subscriptions hear of each newcomer; U only wants
      // ADD_SUBSCRIBER through kAll, and exists before ranks >= 1 subscribe.
      expect.push_back("W ADD universe other,shared= @" + r(k));
      expect.push_back("U ADD universe other,shared= @" + r(k));
    }
  BOOST_TEST(log.lines == expect, boost::test_tools::per_element());
  // Re-subscribing with the same identity replaces, it does not add.
  log.lines.clear();
  if (rank() != 0) reg.subscribe("universe", {"other", "shared"}, kOr, kDelete, log.callback("T"));
  sync(reg);
  BOOST_TEST(log.lines.empty());
}

BOOST_AUTO_TEST_CASE(unsubscribe_stops_notifications) {
  auto reg = regtest::make_registry();
  Log log;
  reg.subscribe("universe", {"u"}, kAnd, kAll, log.callback("S"));
  sync(reg);
  if (rank() == 0) reg.put("universe", {"u"}, std::string_view("1"));
  sync(reg);
  BOOST_TEST(log.lines.size() == 1u);
  Ticket t = reg.unsubscribe("universe", {"u"}, kAnd);
  Ticket other_mode = reg.unsubscribe("universe", {"u"}, kOr);  // never subscribed: ok
  sync(reg);
  BOOST_TEST(t.status() == Status::ok);
  BOOST_TEST(other_mode.status() == Status::ok);
  if (rank() == 0) reg.put("universe", {"u"}, std::string_view("2"), kOverwrite);
  sync(reg);
  BOOST_TEST(log.lines.size() == 1u);
  // Unsubscribing in the same sync as an event drops that event too. (Not
  // kAll: each newcomer would be an ADD_SUBSCRIBER for the lower ranks.)
  reg.subscribe("universe", {"u"}, kAnd, kModification | kDelete, log.callback("S"));
  sync(reg);
  if (rank() == 0) reg.put("universe", {"u"}, std::string_view("3"), kOverwrite);
  reg.unsubscribe("universe", {"u"});
  sync(reg);
  BOOST_TEST(log.lines.size() == 1u);
}

BOOST_AUTO_TEST_CASE(what_a_callback_may_do) {
  auto reg = regtest::make_registry();
  int calls = 0;
  Status inner = Status::ok;
  std::vector<std::string> seen;
  Ticket recorded;
  reg.subscribe("universe", {"cb"}, kAnd, kModification, [&](const Notification&) {
    ++calls;
    seen = regtest::objects(reg.get("universe", {"cb"}));  // the state after the sync
    inner = reg.sync();                                    // refused
    recorded = reg.put("universe", {"from-callback", r(rank())}, std::string_view("later"), kOverwrite);
  });
  sync(reg);
  if (rank() == 0) {
    reg.put("universe", {"cb"}, std::string_view("a"));
    reg.put("universe", {"cb"}, std::string_view("b"), kOverwrite);
  }
  sync(reg);
  BOOST_TEST(calls == 2);
  BOOST_TEST(seen == (V{"b"}), boost::test_tools::per_element());
  BOOST_TEST(inner == Status::busy);
  BOOST_TEST(recorded.status() == Status::pending);
  BOOST_TEST(reg.pending() == 2u);
  sync(reg);
  BOOST_TEST(recorded.status() == Status::ok);
  BOOST_TEST(reg.get("universe", {"from-callback"})->size() == static_cast<std::size_t>(nranks()));
}
