#include "core/config.hpp"

#include "ucx_close.hpp"

#include "core/log.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

namespace dart {

namespace {

std::string upper(const char* s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "64", "64K", "16M", "2G" -> bytes. False on anything else or zero.
bool parse_bytes(const char* text, std::size_t* out) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || v == 0) return false;
  unsigned shift = 0;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case '\0': break;
    case 'K':
      shift = 10;
      ++end;
      break;
    case 'M':
      shift = 20;
      ++end;
      break;
    case 'G':
      shift = 30;
      ++end;
      break;
    default: return false;
  }
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0') return false;
  if (shift && v > (~0ULL >> shift)) return false;
  *out = static_cast<std::size_t>(v << shift);
  return true;
}

// A size in bytes between `min` and `max`; unset leaves `field` as it is,
// anything else is logged with what was expected and ignored.
void read_bytes(const char* name, std::size_t* field, std::size_t min = 1, std::size_t max = SIZE_MAX,
                const char* expected = "a positive size such as 64M") {
  const char* v = std::getenv(name);
  if (!v) return;
  std::size_t bytes = 0;
  if (parse_bytes(v, &bytes) && bytes >= min && bytes <= max) *field = bytes;
  else log(LogLevel::Warn, "dart_init", "ignoring %s=\"%s\": expected %s", name, v, expected);
}

// Seconds as a decimal number, above 0 (or from 0 when `zero_allowed`)
// and at most 1e9; unset and empty leave `field` as it is.
void read_seconds(const char* name, double* field, bool zero_allowed, const char* expected) {
  const char* v = std::getenv(name);
  if (!v || !*v) return;
  errno = 0;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  const bool in_range = zero_allowed ? s >= 0 : s > 0;  // false for NaN too
  if (errno != 0 || end == v || *end != '\0' || !in_range || s > 1e9)
    log(LogLevel::Warn, "dart_init", "ignoring %s=\"%s\": expected %s", name, v, expected);
  else *field = s;
}

// A text variable; unset and empty both leave `field` as it is.
void read_text(const char* name, std::string* field) {
  const char* v = std::getenv(name);
  if (v && *v) *field = v;
}

// A variable that names one of `choices` (any case; `prefix`, if given,
// may come first, as in DART_LOGLEVEL_INFO). Unset or empty leaves *out as
// it is; anything else is logged at `level` with what was expected.
template <class T>
void read_choice(const char* name, std::initializer_list<std::pair<const char*, T>> choices, const char* expected,
                 T* out, LogLevel level = LogLevel::Warn, const char* prefix = nullptr) {
  const char* v = std::getenv(name);
  if (!v || !*v) return;
  std::string s = upper(v);
  if (prefix && s.rfind(prefix, 0) == 0) s = s.substr(std::strlen(prefix));
  for (const auto& [text, value] : choices) {
    if (s == text) {
      *out = value;
      return;
    }
  }
  log(level, "dart_init", "ignoring %s=\"%s\": expected %s", name, v, expected);
}

// A boolean variable: 1/ON/YES/TRUE or 0/OFF/NO/FALSE, any case.
void read_flag(const char* name, bool* out) {
  read_choice<bool>(name,
                    {{"0", false}, {"OFF", false}, {"NO", false}, {"FALSE", false},
                     {"1", true}, {"ON", true}, {"YES", true}, {"TRUE", true}},
                    "0 or 1", out);
}

}  // namespace

bool read_mpi_defaults_flag() noexcept { return mpifix::defaults_enabled(); }

