// The byte buffer the registry records operations into and receives a
// sync's exchange in (registry/src/containers.hpp). What a sync relies on:
// - appended bytes survive every growth and hand-over;
// - with a growth factor f, the buffer grows to f times what was appended
//   (the receive buffer of an exchange among f ranks) without moving, at
//   every size, huge-page boundaries included: a move there copied this
//   rank's operations inside the exchange;
// - looking ahead stops at ahead_max;
// - the room ahead is touched while appending (within warm_max), so the
//   exchange does not meet fresh pages: checked with mincore.
// Local to a process; runs at one rank.
#include "containers.hpp"

#include "mpi_test.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using registry::detail::ByteBuffer;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Appends `total` bytes in pieces of 10, 20 and 76 bytes (the shape of an
// encoded put), the same bytes to `buf` and `ref`.
void fill(ByteBuffer& buf, std::string& ref, std::size_t total) {
  static const std::size_t pieces[] = {10, 20, 76};
  std::string piece;
  for (std::size_t k = 0; ref.size() < total; ++k) {
    const std::size_t n = std::min(pieces[k % 3], total - ref.size());
    piece.assign(n, static_cast<char>('a' + (k * 7 + ref.size()) % 26));
    buf.append(piece.data(), n);
    ref += piece;
  }
}

// Compared as addresses: Boost.Test would print a char* as a string.
bool at(const ByteBuffer& buf, const char* where) {
  return reinterpret_cast<std::uintptr_t>(buf.data()) == reinterpret_cast<std::uintptr_t>(where);
}

bool same(const ByteBuffer& buf, const std::string& ref) {
  return buf.size() == ref.size() && (ref.empty() || std::memcmp(buf.data(), ref.data(), ref.size()) == 0);
}

// How many pages of [from, to) in buf are not resident.
std::size_t pages_missing(const ByteBuffer& buf, std::size_t from, std::size_t to) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<std::uintptr_t>(buf.data());
  const std::uintptr_t lo = (base + from + page - 1) / page * page;
  const std::uintptr_t hi = (base + to) / page * page;
  if (hi <= lo) return 0;
  std::vector<unsigned char> vec((hi - lo) / page);
  BOOST_REQUIRE(mincore(reinterpret_cast<void*>(lo), hi - lo, vec.data()) == 0);
  std::size_t missing = 0;
  for (unsigned char v : vec) missing += (v & 1) == 0 ? 1 : 0;
  return missing;
}

// Sizes around the boundaries that matter: small-block growth, the start
// of huge pages (64 KiB), and f x size just past whole 2 MiB pages.
const std::size_t kSizes[] = {1, 255, 4096, 70000, 1060000, kMiB + 1, 2 * kMiB + 3, 10690000};

}  // namespace

// First, while no buffer was freed yet.
BOOST_AUTO_TEST_CASE(touches_the_room_ahead) {
  // Large blocks straight from the kernel, never memory a freed buffer
  // left resident (glibc otherwise raises its mmap threshold after a free).
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  for (std::size_t total : {std::size_t{1060000}, 3 * kMiB, 5 * kMiB}) {
    ByteBuffer buf;
    buf.set_growth(2, 64 * kMiB, 16 * kMiB);
    std::string ref;
    fill(buf, ref, total);
    BOOST_TEST_REQUIRE(same(buf, ref));
    // Touching goes in steps of 64 KiB, so the last step may be pending.
    const std::size_t missing = pages_missing(buf, total, 2 * total - 64 * 1024);
    BOOST_TEST(missing == 0u, "size " << total << ": " << missing << " pages of the room ahead not resident");
  }
}

BOOST_AUTO_TEST_CASE(plain_buffer_keeps_its_bytes) {
  for (std::size_t total : kSizes) {
    ByteBuffer buf;
    std::string ref;
    fill(buf, ref, total);
    BOOST_TEST(same(buf, ref), "size " << total);
    BOOST_TEST(buf.capacity() >= buf.size());
  }
}

BOOST_AUTO_TEST_CASE(grows_to_factor_times_without_moving) {
  for (std::size_t factor : {2, 3, 4}) {
    for (std::size_t total : kSizes) {
      ByteBuffer buf;
      buf.set_growth(factor, 64 * kMiB, 0);
      std::string ref;
      fill(buf, ref, total);
      BOOST_TEST_REQUIRE(same(buf, ref), "factor " << factor << " size " << total);
      const char* before = buf.data();
      buf.resize_exact(factor * total);
      BOOST_TEST(at(buf, before), "factor " << factor << " size " << total << ": the exchange step moved");
      BOOST_TEST(std::memcmp(buf.data(), ref.data(), ref.size()) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(looks_ahead_at_most_ahead_max) {
  // 64 ranks but at most 1 MiB ahead: room for size + 1 MiB, not 64 x size.
  ByteBuffer buf;
  buf.set_growth(64, kMiB, 0);
  std::string ref;
  fill(buf, ref, 5 * kMiB);
  BOOST_TEST_REQUIRE(same(buf, ref));
  // Doubling plus rounding to huge pages bounds the room; 64 x 5 MiB it is not.
  BOOST_TEST(buf.capacity() <= 2 * (5 * kMiB + kMiB) + 2 * kMiB, "capacity " << buf.capacity());
  const char* before = buf.data();
  buf.resize_exact(5 * kMiB + kMiB / 2);
  BOOST_TEST(at(buf, before));
}

BOOST_AUTO_TEST_CASE(hand_over_keeps_roles_and_bytes) {
  ByteBuffer pending;
  pending.set_growth(3, 64 * kMiB, 16 * kMiB);
  ByteBuffer other;
  std::string ref_pending;
  std::string ref_other;
  fill(pending, ref_pending, 300000);
  fill(other, ref_other, 5000);
  pending.swap_storage(other);
  BOOST_TEST(same(pending, ref_other));
  BOOST_TEST(same(other, ref_pending));
  // pending keeps its role on the storage it took over.
  pending.clear();
  std::string ref;
  fill(pending, ref, 1060000);
  BOOST_TEST_REQUIRE(same(pending, ref));
  const char* before = pending.data();
  pending.resize_exact(3 * ref.size());
  BOOST_TEST(at(pending, before));
  // A moved-into buffer takes the settings along.
  ByteBuffer moved(std::move(pending));
  BOOST_TEST(std::memcmp(moved.data(), ref.data(), ref.size()) == 0);
}
