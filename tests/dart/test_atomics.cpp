// Accumulate-type operations of DART (spec 2.3, 3.6.2, 3.6.3) on
// DART_TEAM_ALL: dart_accumulate, dart_accumulate_blocking_local and
// dart_fetch_and_op for every basic type with every operation the spec
// allows for it (exact results; the old value returned by fetch-and-op;
// REPLACE as swap, NO_OP as read), dart_compare_and_swap for BYTE ..
// ULONGLONG (swap iff *result == *compare), issue-order of accumulate-type
// operations from one origin to one location, all units hammering one
// location (fetch-and-op, accumulate and a CAS-increment loop, exact totals
// and unique fetched values; also from several threads per unit when
// DART_THREAD_MULTIPLE is available), every operation and CAS also on
// registered memory (16-byte aligned, and only naturally aligned),
// targets in the dart_memalloc pool, nelem == 0, and
// user operations (dart_op_create / dart_op_destroy work; accumulate-type
// calls reject them and MINMAX).
// Arithmetic and logical operations on DART_TYPE_BYTE are impl-defined
// (spec 2.3): accepted with unsigned-char results or rejected with
// DART_ERR_INVAL. Not covered: reductions with user operations
// (dart_reduce/dart_allreduce), log lines of rejected calls and other invalid
// input (test_rma_bad_input.cpp), atomicity against plain put/get (undefined
// by the spec), teams other than DART_TEAM_ALL, multi-node runs (the .rma
// variants force the MPI path with DART_SHARED_MEMORY=0).
#include "dart_checks.hpp"
#include "dart_patterns.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <unistd.h>

namespace {

using dartcheck::at;
using dartcheck::QuietDart;
using dartcheck::slow_ranks;

// ---- fixtures -------------------------------------------------------------------

using DartFixture = dartcheck::PlainDartFixture;
using DartThreadFixture = dartcheck::DartFixture;

// ---- types and values (dart_patterns.hpp) -----------------------------------------

using dartpattern::dart_type_of;
using dartpattern::show;

// Full-width bits depending on unit, position and case (integers only).
template <class T>
T bits(int unit, std::uint64_t i, int salt) {
  return static_cast<T>(dartpattern::hash(unit, i, salt));
}

// Collects failed comparisons of one case and reports them as one check:
// how many, and the first few.
class Failures {
 public:
  explicit Failures(std::string what) : what_(std::move(what)) {}
  template <class Describe>
  void check(bool ok, Describe describe) {
    ++checked_;
    if (ok) return;
    if (count_++ < 6) first_ << "\n    " << describe();
  }
  void report(int me) const {
    BOOST_CHECK_MESSAGE(count_ == 0, "rank " << me << ": " << what_ << ": " << count_ << " of " << checked_
                                             << " results wrong; first ones:" << first_.str());
  }

 private:
  std::string what_;
  std::size_t checked_ = 0, count_ = 0;
  std::ostringstream first_;
};

struct OpInfo {
  dart_operation_t op;
  const char* name;
};
const OpInfo kAllOps[] = {
    {DART_OP_MIN, "MIN"},   {DART_OP_MAX, "MAX"},   {DART_OP_SUM, "SUM"},         {DART_OP_PROD, "PROD"},
    {DART_OP_BAND, "BAND"}, {DART_OP_LAND, "LAND"}, {DART_OP_BOR, "BOR"},         {DART_OP_LOR, "LOR"},
    {DART_OP_BXOR, "BXOR"}, {DART_OP_LXOR, "LXOR"}, {DART_OP_REPLACE, "REPLACE"}, {DART_OP_NO_OP, "NO_OP"},
};

bool bitwise(dart_operation_t op) { return op == DART_OP_BAND || op == DART_OP_BOR || op == DART_OP_BXOR; }
bool logical(dart_operation_t op) { return op == DART_OP_LAND || op == DART_OP_LOR || op == DART_OP_LXOR; }

// Whether the spec allows `op` on T: 1 allowed, 0 not allowed (the op is
// skipped), -1 impl-defined (BYTE with arithmetic or logical operations).
template <class T>
int allowed(dart_operation_t op) {
  if constexpr (std::is_floating_point_v<T>) return (bitwise(op) || logical(op)) ? 0 : 1;
  if constexpr (std::is_same_v<T, unsigned char>)
    return (bitwise(op) || op == DART_OP_REPLACE || op == DART_OP_NO_OP) ? 1 : -1;
  return 1;
}

// `target op operand`, as the runtime must compute it.
template <class T>
T apply(dart_operation_t op, T a, T b) {
  switch (op) {
    case DART_OP_MIN: return b < a ? b : a;
    case DART_OP_MAX: return a < b ? b : a;
    case DART_OP_SUM: return static_cast<T>(a + b);
    case DART_OP_PROD: return static_cast<T>(a * b);
    case DART_OP_LAND: return static_cast<T>((a != T(0)) && (b != T(0)));
    case DART_OP_LOR: return static_cast<T>((a != T(0)) || (b != T(0)));
    case DART_OP_LXOR: return static_cast<T>((a != T(0)) != (b != T(0)));
    case DART_OP_REPLACE: return b;
    case DART_OP_NO_OP: return a;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case DART_OP_BAND: return static_cast<T>(a & b);
      case DART_OP_BOR: return static_cast<T>(a | b);
      case DART_OP_BXOR: return static_cast<T>(a ^ b);
      default: break;
    }
  }
  return a;
}

