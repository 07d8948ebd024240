// Covers every registry operation and mode with hand-computed results:
// segments (predefined, define, duplicate), put with and without OVERWRITE,
// get and erase under AND/OR/XAND/XOR, index, conflicting operations from
// several ranks in one sync, visibility of pending writes, access control,
// bad input to every call, and the exchange path for totals above the
// MPI count limit (forced by a small limit). Notifications, the C API and
// randomized runs are in their own suites.
#include "util.hpp"

#include <climits>

using namespace registry;
using regtest::objects;
using regtest::sync;
using V = std::vector<std::string>;

namespace {
int rank() { return mpitest::world_rank(); }
int nranks() { return mpitest::world_size(); }
}  // namespace

BOOST_AUTO_TEST_CASE(predefined_segments) {
  auto reg = regtest::make_registry();
  BOOST_TEST(reg.index() == (V{"universe", "world.0"}), boost::test_tools::per_element());
  BOOST_TEST(reg.world_segment() == "world.0");
  BOOST_TEST(reg.contains_segment("universe"));
  auto idx = reg.index("universe");
  BOOST_TEST(idx.ok());
  BOOST_TEST(idx->empty());
  BOOST_TEST(reg.index("nope").status() == Status::not_found);
  BOOST_TEST(reg.rank() == rank());
  BOOST_TEST(reg.size() == nranks());
}

