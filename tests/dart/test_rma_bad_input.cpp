// Invalid input to DART's one-sided, atomic, handle, type/operation and lock
// calls (spec 1.5, 2.3, 2.4, 2.11, 3.6, 3.7): for every bad input the exact
// return code (DART_ERR_INVAL unless noted), exactly one stderr line
// "[dart unit <R>] <call>: error: <reason>" (fd 2 captured around the single
// call), output arguments reset as the spec says (DART_HANDLE_NULL,
// DART_TYPE_UNDEFINED, DART_OP_UNDEFINED, DART_LOCK_NULL), never a crash or
// hang. Covered: DART_GPTR_NULL, unknown team, unit out of range, freed and
// never-allocated segments, offset + size beyond the portion (also by exactly
// one byte), flush offsets (ignored) and the _all flushes' unit (ignored);
// invalid types (UNDEFINED, LAST, 999999, -1), non-basic types for atomics,
// CAS on floating types, src/dst types with different base types, nelem not
// a multiple of a non-contiguous type's element count, counts whose byte
// size overflows; invalid operations (UNDEFINED, LAST, MINMAX, a user
// operation, bitwise/logical on floating types); bad arguments of the type
// and operation constructors/destructors; NULL buffers and out-pointers;
// dart_wait on a handle nulled by dart_handle_free (a no-op), waitall with
// n > INT_MAX; lock calls on DART_LOCK_NULL, release without holding, lock
// init on unknown teams; and the new calls before dart_init / after
// dart_exit (any non-OK code, one line). Not covered: the behaviour of valid
// calls (test_onesided*.cpp, test_atomics.cpp, test_locks.cpp); reuse of a
// copy of a freed handle or a destroyed type/operation/lock handle (use after
// free, undefined by the spec); arbitrary garbage handle values.
#include "dart_capture.hpp"

#include <dash/dart/if/dart.h>

#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

int rank() { return mpitest::world_rank(); }

using dartcheck::capture;
using dartcheck::ctx;
using dartcheck::g_context;
using dartcheck::Outcome;

// A non-null handle value a failing call must overwrite with
// DART_HANDLE_NULL (never dereferenced by a correct implementation: the
// argument is an out-pointer).
dart_handle_t poison_handle() { return reinterpret_cast<dart_handle_t>(static_cast<std::uintptr_t>(0x10)); }

using Dart = dartcheck::BadInputFixture;

// Every call that takes a global pointer target, for one bad pointer: the
// data calls move 4 ints (16 bytes), the atomics one int. `ignores_unit`:
// the _all flushes name only the segment.
struct TargetCall {
  const char* name;
  std::function<dart_ret_t(dart_gptr_t)> call;
  bool is_flush;
  bool ignores_unit;
  bool single;  // moves one int (atomics) instead of four
};