constexpr std::size_t kElems = 4;  // elements per slot

// Initial target value (owner's) and operand (writer's) of element e for
// `op`, chosen so that every result is exact and small: negative values
// only for signed types, operand depends on the writer where the result
// stays exact, so a misdirected operation shows.
template <class T>
void values(dart_operation_t op, std::size_t e, int owner, int writer, int salt, T* init, T* operand) {
  constexpr bool neg = std::is_signed_v<T> || std::is_floating_point_v<T>;
  const auto s = [](long v) { return static_cast<T>(neg ? v : (v < 0 ? -v : v)); };
  const long w = writer % 4;
  switch (op) {
    case DART_OP_MIN:
    case DART_OP_MAX: {
      const long a[kElems] = {5, -12, 100, -1};
      const long b[kElems] = {9 + w, 3, -50 - w, -1};
      *init = s(a[e]);
      *operand = s(b[e]);
      return;
    }
    case DART_OP_SUM: {
      const long a[kElems] = {1, -20, 100, 0};
      const long b[kElems] = {2 + w, 22, -27, w};
      *init = s(a[e]);
      *operand = s(b[e]);
      return;
    }
    case DART_OP_PROD: {
      const long a[kElems] = {3, -7, 0, -1};
      const long b[kElems] = {5, 6 + w, 9, -11};
      *init = s(a[e]);
      *operand = s(b[e]);
      return;
    }
    case DART_OP_LAND:
    case DART_OP_LOR:
    case DART_OP_LXOR: {
      const long a[kElems] = {0, 0, -5, 5};
      const long b[kElems] = {0, 3, 0, -3};
      *init = s(a[e]);
      *operand = s(b[e]);
      return;
    }
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    *init = bits<T>(owner, e, salt);
    *operand = bits<T>(100 + writer, e, salt);
  } else {
    *init = static_cast<T>(1000 * owner + static_cast<int>(e) + salt);
    *operand = static_cast<T>(-1000 * writer - static_cast<int>(e) - 7);
  }
}

using dartpattern::own;