BOOST_AUTO_TEST_CASE(define_segment_once) {
  auto reg = regtest::make_registry();
  // Every rank defines "s" in the same sync: the lowest rank wins.
  Ticket t = reg.define_segment("s");
  BOOST_TEST(t.status() == Status::pending);
  BOOST_TEST(!reg.contains_segment("s"));  // not before sync
  BOOST_TEST(reg.pending() == 1u);
  sync(reg);
  BOOST_TEST(reg.pending() == 0u);
  BOOST_TEST(t.status() == (rank() == 0 ? Status::ok : Status::exists), RANK_MSG);
  BOOST_TEST(reg.contains_segment("s"));
  Ticket again = reg.define_segment("universe");
  sync(reg);
  BOOST_TEST(again.status() == Status::exists);
  BOOST_TEST(reg.index() == (V{"s", "universe", "world.0"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(matching_modes) {
  auto reg = regtest::make_registry();
  reg.define_segment("m");
  sync(reg);
  // Only rank 0 writes; every rank checks the same results.
  if (rank() == 0) {
    reg.put("m", {"a"}, std::string_view("A"));
    reg.put("m", {"b", "a"}, std::string_view("B"));
    reg.put("m", {"b", "c"}, std::string_view("C"));
    reg.put("m", {"c", "a", "b"}, std::string_view("D"));
    reg.put("m", {"d"}, std::string_view("E"));
  }
  sync(reg);
  BOOST_TEST(objects(reg.get("m", {"a"}, kAnd)) == (V{"A", "B", "D"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"a"})) == (V{"A", "B", "D"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"a"}, 0)) == (V{"A", "B", "D"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"b", "a"}, kAnd)) == (V{"B", "D"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"a", "x"}, kAnd)).empty());
  BOOST_TEST(objects(reg.get("m", {"a", "c"}, kOr)) == (V{"A", "B", "C", "D"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"x"}, kOr)).empty());
  BOOST_TEST(objects(reg.get("m", {"x", "d"}, kOr)) == (V{"E"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"a", "b"}, kXand)) == (V{"B"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"b", "a", "b"}, kXand)) == (V{"B"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"a"}, kXand)) == (V{"A"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"a", "b", "x"}, kXand)).empty());
  BOOST_TEST(objects(reg.get("m", {"a", "b"}, kXor)) == (V{"A", "B"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"a", "b", "c"}, kXor)) == (V{"A", "B", "C", "D"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"d", "x"}, kXor)) == (V{"E"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("m", {"c"}, kXor)).empty());
  // OVERWRITE in a get's mode is ignored.
  BOOST_TEST(objects(reg.get("m", {"c"}, kOverwrite | kOr)) == (V{"C", "D"}), boost::test_tools::per_element());

  auto d = reg.get("m", {"c", "b", "a"}, kXand);
  BOOST_REQUIRE(d.ok());
  BOOST_REQUIRE(d->size() == 1u);
  BOOST_TEST((*d)[0].tokens == (V{"a", "b", "c"}), boost::test_tools::per_element());
  BOOST_TEST(reg.index("m").value() == (V{"a", "b", "c", "d"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(get_returns_copies) {
  auto reg = regtest::make_registry();
  if (rank() == 0) reg.put("universe", {"k"}, std::string_view("orig"));
  sync(reg);
  auto r = reg.get("universe", {"k"});
  BOOST_REQUIRE(r.ok() && r->size() == 1u);
  (*r)[0].object[0] = std::byte{'X'};
  (*r)[0].tokens[0] = "changed";
  BOOST_TEST(objects(reg.get("universe", {"k"})) == (V{"orig"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(put_overwrite_or_not) {
  auto reg = regtest::make_registry();
  if (rank() == 0) reg.put("universe", {"p", "q"}, std::string_view("1"));
  sync(reg);
  Ticket plain;
  Ticket over;
  if (rank() == 0) plain = reg.put("universe", {"q", "p"}, std::string_view("2"));
  sync(reg);
  if (rank() == 0) BOOST_TEST(plain.status() == Status::exists);
  BOOST_TEST(objects(reg.get("universe", {"p"})) == (V{"1"}), boost::test_tools::per_element());
  // Same set, other order and a duplicate: the same object.
  if (rank() == 0) over = reg.put("universe", {"q", "p", "q"}, std::string_view("3"), kOverwrite);
  sync(reg);
  if (rank() == 0) BOOST_TEST(over.status() == Status::ok);
  BOOST_TEST(objects(reg.get("universe", {"p"})) == (V{"3"}), boost::test_tools::per_element());
  // A subset is another object, not an overwrite.
  if (rank() == 0) reg.put("universe", {"p"}, std::string_view("4"));
  sync(reg);
  BOOST_TEST(objects(reg.get("universe", {"p"})) == (V{"3", "4"}), boost::test_tools::per_element());
  // Zero-length objects are objects.
  if (rank() == 0) reg.put("universe", {"empty"}, Bytes());
  sync(reg);
  auto e = reg.get("universe", {"empty"});
  BOOST_REQUIRE(e.ok() && e->size() == 1u);
  BOOST_TEST((*e)[0].object.empty());
}

BOOST_AUTO_TEST_CASE(conflicting_puts_in_one_sync) {
  auto reg = regtest::make_registry();
  const std::string mine = "rank " + std::to_string(rank());
  Ticket plain = reg.put("universe", {"c"}, std::string_view(mine));
  Ticket over = reg.put("universe", {"d"}, std::string_view(mine), kOverwrite);
  sync(reg);
  // Order is by rank: rank 0 creates both; later plain puts fail, later
  // overwrites win, so the last rank's value stays.
  BOOST_TEST(plain.status() == (rank() == 0 ? Status::ok : Status::exists), RANK_MSG);
  BOOST_TEST(over.status() == Status::ok, RANK_MSG);
  BOOST_TEST(objects(reg.get("universe", {"c"})) == (V{"rank 0"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("universe", {"d"})) == (V{"rank " + std::to_string(nranks() - 1)}),
             boost::test_tools::per_element());
  // Within one rank, issue order decides: put then erase then put.
  if (rank() == nranks() - 1) {
    reg.put("universe", {"e"}, std::string_view("first"));
    reg.erase("universe", {"e"});
    reg.put("universe", {"e"}, std::string_view("second"));
  }
  sync(reg);
  BOOST_TEST(objects(reg.get("universe", {"e"})) == (V{"second"}), boost::test_tools::per_element());
  BOOST_TEST(regtest::same_on_all_ranks(regtest::fnv(regtest::content(reg))));
}

BOOST_AUTO_TEST_CASE(pending_writes_are_not_visible) {
  auto reg = regtest::make_registry();
  reg.put("universe", {"own", std::to_string(rank())}, std::string_view("x"));
  BOOST_TEST(reg.get("universe", {"own"})->empty());
  BOOST_TEST(reg.index("universe")->empty());
  sync(reg);
  BOOST_TEST(reg.get("universe", {"own"})->size() == static_cast<std::size_t>(nranks()));
}

BOOST_AUTO_TEST_CASE(erase_many) {
  auto reg = regtest::make_registry();
  // Each rank puts 100 objects tagged "g" and one tagged "h".
  for (int i = 0; i < 100; ++i)
    reg.put("universe", {"g", "i" + std::to_string(rank() * 1000 + i)}, std::string_view("g"));
  reg.put("universe", {"h", "r" + std::to_string(rank())}, std::string_view("h"));
  sync(reg);
  BOOST_TEST(reg.get("universe", {"g"})->size() == 100u * static_cast<std::size_t>(nranks()));
  Ticket t;
  if (rank() == 0) t = reg.erase("universe", {"g"}, kAnd);
  sync(reg);
  if (rank() == 0) BOOST_TEST(t.status() == Status::ok);
  BOOST_TEST(reg.get("universe", {"g"})->empty());
  BOOST_TEST(reg.get("universe", {"g", "h"}, kOr)->size() == static_cast<std::size_t>(nranks()));
  // The tokens of erased objects leave the dictionary.
  V expect{"h"};
  for (int r = 0; r < nranks(); ++r) expect.push_back("r" + std::to_string(r));
  std::sort(expect.begin(), expect.end());
  BOOST_TEST(reg.index("universe").value() == expect, boost::test_tools::per_element());
  // Erasing what is not there: not_found, and nothing changes.
  const auto before = reg.digest();
  t = reg.erase("universe", {"g"});
  Ticket x = reg.erase("universe", {"h", "nothing"}, kXand);
  sync(reg);
  BOOST_TEST(t.status() == Status::not_found);
  BOOST_TEST(x.status() == Status::not_found);
  BOOST_TEST(reg.digest() == before);
  // XOR erase: objects tagged only by query tokens.
  if (rank() == 0) {
    reg.put("universe", {"h"}, std::string_view("only h"));
    reg.erase("universe", {"h", "r0"}, kXor);  // takes {h} and {h, r0}
  }
  sync(reg);
  BOOST_TEST(reg.get("universe", {"h"})->size() == static_cast<std::size_t>(nranks() - 1));
}

BOOST_AUTO_TEST_CASE(access_control) {
  auto reg = regtest::make_registry();
  const int last = nranks() - 1;
  if (rank() == 0) {
    reg.define_segment("owned", {0});
    reg.define_segment("pair", {last, 0});
  }
  sync(reg);
  const std::string me = std::to_string(rank());
  Ticket a = reg.put("owned", {"r" + me}, std::string_view(me));
  Ticket b = reg.put("pair", {"r" + me}, std::string_view(me));
  sync(reg);
  BOOST_TEST(a.status() == (rank() == 0 ? Status::ok : Status::denied), RANK_MSG);
  BOOST_TEST(b.status() == (rank() == 0 || rank() == last ? Status::ok : Status::denied), RANK_MSG);
  BOOST_TEST(objects(reg.get("owned", {"r0"})) == (V{"0"}), boost::test_tools::per_element());
  BOOST_TEST(reg.index("owned")->size() == 1u);
  BOOST_TEST(reg.index("pair")->size() == (nranks() == 1 ? 1u : 2u));
  // A denied erase leaves everything as it was.
  const auto before = reg.digest();
  Ticket e;
  if (rank() != 0) e = reg.erase("owned", {"r0"});
  sync(reg);
  if (rank() != 0) BOOST_TEST(e.status() == Status::denied, RANK_MSG);
  BOOST_TEST(reg.digest() == before);
  // Reading and subscribing stay open to everyone.
  Ticket s = reg.subscribe("owned", {"r0"}, kAnd, kAll, [](const Notification&) {});
  sync(reg);
  BOOST_TEST(s.status() == Status::ok);
  // Writer ranks must exist.
  BOOST_TEST(reg.define_segment("bad", {nranks()}).status() == Status::invalid_argument);
  BOOST_TEST(reg.define_segment("bad", {-1}).status() == Status::invalid_argument);
}

BOOST_AUTO_TEST_CASE(bad_input) {
  auto reg = regtest::make_registry();
  if (rank() == 0) reg.put("universe", {"keep"}, std::string_view("kept"));
  sync(reg);
  const auto before = reg.digest();
  const char one = 'x';
  auto noop = [](const Notification&) {};
  // Rejected when recorded: nothing is recorded at all.
  const std::vector<Ticket> now = {
      reg.define_segment(""),
      reg.put("", {"a"}, std::string_view("x")),
      reg.put("universe", {}, std::string_view("x")),
      reg.put("universe", {"a", ""}, std::string_view("x")),
      reg.put("universe", {"a"}, Bytes(nullptr, 5)),
      reg.put("universe", {"a"}, std::string_view("x"), 0x100),
      reg.erase("universe", {}),
      reg.erase("universe", {""}),
      reg.erase("universe", {"a"}, kAnd | kOr),
      reg.subscribe("universe", {}, kAnd, kAll, noop),
      reg.subscribe("universe", {"a"}, kAnd, 0, noop),
      reg.subscribe("universe", {"a"}, kAnd, kAll, nullptr),
      reg.subscribe("universe", {"a"}, kXor | kXand, kAll, noop),
      reg.unsubscribe("universe", {""}),
      reg.unsubscribe("", {"a"}),
  };
  for (std::size_t i = 0; i < now.size(); ++i)
    BOOST_TEST(now[i].status() == Status::invalid_argument, RANK_MSG "call " << i);
  // An object above 2 GiB is refused before a byte of it is read, so a
  // small buffer stands in for it.
  Ticket big = reg.put("universe", {"big"}, Bytes(&one, std::size_t{1} << 31));
  BOOST_TEST(big.status() == Status::too_large);
  BOOST_TEST(reg.pending() == 0u);
  BOOST_TEST(Ticket().status() == Status::invalid_argument);
  // Reads reject at once.
  BOOST_TEST(reg.get("nope", {"a"}).status() == Status::not_found);
  BOOST_TEST(reg.get("universe", {}).status() == Status::invalid_argument);
  BOOST_TEST(reg.get("universe", {""}).status() == Status::invalid_argument);
  BOOST_TEST(reg.get("", {"a"}).status() == Status::invalid_argument);
  BOOST_TEST(reg.get("universe", {"a"}, kOr | kAnd).status() == Status::invalid_argument);
  BOOST_TEST(reg.index("").status() == Status::not_found);
  // Unknown segment: decided at sync (another rank might define it first).
  Ticket p = reg.put("nope", {"a"}, std::string_view("x"));
  Ticket e = reg.erase("nope", {"a"});
  Ticket s = reg.subscribe("nope", {"a"}, kAnd, kAll, noop);
  Ticket u = reg.unsubscribe("nope", {"a"});
  Ticket d = reg.define_segment("universe");
  // Unsubscribing what was never subscribed succeeds.
  Ticket never = reg.unsubscribe("universe", {"never"}, kOr);
  sync(reg);
  BOOST_TEST(p.status() == Status::not_found);
  BOOST_TEST(e.status() == Status::not_found);
  BOOST_TEST(s.status() == Status::not_found);
  BOOST_TEST(u.status() == Status::not_found);
  BOOST_TEST(d.status() == Status::exists);
  BOOST_TEST(never.status() == Status::ok);
  BOOST_TEST(reg.digest() == before);
  BOOST_TEST(objects(reg.get("universe", {"keep"})) == (V{"kept"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(exchange_in_large_units) {
  // A count limit of 7 forces the path that pads contributions to a larger
  // MPI datatype (the one taken when the total exceeds INT_MAX bytes).
  Options o;
  o.check_replicas = true;
  o.max_exchange_count = 7;
  auto r = Registry::create(MPI_COMM_WORLD, o);
  BOOST_REQUIRE(r.ok());
  Registry reg = std::move(r).value();
  for (int i = 0; i < 20 + rank(); ++i) {
    std::string obj(static_cast<std::size_t>(i * 7 + rank()), static_cast<char>('a' + i % 26));
    reg.put("universe", {"r" + std::to_string(rank()), "i" + std::to_string(i)}, std::string_view(obj));
  }
  sync(reg);
  for (int q = 0; q < nranks(); ++q) {
    auto got = reg.get("universe", {"r" + std::to_string(q)});
    BOOST_REQUIRE(got.ok());
    BOOST_REQUIRE(got->size() == static_cast<std::size_t>(20 + q));
    for (int i = 0; i < 20 + q; ++i) {
      std::string obj(static_cast<std::size_t>(i * 7 + q), static_cast<char>('a' + i % 26));
      BOOST_TEST((*got)[static_cast<std::size_t>(i)].as_string() == obj, RANK_MSG "object " << q << "/" << i);
    }
  }
  // A rank with nothing to send is normal.
  if (rank() == 0) reg.put("universe", {"only0"}, std::string_view("z"));
  sync(reg);
  BOOST_TEST(objects(reg.get("universe", {"only0"})) == (V{"z"}), boost::test_tools::per_element());
  BOOST_TEST(reg.sync() == Status::ok);  // nothing pending anywhere
}

BOOST_AUTO_TEST_CASE(large_replica_applies_with_look_ahead) {
  // Enough objects that applying a sync looks ahead (dictionary and
  // identity slots fetched before their put runs, registry.cpp apply_ops):
  // overwrites, new objects, erases and puts to a segment defined earlier
  // in the same batch all apply as if one at a time, on every replica.
  auto reg = regtest::make_registry();
  const int me = rank(), n = nranks();
  constexpr int kPer = 20000;
  auto name = [](int q, int i) { return "o" + std::to_string(q) + "." + std::to_string(i); };
  for (int i = 0; i < kPer; ++i) reg.put("universe", {"r" + std::to_string(me), name(me, i)}, std::string_view("v1"));
  sync(reg);
  // Rank 0 defines a segment that every rank then writes in the same sync.
  if (me == 0) reg.define_segment("late");
  for (int i = 0; i < kPer; ++i) {
    const std::vector<std::string> toks{"r" + std::to_string(me), name(me, i)};
    if (i % 4 == 3) {
      reg.erase("universe", toks);
    } else if (i % 4 == 2) {
      reg.put("universe", {"r" + std::to_string(me), name(me, i), "extra"}, std::string_view("v2"));
    } else {
      reg.put("universe", toks, std::string_view("v2"), kOverwrite);
    }
    if (i % 1000 == 0) reg.put("late", {name(me, i)}, std::string_view("l"));
  }
  sync(reg);
  long bad = 0;
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < kPer; i += 97) {
      auto got = reg.get("universe", {name(q, i)});
      BOOST_REQUIRE(got.ok());
      const std::size_t want = i % 4 == 3 ? 0 : i % 4 == 2 ? 2 : 1;
      if (got->size() != want) {
        ++bad;
        continue;
      }
      // Results come in creation order: an object that gained a sibling
      // keeps its first value.
      const V want_values = want == 2 ? V{"v1", "v2"} : want == 1 ? V{"v2"} : V{};
      bad += objects(got) != want_values;
    }
  BOOST_TEST(bad == 0, RANK_MSG "objects with the wrong value or count");
  auto late = reg.get("late", {"o0.0"});
  BOOST_REQUIRE(late.ok());
  BOOST_TEST(late->size() == 1u, RANK_MSG);
}

BOOST_AUTO_TEST_CASE(create_rejects_bad_communicator) {
  BOOST_TEST(Registry::create(MPI_COMM_NULL).status() == Status::invalid_argument);
  // On a sub-communicator: its own world segment naming.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank() % 2, rank(), &half);
  {
    auto r = Registry::create(half);
    BOOST_REQUIRE(r.ok());
    // Every member shares the world of the lowest member (rank 0 of `half`).
    BOOST_TEST(r->world_segment() == "world.0");
    BOOST_TEST(r->index() == (V{"universe", "world.0"}), boost::test_tools::per_element());
  }
  MPI_Comm_free(&half);
}

// ---- operations applied at the first read --------------------------------
//
// Without replica checks and without subscriptions of its own, a rank
// applies a sync's operations at its first read (get, index, digest, a
// ticket's status). These cases read in every way that settles, and in
// none, and check the outcomes match the eager path's.

namespace {
Registry deferring_registry() {
  Options o;
  o.log_errors = false;  // check_replicas stays off: that path applies at once
  auto r = Registry::create(MPI_COMM_WORLD, o);
  BOOST_REQUIRE(r.ok());
  return std::move(r).value();
}
}  // namespace

BOOST_AUTO_TEST_CASE(deferred_ticket_is_the_first_read) {
  Registry reg = deferring_registry();
  const std::string mine = "rank " + std::to_string(rank());
  Ticket plain = reg.put("universe", {"c"}, std::string_view(mine));
  Ticket over = reg.put("universe", {"d"}, std::string_view(mine), kOverwrite);
  Ticket unknown = reg.put("no such segment", {"c"}, std::string_view(mine));
  sync(reg);
  // No get yet: the status itself applies the sync.
  BOOST_TEST(plain.status() == (rank() == 0 ? Status::ok : Status::exists), RANK_MSG);
  BOOST_TEST(over.status() == Status::ok, RANK_MSG);
  BOOST_TEST(unknown.status() == Status::not_found, RANK_MSG);
  BOOST_TEST(objects(reg.get("universe", {"c"})) == (V{"rank 0"}), boost::test_tools::per_element());
  BOOST_TEST(objects(reg.get("universe", {"d"})) == (V{"rank " + std::to_string(nranks() - 1)}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(deferred_syncs_apply_in_order) {
  Registry reg = deferring_registry();
  const std::string r = std::to_string(rank());
  // Three syncs and no read in between (each applies the last one's
  // operations before its exchange): create, overwrite, erase part.
  std::vector<Ticket> first, second, third;
  for (int i = 0; i < 50; ++i)
    first.push_back(reg.put("universe", {"r" + r, "i" + std::to_string(i)}, std::string_view("one")));
  sync(reg);
  for (int i = 0; i < 50; ++i)
    second.push_back(reg.put("universe", {"r" + r, "i" + std::to_string(i)}, std::string_view("two"),
                             i % 2 == 0 ? kOverwrite : 0));
  Ticket segment = reg.define_segment("s" + r, {rank()});
  sync(reg);
  for (int i = 0; i < 50; i += 5) third.push_back(reg.erase("universe", {"r" + r, "i" + std::to_string(i)}, kXand));
  Ticket into = reg.put("s" + r, {"x"}, std::string_view(r));
  sync(reg);
  // The first read (here a segment list) applies the third.
  BOOST_TEST(reg.contains_segment("s" + std::to_string((rank() + 1) % nranks())));
  BOOST_TEST(segment.status() == Status::ok, RANK_MSG);
  BOOST_TEST(into.status() == Status::ok, RANK_MSG);
  for (int i = 0; i < 50; ++i) {
    BOOST_TEST(first[static_cast<std::size_t>(i)].status() == Status::ok, RANK_MSG << i);
    BOOST_TEST(second[static_cast<std::size_t>(i)].status() == (i % 2 == 0 ? Status::ok : Status::exists),
               RANK_MSG << i);
  }
  for (const Ticket& t : third) BOOST_TEST(t.status() == Status::ok, RANK_MSG);
  for (int q = 0; q < nranks(); ++q) {
    V expect;
    for (int i = 0; i < 50; ++i)
      if (i % 5 != 0) expect.push_back(i % 2 == 0 ? "two" : "one");
    BOOST_TEST(objects(reg.get("universe", {"r" + std::to_string(q)})) == expect, boost::test_tools::per_element());
    BOOST_TEST(objects(reg.get("s" + std::to_string(q), {"x"})) == (V{std::to_string(q)}),
               boost::test_tools::per_element());
  }
  BOOST_TEST(regtest::same_on_all_ranks(reg.digest()));
}

BOOST_AUTO_TEST_CASE(deferred_ticket_outlives_its_registry) {
  Ticket t;
  {
    Registry reg = deferring_registry();
    t = reg.put("universe", {"shared"}, std::string_view("x"));
    reg.put("universe", {"r" + std::to_string(rank())}, std::string_view("y"));
    sync(reg);
  }  // destroyed (collectively) without a read
  BOOST_TEST(t.status() == (rank() == 0 ? Status::ok : Status::exists), RANK_MSG);
}

BOOST_AUTO_TEST_CASE(deferred_then_subscribed) {
  Registry reg = deferring_registry();
  // Sync 1 waits for a read; sync 2 holds this rank's subscription, so it
  // applies at once, after sync 1; sync 3 notifies.
  reg.put("universe", {"w", std::to_string(rank())}, std::string_view("old"));
  sync(reg);
  std::vector<std::string> seen;
  Ticket sub = reg.subscribe("universe", {"w"}, kAnd, kModification,
                             [&](const Notification& n) { seen.emplace_back(n.object_string()); });
  sync(reg);
  BOOST_TEST(sub.status() == Status::ok, RANK_MSG);
  Ticket again = reg.put("universe", {"w", std::to_string(rank())}, std::string_view("new"));
  Ticket replace = reg.put("universe", {"w", std::to_string(rank())}, std::string_view("newer"), kOverwrite);
  sync(reg);
  BOOST_TEST(again.status() == Status::exists, RANK_MSG);  // sync 1 created it
  BOOST_TEST(replace.status() == Status::ok, RANK_MSG);
  BOOST_TEST(seen == V(static_cast<std::size_t>(nranks()), "newer"), boost::test_tools::per_element());
}
