// Diagnostics: one line per event, "[dart unit R] call: reason", on stderr.
#pragma once

#include "core/config.hpp"

namespace dart {

void set_log_level(LogLevel level) noexcept;
[[nodiscard]] bool log_enabled(LogLevel level) noexcept;

// printf-style; the line is written with a single write so lines of
// concurrent threads and units do not interleave.
void log(LogLevel level, const char* call, const char* fmt, ...) noexcept __attribute__((format(printf, 3, 4)));

}  // namespace dart
