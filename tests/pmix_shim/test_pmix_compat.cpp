// Source compatibility with OpenPMIx (issue 24): the shim's constants
// against the installed OpenPMIx 4.2 headers and OpenPMIx 7's values, the
// NULL-boolean rule (also end to end, through a tool in a child process),
// and the loaders' ownership: they copy, destruct frees (run the sanitizer
// build to see that nothing leaks).
#define BOOST_TEST_MODULE pmix_shim_compat
#include "shim_test_util.hpp"

#include "compat_constants.h"

#include <set>
#include <type_traits>

extern "C" int pmixshim_compat_c_user(void);

using namespace shimtest;

namespace {

#define PMIXSHIM_INT_ROW(c) {#c, static_cast<long long>(c)},
#define PMIXSHIM_KEY_ROW(c) {#c, c},
const pmixshim_compat_int kOurInts[] = {PMIXSHIM_COMPAT_INTS(PMIXSHIM_INT_ROW)};
const pmixshim_compat_key kOurKeys[] = {PMIXSHIM_COMPAT_KEYS(PMIXSHIM_KEY_ROW)};

// Every boolean attribute the shim reads (the completion directive only
// where pmix_tool.h has it).
const char *const kBoolKeys[] = {PMIX_IOF_PUSH_STDIN, PMIX_SHIM_NO_FLOW_CONTROL, PMIX_SHIM_IOF_ABNORMAL_END,
#ifdef PMIX_SHIM_IOF_COMPLETE_AT_END
                                 PMIX_SHIM_IOF_COMPLETE_AT_END
#endif
};

// Status of the child tool's push callback (set on its progress thread).
std::atomic<int> g_child_cb{1};

// The child of the end-to-end test: receives "uri\nsecret\n" on ctl,
// connects, pushes descriptor `in` with PMIX_IOF_PUSH_STDIN loaded from
// NULL, then waits for ctl's EOF (the parent has seen everything) before
// finalizing.  It never returns; the exit code names what went wrong.
[[noreturn]] void run_child_tool(int ctl, int in) {
  std::string msg;
  char c;
  int lines = 0;
  while (lines < 2 && ::read(ctl, &c, 1) == 1) {
    if (c == '\n') ++lines;
    msg += c;
  }
  if (lines < 2) _exit(10);
  size_t nl = msg.find('\n');
  std::string uri = msg.substr(0, nl), secret = msg.substr(nl + 1, msg.size() - nl - 2);
  pmix_info_t info[3];
  PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_SHIM_SECRET, secret.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[2], PMIX_TOOL_NSPACE, "compat-tool", PMIX_STRING);
  pmix_status_t rc = PMIx_tool_init(nullptr, info, 3);
  for (pmix_info_t &i : info) PMIX_INFO_DESTRUCT(&i);
  if (rc != PMIX_SUCCESS) _exit(11);
  // Exactly as an OpenPMIx tool writes it.
  pmix_info_t dir[2];
  PMIX_INFO_LOAD(&dir[0], PMIX_IOF_PUSH_STDIN, NULL, PMIX_BOOL);
  PMIX_INFO_LOAD(&dir[1], PMIX_SHIM_IOF_FD, &in, PMIX_INT);
  pmix_proc_t target;
  PMIX_LOAD_PROCID(&target, "compat-job", PMIX_RANK_WILDCARD);
  // The non-blocking form: whether completion comes at set-up or at the
  // end of the stream, the parent decides when we are done.
  rc = PMIx_IOF_push(&target, 1, nullptr, dir, 2, [](pmix_status_t st, void *) { g_child_cb = st; }, nullptr);
  if (rc != PMIX_SUCCESS) _exit(12);
  while (::read(ctl, &c, 1) == 1) {
  }
  bool called = wait_until([] { return g_child_cb.load() != 1; }, 10s);
  int cb = g_child_cb.load();
  PMIx_tool_finalize();
  for (pmix_info_t &i : dir) PMIX_INFO_DESTRUCT(&i);
  if (!called) _exit(13);
  _exit(cb == PMIX_SUCCESS ? 0 : 14);
}

}  // namespace

