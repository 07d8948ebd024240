// Point-to-point synchronisation extensions (ext/dart_wait.h,
// ext/dart_signal.h, ext/dart_direct.h): waits and tests on the caller's
// own memory for every comparison and integer type, in the single,
// all/any/some and vector forms; put with signal (set and add, blocking
// and not) with the data checked after the signal; signal fetch; direct
// pointers; and bad input (another unit's memory, misaligned or
// out-of-range words, non-integer types, unknown comparisons and signal
// operations, NULL results), which must fail with DART_ERR_INVAL.
//
// Every unit waits on words its left neighbour writes (itself at 1 unit).
// The .rma variant (DART_SHARED_MEMORY=0) sends every update through MPI
// RMA, where the waiting unit must drive MPI progress itself; the
// .noprogress variants also switch off the progress thread, so nothing
// but the wait's own polling completes RMA aimed at the waiter.
#include "onesided_common.hpp"

#include <dash/dart/ext/dart_atomic_handle.h>
#include <dash/dart/ext/dart_direct.h>
#include <dash/dart/ext/dart_globals.h>
#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/ext/dart_wait.h>
#include <dash/dart/if/dart.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using dartcheck::at;
using dartcheck::QuietDart;
using Fixture = dartcheck::PlainDartFixture;

using dartpattern::own;
using onesidedtest::team_alloc;

// One comparison case: the word starts at `before` (not satisfying
// `x cmp value`) and the left neighbour writes `after` (satisfying it).
template <class T>
struct Case {
  dart_cmp_t cmp;
  T value, before, after;
};

template <class T>
std::vector<Case<T>> cases() {
  std::vector<Case<T>> c = {
      {DART_CMP_EQ, T(5), T(0), T(5)}, {DART_CMP_NE, T(0), T(0), T(7)}, {DART_CMP_GT, T(5), T(5), T(6)},
      {DART_CMP_GE, T(5), T(4), T(5)}, {DART_CMP_LT, T(5), T(5), T(4)}, {DART_CMP_LE, T(5), T(6), T(5)},
  };
  if (T(-1) < T(0)) {  // signed: the comparison must be signed too
    c.push_back({DART_CMP_LT, T(0), T(1), T(-3)});
    c.push_back({DART_CMP_GT, T(-2), T(-2), T(-1)});
  } else {  // unsigned: the top bit is a large value, not a negative one
    c.push_back({DART_CMP_GT, T(1), T(0), T(~T(0))});
  }
  return c;
}

// Every unit: the word at `g` (own portion) starts at `before`; a test
// finds it unsatisfied; the left neighbour puts `after`; the wait returns
// and the word holds `after`.
template <class T>
void every_case(const Fixture& f, dart_datatype_t dt) {
  const dart_gptr_t g = team_alloc<T>(1, dt);
  T* mine = own<T>(g, f.me);
  for (const Case<T>& c : cases<T>()) {
    *mine = c.before;
    f.barrier();
    int32_t result = -1;
    CHECK_OK(dart_test_until(at(g, f.me), c.cmp, &c.value, dt, &result));
    CHECK_EQ(result, 0);
    f.barrier();
    CHECK_OK(dart_put_blocking(at(g, f.right), &c.after, 1, dt, dt));
    CHECK_OK(dart_wait_until(at(g, f.me), c.cmp, &c.value, dt));
    CHECK_RANK(*mine == c.after);
    CHECK_OK(dart_test_until(at(g, f.me), c.cmp, &c.value, dt, &result));
    CHECK_EQ(result, 1);
    f.barrier();
  }
  CHECK_OK(dart_team_memfree(g));
}

BOOST_FIXTURE_TEST_CASE(wait_and_test_every_comparison_and_integer_type, Fixture) {
  every_case<unsigned char>(*this, DART_TYPE_BYTE);
  every_case<short>(*this, DART_TYPE_SHORT);
  every_case<int>(*this, DART_TYPE_INT);
  every_case<unsigned int>(*this, DART_TYPE_UINT);
  every_case<long>(*this, DART_TYPE_LONG);
  every_case<unsigned long>(*this, DART_TYPE_ULONG);
  every_case<long long>(*this, DART_TYPE_LONGLONG);
  every_case<unsigned long long>(*this, DART_TYPE_ULONGLONG);
}

