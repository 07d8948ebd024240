// Communication contexts (ext/dart_ctx.h): every operation on the default
// context and on created ones (shared, private, serialised, no-store),
// with every unit checking what its left neighbour wrote or what it read
// from its right neighbour; operands reused at once after each call; puts
// small enough for the context's stage and large enough to bypass it;
// put with signal, its data checked as each signal arrives; fence
// ordering a flag after data; quiet completing gets and fetches; two
// threads with a private context each and two threads sharing one; and
// bad input, refused with DART_ERR_INVAL and one log line.
//
// The .rma variant (DART_SHARED_MEMORY=0) sends everything through MPI
// RMA, where the context's pending set and quiet do the completing.
#include "dart_capture.hpp"
#include "dart_patterns.hpp"

#include <dash/dart/ext/dart_ctx.h>
#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/ext/dart_wait.h>
#include <dash/dart/if/dart.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

using dartcheck::at;
using dartcheck::raw_at;
using dartpattern::own;
using Fixture = dartcheck::DartFixture;

template <class T>
dart_gptr_t team_alloc(std::size_t nelem, dart_datatype_t dt) {
  dart_gptr_t g = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, nelem, dt, &g));
  return g;
}

constexpr std::size_t kSmall = 64;    // 512 bytes: staged
constexpr std::size_t kLarge = 4096;  // 32 KiB: more than the stage takes per put

struct Kind {
  const char* name;
  unsigned options;
  bool is_default;
};

const Kind kKinds[] = {
    {"DART_CTX_DEFAULT", 0, true},
    {"shared (0)", 0, false},
    {"DART_CTX_PRIVATE", DART_CTX_PRIVATE, false},
    {"DART_CTX_SERIALIZED", DART_CTX_SERIALIZED, false},
    {"DART_CTX_PRIVATE|DART_CTX_SERIALIZED", DART_CTX_PRIVATE | DART_CTX_SERIALIZED, false},
};

// Runs body(ctx) on a context of every kind (created and destroyed here).
template <class Body>
void for_each_context(Body&& body) {
  for (const Kind& k : kKinds) {
    dart_ctx_t c = DART_CTX_DEFAULT;
    if (!k.is_default) {
      REQUIRE_OK(dart_ctx_create(k.options, &c));
      REQUIRE_RANK(c != DART_CTX_DEFAULT);
    }
    BOOST_TEST_CONTEXT("context " << k.name) { body(c); }
    if (!k.is_default) {
      CHECK_OK(dart_ctx_destroy(&c));
      CHECK_RANK(c == DART_CTX_DEFAULT);
    }
  }
}

long value_of(int unit, std::size_t i, long salt) { return static_cast<long>(unit) * 1000003L + static_cast<long>(i) * 7 + salt; }

std::size_t count_wrong(const long* got, std::size_t n, int unit, long salt) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += got[i] != value_of(unit, i, salt);
  return wrong;
}

// Puts of `n` longs to the right neighbour, the source overwritten right
// after the call; after quiet and a barrier every unit holds its left
// neighbour's values.
void puts_arrive(const Fixture& f, dart_ctx_t c, std::size_t n, long salt) {
  const dart_gptr_t g = team_alloc<long>(n, DART_TYPE_LONG);
  long* mine = own<long>(g, f.me);
  std::fill(mine, mine + n, -1L);
  f.barrier();
  std::vector<long> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = value_of(f.me, i, salt);
  CHECK_OK(dart_ctx_put(c, at(g, f.right), src.data(), n, DART_TYPE_LONG));
  std::fill(src.begin(), src.end(), -2L);  // the source may be reused on return
  CHECK_OK(dart_ctx_quiet(c));
  f.barrier();
  CHECK_EQ(count_wrong(mine, n, f.left, salt), std::size_t{0});
  f.barrier();
  CHECK_OK(dart_team_memfree(g));
}

// Gets of `n` longs from the right neighbour; complete after quiet.
void gets_complete(const Fixture& f, dart_ctx_t c, std::size_t n, long salt) {
  const dart_gptr_t g = team_alloc<long>(n, DART_TYPE_LONG);
  long* mine = own<long>(g, f.me);
  for (std::size_t i = 0; i < n; ++i) mine[i] = value_of(f.me, i, salt);
  f.barrier();
  std::vector<long> dst(n, -1L);
  CHECK_OK(dart_ctx_get(c, dst.data(), at(g, f.right), n, DART_TYPE_LONG));
  CHECK_OK(dart_ctx_quiet(c));
  CHECK_EQ(count_wrong(dst.data(), n, f.right, salt), std::size_t{0});
  f.barrier();
  CHECK_OK(dart_team_memfree(g));
}