struct Buffers {
  int data[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  int value = 1, compare = 0, result = -1;
  dart_handle_t handle = DART_HANDLE_NULL;
};

std::vector<TargetCall> target_calls(Buffers& b) {
  return {
      {"dart_put", [&b](dart_gptr_t g) { return dart_put(g, b.data, 4, DART_TYPE_INT, DART_TYPE_INT); }, false, false,
       false},
      {"dart_get", [&b](dart_gptr_t g) { return dart_get(b.data, g, 4, DART_TYPE_INT, DART_TYPE_INT); }, false, false,
       false},
      {"dart_put_blocking",
       [&b](dart_gptr_t g) { return dart_put_blocking(g, b.data, 4, DART_TYPE_INT, DART_TYPE_INT); }, false, false,
       false},
      {"dart_get_blocking",
       [&b](dart_gptr_t g) { return dart_get_blocking(b.data, g, 4, DART_TYPE_INT, DART_TYPE_INT); }, false, false,
       false},
      {"dart_put_handle",
       [&b](dart_gptr_t g) {
         b.handle = poison_handle();
         return dart_put_handle(g, b.data, 4, DART_TYPE_INT, DART_TYPE_INT, &b.handle);
       },
       false, false, false},
      {"dart_get_handle",
       [&b](dart_gptr_t g) {
         b.handle = poison_handle();
         return dart_get_handle(b.data, g, 4, DART_TYPE_INT, DART_TYPE_INT, &b.handle);
       },
       false, false, false},
      {"dart_accumulate", [&b](dart_gptr_t g) { return dart_accumulate(g, b.data, 4, DART_TYPE_INT, DART_OP_SUM); },
       false, false, false},
      {"dart_accumulate_blocking_local",
       [&b](dart_gptr_t g) { return dart_accumulate_blocking_local(g, b.data, 4, DART_TYPE_INT, DART_OP_SUM); }, false,
       false, false},
      {"dart_fetch_and_op",
       [&b](dart_gptr_t g) { return dart_fetch_and_op(g, &b.value, &b.result, DART_TYPE_INT, DART_OP_SUM); }, false,
       false, true},
      {"dart_compare_and_swap",
       [&b](dart_gptr_t g) { return dart_compare_and_swap(g, &b.value, &b.compare, &b.result, DART_TYPE_INT); }, false,
       false, true},
      {"dart_flush", [](dart_gptr_t g) { return dart_flush(g); }, true, false, false},
      {"dart_flush_local", [](dart_gptr_t g) { return dart_flush_local(g); }, true, false, false},
      {"dart_flush_all", [](dart_gptr_t g) { return dart_flush_all(g); }, true, true, false},
      {"dart_flush_local_all", [](dart_gptr_t g) { return dart_flush_local_all(g); }, true, true, false},
  };
}

// Checks that `c` rejects `g` with one log line; handle outputs must be
// DART_HANDLE_NULL afterwards.
void check_rejects(const TargetCall& c, Buffers& b, const dart_gptr_t& g) {
  CHECK_REJECTED(DART_ERR_INVAL, c.name, c.call(g));
  if (std::string(c.name).find("_handle") != std::string::npos)
    BOOST_CHECK_MESSAGE(b.handle == DART_HANDLE_NULL,
                        "rank " << rank() << ctx() << ": " << c.name << " failed but left a non-null handle");
}

const dart_datatype_t kBadTypes[] = {DART_TYPE_UNDEFINED, DART_TYPE_LAST, 999999, -1};

}  // namespace