// A wait that must really wait: the writer sleeps first, then writes the
// data and raises the flag; the waiter must see the data after the flag.
BOOST_FIXTURE_TEST_CASE(wait_returns_after_a_late_update_with_its_data, Fixture) {
  constexpr std::size_t kData = 4096;
  const dart_gptr_t data = team_alloc<long>(kData, DART_TYPE_LONG);
  const dart_gptr_t flag = team_alloc<long>(1, DART_TYPE_LONG);
  *own<long>(flag, me) = 0;
  barrier();
  std::vector<long> out(kData);
  for (std::size_t i = 0; i < kData; ++i) out[i] = static_cast<long>(me * 100000 + i);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK_OK(dart_put_blocking(at(data, right), out.data(), kData, DART_TYPE_LONG, DART_TYPE_LONG));
  const long one = 1;
  CHECK_OK(dart_accumulate(at(flag, right), &one, 1, DART_TYPE_LONG, DART_OP_SUM));
  CHECK_OK(dart_flush(at(flag, right)));
  CHECK_OK(dart_wait_until(at(flag, me), DART_CMP_EQ, &one, DART_TYPE_LONG));
  const long* got = own<long>(data, me);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kData; ++i) wrong += got[i] != static_cast<long>(left * 100000 + i);
  CHECK_EQ(wrong, std::size_t{0});
  barrier();
  CHECK_OK(dart_team_memfree(flag));
  CHECK_OK(dart_team_memfree(data));
}

// ---- all / any / some, plain and vector ---------------------------------------------

constexpr std::size_t kWords = 8;

struct Words {
  explicit Words(const Fixture& f) : f_(f), g(team_alloc<int>(kWords, DART_TYPE_INT)), mine(own<int>(g, f.me)) {
    reset();
  }
  ~Words() { CHECK_OK(dart_team_memfree(g)); }
  void reset() {
    for (std::size_t i = 0; i < kWords; ++i) mine[i] = 0;
    f_.barrier();
  }
  // The left neighbour's words `idx` get `v` (or v + index with `plus_index`).
  void write_right(const std::vector<std::size_t>& idx, int v, bool plus_index = false) const {
    for (std::size_t i : idx) {
      const int x = plus_index ? v + static_cast<int>(i) : v;
      CHECK_OK(dart_put_blocking(at(g, f_.right, i * sizeof(int)), &x, 1, DART_TYPE_INT, DART_TYPE_INT));
    }
  }
  [[nodiscard]] dart_gptr_t here() const { return at(g, f_.me); }

  const Fixture& f_;
  dart_gptr_t g;
  int* mine;
};

BOOST_FIXTURE_TEST_CASE(all_any_some_with_status, Fixture) {
  Words w(*this);
  const int one = 1;
  int status[kWords] = {0, 0, 0, 1, 0, 0, 1, 0};  // 3 and 6 left out
  std::size_t index = 0, count = 99, indices[kWords] = {};
  int32_t result = -1;

  // Nothing written yet: no test is satisfied.
  CHECK_OK(dart_test_until_any(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, &index));
  CHECK_EQ(index, DART_WAIT_NONE);
  CHECK_OK(dart_test_until_some(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, indices, &count));
  CHECK_EQ(count, std::size_t{0});
  CHECK_OK(dart_test_until_all(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, &result));
  CHECK_EQ(result, 0);
  barrier();

  // any: only excluded word 3 and included word 5 are written.
  w.write_right({3, 5}, 1);
  CHECK_OK(dart_wait_until_any(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, &index));
  CHECK_EQ(index, std::size_t{5});
  barrier();
  w.reset();

  // some: words 1, 3, 6, 7 written before anyone looks; 3 and 6 left out.
  w.write_right({1, 3, 6, 7}, 1);
  barrier();
  CHECK_OK(dart_wait_until_some(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, indices, &count));
  CHECK_EQ(count, std::size_t{2});
  CHECK_EQ(indices[0], std::size_t{1});
  CHECK_EQ(indices[1], std::size_t{7});
  CHECK_OK(dart_test_until_some(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, indices, &count));
  CHECK_EQ(count, std::size_t{2});
  barrier();
  w.reset();

  // all: the included words one by one, the wait must not return early.
  w.write_right({0, 1, 2, 4, 5}, 1);
  CHECK_OK(dart_test_until_all(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, &result));
  // (may or may not hold yet: word 7 comes last, after a pause)
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  w.write_right({7}, 1);
  CHECK_OK(dart_wait_until_all(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT));
  for (std::size_t i = 0; i < kWords; ++i)
    if (!status[i]) CHECK_EQ(w.mine[i], 1);
  CHECK_EQ(w.mine[3], 0);
  CHECK_EQ(w.mine[6], 0);
  CHECK_OK(dart_test_until_all(w.here(), kWords, status, DART_CMP_EQ, &one, DART_TYPE_INT, &result));
  CHECK_EQ(result, 1);
  barrier();
}

