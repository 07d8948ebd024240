// Single transfers of more than 2 GiB and of more than INT_MAX elements
// (spec 3.6.2: "Transfers above INT_MAX elements MUST work for contiguous
// types in all put/get variants and dart_accumulate*"), between two units:
// a 2.5 GiB team allocation per unit of DART_TYPE_BYTE moved by
// dart_put_blocking, dart_put + dart_flush, dart_put_handle + dart_wait
// (unit 0 -> unit 1), dart_get_blocking, dart_get + dart_flush_local,
// dart_get_handle + dart_wait (unit 1 -> unit 0); then a portion of exactly
// INT_MAX + 1000 bytes: dart_accumulate_blocking_local (REPLACE) and
// dart_accumulate (BXOR) of INT_MAX + 1000 elements and a get of the whole
// portion (each ending exactly at its end), and an unaligned put at offset 7.
// Data are a position-dependent pattern; a sparse sample is verified (two
// 8-byte words in every 4 KiB page, +-64 bytes around every 1 GiB boundary
// and INT_MAX, and the last 4 KiB), and the sampled bytes are cleared before
// every transfer so a transfer that does nothing cannot pass on stale data.
// Memory: at most 7.5 GiB at a time. Not covered: non-contiguous types of
// that size, more than two units (other rank counts skip), multi-node runs.
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using dartcheck::at;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the pattern assumes little-endian words");

constexpr std::size_t kGiB = std::size_t(1) << 30;
constexpr std::size_t kBig = 5 * (kGiB / 2);                                   // 2.5 GiB
constexpr std::size_t kOverIntMax = static_cast<std::size_t>(INT_MAX) + 1000;  // bytes = elements

using LargeFixture = dartcheck::PlainDartFixture;

// 64-bit word k of the pattern `salt`; byte i of the pattern is byte i % 8
// of word i / 8.
std::uint64_t word(std::uint64_t k, std::uint64_t salt) {
  std::uint64_t x = (k + 1) * 0x9e3779b97f4a7c15ull ^ (salt * 0xd1b54a32d192ed03ull);
  return x ^ (x >> 29);
}
unsigned char byte_of(std::uint64_t i, std::uint64_t salt) {
  return static_cast<unsigned char>(word(i >> 3, salt) >> ((i & 7) * 8));
}

void fill(unsigned char* p, std::size_t bytes, std::uint64_t salt) {
  const std::size_t words = bytes / 8;
  for (std::size_t k = 0; k < words; ++k) {
    const std::uint64_t w = word(k, salt);
    std::memcpy(p + 8 * k, &w, 8);
  }
  for (std::size_t i = 8 * words; i < bytes; ++i) p[i] = byte_of(i, salt);
}

// Byte positions that are verified in a buffer of `bytes` bytes.
std::vector<std::size_t> sample_positions(std::size_t bytes) {
  std::vector<std::size_t> pos;
  auto add_range = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i < bytes; ++i) pos.push_back(i);
  };
  for (std::size_t page = 0; page < bytes; page += 4096) {
    add_range(page, page + 8);
    add_range(page + 4088, page + 4096);
  }
  for (std::size_t b = kGiB; b < bytes; b += kGiB) add_range(b - 64, b + 64);
  if (static_cast<std::size_t>(INT_MAX) < bytes)
    add_range(static_cast<std::size_t>(INT_MAX) - 64, static_cast<std::size_t>(INT_MAX) + 64);
  add_range(bytes > 4096 ? bytes - 4096 : 0, bytes);
  return pos;
}

void clear_samples(unsigned char* p, const std::vector<std::size_t>& samples) {
  for (std::size_t i : samples) p[i] = static_cast<unsigned char>(~p[i]);  // differs from whatever was there
}

// Checks p[i] == expected(i) for every sampled i; one check per call.
template <class F>
void verify(const unsigned char* p, const std::vector<std::size_t>& samples, F expected, int me,
            const std::string& what) {
  std::size_t bad = 0;
  std::ostringstream where;  // the first few wrong runs of sampled bytes
  std::size_t runs = 0, run_start = 0, run_end = 0;
  auto close_run = [&] {
    if (run_end > run_start && runs++ < 8) where << " [" << run_start << ", " << run_end << ")";
  };
  for (std::size_t i : samples) {
    if (p[i] != expected(i)) {
      if (bad == 0 || i != run_end) {
        close_run();
        run_start = i;
        if (bad == 0) where << " first: got " << +p[i] << ", expected " << +expected(i) << "; wrong byte ranges:";
      }
      run_end = i + 1;
      ++bad;
    }
  }
  close_run();
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << me << ": " << what << ": " << bad << " of " << samples.size()
                                        << " sampled bytes wrong;" << where.str() << (runs > 8 ? " ..." : ""));
}

