// What the three files of the one-sided suite (test_onesided.cpp,
// test_onesided_types.cpp, test_onesided_memory.cpp; one executable:
// dart_onesided) share: the fixtures, gptr helpers, a bounded poll, an
// owner of derived types, and the completion of a batch of handles by each
// of the completion calls (with the flush the local-only forms need).
#pragma once

#include "dart_checks.hpp"
#include "dart_patterns.hpp"

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace onesidedtest {

using dartcheck::at;

// ---- fixture -------------------------------------------------------------------

using DartFixture = dartcheck::PlainDartFixture;
using DartThreadFixture = dartcheck::DartFixture;

// ---- patterns and checks (dart_patterns.hpp) --------------------------------------

using dartpattern::pattern;
using dartpattern::sentinel;
using dartpattern::show;
using dartpattern::verify;

// ---- gptr helpers ------------------------------------------------------------------

inline std::vector<dart_gptr_t> allgather(const dart_gptr_t& g) {
  std::vector<dart_gptr_t> all(static_cast<std::size_t>(mpitest::world_size()));
  MPI_Allgather(&g, sizeof g, MPI_BYTE, all.data(), sizeof g, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

using dartpattern::own;

template <class T>
dart_gptr_t team_alloc(std::size_t nelem, dart_datatype_t dt) {
  dart_gptr_t g = DART_GPTR_NULL;
  REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, nelem, dt, &g));
  return g;
}

// Repeats `step` until it returns true; false if that took longer than
// `seconds` (a completion that never comes fails instead of hanging).
template <class Step>
bool poll_until(Step&& step, double seconds = 20.0) {
  const double deadline = MPI_Wtime() + seconds;
  while (!step()) {
    if (MPI_Wtime() > deadline) return false;
  }
  return true;
}

inline bool all_null(const std::vector<dart_handle_t>& hs) {
  return std::all_of(hs.begin(), hs.end(), [](dart_handle_t h) { return h == DART_HANDLE_NULL; });
}

// Owns a derived type; destroys it (and checks the reset) at scope exit.
class Type {
 public:
  Type() = default;
  explicit Type(dart_datatype_t t) : t_(t) {}
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;
  ~Type() {
    if (t_ == DART_TYPE_UNDEFINED) return;
    CHECK_OK(dart_type_destroy(&t_));
    CHECK_EQ(t_, DART_TYPE_UNDEFINED);
  }
  static Type strided(dart_datatype_t base, std::size_t stride, std::size_t blocklen) {
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    REQUIRE_OK(dart_type_create_strided(base, stride, blocklen, &t));
    REQUIRE_RANK(t != DART_TYPE_UNDEFINED);
    REQUIRE_RANK(t >= DART_TYPE_LAST);
    return Type(t);
  }
  static Type indexed(dart_datatype_t base, const std::vector<std::size_t>& blocklen,
                      const std::vector<std::size_t>& offset) {
    // The arrays are copied by the call: pass temporaries that die at once.
    std::vector<std::size_t> bl(blocklen), off(offset);
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    REQUIRE_OK(dart_type_create_indexed(base, bl.size(), bl.data(), off.data(), &t));
    std::fill(bl.begin(), bl.end(), 9999);
    std::fill(off.begin(), off.end(), 9999);
    REQUIRE_RANK(t >= DART_TYPE_LAST);
    return Type(t);
  }
  static Type custom(std::size_t bytes) {
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    REQUIRE_OK(dart_type_create_custom(bytes, &t));
    REQUIRE_RANK(t >= DART_TYPE_LAST);
    return Type(t);
  }
  Type(Type&& o) noexcept : t_(o.t_) { o.t_ = DART_TYPE_UNDEFINED; }
  operator dart_datatype_t() const { return t_; }  // NOLINT: used as a type argument

 private:
  dart_datatype_t t_ = DART_TYPE_UNDEFINED;
};

// How a batch of handle-based operations is completed.
enum class Completion {
  Wait,
  Waitall,
  WaitLocal,
  WaitallLocal,
  Test,
  TestLocal,
  Testall,
  TestallLocal,
  HandleFree,
};
inline const Completion kCompletions[] = {Completion::Wait,         Completion::Waitall,      Completion::WaitLocal,
                                          Completion::WaitallLocal, Completion::Test,         Completion::TestLocal,
                                          Completion::Testall,      Completion::TestallLocal, Completion::HandleFree};
inline const char* name(Completion c) {
  switch (c) {
    case Completion::Wait: return "dart_wait";
    case Completion::Waitall: return "dart_waitall";
    case Completion::WaitLocal: return "dart_wait_local";
    case Completion::WaitallLocal: return "dart_waitall_local";
    case Completion::Test: return "dart_test";
    case Completion::TestLocal: return "dart_test_local";
    case Completion::Testall: return "dart_testall";
    case Completion::TestallLocal: return "dart_testall_local";
    case Completion::HandleFree: return "dart_handle_free";
  }
  return "?";
}
// True if the completion call alone makes a put visible at the target.
inline bool completes_remotely(Completion c) {
  return c == Completion::Wait || c == Completion::Waitall || c == Completion::Test || c == Completion::Testall;
}

// Completes `hs` with `how`; then every entry must be DART_HANDLE_NULL.
// `seg` names the segment for the flush that the local-only forms and
// dart_handle_free need (remote = true: a put, completed by dart_flush_all).
inline void complete(std::vector<dart_handle_t>& hs, Completion how, const dart_gptr_t& seg, bool remote, int me,
                     const std::string& what) {
  const std::string ctx = what + " completed by " + name(how);
  switch (how) {
    case Completion::Wait:
    case Completion::WaitLocal:
      for (dart_handle_t& h : hs) CHECK_OK(how == Completion::Wait ? dart_wait(&h) : dart_wait_local(&h));
      break;
    case Completion::Waitall: CHECK_OK(dart_waitall(hs.data(), hs.size())); break;
    case Completion::WaitallLocal: CHECK_OK(dart_waitall_local(hs.data(), hs.size())); break;
    case Completion::Test:
    case Completion::TestLocal:
      for (dart_handle_t& h : hs) {
        const dart_handle_t before = h;
        const bool done = poll_until([&] {
          int32_t flag = -1;
          const dart_ret_t rc = how == Completion::Test ? dart_test(&h, &flag) : dart_test_local(&h, &flag);
          if (rc != DART_OK) {
            BOOST_ERROR("rank " << me << ": " << ctx << ": test returned " << rc);
            return true;
          }
          BOOST_CHECK_MESSAGE(flag == 0 || flag == 1, "rank " << me << ": " << ctx << ": result " << flag);
          if (flag == 0)
            BOOST_CHECK_MESSAGE(h == before, "rank " << me << ": " << ctx << ": unfinished handle was changed");
          return flag == 1;
        });
        BOOST_CHECK_MESSAGE(done, "rank " << me << ": " << ctx << ": operation not complete after 20 s");
      }
      break;
    case Completion::Testall:
    case Completion::TestallLocal: {
      const std::vector<dart_handle_t> before = hs;
      const bool done = poll_until([&] {
        int32_t flag = -1;
        const dart_ret_t rc = how == Completion::Testall ? dart_testall(hs.data(), hs.size(), &flag)
                                                         : dart_testall_local(hs.data(), hs.size(), &flag);
        if (rc != DART_OK) {
          BOOST_ERROR("rank " << me << ": " << ctx << ": testall returned " << rc);
          return true;
        }
        BOOST_CHECK_MESSAGE(flag == 0 || flag == 1, "rank " << me << ": " << ctx << ": result " << flag);
        if (flag == 0)
          BOOST_CHECK_MESSAGE(hs == before, "rank " << me << ": " << ctx << ": handles released although not all done");
        return flag == 1;
      });
      BOOST_CHECK_MESSAGE(done, "rank " << me << ": " << ctx << ": operations not complete after 20 s");
      break;
    }
    case Completion::HandleFree:
      for (dart_handle_t& h : hs) CHECK_OK(dart_handle_free(&h));
      break;
  }
  BOOST_CHECK_MESSAGE(all_null(hs), "rank " << me << ": " << ctx << ": handles not DART_HANDLE_NULL afterwards");
  if (how == Completion::HandleFree) {
    // The operations still proceed; a flush on the segment completes them.
    CHECK_OK(remote ? dart_flush_all(seg) : dart_flush_local_all(seg));
  } else if (remote && !completes_remotely(how)) {
    CHECK_OK(dart_flush_all(seg));
  }
}

}  // namespace onesidedtest