BOOST_FIXTURE_TEST_CASE(vector_forms_compare_each_word_with_its_own_value, Fixture) {
  Words w(*this);
  int values[kWords];
  for (std::size_t i = 0; i < kWords; ++i) values[i] = 10 + static_cast<int>(i);
  std::size_t index = 0, count = 0, indices[kWords] = {};
  int32_t result = -1;

  // Word i becomes 10 + i for i in {2, 4}; 10 everywhere else would satisfy
  // the plain form only at word 0.
  w.write_right({2, 4}, 10, true);
  CHECK_OK(dart_wait_until_any_vector(w.here(), kWords, nullptr, DART_CMP_EQ, values, DART_TYPE_INT, &index));
  CHECK_RANK(index == 2 || index == 4);
  barrier();
  CHECK_OK(dart_wait_until_some_vector(w.here(), kWords, nullptr, DART_CMP_EQ, values, DART_TYPE_INT, indices, &count));
  CHECK_EQ(count, std::size_t{2});
  CHECK_EQ(indices[0], std::size_t{2});
  CHECK_EQ(indices[1], std::size_t{4});
  CHECK_OK(dart_test_until_all_vector(w.here(), kWords, nullptr, DART_CMP_EQ, values, DART_TYPE_INT, &result));
  CHECK_EQ(result, 0);
  barrier();

  // GE against a rising vector: every word must reach its own bound.
  w.write_right({0, 1, 3, 5, 6, 7}, 10, true);
  CHECK_OK(dart_wait_until_all_vector(w.here(), kWords, nullptr, DART_CMP_GE, values, DART_TYPE_INT));
  for (std::size_t i = 0; i < kWords; ++i) CHECK_RANK(w.mine[i] >= values[i]);
  CHECK_OK(dart_test_until_any_vector(w.here(), kWords, nullptr, DART_CMP_LT, values, DART_TYPE_INT, &index));
  CHECK_EQ(index, DART_WAIT_NONE);
  CHECK_OK(dart_test_until_some_vector(w.here(), kWords, nullptr, DART_CMP_GE, values, DART_TYPE_INT, indices, &count));
  CHECK_EQ(count, kWords);
  barrier();
}