// Two accumulates (SUM) of `n` longs to the right neighbour from one
// buffer changed in between.
void accumulates_add_up(const Fixture& f, dart_ctx_t c, std::size_t n) {
  const dart_gptr_t g = team_alloc<long>(n, DART_TYPE_LONG);
  long* mine = own<long>(g, f.me);
  std::fill(mine, mine + n, 0L);
  f.barrier();
  std::vector<long> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value_of(f.me, i, 1);
  CHECK_OK(dart_ctx_accumulate(c, at(g, f.right), v.data(), n, DART_TYPE_LONG, DART_OP_SUM));
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<long>(i);
  CHECK_OK(dart_ctx_accumulate(c, at(g, f.right), v.data(), n, DART_TYPE_LONG, DART_OP_SUM));
  std::fill(v.begin(), v.end(), 1000000000L);
  CHECK_OK(dart_ctx_quiet(c));
  f.barrier();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += mine[i] != value_of(f.left, i, 1) + static_cast<long>(i);
  CHECK_EQ(wrong, std::size_t{0});
  f.barrier();
  CHECK_OK(dart_team_memfree(g));
}

// Fetch-adds on the right neighbour's counter (only this unit adds
// there): the results, valid after quiet, are 0 .. k-1; compare-and-swap
// on its word: the first succeeds, the second sees the first's value.
void fetching_atomics(const Fixture& f, dart_ctx_t c) {
  constexpr int k = 10;
  const dart_gptr_t g = team_alloc<long>(2, DART_TYPE_LONG);
  long* mine = own<long>(g, f.me);
  mine[0] = 0;
  mine[1] = 0;
  f.barrier();
  std::vector<long> results(k, -1L);
  long one = 1;
  for (int i = 0; i < k; ++i) {
    CHECK_OK(dart_ctx_fetch_and_op(c, at(g, f.right), &one, &results[static_cast<std::size_t>(i)], DART_TYPE_LONG,
                                   DART_OP_SUM));
    one = 1;  // rewritten: the operand may be reused at once
  }
  long swapped = -1, value = f.me + 1, compare = 0;
  CHECK_OK(dart_ctx_compare_and_swap(c, at(g, f.right, sizeof(long)), &value, &compare, &swapped, DART_TYPE_LONG));
  value = -5;
  compare = -5;
  CHECK_OK(dart_ctx_quiet(c));
  std::sort(results.begin(), results.end());
  std::size_t wrong = 0;
  for (int i = 0; i < k; ++i) wrong += results[static_cast<std::size_t>(i)] != i;
  CHECK_EQ(wrong, std::size_t{0});
  CHECK_EQ(swapped, 0L);
  long again = -1;
  value = 99;
  compare = 0;
  CHECK_OK(dart_ctx_compare_and_swap(c, at(g, f.right, sizeof(long)), &value, &compare, &again, DART_TYPE_LONG));
  CHECK_OK(dart_ctx_quiet(c));
  CHECK_EQ(again, static_cast<long>(f.me + 1));
  f.barrier();
  CHECK_EQ(mine[0], static_cast<long>(k));
  CHECK_EQ(mine[1], static_cast<long>(f.left + 1));
  f.barrier();
  CHECK_OK(dart_team_memfree(g));
}