BOOST_FIXTURE_TEST_CASE(capture_helper_and_silent_valid_calls, Dart) {
  const Outcome raw = capture([]() -> dart_ret_t {
    const char msg[] = "raw line\n";
    return ::write(STDERR_FILENO, msg, sizeof msg - 1) == static_cast<ssize_t>(sizeof msg - 1) ? DART_OK
                                                                                               : DART_ERR_OTHER;
  });
  CHECK_OK(raw.rc);
  BOOST_CHECK_MESSAGE(raw.log == "raw line\n", "rank " << rank() << ": capture read back \"" << raw.log << "\"");

  // Every target call, valid, on the own portion: silent and DART_OK.
  const dart_gptr_t tg = team_ints(8);
  Buffers b;
  for (const TargetCall& c : target_calls(b)) {
    g_context = std::string("valid ") + c.name;
    CHECK_SILENT(DART_OK, c.call(at(tg, me)));
    if (b.handle != DART_HANDLE_NULL) CHECK_SILENT(DART_OK, dart_wait(&b.handle));
  }
  g_context.clear();
  CHECK_SILENT(DART_OK, dart_flush_all(tg));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(null_unknown_and_freed_targets, Dart) {
  const dart_gptr_t tg = team_ints(8);
  dart_gptr_t freed = team_ints(8);
  REQUIRE_OK(dart_team_memfree(freed));
  Buffers b;
  const std::vector<TargetCall> calls = target_calls(b);

  struct Bad {
    std::string what;
    dart_gptr_t g;
    bool unit_only;  // bad only in the unit: accepted by the _all flushes
  };
  std::vector<Bad> bad = {
      {"DART_GPTR_NULL", DART_GPTR_NULL, false},
      {"team 17",
       [&] {
         dart_gptr_t g = at(tg, me);
         g.teamid = 17;
         return g;
       }(),
       false},
      {"team DART_TEAM_NULL",
       [&] {
         dart_gptr_t g = at(tg, me);
         g.teamid = DART_TEAM_NULL;
         return g;
       }(),
       false},
      {"unit n", at(tg, n), true},
      {"unit -1", at(tg, -1), true},
      {"unit 2^23-1", at(tg, (1 << 23) - 1), true},
      {"freed segment", at(freed, me), false},
      {"freed segment at another unit", at(freed, (me + 1) % n), false},
      {"segment 1234 never allocated",
       [&] {
         dart_gptr_t g = at(tg, me);
         g.segid = 1234;
         return g;
       }(),
       false},
      {"DART_SEGMENT_LOCAL on team 17",
       [&] {
         dart_gptr_t g = at(tg, me);
         g.segid = DART_SEGMENT_LOCAL;
         g.teamid = 17;
         return g;
       }(),
       false},
  };
  for (const Bad& x : bad) {
    for (const TargetCall& c : calls) {
      g_context = x.what;
      if (x.unit_only && c.ignores_unit) {
        CHECK_SILENT(DART_OK, c.call(x.g));  // the _all forms name the segment only
      } else {
        check_rejects(c, b, x.g);
      }
    }
  }
  g_context.clear();
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(offsets_beyond_the_portion, Dart) {
  constexpr std::uint64_t kBytes = 8 * sizeof(int);  // portion of 8 ints
  const dart_gptr_t tg = team_ints(8);
  dart_gptr_t lg = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(8, DART_TYPE_INT, &lg));
  Buffers b;
  const std::vector<TargetCall> calls = target_calls(b);
  for (const int unit : {me, right}) {
    for (const TargetCall& c : calls) {
      const std::uint64_t size = c.single ? sizeof(int) : 4 * sizeof(int);
      // Exactly one byte beyond, one element beyond, starting at the end,
      // far beyond, and a wrapped-around "negative" offset.
      for (const std::uint64_t off :
           {kBytes - size + 1, kBytes - size + sizeof(int), kBytes, std::uint64_t{1} << 40, ~std::uint64_t{0} - 1}) {
        g_context =
            "unit " + std::to_string(unit) + ", offset " + std::to_string(off) + ", " + std::to_string(size) + " bytes";
        if (c.is_flush) CHECK_SILENT(DART_OK, c.call(at(tg, unit, off)));  // a flush ignores the offset
        else check_rejects(c, b, at(tg, unit, off));
      }
      // The last fitting position is accepted (own portion: nobody else
      // writes there concurrently).
      if (unit == me && !c.is_flush) {
        g_context = std::string("last fitting offset, ") + c.name;
        CHECK_SILENT(DART_OK, c.call(at(tg, unit, kBytes - size)));
        if (b.handle != DART_HANDLE_NULL) CHECK_OK(dart_wait(&b.handle));
      }
    }
  }
  // The dart_memalloc pool: far beyond any pool.
  for (const TargetCall& c : calls) {
    if (c.is_flush) continue;
    g_context = "local pool offset 2^40";
    dart_gptr_t g = lg;
    g.addr_or_offs.offset = std::uint64_t{1} << 40;
    check_rejects(c, b, g);
  }
  g_context.clear();
  CHECK_OK(dart_flush_all(tg));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_memfree(lg));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(invalid_and_mismatched_types, Dart) {
  const dart_gptr_t tg = team_ints(64);
  const dart_gptr_t g = at(tg, me);
  int buf[64] = {};
  int v = 1, c = 0, r = 0;
  dart_handle_t h = DART_HANDLE_NULL;
  for (const dart_datatype_t t : kBadTypes) {
    g_context = "type " + std::to_string(static_cast<long long>(t));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_put", dart_put(g, buf, 1, t, t));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_get", dart_get(buf, g, 1, t, t));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_put", dart_put(g, buf, 1, DART_TYPE_INT, t));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_get", dart_get(buf, g, 1, t, DART_TYPE_INT));
    h = poison_handle();
    CHECK_REJECTED(DART_ERR_INVAL, "dart_put_handle", dart_put_handle(g, buf, 1, t, t, &h));
    CHECK_RANK(h == DART_HANDLE_NULL);
    h = poison_handle();
    CHECK_REJECTED(DART_ERR_INVAL, "dart_get_handle", dart_get_handle(buf, g, 1, t, t, &h));
    CHECK_RANK(h == DART_HANDLE_NULL);
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate", dart_accumulate(g, buf, 1, t, DART_OP_SUM));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate_blocking_local",
                   dart_accumulate_blocking_local(g, buf, 1, t, DART_OP_SUM));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_fetch_and_op", dart_fetch_and_op(g, &v, &r, t, DART_OP_SUM));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_compare_and_swap", dart_compare_and_swap(g, &v, &c, &r, t));
    dart_datatype_t out = DART_TYPE_INT;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_strided", dart_type_create_strided(t, 4, 1, &out));
    CHECK_EQ(out, DART_TYPE_UNDEFINED);
  }

  // Derived types where only basic ones are allowed, and CAS on floating
  // types.
  dart_datatype_t custom = DART_TYPE_UNDEFINED, strided = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(sizeof(int), &custom));
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &strided));
  for (const dart_datatype_t t : {custom, strided}) {
    g_context = t == custom ? "custom type" : "strided type";
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate", dart_accumulate(g, buf, 1, t, DART_OP_REPLACE));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate_blocking_local",
                   dart_accumulate_blocking_local(g, buf, 1, t, DART_OP_REPLACE));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_fetch_and_op", dart_fetch_and_op(g, &v, &r, t, DART_OP_REPLACE));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_compare_and_swap", dart_compare_and_swap(g, &v, &c, &r, t));
  }
  {
    long double x = 1, y = 0, z = 0;
    g_context = "CAS on a floating type";
    CHECK_REJECTED(DART_ERR_INVAL, "dart_compare_and_swap", dart_compare_and_swap(g, &x, &y, &z, DART_TYPE_FLOAT));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_compare_and_swap", dart_compare_and_swap(g, &x, &y, &z, DART_TYPE_DOUBLE));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_compare_and_swap",
                   dart_compare_and_swap(g, &x, &y, &z, DART_TYPE_LONG_DOUBLE));
  }

  // Source and destination with different base types.
  dart_datatype_t strided_long = DART_TYPE_UNDEFINED, indexed = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_LONG, 2, 1, &strided_long));
  const size_t bl[2] = {1, 2}, off[2] = {0, 4};
  REQUIRE_OK(dart_type_create_indexed(DART_TYPE_INT, 2, bl, off, &indexed));  // 3 elements, extent 6
  g_context = "different base types";
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put", dart_put(g, buf, 2, strided, DART_TYPE_DOUBLE));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get", dart_get(buf, g, 2, DART_TYPE_INT, strided_long));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, g, 2, strided, strided_long));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, buf, 3, indexed, DART_TYPE_UINT));
  h = poison_handle();
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_handle", dart_get_handle(buf, g, 3, indexed, custom, &h));
  CHECK_RANK(h == DART_HANDLE_NULL);

  // nelem not a multiple of the element counts of non-contiguous types.
  dart_datatype_t pairs = DART_TYPE_UNDEFINED, triples = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &pairs));
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_INT, 5, 3, &triples));
  g_context = "nelem not a multiple";
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get", dart_get(buf, g, 3, pairs, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put", dart_put(g, buf, 3, DART_TYPE_INT, pairs));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking", dart_get_blocking(buf, g, 1, DART_TYPE_INT, pairs));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_blocking", dart_put_blocking(g, buf, 4, indexed, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put", dart_put(g, buf, 4, pairs, triples));  // multiple of 2, not of 3
  h = poison_handle();
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_handle", dart_put_handle(g, buf, 9, pairs, DART_TYPE_INT, &h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  g_context = "nelem a multiple of both";
  CHECK_SILENT(DART_OK, dart_get_blocking(buf, g, 6, pairs, triples));

  // Counts whose byte size overflows size_t.
  g_context = "count overflow";
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put", dart_put(g, buf, SIZE_MAX / 2, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_blocking",
                 dart_get_blocking(buf, g, SIZE_MAX / 4 + 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate", dart_accumulate(g, buf, SIZE_MAX / 2, DART_TYPE_INT, DART_OP_SUM));
  g_context.clear();

  for (dart_datatype_t* t : {&custom, &strided, &strided_long, &indexed, &pairs, &triples})
    CHECK_OK(dart_type_destroy(t));
  CHECK_OK(dart_flush_all(tg));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(type_constructor_and_destructor_arguments, Dart) {
  const size_t big = static_cast<size_t>(INT_MAX) + 1;
  dart_datatype_t out = DART_TYPE_INT;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_strided", dart_type_create_strided(DART_TYPE_INT, 4, 1, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_strided", dart_type_create_strided(DART_TYPE_INT, big, 1, &out));
  CHECK_EQ(out, DART_TYPE_UNDEFINED);
  out = DART_TYPE_INT;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_strided", dart_type_create_strided(DART_TYPE_INT, 4, big, &out));
  CHECK_EQ(out, DART_TYPE_UNDEFINED);
  dart_datatype_t strided = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_INT, 4, 1, &strided));
  out = DART_TYPE_INT;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_strided", dart_type_create_strided(strided, 4, 1, &out));
  CHECK_EQ(out, DART_TYPE_UNDEFINED);

  const size_t bl[2] = {1, 2}, off[2] = {0, 4};
  const size_t bl_big[2] = {1, big}, off_big[2] = {0, big};
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_indexed",
                 dart_type_create_indexed(DART_TYPE_INT, 2, bl, off, nullptr));
  out = DART_TYPE_INT;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_indexed", dart_type_create_indexed(strided, 2, bl, off, &out));
  CHECK_EQ(out, DART_TYPE_UNDEFINED);
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_indexed",
                 dart_type_create_indexed(DART_TYPE_INT, 2, bl_big, off, &out));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_indexed",
                 dart_type_create_indexed(DART_TYPE_INT, 2, bl, off_big, &out));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_indexed",
                 dart_type_create_indexed(DART_TYPE_INT, big, bl, off, &out));
  CHECK_EQ(out, DART_TYPE_UNDEFINED);

  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_custom", dart_type_create_custom(12, nullptr));
  out = DART_TYPE_INT;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_create_custom", dart_type_create_custom(big, &out));
  CHECK_EQ(out, DART_TYPE_UNDEFINED);

  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_destroy", dart_type_destroy(nullptr));
  dart_datatype_t basic = DART_TYPE_INT;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_destroy", dart_type_destroy(&basic));
  CHECK_EQ(basic, DART_TYPE_INT);
  dart_datatype_t undefined = DART_TYPE_UNDEFINED;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_type_destroy", dart_type_destroy(&undefined));
  CHECK_SILENT(DART_OK, dart_type_destroy(&strided));
  CHECK_EQ(strided, DART_TYPE_UNDEFINED);
}