BOOST_FIXTURE_TEST_CASE(nothing_included_returns_at_once, Fixture) {
  Words w(*this);
  const int one = 1;
  const int none[kWords] = {1, 1, 1, 1, 1, 1, 1, 1};
  std::size_t index = 0, count = 7, indices[kWords] = {};
  int32_t result = -1;
  CHECK_OK(dart_wait_until_all(w.here(), kWords, none, DART_CMP_EQ, &one, DART_TYPE_INT));
  CHECK_OK(dart_wait_until_any(w.here(), kWords, none, DART_CMP_EQ, &one, DART_TYPE_INT, &index));
  CHECK_EQ(index, DART_WAIT_NONE);
  CHECK_OK(dart_wait_until_some(w.here(), kWords, none, DART_CMP_EQ, &one, DART_TYPE_INT, indices, &count));
  CHECK_EQ(count, std::size_t{0});
  CHECK_OK(dart_wait_until_all(w.here(), 0, nullptr, DART_CMP_EQ, &one, DART_TYPE_INT));
  CHECK_OK(dart_test_until_all(w.here(), 0, nullptr, DART_CMP_EQ, &one, DART_TYPE_INT, &result));
  CHECK_EQ(result, 1);
  CHECK_OK(dart_wait_until_some(w.here(), 0, nullptr, DART_CMP_EQ, nullptr, DART_TYPE_INT, nullptr, &count));
  CHECK_EQ(count, std::size_t{0});
  barrier();
}

// ---- put with signal ------------------------------------------------------------------

// Rounds of a ping-pong between each unit and its neighbours: the left
// neighbour's data arrives with signal = round (SET); the unit checks it
// and acknowledges by adding 1 to the left neighbour's ack word (ADD).
// The data of a round must be complete when its signal is seen.
void ping_pong(const Fixture& f, bool blocking) {
  constexpr std::size_t kData = 1024;
  const int rounds = static_cast<int>(mpitest::scaled(200));
  const dart_gptr_t data = team_alloc<long>(kData, DART_TYPE_LONG);
  const dart_gptr_t words = team_alloc<unsigned long long>(2, DART_TYPE_ULONGLONG);  // [0] signal, [1] acks
  const dart_gptr_t sig = words, ack = at(words, 0, sizeof(std::uint64_t));
  own<unsigned long long>(words, f.me)[0] = 0;
  own<unsigned long long>(words, f.me)[1] = 0;
  f.barrier();
  std::vector<long> out(kData);
  const long* in = own<long>(data, f.me);
  std::size_t wrong = 0;
  for (int r = 1; r <= rounds; ++r) {
    for (std::size_t i = 0; i < kData; ++i) out[i] = static_cast<long>((f.me * 1000 + r) * 10000 + i);
    if (blocking) {
      CHECK_OK(dart_put_signal_blocking(at(data, f.right), out.data(), kData, DART_TYPE_LONG, at(sig, f.right),
                                        static_cast<std::uint64_t>(r), DART_SIGNAL_SET));
    } else {
      CHECK_OK(dart_put_signal(at(data, f.right), out.data(), kData, DART_TYPE_LONG, at(sig, f.right),
                               static_cast<std::uint64_t>(r), DART_SIGNAL_SET));
      out.assign(kData, -1);  // the source may be reused at once
      CHECK_OK(dart_flush(at(sig, f.right)));
    }
    std::uint64_t seen = 0;
    CHECK_OK(dart_signal_wait_until(at(sig, f.me), DART_CMP_GE, static_cast<std::uint64_t>(r), &seen));
    CHECK_EQ(seen, static_cast<std::uint64_t>(r));
    for (std::size_t i = 0; i < kData; ++i) wrong += in[i] != static_cast<long>((f.left * 1000 + r) * 10000 + i);
    CHECK_OK(dart_signal_update(at(ack, f.left), 1, DART_SIGNAL_ADD));
    // The right neighbour has read this round's data before the next one.
    CHECK_OK(dart_signal_wait_until(at(ack, f.me), DART_CMP_GE, static_cast<std::uint64_t>(r), nullptr));
  }
  CHECK_EQ(wrong, std::size_t{0});
  f.barrier();
  std::uint64_t acks = 0;
  CHECK_OK(dart_signal_fetch(at(ack, f.right), &acks));
  CHECK_EQ(acks, static_cast<std::uint64_t>(rounds));
  f.barrier();
  CHECK_OK(dart_team_memfree(words));
  CHECK_OK(dart_team_memfree(data));
}

BOOST_FIXTURE_TEST_CASE(put_signal_ping_pong_data_before_signal, Fixture) { ping_pong(*this, false); }
BOOST_FIXTURE_TEST_CASE(put_signal_blocking_ping_pong_data_before_signal, Fixture) { ping_pong(*this, true); }

