// Covers coexistence with the real PMIx library in one process: the program
// links Open MPI's libpmix and the shim, calls MPI_Init (under Open MPI this
// initialises the real PMIx client, with its own progress thread and
// libevent base), uses real PMIx calls, and runs a shim server and tool that
// move 1 MiB exactly.  The dynamic linker must bind PMIx_server_init to
// libpmix and our calls to libpmix_shim.  Does not cover MPI itself.
#define BOOST_TEST_MODULE pmix_shim_coexist
#include <mpi.h>

#include "shim_test_util.hpp"

extern "C" int coexist_real_probe(char *version, size_t vlen, char *lib, size_t llen);
extern "C" const char *coexist_real_error_string(int st);

using namespace shimtest;

BOOST_AUTO_TEST_CASE(real_pmix_and_shim_in_one_process) {
  int argc = 0;
  char **argv = nullptr;
  BOOST_REQUIRE_EQUAL(MPI_Init(&argc, &argv), MPI_SUCCESS);
  char version[256], lib[512];
  int initialized = coexist_real_probe(version, sizeof version, lib, sizeof lib);
  BOOST_TEST_MESSAGE("real PMIx: " << version << ", PMIx_server_init from " << lib
                                   << ", initialised by MPI: " << initialized);
  BOOST_TEST(std::string(version).find("OpenPMIx") != std::string::npos);
  BOOST_TEST(std::string(lib).find("libpmix.so") != std::string::npos);
  BOOST_TEST(std::string(lib).find("pmix_shim") == std::string::npos);
  BOOST_TEST(std::string(coexist_real_error_string(-31)) != "");
  BOOST_TEST(std::string(PMIx_Get_version()).find("shim") != std::string::npos);

  Host h;
  start_server(h);
  auto [uri, secret] = contact();
  pmix_info_t info[3];
  PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_SHIM_SECRET, secret.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[2], PMIX_TOOL_NSPACE, "coexist", PMIX_STRING);
  pmix_status_t rc = PMIx_tool_init(nullptr, info, 3);
  for (pmix_info_t &i : info) PMIX_INFO_DESTRUCT(&i);
  BOOST_REQUIRE_EQUAL(rc, PMIX_SUCCESS);
  auto data = make_pattern(1u << 20, 9);
  pmix_byte_object_t bo{reinterpret_cast<char *>(data.data()), data.size()};
  BOOST_TEST(PMIx_IOF_push(nullptr, 0, &bo, nullptr, 0, nullptr, nullptr) == PMIX_OPERATION_SUCCEEDED);
  BOOST_TEST(PMIx_IOF_push(nullptr, 0, nullptr, nullptr, 0, nullptr, nullptr) == PMIX_OPERATION_SUCCEEDED);
  BOOST_REQUIRE(wait_until([&] { return h.ended("coexist:0") == 1; }));
  BOOST_TEST(h.get("coexist:0") == data);
  BOOST_TEST(flow(nullptr, 0, true) == PMIX_OPERATION_SUCCEEDED);
  BOOST_TEST(flow(nullptr, 0, false) == PMIX_OPERATION_SUCCEEDED);
  BOOST_TEST(PMIx_tool_finalize() == PMIX_SUCCESS);
  BOOST_TEST(PMIx_server_finalize() == PMIX_SUCCESS);
  // The real library is still there and answering after ours stopped.
  BOOST_TEST(coexist_real_probe(version, sizeof version, lib, sizeof lib) == initialized);
  BOOST_REQUIRE_EQUAL(MPI_Finalize(), MPI_SUCCESS);
}