namespace {
void ignore_op(const void*, void*, size_t, void*) {}
}  // namespace

BOOST_FIXTURE_TEST_CASE(invalid_operations, Dart) {
  const dart_gptr_t tg = team_ints(8);
  const dart_gptr_t g = at(tg, me);
  int* own = nullptr;
  {
    void* p = nullptr;
    REQUIRE_OK(dart_gptr_getaddr(g, &p));
    own = static_cast<int*>(p);
  }
  for (int i = 0; i < 8; ++i) own[i] = 70 + i;
  dart_operation_t user = DART_OP_UNDEFINED;
  REQUIRE_OK(dart_op_create(ignore_op, nullptr, true, DART_TYPE_INT, false, &user));
  int buf[4] = {1, 2, 3, 4};
  int r = 0;
  struct BadOp {
    dart_operation_t op;
    const char* what;
  };
  const BadOp ops[] = {{DART_OP_UNDEFINED, "DART_OP_UNDEFINED"},
                       {DART_OP_LAST, "DART_OP_LAST"},
                       {DART_OP_MINMAX, "DART_OP_MINMAX"},
                       {user, "a user operation"}};
  for (const BadOp& o : ops) {
    g_context = o.what;
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate", dart_accumulate(g, buf, 4, DART_TYPE_INT, o.op));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate_blocking_local",
                   dart_accumulate_blocking_local(g, buf, 4, DART_TYPE_INT, o.op));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_fetch_and_op", dart_fetch_and_op(g, buf, &r, DART_TYPE_INT, o.op));
  }
  // Bitwise and logical operations on floating types.
  double d[2] = {1.0, 2.0}, dr = 0;
  for (const BadOp& o : {BadOp{DART_OP_BAND, "BAND"}, BadOp{DART_OP_BOR, "BOR"}, BadOp{DART_OP_BXOR, "BXOR"},
                         BadOp{DART_OP_LAND, "LAND"}, BadOp{DART_OP_LOR, "LOR"}, BadOp{DART_OP_LXOR, "LXOR"}}) {
    g_context = std::string(o.what) + " on DOUBLE";
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate", dart_accumulate(g, d, 1, DART_TYPE_DOUBLE, o.op));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_fetch_and_op", dart_fetch_and_op(g, d, &dr, DART_TYPE_DOUBLE, o.op));
    g_context = std::string(o.what) + " on FLOAT";
    CHECK_REJECTED(DART_ERR_INVAL, "dart_accumulate_blocking_local",
                   dart_accumulate_blocking_local(g, d, 1, DART_TYPE_FLOAT, o.op));
  }
  g_context.clear();
  // Nothing was applied.
  CHECK_OK(dart_flush(g));
  int now[8] = {};
  CHECK_OK(dart_get_blocking(now, g, 8, DART_TYPE_INT, DART_TYPE_INT));
  for (int i = 0; i < 8; ++i) CHECK_EQ(now[i], 70 + i);

  // dart_op_create / dart_op_destroy arguments.
  CHECK_REJECTED(DART_ERR_INVAL, "dart_op_create",
                 dart_op_create(ignore_op, nullptr, true, DART_TYPE_INT, false, nullptr));
  dart_datatype_t strided = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &strided));
  dart_operation_t out = DART_OP_SUM;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_op_create", dart_op_create(ignore_op, nullptr, true, strided, false, &out));
  CHECK_EQ(out, static_cast<dart_operation_t>(DART_OP_UNDEFINED));
  dart_operation_t predefined = DART_OP_SUM;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_op_destroy", dart_op_destroy(&predefined));
  CHECK_SILENT(DART_OK, dart_op_destroy(&user));
  CHECK_EQ(user, static_cast<dart_operation_t>(DART_OP_UNDEFINED));
  CHECK_OK(dart_type_destroy(&strided));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(null_buffers_and_out_pointers, Dart) {
  const dart_gptr_t tg = team_ints(8);
  const dart_gptr_t g = at(tg, me);
  int buf[4] = {};
  int v = 1, c = 0, r = 0;
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put", dart_put(g, nullptr, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get", dart_get(nullptr, g, 4, DART_TYPE_INT, DART_TYPE_INT));
  h = poison_handle();
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_handle", dart_put_handle(g, nullptr, 4, DART_TYPE_INT, DART_TYPE_INT, &h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  h = poison_handle();
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_handle", dart_get_handle(nullptr, g, 4, DART_TYPE_INT, DART_TYPE_INT, &h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  CHECK_REJECTED(DART_ERR_INVAL, "dart_put_handle", dart_put_handle(g, buf, 4, DART_TYPE_INT, DART_TYPE_INT, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_get_handle", dart_get_handle(buf, g, 4, DART_TYPE_INT, DART_TYPE_INT, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_fetch_and_op", dart_fetch_and_op(g, &v, nullptr, DART_TYPE_INT, DART_OP_SUM));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_compare_and_swap", dart_compare_and_swap(g, &v, &c, nullptr, DART_TYPE_INT));
  h = DART_HANDLE_NULL;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_test", dart_test(&h, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_test_local", dart_test_local(&h, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_testall", dart_testall(&h, 1, nullptr));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_testall_local", dart_testall_local(&h, 1, nullptr));
  (void)r;
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(handles_after_free_and_huge_counts, Dart) {
  const dart_gptr_t tg = team_ints(8);
  int buf[8] = {};
  // A real handle (or DART_HANDLE_NULL if it completed at once) freed, then
  // waited on: the variable is DART_HANDLE_NULL, so the wait is a no-op.
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_get_handle(buf, at(tg, right), 8, DART_TYPE_INT, DART_TYPE_INT, &h));
  CHECK_SILENT(DART_OK, dart_handle_free(&h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  CHECK_SILENT(DART_OK, dart_wait(&h));
  CHECK_SILENT(DART_OK, dart_wait_local(&h));
  int32_t done = -1;
  CHECK_SILENT(DART_OK, dart_test(&h, &done));
  CHECK_EQ(done, 1);
  CHECK_SILENT(DART_OK, dart_handle_free(&h));
  CHECK_OK(dart_flush_local_all(tg));

  // More than INT_MAX handles cannot be waited for; rejected before any
  // entry is read.
  dart_handle_t two[2] = {DART_HANDLE_NULL, DART_HANDLE_NULL};
  const size_t huge = static_cast<size_t>(INT_MAX) + 1;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_waitall", dart_waitall(two, huge));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_waitall_local", dart_waitall_local(two, huge));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(tg));
}