// Every unit adds to every unit's counter, with data; the counter ends at
// the sum of all adds, and dart_signal_fetch reads it from anywhere.
BOOST_FIXTURE_TEST_CASE(signal_add_from_every_unit_sums, Fixture) {
  const int adds = static_cast<int>(mpitest::scaled(50));
  const dart_gptr_t counter = team_alloc<unsigned long long>(1, DART_TYPE_ULONGLONG);
  const dart_gptr_t slots = team_alloc<int>(static_cast<std::size_t>(n), DART_TYPE_INT);
  *own<unsigned long long>(counter, me) = 0;
  barrier();
  for (int k = 0; k < adds; ++k)
    for (int u = 0; u < n; ++u)
      CHECK_OK(dart_put_signal(at(slots, u, static_cast<std::uint64_t>(me) * sizeof(int)), &k, 1, DART_TYPE_INT,
                               at(counter, u), static_cast<std::uint64_t>(me + 1), DART_SIGNAL_ADD));
  CHECK_OK(dart_flush_all(counter));
  const std::uint64_t total = static_cast<std::uint64_t>(adds) * static_cast<std::uint64_t>(n * (n + 1) / 2);
  std::uint64_t seen = 0;
  CHECK_OK(dart_signal_wait_until(at(counter, me), DART_CMP_EQ, total, &seen));
  CHECK_EQ(seen, total);
  const int* got = own<int>(slots, me);
  for (int u = 0; u < n; ++u) CHECK_EQ(got[u], adds - 1);
  barrier();
  std::uint64_t remote = 0;
  CHECK_OK(dart_signal_fetch(at(counter, right), &remote));
  CHECK_EQ(remote, total);
  barrier();
  CHECK_OK(dart_team_memfree(slots));
  CHECK_OK(dart_team_memfree(counter));
}

// ---- fetching atomics with handles -------------------------------------------------------