std::vector<dart_gptr_t> allgather(const dart_gptr_t& g) {
  std::vector<dart_gptr_t> all(static_cast<std::size_t>(mpitest::world_size()));
  MPI_Allgather(&g, sizeof g, MPI_BYTE, all.data(), sizeof g, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

// Where registered memory lives: `misaligned` places it at an address that
// is naturally aligned for T but not 16-byte aligned (T of 8 bytes or
// less), as a member of a user struct may be.
enum class Reg { None, Aligned, Misaligned };

template <class T>
class RegStorage {
 public:
  RegStorage(Reg kind, std::size_t count) : bytes_(kind == Reg::None ? 0 : count * sizeof(T) + 128) {
    if (kind == Reg::None) return;
    auto base = reinterpret_cast<std::uintptr_t>(bytes_.data());
    base = (base + 63) & ~std::uintptr_t{63};
    if (kind == Reg::Misaligned) base += sizeof(T) < 16 ? sizeof(T) : 16;
    data_ = reinterpret_cast<T*>(base);
  }
  T* data() const { return data_; }

 private:
  std::vector<unsigned char> bytes_;
  T* data_ = nullptr;
};

std::string reg_name(Reg r) {
  switch (r) {
    case Reg::Aligned: return " (registered memory)";
    case Reg::Misaligned: return " (registered memory, not 16-byte aligned)";
    default: return "";
  }
}

// ---- every type x every operation ----------------------------------------------------

enum Variant { kAccumulate, kAccumulateBlockingLocal, kFetchAndOp, kVariants };
const char* const kVariantNames[] = {"dart_accumulate", "dart_accumulate_blocking_local", "dart_fetch_and_op"};

// `reg`: the target memory is a registration of local memory
// (dart_team_memregister_aligned) instead of a team allocation; MPI
// libraries may serve the two by different window kinds.
template <class T>
void every_operation(const DartFixture& f, const char* tname_, int salt, Reg reg = Reg::None) {
  const bool registered = reg != Reg::None;
  const std::string tname_str = std::string(tname_) + reg_name(reg);
  const char* tname = tname_str.c_str();
  const dart_datatype_t dt = dart_type_of<T>();
  std::vector<OpInfo> ops;
  for (const OpInfo& o : kAllOps)
    if (allowed<T>(o.op) != 0) ops.push_back(o);
  const std::size_t slots = ops.size() * kVariants;
  const std::size_t portion = slots * kElems;
  auto slot_of = [&](std::size_t o, int v) { return (o * kVariants + static_cast<std::size_t>(v)) * kElems; };

  dart_gptr_t seg = DART_GPTR_NULL;
  RegStorage<T> reg_buf(reg, portion);
  if (registered) REQUIRE_OK(dart_team_memregister_aligned(DART_TEAM_ALL, portion, dt, reg_buf.data(), &seg));
  else REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, portion, dt, &seg));
  T* mine = own<T>(seg, f.me);
  for (std::size_t o = 0; o < ops.size(); ++o)
    for (int v = 0; v < kVariants; ++v)
      for (std::size_t e = 0; e < kElems; ++e) {
        T init{}, operand{};
        values<T>(ops[o].op, e, f.me, f.left, salt, &init, &operand);
        mine[slot_of(o, v) + e] = init;
      }
  f.barrier();

  // Operations on the right neighbour's slots; rc per (op, variant), so
  // impl-defined rejections are known to the writer.
  std::vector<int> accepted(slots, 1);
  std::vector<T> operands(portion), results(portion, T(77));
  for (std::size_t o = 0; o < ops.size(); ++o) {
    const int lenient = allowed<T>(ops[o].op) < 0;
    for (int v = 0; v < kVariants; ++v) {
      const std::size_t s = slot_of(o, v);
      for (std::size_t e = 0; e < kElems; ++e) {
        T init{};
        values<T>(ops[o].op, e, f.right, f.me, salt, &init, &operands[s + e]);
      }
      const dart_gptr_t g = at(seg, f.right, s * sizeof(T));
      auto issue = [&]() -> dart_ret_t {
        switch (v) {
          case kAccumulate: return dart_accumulate(g, &operands[s], kElems, dt, ops[o].op);
          case kAccumulateBlockingLocal: {
            // The operands may be reused as soon as the call returns.
            std::vector<T> tmp(operands.begin() + static_cast<std::ptrdiff_t>(s),
                               operands.begin() + static_cast<std::ptrdiff_t>(s + kElems));
            const dart_ret_t rc = dart_accumulate_blocking_local(g, tmp.data(), kElems, dt, ops[o].op);
            std::fill(tmp.begin(), tmp.end(), T(33));
            return rc;
          }
          default:
            for (std::size_t e = 0; e < kElems; ++e) {
              const dart_ret_t rc = dart_fetch_and_op(at(seg, f.right, (s + e) * sizeof(T)), &operands[s + e],
                                                      &results[s + e], dt, ops[o].op);
              if (rc != DART_OK) return rc;
            }
            return DART_OK;
        }
      };
      if (lenient) {
        QuietDart quiet;
        const dart_ret_t rc = issue();
        BOOST_CHECK_MESSAGE(rc == DART_OK || rc == DART_ERR_INVAL,
                            "rank " << f.me << ": " << kVariantNames[v] << " " << tname << " " << ops[o].name
                                    << " returned " << rc << ", expected DART_OK or DART_ERR_INVAL");
        accepted[o * kVariants + static_cast<std::size_t>(v)] = rc == DART_OK;
      } else {
        const dart_ret_t rc = issue();
        BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << f.me << ": " << kVariantNames[v] << " " << tname << " "
                                                   << ops[o].name << " returned " << rc);
      }
    }
  }
  CHECK_OK(dart_flush(at(seg, f.right)));

  // The writer checks the fetched values and the target by dart_get.
  std::vector<T> got(portion, T(55));
  CHECK_OK(dart_get_blocking(got.data(), at(seg, f.right), portion, dt, dt));
  Failures writer_side(std::string(tname) + " operations on unit " + std::to_string(f.right) +
                       ", read back by dart_get and fetched");
  for (std::size_t o = 0; o < ops.size(); ++o) {
    for (int v = 0; v < kVariants; ++v) {
      const std::size_t s = slot_of(o, v);
      const bool done = accepted[o * kVariants + static_cast<std::size_t>(v)] != 0;
      for (std::size_t e = 0; e < kElems; ++e) {
        T init{}, operand{};
        values<T>(ops[o].op, e, f.right, f.me, salt, &init, &operand);
        const T expect = done ? apply<T>(ops[o].op, init, operand) : init;
        writer_side.check(got[s + e] == expect, [&] {
          return std::string(kVariantNames[v]) + " " + ops[o].name + " element " + std::to_string(e) + ": " +
                 show(init) + " op " + show(operand) + " gave " + show(got[s + e]) + ", expected " + show(expect);
        });
        if (v == kFetchAndOp && done)
          writer_side.check(results[s + e] == init, [&] {
            return std::string("dart_fetch_and_op ") + ops[o].name + " element " + std::to_string(e) + " fetched " +
                   show(results[s + e]) + ", expected the old value " + show(init);
          });
      }
    }
  }
  writer_side.report(f.me);
  f.barrier();

  // The owner sees the results of the spec-defined operations by loads.
  Failures owner_side("own " + std::string(tname) + " elements after the left neighbour's operations, read by loads");
  for (std::size_t o = 0; o < ops.size(); ++o) {
    if (allowed<T>(ops[o].op) < 0) continue;
    for (int v = 0; v < kVariants; ++v)
      for (std::size_t e = 0; e < kElems; ++e) {
        T init{}, operand{};
        values<T>(ops[o].op, e, f.me, f.left, salt, &init, &operand);
        const T expect = apply<T>(ops[o].op, init, operand);
        const T val = mine[slot_of(o, v) + e];
        owner_side.check(val == expect, [&] {
          return std::string(kVariantNames[v]) + " " + ops[o].name + " element " + std::to_string(e) + ": " +
                 show(val) + ", expected " + show(expect);
        });
      }
  }
  owner_side.report(f.me);
  f.barrier();
  if (registered) CHECK_OK(dart_team_memderegister(seg));
  else CHECK_OK(dart_team_memfree(seg));
}