BOOST_FIXTURE_TEST_CASE(lock_misuse, Dart) {
  int32_t r = -1;
  CHECK_REJECTED(DART_ERR_INVAL, "dart_lock_acquire", dart_lock_acquire(DART_LOCK_NULL));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_lock_release", dart_lock_release(DART_LOCK_NULL));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_lock_try_acquire", dart_lock_try_acquire(DART_LOCK_NULL, &r));
  CHECK_SILENT(DART_OK, dart_team_lock_destroy(nullptr));
  dart_lock_t none = DART_LOCK_NULL;
  CHECK_SILENT(DART_OK, dart_team_lock_destroy(&none));

  // Collective, but every unit passes the same bad argument: rejected
  // locally everywhere, nobody waits.
  CHECK_REJECTED(DART_ERR_INVAL, "dart_team_lock_init", dart_team_lock_init(DART_TEAM_ALL, nullptr));
  for (const dart_team_t team : {dart_team_t{17}, DART_TEAM_NULL}) {
    g_context = "team " + std::to_string(team);
    dart_lock_t l = reinterpret_cast<dart_lock_t>(static_cast<std::uintptr_t>(0x10));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_team_lock_init", dart_team_lock_init(team, &l));
    CHECK_RANK(l == DART_LOCK_NULL);
  }
  g_context.clear();

  dart_lock_t lock = DART_LOCK_NULL;
  REQUIRE_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  CHECK_REJECTED(DART_ERR_INVAL, "dart_lock_release", dart_lock_release(lock));  // never acquired
  CHECK_REJECTED(DART_ERR_INVAL, "dart_lock_try_acquire", dart_lock_try_acquire(lock, nullptr));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) {
    CHECK_SILENT(DART_OK, dart_lock_acquire(lock));
    CHECK_SILENT(DART_OK, dart_lock_release(lock));
    CHECK_REJECTED(DART_ERR_INVAL, "dart_lock_release", dart_lock_release(lock));  // released twice
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_lock_destroy(&lock));
  CHECK_RANK(lock == DART_LOCK_NULL);
}

