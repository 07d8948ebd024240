// Covers the lifetime of a producer (one tool connection) across the calls
// that may end it while it is still in use: an XON that hands the host a
// frame buffered before the XOFF, which the host refuses at once (the
// stream closes inside the XON), and finalize meeting the same suspended
// producer (XON, then the end of the stream, PMIX_ERR_IOF_COMPLETE).  The tool is played by hand over the socket so the frames sit
// in the server's receive buffer, in one piece, before the XOFF: the case
// is deterministic, not a race.  Run under AddressSanitizer (the sanitizer
// lane) a use after free or a double close fails the test at once; without
// it the frame sequence, the host's view and the counts are checked.
#define BOOST_TEST_MODULE pmix_shim_lifetime
#include "shim_test_util.hpp"
#include "wire_test_util.hpp"

using namespace shimtest;

namespace {

constexpr size_t kChunk = 4096;

// A host that takes the first chunk with "stop sending" and refuses every
// later one: the refusal closes the stream from inside whatever call
// handed the chunk over.
void xoff_then_refuse(Host &h) {
  h.decide = [n = std::make_shared<std::atomic<int>>(0)](const pmix_proc_t &, size_t) {
    return (*n)++ == 0 ? PMIX_ERR_IOF_XOFF : PMIX_ERR_IOF_FAILURE;
  };
}

// Connects as tool "hand" and sends the handshake and three DATA frames in
// one write, so the server reads all of them before it acts on the first.
int connect_with_three_frames(const std::pair<std::string, std::string> &c) {
  int fd = connect_unix(c.first);
  std::vector<unsigned char> all = hello("hand", c.second);
  for (uint32_t i = 0; i < 3; ++i) {
    auto d = frame(wire::Type::data, make_pattern(kChunk, 7, i * kChunk));
    all.insert(all.end(), d.begin(), d.end());
  }
  send_all(fd, all);
  return fd;
}

}  // namespace

BOOST_AUTO_TEST_CASE(xon_that_hands_over_a_refused_frame_ends_the_stream_once) {
  Host h;
  xoff_then_refuse(h);
  start_server(h);
  ServerGuard guard;
  int fd = connect_with_three_frames(contact());
  ServerFrames got;
  // WELCOME, then the XOFF the first chunk's status asked for.
  BOOST_REQUIRE(got.read(fd, 2));
  BOOST_TEST((got.types[0] == wire::Type::welcome && got.types[1] == wire::Type::xoff));
  BOOST_REQUIRE(wait_until([&] { return h.chunks.load() == 1; }));

  // The XON hands the host the second frame, which it refuses: the
  // stream is closed inside this call.
  BOOST_TEST(flow(nullptr, 0, false) == PMIX_OPERATION_SUCCEEDED);
  BOOST_REQUIRE(got.read(fd, 4));
  BOOST_TEST((got.types[2] == wire::Type::xon && got.types[3] == wire::Type::failure));
  BOOST_TEST(closed_by_server(fd));
  ::close(fd);

  BOOST_TEST(h.chunks.load() == 2u);  // the third frame never reached the host
  auto data = h.get("hand:0");
  BOOST_TEST(data.size() == 2 * kChunk);
  BOOST_TEST(first_mismatch(data, 7) == std::string::npos);
  auto s = stats();
  BOOST_TEST(s.xoff == 1u);
  BOOST_TEST(s.xon == 1u);
  BOOST_TEST(s.streams_opened == 1u);
  BOOST_TEST(s.streams_closed == 1u);
  // The server goes on serving: a second suspend/resume reaches nobody.
  BOOST_TEST(flow(nullptr, 0, true) == PMIX_OPERATION_SUCCEEDED);
  BOOST_TEST(flow(nullptr, 0, false) == PMIX_OPERATION_SUCCEEDED);
}

BOOST_AUTO_TEST_CASE(finalize_meets_a_suspended_producer_with_frames_buffered) {
  Host h;
  xoff_then_refuse(h);
  start_server(h);
  int fd = connect_with_three_frames(contact());
  ServerFrames got;
  BOOST_REQUIRE(got.read(fd, 2));
  BOOST_REQUIRE(wait_until([&] { return h.chunks.load() == 1; }));

  // Finalize resumes the producer (so every XOFF it was sent gets its XON),
  // says the stream is over (FAILURE with PMIX_ERR_IOF_COMPLETE: the host
  // takes no more, which a tool does not take for a failure) and hangs up;
  // it hands the host nothing more, so no chunk outlives it.
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  BOOST_REQUIRE(got.read(fd, 4));
  BOOST_TEST((got.types[2] == wire::Type::xon && got.types[3] == wire::Type::failure));
  BOOST_TEST((got.payloads[3].size() == 4u &&
              static_cast<pmix_status_t>(wire::get_u32(got.payloads[3].data())) == PMIX_ERR_IOF_COMPLETE));
  BOOST_TEST(closed_by_server(fd));
  BOOST_TEST(got.count(wire::Type::failure) == 1u);
  ::close(fd);
  BOOST_TEST(h.chunks.load() == 1u);
  auto s = stats();
  BOOST_TEST(s.xoff == s.xon);
  BOOST_TEST(s.streams_closed == 1u);
}
