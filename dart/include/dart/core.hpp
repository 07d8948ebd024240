// The C++ layer over DART: errors as exceptions, the mapping from C++ types
// to DART types, and RAII owners of the runtime and of teams.
//
// The layer is header-only and uses nothing but the public DART interface,
// as a container library written outside the runtime would. Namespace
// dartpp keeps it apart from the runtime's own code.
#pragma once

#include <dash/dart/if/dart.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dartpp {

// A DART call failed. code() is the dart_ret_t it returned; the runtime's
// own log line (DART_LOG_LEVEL) gives the reason in detail.
class Error : public std::runtime_error {
 public:
  Error(dart_ret_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  [[nodiscard]] dart_ret_t code() const noexcept { return code_; }

 private:
  dart_ret_t code_;
};

inline const char* code_name(dart_ret_t rc) noexcept {
  switch (rc) {
    case DART_OK: return "DART_OK";
    case DART_PENDING: return "DART_PENDING";
    case DART_ERR_INVAL: return "DART_ERR_INVAL";
    case DART_ERR_NOTFOUND: return "DART_ERR_NOTFOUND";
    case DART_ERR_NOTINIT: return "DART_ERR_NOTINIT";
    case DART_ERR_NOMEM: return "DART_ERR_NOMEM";
    case DART_ERR_OTHER: return "DART_ERR_OTHER";
    default: return "unknown DART error";
  }
}

// Throws Error unless rc is DART_OK; `call` names the DART function.
inline void check(dart_ret_t rc, const char* call) {
  if (rc != DART_OK) throw Error(rc, std::string(call) + " failed with " + code_name(rc));
}

// The DART basic type of T, or DART_TYPE_UNDEFINED when T has none (such
// values travel as bytes and support no atomics).
template <class T>
constexpr dart_datatype_t dart_type_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, char> || std::is_same_v<U, signed char> || std::is_same_v<U, unsigned char>)
    return DART_TYPE_BYTE;
  else if constexpr (std::is_same_v<U, short>) return DART_TYPE_SHORT;
  else if constexpr (std::is_same_v<U, int>) return DART_TYPE_INT;
  else if constexpr (std::is_same_v<U, unsigned int>) return DART_TYPE_UINT;
  else if constexpr (std::is_same_v<U, long>) return DART_TYPE_LONG;
  else if constexpr (std::is_same_v<U, unsigned long>) return DART_TYPE_ULONG;
  else if constexpr (std::is_same_v<U, long long>) return DART_TYPE_LONGLONG;
  else if constexpr (std::is_same_v<U, unsigned long long>) return DART_TYPE_ULONGLONG;
  else if constexpr (std::is_same_v<U, float>) return DART_TYPE_FLOAT;
  else if constexpr (std::is_same_v<U, double>) return DART_TYPE_DOUBLE;
  else if constexpr (std::is_same_v<U, long double>) return DART_TYPE_LONG_DOUBLE;
  else return DART_TYPE_UNDEFINED;
}

template <class T>
constexpr bool has_dart_type = dart_type_of<T>() != DART_TYPE_UNDEFINED;

namespace detail {

// Element count and type for moving n values of T: the basic type when T
// has one, bytes otherwise.
template <class T>
struct Wire {
  static_assert(std::is_trivially_copyable_v<T>, "global memory holds trivially copyable types only");
  static constexpr dart_datatype_t type = has_dart_type<T> ? dart_type_of<T>() : DART_TYPE_BYTE;
  static constexpr std::size_t count(std::size_t n) noexcept { return has_dart_type<T> ? n : n * sizeof(T); }
};

}  // namespace detail

// Owns the runtime: dart_init in the constructor, dart_exit in the
// destructor. Create one at the top of main, before any other object of
// this layer, so it is destroyed last.
class Runtime {
 public:
  Runtime() : Runtime(nullptr, nullptr) {}
  Runtime(int* argc, char*** argv) { check(dart_init(argc, argv), "dart_init"); }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  ~Runtime() { dart_exit(); }

  [[nodiscard]] static int myid() {
    dart_global_unit_t id;
    check(dart_myid(&id), "dart_myid");
    return id.id;
  }
  [[nodiscard]] static std::size_t size() {
    size_t n = 0;
    check(dart_size(&n), "dart_size");
    return n;
  }
};

// A team of units. Team::all() names DART_TEAM_ALL; Team::create makes a
// new team that this object owns and destroys (collectively) when it goes.
// On units outside a created team the object is empty (valid() == false).
class Team {
 public:
  [[nodiscard]] static Team all() noexcept { return Team(DART_TEAM_ALL, false); }

  // Collective over every member of `parent`: the units with the given
  // global ids (in any order) form the new team.
  [[nodiscard]] static Team create(const Team& parent, const std::vector<int>& global_units) {
    dart_group_t group = DART_GROUP_NULL;
    check(dart_group_create(&group), "dart_group_create");
    dart_team_t id = DART_TEAM_NULL;
    dart_ret_t rc = DART_OK;
    for (int u : global_units)
      if (rc == DART_OK) rc = dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u));
    // Take part in the collective even after a local failure, so the
    // other units are not left waiting; the group is then empty-handed.
    const dart_ret_t create_rc = dart_team_create(parent.id(), rc == DART_OK ? group : DART_GROUP_NULL, &id);
    dart_group_destroy(&group);
    check(rc, "dart_group_addmember");
    check(create_rc, "dart_team_create");
    return Team(id, true);
  }

  Team(Team&& o) noexcept : id_(std::exchange(o.id_, DART_TEAM_NULL)), owned_(o.owned_) {}
  Team& operator=(Team&& o) noexcept {
    if (this != &o) {
      release();
      id_ = std::exchange(o.id_, DART_TEAM_NULL);
      owned_ = o.owned_;
    }
    return *this;
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team() { release(); }

  [[nodiscard]] dart_team_t id() const noexcept { return id_; }
  [[nodiscard]] bool valid() const noexcept { return id_ != DART_TEAM_NULL; }
  [[nodiscard]] int myid() const {
    dart_team_unit_t u;
    check(dart_team_myid(id_, &u), "dart_team_myid");
    return u.id;
  }
  [[nodiscard]] std::size_t size() const {
    size_t n = 0;
    check(dart_team_size(id_, &n), "dart_team_size");
    return n;
  }
  // Global id of team unit `unit`.
  [[nodiscard]] int global_id(int unit) const {
    dart_global_unit_t g;
    check(dart_team_unit_l2g(id_, DART_TEAM_UNIT_ID(unit), &g), "dart_team_unit_l2g");
    return g.id;
  }
  void barrier() const { check(dart_barrier(id_), "dart_barrier"); }

 private:
  Team(dart_team_t id, bool owned) noexcept : id_(id), owned_(owned) {}
  void release() noexcept {
    if (owned_ && id_ != DART_TEAM_NULL) dart_team_destroy(&id_);
    id_ = DART_TEAM_NULL;
  }
  dart_team_t id_ = DART_TEAM_NULL;
  bool owned_ = false;
};

}  // namespace dartpp
