// One-sided transfers of DART (dart_communication.h, spec 3.6.2, 3.6.4-3.6.6)
// on DART_TEAM_ALL, first part of the dart_onesided executable: non-blocking
// dart_put/dart_get completed by each of dart_flush, dart_flush_all,
// dart_flush_local, dart_flush_local_all; the caller's own portion;
// everyone-to-one and one-to-everyone; the handle forms with every
// completion call (wait, waitall, wait_local, waitall_local, test,
// test_local, testall, testall_local, handle_free + flush), including NULL
// / DART_HANDLE_NULL inputs; nelem == 0. Derived types are in
// test_onesided_types.cpp, other kinds of memory and threads in
// test_onesided_memory.cpp; puts of every copy size and misalignment, and
// from overlapping source ranges. Data patterns depend on writer, position and
// case (dart_patterns.hpp), so lost, duplicated or misplaced elements are
// caught.
// Not covered here: atomics (test_atomics.cpp), transfers above INT_MAX
// elements (test_large_transfer.cpp), invalid arguments
// (test_rma_bad_input.cpp), target-side progress (test_progress.cpp), teams
// other than DART_TEAM_ALL, and ordering of unflushed puts/gets (undefined
// by the spec). The .rma variants force the MPI RMA path with
// DART_SHARED_MEMORY=0; real multi-node runs are not covered.
#include "onesided_common.hpp"

using namespace onesidedtest;

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
    if (r % 2 == 0) CHECK_OK(dart_flush(at(seg, right, 24)));
    else CHECK_OK(dart_flush_all(at(seg, me, 8)));
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
  verify(
      got.data(), kN,
      [&](std::size_t i) {
        return i < 500 ? pattern<T>(me, i, 21) : (i < 600 ? pattern<T>(me, i - 100, 20) : sentinel<T>(me, i, 20));
      },
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
  verify(
      mine + my_slot, kBlock, [&](std::size_t i) { return pattern<T>(writer, my_slot + i, 31); }, me,
      "own block after unit " + std::to_string(writer) + "'s put to everybody");
  if (me != 0 && me != writer)  // the rest of the portion was not touched
    verify(
        mine, my_slot, [&](std::size_t i) { return sentinel<T>(me, i, 30); }, me, "own portion before the block");
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
  verify(
      got, 16, [&](std::size_t i) { return right * 100 + static_cast<int>(i); }, me,
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
  verify(
      got, 16, [&](std::size_t i) { return left * 100 + static_cast<int>(i); }, me,
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
  verify(
      buf, kN, [&](std::size_t i) { return pattern<int>(me, i, 50); }, me, "buffer after gets of 0 elements");
  verify(
      mine, kN, [&](std::size_t i) { return sentinel<int>(me, i, 50); }, me, "own portion after puts of 0 elements");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

// Every copy routine of the load/store path (fixed moves up to 64 bytes,
// the vector loop up to 16 KiB, memmove beyond) at every misalignment:
// each unit writes ranges of many sizes into its right neighbour's
// portion and reads them back with a margin on both sides, so a byte
// written short, long or out of place shows. Then puts inside the own
// portion from overlapping source ranges, which must act as memmove.
BOOST_AUTO_TEST_CASE(every_copy_size_and_overlapping_puts) {
  constexpr std::size_t kPortion = 40000, kMargin = 8;
  const dart_gptr_t seg = team_alloc<char>(kPortion, DART_TYPE_BYTE);
  auto* mine = own<unsigned char>(seg, me);
  auto fill = [&](int salt) {
    for (std::size_t i = 0; i < kPortion; ++i) mine[i] = sentinel<unsigned char>(me, i, salt);
  };
  std::vector<std::size_t> sizes;
  for (std::size_t s = 1; s <= 300; ++s) sizes.push_back(s);
  for (std::size_t s : {511, 512, 513, 1000, 4095, 4096, 4097, 16383, 16384, 16385, 30000})
    sizes.push_back(s);  // ascending
  std::vector<unsigned char> src(kPortion), back(kPortion + 2 * kMargin);
  for (std::size_t i = 0; i < kPortion; ++i) src[i] = pattern<unsigned char>(me, i, 60);

  for (const std::size_t skew : {0, 1, 3, 8}) {
    fill(61);
    barrier();
    for (const std::size_t size : sizes) {
      const std::size_t off = kMargin + skew;
      CHECK_OK(dart_put_blocking(at(seg, right, off), src.data() + skew, size, DART_TYPE_BYTE, DART_TYPE_BYTE));
      CHECK_OK(dart_get_blocking(back.data() + skew, at(seg, right, off - kMargin), size + 2 * kMargin, DART_TYPE_BYTE,
                                 DART_TYPE_BYTE));
      const unsigned char* got = back.data() + skew;
      verify(
          got, size + 2 * kMargin,
          [&](std::size_t i) {
            // Sizes ascend, so no earlier put reached past this range.
            if (i < kMargin || i >= kMargin + size) return sentinel<unsigned char>(right, off - kMargin + i, 61);
            return pattern<unsigned char>(me, i - kMargin + skew, 60);
          },
          me, "range of " + std::to_string(size) + " bytes at skew " + std::to_string(skew) + " put and read back");
    }
    barrier();
  }

  // Overlapping source and destination inside the own portion, both ways,
  // by put and by get: MPI forbids such a transfer, so the RMA variant
  // (DART_SHARED_MEMORY=0) checks that it is not handed to MPI.
  for (const bool by_get : {false, true})
    for (const std::size_t size : {5, 40, 100, 4096, 20000})
      for (const long shift : {-7L, 3L, 64L}) {
        fill(62);
        std::vector<unsigned char> expect(mine, mine + kPortion);
        const std::size_t from = 100, to = static_cast<std::size_t>(static_cast<long>(from) + shift);
        std::memmove(expect.data() + to, expect.data() + from, size);
        if (by_get) CHECK_OK(dart_get_blocking(mine + to, at(seg, me, from), size, DART_TYPE_BYTE, DART_TYPE_BYTE));
        else CHECK_OK(dart_put_blocking(at(seg, me, to), mine + from, size, DART_TYPE_BYTE, DART_TYPE_BYTE));
        verify(
            mine, kPortion, [&](std::size_t i) { return expect[i]; }, me,
            std::string("own portion after a ") + (by_get ? "get" : "put") + " of " + std::to_string(size) +
                " bytes from itself shifted by " + std::to_string(shift));
      }
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_SUITE_END()