// Each unit fetches-and-adds 1 to its right neighbour's counter k times,
// each with a handle, changing its operand right after every call (the
// call copies it); completed by dart_waitall, dart_test and
// dart_wait_local, the results are 0 ... k-1. Then compare-and-swap with a
// handle: the first succeeds, the second sees the first's value.
BOOST_FIXTURE_TEST_CASE(fetching_atomics_with_handles, Fixture) {
  const int k = static_cast<int>(mpitest::scaled(60));
  const dart_gptr_t g = team_alloc<long>(2, DART_TYPE_LONG);
  own<long>(g, me)[0] = 0;
  own<long>(g, me)[1] = 0;
  barrier();
  std::vector<long> results(static_cast<std::size_t>(k), -1);
  std::vector<dart_handle_t> hs(static_cast<std::size_t>(k), DART_HANDLE_NULL);
  long operand = 1;
  for (int i = 0; i < k; ++i) {
    operand = 1;
    CHECK_OK(dart_fetch_and_op_handle(at(g, right), &operand, &results[static_cast<std::size_t>(i)], DART_TYPE_LONG,
                                      DART_OP_SUM, &hs[static_cast<std::size_t>(i)]));
    operand = 1000;  // must not reach the target
  }
  // A third of them by dart_test, one by dart_wait_local, the rest at once.
  for (int i = 0; i < k / 3; ++i) {
    int32_t done = 0;
    for (int spins = 0; !done && spins < 1000000; ++spins)
      CHECK_OK(dart_test(&hs[static_cast<std::size_t>(i)], &done));
    CHECK_EQ(done, 1);
    CHECK_RANK(hs[static_cast<std::size_t>(i)] == DART_HANDLE_NULL);
  }
  CHECK_OK(dart_wait_local(&hs[static_cast<std::size_t>(k - 1)]));
  CHECK_OK(dart_waitall(hs.data(), hs.size()));
  std::vector<long> sorted = results;
  std::sort(sorted.begin(), sorted.end());
  std::size_t wrong = 0;
  for (int i = 0; i < k; ++i) wrong += sorted[static_cast<std::size_t>(i)] != i;
  CHECK_EQ(wrong, std::size_t{0});

  const long zero = 0, mine = me + 1;
  long first = -1, second = -1;
  dart_handle_t h1 = DART_HANDLE_NULL, h2 = DART_HANDLE_NULL;
  CHECK_OK(dart_compare_and_swap_handle(at(g, right, sizeof(long)), &mine, &zero, &first, DART_TYPE_LONG, &h1));
  CHECK_OK(dart_wait(&h1));
  CHECK_OK(dart_compare_and_swap_handle(at(g, right, sizeof(long)), &zero, &zero, &second, DART_TYPE_LONG, &h2));
  CHECK_OK(dart_wait(&h2));
  CHECK_EQ(first, 0L);
  CHECK_EQ(second, static_cast<long>(mine));
  barrier();
  CHECK_EQ(own<long>(g, me)[0], static_cast<long>(k));
  CHECK_EQ(own<long>(g, me)[1], static_cast<long>(left + 1));
  barrier();  // every unit has read its counter before the next add

  // A handle freed before completion: the operation still lands.
  dart_handle_t h3 = DART_HANDLE_NULL;
  long out = -1;
  CHECK_OK(dart_fetch_and_op_handle(at(g, right), &operand, &out, DART_TYPE_LONG, DART_OP_SUM, &h3));
  CHECK_OK(dart_handle_free(&h3));
  CHECK_OK(dart_flush(g));
  CHECK_EQ(out, static_cast<long>(k));
  barrier();
  CHECK_EQ(own<long>(g, me)[0], static_cast<long>(k) + operand);
  {
    QuietDart quiet;
    CHECK_EQ(dart_fetch_and_op_handle(at(g, right), &operand, &out, DART_TYPE_LONG, DART_OP_SUM, nullptr),
             DART_ERR_INVAL);
    dart_handle_t h = reinterpret_cast<dart_handle_t>(1);
    CHECK_EQ(dart_compare_and_swap_handle(at(g, right), &zero, &zero, &out, DART_TYPE_DOUBLE, &h), DART_ERR_INVAL);
    CHECK_RANK(h == DART_HANDLE_NULL);
  }
  barrier();
  CHECK_OK(dart_team_memfree(g));
}

// ---- direct pointers --------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(direct_pointer_for_node_mates_null_elsewhere, Fixture) {
  const dart_gptr_t g = team_alloc<long>(4, DART_TYPE_LONG);
  own<long>(g, me)[2] = 1000 + me;
  barrier();
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Group world_group = MPI_GROUP_NULL, node_group = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(node, &node_group);
  const char* sm = std::getenv("DART_SHARED_MEMORY");
  const bool load_store = !(sm && std::string(sm) == "0");
  for (int u = 0; u < n; ++u) {
    int node_rank = MPI_UNDEFINED;
    MPI_Group_translate_ranks(world_group, 1, &u, node_group, &node_rank);
    void* p = reinterpret_cast<void*>(1);
    CHECK_OK(dart_gptr_direct(at(g, u, 2 * sizeof(long)), &p));
    if (u == me || (load_store && node_rank != MPI_UNDEFINED)) {
      REQUIRE_RANK(p != nullptr);
      CHECK_EQ(*static_cast<long*>(p), 1000L + u);
    } else {
      CHECK_RANK(p == nullptr);
    }
  }
  // A store through the pointer is what the owner reads: each unit stores
  // into its right neighbour's word when it has a pointer to it.
  void* p = nullptr;
  CHECK_OK(dart_gptr_direct(at(g, right, 3 * sizeof(long)), &p));
  int stored = p ? 1 : 0, left_stored = 0;
  if (p) *static_cast<long*>(p) = 7000 + me;
  MPI_Sendrecv(&stored, 1, MPI_INT, right, 5, &left_stored, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  barrier();
  if (left_stored) {
    long v = 0;
    CHECK_OK(dart_get_blocking(&v, at(g, me, 3 * sizeof(long)), 1, DART_TYPE_LONG, DART_TYPE_LONG));
    CHECK_EQ(v, 7000L + left);
  }
  MPI_Group_free(&node_group);
  MPI_Group_free(&world_group);
  MPI_Comm_free(&node);
  barrier();
  CHECK_OK(dart_team_memfree(g));
}