// First in the file: the fork must happen while this process has no
// threads (no test has started the library's progress thread yet).
BOOST_AUTO_TEST_CASE(tool_push_with_null_boolean_delivers_every_byte) {
  int ctl[2], data[2];
  BOOST_REQUIRE_EQUAL(::pipe2(ctl, O_CLOEXEC), 0);
  BOOST_REQUIRE_EQUAL(::pipe2(data, O_CLOEXEC), 0);
  pid_t pid = ::fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ctl[1]);
    ::close(data[1]);
    run_child_tool(ctl[0], data[0]);
  }
  ::close(ctl[0]);
  ::close(data[0]);
  Host h;
  ServerGuard guard;
  start_server(h, "unix");
  auto [uri, secret] = contact();
  std::string msg = uri + "\n" + secret + "\n";
  BOOST_REQUIRE_EQUAL(::write(ctl[1], msg.data(), msg.size()), static_cast<ssize_t>(msg.size()));
  const size_t total = (3u << 20) + 12345;  // several chunks and a partial one
  const uint32_t seed = 24;
  {
    Writer w(data[1], total, seed);
    // The end of the stream arrives after the last byte, so once it has,
    // everything the tool read has been delivered.  Before the NULL rule,
    // the tool pushed an immediate EOF and nothing else.
    BOOST_TEST(wait_until([&] { return h.ended("compat-tool:0") >= 1; }, 30s));
    ::close(ctl[1]);  // the child may finalize now
    int st = reap(pid, 30s);
    BOOST_TEST(st == 0, "child tool exit status " << st);
  }  // joins the writer: the child's exit ended any blocked write
  std::vector<unsigned char> got = h.get("compat-tool:0");
  BOOST_TEST(got.size() == total);
  BOOST_TEST(first_mismatch(got, seed) == std::string::npos);
  BOOST_TEST(h.ended("compat-tool:0") == 1);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
}

BOOST_AUTO_TEST_CASE(constants_equal_openpmix_4_2) {
  // Same list on both sides (compat_constants.h), in the same order.
  const size_t n = sizeof kOurInts / sizeof kOurInts[0];
  BOOST_REQUIRE_EQUAL(n, pmixshim_compat_real_nints);
  for (size_t i = 0; i < n; ++i) {
    BOOST_TEST_CONTEXT(kOurInts[i].name) {
      BOOST_TEST(std::string(kOurInts[i].name) == pmixshim_compat_real_ints[i].name);
      BOOST_TEST(kOurInts[i].value == pmixshim_compat_real_ints[i].value);
    }
  }
  const size_t nk = sizeof kOurKeys / sizeof kOurKeys[0];
  BOOST_REQUIRE_EQUAL(nk, pmixshim_compat_real_nkeys);
  for (size_t i = 0; i < nk; ++i) {
    BOOST_TEST_CONTEXT(kOurKeys[i].name) {
      BOOST_TEST(std::string(kOurKeys[i].value) == pmixshim_compat_real_keys[i].value);
    }
  }
  // Distinct codes, so a switch over them (PMIx_Error_string) is sound.
  std::set<long long> codes;
  for (const auto &c : kOurInts)
    if (std::string(c.name).rfind("PMIX_ERR", 0) == 0 || std::string(c.name).rfind("PMIX_OPERATION", 0) == 0)
      BOOST_TEST(codes.insert(c.value).second, c.name << " duplicates another code");
  BOOST_TEST(!codes.count(PMIX_ERR_IOF_XOFF));
}