// ---- compare-and-swap --------------------------------------------------------------

template <class T>
void cas_ring(const DartFixture& f, const char* tname_, int salt, Reg reg = Reg::None) {
  const bool registered = reg != Reg::None;
  const std::string tname_str = std::string(tname_) + reg_name(reg);
  const char* tname = tname_str.c_str();
  const dart_datatype_t dt = dart_type_of<T>();
  constexpr std::size_t kN = 6;
  dart_gptr_t seg = DART_GPTR_NULL;
  RegStorage<T> reg_buf(reg, kN);
  if (registered) REQUIRE_OK(dart_team_memregister_aligned(DART_TEAM_ALL, kN, dt, reg_buf.data(), &seg));
  else REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kN, dt, &seg));
  T* mine = own<T>(seg, f.me);
  auto init = [&](int owner, std::size_t i) { return bits<T>(owner, i, salt); };
  auto repl = [&](int writer, std::size_t i) {
    T x = bits<T>(200 + writer, i, salt);
    return x == init(f.right, i) ? static_cast<T>(x + 1) : x;  // never equal to the old value
  };
  for (std::size_t i = 0; i < kN; ++i) mine[i] = init(f.me, i);
  f.barrier();
  // Per element: a CAS that must fail (compare = old + 1), then one that
  // must succeed; issued back to back, completed by one flush.
  std::vector<T> cmp_bad(kN), cmp_ok(kN), val(kN), r_bad(kN, T(1)), r_ok(kN, T(2));
  for (std::size_t i = 0; i < kN; ++i) {
    cmp_bad[i] = static_cast<T>(init(f.right, i) + 1);
    cmp_ok[i] = init(f.right, i);
    val[i] = repl(f.me, i);
    const dart_gptr_t g = at(seg, f.right, i * sizeof(T));
    CHECK_OK(dart_compare_and_swap(g, &val[i], &cmp_bad[i], &r_bad[i], dt));
    CHECK_OK(dart_compare_and_swap(g, &val[i], &cmp_ok[i], &r_ok[i], dt));
  }
  CHECK_OK(dart_flush_all(seg));
  std::vector<T> got(kN);
  CHECK_OK(dart_get_blocking(got.data(), at(seg, f.right), kN, dt, dt));
  Failures writer_side(std::string(tname) + " CAS pairs on unit " + std::to_string(f.right));
  for (std::size_t i = 0; i < kN; ++i) {
    writer_side.check(r_bad[i] == init(f.right, i) && r_bad[i] != cmp_bad[i], [&] {
      return "element " + std::to_string(i) + ": CAS with a wrong compare value returned " + show(r_bad[i]) +
             ", expected the old value " + show(init(f.right, i));
    });
    writer_side.check(r_ok[i] == init(f.right, i) && r_ok[i] == cmp_ok[i], [&] {
      return "element " + std::to_string(i) + ": CAS with the right compare value returned " + show(r_ok[i]) +
             ", expected " + show(init(f.right, i));
    });
    writer_side.check(got[i] == val[i], [&] {
      return "element " + std::to_string(i) + ": target after the CAS pair is " + show(got[i]) +
             ", expected the swapped-in " + show(val[i]);
    });
  }
  writer_side.report(f.me);
  f.barrier();
  Failures owner_side("own " + std::string(tname) + " elements after the left neighbour's CAS pairs");
  for (std::size_t i = 0; i < kN; ++i) {
    T x = bits<T>(200 + f.left, i, salt);
    if (x == init(f.me, i)) x = static_cast<T>(x + 1);
    owner_side.check(mine[i] == x,
                     [&] { return "element " + std::to_string(i) + ": " + show(mine[i]) + ", expected " + show(x); });
  }
  owner_side.report(f.me);
  f.barrier();
  if (registered) CHECK_OK(dart_team_memderegister(seg));
  else CHECK_OK(dart_team_memfree(seg));
}

// ---- hammering one location -----------------------------------------------------

// Share of `total` operations for unit `me` of `n`.
long share(long total, int me, int n) { return total / n + (me < total % n ? 1 : 0); }

