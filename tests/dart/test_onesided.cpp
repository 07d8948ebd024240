// One-sided transfers of DART (dart_communication.h, spec 3.6.2, 3.6.4-3.6.6)
// on DART_TEAM_ALL: non-blocking dart_put/dart_get completed by each of
// dart_flush, dart_flush_all, dart_flush_local, dart_flush_local_all; the
// handle forms with every completion call (wait, waitall, wait_local,
// waitall_local, test, test_local, testall, testall_local, handle_free +
// flush), including NULL / DART_HANDLE_NULL inputs; blocking forms with
// derived types; the derived types of spec 2.11 (strided, indexed, custom:
// gather/scatter of matrix columns, strided<->strided with different block
// lengths, indexed with repetitions, unsorted blocks and a non-zero lower
// bound, indexed<->indexed) and their destruction while an operation is in
// flight; targets in team allocations, the dart_memalloc pool and registered
// memory (dart_team_memregister_aligned, also at bases that are only
// naturally aligned, and dart_team_memregister with a different size per
// unit); the caller's own portion; everyone-to-one and
// one-to-everyone; many outstanding operations; and puts/gets from several
// threads when DART_THREAD_MULTIPLE is available. Data patterns depend on writer,
// position and case, so lost, duplicated or misplaced elements are caught.
// Not covered here: atomics (test_atomics.cpp), transfers above INT_MAX
// elements (test_large_transfer.cpp), invalid arguments
// (test_rma_bad_input.cpp), target-side progress (test_progress.cpp), teams
// other than DART_TEAM_ALL, and ordering of unflushed puts/gets (undefined
// by the spec). The .rma variants force the MPI RMA path with
// DART_SHARED_MEMORY=0; real multi-node runs are not covered.
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using dartcheck::at;

// ---- fixture -------------------------------------------------------------------

using DartFixture = dartcheck::PlainDartFixture;
using DartThreadFixture = dartcheck::DartFixture;

// ---- patterns and checks ---------------------------------------------------------

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The value element `i` gets when `writer` writes it in case `salt`.
template <class T>
T pattern(int writer, std::uint64_t i, int salt) {
  const std::uint64_t h = mix((static_cast<std::uint64_t>(writer + 7) << 48) ^
                              (static_cast<std::uint64_t>(salt) << 36) ^ i);
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(h >> 11);  // 53 bits: exact in double
  else
    return static_cast<T>(h);
}

// What the owner stores in its portion before others write into it.
template <class T>
T sentinel(int owner, std::uint64_t i, int salt) {
  return pattern<T>(1000 + owner, i, salt);
}

template <class T>
std::string show(T v) {
  std::ostringstream os;
  if constexpr (std::is_floating_point_v<T>) os.precision(21);
  os << +v;
  return os.str();
}

// One check per call: got[0..count) == expected(i), naming the rank, the
// case and the first wrong element.
template <class T, class F>
bool verify(const T* got, std::size_t count, F expected, int me, const std::string& what) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!(got[i] == expected(i))) {
      if (bad == 0) first = i;
      ++bad;
    }
  }
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << me << ": " << what << ": " << bad << " of " << count
                                        << " elements wrong; first at index " << first << ": got "
                                        << (bad ? show(got[first]) : std::string()) << ", expected "
                                        << (bad ? show(expected(first)) : std::string()));
  return bad == 0;
}

// ---- gptr helpers ------------------------------------------------------------------

std::vector<dart_gptr_t> allgather(const dart_gptr_t& g) {
  std::vector<dart_gptr_t> all(static_cast<std::size_t>(mpitest::world_size()));
  MPI_Allgather(&g, sizeof g, MPI_BYTE, all.data(), sizeof g, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

template <class T>
T* own(const dart_gptr_t& g, int me) {
  void* p = nullptr;
  const dart_ret_t rc = dart_gptr_getaddr(at(g, me), &p);
  BOOST_REQUIRE_MESSAGE(rc == DART_OK && p != nullptr,
                        "rank " << me << ": dart_gptr_getaddr of the own portion returned " << rc);
  return static_cast<T*>(p);
}

template <class T>
dart_gptr_t team_alloc(std::size_t nelem, dart_datatype_t dt) {
  dart_gptr_t g = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, nelem, dt, &g));
  return g;
}

// Repeats `step` until it returns true; false if that took longer than
// `seconds` (a completion that never comes fails instead of hanging).
template <class Step>
bool poll_until(Step&& step, double seconds = 20.0) {
  const double deadline = MPI_Wtime() + seconds;
  while (!step()) {
    if (MPI_Wtime() > deadline) return false;
  }
  return true;
}

bool all_null(const std::vector<dart_handle_t>& hs) {
  return std::all_of(hs.begin(), hs.end(), [](dart_handle_t h) { return h == DART_HANDLE_NULL; });
}

// Owns a derived type; destroys it (and checks the reset) at scope exit.
class Type {
 public:
  Type() = default;
  explicit Type(dart_datatype_t t) : t_(t) {}
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;
  ~Type() {
    if (t_ == DART_TYPE_UNDEFINED) return;
    CHECK_OK(dart_type_destroy(&t_));
    CHECK_EQ(t_, DART_TYPE_UNDEFINED);
  }
  static Type strided(dart_datatype_t base, std::size_t stride, std::size_t blocklen) {
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    REQUIRE_OK(dart_type_create_strided(base, stride, blocklen, &t));
    REQUIRE_RANK(t != DART_TYPE_UNDEFINED);
    REQUIRE_RANK(t >= DART_TYPE_LAST);
    return Type(t);
  }
  static Type indexed(dart_datatype_t base, const std::vector<std::size_t>& blocklen,
                      const std::vector<std::size_t>& offset) {
    // The arrays are copied by the call: pass temporaries that die at once.
    std::vector<std::size_t> bl(blocklen), off(offset);
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    REQUIRE_OK(dart_type_create_indexed(base, bl.size(), bl.data(), off.data(), &t));
    std::fill(bl.begin(), bl.end(), 9999);
    std::fill(off.begin(), off.end(), 9999);
    REQUIRE_RANK(t >= DART_TYPE_LAST);
    return Type(t);
  }
  static Type custom(std::size_t bytes) {
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    REQUIRE_OK(dart_type_create_custom(bytes, &t));
    REQUIRE_RANK(t >= DART_TYPE_LAST);
    return Type(t);
  }
  Type(Type&& o) noexcept : t_(o.t_) { o.t_ = DART_TYPE_UNDEFINED; }
  operator dart_datatype_t() const { return t_; }  // NOLINT: used as a type argument

 private:
  dart_datatype_t t_ = DART_TYPE_UNDEFINED;
};

// How a batch of handle-based operations is completed.
enum class Completion {
  Wait,
  Waitall,
  WaitLocal,
  WaitallLocal,
  Test,
  TestLocal,
  Testall,
  TestallLocal,
  HandleFree,
};
const Completion kCompletions[] = {Completion::Wait,      Completion::Waitall,  Completion::WaitLocal,
                                   Completion::WaitallLocal, Completion::Test,  Completion::TestLocal,
                                   Completion::Testall,   Completion::TestallLocal, Completion::HandleFree};
