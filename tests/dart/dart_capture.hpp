// Checks of DART's error lines: a capture of file descriptor 2 around a
// single call, and CHECK_REJECTED / CHECK_FAILS / CHECK_SILENT, which check
// a call's return code and that it wrote exactly one line "[dart unit <R>]
// <call>: error: <reason>" (or nothing). Failure messages carry the case
// being checked: a suite sets dartcheck::g_context ("before dart_init", a
// loop value ...). Include this header instead of dart_checks.hpp, so that
// the context reaches the shared assertions (CTX_) too.
#pragma once

#include <string>

// Declared ahead of dart_checks.hpp, whose own helpers expand CTX_.
namespace dartcheck {
std::string ctx();
}
#ifndef CTX_
#define CTX_ dartcheck::ctx()
#endif
#include "dart_checks.hpp"

#include <dash/dart/if/dart.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace dartcheck {

// Extra words for failure messages (the bad input being checked).
inline std::string g_context;
inline std::string ctx() { return g_context.empty() ? std::string() : " [" + g_context + "]"; }

// Redirects file descriptor 2 into a temporary file for its lifetime (or
// until finish()), so everything written to stderr -- by stdio or by raw
// write(2) -- in between can be read back.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    if (!file_) return;
    saved_ = ::dup(STDERR_FILENO);
    if (saved_ < 0) return;
    if (::dup2(::fileno(file_), STDERR_FILENO) < 0) {
      ::close(saved_);
      saved_ = -1;
      return;
    }
    active_ = true;
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  ~StderrCapture() {
    (void)finish();
    if (file_) std::fclose(file_);
  }

  [[nodiscard]] bool ok() const { return active_; }

  // Restores stderr and returns what was written to it.
  std::string finish() {
    if (!active_) return text_;
    active_ = false;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    saved_ = -1;
    std::rewind(file_);
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) text_.append(buf, n);
    return text_;
  }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
  bool active_ = false;
  std::string text_;
};

struct Outcome {
  dart_ret_t rc;
  std::string log;
};

template <class Call>
Outcome capture(Call&& call) {
  StderrCapture cap;
  BOOST_REQUIRE_MESSAGE(cap.ok(), "rank " << mpitest::world_rank() << ": cannot redirect stderr");
  const dart_ret_t rc = call();
  return {rc, cap.finish()};
}

// Unit id a log line must carry: the global unit id while DART is
// initialised, otherwise the MPI rank (MPI is always up in these tests).
inline int log_unit() {
  if (!dart_initialized()) return mpitest::world_rank();
  dart_global_unit_t me;
  dart_myid(&me);
  return me.id;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// Empty if `log` is exactly one line "[dart unit <unit>] <call>: error:
// <non-empty reason>", else what is wrong.
inline std::string log_problem(const std::string& log, const char* call, int unit) {
  const std::vector<std::string> lines = lines_of(log);
  if (lines.size() != 1)
    return "expected exactly one log line, got " + std::to_string(lines.size()) + ": \"" + log + "\"";
  const std::string prefix = "[dart unit " + std::to_string(unit) + "] " + call + ": error: ";
  const std::string& line = lines.front();
  if (line.compare(0, prefix.size(), prefix) != 0)
    return "log line \"" + line + "\" does not start with \"" + prefix + "\"";
  if (line.find_first_not_of(' ', prefix.size()) == std::string::npos)
    return "log line \"" + line + "\" gives no reason";
  if (log.back() != '\n') return "log line is not terminated by a newline";
  return {};
}

// DART started with dart_init for one test case of bad input, with the
// context cleared before and after it, and the allocations the cases aim
// their bad arguments at.
struct BadInputFixture : PlainDartFixture {
  BadInputFixture() {
    g_context.clear();
    // The cases count on DART_TEAM_ALL's unit ids being the world ranks.
    dart_global_unit_t id;
    size_t size = 0;
    REQUIRE_OK(dart_myid(&id));
    REQUIRE_OK(dart_size(&size));
  }
  ~BadInputFixture() { g_context.clear(); }

  // A fresh collective allocation of `nelem` ints on DART_TEAM_ALL.
  static dart_gptr_t team_ints(size_t nelem) {
    dart_gptr_t g = DART_GPTR_NULL;
    REQUIRE_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, nelem, DART_TYPE_INT, &g));
    return g;
  }
  static dart_gptr_t local_ints(size_t nelem) {
    dart_gptr_t g = DART_GPTR_NULL;
    REQUIRE_OK(dart_memalloc(nelem, DART_TYPE_INT, &g));
    return g;
  }
  // `g` with its unit and offset overwritten: bad pointers are built this
  // way, which the interface (dart_gptr_setunit) would refuse.
  static dart_gptr_t at(dart_gptr_t g, int unit, std::uint64_t offset = 0) {
    g.unitid = unit;
    g.addr_or_offs.offset = offset;
    return g;
  }
};

}  // namespace dartcheck

// `call` (the remaining arguments) returns exactly `expected` and writes
// exactly one error line naming this unit and `fn`.
#define CHECK_REJECTED(expected, fn, ...)                                                                        \
  do {                                                                                                           \
    const int unit_ = dartcheck::log_unit();                                                                     \
    const dartcheck::Outcome o_ = dartcheck::capture([&]() -> dart_ret_t { return (__VA_ARGS__); });             \
    BOOST_CHECK_MESSAGE(o_.rc == (expected), "rank " << mpitest::world_rank() << dartcheck::ctx()                \
                                                     << ": " #__VA_ARGS__ " returned " << o_.rc << ", expected " \
                                                     << (expected));                                             \
    const std::string p_ = dartcheck::log_problem(o_.log, fn, unit_);                                            \
    BOOST_CHECK_MESSAGE(p_.empty(),                                                                              \
                        "rank " << mpitest::world_rank() << dartcheck::ctx() << ": " #__VA_ARGS__ ": " << p_);   \
  } while (0)

// As CHECK_REJECTED, but any code other than DART_OK is acceptable.
#define CHECK_FAILS(fn, ...)                                                                                   \
  do {                                                                                                         \
    const int unit_ = dartcheck::log_unit();                                                                   \
    const dartcheck::Outcome o_ = dartcheck::capture([&]() -> dart_ret_t { return (__VA_ARGS__); });           \
    BOOST_CHECK_MESSAGE(o_.rc != DART_OK, "rank " << mpitest::world_rank() << dartcheck::ctx()                 \
                                                  << ": " #__VA_ARGS__ " returned DART_OK");                   \
    const std::string p_ = dartcheck::log_problem(o_.log, fn, unit_);                                          \
    BOOST_CHECK_MESSAGE(p_.empty(),                                                                            \
                        "rank " << mpitest::world_rank() << dartcheck::ctx() << ": " #__VA_ARGS__ ": " << p_); \
  } while (0)

// `call` returns exactly `expected` and writes nothing to stderr.
#define CHECK_SILENT(expected, ...)                                                                               \
  do {                                                                                                            \
    const dartcheck::Outcome o_ = dartcheck::capture([&]() -> dart_ret_t { return (__VA_ARGS__); });              \
    BOOST_CHECK_MESSAGE(o_.rc == (expected), "rank " << mpitest::world_rank() << dartcheck::ctx()                 \
                                                     << ": " #__VA_ARGS__ " returned " << o_.rc << ", expected "  \
                                                     << (expected));                                              \
    BOOST_CHECK_MESSAGE(o_.log.empty(), "rank " << mpitest::world_rank() << dartcheck::ctx() << ": " #__VA_ARGS__ \
                                                << " should be silent but wrote \"" << o_.log << "\"");           \
  } while (0)