// ---- global variables -----------------------------------------------------------------------

long g_table[16];
int g_counter;
unsigned long long g_signal;

// The program's globals registered as a segment: puts, a fetch-and-add
// from every unit and a put with signal whose signal word is a global,
// waited for with dart_signal_wait_until.
BOOST_FIXTURE_TEST_CASE(global_variables_are_remotely_accessible, Fixture) {
  for (long& x : g_table) x = -1;
  g_counter = 0;
  g_signal = 0;
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memregister_globals(DART_TEAM_ALL, &seg));
  auto global = [&](const void* addr, int unit) {
    dart_gptr_t p = seg;
    dart_gptr_setunit(&p, DART_TEAM_UNIT_ID(me));
    CHECK_OK(dart_gptr_setaddr(&p, const_cast<void*>(addr)));
    dart_gptr_setunit(&p, DART_TEAM_UNIT_ID(unit));
    return p;
  };
  void* addr = nullptr;
  CHECK_OK(dart_gptr_direct(global(&g_counter, me), &addr));
  CHECK_RANK(addr == static_cast<void*>(&g_counter));
  barrier();
  long first[8], second[8];
  for (int i = 0; i < 8; ++i) {
    first[i] = me * 100 + i;
    second[i] = me * 1000 + i;
  }
  CHECK_OK(dart_put_blocking(global(&g_table[0], right), first, 8, DART_TYPE_LONG, DART_TYPE_LONG));
  for (int u = 0; u < n; ++u) {
    const int one = 1;
    int old = -1;
    CHECK_OK(dart_fetch_and_op(global(&g_counter, u), &one, &old, DART_TYPE_INT, DART_OP_SUM));
    CHECK_OK(dart_flush(global(&g_counter, u)));
    CHECK_RANK(old >= 0 && old < n);
  }
  CHECK_OK(dart_put_signal(global(&g_table[8], right), second, 8, DART_TYPE_LONG, global(&g_signal, right), 1,
                           DART_SIGNAL_ADD));
  CHECK_OK(dart_flush(global(&g_signal, right)));
  std::uint64_t seen = 0;
  CHECK_OK(dart_signal_wait_until(global(&g_signal, me), DART_CMP_EQ, 1, &seen));
  CHECK_EQ(seen, std::uint64_t{1});
  for (int i = 0; i < 8; ++i) CHECK_EQ(g_table[8 + i], static_cast<long>(left * 1000 + i));
  barrier();
  for (int i = 0; i < 8; ++i) CHECK_EQ(g_table[i], static_cast<long>(left * 100 + i));
  CHECK_EQ(g_counter, n);
  barrier();
  CHECK_OK(dart_team_memderegister(seg));
}

