// One-sided transfers with the derived types of spec 2.11, part of the
// dart_onesided executable (after test_onesided.cpp): strided, indexed and
// custom types in blocking transfers -- gather/scatter of matrix columns,
// strided<->strided with different block lengths, strided doubles and
// custom structs, indexed with repetitions, unsorted blocks and a non-zero
// lower bound, indexed<->indexed -- and a type destroyed while an operation
// that uses it is in flight.
// Not covered here: atomics (test_atomics.cpp), transfers above INT_MAX
// elements (test_large_transfer.cpp), invalid arguments
// (test_rma_bad_input.cpp), target-side progress (test_progress.cpp), teams
// other than DART_TEAM_ALL, and ordering of unflushed puts/gets (undefined
// by the spec). The .rma variants force the MPI RMA path with
// DART_SHARED_MEMORY=0; real multi-node runs are not covered.
#include "onesided_common.hpp"

using namespace onesidedtest;

BOOST_FIXTURE_TEST_SUITE(onesided, DartFixture)

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
  verify(
      got.data(), R, [&](std::size_t r) { return rm(r, 3); }, me, "column 3 by dart_get (strided -> contiguous)");

  std::fill(got.begin(), got.end(), -1);
  CHECK_OK(dart_get_blocking(got.data(), at(seg, right, 7 * sizeof(T)), 2 * R, col2, DART_TYPE_INT));
  verify(
      got.data(), 2 * R, [&](std::size_t k) { return rm(k / 2, 7 + k % 2); }, me,
      "columns 7-8 by dart_get_blocking (strided blocklen 2 -> contiguous)");

  std::fill(got.begin(), got.end(), -1);
  dart_handle_t h = DART_HANDLE_NULL;
  CHECK_OK(dart_get_handle(got.data(), at(seg, right, 0), R, col, DART_TYPE_INT, &h));
  CHECK_OK(dart_wait(&h));
  verify(
      got.data(), R, [&](std::size_t r) { return rm(r, 0); }, me, "column 0 by dart_get_handle");

  // Strided -> strided: column 2 of the neighbour into column 1 of a local
  // R x 4 matrix; the other local columns stay as they were.
  constexpr std::size_t C2 = 4;
  const Type col_c2 = Type::strided(DART_TYPE_INT, C2, 1);
  std::vector<T> local(R * C2, -7);
  CHECK_OK(dart_get_blocking(local.data() + 1, at(seg, right, 2 * sizeof(T)), R, col, col_c2));
  verify(
      local.data(), R * C2, [&](std::size_t i) { return i % C2 == 1 ? rm(i / C2, 2) : -7; }, me,
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
    verify(
        mixed.data(), mixed.size(), [&](std::size_t i) { return expect[i]; }, me,
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
  verify(
      dm, R * C,
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
    verify(
        got.data(), count, [&](std::size_t k) { return sentinel<T>(right, kBase + a_at(k), 80); }, me, what);
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
    verify(
        local.data(), local.size(), [&](std::size_t i) { return expect[i]; }, me, "indexed A x5 -> indexed B x6");
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
  verify(
      mine, kPortion, [&](std::size_t i) { return expect[i]; }, me,
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
  verify(
      got.data(), R, [&](std::size_t r) { return sentinel<int>(right, r * C + 4, 90); }, me,
      "column get whose type was destroyed before the flush");
  verify(
      got2.data(), R, [&](std::size_t r) { return sentinel<int>(right, r * C, 90); }, me,
      "column get_handle whose type was destroyed before the wait");
  barrier();
  verify(
      mine, R * C, [&](std::size_t i) { return i % C == 6 ? pattern<int>(left, i / C, 91) : sentinel<int>(me, i, 90); },
      me, "own matrix after a column put whose type was destroyed before the flush");
  barrier();
  CHECK_OK(dart_team_memfree(seg));
}

BOOST_AUTO_TEST_SUITE_END()