unsigned char* own(const dart_gptr_t& g, int me) {
  void* p = nullptr;
  const dart_ret_t rc = dart_gptr_getaddr(at(g, me), &p);
  BOOST_REQUIRE_MESSAGE(rc == DART_OK && p != nullptr,
                        "rank " << me << ": dart_gptr_getaddr of the own portion returned " << rc);
  return static_cast<unsigned char*>(p);
}

// A team allocation of `bytes` bytes per unit; false (on every unit) if it
// failed anywhere, so all skip together.
bool allocate(std::size_t bytes, dart_gptr_t* g, int me) {
  *g = DART_GPTR_NULL;
  const dart_ret_t rc = dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, g);
  BOOST_CHECK_MESSAGE(rc == DART_OK,
                      "rank " << me << ": dart_team_memalloc_aligned of " << bytes << " bytes returned " << rc);
  return mpitest::all_ranks(rc == DART_OK);
}

std::unique_ptr<unsigned char[]> buffer(std::size_t bytes) {
  return std::unique_ptr<unsigned char[]>(new unsigned char[bytes]);  // not value-initialised: no 2 GiB memset
}

// Logs how long each phase took (visible with --log_level=message); no
// assertion depends on it.
class Phases {
 public:
  explicit Phases(int me) : me_(me), t_(MPI_Wtime()) {}
  void operator()(const std::string& what) {
    const double now = MPI_Wtime();
    BOOST_TEST_MESSAGE("rank " << me_ << ": " << what << ": " << now - t_ << " s");
    t_ = now;
  }

