// Covers the C API: the seed's token arrays ("" terminated), every call's
// happy path, tickets, notifications through a C callback, freeing of
// results, and rejection (never a crash) of NULL registries, segments,
// token lists and entries, empty lists, NULL objects with a size, and
// objects above 2 GiB. The semantics behind the calls are covered by the
// C++ suites.
#include <registry/registry.h>

#include "mpi_test.hpp"

#include <string>
#include <vector>

namespace {

int rank() { return mpitest::world_rank(); }

struct Seen {
  std::vector<std::string> lines;
};

void on_notify(const registry_notification_t* n, void* user) {
  auto* seen = static_cast<Seen*>(user);
  std::string line = std::to_string(n->action) + " " + n->segment;
  for (const char* const* t = n->tokens; **t != '\0'; ++t) line += std::string(" ") + *t;
  line +=
      " =" + std::string(reinterpret_cast<const char*>(n->object), n->object_size) + " @" + std::to_string(n->issuer);
  seen->lines.push_back(line);
}

}  // namespace

BOOST_AUTO_TEST_CASE(c_api_round_trip) {
  registry_t reg = nullptr;
  BOOST_REQUIRE(registry_create(MPI_COMM_WORLD, &reg) == REGISTRY_SUCCESS);

  char** names = nullptr;
  BOOST_REQUIRE(registry_index(reg, nullptr, &names) == REGISTRY_SUCCESS);
  BOOST_TEST(std::string(names[0]) == "universe");
  BOOST_TEST(std::string(names[1]) == "world.0");
  BOOST_TEST(std::string(names[2]).empty());
  registry_tokens_free(names);

  const int owner = 0;
  registry_ticket_t def = nullptr;
  if (rank() == 0) BOOST_TEST(registry_define_segment(reg, "c", &owner, 1, &def) == REGISTRY_SUCCESS);
  Seen seen;
  const char* watch[] = {"host", ""};
  BOOST_TEST(registry_subscribe(reg, REGISTRY_AND, REGISTRY_NOTIFY_MODIFICATION, "c", watch, on_notify, &seen,
                                nullptr) == REGISTRY_SUCCESS);
  BOOST_TEST(registry_sync(reg) == REGISTRY_SUCCESS);
  if (rank() == 0) {
    BOOST_TEST(registry_ticket_status(def) == REGISTRY_SUCCESS);
    registry_ticket_free(def);
  }
  // Rank 0's define is applied before every rank's subscribe (rank order),
  // so all the subscriptions hold.

  const std::string me = std::to_string(rank());
  const char* toks[] = {"host", me.c_str(), ""};
  registry_ticket_t put = nullptr;
  BOOST_TEST(registry_put(reg, 0, "c", toks, "hello", 5, &put) == REGISTRY_SUCCESS);
  BOOST_TEST(registry_ticket_status(put) == REGISTRY_PENDING);
  BOOST_TEST(registry_sync(reg) == REGISTRY_SUCCESS);
  BOOST_TEST(registry_ticket_status(put) == (rank() == 0 ? REGISTRY_SUCCESS : REGISTRY_ERR_DENIED));
  registry_ticket_free(put);
  BOOST_TEST(seen.lines.size() == 1u);
  if (!seen.lines.empty()) BOOST_TEST(seen.lines[0] == "1 c 0 host =hello @0");

  registry_value_t* values = nullptr;
  const char* q[] = {"host", ""};
  BOOST_REQUIRE(registry_get(reg, REGISTRY_OR, "c", q, &values) == REGISTRY_SUCCESS);
  BOOST_REQUIRE(values != nullptr);
  BOOST_TEST(std::string(values->segment) == "c");
  BOOST_TEST(std::string(values->tokens[0]) == "0");
  BOOST_TEST(std::string(values->tokens[1]) == "host");
  BOOST_TEST(std::string(values->tokens[2]).empty());
  BOOST_TEST(std::string(reinterpret_cast<char*>(values->object), values->object_size) == "hello");
  BOOST_TEST(values->next == nullptr);
  registry_values_free(values);

  const char* none[] = {"absent", ""};
  BOOST_TEST(registry_get(reg, REGISTRY_AND, "c", none, &values) == REGISTRY_SUCCESS);
  BOOST_TEST(values == nullptr);

  char** toklist = nullptr;
  BOOST_REQUIRE(registry_index(reg, "c", &toklist) == REGISTRY_SUCCESS);
  BOOST_TEST(std::string(toklist[0]) == "0");
  BOOST_TEST(std::string(toklist[1]) == "host");
  registry_tokens_free(toklist);

  registry_ticket_t del = nullptr;
  BOOST_TEST(registry_unsubscribe(reg, REGISTRY_AND, "c", watch, nullptr) == REGISTRY_SUCCESS);
  if (rank() == 0) BOOST_TEST(registry_delete(reg, REGISTRY_XAND, "c", toks, &del) == REGISTRY_SUCCESS);
  BOOST_TEST(registry_sync(reg) == REGISTRY_SUCCESS);
  if (rank() == 0) {
    BOOST_TEST(registry_ticket_status(del) == REGISTRY_SUCCESS);
    registry_ticket_free(del);
  }
  BOOST_TEST(registry_get(reg, REGISTRY_OR, "c", q, &values) == REGISTRY_SUCCESS);
  BOOST_TEST(values == nullptr);
  BOOST_TEST(registry_destroy(&reg) == REGISTRY_SUCCESS);
  BOOST_TEST(reg == nullptr);
  BOOST_TEST(registry_destroy(&reg) == REGISTRY_SUCCESS);
  BOOST_TEST(registry_destroy(nullptr) == REGISTRY_SUCCESS);
}