BOOST_AUTO_TEST_CASE(version_macros_have_openpmix_shapes) {
  // Same shapes as the installed 4.2 headers: long literals and
  // 0xMMMMmmrr.
  const auto &real = pmixshim_compat_real_version;
  BOOST_TEST(real.long_literals == 1);
  static_assert(std::is_same_v<decltype(PMIX_VERSION_MAJOR), long> &&
                std::is_same_v<decltype(PMIX_VERSION_MINOR), long> &&
                std::is_same_v<decltype(PMIX_VERSION_RELEASE), long>);
  BOOST_TEST(real.numeric == ((real.major << 16) | (real.minor << 8) | real.release));
  BOOST_TEST(PMIX_NUMERIC_VERSION == ((PMIX_VERSION_MAJOR << 16) | (PMIX_VERSION_MINOR << 8) | PMIX_VERSION_RELEASE));
  // The flow-control API is OpenPMIx 7's (its VERSION file: 7.0.0).
  static_assert(PMIX_VERSION_MAJOR == 7L && PMIX_VERSION_MINOR == 0L && PMIX_VERSION_RELEASE == 0L);
  static_assert(PMIX_NUMERIC_VERSION == 0x00070000);
  BOOST_TEST(PMIX_NUMERIC_VERSION > real.numeric);
  std::string v = PMIx_Get_version();
  BOOST_TEST(v.find("shim") != std::string::npos);
  BOOST_TEST(v.find("OpenPMIx 7.0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(values_only_openpmix_7_has) {
  // include/pmix_common.h.in of OpenPMIx 7.0.0:
  //   #define PMIX_ERR_IOF_XOFF  -405
  static_assert(PMIX_ERR_IOF_XOFF == -405);
  // include/pmix_version.h.in of OpenPMIx 7.0.0:
  //   #define PMIX_CAP_IOF_FLOW_CONTROL 14
  static_assert(PMIX_CAP_IOF_FLOW_CONTROL == 14);
  BOOST_TEST(std::string(PMIx_Error_string(PMIX_ERR_IOF_XOFF)) == "ERR-IOF-XOFF");
  // Capabilities the shim lacks must not be claimed.
#if defined(PMIX_CAP_BASE) || defined(PMIX_CAP_IOF_FILE_PATTERN) || defined(PMIX_CAP_TOOL_FINALIZED) || \
    defined(PMIX_CAP_IOF_DELIVER_LOCAL) || defined(PMIX_CAPABILITIES)
  BOOST_FAIL("a capability flag for a feature the shim does not have");
#endif
}

BOOST_AUTO_TEST_CASE(null_boolean_is_true_for_every_flag_the_shim_reads) {
  for (const char *k : kBoolKeys) {
    BOOST_TEST_CONTEXT(k) {
      pmix_info_t i;
      PMIX_INFO_LOAD(&i, k, NULL, PMIX_BOOL);
      BOOST_TEST(i.value.type == PMIX_BOOL);
      BOOST_TEST(i.value.data.flag);
      BOOST_TEST(PMIX_INFO_TRUE(&i));
      BOOST_TEST(PMIX_CHECK_KEY(&i, k));
      PMIX_INFO_DESTRUCT(&i);
      bool t = true, f = false;
      PMIX_INFO_LOAD(&i, k, &t, PMIX_BOOL);
      BOOST_TEST(PMIX_INFO_TRUE(&i));
      PMIX_INFO_DESTRUCT(&i);
      PMIX_INFO_LOAD(&i, k, &f, PMIX_BOOL);
      BOOST_TEST(!PMIX_INFO_TRUE(&i));
      PMIX_INFO_DESTRUCT(&i);
      // The function form answers the same.
      BOOST_TEST(PMIx_Info_load(&i, k, nullptr, PMIX_BOOL) == PMIX_SUCCESS);
      BOOST_TEST(PMIx_Info_true(&i) == PMIX_BOOL_TRUE);
      PMIx_Info_destruct(&i);
    }
  }
  // A byte that is neither 0 nor 1 is true, and stored as a valid bool.
  unsigned char two = 2;
  pmix_value_t v;
  BOOST_TEST(PMIx_Value_load(&v, &two, PMIX_BOOL) == PMIX_SUCCESS);
  BOOST_TEST(PMIX_CHECK_TRUE(&v));
  PMIX_VALUE_DESTRUCT(&v);
}

BOOST_AUTO_TEST_CASE(null_data_loads_zero_for_other_types) {
  const pmix_data_type_t types[] = {PMIX_UNDEF,  PMIX_BYTE,    PMIX_STRING, PMIX_SIZE,  PMIX_PID,
                                    PMIX_INT,    PMIX_INT8,    PMIX_INT16,  PMIX_INT32, PMIX_INT64,
                                    PMIX_UINT,   PMIX_UINT8,   PMIX_UINT16, PMIX_UINT32, PMIX_UINT64,
                                    PMIX_FLOAT,  PMIX_DOUBLE,  PMIX_TIMEVAL, PMIX_TIME, PMIX_STATUS,
                                    PMIX_PROC,   PMIX_BYTE_OBJECT, PMIX_POINTER, PMIX_PROC_RANK,
                                    PMIX_IOF_CHANNEL};
  for (pmix_data_type_t t : types) {
    BOOST_TEST_CONTEXT("type " << t) {
      pmix_info_t i;
      std::memset(&i, 0xa5, sizeof i);  // garbage in, so zero is the loader's doing
      BOOST_TEST(PMIx_Info_load(&i, "k", nullptr, t) == PMIX_SUCCESS);
      BOOST_TEST(i.value.type == t);
      pmix_value_t zero;
      std::memset(&zero, 0, sizeof zero);
      BOOST_TEST(std::memcmp(&i.value.data, &zero.data, sizeof zero.data) == 0);
      BOOST_TEST(i.flags == 0u);
      PMIX_INFO_DESTRUCT(&i);
    }
  }
}

BOOST_AUTO_TEST_CASE(strings_and_byte_objects_are_copied_and_destruct_frees) {
  char text[] = "unix:/tmp/somewhere";
  pmix_info_t i;
  PMIX_INFO_LOAD(&i, PMIX_SERVER_URI, text, PMIX_STRING);
  BOOST_TEST(static_cast<void *>(i.value.data.string) != static_cast<void *>(text));
  text[0] = 'X';  // the caller's buffer is the caller's
  BOOST_TEST(std::string(i.value.data.string) == "unix:/tmp/somewhere");
  PMIX_INFO_DESTRUCT(&i);
  BOOST_TEST(i.value.type == PMIX_UNDEF);
  BOOST_TEST(static_cast<void *>(i.value.data.string) == nullptr);
  PMIX_INFO_DESTRUCT(&i);  // twice is harmless: nothing is owned any more

  // A string literal, as OpenPMIx programs load it, then destruct it.
  PMIX_INFO_LOAD(&i, PMIX_SHIM_LISTEN, "none", PMIX_STRING);
  PMIX_INFO_DESTRUCT(&i);

  std::vector<char> bytes = {'a', '\0', 'b', '\xff'};
  pmix_byte_object_t bo{bytes.data(), bytes.size()};
  PMIX_INFO_LOAD(&i, "bo", &bo, PMIX_BYTE_OBJECT);
  BOOST_TEST(static_cast<void *>(i.value.data.bo.bytes) != static_cast<void *>(bytes.data()));
  BOOST_TEST(i.value.data.bo.size == 4u);
  bytes.assign(4, 'z');
  BOOST_TEST(std::memcmp(i.value.data.bo.bytes, "a\0b\xff", 4) == 0);
  pmix_info_t j;
  PMIX_INFO_XFER(&j, &i);  // a deep copy
  BOOST_TEST(static_cast<void *>(j.value.data.bo.bytes) != static_cast<void *>(i.value.data.bo.bytes));
  PMIX_INFO_DESTRUCT(&i);
  BOOST_TEST(std::memcmp(j.value.data.bo.bytes, "a\0b\xff", 4) == 0);
  PMIX_INFO_DESTRUCT(&j);

  pmix_byte_object_t empty{nullptr, 0};
  BOOST_TEST(PMIx_Info_load(&i, "bo", &empty, PMIX_BYTE_OBJECT) == PMIX_SUCCESS);
  BOOST_TEST(static_cast<void *>(i.value.data.bo.bytes) == nullptr);
  PMIX_INFO_DESTRUCT(&i);

  pmix_proc_t p;
  PMIX_LOAD_PROCID(&p, "job", 4);
  PMIX_INFO_LOAD(&i, "proc", &p, PMIX_PROC);
  BOOST_REQUIRE(i.value.data.proc != nullptr);
  BOOST_TEST(i.value.data.proc != &p);
  BOOST_TEST(PMIX_CHECK_PROCID(i.value.data.proc, &p));
  PMIX_INFO_DESTRUCT(&i);

  // Persistent: the info does not own its value, so neither destruct nor
  // xfer touches (or copies) it.
  PMIX_INFO_LOAD(&i, "s", "kept", PMIX_STRING);
  PMIX_INFO_SET_PERSISTENT(&i);
  BOOST_TEST(PMIX_INFO_IS_PERSISTENT(&i));
  PMIX_INFO_XFER(&j, &i);
  BOOST_TEST(static_cast<void *>(j.value.data.string) == static_cast<void *>(i.value.data.string));
  PMIX_INFO_DESTRUCT(&j);
  PMIX_INFO_DESTRUCT(&i);
  BOOST_TEST(std::string(i.value.data.string) == "kept");
  char *owned = i.value.data.string;
  std::free(owned);  // ours to free, as the flag said
}

BOOST_AUTO_TEST_CASE(every_type_round_trips) {
  pmix_info_t i, j;
  auto both = [&](auto check) {
    check(i);
    BOOST_TEST(PMIx_Info_xfer(&j, &i) == PMIX_SUCCESS);
    check(j);
    PMIX_INFO_DESTRUCT(&i);
    PMIX_INFO_DESTRUCT(&j);
  };
#define ROUND_TRIP(T, member, TYPE, val)                                              \
  do {                                                                                \
    T x = val;                                                                        \
    BOOST_TEST_CONTEXT(#TYPE) {                                                       \
      BOOST_TEST(PMIx_Info_load(&i, "k", &x, TYPE) == PMIX_SUCCESS);                  \
      both([&](const pmix_info_t &in) {                                               \
        BOOST_TEST(in.value.type == TYPE);                                            \
        BOOST_TEST((std::memcmp(&in.value.data.member, &x, sizeof x) == 0));          \
      });                                                                             \
    }                                                                                 \
  } while (0)
  ROUND_TRIP(bool, flag, PMIX_BOOL, true);
  ROUND_TRIP(uint8_t, byte, PMIX_BYTE, 0xfe);
  ROUND_TRIP(size_t, size, PMIX_SIZE, SIZE_MAX - 1);
  ROUND_TRIP(pid_t, pid, PMIX_PID, 4242);
  ROUND_TRIP(int, integer, PMIX_INT, -77);
  ROUND_TRIP(int8_t, int8, PMIX_INT8, -8);
  ROUND_TRIP(int16_t, int16, PMIX_INT16, -1616);
  ROUND_TRIP(int32_t, int32, PMIX_INT32, INT32_MIN);
  ROUND_TRIP(int64_t, int64, PMIX_INT64, INT64_MIN + 3);
  ROUND_TRIP(unsigned, uint, PMIX_UINT, 4000000000u);
  ROUND_TRIP(uint8_t, uint8, PMIX_UINT8, 200);
  ROUND_TRIP(uint16_t, uint16, PMIX_UINT16, 65000);
  ROUND_TRIP(uint32_t, uint32, PMIX_UINT32, UINT32_MAX);
  ROUND_TRIP(uint64_t, uint64, PMIX_UINT64, UINT64_MAX - 5);
  ROUND_TRIP(float, fval, PMIX_FLOAT, 1.5f);
  ROUND_TRIP(double, dval, PMIX_DOUBLE, -2.25e300);
  ROUND_TRIP(struct timeval, tv, PMIX_TIMEVAL, (timeval{12, 345678}));
  ROUND_TRIP(time_t, time, PMIX_TIME, 1700000000);
  ROUND_TRIP(pmix_status_t, status, PMIX_STATUS, PMIX_ERR_IOF_XOFF);
  ROUND_TRIP(pmix_rank_t, rank, PMIX_PROC_RANK, PMIX_RANK_WILDCARD);
  ROUND_TRIP(pmix_iof_channel_t, uint16, PMIX_IOF_CHANNEL, PMIX_FWD_STDIN_CHANNEL);
#undef ROUND_TRIP
  // Pointers are references, in and out.
  int target = 0;
  BOOST_TEST(PMIx_Info_load(&i, "k", &target, PMIX_POINTER) == PMIX_SUCCESS);
  both([&](const pmix_info_t &in) { BOOST_TEST(in.value.data.ptr == &target); });
  BOOST_TEST(PMIx_Info_load(&i, "k", "text", PMIX_STRING) == PMIX_SUCCESS);
  both([&](const pmix_info_t &in) { BOOST_TEST(std::string(in.value.data.string) == "text"); });
  pmix_proc_t p;
  PMIX_PROC_LOAD(&p, "ns", 9);
  BOOST_TEST(PMIx_Info_load(&i, "k", &p, PMIX_PROC) == PMIX_SUCCESS);
  both([&](const pmix_info_t &in) {
    BOOST_TEST(std::string(in.value.data.proc->nspace) == "ns");
    BOOST_TEST(in.value.data.proc->rank == 9u);
  });
  BOOST_TEST(PMIx_Info_load(&i, "k", nullptr, PMIX_UNDEF) == PMIX_SUCCESS);
  both([&](const pmix_info_t &in) { BOOST_TEST(PMIX_INFO_TRUE(&in)); });
}

BOOST_AUTO_TEST_CASE(bad_input_is_an_error_not_a_crash) {
  int x = 1;
  BOOST_TEST(PMIx_Info_load(nullptr, "k", &x, PMIX_INT) == PMIX_ERR_BAD_PARAM);
  pmix_info_t i;
  BOOST_TEST(PMIx_Info_load(&i, nullptr, &x, PMIX_INT) == PMIX_ERR_BAD_PARAM);
  BOOST_TEST(i.key[0] == '\0');
  BOOST_TEST(i.value.type == PMIX_UNDEF);
  // A type the shim does not know keeps its tag and no data.
  BOOST_TEST(PMIx_Info_load(&i, "k", &x, 21 /* PMIX_DATA_ARRAY in OpenPMIx */) == PMIX_ERR_NOT_SUPPORTED);
  BOOST_TEST(i.value.data.ptr == nullptr);
  BOOST_TEST(PMIx_Info_true(&i) == PMIX_NON_BOOL);
  PMIX_INFO_DESTRUCT(&i);
  pmix_byte_object_t broken{nullptr, 10};
  BOOST_TEST(PMIx_Info_load(&i, "k", &broken, PMIX_BYTE_OBJECT) == PMIX_ERR_BAD_PARAM);
  BOOST_TEST(static_cast<void *>(i.value.data.bo.bytes) == nullptr);
  PMIX_INFO_DESTRUCT(&i);
  BOOST_TEST(PMIx_Value_load(nullptr, &x, PMIX_INT) == PMIX_ERR_BAD_PARAM);
  BOOST_TEST(PMIx_Value_xfer(nullptr, nullptr) == PMIX_ERR_BAD_PARAM);
  BOOST_TEST(PMIx_Info_xfer(&i, nullptr) == PMIX_ERR_BAD_PARAM);
  BOOST_TEST(PMIx_Info_true(nullptr) == PMIX_BOOL_FALSE);
  BOOST_TEST(PMIx_Value_true(nullptr) == PMIX_BOOL_FALSE);
  PMIx_Info_destruct(nullptr);
  PMIx_Value_destruct(nullptr);
  PMIx_Byte_object_destruct(nullptr);
  PMIx_Load_procid(nullptr, "x", 0);
  PMIx_Xfer_procid(nullptr, nullptr);
  PMIx_Info_free(nullptr, 3);
  BOOST_TEST(PMIx_Info_create(0) == nullptr);
  BOOST_TEST(PMIx_Info_create(SIZE_MAX / 2) == nullptr);  // overflow, not a short block
  BOOST_TEST(PMIx_Proc_create(0) == nullptr);
  BOOST_TEST(!PMIx_Check_key(nullptr, "k"));
  pmix_proc_t q;
  PMIX_PROC_LOAD(&q, "q", 0);
  BOOST_TEST(!PMIx_Check_procid(nullptr, &q));
}

BOOST_AUTO_TEST_CASE(string_truth_follows_openpmix) {
  auto truth = [](const char *s) {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = const_cast<char *>(s);  // borrowed: not destructed
    return PMIx_Value_true(&v);
  };
  for (const char *s : {"true", "TRUE", "yes", " y", "t", "enabled", "1", "42", "", "  "})
    BOOST_TEST(truth(s) == PMIX_BOOL_TRUE, '"' << s << '"');
  for (const char *s : {"false", "No", "n", "F", "disable", "0", " 0"})
    BOOST_TEST(truth(s) == PMIX_BOOL_FALSE, '"' << s << '"');
  for (const char *s : {"maybe", "tx", "-1x"}) BOOST_TEST(truth(s) == PMIX_NON_BOOL, '"' << s << '"');
  BOOST_TEST(truth(nullptr) == PMIX_BOOL_TRUE);
  pmix_value_t v;
  int n = 1;
  PMIX_VALUE_LOAD(&v, &n, PMIX_INT);
  BOOST_TEST(PMIx_Value_true(&v) == PMIX_NON_BOOL);
  BOOST_TEST(!PMIX_CHECK_BOOL(&v));
  PMIX_VALUE_DESTRUCT(&v);
}

BOOST_AUTO_TEST_CASE(names_follow_pmix_matching_rules) {
  pmix_key_t k;
  std::string longk(700, 'k');
  PMIX_LOAD_KEY(k, longk.c_str());
  BOOST_TEST(std::strlen(k) == size_t{PMIX_MAX_KEYLEN});
  PMIX_LOAD_KEY(k, nullptr);
  BOOST_TEST(k[0] == '\0');
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, std::string(300, 'n').c_str());
  BOOST_TEST(std::strlen(ns) == size_t{PMIX_MAX_NSLEN});
  BOOST_TEST(PMIX_CHECK_NSPACE("a", "a"));
  BOOST_TEST(!PMIX_CHECK_NSPACE("a", "b"));
  BOOST_TEST(PMIX_CHECK_NSPACE("", "b"));  // unnamed matches all
  BOOST_TEST(PMIX_NSPACE_INVALID(""));
  BOOST_TEST(PMIX_CHECK_RANK(3, PMIX_RANK_WILDCARD));
  BOOST_TEST(!PMIX_CHECK_RANK(3, 4));
  BOOST_TEST(PMIx_Rank_valid(0));
  BOOST_TEST(!PMIx_Rank_valid(PMIX_RANK_WILDCARD));
  pmix_proc_t a, b;
  PMIX_LOAD_PROCID(&a, "job", 1);
  PMIX_LOAD_PROCID(&b, "job", PMIX_RANK_WILDCARD);
  BOOST_TEST(PMIX_CHECK_PROCID(&a, &b));
  PMIX_LOAD_PROCID(&b, "job", 2);
  BOOST_TEST(!PMIX_CHECK_PROCID(&a, &b));
  BOOST_TEST(!PMIX_CHECK_PROCID(&a, nullptr));
  BOOST_TEST(PMIx_Check_procid(nullptr, nullptr));
  BOOST_TEST(PMIX_PROCID_INVALID(nullptr));
  PMIX_PROC_CONSTRUCT(&a);
  BOOST_TEST(PMIX_PROCID_INVALID(&a));
  BOOST_TEST(a.rank == PMIX_RANK_UNDEF);
  PMIX_PROCID_XFER(&a, &b);
  BOOST_TEST(PMIX_CHECK_PROCID(&a, &b));
  pmix_info_t i;
  PMIX_INFO_CONSTRUCT(&i);
  BOOST_TEST(PMIX_INFO_IS_OPTIONAL(&i));
  PMIX_INFO_REQUIRED(&i);
  BOOST_TEST(PMIX_INFO_IS_REQUIRED(&i));
  BOOST_TEST(i.flags == uint32_t{PMIX_INFO_REQD});
  PMIX_INFO_OPTIONAL(&i);
  BOOST_TEST(!PMIX_INFO_IS_REQUIRED(&i));
}

BOOST_AUTO_TEST_CASE(create_and_free_release_everything) {
  pmix_info_t *infos;
  PMIX_INFO_CREATE(infos, 3);
  BOOST_REQUIRE(infos);
  for (int k = 0; k < 3; ++k) {
    BOOST_TEST(infos[k].value.type == PMIX_UNDEF);
    PMIX_INFO_LOAD(&infos[k], "s", std::to_string(k).c_str(), PMIX_STRING);
  }
  PMIX_INFO_FREE(infos, 3);  // frees the strings and the array
  BOOST_TEST(infos == nullptr);

  pmix_value_t *vals;
  PMIX_VALUE_CREATE(vals, 2);
  BOOST_REQUIRE(vals);
  PMIX_VALUE_LOAD(&vals[1], "v", PMIX_STRING);
  pmix_value_t *copy = nullptr;
  pmix_status_t rc;
  PMIX_VALUE_XFER(rc, copy, &vals[1]);  // allocates the destination
  BOOST_TEST(rc == PMIX_SUCCESS);
  BOOST_REQUIRE(copy);
  BOOST_TEST(std::string(copy->data.string) == "v");
  PMIX_VALUE_RELEASE(copy);
  BOOST_TEST(copy == nullptr);
  PMIX_VALUE_FREE(vals, 2);
  BOOST_TEST(vals == nullptr);

  pmix_byte_object_t *bos;
  PMIX_BYTE_OBJECT_CREATE(bos, 2);
  BOOST_REQUIRE(bos);
  char *d = static_cast<char *>(std::malloc(5));
  std::memcpy(d, "bytes", 5);
  size_t sz = 5;
  PMIX_BYTE_OBJECT_LOAD(&bos[0], d, sz);  // moves ownership
  BOOST_TEST(static_cast<void *>(d) == nullptr);
  BOOST_TEST(sz == 0u);
  BOOST_TEST(bos[0].size == 5u);
  PMIX_BYTE_OBJECT_FREE(bos, 2);
  BOOST_TEST(bos == nullptr);

  pmix_proc_t *procs;
  PMIX_PROC_CREATE(procs, 4);
  BOOST_REQUIRE(procs);
  BOOST_TEST(procs[3].rank == PMIX_RANK_UNDEF);
  PMIX_PROC_LOAD(&procs[2], "x", 2);
  PMIX_PROC_FREE(procs, 4);
  BOOST_TEST(procs == nullptr);
  PMIX_PROC_CREATE(procs, 1);
  PMIX_PROC_RELEASE(procs);
  BOOST_TEST(procs == nullptr);
}

BOOST_AUTO_TEST_CASE(c_program_written_for_openpmix_compiles_and_runs) {
  BOOST_TEST(pmixshim_compat_c_user() == 0, "first failed check at compat_user.c line " << pmixshim_compat_c_user());
}