const char* name(Completion c) {
  switch (c) {
    case Completion::Wait: return "dart_wait";
    case Completion::Waitall: return "dart_waitall";
    case Completion::WaitLocal: return "dart_wait_local";
    case Completion::WaitallLocal: return "dart_waitall_local";
    case Completion::Test: return "dart_test";
    case Completion::TestLocal: return "dart_test_local";
    case Completion::Testall: return "dart_testall";
    case Completion::TestallLocal: return "dart_testall_local";
    case Completion::HandleFree: return "dart_handle_free";
  }
  return "?";
}
// True if the completion call alone makes a put visible at the target.
bool completes_remotely(Completion c) {
  return c == Completion::Wait || c == Completion::Waitall || c == Completion::Test || c == Completion::Testall;
}

// Completes `hs` with `how`; then every entry must be DART_HANDLE_NULL.
// `seg` names the segment for the flush that the local-only forms and
// dart_handle_free need (remote = true: a put, completed by dart_flush_all).
void complete(std::vector<dart_handle_t>& hs, Completion how, const dart_gptr_t& seg, bool remote, int me,
              const std::string& what) {
  const std::string ctx = what + " completed by " + name(how);
  switch (how) {
    case Completion::Wait:
    case Completion::WaitLocal:
      for (dart_handle_t& h : hs) CHECK_OK(how == Completion::Wait ? dart_wait(&h) : dart_wait_local(&h));
      break;
    case Completion::Waitall:
      CHECK_OK(dart_waitall(hs.data(), hs.size()));
      break;
    case Completion::WaitallLocal:
      CHECK_OK(dart_waitall_local(hs.data(), hs.size()));
      break;
    case Completion::Test:
    case Completion::TestLocal:
      for (dart_handle_t& h : hs) {
        const dart_handle_t before = h;
        const bool done = poll_until([&] {
          int32_t flag = -1;
          const dart_ret_t rc = how == Completion::Test ? dart_test(&h, &flag) : dart_test_local(&h, &flag);
          if (rc != DART_OK) {
            BOOST_ERROR("rank " << me << ": " << ctx << ": test returned " << rc);
            return true;
          }
          BOOST_CHECK_MESSAGE(flag == 0 || flag == 1, "rank " << me << ": " << ctx << ": result " << flag);
          if (flag == 0)
            BOOST_CHECK_MESSAGE(h == before, "rank " << me << ": " << ctx << ": unfinished handle was changed");
          return flag == 1;
        });
        BOOST_CHECK_MESSAGE(done, "rank " << me << ": " << ctx << ": operation not complete after 20 s");
      }
      break;
    case Completion::Testall:
    case Completion::TestallLocal: {
      const std::vector<dart_handle_t> before = hs;
      const bool done = poll_until([&] {
        int32_t flag = -1;
        const dart_ret_t rc = how == Completion::Testall ? dart_testall(hs.data(), hs.size(), &flag)
                                                         : dart_testall_local(hs.data(), hs.size(), &flag);
        if (rc != DART_OK) {
          BOOST_ERROR("rank " << me << ": " << ctx << ": testall returned " << rc);
          return true;
        }
        BOOST_CHECK_MESSAGE(flag == 0 || flag == 1, "rank " << me << ": " << ctx << ": result " << flag);
        if (flag == 0)
          BOOST_CHECK_MESSAGE(hs == before, "rank " << me << ": " << ctx << ": handles released although not all done");
        return flag == 1;
      });
      BOOST_CHECK_MESSAGE(done, "rank " << me << ": " << ctx << ": operations not complete after 20 s");
      break;
    }
    case Completion::HandleFree:
      for (dart_handle_t& h : hs) CHECK_OK(dart_handle_free(&h));
      break;
  }
  BOOST_CHECK_MESSAGE(all_null(hs), "rank " << me << ": " << ctx << ": handles not DART_HANDLE_NULL afterwards");
  if (how == Completion::HandleFree) {
    // The operations still proceed; a flush on the segment completes them.
    CHECK_OK(remote ? dart_flush_all(seg) : dart_flush_local_all(seg));
  } else if (remote && !completes_remotely(how)) {
    CHECK_OK(dart_flush_all(seg));
  }
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(onesided, DartFixture)

// ---- non-blocking put/get and the four flushes ------------------------------------

BOOST_AUTO_TEST_CASE(nonblocking_ring_with_every_flush) {
  using T = long;
  constexpr std::size_t kPortion = 4096;
  constexpr std::size_t kChunk = 48, kChunks = 32, kSpacing = 128;  // chunk c at [c*128 + r, +48)
  const dart_gptr_t seg = team_alloc<T>(kPortion, DART_TYPE_LONG);
  T* mine = own<T>(seg, me);
  const char* put_flush[] = {"dart_flush", "dart_flush_all", "dart_flush", "dart_flush_all"};
  const char* get_flush[] = {"dart_flush_local", "dart_flush_local_all", "dart_flush", "dart_flush_all"};

  for (int r = 0; r < 4; ++r) {
    const int salt = 10 + r;
    const std::size_t shift = static_cast<std::size_t>(r);
    for (std::size_t i = 0; i < kPortion; ++i) mine[i] = sentinel<T>(me, i, salt);
    barrier();

    // Puts into the right neighbour, chunk by chunk, from one source buffer
    // that stays untouched until the flush.
    std::vector<T> src(kChunks * kChunk);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<T>(me, i, salt);
    for (std::size_t c = 0; c < kChunks; ++c)
      CHECK_OK(dart_put(at(seg, right, (c * kSpacing + shift) * sizeof(T)), &src[c * kChunk], kChunk, DART_TYPE_LONG,
                        DART_TYPE_LONG));
    // The offset of the flush's gptr is ignored.
    if (r % 2 == 0)
      CHECK_OK(dart_flush(at(seg, right, 24)));
    else
      CHECK_OK(dart_flush_all(at(seg, me, 8)));
    barrier();

    auto expected = [&](int owner, int writer) {
      return [=](std::size_t i) {
        const std::size_t c = i / kSpacing, k = i % kSpacing;
        if (c < kChunks && k >= shift && k < shift + kChunk) return pattern<T>(writer, c * kChunk + (k - shift), salt);
        return sentinel<T>(owner, i, salt);
      };
    };
    verify(mine, kPortion, expected(me, left), me,
           std::string("own portion after the left neighbour's dart_puts + ") + put_flush[r]);

    // Gets of the whole left portion in pieces.
    std::vector<T> got(kPortion, T{-1});
    constexpr std::size_t kPiece = 256;
    for (std::size_t p = 0; p < kPortion; p += kPiece)
      CHECK_OK(dart_get(&got[p], at(seg, left, p * sizeof(T)), kPiece, DART_TYPE_LONG, DART_TYPE_LONG));
    switch (r) {
      case 0: CHECK_OK(dart_flush_local(at(seg, left))); break;
      case 1: CHECK_OK(dart_flush_local_all(seg)); break;
      case 2: CHECK_OK(dart_flush(at(seg, left))); break;
      default: CHECK_OK(dart_flush_all(seg)); break;
    }
    verify(got.data(), kPortion, expected(left, (left + n - 1) % n), me,
           std::string("left neighbour's portion by dart_get + ") + get_flush[r]);
    barrier();
  }
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(own_portion_through_rma) {
  using T = double;
  constexpr std::size_t kN = 1000;
  const dart_gptr_t seg = team_alloc<T>(kN, DART_TYPE_DOUBLE);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = sentinel<T>(me, i, 20);
  barrier();

  // dart_put to oneself, then visible to own loads and own gets.
  std::vector<T> src(500);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<T>(me, i, 20);
  CHECK_OK(dart_put(at(seg, me, 100 * sizeof(T)), src.data(), src.size(), DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
  CHECK_OK(dart_flush(at(seg, me)));
  barrier();
  auto expected = [&](std::size_t i) {
    return (i >= 100 && i < 600) ? pattern<T>(me, i - 100, 20) : sentinel<T>(me, i, 20);
  };
  verify(mine, kN, expected, me, "own portion read by loads after a dart_put to oneself");
  std::vector<T> got(kN, -1.0);
  CHECK_OK(dart_get(got.data(), at(seg, me), kN, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
  CHECK_OK(dart_flush_local(at(seg, me)));
  verify(got.data(), kN, expected, me, "own portion read by dart_get after a dart_put to oneself");

  // Handle forms to oneself.
  dart_handle_t h = DART_HANDLE_NULL;
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<T>(me, i, 21);
  CHECK_OK(dart_put_handle(at(seg, me), src.data(), src.size(), DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
  CHECK_OK(dart_wait(&h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  std::fill(got.begin(), got.end(), -1.0);
  CHECK_OK(dart_get_handle(got.data(), at(seg, me), kN, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
  CHECK_OK(dart_wait(&h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  verify(got.data(), kN,
         [&](std::size_t i) { return i < 500 ? pattern<T>(me, i, 21) : (i < 600 ? pattern<T>(me, i - 100, 20) : sentinel<T>(me, i, 20)); },
         me, "own portion by dart_get_handle after dart_put_handle to oneself");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(everyone_to_one_and_one_to_everyone) {
  using T = int;
  constexpr std::size_t kBlock = 300;
  const std::size_t portion = kBlock * static_cast<std::size_t>(n);
  const dart_gptr_t seg = team_alloc<T>(portion, DART_TYPE_INT);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < portion; ++i) mine[i] = sentinel<T>(me, i, 30);
  barrier();

  // Everybody writes its block of unit 0's portion.
  std::vector<T> src(kBlock);
  for (std::size_t i = 0; i < kBlock; ++i) src[i] = pattern<T>(me, i, 30);
  const std::size_t my_slot = static_cast<std::size_t>(me) * kBlock;
  CHECK_OK(dart_put(at(seg, 0, my_slot * sizeof(T)), src.data(), kBlock, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_flush(at(seg, 0)));
  barrier();
  auto all_blocks = [&](int salt) {
    return [=](std::size_t i) { return pattern<T>(static_cast<int>(i / kBlock), i % kBlock, salt); };
  };
  if (me == 0) verify(mine, portion, all_blocks(30), me, "unit 0's portion after everybody's put");

  // Everybody reads all of unit 0's blocks, one get per block.
  std::vector<T> got(portion, -1);
  for (int u = 0; u < n; ++u) {
    const std::size_t off = static_cast<std::size_t>(u) * kBlock;
    CHECK_OK(dart_get(&got[off], at(seg, 0, off * sizeof(T)), kBlock, DART_TYPE_INT, DART_TYPE_INT));
  }
  CHECK_OK(dart_flush_local_all(seg));
  verify(got.data(), portion, all_blocks(30), me, "unit 0's portion read by everybody");
  barrier();

  // The last unit writes block `u` of every unit u's portion, one flush_all.
  const int writer = n - 1;
  std::vector<T> many(portion);
  if (me == writer) {
    for (std::size_t i = 0; i < portion; ++i) many[i] = pattern<T>(writer, i, 31);
    for (int u = 0; u < n; ++u) {
      const std::size_t off = static_cast<std::size_t>(u) * kBlock;
      CHECK_OK(dart_put(at(seg, u, off * sizeof(T)), &many[off], kBlock, DART_TYPE_INT, DART_TYPE_INT));
    }
    CHECK_OK(dart_flush_all(seg));
  }
  barrier();
  verify(mine + my_slot, kBlock, [&](std::size_t i) { return pattern<T>(writer, my_slot + i, 31); }, me,
         "own block after unit " + std::to_string(writer) + "'s put to everybody");
  if (me != 0 && me != writer)  // the rest of the portion was not touched
    verify(mine, my_slot, [&](std::size_t i) { return sentinel<T>(me, i, 30); }, me, "own portion before the block");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

// ---- handles ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(handles_with_every_completion_call) {
  using T = unsigned long long;
  constexpr std::size_t kOps = 8, kLen = 200;
  constexpr std::size_t kPortion = kOps * kLen + 16;  // [8, 8 + kOps*kLen) written, guards around
  const dart_gptr_t seg = team_alloc<T>(kPortion, DART_TYPE_ULONGLONG);
  T* mine = own<T>(seg, me);
  int salt = 40;
  for (const Completion how : kCompletions) {
    ++salt;
    const std::string what = std::string("ring through handles, ") + name(how);
    for (std::size_t i = 0; i < kPortion; ++i) mine[i] = sentinel<T>(me, i, salt);
    barrier();

    std::vector<T> src(kOps * kLen);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<T>(me, i, salt);
    std::vector<dart_handle_t> hs(kOps, DART_HANDLE_NULL);
    for (std::size_t k = 0; k < kOps; ++k)
      CHECK_OK(dart_put_handle(at(seg, right, (8 + k * kLen) * sizeof(T)), &src[k * kLen], kLen, DART_TYPE_ULONGLONG,
                               DART_TYPE_ULONGLONG, &hs[k]));
    complete(hs, how, seg, /*remote=*/true, me, what + " (puts)");
    barrier();
    auto expected = [&](int owner, int writer) {
      return [=](std::size_t i) {
        return (i >= 8 && i < 8 + kOps * kLen) ? pattern<T>(writer, i - 8, salt) : sentinel<T>(owner, i, salt);
      };
    };
    verify(mine, kPortion, expected(me, left), me, what + ": own portion after the left neighbour's put_handles");

    std::vector<T> got(kPortion, 0);
    hs.assign(kOps + 1, DART_HANDLE_NULL);
    const std::size_t piece = (kPortion + kOps) / (kOps + 1);
    for (std::size_t k = 0; k <= kOps; ++k) {
      const std::size_t off = k * piece, len = std::min(piece, kPortion - off);
      CHECK_OK(dart_get_handle(&got[off], at(seg, left, off * sizeof(T)), len, DART_TYPE_ULONGLONG, DART_TYPE_ULONGLONG,
                               &hs[k]));
    }
    complete(hs, how, seg, /*remote=*/false, me, what + " (gets)");
    verify(got.data(), kPortion, expected(left, (left + n - 1) % n), me,
           what + ": left neighbour's portion by get_handles");
    barrier();
  }
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(wait_and_test_accept_null_handles) {
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_wait(nullptr));
  CHECK_OK(dart_wait(&h));
  CHECK_OK(dart_wait_local(nullptr));
  CHECK_OK(dart_wait_local(&h));
  CHECK_OK(dart_handle_free(nullptr));
  CHECK_OK(dart_handle_free(&h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  int32_t r = -1;
  CHECK_OK(dart_test(nullptr, &r));
  CHECK_EQ(r, 1);
  r = -1;
  CHECK_OK(dart_test(&h, &r));
  CHECK_EQ(r, 1);
  r = -1;
  CHECK_OK(dart_test_local(nullptr, &r));
  CHECK_EQ(r, 1);
  r = -1;
  CHECK_OK(dart_test_local(&h, &r));
  CHECK_EQ(r, 1);

  dart_handle_t none[4] = {DART_HANDLE_NULL, DART_HANDLE_NULL, DART_HANDLE_NULL, DART_HANDLE_NULL};
  CHECK_OK(dart_waitall(none, 4));
  CHECK_OK(dart_waitall_local(none, 4));
  CHECK_OK(dart_waitall(none, 0));
  CHECK_OK(dart_waitall(nullptr, 0));
  CHECK_OK(dart_waitall_local(nullptr, 0));
  for (const std::size_t count : {std::size_t{4}, std::size_t{0}}) {
    r = -1;
    CHECK_OK(dart_testall(none, count, &r));
    CHECK_EQ(r, 1);  // n == 0 writes 1 too (spec 3.6.5, unlike DASH)
    r = -1;
    CHECK_OK(dart_testall_local(none, count, &r));
    CHECK_EQ(r, 1);
  }
  r = -1;
  CHECK_OK(dart_testall(nullptr, 3, &r));
  CHECK_EQ(r, 1);
  r = -1;
  CHECK_OK(dart_testall_local(nullptr, 3, &r));
  CHECK_EQ(r, 1);

  // Real handles mixed with null entries.
  const dart_gptr_t seg = team_alloc<int>(16, DART_TYPE_INT);
  int* mine = own<int>(seg, me);
  for (int i = 0; i < 16; ++i) mine[i] = me * 100 + i;
  barrier();
  int got[16] = {};
  dart_handle_t mixed[5] = {DART_HANDLE_NULL, DART_HANDLE_NULL, DART_HANDLE_NULL, DART_HANDLE_NULL, DART_HANDLE_NULL};
  CHECK_OK(dart_get_handle(&got[0], at(seg, right, 0), 8, DART_TYPE_INT, DART_TYPE_INT, &mixed[1]));
  CHECK_OK(dart_get_handle(&got[8], at(seg, right, 8 * sizeof(int)), 8, DART_TYPE_INT, DART_TYPE_INT, &mixed[3]));
  CHECK_OK(dart_waitall(mixed, 5));
  for (const dart_handle_t& x : mixed) CHECK_RANK(x == DART_HANDLE_NULL);
  verify(got, 16, [&](std::size_t i) { return right * 100 + static_cast<int>(i); }, me,
         "gets completed by dart_waitall with null entries");
  std::fill(std::begin(got), std::end(got), 0);
  CHECK_OK(dart_get_handle(&got[0], at(seg, left, 0), 16, DART_TYPE_INT, DART_TYPE_INT, &mixed[2]));
  const bool done = poll_until([&] {
    r = -1;
    CHECK_OK(dart_testall_local(mixed, 5, &r));
    return r != 0;
  });
  CHECK_RANK(done);
  CHECK_EQ(r, 1);
  CHECK_RANK(mixed[2] == DART_HANDLE_NULL);
  verify(got, 16, [&](std::size_t i) { return left * 100 + static_cast<int>(i); }, me,
         "get completed by dart_testall_local with null entries");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(nelem_zero_is_a_noop) {
  constexpr std::size_t kN = 8;
  const dart_gptr_t seg = team_alloc<int>(kN, DART_TYPE_INT);
  int* mine = own<int>(seg, me);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = sentinel<int>(me, i, 50);
  barrier();
  int buf[kN];
  for (std::size_t i = 0; i < kN; ++i) buf[i] = pattern<int>(me, i, 50);
  // At the start and at the very end of the neighbour's portion.
  for (const std::uint64_t off : {std::uint64_t{0}, std::uint64_t{kN * sizeof(int)}}) {
    const dart_gptr_t g = at(seg, right, off);
    CHECK_OK(dart_put(g, buf, 0, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_OK(dart_put_blocking(g, buf, 0, DART_TYPE_INT, DART_TYPE_INT));
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_put_handle(g, buf, 0, DART_TYPE_INT, DART_TYPE_INT, &h));
    CHECK_OK(dart_wait(&h));
    CHECK_OK(dart_get(buf, g, 0, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_OK(dart_get_blocking(buf, g, 0, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_OK(dart_get_handle(buf, g, 0, DART_TYPE_INT, DART_TYPE_INT, &h));
    CHECK_OK(dart_wait(&h));
    CHECK_RANK(h == DART_HANDLE_NULL);
  }
  CHECK_OK(dart_flush_all(seg));
  barrier();
  verify(buf, kN, [&](std::size_t i) { return pattern<int>(me, i, 50); }, me, "buffer after gets of 0 elements");
  verify(mine, kN, [&](std::size_t i) { return sentinel<int>(me, i, 50); }, me, "own portion after puts of 0 elements");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

// ---- derived types ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(strided_columns_gather_and_scatter) {
  using T = int;
  constexpr std::size_t R = 16, C = 10;  // row-major R x C matrix per unit
  const dart_gptr_t seg = team_alloc<T>(R * C, DART_TYPE_INT);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < R * C; ++i) mine[i] = sentinel<T>(me, i, 60);
  barrier();
  const auto rm = [&](std::size_t r, std::size_t c) { return sentinel<T>(right, r * C + c, 60); };

  const Type col = Type::strided(DART_TYPE_INT, C, 1);
  const Type col2 = Type::strided(DART_TYPE_INT, C, 2);

  // Gathers of the right neighbour's columns into contiguous buffers.
  std::vector<T> got(2 * R, -1);
  CHECK_OK(dart_get(got.data(), at(seg, right, 3 * sizeof(T)), R, col, DART_TYPE_INT));
  CHECK_OK(dart_flush_local(at(seg, right)));
  verify(got.data(), R, [&](std::size_t r) { return rm(r, 3); }, me, "column 3 by dart_get (strided -> contiguous)");

  std::fill(got.begin(), got.end(), -1);
  CHECK_OK(dart_get_blocking(got.data(), at(seg, right, 7 * sizeof(T)), 2 * R, col2, DART_TYPE_INT));
  verify(got.data(), 2 * R, [&](std::size_t k) { return rm(k / 2, 7 + k % 2); }, me,
         "columns 7-8 by dart_get_blocking (strided blocklen 2 -> contiguous)");

  std::fill(got.begin(), got.end(), -1);
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_get_handle(got.data(), at(seg, right, 0), R, col, DART_TYPE_INT, &h));
  CHECK_OK(dart_wait(&h));
  verify(got.data(), R, [&](std::size_t r) { return rm(r, 0); }, me, "column 0 by dart_get_handle");

  // Strided -> strided: column 2 of the neighbour into column 1 of a local
  // R x 4 matrix; the other local columns stay as they were.
  constexpr std::size_t C2 = 4;
  const Type col_c2 = Type::strided(DART_TYPE_INT, C2, 1);
  std::vector<T> local(R * C2, -7);
  CHECK_OK(dart_get_blocking(local.data() + 1, at(seg, right, 2 * sizeof(T)), R, col, col_c2));
  verify(local.data(), R * C2, [&](std::size_t i) { return i % C2 == 1 ? rm(i / C2, 2) : -7; }, me,
         "column 2 into column 1 of a 4-wide local matrix (strided -> strided)");

  // Different block lengths on both sides: source blocks of 2 every 5,
  // destination blocks of 3 every 7; 12 elements.
  const Type src25 = Type::strided(DART_TYPE_INT, 5, 2);
  const Type dst37 = Type::strided(DART_TYPE_INT, 7, 3);
  std::vector<T> mixed(4 * 7, -9);
  CHECK_OK(dart_get_handle(mixed.data(), at(seg, right, sizeof(T)), 12, src25, dst37, &h));
  CHECK_OK(dart_wait_local(&h));
  {
    std::vector<T> expect(mixed.size(), -9);
    for (std::size_t k = 0; k < 12; ++k) expect[(k / 3) * 7 + k % 3] = sentinel<T>(right, 1 + (k / 2) * 5 + k % 2, 60);
    verify(mixed.data(), mixed.size(), [&](std::size_t i) { return expect[i]; }, me,
           "12 elements strided(5,2) -> strided(7,3)");
  }
  barrier();

  // Scatters into the right neighbour's columns: dart_put (column 1),
  // dart_put_blocking (column 5), dart_put_handle (column 9), and
  // strided -> strided from column 3 of a local R x 4 matrix (column 6).
  std::vector<T> s1(R), s5(R), s9(R), s6(R * C2, -5);
  for (std::size_t r = 0; r < R; ++r) {
    s1[r] = pattern<T>(me, r, 61);
    s5[r] = pattern<T>(me, r, 65);
    s9[r] = pattern<T>(me, r, 69);
    s6[r * C2 + 3] = pattern<T>(me, r, 66);
  }
  CHECK_OK(dart_put(at(seg, right, 1 * sizeof(T)), s1.data(), R, DART_TYPE_INT, col));
  CHECK_OK(dart_put_blocking(at(seg, right, 5 * sizeof(T)), s5.data(), R, DART_TYPE_INT, col));
  CHECK_OK(dart_put_handle(at(seg, right, 9 * sizeof(T)), s9.data(), R, DART_TYPE_INT, col, &h));
  CHECK_OK(dart_wait(&h));
  CHECK_OK(dart_put(at(seg, right, 6 * sizeof(T)), s6.data() + 3, R, col_c2, col));
  CHECK_OK(dart_flush(at(seg, right)));
  barrier();
  auto after = [&](int owner, int writer) {
    return [=](std::size_t i) {
      const std::size_t r = i / C, c = i % C;
      switch (c) {
        case 1: return pattern<T>(writer, r, 61);
        case 5: return pattern<T>(writer, r, 65);
        case 6: return pattern<T>(writer, r, 66);
        case 9: return pattern<T>(writer, r, 69);
        default: return sentinel<T>(owner, i, 60);
      }
    };
  };
  verify(mine, R * C, after(me, left), me, "own matrix after the left neighbour's column scatters");
  std::vector<T> whole(R * C, -1);
  CHECK_OK(dart_get_blocking(whole.data(), at(seg, left), R * C, DART_TYPE_INT, DART_TYPE_INT));
  verify(whole.data(), R * C, after(left, (left + n - 1) % n), me, "left neighbour's matrix after scatters");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(strided_doubles_and_custom_structs) {
  // A matrix of doubles: scatter a column pair (blocklen 2) and read it back.
  constexpr std::size_t R = 12, C = 6;
  const dart_gptr_t dseg = team_alloc<double>(R * C, DART_TYPE_DOUBLE);
  double* dm = own<double>(dseg, me);
  for (std::size_t i = 0; i < R * C; ++i) dm[i] = sentinel<double>(me, i, 70);
  barrier();
  const Type pair = Type::strided(DART_TYPE_DOUBLE, C, 2);
  std::vector<double> src(2 * R);
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = pattern<double>(me, k, 70);
  CHECK_OK(dart_put(at(dseg, right, 2 * sizeof(double)), src.data(), 2 * R, DART_TYPE_DOUBLE, pair));
  CHECK_OK(dart_flush_all(dseg));
  barrier();
  verify(dm, R * C,
         [&](std::size_t i) {
           const std::size_t r = i / C, c = i % C;
           return (c == 2 || c == 3) ? pattern<double>(left, r * 2 + (c - 2), 70) : sentinel<double>(me, i, 70);
         },
         me, "own double matrix after the left neighbour's column-pair scatter");
  barrier();
  CHECK_OK(dart_team_memfree(dseg));

  // 12-byte structs with a custom type: contiguous put/get, and a column of
  // a struct matrix through strided types over the custom type on both
  // sides (a strided type with stride 1 is a contiguous layout).
  struct S {
    std::int32_t a, b, c;
  };
  static_assert(sizeof(S) == 12, "struct without padding");
  const auto make = [](int writer, std::size_t i, int salt) {
    return S{pattern<std::int32_t>(writer, 3 * i, salt), pattern<std::int32_t>(writer, 3 * i + 1, salt),
             pattern<std::int32_t>(writer, 3 * i + 2, salt)};
  };
  const auto same = [](const S& x, const S& y) { return x.a == y.a && x.b == y.b && x.c == y.c; };
  constexpr std::size_t kStructs = 100;
  const dart_gptr_t sseg = team_alloc<char>(kStructs * sizeof(S), DART_TYPE_BYTE);
  S* sm = own<S>(sseg, me);
  for (std::size_t i = 0; i < kStructs; ++i) sm[i] = make(me, i, 71);
  barrier();
  const Type s12 = Type::custom(sizeof(S));
  std::vector<S> sbuf(kStructs);
  for (std::size_t i = 0; i < 40; ++i) sbuf[i] = make(me, i, 72);
  CHECK_OK(dart_put(at(sseg, right, 30 * sizeof(S)), sbuf.data(), 40, s12, s12));
  CHECK_OK(dart_flush(at(sseg, right)));
  barrier();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < kStructs; ++i)
    bad += !same(sm[i], (i >= 30 && i < 70) ? make(left, i - 30, 72) : make(me, i, 71));
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << me << ": " << bad << " structs wrong after a custom-type put");

  std::vector<S> sgot(kStructs, S{-1, -1, -1});
  CHECK_OK(dart_get_blocking(sgot.data(), at(sseg, left), kStructs, s12, s12));
  bad = 0;
  const int lleft = (left + n - 1) % n;
  for (std::size_t i = 0; i < kStructs; ++i)
    bad += !same(sgot[i], (i >= 30 && i < 70) ? make(lleft, i - 30, 72) : make(left, i, 71));
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << me << ": " << bad << " structs wrong in a custom-type get");

  // Column 1 of the right neighbour's 10 x 10 struct matrix.
  const Type scol = Type::strided(s12, 10, 1);
  const Type sflat = Type::strided(s12, 1, 1);
  std::fill(sgot.begin(), sgot.end(), S{-1, -1, -1});
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_get_handle(sgot.data(), at(sseg, right, 1 * sizeof(S)), 10, scol, sflat, &h));
  CHECK_OK(dart_wait(&h));
  bad = 0;
  for (std::size_t r = 0; r < 10; ++r) {
    const std::size_t i = r * 10 + 1;
    bad += !same(sgot[r], (i >= 30 && i < 70) ? make(me, i - 30, 72) : make(right, i, 71));
  }
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << me << ": " << bad << " structs wrong in a strided-custom column get");
  barrier();
  CHECK_OK(dart_team_memfree(sseg));
}

BOOST_AUTO_TEST_CASE(indexed_gather_and_scatter) {
  using T = long;
  constexpr std::size_t kPortion = 200;
  const dart_gptr_t seg = team_alloc<T>(kPortion, DART_TYPE_LONG);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < kPortion; ++i) mine[i] = sentinel<T>(me, i, 80);
  barrier();

  // A: blocks {2 @ 0, 1 @ 5, 3 @ 9}: 6 elements, extent 12.
  const std::vector<std::size_t> a_pos = {0, 1, 5, 9, 10, 11};
  const Type a = Type::indexed(DART_TYPE_LONG, {2, 1, 3}, {0, 5, 9});
  // B: blocks {2 @ 7, 3 @ 1} (not in address order, lowest position 1):
  // 5 elements taken in block order, extent 9 - 1 = 8.
  const std::vector<std::size_t> b_pos = {7, 8, 1, 2, 3};
  const Type b = Type::indexed(DART_TYPE_LONG, {2, 3}, {7, 1});
  const auto a_at = [&](std::size_t k) { return (k / 6) * 12 + a_pos[k % 6]; };
  const auto b_at = [&](std::size_t k) { return (k / 5) * 8 + b_pos[k % 5]; };

  // Indexed -> contiguous, two repetitions, each form.
  constexpr std::size_t kBase = 10;  // element offset of the gathers in the right portion
  auto check_gather = [&](const std::vector<T>& got, std::size_t count, const std::string& what) {
    verify(got.data(), count, [&](std::size_t k) { return sentinel<T>(right, kBase + a_at(k), 80); }, me, what);
  };
  std::vector<T> got(12, -1);
  CHECK_OK(dart_get(got.data(), at(seg, right, kBase * sizeof(T)), 12, a, DART_TYPE_LONG));
  CHECK_OK(dart_flush(at(seg, right)));
  check_gather(got, 12, "indexed A x2 -> contiguous by dart_get");
  std::fill(got.begin(), got.end(), -1);
  CHECK_OK(dart_get_blocking(got.data(), at(seg, right, kBase * sizeof(T)), 12, a, DART_TYPE_LONG));
  check_gather(got, 12, "indexed A x2 -> contiguous by dart_get_blocking");
  std::fill(got.begin(), got.end(), -1);
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_get_handle(got.data(), at(seg, right, kBase * sizeof(T)), 6, a, DART_TYPE_LONG, &h));
  CHECK_OK(dart_wait(&h));
  check_gather(got, 6, "indexed A x1 -> contiguous by dart_get_handle");

  // Indexed -> indexed: 30 elements = 5 repetitions of A, 6 of B.
  std::vector<T> local(6 * 8 + 1, -3);  // B x6 reaches position 48
  CHECK_OK(dart_get_blocking(local.data(), at(seg, right, kBase * sizeof(T)), 30, a, b));
  {
    std::vector<T> expect(local.size(), -3);
    for (std::size_t k = 0; k < 30; ++k) expect[b_at(k)] = sentinel<T>(right, kBase + a_at(k), 80);
    verify(local.data(), local.size(), [&](std::size_t i) { return expect[i]; }, me, "indexed A x5 -> indexed B x6");
  }
  barrier();

  // Contiguous -> indexed into the right neighbour: B x2 at element 100
  // (dart_put), A x1 at element 150 (dart_put_handle), B x1 at element 180
  // (dart_put_blocking).
  std::vector<T> s1(10), s2(6), s3(5);
  for (std::size_t k = 0; k < 10; ++k) s1[k] = pattern<T>(me, k, 81);
  for (std::size_t k = 0; k < 6; ++k) s2[k] = pattern<T>(me, k, 82);
  for (std::size_t k = 0; k < 5; ++k) s3[k] = pattern<T>(me, k, 83);
  CHECK_OK(dart_put(at(seg, right, 100 * sizeof(T)), s1.data(), 10, DART_TYPE_LONG, b));
  CHECK_OK(dart_put_handle(at(seg, right, 150 * sizeof(T)), s2.data(), 6, DART_TYPE_LONG, a, &h));
  CHECK_OK(dart_put_blocking(at(seg, right, 180 * sizeof(T)), s3.data(), 5, DART_TYPE_LONG, b));
  CHECK_OK(dart_wait(&h));
  CHECK_OK(dart_flush(at(seg, right)));
  barrier();
  std::vector<T> expect(kPortion);
  for (std::size_t i = 0; i < kPortion; ++i) expect[i] = sentinel<T>(me, i, 80);
  for (std::size_t k = 0; k < 10; ++k) expect[100 + b_at(k)] = pattern<T>(left, k, 81);
  for (std::size_t k = 0; k < 6; ++k) expect[150 + a_at(k)] = pattern<T>(left, k, 82);
  for (std::size_t k = 0; k < 5; ++k) expect[180 + b_at(k)] = pattern<T>(left, k, 83);
  verify(mine, kPortion, [&](std::size_t i) { return expect[i]; }, me,
         "own portion after the left neighbour's indexed scatters");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(type_destroyed_while_operation_in_flight) {
  constexpr std::size_t R = 32, C = 8;
  const dart_gptr_t seg = team_alloc<int>(R * C, DART_TYPE_INT);
  int* mine = own<int>(seg, me);
  for (std::size_t i = 0; i < R * C; ++i) mine[i] = sentinel<int>(me, i, 90);
  barrier();

  dart_datatype_t col = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_strided(DART_TYPE_INT, C, 1, &col));
  std::vector<int> got(R, -1);
  CHECK_OK(dart_get(got.data(), at(seg, right, 4 * sizeof(int)), R, col, DART_TYPE_INT));
  std::vector<int> src(R);
  for (std::size_t r = 0; r < R; ++r) src[r] = pattern<int>(me, r, 91);
  CHECK_OK(dart_put(at(seg, right, 6 * sizeof(int)), src.data(), R, DART_TYPE_INT, col));
  dart_handle_t h = DART_HANDLE_NULL;
  std::vector<int> got2(R, -1);
  CHECK_OK(dart_get_handle(got2.data(), at(seg, right, 0), R, col, DART_TYPE_INT, &h));
  CHECK_OK(dart_type_destroy(&col));
  CHECK_EQ(col, DART_TYPE_UNDEFINED);
  CHECK_OK(dart_wait(&h));
  CHECK_OK(dart_flush_all(seg));
  verify(got.data(), R, [&](std::size_t r) { return sentinel<int>(right, r * C + 4, 90); }, me,
         "column get whose type was destroyed before the flush");
  verify(got2.data(), R, [&](std::size_t r) { return sentinel<int>(right, r * C, 90); }, me,
         "column get_handle whose type was destroyed before the wait");
  barrier();
  verify(mine, R * C,
         [&](std::size_t i) { return i % C == 6 ? pattern<int>(left, i / C, 91) : sentinel<int>(me, i, 90); }, me,
         "own matrix after a column put whose type was destroyed before the flush");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

// ---- other kinds of global memory ------------------------------------------------------

BOOST_AUTO_TEST_CASE(local_pool_and_registered_memory) {
  using T = long;
  constexpr std::size_t kN = 256;
  // dart_memalloc blocks, addressed by their owners' gptrs.
  dart_gptr_t block = DART_GPTR_NULL;
  REQUIRE_OK(dart_memalloc(kN, DART_TYPE_LONG, &block));
  const std::vector<dart_gptr_t> blocks = allgather(block);
  T* mine = own<T>(block, me);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = sentinel<T>(me, i, 100);
  barrier();
  std::vector<T> src(kN);
  for (std::size_t i = 0; i < kN; ++i) src[i] = pattern<T>(me, i, 100);
  const dart_gptr_t rb = blocks[static_cast<std::size_t>(right)];
  CHECK_OK(dart_put(at(rb, rb.unitid, 16 * sizeof(T)), src.data(), 200, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_flush(rb));
  barrier();
  auto pool_expect = [&](int owner, int writer) {
    return [=](std::size_t i) {
      return (i >= 16 && i < 216) ? pattern<T>(writer, i - 16, 100) : sentinel<T>(owner, i, 100);
    };
  };
  verify(mine, kN, pool_expect(me, left), me, "own dart_memalloc block after the left neighbour's dart_put");
  std::vector<T> got(kN, -1);
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_get_handle(got.data(), blocks[static_cast<std::size_t>(left)], kN, DART_TYPE_LONG, DART_TYPE_LONG, &h));
  CHECK_OK(dart_wait_local(&h));
  verify(got.data(), kN, pool_expect(left, (left + n - 1) % n), me, "left neighbour's dart_memalloc block");
  barrier();
  CHECK_OK(dart_memfree(block));

  // Registered memory.
  std::vector<T> buf(kN);
  for (std::size_t i = 0; i < kN; ++i) buf[i] = sentinel<T>(me, i, 101);
  dart_gptr_t reg = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, kN, DART_TYPE_LONG, buf.data(), &reg);
  BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": dart_team_memregister_aligned returned " << rc);
  if (!mpitest::all_ranks(rc == DART_OK)) return;
  for (std::size_t i = 0; i < kN; ++i) src[i] = pattern<T>(me, i, 102);
  CHECK_OK(dart_put_handle(at(reg, right, 8 * sizeof(T)), src.data(), 100, DART_TYPE_LONG, DART_TYPE_LONG, &h));
  CHECK_OK(dart_wait(&h));
  CHECK_OK(dart_put(at(reg, right, 150 * sizeof(T)), src.data() + 100, 100, DART_TYPE_LONG, DART_TYPE_LONG));
  // Every 4th element of [110, 150) by a strided put whose handle is freed;
  // the flush completes it.
  const Type every4 = Type::strided(DART_TYPE_LONG, 4, 1);
  std::vector<T> s4(10);
  for (std::size_t k = 0; k < 10; ++k) s4[k] = pattern<T>(me, 300 + k, 102);
  CHECK_OK(dart_put_handle(at(reg, right, 110 * sizeof(T)), s4.data(), 10, DART_TYPE_LONG, every4, &h));
  CHECK_OK(dart_handle_free(&h));
  CHECK_RANK(h == DART_HANDLE_NULL);
  CHECK_OK(dart_flush_all(reg));
  barrier();
  auto reg_expect = [&](int owner, int writer) {
    return [=](std::size_t i) {
      if (i >= 8 && i < 108) return pattern<T>(writer, i - 8, 102);
      if (i >= 150 && i < 250) return pattern<T>(writer, 100 + i - 150, 102);
      if (i >= 110 && i < 150 && (i - 110) % 4 == 0) return pattern<T>(writer, 300 + (i - 110) / 4, 102);
      return sentinel<T>(owner, i, 101);
    };
  };
  verify(buf.data(), kN, reg_expect(me, left), me, "own registered buffer after the left neighbour's puts");
  std::fill(got.begin(), got.end(), -1);
  CHECK_OK(dart_get(got.data(), at(reg, left), kN, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_flush_local_all(reg));
  verify(got.data(), kN, reg_expect(left, (left + n - 1) % n), me, "left neighbour's registered buffer");
  barrier();
  CHECK_OK(dart_team_memderegister(reg));

  // dart_team_memregister: every unit registers its own number of elements,
  // (unit + 1) * 16; each fills its right neighbour's whole buffer.
  const auto count_of = [](int u) { return static_cast<std::size_t>(u + 1) * 16; };
  std::vector<T> own_buf(count_of(me), T{-1});
  dart_gptr_t var = DART_GPTR_NULL;
  const dart_ret_t rc2 = dart_team_memregister(DART_TEAM_ALL, own_buf.size(), DART_TYPE_LONG, own_buf.data(), &var);
  BOOST_CHECK_MESSAGE(rc2 == DART_OK, "rank " << me << ": dart_team_memregister returned " << rc2);
  if (!mpitest::all_ranks(rc2 == DART_OK)) return;
  std::vector<T> fill_right(count_of(right));
  for (std::size_t i = 0; i < fill_right.size(); ++i) fill_right[i] = pattern<T>(me, i, 103);
  CHECK_OK(dart_put(at(var, right), fill_right.data(), fill_right.size(), DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_flush(at(var, right)));
  barrier();
  verify(own_buf.data(), own_buf.size(), [&](std::size_t i) { return pattern<T>(left, i, 103); }, me,
         "own buffer of " + std::to_string(own_buf.size()) + " elements registered by dart_team_memregister");
  std::vector<T> from_left(count_of(left), T{-1});
  CHECK_OK(dart_get_handle(from_left.data(), at(var, left), from_left.size(), DART_TYPE_LONG, DART_TYPE_LONG, &h));
  CHECK_OK(dart_wait(&h));
  verify(from_left.data(), from_left.size(), [&](std::size_t i) { return pattern<T>((left + n - 1) % n, i, 103); }, me,
         "left neighbour's buffer registered by dart_team_memregister");
  barrier();
  CHECK_OK(dart_team_memderegister(var));
}

// Registered memory need not start on any boundary beyond the element
// type's own alignment (a user may register a struct member or &a[1]):
// registrations 0, 8 and 24 bytes past a 64-byte boundary, ring put and get.
BOOST_AUTO_TEST_CASE(registered_memory_at_natural_alignment_only) {
  using T = long;
  constexpr std::size_t kN = 64;
  int salt = 130;
  for (const std::size_t shift : {std::size_t{0}, std::size_t{8}, std::size_t{24}}) {
    ++salt;
    std::vector<unsigned char> storage(kN * sizeof(T) + 128);
    auto base = reinterpret_cast<std::uintptr_t>(storage.data());
    base = ((base + 63) & ~std::uintptr_t{63}) + shift;
    T* buf = reinterpret_cast<T*>(base);
    for (std::size_t i = 0; i < kN; ++i) buf[i] = sentinel<T>(me, i, salt);
    const std::string what = "registration " + std::to_string(shift) + " bytes past a 64-byte boundary";
    dart_gptr_t reg = DART_GPTR_NULL;
    const dart_ret_t rc = dart_team_memregister_aligned(DART_TEAM_ALL, kN, DART_TYPE_LONG, buf, &reg);
    BOOST_CHECK_MESSAGE(rc == DART_OK, "rank " << me << ": " << what << ": dart_team_memregister_aligned returned " << rc);
    if (!mpitest::all_ranks(rc == DART_OK)) continue;
    std::vector<T> src(20);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern<T>(me, i, salt);
    CHECK_OK(dart_put(at(reg, right, 3 * sizeof(T)), src.data(), src.size(), DART_TYPE_LONG, DART_TYPE_LONG));
    CHECK_OK(dart_flush(at(reg, right)));
    barrier();
    auto expected = [&](int owner, int writer) {
      return [=](std::size_t i) {
        return (i >= 3 && i < 23) ? pattern<T>(writer, i - 3, salt) : sentinel<T>(owner, i, salt);
      };
    };
    verify(buf, kN, expected(me, left), me, "own " + what + " after the left neighbour's dart_put");
    std::vector<T> got(kN, T{-1});
    CHECK_OK(dart_get_blocking(got.data(), at(reg, left), kN, DART_TYPE_LONG, DART_TYPE_LONG));
    verify(got.data(), kN, expected(left, (left + n - 1) % n), me, "left neighbour's " + what + " by dart_get_blocking");
    barrier();
    CHECK_OK(dart_team_memderegister(reg));
  }
}

BOOST_AUTO_TEST_CASE(many_outstanding_operations) {
  using T = int;
  constexpr std::size_t kN = 2000;
  const dart_gptr_t seg = team_alloc<T>(kN, DART_TYPE_INT);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = sentinel<T>(me, i, 110);
  barrier();
  // One element per put, in reverse order, one flush for all of them.
  std::vector<T> src(kN);
  for (std::size_t i = 0; i < kN; ++i) src[i] = pattern<T>(me, i, 110);
  for (std::size_t k = kN; k-- > 0;)
    CHECK_OK(dart_put(at(seg, right, k * sizeof(T)), &src[k], 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_flush_all(seg));
  barrier();
  verify(mine, kN, [&](std::size_t i) { return pattern<T>(left, i, 110); }, me,
         "own portion after 2000 single-element puts");
  // One element per get_handle, all completed by one dart_waitall.
  std::vector<T> got(kN, -1);
  std::vector<dart_handle_t> hs(kN, DART_HANDLE_NULL);
  for (std::size_t k = 0; k < kN; ++k)
    CHECK_OK(dart_get_handle(&got[k], at(seg, left, k * sizeof(T)), 1, DART_TYPE_INT, DART_TYPE_INT, &hs[k]));
  CHECK_OK(dart_waitall(hs.data(), hs.size()));
  CHECK_RANK(all_null(hs));
  verify(got.data(), kN, [&](std::size_t i) { return pattern<T>((left + n - 1) % n, i, 110); }, me,
         "2000 single-element get_handles");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_SUITE_END()

// ---- threads -----------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(threads_put_and_get_concurrently, DartThreadFixture) {
  if (!multiple) {
    BOOST_TEST_MESSAGE("rank " << me << ": DART_THREAD_MULTIPLE not available; thread part skipped");
    return;
  }
  using T = long;
  constexpr int kThreads = 3;
  constexpr std::size_t kPerThread = 600, kLen = 6;  // 100 puts of 6 elements per thread
  constexpr std::size_t kPortion = kThreads * kPerThread;
  const dart_gptr_t seg = team_alloc<T>(kPortion, DART_TYPE_LONG);
  T* mine = own<T>(seg, me);
  for (std::size_t i = 0; i < kPortion; ++i) mine[i] = sentinel<T>(me, i, 120);
  barrier();

  std::vector<T> src(kPortion);
  for (std::size_t i = 0; i < kPortion; ++i) src[i] = pattern<T>(me, i, 120);
  std::atomic<int> failures{0};
  auto putter = [&](int t) {
    const std::size_t base = static_cast<std::size_t>(t) * kPerThread;
    for (std::size_t k = 0; k < kPerThread; k += kLen) {
      if (dart_put(at(seg, right, (base + k) * sizeof(T)), &src[base + k], kLen, DART_TYPE_LONG, DART_TYPE_LONG) !=
          DART_OK)
        ++failures;
    }
    if (dart_flush(at(seg, right)) != DART_OK) ++failures;
  };
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t) ts.emplace_back(putter, t);
    for (auto& th : ts) th.join();
  }
  CHECK_EQ(failures.load(), 0);
  barrier();
  verify(mine, kPortion, [&](std::size_t i) { return pattern<T>(left, i, 120); }, me,
         "own portion after puts from 3 threads of the left neighbour");

  std::vector<T> got(kPortion, -1);
  auto getter = [&](int t) {
    const std::size_t base = static_cast<std::size_t>(t) * kPerThread;
    std::vector<dart_handle_t> hs;
    for (std::size_t k = 0; k < kPerThread; k += 60) {
      dart_handle_t h = DART_HANDLE_NULL;
      if (dart_get_handle(&got[base + k], at(seg, left, (base + k) * sizeof(T)), 60, DART_TYPE_LONG, DART_TYPE_LONG,
                          &h) != DART_OK)
        ++failures;
      hs.push_back(h);
    }
    if (dart_waitall(hs.data(), hs.size()) != DART_OK) ++failures;
  };
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t) ts.emplace_back(getter, t);
    for (auto& th : ts) th.join();
  }
  CHECK_EQ(failures.load(), 0);
  verify(got.data(), kPortion, [&](std::size_t i) { return pattern<T>((left + n - 1) % n, i, 120); }, me,
         "left neighbour's portion by get_handles from 3 threads");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}
