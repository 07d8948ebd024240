// Two-sided messages of DART (spec 3.6.7), part of the dart_collectives
// executable: a ring through dart_sendrecv for every basic type, a custom
// type and a 4 MiB message, and zero-length messages; with two units or
// more, dart_send/dart_recv with tags selecting messages out of send order
// and same-tag messages kept in order, a message longer than the receive
// buffer, and user messages of tags 0..3 that neither match nor are
// matched by the runtime's own traffic (pending while the units allocate,
// lock and synchronise, and a receive posted by a thread while they do).
// Sends that must complete before their receive is posted carry at most
// 16 bytes, which both MPI libraries send eagerly.
// Not covered: counts above INT_MAX (test_collectives_large.cpp), log
// lines (the entry() wrapper, test_bad_input.cpp), multi-node runs.
#include "collectives_common.hpp"

namespace {

using namespace colltest;

// ---- two-sided ------------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(sendrecv_ring_every_type, CollFixture) {
  const dart_global_unit_t to = DART_GLOBAL_UNIT_ID(right);
  const dart_global_unit_t from = DART_GLOBAL_UNIT_ID(left);
  constexpr std::size_t k = 41;
  int tag = 1;
  for_each_basic_type([&](auto t, dart_datatype_t dt, const char* tname) {
    using T = typename decltype(t)::type;
    std::vector<T> send(k);
    for (std::size_t i = 0; i < k; ++i) send[i] = pattern<T>(me, i, static_cast<unsigned>(tag));
    std::vector<T> got = sentinels<T>(k);
    CHECK_OK(dart_sendrecv(send.data(), k, dt, tag, to, got.data(), k, dt, tag, from));
    check_elements(
        got.data(), k, [&](std::size_t i) { return pattern<T>(left, i, static_cast<unsigned>(tag)); },
        std::string("dart_sendrecv ") + tname);
    ++tag;
  });
  // A custom type, and 4 MiB (beyond any eager limit).
  dart_datatype_t rec = DART_TYPE_UNDEFINED;
  REQUIRE_OK(dart_type_create_custom(sizeof(Rec), &rec));
  std::vector<Rec> rsend(k);
  for (std::size_t i = 0; i < k; ++i) rsend[i] = pattern<Rec>(me, i, 99);
  std::vector<Rec> rgot = sentinels<Rec>(k);
  CHECK_OK(dart_sendrecv(rsend.data(), k, rec, 0, to, rgot.data(), k, rec, 0, from));
  check_elements(
      rgot.data(), k, [&](std::size_t i) { return pattern<Rec>(left, i, 99); }, "dart_sendrecv custom");
  CHECK_OK(dart_type_destroy(&rec));
  constexpr std::size_t big = std::size_t(1) << 19;
  std::vector<std::uint64_t> bsend(big);
  for (std::size_t i = 0; i < big; ++i) bsend[i] = pattern<std::uint64_t>(me, i, 5);
  std::vector<std::uint64_t> bgot(big, 0);
  CHECK_OK(
      dart_sendrecv(bsend.data(), big, DART_TYPE_ULONGLONG, 7, to, bgot.data(), big, DART_TYPE_ULONGLONG, 7, from));
  check_elements(
      bgot.data(), big, [&](std::size_t i) { return pattern<std::uint64_t>(left, i, 5); }, "dart_sendrecv 4 MiB");
  // Zero elements, NULL buffers.
  CHECK_OK(dart_sendrecv(nullptr, 0, DART_TYPE_INT, 3, to, nullptr, 0, DART_TYPE_INT, 3, from));
}