BOOST_AUTO_TEST_CASE(c_api_rejects_bad_input) {
  registry_t reg = nullptr;
  BOOST_REQUIRE(registry_create(MPI_COMM_WORLD, &reg) == REGISTRY_SUCCESS);
  BOOST_TEST(registry_create(MPI_COMM_WORLD, nullptr) == REGISTRY_ERR_INVALID);
  const char* ok[] = {"a", ""};
  const char* empty[] = {""};
  const char* null_entry[] = {"a", nullptr};
  const char one = 'x';
  registry_ticket_t t = nullptr;

  BOOST_TEST(registry_sync(nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_put(nullptr, 0, "universe", ok, "x", 1, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_put(reg, 0, nullptr, ok, "x", 1, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_put(reg, 0, "universe", nullptr, "x", 1, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_put(reg, 0, "universe", empty, "x", 1, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_put(reg, 0, "universe", null_entry, "x", 1, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_put(reg, 0, "universe", ok, nullptr, 4, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_put(reg, 0, "universe", ok, &one, size_t{1} << 31, &t) == REGISTRY_ERR_TOO_LARGE);
  BOOST_TEST(t == nullptr);
  BOOST_TEST(registry_put(reg, 0, "", ok, "x", 1, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_delete(reg, 0, "universe", empty, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_delete(reg, 0, nullptr, ok, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_delete(reg, REGISTRY_AND | REGISTRY_OR, "universe", ok, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_subscribe(reg, 0, REGISTRY_NOTIFY_ALL, "universe", ok, nullptr, nullptr, nullptr) ==
             REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_subscribe(reg, 0, REGISTRY_NOTIFY_ALL, "universe", null_entry, on_notify, nullptr, nullptr) ==
             REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_unsubscribe(reg, 0, "universe", nullptr, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_define_segment(reg, nullptr, nullptr, 0, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_define_segment(reg, "x", nullptr, 2, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_define_segment(reg, "x", nullptr, -1, nullptr) == REGISTRY_ERR_INVALID);
  registry_value_t* values = nullptr;
  BOOST_TEST(registry_get(reg, 0, "universe", null_entry, &values) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_get(reg, 0, "universe", ok, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_get(reg, 0, "nope", ok, &values) == REGISTRY_ERR_NOT_FOUND);
  BOOST_TEST(values == nullptr);
  char** toks = nullptr;
  BOOST_TEST(registry_index(reg, "nope", &toks) == REGISTRY_ERR_NOT_FOUND);
  BOOST_TEST(registry_index(reg, nullptr, nullptr) == REGISTRY_ERR_INVALID);
  BOOST_TEST(registry_ticket_status(nullptr) == REGISTRY_ERR_INVALID);
  registry_ticket_free(nullptr);
  registry_values_free(nullptr);
  registry_tokens_free(nullptr);
  BOOST_TEST(std::string(registry_strerror(REGISTRY_ERR_DENIED)).find("denied") != std::string::npos);
  BOOST_TEST(std::string(registry_strerror(12345)) == "unknown error code");

  // Nothing was recorded by any of it: the sync applies nothing.
  char** before = nullptr;
  BOOST_REQUIRE(registry_index(reg, "universe", &before) == REGISTRY_SUCCESS);
  BOOST_TEST(std::string(before[0]).empty());
  registry_tokens_free(before);
  BOOST_TEST(registry_sync(reg) == REGISTRY_SUCCESS);
  BOOST_REQUIRE(registry_index(reg, nullptr, &before) == REGISTRY_SUCCESS);
  BOOST_TEST(std::string(before[2]).empty());  // still only universe, world.0
  registry_tokens_free(before);
  BOOST_TEST(registry_destroy(&reg) == REGISTRY_SUCCESS);
}