// Checks on unit 0 that the values gathered from all units are exactly
// 0 .. total-1 (each fetch saw a distinct old value). Collective.
void check_unique(const std::vector<long>& mine, long total, int me, const std::string& what) {
  int count = static_cast<int>(mine.size());
  const int n = mpitest::world_size();
  std::vector<int> counts(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  long sum = 0;
  for (int u = 0; u < n; ++u) {
    displs[static_cast<std::size_t>(u)] = static_cast<int>(sum);
    sum += counts[static_cast<std::size_t>(u)];
  }
  std::vector<long> all(me == 0 ? static_cast<std::size_t>(sum) : 0);
  MPI_Gatherv(mine.data(), count, MPI_LONG, all.data(), counts.data(), displs.data(), MPI_LONG, 0, MPI_COMM_WORLD);
  if (me != 0) return;
  std::sort(all.begin(), all.end());
  bool ok = static_cast<long>(all.size()) == total;
  long first_bad = -1;
  for (std::size_t i = 0; ok && i < all.size(); ++i)
    if (all[i] != static_cast<long>(i)) {
      ok = false;
      first_bad = static_cast<long>(i);
    }
  BOOST_CHECK_MESSAGE(ok, "rank 0: " << what << ": the " << all.size() << " fetched values are not exactly 0.."
                                     << total - 1 << " (first mismatch at sorted position " << first_bad << ")");
}

template <class T>
void hammer(const DartFixture& f, const char* tname, long total, long cas_total, int target_unit) {
  const dart_datatype_t dt = dart_type_of<T>();
  // Three counters on the target unit: fetch-and-op, accumulate, CAS.
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, dt, &seg));
  T* mine = own<T>(seg, f.me);
  for (int i = 0; i < 8; ++i) mine[i] = T(0);
  f.barrier();
  const dart_gptr_t c_fetch = at(seg, target_unit, 1 * sizeof(T));
  const dart_gptr_t c_acc = at(seg, target_unit, 3 * sizeof(T));
  const dart_gptr_t c_cas = at(seg, target_unit, 5 * sizeof(T));
  const T one = T(1);

  // fetch-and-op SUM 1, each result flushed and kept.
  const long my_fetches = share(total, f.me, f.n);
  std::vector<long> fetched;
  fetched.reserve(static_cast<std::size_t>(my_fetches));
  bool ok = true;
  for (long k = 0; k < my_fetches && ok; ++k) {
    T old = T(-1);
    ok = dart_fetch_and_op(c_fetch, &one, &old, dt, DART_OP_SUM) == DART_OK && dart_flush(c_fetch) == DART_OK;
    fetched.push_back(static_cast<long>(old));
  }
  BOOST_CHECK_MESSAGE(ok, "rank " << f.me << ": " << tname << " fetch_and_op/flush failed after " << fetched.size());
  // accumulate SUM 1, flushed every 1000 operations and at the end.
  const long my_accs = share(total, f.me, f.n);
  ok = true;
  for (long k = 0; k < my_accs && ok; ++k) {
    ok = dart_accumulate(c_acc, &one, 1, dt, DART_OP_SUM) == DART_OK;
    if (ok && k % 1000 == 999) ok = dart_flush(c_acc) == DART_OK;
  }
  CHECK_OK(dart_flush(c_acc));
  BOOST_CHECK_MESSAGE(ok, "rank " << f.me << ": " << tname << " accumulate failed");
  // CAS increments (integral types): read, try old -> old + 1, retry with
  // the value seen.
  std::vector<long> swapped;
  if constexpr (std::is_integral_v<T>) {
    const long my_cas = share(cas_total, f.me, f.n);
    T cur = T(0);
    ok = dart_fetch_and_op(c_cas, &one, &cur, dt, DART_OP_NO_OP) == DART_OK && dart_flush(c_cas) == DART_OK;
    const double deadline = MPI_Wtime() + 30.0;
    while (ok && static_cast<long>(swapped.size()) < my_cas) {
      const T next = static_cast<T>(cur + 1);
      T seen = T(-1);
      ok = dart_compare_and_swap(c_cas, &next, &cur, &seen, dt) == DART_OK && dart_flush(c_cas) == DART_OK;
      if (seen == cur) {
        swapped.push_back(static_cast<long>(cur));
        cur = next;
      } else {
        cur = seen;
      }
      if (MPI_Wtime() > deadline) {
        BOOST_ERROR("rank " << f.me << ": " << tname << " CAS loop made only " << swapped.size() << " of " << my_cas
                            << " increments in 30 s");
        break;
      }
    }
    BOOST_CHECK_MESSAGE(ok, "rank " << f.me << ": " << tname << " CAS/flush failed");
  }
  f.barrier();

  if (f.me == target_unit) {
    BOOST_CHECK_MESSAGE(mine[1] == static_cast<T>(total), "rank " << f.me << ": " << tname << " counter after " << total
                                                                  << " fetch_and_op SUM 1 is " << show(mine[1]));
    BOOST_CHECK_MESSAGE(mine[3] == static_cast<T>(total), "rank " << f.me << ": " << tname << " counter after " << total
                                                                  << " accumulate SUM 1 is " << show(mine[3]));
    if (std::is_integral_v<T>)
      BOOST_CHECK_MESSAGE(mine[5] == static_cast<T>(cas_total), "rank " << f.me << ": " << tname << " counter after "
                                                                        << cas_total << " CAS increments is "
                                                                        << show(mine[5]));
    for (int i : {0, 2, 4, 6, 7})
      BOOST_CHECK_MESSAGE(mine[i] == T(0), "rank " << f.me << ": " << tname << " neighbour word " << i << " changed");
  }
  // Everybody reads the counters by RMA, too.
  T got[8] = {};
  CHECK_OK(dart_get_blocking(got, at(seg, target_unit), 8, dt, dt));
  BOOST_CHECK_MESSAGE(got[1] == static_cast<T>(total) && got[3] == static_cast<T>(total),
                      "rank " << f.me << ": " << tname << " counters read by dart_get: " << show(got[1]) << ", "
                              << show(got[3]) << ", expected " << total);
  check_unique(fetched, total, f.me, std::string(tname) + " fetch_and_op SUM 1");
  if (std::is_integral_v<T>) check_unique(swapped, cas_total, f.me, std::string(tname) + " CAS increments");
  f.barrier();
  CHECK_OK(dart_team_memfree(seg));
}