// Even units send first, odd units receive first, so the ring cannot
// deadlock at any size; the 16-byte messages go out eagerly, so a receiver
// may pick them out of send order by tag.
BOOST_FIXTURE_TEST_CASE(send_recv_tags_select_and_order, CollFixture) {
  if (n < 2) return;  // blocking send to oneself is not required to work
  const dart_global_unit_t to = DART_GLOBAL_UNIT_ID(right);
  const dart_global_unit_t from = DART_GLOBAL_UNIT_ID(left);
  auto payload = [](int unit, int which) { return std::vector<std::int64_t>{unit, which}; };
  auto do_send = [&] {
    CHECK_OK(dart_send(payload(me, 0).data(), 2, DART_TYPE_LONGLONG, 5, to));
    CHECK_OK(dart_send(payload(me, 1).data(), 2, DART_TYPE_LONGLONG, 5, to));
    CHECK_OK(dart_send(payload(me, 2).data(), 2, DART_TYPE_LONGLONG, 0, to));
    CHECK_OK(dart_send(nullptr, 0, DART_TYPE_LONGLONG, 9, to));
  };
  auto do_recv = [&] {
    std::vector<std::int64_t> got(2, -1);
    CHECK_OK(dart_recv(nullptr, 0, DART_TYPE_LONGLONG, 9, from));
    CHECK_OK(dart_recv(got.data(), 2, DART_TYPE_LONGLONG, 0, from));
    CHECK_RANK(got == payload(left, 2));
    CHECK_OK(dart_recv(got.data(), 2, DART_TYPE_LONGLONG, 5, from));
    CHECK_RANK(got == payload(left, 0));
    CHECK_OK(dart_recv(got.data(), 2, DART_TYPE_LONGLONG, 5, from));
    CHECK_RANK(got == payload(left, 1));
  };
  if (me % 2 == 0) {
    do_send();
    do_recv();
  } else {
    do_recv();
    do_send();
  }
  // A message longer than the receive buffer: DART_ERR_INVAL.
  if (me == 0) {
    const std::vector<int> ten(10, 42);
    CHECK_OK(dart_send(ten.data(), 10, DART_TYPE_INT, 77, DART_GLOBAL_UNIT_ID(1)));
  } else if (me == 1) {
    QuietDart quiet;
    std::vector<int> five(5, 0);
    CHECK_EQ(dart_recv(five.data(), 5, DART_TYPE_INT, 77, DART_GLOBAL_UNIT_ID(0)), DART_ERR_INVAL);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

// User messages with the runtime at work: (1) messages of tags 0..3 wait
// unreceived while the units allocate, lock, unlock and synchronise, and
// arrive intact afterwards; (2) with threads, a receive of tag 0 is
// posted before all that and gets exactly the user's message sent after it.
BOOST_FIXTURE_TEST_CASE(user_messages_and_runtime_traffic_do_not_mix, CollFixture) {
  // A unit alone has no runtime traffic with others, and a blocking send to
  // itself before the receive is posted may block (MPICH 4.0 does).
  if (n < 2) return;
  const dart_global_unit_t to = DART_GLOBAL_UNIT_ID(right);
  const dart_global_unit_t from = DART_GLOBAL_UNIT_ID(left);
  auto runtime_work = [&] {
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_INT, &g));
    dart_lock_t lock = DART_LOCK_NULL;
    CHECK_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
    for (int round = 0; round < 3; ++round) {
      CHECK_OK(dart_lock_acquire(lock));
      CHECK_OK(dart_lock_release(lock));
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_lock_destroy(&lock));
    CHECK_OK(dart_team_memfree(g));
    int one = 1, sum = 0;
    CHECK_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
    CHECK_EQ(sum, n);
  };

  for (int tag = 0; tag < 4; ++tag) {
    const std::int64_t v[2] = {me, tag};
    CHECK_OK(dart_send(v, 2, DART_TYPE_LONGLONG, tag, to));
  }
  runtime_work();
  for (int tag = 3; tag >= 0; --tag) {
    std::int64_t v[2] = {-1, -1};
    CHECK_OK(dart_recv(v, 2, DART_TYPE_LONGLONG, tag, from));
    CHECK_EQ(v[0], left);
    CHECK_EQ(v[1], tag);
  }

  if (!multiple) return;
  std::vector<std::int64_t> got(3, -1);
  dart_ret_t rc = DART_ERR_OTHER;
  std::thread receiver([&] { rc = dart_recv(got.data(), 3, DART_TYPE_LONGLONG, 0, from); });
  runtime_work();
  const std::vector<std::int64_t> mine{me, 4711, -me};
  CHECK_OK(dart_send(mine.data(), 3, DART_TYPE_LONGLONG, 0, to));
  receiver.join();
  CHECK_OK(rc);
  CHECK_RANK(got == (std::vector<std::int64_t>{left, 4711, -left}));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

}  // namespace