namespace {

// The one-sided calls without a runtime: each fails with one log line.
void check_uninitialised_calls(dart_gptr_t g) {
  REQUIRE_RANK(!dart_initialized());
  int buf[4] = {};
  int v = 1, c = 0, r = 0;
  dart_handle_t h = poison_handle();
  CHECK_FAILS("dart_put", dart_put(g, buf, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_FAILS("dart_get", dart_get(buf, g, 4, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_FAILS("dart_put_handle", dart_put_handle(g, buf, 4, DART_TYPE_INT, DART_TYPE_INT, &h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  h = poison_handle();
  CHECK_FAILS("dart_get_handle", dart_get_handle(buf, g, 4, DART_TYPE_INT, DART_TYPE_INT, &h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  CHECK_FAILS("dart_accumulate", dart_accumulate(g, buf, 4, DART_TYPE_INT, DART_OP_SUM));
  CHECK_FAILS("dart_accumulate_blocking_local", dart_accumulate_blocking_local(g, buf, 4, DART_TYPE_INT, DART_OP_SUM));
  CHECK_FAILS("dart_fetch_and_op", dart_fetch_and_op(g, &v, &r, DART_TYPE_INT, DART_OP_SUM));
  CHECK_FAILS("dart_compare_and_swap", dart_compare_and_swap(g, &v, &c, &r, DART_TYPE_INT));
  CHECK_FAILS("dart_flush_all", dart_flush_all(g));
  CHECK_FAILS("dart_flush_local", dart_flush_local(g));
  CHECK_FAILS("dart_flush_local_all", dart_flush_local_all(g));
  dart_datatype_t t = DART_TYPE_INT;
  CHECK_FAILS("dart_type_create_custom", dart_type_create_custom(12, &t));
  CHECK_FAILS("dart_type_create_strided", dart_type_create_strided(DART_TYPE_INT, 4, 1, &t));
  dart_operation_t op = DART_OP_SUM;
  CHECK_FAILS("dart_op_create", dart_op_create(ignore_op, nullptr, true, DART_TYPE_INT, false, &op));
  dart_lock_t l = DART_LOCK_NULL;
  CHECK_FAILS("dart_team_lock_init", dart_team_lock_init(DART_TEAM_ALL, &l));
  CHECK_RANK(l == DART_LOCK_NULL);
  CHECK_RANK(!dart_initialized());
}

}  // namespace

BOOST_AUTO_TEST_CASE(calls_before_init_and_after_exit) {
  BOOST_REQUIRE_MESSAGE(!dart_initialized(), "rank " << rank() << ": DART initialised at the start of the test case");
  dart_gptr_t fake = DART_GPTR_NULL;
  fake.teamid = DART_TEAM_ALL;
  fake.unitid = 0;
  fake.segid = 1;
  g_context = "before dart_init";
  check_uninitialised_calls(fake);

  REQUIRE_OK(dart_init(nullptr, nullptr));
  dart_gptr_t stale = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &stale));
  REQUIRE_OK(dart_exit());

  g_context = "after dart_exit";
  check_uninitialised_calls(stale);
  g_context.clear();
}