// Put with signal into slot i of the right neighbour, i = 0 .. slots-1,
// the signal added to each time; a unit that sees its signal at i+1 or
// more must find slot i's data.
void put_signal_orders_data(const Fixture& f, dart_ctx_t c, std::size_t slots, std::size_t per_slot) {
  const dart_gptr_t data = team_alloc<long>(slots * per_slot, DART_TYPE_LONG);
  const dart_gptr_t sig = team_alloc<std::uint64_t>(1, DART_TYPE_ULONGLONG);
  long* mine = own<long>(data, f.me);
  std::uint64_t* my_sig = own<std::uint64_t>(sig, f.me);
  std::fill(mine, mine + slots * per_slot, -1L);
  *my_sig = 0;
  f.barrier();
  std::vector<long> src(per_slot);
  std::size_t wrong = 0;
  for (std::size_t s = 0; s < slots; ++s) {
    for (std::size_t i = 0; i < per_slot; ++i) src[i] = value_of(f.me, s * per_slot + i, 3);
    CHECK_OK(dart_ctx_put_signal(c, at(data, f.right, s * per_slot * sizeof(long)), src.data(), per_slot,
                                 DART_TYPE_LONG, at(sig, f.right), 1, DART_SIGNAL_ADD));
    std::fill(src.begin(), src.end(), -3L);
    std::uint64_t seen = 0;
    CHECK_OK(dart_signal_wait_until(at(sig, f.me), DART_CMP_GE, s + 1, &seen));
    for (std::size_t i = 0; i < per_slot; ++i) wrong += mine[s * per_slot + i] != value_of(f.left, s * per_slot + i, 3);
  }
  CHECK_EQ(wrong, std::size_t{0});
  CHECK_OK(dart_ctx_quiet(c));
  f.barrier();
  CHECK_EQ(*my_sig, static_cast<std::uint64_t>(slots));
  f.barrier();
  CHECK_OK(dart_team_memfree(sig));
  CHECK_OK(dart_team_memfree(data));
}

// Data, a fence, then a flag by a plain put: a unit that sees the flag
// finds the data.
void fence_orders_puts(const Fixture& f, dart_ctx_t c) {
  const dart_gptr_t data = team_alloc<long>(kSmall, DART_TYPE_LONG);
  const dart_gptr_t flag = team_alloc<long>(1, DART_TYPE_LONG);
  long* mine = own<long>(data, f.me);
  std::fill(mine, mine + kSmall, -1L);
  *own<long>(flag, f.me) = 0;
  f.barrier();
  std::vector<long> src(kSmall);
  for (std::size_t i = 0; i < kSmall; ++i) src[i] = value_of(f.me, i, 5);
  CHECK_OK(dart_ctx_put(c, at(data, f.right), src.data(), kSmall, DART_TYPE_LONG));
  CHECK_OK(dart_ctx_fence(c));
  const long one = 1;
  CHECK_OK(dart_ctx_put(c, at(flag, f.right), &one, 1, DART_TYPE_LONG));
  CHECK_OK(dart_ctx_quiet(c));
  CHECK_OK(dart_wait_until(at(flag, f.me), DART_CMP_EQ, &one, DART_TYPE_LONG));
  CHECK_EQ(count_wrong(mine, kSmall, f.left, 5), std::size_t{0});
  f.barrier();
  CHECK_OK(dart_team_memfree(flag));
  CHECK_OK(dart_team_memfree(data));
}

BOOST_FIXTURE_TEST_CASE(every_operation_on_every_context, Fixture) {
  long salt = 0;
  for_each_context([&](dart_ctx_t c) {
    ++salt;
    puts_arrive(*this, c, kSmall, salt);
    puts_arrive(*this, c, 1, salt);
    puts_arrive(*this, c, kLarge, salt);
    gets_complete(*this, c, kSmall, salt);
    gets_complete(*this, c, kLarge, salt);
    accumulates_add_up(*this, c, kSmall);
    accumulates_add_up(*this, c, kLarge);
    fetching_atomics(*this, c);
    put_signal_orders_data(*this, c, 50, 4);
    put_signal_orders_data(*this, c, 4, kLarge);
    fence_orders_puts(*this, c);
  });
}

// Many puts without a quiet: more than the stage holds (1 MiB), so the
// context completes itself on the way; every value must arrive.
BOOST_FIXTURE_TEST_CASE(many_staged_puts_before_one_quiet, Fixture) {
  constexpr std::size_t kPuts = 3000, kEach = 64;  // 3000 x 512 bytes
  const dart_gptr_t g = team_alloc<long>(kPuts * kEach, DART_TYPE_LONG);
  long* mine = own<long>(g, me);
  std::fill(mine, mine + kPuts * kEach, -1L);
  barrier();
  dart_ctx_t c = DART_CTX_DEFAULT;
  REQUIRE_OK(dart_ctx_create(DART_CTX_PRIVATE, &c));
  std::vector<long> src(kEach);
  for (std::size_t p = 0; p < kPuts; ++p) {
    for (std::size_t i = 0; i < kEach; ++i) src[i] = value_of(me, p * kEach + i, 9);
    CHECK_OK(dart_ctx_put(c, at(g, right, p * kEach * sizeof(long)), src.data(), kEach, DART_TYPE_LONG));
  }
  CHECK_OK(dart_ctx_quiet(c));
  barrier();
  CHECK_EQ(count_wrong(mine, kPuts * kEach, left, 9), std::size_t{0});
  CHECK_OK(dart_ctx_destroy(&c));
  barrier();
  CHECK_OK(dart_team_memfree(g));
}