// ---- user operation ----------------------------------------------------------------

struct UserData {
  int magic = 4711;
  int calls = 0;
};

// inoutvec[i] = the one of the two with the larger absolute value.
void absmax(const void* invec, void* inoutvec, std::size_t len, void* user) {
  auto* ud = static_cast<UserData*>(user);
  if (ud && ud->magic == 4711) ++ud->calls;
  const int* in = static_cast<const int*>(invec);
  int* io = static_cast<int*>(inoutvec);
  for (std::size_t i = 0; i < len; ++i)
    if (std::abs(in[i]) > std::abs(io[i])) io[i] = in[i];
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(atomics, DartFixture)

BOOST_AUTO_TEST_CASE(every_type_every_operation) {
  every_operation<unsigned char>(*this, "BYTE", 1);
  every_operation<short>(*this, "SHORT", 2);
  every_operation<int>(*this, "INT", 3);
  every_operation<unsigned>(*this, "UINT", 4);
  every_operation<long>(*this, "LONG", 5);
  every_operation<unsigned long>(*this, "ULONG", 6);
  every_operation<long long>(*this, "LONGLONG", 7);
  every_operation<unsigned long long>(*this, "ULONGLONG", 8);
  every_operation<float>(*this, "FLOAT", 9);
  every_operation<double>(*this, "DOUBLE", 10);
  every_operation<long double>(*this, "LONG_DOUBLE", 11);
}

BOOST_AUTO_TEST_CASE(every_type_every_operation_on_registered_memory) {
  for (const Reg reg : {Reg::Aligned, Reg::Misaligned}) {
    every_operation<unsigned char>(*this, "BYTE", 31, reg);
    every_operation<short>(*this, "SHORT", 32, reg);
    every_operation<int>(*this, "INT", 33, reg);
    every_operation<unsigned long long>(*this, "ULONGLONG", 38, reg);
    every_operation<float>(*this, "FLOAT", 39, reg);
    every_operation<double>(*this, "DOUBLE", 40, reg);
    every_operation<long double>(*this, "LONG_DOUBLE", 41, reg);
  }
}

BOOST_AUTO_TEST_CASE(compare_and_swap_integral_types) {
  cas_ring<unsigned char>(*this, "BYTE", 21);
  cas_ring<short>(*this, "SHORT", 22);
  cas_ring<int>(*this, "INT", 23);
  cas_ring<unsigned>(*this, "UINT", 24);
  cas_ring<long>(*this, "LONG", 25);
  cas_ring<unsigned long>(*this, "ULONG", 26);
  cas_ring<long long>(*this, "LONGLONG", 27);
  cas_ring<unsigned long long>(*this, "ULONGLONG", 28);
}

BOOST_AUTO_TEST_CASE(compare_and_swap_on_registered_memory) {
  for (const Reg reg : {Reg::Aligned, Reg::Misaligned}) {
    cas_ring<unsigned char>(*this, "BYTE", 51, reg);
    cas_ring<short>(*this, "SHORT", 52, reg);
    cas_ring<int>(*this, "INT", 53, reg);
    cas_ring<long>(*this, "LONG", 55, reg);
  }
}

// Accumulate-type operations from one origin to one location with one type
// take effect in issue order (spec 3.6.2), without flushes in between.
template <class T>
void issue_order(const DartFixture& f, const char* tname) {
  const dart_datatype_t dt = dart_type_of<T>();
  constexpr std::size_t kReps = 64;
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kReps, dt, &seg));
  T* mine = own<T>(seg, f.me);
  for (std::size_t i = 0; i < kReps; ++i) mine[i] = static_cast<T>(2 + i % 3);
  f.barrier();
  // Per element x0: +3, *4, fetch MAX 7 (no effect, fetched), REPLACE 9+k,
  // fetch SUM 1 (fetched 9+k), blocking-local *3, [CAS 30+3k -> 100+k],
  // fetch NO_OP.
  struct Fetched {
    T max, sum, cas, last;
  };
  std::vector<Fetched> r(kReps);
  std::vector<T> ops_vals(kReps * 8);
  for (std::size_t k = 0; k < kReps; ++k) {
    const dart_gptr_t g = at(seg, f.right, k * sizeof(T));
    T* v = &ops_vals[k * 8];
    v[0] = T(3);
    v[1] = T(4);
    v[2] = T(7);
    v[3] = static_cast<T>(9 + k % 50);
    v[4] = T(1);
    v[5] = T(3);
    v[6] = static_cast<T>(3 * (9 + k % 50 + 1));  // compare
    v[7] = static_cast<T>(100 + k % 20);          // swap in
    CHECK_OK(dart_accumulate(g, &v[0], 1, dt, DART_OP_SUM));
    CHECK_OK(dart_accumulate(g, &v[1], 1, dt, DART_OP_PROD));
    CHECK_OK(dart_fetch_and_op(g, &v[2], &r[k].max, dt, DART_OP_MAX));
    CHECK_OK(dart_accumulate(g, &v[3], 1, dt, DART_OP_REPLACE));
    CHECK_OK(dart_fetch_and_op(g, &v[4], &r[k].sum, dt, DART_OP_SUM));
    CHECK_OK(dart_accumulate_blocking_local(g, &v[5], 1, dt, DART_OP_PROD));
    if constexpr (std::is_integral_v<T>) CHECK_OK(dart_compare_and_swap(g, &v[7], &v[6], &r[k].cas, dt));
    CHECK_OK(dart_fetch_and_op(g, &v[4], &r[k].last, dt, DART_OP_NO_OP));
  }
  CHECK_OK(dart_flush(at(seg, f.right)));
  std::size_t bad = 0, first = 0;
  for (std::size_t k = 0; k < kReps; ++k) {
    const T x0 = static_cast<T>(2 + k % 3);
    const T after_prod = static_cast<T>((x0 + 3) * 4);
    const T repl = static_cast<T>(9 + k % 50);
    const T after_p3 = static_cast<T>((repl + 1) * 3);
    const T final_v = std::is_integral_v<T> ? static_cast<T>(100 + k % 20) : after_p3;
    bool good = r[k].max == after_prod && r[k].sum == repl && r[k].last == final_v;
    if constexpr (std::is_integral_v<T>) good = good && r[k].cas == after_p3;
    if (!good && bad++ == 0) first = k;
  }
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << f.me << ": " << tname << ": " << bad << " of " << kReps
                                        << " sequences of accumulate-type operations gave wrong results (out of "
                                           "issue order, or an operation computed wrongly); first at element "
                                        << first << " (fetched MAX " << show(r[first].max) << ", SUM "
                                        << show(r[first].sum) << ", last " << show(r[first].last) << ")");
  f.barrier();
  // The owner sees the final values (they do not depend on the writer).
  bad = 0;
  for (std::size_t k = 0; k < kReps; ++k) {
    const T repl = static_cast<T>(9 + k % 50);
    const T final_v = std::is_integral_v<T> ? static_cast<T>(100 + k % 20) : static_cast<T>((repl + 1) * 3);
    bad += !(mine[k] == final_v);
  }
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << f.me << ": " << tname << ": " << bad << " own elements wrong after the "
                                        << "left neighbour's sequences");
  f.barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(operations_from_one_origin_take_effect_in_issue_order) {
  issue_order<int>(*this, "INT");
  issue_order<long>(*this, "LONG");
  issue_order<unsigned long long>(*this, "ULONGLONG");
  issue_order<double>(*this, "DOUBLE");
}

