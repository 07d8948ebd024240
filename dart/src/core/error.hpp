// Errors inside the runtime, and the wrapper every C entry point uses.
//
// Internal C++ code reports a failure by throwing dart::Error with the
// dart_ret_t the caller must see and a reason. The exported C functions are
// thin: they run their body through entry(), which turns the exception into
// the return code and exactly one log line naming the rank, the call and the
// reason. Nothing ever propagates out of the C interface.
#pragma once

#include "core/activity.hpp"

#include <dash/dart/if/dart_types.h>

#include <mpi.h>

#include <new>
#include <stdexcept>
#include <string>

namespace dart {

class Error : public std::runtime_error {
 public:
  Error(dart_ret_t code, const std::string& reason) : std::runtime_error(reason), code_(code) {}
  [[nodiscard]] dart_ret_t code() const noexcept { return code_; }

 private:
  dart_ret_t code_;
};

[[noreturn]] inline void fail(dart_ret_t code, const std::string& reason) { throw Error(code, reason); }
[[noreturn]] inline void invalid(const std::string& reason) { throw Error(DART_ERR_INVAL, reason); }

// Throws DART_ERR_INVAL when a required pointer argument is NULL.
inline void require(const void* p, const char* what) {
  if (!p) invalid(std::string(what) + " is NULL");
}

// Throws DART_ERR_OTHER naming the MPI call when an MPI call failed. The
// runtime's communicators and windows use MPI_ERRORS_RETURN, so a failing
// MPI call surfaces here instead of aborting the job behind the caller's back.
void mpi_check(int rc, const char* mpi_call);

// Logs "[dart unit R] call: reason" at error level.
void log_call_error(const char* call, const char* reason) noexcept;

template <class Body>
dart_ret_t entry(const char* call, Body&& body) noexcept {
  try {
    body();
    return DART_OK;
  } catch (const Error& e) {
    log_call_error(call, e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    log_call_error(call, "out of memory");
    return DART_ERR_NOMEM;
  } catch (const std::exception& e) {
    log_call_error(call, e.what());
    return DART_ERR_OTHER;
  } catch (...) {
    log_call_error(call, "unknown internal error");
    return DART_ERR_OTHER;
  }
}

}  // namespace dart