// A no-store context gets and fetches; destroy completes what is pending.
BOOST_FIXTURE_TEST_CASE(nostore_context_reads_and_fetches, Fixture) {
  dart_ctx_t c = DART_CTX_DEFAULT;
  REQUIRE_OK(dart_ctx_create(DART_CTX_NOSTORE | DART_CTX_PRIVATE, &c));
  gets_complete(*this, c, kSmall, 11);
  fetching_atomics(*this, c);
  // A get left pending: destroy completes it.
  const dart_gptr_t g = team_alloc<long>(kLarge, DART_TYPE_LONG);
  long* mine = own<long>(g, me);
  for (std::size_t i = 0; i < kLarge; ++i) mine[i] = value_of(me, i, 12);
  barrier();
  std::vector<long> dst(kLarge, -1L);
  CHECK_OK(dart_ctx_get(c, dst.data(), at(g, right), kLarge, DART_TYPE_LONG));
  CHECK_OK(dart_ctx_destroy(&c));
  CHECK_RANK(c == DART_CTX_DEFAULT);
  CHECK_EQ(count_wrong(dst.data(), kLarge, right, 12), std::size_t{0});
  barrier();
  CHECK_OK(dart_team_memfree(g));
}

// Operations completed by dart_flush_all, then the segment freed: a later
// quiet of the default context must not touch the freed window.
BOOST_FIXTURE_TEST_CASE(quiet_after_the_segment_was_freed, Fixture) {
  const dart_gptr_t g = team_alloc<long>(kSmall, DART_TYPE_LONG);
  std::vector<long> src(kSmall, 1L);
  CHECK_OK(dart_ctx_put(DART_CTX_DEFAULT, at(g, right), src.data(), kSmall, DART_TYPE_LONG));
  CHECK_OK(dart_flush_all(g));
  barrier();
  CHECK_OK(dart_team_memfree(g));
  CHECK_OK(dart_ctx_quiet(DART_CTX_DEFAULT));
  CHECK_OK(dart_ctx_fence(DART_CTX_DEFAULT));
  // And a new segment works on the same context.
  puts_arrive(*this, DART_CTX_DEFAULT, kSmall, 13);
}

// ---- threads ---------------------------------------------------------------------

constexpr int kThreads = 2;
constexpr std::size_t kThreadPuts = 400;

// Each of kThreads threads puts kThreadPuts values into its own range of
// the right neighbour's memory, with a quiet every few puts; afterwards
// every unit holds all of its left neighbour's values. With `shared` the
// threads use that context; otherwise each creates a private one of its
// own, uses it and destroys it.
void threads_put(const Fixture& f, const dart_ctx_t* shared, const char* what) {
  const dart_gptr_t g = team_alloc<long>(kThreads * kThreadPuts, DART_TYPE_LONG);
  long* mine = own<long>(g, f.me);
  std::fill(mine, mine + kThreads * kThreadPuts, -1L);
  f.barrier();
  std::atomic<int> failures{0};
  auto worker = [&](int t) {
    dart_ctx_t c = DART_CTX_DEFAULT;
    if (shared) c = *shared;
    else if (dart_ctx_create(DART_CTX_PRIVATE, &c) != DART_OK) ++failures;
    for (std::size_t i = 0; i < kThreadPuts; ++i) {
      const std::size_t slot = static_cast<std::size_t>(t) * kThreadPuts + i;
      const long v = value_of(f.me, slot, 21);
      if (dart_ctx_put(c, at(g, f.right, slot * sizeof(long)), &v, 1, DART_TYPE_LONG) != DART_OK) ++failures;
      if (i % 4 == 3 && dart_ctx_quiet(c) != DART_OK) ++failures;
    }
    if (dart_ctx_quiet(c) != DART_OK) ++failures;
    if (!shared && dart_ctx_destroy(&c) != DART_OK) ++failures;
  };
  if (f.multiple) {
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t) ts.emplace_back(worker, t);
    for (auto& th : ts) th.join();
  } else {
    BOOST_TEST_MESSAGE("rank " << f.me << ": DART_THREAD_MULTIPLE not granted; " << what << " on one thread");
    for (int t = 0; t < kThreads; ++t) worker(t);
  }
  CHECK_EQ(failures.load(), 0);
  f.barrier();
  BOOST_TEST_CONTEXT(what) { CHECK_EQ(count_wrong(mine, kThreads * kThreadPuts, f.left, 21), std::size_t{0}); }
  f.barrier();
  CHECK_OK(dart_team_memfree(g));
}

