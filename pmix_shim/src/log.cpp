#include "log.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmixshim {

namespace {

LogLevel parse_level() {
  const char *v = std::getenv("PMIX_SHIM_LOG_LEVEL");
  if (!v) return LogLevel::error;
  struct {
    const char *name;
    LogLevel level;
  } const names[] = {{"OFF", LogLevel::off},
                     {"ERROR", LogLevel::error},
                     {"WARN", LogLevel::warn},
                     {"INFO", LogLevel::info},
                     {"DEBUG", LogLevel::debug}};
  for (const auto &n : names)
    if (strcasecmp(v, n.name) == 0) return n.level;
  return LogLevel::error;
}

const char *level_name(LogLevel l) {
  switch (l) {
    case LogLevel::error: return "error";
    case LogLevel::warn: return "warning";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
    case LogLevel::off: break;
  }
  return "";
}

}  // namespace

bool log_enabled(LogLevel level) {
  // A function-local static: initialised once, thread-safely (C++11).
  static const LogLevel configured = parse_level();
  return level != LogLevel::off && static_cast<int>(level) <= static_cast<int>(configured);
}

void log(LogLevel level, const char *call, const char *fmt, ...) {
  if (!log_enabled(level)) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char line[700];
  int n = std::snprintf(line, sizeof line, "[pmix_shim pid %ld] %s: %s: %s\n", static_cast<long>(getpid()), call,
                        level_name(level), msg);
  if (n < 0) return;
  if (n > static_cast<int>(sizeof line) - 1) n = static_cast<int>(sizeof line) - 1;
  // One write(2) per line, so lines of concurrent threads never interleave.
  ssize_t rc = ::write(2, line, static_cast<size_t>(n));
  (void)rc;
}

}  // namespace pmixshim
