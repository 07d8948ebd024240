#include "core/log.hpp"

#include "core/error.hpp"
#include "core/runtime.hpp"

#include <dash/dart/if/dart_config.h>

#include <unistd.h>
#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace dart {

namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Error)};
const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::Error: return "error";
    case LogLevel::Warn: return "warning";
    case LogLevel::Info: return "info";
    case LogLevel::Debug: return "debug";
    case LogLevel::Trace: return "trace";
    case LogLevel::Off: break;
  }
  return "";
}
}  // namespace

void set_log_level(LogLevel level) noexcept { g_level.store(static_cast<int>(level)); }

bool log_enabled(LogLevel level) noexcept {
  dart_config_t* cfg = nullptr;
  dart_config(&cfg);
  return cfg->log_enabled && static_cast<int>(level) <= g_level.load(std::memory_order_relaxed);
}

void log(LogLevel level, const char* call, const char* fmt, ...) noexcept {
  if (!log_enabled(level)) return;
  char line[1024];
  int n = std::snprintf(line, sizeof line, "[dart unit %d] %s: %s: ", log_rank(), call, level_name(level));
  if (n < 0) return;
  va_list ap;
  va_start(ap, fmt);
  int m = std::vsnprintf(line + n, sizeof line - static_cast<std::size_t>(n), fmt, ap);
  va_end(ap);
  if (m < 0) return;
  std::size_t len = static_cast<std::size_t>(n) + static_cast<std::size_t>(m);
  if (len > sizeof line - 2) len = sizeof line - 2;
  line[len++] = '\n';
  ssize_t rc = ::write(STDERR_FILENO, line, len);
  (void)rc;
}

void log_call_error(const char* call, const char* reason) noexcept { log(LogLevel::Error, call, "%s", reason); }

void mpi_check(int rc, const char* mpi_call) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  fail(DART_ERR_OTHER, std::string(mpi_call) + " failed: " + std::string(msg, static_cast<std::size_t>(len)));
}

}  // namespace dart