BOOST_AUTO_TEST_CASE(all_units_hammer_one_location) {
  const bool slow = slow_ranks();
  const long total = mpitest::scaled(slow ? 10000 : 100000);
  const long cas_total = mpitest::scaled(slow ? 2000 : 20000);
  if (slow) BOOST_TEST_MESSAGE("MPICH with more ranks than cores: " << total << " operations instead of 100000");
  hammer<long>(*this, "LONG", total, cas_total, 0);
  hammer<double>(*this, "DOUBLE", total, cas_total, n - 1);
  hammer<int>(*this, "INT", total, cas_total, n / 2);
}

BOOST_AUTO_TEST_CASE(local_pool_and_registered_memory) {
  // Everybody adds to a counter in unit 0's dart_memalloc block.
  dart_gptr_t block = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(4, DART_TYPE_LONG, &block));
  long* mb = own<long>(block, me);
  for (int i = 0; i < 4; ++i) mb[i] = 0;
  const std::vector<dart_gptr_t> blocks = allgather(block);
  barrier();
  const dart_gptr_t c = at(blocks[0], 0, 2 * sizeof(long));
  const long add = me + 1;
  std::vector<long> seen(50);
  for (int k = 0; k < 50; ++k)
    CHECK_OK(dart_fetch_and_op(c, &add, &seen[static_cast<std::size_t>(k)], DART_TYPE_LONG, DART_OP_SUM));
  CHECK_OK(dart_flush(c));
  for (int k = 1; k < 50; ++k)  // this unit's own additions are ordered
    CHECK_RANK(seen[static_cast<std::size_t>(k)] >= seen[static_cast<std::size_t>(k) - 1] + add);
  barrier();
  if (me == 0) CHECK_EQ(mb[2], 50L * n * (n + 1) / 2);
  barrier();
  CHECK_OK(dart_memfree(block));

  // Registered memory: ring accumulate and CAS.
  std::vector<int> buf(8, 10 * me);
  dart_gptr_t reg = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, buf.size(), DART_TYPE_INT, buf.data(), &reg);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_team_memregister_aligned returned " << rc);
  if (!mpitest::all_ranks(rc == DART_OK)) return;
  const int vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_OK(dart_accumulate(at(reg, right), vals, 8, DART_TYPE_INT, DART_OP_SUM));
  const int cmp = 10 * right + 1, swp = -me;
  int old = 0;
  CHECK_OK(dart_compare_and_swap(at(reg, right), &swp, &cmp, &old, DART_TYPE_INT));
  CHECK_OK(dart_flush(at(reg, right)));
  CHECK_EQ(old, 10 * right + 1);
  barrier();
  for (int i = 0; i < 8; ++i) CHECK_EQ(buf[static_cast<std::size_t>(i)], i == 0 ? -left : 10 * me + i + 1);
  barrier();
  CHECK_OK(dart_team_memderegister(reg));
}

