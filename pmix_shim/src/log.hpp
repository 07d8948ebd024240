// Diagnostics of the PMIx shim: one line per event on stderr,
// "[pmix_shim pid P] <call>: <level>: <reason>".  The level comes from
// $PMIX_SHIM_LOG_LEVEL (OFF, ERROR [default], WARN, INFO, DEBUG), read once.
#pragma once

namespace pmixshim {

enum class LogLevel { off = 0, error = 1, warn = 2, info = 3, debug = 4 };

[[nodiscard]] bool log_enabled(LogLevel level);
void log(LogLevel level, const char *call, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace pmixshim