// ---- bad input ----------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(bad_input_is_refused_with_inval, Fixture) {
  const dart_gptr_t g = team_alloc<long>(4, DART_TYPE_LONG);
  const dart_gptr_t s = team_alloc<unsigned long long>(2, DART_TYPE_ULONGLONG);
  own<long>(g, me)[0] = 0;
  barrier();
  QuietDart quiet;
  const long zero = 0;
  const double dzero = 0;
  int32_t result = 0;
  std::size_t index = 0, count = 0;
  // Waits on another unit's memory (where there is one).
  if (n > 1) CHECK_EQ(dart_wait_until(at(g, right), DART_CMP_EQ, &zero, DART_TYPE_LONG), DART_ERR_INVAL);
  // Non-integer type, unknown comparison, NULL value and results.
  CHECK_EQ(dart_wait_until(at(g, me), DART_CMP_EQ, &dzero, DART_TYPE_DOUBLE), DART_ERR_INVAL);
  CHECK_EQ(dart_wait_until(at(g, me), static_cast<dart_cmp_t>(0), &zero, DART_TYPE_LONG), DART_ERR_INVAL);
  CHECK_EQ(dart_wait_until(at(g, me), static_cast<dart_cmp_t>(42), &zero, DART_TYPE_LONG), DART_ERR_INVAL);
  CHECK_EQ(dart_wait_until(at(g, me), DART_CMP_EQ, nullptr, DART_TYPE_LONG), DART_ERR_INVAL);
  CHECK_EQ(dart_test_until(at(g, me), DART_CMP_EQ, &zero, DART_TYPE_LONG, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_wait_until_any(at(g, me), 4, nullptr, DART_CMP_EQ, &zero, DART_TYPE_LONG, nullptr), DART_ERR_INVAL);
  CHECK_EQ(dart_wait_until_some(at(g, me), 4, nullptr, DART_CMP_EQ, &zero, DART_TYPE_LONG, nullptr, &count),
           DART_ERR_INVAL);
  // Misaligned, past the end of the portion, no such segment or unit.
  CHECK_EQ(dart_wait_until(at(g, me, 1), DART_CMP_EQ, &zero, DART_TYPE_LONG), DART_ERR_INVAL);
  CHECK_EQ(dart_test_until_all(at(g, me), 5, nullptr, DART_CMP_EQ, &zero, DART_TYPE_LONG, &result), DART_ERR_INVAL);
  dart_gptr_t bad = at(g, me);
  bad.segid = 30000;
  CHECK_EQ(dart_test_until_any(bad, 1, nullptr, DART_CMP_EQ, &zero, DART_TYPE_LONG, &index), DART_ERR_INVAL);
  dart_gptr_t far = at(g, me);
  far.unitid = n + 3;
  CHECK_EQ(dart_wait_until(far, DART_CMP_EQ, &zero, DART_TYPE_LONG), DART_ERR_INVAL);
  // Signals: misaligned, on another unit than the data, unknown operation.
  const long v = 1;
  CHECK_EQ(dart_put_signal(at(g, right), &v, 1, DART_TYPE_LONG, at(s, right, 4), 1, DART_SIGNAL_SET), DART_ERR_INVAL);
  if (n > 1)
    CHECK_EQ(dart_put_signal(at(g, right), &v, 1, DART_TYPE_LONG, at(s, me), 1, DART_SIGNAL_SET), DART_ERR_INVAL);
  CHECK_EQ(dart_put_signal(at(g, right), &v, 1, DART_TYPE_LONG, at(s, right), 1, static_cast<dart_signal_op_t>(9)),
           DART_ERR_INVAL);
  CHECK_EQ(dart_put_signal(at(g, right), nullptr, 1, DART_TYPE_LONG, at(s, right), 1, DART_SIGNAL_SET),
           DART_ERR_INVAL);
  CHECK_EQ(dart_put_signal_blocking(at(g, right, 4 * sizeof(long)), &v, 1, DART_TYPE_LONG, at(s, right), 1,
                                    DART_SIGNAL_SET),
           DART_ERR_INVAL);
  CHECK_EQ(dart_signal_update(at(s, right, 2 * sizeof(std::uint64_t)), 1, DART_SIGNAL_ADD), DART_ERR_INVAL);
  CHECK_EQ(dart_signal_fetch(at(s, right), nullptr), DART_ERR_INVAL);
  if (n > 1) CHECK_EQ(dart_signal_wait_until(at(s, right), DART_CMP_EQ, 0, nullptr), DART_ERR_INVAL);
  // Direct pointers to memory that does not exist.
  void* p = reinterpret_cast<void*>(1);
  CHECK_EQ(dart_gptr_direct(far, &p), DART_ERR_INVAL);
  CHECK_RANK(p == nullptr);
  CHECK_EQ(dart_gptr_direct(at(g, me), nullptr), DART_ERR_INVAL);
  // Nothing above changed the memory the refused calls named.
  CHECK_EQ(own<long>(g, me)[0], 0L);
  barrier();
  CHECK_OK(dart_team_memfree(s));
  CHECK_OK(dart_team_memfree(g));
}

}  // namespace