BOOST_AUTO_TEST_CASE(nelem_zero_accumulate_is_a_noop) {
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2, DART_TYPE_INT, &seg));
  int* mine = own<int>(seg, me);
  mine[0] = mine[1] = 42;
  barrier();
  const int v[2] = {5, 5};
  CHECK_OK(dart_accumulate(at(seg, right), v, 0, DART_TYPE_INT, DART_OP_SUM));
  CHECK_OK(dart_accumulate_blocking_local(at(seg, right), v, 0, DART_TYPE_INT, DART_OP_REPLACE));
  CHECK_OK(dart_flush(at(seg, right)));
  barrier();
  CHECK_EQ(mine[0], 42);
  CHECK_EQ(mine[1], 42);
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(user_operations_and_minmax) {
  UserData ud;
  dart_operation_t op = DART_OP_UNDEFINED, op2 = DART_OP_UNDEFINED;
  CHECK_OK(dart_op_create(absmax, &ud, true, DART_TYPE_INT, false, &op));
  CHECK_RANK(op != DART_OP_UNDEFINED);
  CHECK_RANK(op >= static_cast<dart_operation_t>(DART_OP_LAST));  // differs from every predefined operation
  dart_datatype_t custom = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(12, &custom));
  CHECK_OK(dart_op_create(absmax, nullptr, false, custom, true, &op2));
  CHECK_RANK(op2 >= static_cast<dart_operation_t>(DART_OP_LAST));
  CHECK_RANK(op2 != op);

  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &seg));
  int* mine = own<int>(seg, me);
  for (int i = 0; i < 4; ++i) mine[i] = 3 * me + i;
  barrier();
  const int vals[4] = {-100, 100, -100, 100};
  int res = 0;
  {
    QuietDart quiet;
    CHECK_EQ(dart_accumulate(at(seg, right), vals, 4, DART_TYPE_INT, op), DART_ERR_INVAL);
    CHECK_EQ(dart_accumulate_blocking_local(at(seg, right), vals, 4, DART_TYPE_INT, op), DART_ERR_INVAL);
    CHECK_EQ(dart_fetch_and_op(at(seg, right), vals, &res, DART_TYPE_INT, op), DART_ERR_INVAL);
    CHECK_EQ(dart_accumulate(at(seg, right), vals, 4, DART_TYPE_INT, DART_OP_MINMAX), DART_ERR_INVAL);
    CHECK_EQ(dart_accumulate_blocking_local(at(seg, right), vals, 4, DART_TYPE_INT, DART_OP_MINMAX), DART_ERR_INVAL);
    CHECK_EQ(dart_fetch_and_op(at(seg, right), vals, &res, DART_TYPE_INT, DART_OP_MINMAX), DART_ERR_INVAL);
  }
  CHECK_OK(dart_flush(at(seg, right)));
  barrier();
  for (int i = 0; i < 4; ++i) CHECK_EQ(mine[i], 3 * me + i);  // nothing was applied
  CHECK_EQ(ud.calls, 0);
  CHECK_EQ(ud.magic, 4711);

  CHECK_OK(dart_op_destroy(&op));
  CHECK_EQ(op, static_cast<dart_operation_t>(DART_OP_UNDEFINED));
  CHECK_OK(dart_op_destroy(&op2));
  CHECK_EQ(op2, static_cast<dart_operation_t>(DART_OP_UNDEFINED));
  CHECK_OK(dart_type_destroy(&custom));
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_CASE(threads_hammer_one_location, DartThreadFixture) {
  if (!multiple) {
    BOOST_TEST_MESSAGE("rank " << me << ": DART_THREAD_MULTIPLE not available; thread part skipped");
    return;
  }
  constexpr int kThreads = 2;
  const long total = mpitest::scaled(slow_ranks() ? 4000 : 20000);
  dart_gptr_t seg = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2, DART_TYPE_LONG, &seg));
  long* mine = own<long>(seg, me);
  mine[0] = mine[1] = 0;
  barrier();
  const dart_gptr_t c = at(seg, 0, sizeof(long));
  std::atomic<int> failures{0};
  std::vector<std::vector<long>> fetched(kThreads);
  const long per_unit = share(total, me, n);
  auto worker = [&](int t) {
    const long count = share(per_unit, t, kThreads);
    const long one = 1;
    for (long k = 0; k < count; ++k) {
      long old = -1;
      if (dart_fetch_and_op(c, &one, &old, DART_TYPE_LONG, DART_OP_SUM) != DART_OK || dart_flush(c) != DART_OK) {
        ++failures;
        return;
      }
      fetched[static_cast<std::size_t>(t)].push_back(old);
    }
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back(worker, t);
  for (auto& th : ts) th.join();
  CHECK_EQ(failures.load(), 0);
  barrier();
  if (me == 0) CHECK_EQ(mine[1], total);
  std::vector<long> all;
  for (const auto& v : fetched) all.insert(all.end(), v.begin(), v.end());
  check_unique(all, total, me, "fetch_and_op SUM 1 from 2 threads per unit");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}