BOOST_FIXTURE_TEST_CASE(threads_with_a_private_context_each, Fixture) {
  threads_put(*this, nullptr, "private contexts");
}

BOOST_FIXTURE_TEST_CASE(threads_sharing_a_context, Fixture) {
  dart_ctx_t shared = DART_CTX_DEFAULT;
  REQUIRE_OK(dart_ctx_create(0, &shared));
  threads_put(*this, &shared, "one shared context");
  CHECK_OK(dart_ctx_destroy(&shared));
  const dart_ctx_t def = DART_CTX_DEFAULT;
  threads_put(*this, &def, "the default context");
}

// `call` run by a thread of its own; its return code.
template <class Call>
dart_ret_t on_another_thread(Call&& call) {
  dart_ret_t rc = DART_OK;
  std::thread other([&] { rc = call(); });
  other.join();
  return rc;
}

// ---- bad input ---------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(bad_input_is_refused_with_inval, Fixture) {
  const dart_gptr_t g = team_alloc<long>(8, DART_TYPE_LONG);
  const dart_gptr_t sig = team_alloc<std::uint64_t>(1, DART_TYPE_ULONGLONG);
  long v = 1, r = 0, cmp = 0;
  dart_ctx_t c = DART_CTX_DEFAULT;

  // Creation and destruction.
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_create", dart_ctx_create(0, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_create", dart_ctx_create(0x100u, &c));
  CHECK_RANK(c == DART_CTX_DEFAULT);
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_destroy", dart_ctx_destroy(nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_destroy", dart_ctx_destroy(&c));  // DART_CTX_DEFAULT
  long not_a_context = 0;
  dart_ctx_t fake = reinterpret_cast<dart_ctx_t>(&not_a_context);
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_destroy", dart_ctx_destroy(&fake));

  // Use after destroy: every call, and a second destroy.
  REQUIRE_OK(dart_ctx_create(0, &c));
  const dart_ctx_t stale = c;
  REQUIRE_OK(dart_ctx_destroy(&c));
  CHECK_RANK(c == DART_CTX_DEFAULT);
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put", dart_ctx_put(stale, at(g, right), &v, 1, DART_TYPE_LONG));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_get", dart_ctx_get(stale, &r, at(g, right), 1, DART_TYPE_LONG));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_accumulate",
                 dart_ctx_accumulate(stale, at(g, right), &v, 1, DART_TYPE_LONG, DART_OP_SUM));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_fetch_and_op",
                 dart_ctx_fetch_and_op(stale, at(g, right), &v, &r, DART_TYPE_LONG, DART_OP_SUM));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_compare_and_swap",
                 dart_ctx_compare_and_swap(stale, at(g, right), &v, &cmp, &r, DART_TYPE_LONG));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put_signal",
                 dart_ctx_put_signal(stale, at(g, right), &v, 1, DART_TYPE_LONG, at(sig, right), 1, DART_SIGNAL_SET));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_fence", dart_ctx_fence(stale));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_quiet", dart_ctx_quiet(stale));
  dart_ctx_t again = stale;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_destroy", dart_ctx_destroy(&again));

  // A private context used by another thread (the log line is written
  // by that thread; captured around it).
  REQUIRE_OK(dart_ctx_create(DART_CTX_PRIVATE, &c));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put",
                 on_another_thread([&] { return dart_ctx_put(c, at(g, right), &v, 1, DART_TYPE_LONG); }));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_quiet", on_another_thread([&] { return dart_ctx_quiet(c); }));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_destroy", on_another_thread([&] { return dart_ctx_destroy(&c); }));
  CHECK_OK(dart_ctx_put(c, at(g, right), &v, 1, DART_TYPE_LONG));  // the creator may
  CHECK_OK(dart_ctx_destroy(&c));

  // No stores on a no-store context; reads are fine.
  REQUIRE_OK(dart_ctx_create(DART_CTX_NOSTORE, &c));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put", dart_ctx_put(c, at(g, right), &v, 1, DART_TYPE_LONG));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_accumulate",
                 dart_ctx_accumulate(c, at(g, right), &v, 1, DART_TYPE_LONG, DART_OP_SUM));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put_signal",
                 dart_ctx_put_signal(c, at(g, right), &v, 1, DART_TYPE_LONG, at(sig, right), 1, DART_SIGNAL_SET));
  CHECK_OK(dart_ctx_get(c, &r, at(g, right), 1, DART_TYPE_LONG));
  CHECK_OK(dart_ctx_fetch_and_op(c, at(g, right), &v, &r, DART_TYPE_LONG, DART_OP_NO_OP));
  CHECK_OK(dart_ctx_quiet(c));
  CHECK_OK(dart_ctx_destroy(&c));

  // Bad global pointers and arguments, on the default and a created context.
  REQUIRE_OK(dart_ctx_create(DART_CTX_PRIVATE, &c));
  for (dart_ctx_t x : {DART_CTX_DEFAULT, c}) {
    BOOST_TEST_CONTEXT((x == DART_CTX_DEFAULT ? "default context" : "private context")) {
      const dart_gptr_t beyond = raw_at(g, n);  // unit out of range
      const dart_gptr_t past = at(g, right, 8 * sizeof(long));  // past the portion's end (for 1 element)
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put", dart_ctx_put(x, beyond, &v, 1, DART_TYPE_LONG));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put", dart_ctx_put(x, past, &v, 1, DART_TYPE_LONG));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put", dart_ctx_put(x, DART_GPTR_NULL, &v, 1, DART_TYPE_LONG));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put", dart_ctx_put(x, at(g, right), nullptr, 1, DART_TYPE_LONG));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put", dart_ctx_put(x, at(g, right), &v, 1, DART_TYPE_UNDEFINED));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_get", dart_ctx_get(x, &r, beyond, 1, DART_TYPE_LONG));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_get", dart_ctx_get(x, nullptr, at(g, right), 1, DART_TYPE_LONG));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_accumulate",
                     dart_ctx_accumulate(x, beyond, &v, 1, DART_TYPE_LONG, DART_OP_SUM));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_accumulate",
                     dart_ctx_accumulate(x, at(g, right), &v, 1, DART_TYPE_LONG, DART_OP_MINMAX));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_fetch_and_op",
                     dart_ctx_fetch_and_op(x, beyond, &v, &r, DART_TYPE_LONG, DART_OP_SUM));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_fetch_and_op",
                     dart_ctx_fetch_and_op(x, at(g, right), &v, nullptr, DART_TYPE_LONG, DART_OP_SUM));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_compare_and_swap",
                     dart_ctx_compare_and_swap(x, beyond, &v, &cmp, &r, DART_TYPE_LONG));
      double dv = 0, dc = 0, dr = 0;
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_compare_and_swap",
                     dart_ctx_compare_and_swap(x, at(g, right), &dv, &dc, &dr, DART_TYPE_DOUBLE));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put_signal",
                     dart_ctx_put_signal(x, at(g, right), &v, 1, DART_TYPE_LONG, beyond, 1, DART_SIGNAL_SET));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put_signal",
                     dart_ctx_put_signal(x, at(g, right), &v, 1, DART_TYPE_LONG, at(sig, right, 4), 1,
                                         DART_SIGNAL_SET));
      CHECK_REJECTED(DART_ERR_INVAL, "dart_ctx_put_signal",
                     dart_ctx_put_signal(x, at(g, right), &v, 1, DART_TYPE_LONG, at(sig, right), 1,
                                         static_cast<dart_signal_op_t>(7)));
      CHECK_OK(dart_ctx_quiet(x));
    }
  }
  CHECK_OK(dart_ctx_destroy(&c));
  barrier();
  CHECK_OK(dart_team_memfree(sig));
  CHECK_OK(dart_team_memfree(g));
}

}  // namespace