Config read_config() {
  Config cfg;
  read_choice<LogLevel>("DART_LOG_LEVEL",
                        {{"OFF", LogLevel::Off},
                         {"NONE", LogLevel::Off},
                         {"ERROR", LogLevel::Error},
                         {"WARN", LogLevel::Warn},
                         {"WARNING", LogLevel::Warn},
                         {"INFO", LogLevel::Info},
                         {"DEBUG", LogLevel::Debug},
                         {"TRACE", LogLevel::Trace}},
                        "OFF, ERROR, WARN, INFO, DEBUG or TRACE", &cfg.log_level, LogLevel::Warn, "DART_LOGLEVEL_");
  set_log_level(cfg.log_level);
  read_bytes("DART_LOCAL_POOL_SIZE", &cfg.local_pool_bytes);
  read_bytes("DART_HEAP_CHUNK_SIZE", &cfg.heap_chunk_bytes);
  read_bytes("DART_RMA_PIECE_SIZE", &cfg.rma_piece_bytes, std::size_t(1) << 10, std::size_t(1) << 30, "1K to 1G");
  read_flag("DART_SHARED_MEMORY", &cfg.shared_memory);
  read_flag("DART_STATS", &cfg.print_stats);
  read_flag("DART_COLLECTIVE_CHECKS", &cfg.collective_checks);
  read_flag("DART_COLLECTIVE_SINGLE_COPY", &cfg.collective_single_copy);
  read_seconds("DART_COLLECTIVE_TIMEOUT", &cfg.collective_timeout_s, true, "seconds (0 = never)");
  read_seconds("DART_EXIT_TIMEOUT", &cfg.exit_timeout_s, false, "seconds > 0");
  read_choice<bool>("DART_COLLECTIVE_TIMEOUT_ACTION", {{"ABORT", true}, {"WARN", false}}, "warn or abort",
                    &cfg.collective_timeout_abort);
  read_choice<Config::Hierarchy>("DART_COLLECTIVE_HIERARCHY",
                                 {{"AUTO", Config::Hierarchy::Auto},
                                  {"ON", Config::Hierarchy::On},
                                  {"1", Config::Hierarchy::On},
                                  {"OFF", Config::Hierarchy::Off},
                                  {"0", Config::Hierarchy::Off}},
                                 "auto, on or off", &cfg.collective_hierarchy);
  if (const char* v = std::getenv("DASH_MAX_SHMEM_MBPS")) {
    errno = 0;
    char* end = nullptr;
    const long mbps = std::strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || mbps > INT_MAX)
      log(LogLevel::Warn, "dart_init", "ignoring DASH_MAX_SHMEM_MBPS=\"%s\": expected an integer", v);
    else if (mbps > 0) cfg.max_shmem_mbps = static_cast<int>(mbps);
  }
  if (const char* v = std::getenv("DART_JOB_KEY"); v && *v) {
    errno = 0;
    char* end = nullptr;
    const unsigned long long key = std::strtoull(v, &end, 16);
    if (errno != 0 || std::strlen(v) != 16 || *end != '\0' || key == 0)
      log(LogLevel::Warn, "dart_init", "ignoring DART_JOB_KEY=\"%s\": expected 16 hex digits, not all 0", v);
    else cfg.job_key = key;
  }
  read_text("DART_EXIT_REPORT_DIR", &cfg.exit_report_dir);
  read_text("DART_JOB_CHANNEL", &cfg.job_channel);
  if (const char* v = std::getenv("DART_PROGRESS_INTERVAL_US")) {
    errno = 0;
    char* end = nullptr;
    const unsigned long us = std::strtoul(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || us > 1000000)
      log(LogLevel::Warn, "dart_init", "ignoring DART_PROGRESS_INTERVAL_US=\"%s\": expected 0 ... 1000000", v);
    else cfg.progress_interval_us = static_cast<unsigned>(us);
  }
  // An error, not a warning: with the default log level the user learns
  // that the stdin path did not do what was asked.
  read_choice<Config::StdinMode>(
      "DART_STDIN",
      {{"AUTO", Config::StdinMode::Auto}, {"ON", Config::StdinMode::On}, {"OFF", Config::StdinMode::Off}},
      "auto, on or off", &cfg.stdin_mode, LogLevel::Error);
  read_text("DART_STDIN_TARGET", &cfg.stdin_target);
  cfg.stdin_target = lower(cfg.stdin_target);  // "ALL" and "all" alike
  read_text("DART_STDIN_SERVER", &cfg.stdin_server);
  read_text("DART_STDIN_RENDEZVOUS", &cfg.stdin_rendezvous);
  read_text("DART_STDIN_SECRET", &cfg.stdin_secret);
  read_text("DART_STDIN_HOST", &cfg.stdin_host);
  read_bytes("DART_STDIN_HIGH_WATER", &cfg.stdin_high_water);
  read_bytes("DART_STDIN_LOW_WATER", &cfg.stdin_low_water);
  return cfg;
}

}  // namespace dart