 private:
  int me_;
  double t_;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(large_transfer, LargeFixture)

BOOST_AUTO_TEST_CASE(two_and_a_half_gib_every_put_and_get_form) {
  if (n != 2) {
    BOOST_TEST_MESSAGE("runs with exactly 2 units; nothing to do with " << n);
    return;
  }
  Phases phase(me);
  dart_gptr_t seg = DART_GPTR_NULL;
  if (!allocate(kBig, &seg, me)) return;
  phase("allocation of 2.5 GiB");
  unsigned char* mine = own(seg, me);
  const std::vector<std::size_t> samples = sample_positions(kBig);
  std::unique_ptr<unsigned char[]> buf;
  if (me == 0) {
    buf = buffer(kBig);
    fill(buf.get(), kBig, 1);
  }
  phase("fill");

  // Unit 0 -> unit 1, three forms; the target's samples are cleared first.
  const char* put_forms[] = {"dart_put_blocking", "dart_put + dart_flush", "dart_put_handle + dart_wait"};
  for (int form = 0; form < 3; ++form) {
    if (me == 1) clear_samples(mine, samples);
    barrier();
    if (me == 0) {
      const dart_gptr_t target = at(seg, 1);
      if (form == 0) {
        CHECK_OK(dart_put_blocking(target, buf.get(), kBig, DART_TYPE_BYTE, DART_TYPE_BYTE));
      } else if (form == 1) {
        CHECK_OK(dart_put(target, buf.get(), kBig, DART_TYPE_BYTE, DART_TYPE_BYTE));
        CHECK_OK(dart_flush(target));
      } else {
        dart_handle_t h = DART_HANDLE_NULL;
        CHECK_OK(dart_put_handle(target, buf.get(), kBig, DART_TYPE_BYTE, DART_TYPE_BYTE, &h));
        CHECK_OK(dart_wait(&h));
        CHECK_RANK(h == DART_HANDLE_NULL);
      }
    }
    barrier();
    if (me == 1)
      verify(
          mine, samples, [](std::size_t i) { return byte_of(i, 1); }, me,
          std::string("2.5 GiB written by unit 0 with ") + put_forms[form]);
    phase(put_forms[form]);
  }

  // Unit 1 -> unit 0 (unit 1's portion holds pattern 1), three forms.
  const char* get_forms[] = {"dart_get_blocking", "dart_get + dart_flush_local", "dart_get_handle + dart_wait"};
  if (me == 0) {
    for (int form = 0; form < 3; ++form) {
      clear_samples(buf.get(), samples);
      const dart_gptr_t source = at(seg, 1);
      if (form == 0) {
        CHECK_OK(dart_get_blocking(buf.get(), source, kBig, DART_TYPE_BYTE, DART_TYPE_BYTE));
      } else if (form == 1) {
        CHECK_OK(dart_get(buf.get(), source, kBig, DART_TYPE_BYTE, DART_TYPE_BYTE));
        CHECK_OK(dart_flush_local(source));
      } else {
        dart_handle_t h = DART_HANDLE_NULL;
        CHECK_OK(dart_get_handle(buf.get(), source, kBig, DART_TYPE_BYTE, DART_TYPE_BYTE, &h));
        CHECK_OK(dart_wait(&h));
      }
      verify(
          buf.get(), samples, [](std::size_t i) { return byte_of(i, 1); }, me,
          std::string("2.5 GiB read from unit 1 with ") + get_forms[form]);
      phase(get_forms[form]);
    }
    buf.reset();
  }
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_CASE(more_than_int_max_elements) {
  if (n != 2) {
    BOOST_TEST_MESSAGE("runs with exactly 2 units; nothing to do with " << n);
    return;
  }
  Phases phase(me);
  dart_gptr_t seg = DART_GPTR_NULL;
  if (!allocate(kOverIntMax, &seg, me)) return;
  phase("allocation of INT_MAX + 1000 bytes");
  unsigned char* mine = own(seg, me);
  const std::vector<std::size_t> samples = sample_positions(kOverIntMax);
  // One buffer, filled once; the steps use it from different starting
  // bytes (src + s holds pattern byte i + s at position i), so each step
  // writes different data without a refill.
  constexpr std::size_t kSlack = 8;
  std::unique_ptr<unsigned char[]> buf;
  if (me == 0) {
    buf = buffer(kOverIntMax + kSlack);
    fill(buf.get(), kOverIntMax + kSlack, 3);
  }
  const auto shifted = [](std::size_t s) { return [s](std::size_t i) { return byte_of(i + s, 3); }; };
  const dart_gptr_t target = at(seg, 1);
  phase("fill");

  // accumulate_blocking_local REPLACE of the whole portion (ending exactly
  // at its end) with pattern[i]: the source may be changed as soon as the
  // call returns (scrambled, and restored after the flush: clear_samples is
  // its own inverse).
  if (me == 1) clear_samples(mine, samples);
  barrier();
  if (me == 0) {
    CHECK_OK(dart_accumulate_blocking_local(target, buf.get(), kOverIntMax, DART_TYPE_BYTE, DART_OP_REPLACE));
    clear_samples(buf.get(), samples);
    CHECK_OK(dart_flush(target));
    clear_samples(buf.get(), samples);
  }
  barrier();
  if (me == 1)
    verify(mine, samples, shifted(0), me, "INT_MAX + 1000 elements after dart_accumulate_blocking_local REPLACE");
  phase("dart_accumulate_blocking_local REPLACE");

  // Accumulate of INT_MAX + 1000 elements: target[i] ^= pattern[i + 1]
  // (after unit 1 has finished reading the target).
  barrier();
  if (me == 0) {
    CHECK_OK(dart_accumulate(target, buf.get() + 1, kOverIntMax, DART_TYPE_BYTE, DART_OP_BXOR));
    CHECK_OK(dart_flush(target));
  }
  barrier();
  if (me == 1)
    verify(
        mine, samples, [](std::size_t i) { return static_cast<unsigned char>(byte_of(i, 3) ^ byte_of(i + 1, 3)); }, me,
        "INT_MAX + 1000 elements after dart_accumulate BXOR");
  phase("dart_accumulate BXOR");

  // Unaligned: INT_MAX + 993 bytes at offset 7, again ending at the end,
  // from pattern[j + 3].
  constexpr std::size_t kOff = 7;
  std::vector<std::size_t> tail;
  for (std::size_t i : samples)
    if (i >= kOff) tail.push_back(i);
  const auto at_off = [](std::size_t i) { return byte_of(i - kOff + 3, 3); };
  if (me == 1) clear_samples(mine, samples);
  barrier();
  if (me == 0) {
    CHECK_OK(dart_put(at(seg, 1, kOff), buf.get() + 3, kOverIntMax - kOff, DART_TYPE_BYTE, DART_TYPE_BYTE));
    CHECK_OK(dart_flush_all(seg));
  }
  barrier();
  // The first 7 bytes were not written: they keep the cleared values.
  if (me == 1) verify(mine, tail, at_off, me, "INT_MAX + 993 bytes written at offset 7 by dart_put + dart_flush_all");
  phase("dart_put at offset 7");

  // And back: the whole portion of unit 1 into unit 0's buffer.
  if (me == 0) {
    clear_samples(buf.get(), samples);
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_get_handle(buf.get(), target, kOverIntMax, DART_TYPE_BYTE, DART_TYPE_BYTE, &h));
    CHECK_OK(dart_wait(&h));
    verify(buf.get(), tail, at_off, me, "INT_MAX + 1000 bytes read by dart_get_handle");
    buf.reset();
  }
  barrier();
  phase("dart_get_handle");
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_SUITE_END()
