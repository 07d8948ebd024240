#include "info.hpp"

#include "dart_shmem_build.h"

#include <shmem.h>

#include <mpi.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace dshmem::info {

namespace {

static_assert(kDefaultHeapBytes == std::size_t(256) << 20, "kDefaultHeapText must say the new default");

// DART_RMA_PIECE_SIZE's default under this build's MPI (core/config.hpp).
#if defined(MPICH_VERSION)
constexpr const char* kRmaPieceDefaultText = "64K";
#else
constexpr const char* kRmaPieceDefaultText = "1G";
#endif

// Every variable the runtime reads, in the order of the manual
// (docs/openshmem/profiling-and-tools.md and docs/environment.md): the OpenSHMEM
// layer's, then DART's. The defaults are those of dart/shmem/src and
// dart/src/core/config.hpp.
const Variable kVariables[] = {
    {"SHMEM_SYMMETRIC_SIZE", kDefaultHeapText,
     "bytes of each PE's symmetric heap: a number, with an optional fraction and K, M, G or T suffix", false},
    {"SHMEM_SHARE_GLOBALS", "1", "0 keeps global and static variables private: node mates reach them through MPI",
     false},
    {"SHMEM_VERSION", "0", "1: PE 0 prints the library and specification versions in shmem_init", false},
    {"SHMEM_INFO", "0", "1: PE 0 prints this report in shmem_init", false},
    {"SHMEM_DEBUG", "0", "1: every PE prints its start-up decisions (heap, shared memory, teams) to stderr", false},
    {"DART_LOG_LEVEL", "ERROR", "OFF, ERROR, WARN, INFO, DEBUG or TRACE: what the runtime logs", false},
    {"DART_SHARED_MEMORY", "1", "0: every PE is a node of its own, all remote access through MPI RMA", false},
    {"DART_LOCAL_POOL_SIZE", "16M", "bytes per unit of the pool dart_memalloc serves from", false},
    {"DART_HEAP_CHUNK_SIZE", "16M", "bytes per unit of each chunk of a team's symmetric heap", false},
    {"DART_RMA_PIECE_SIZE", kRmaPieceDefaultText,
     "the most bytes one MPI RMA call of a put or get moves; larger ones go in pieces", false},
    {"DART_PROGRESS_INTERVAL_US", "100", "microseconds between the progress thread's MPI polls; 0 never starts it",
     false},
    {"DART_STATS", "0", "1: every unit prints its path counters in dart_exit", false},
    {"DART_COLLECTIVE_CHECKS", "1", "0: collectives skip the agreement on their arguments", false},
    {"DART_COLLECTIVE_TIMEOUT", "300", "seconds a unit waits in a collective on one node before it logs", false},
    {"DART_COLLECTIVE_TIMEOUT_ACTION", "warn", "warn or abort after DART_COLLECTIVE_TIMEOUT", false},
    {"DART_COLLECTIVE_HIERARCHY", "auto", "auto, on or off: collectives across nodes through the node leaders", false},
    {"DART_COLLECTIVE_SINGLE_COPY", "1", "0: large collectives on one node always copy through shared slots", false},
    {"DART_EXIT_TIMEOUT", "10", "seconds dart_exit waits for every unit once the world team is broken", false},
    {"DART_MPI_DEFAULTS", "1", "0: leave the MPI's settings and workarounds as they are", false},
    {"DASH_MAX_SHMEM_MBPS", "1235", "the shared-memory bandwidth hint of dart_hwinfo_t", false},
    {"DART_STDIN", "auto", "auto, on or off: forward the job's stdin", false},
    {"DART_STDIN_TARGET", "0", "the units that read stdin: 0, k, 1,3,5-7, all or none", false},
    {"DART_STDIN_HIGH_WATER", "512K", "bytes per target unit at which the stdin producer is stopped", false},
    {"DART_STDIN_LOW_WATER", "128K", "bytes per target unit at which the stdin producer resumes", false},
    {"DART_JOB_KEY", "(random)", "16 hex digits naming the job's shared-memory objects (set by dartrun)", false},
    {"DART_JOB_CHANNEL", "(unset)", "dartrun's TCP listener (set by dartrun)", false},
    {"DART_EXIT_REPORT_DIR", "(unset)", "where units write exit codes under MPICH's hydra (set by dartrun)", false},
    {"DART_STDIN_SERVER", "(unset)", "dartrun's stdin socket (set by dartrun)", false},
    {"DART_STDIN_RENDEZVOUS", "(unset)", "dartrun's stdin address across hosts (set by dartrun)", false},
    {"DART_STDIN_SECRET", "(unset)", "the job's secret (set by dartrun; never printed)", true},
    {"DART_STDIN_HOST", "(unset)", "dartrun's boot id and host name (set by dartrun)", false},
};

std::string value_of(const Variable& v) {
  const char* s = std::getenv(v.name);
  if (!s) return "(unset)";
  if (v.secret) return "(set, not shown)";
  return s;
}

// The MPI library's own description: its first line, or all of it.
std::string mpi_library(bool all) {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len > 0 ? len : 0));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  for (char& c : s)
    if (c == '\t') c = ' ';  // MPICH separates its keys from their values by tabs
  if (!all) s = s.substr(0, s.find('\n'));
  return s;
}

std::string mpi_standard() {
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

struct Line {
  const char* key;    // parsable key
  const char* label;  // aligned label
  std::string value;
};

}  // namespace

const char* const kSizeForms =
    "bytes, with an optional fraction and K, M, G or T suffix (powers of 1024, either case), such as 1048576, 512M "
    "or 1.5G";
const char* const kFlagForms = "1, on, yes, true or 0, off, no, false";

std::string version_line() {
  return std::string(SHMEM_VENDOR_STRING) + " " + DART_SHMEM_LIBRARY_VERSION + " (OpenSHMEM " +
         std::to_string(SHMEM_MAJOR_VERSION) + "." + std::to_string(SHMEM_MINOR_VERSION) + ")";
}

std::string report(bool all, bool parsable) {
  const Line lines[] = {
      {"library:version", "Library version", DART_SHMEM_LIBRARY_VERSION},
      {"spec:version", "OpenSHMEM specification",
       std::to_string(SHMEM_MAJOR_VERSION) + "." + std::to_string(SHMEM_MINOR_VERSION)},
      {"vendor", "Vendor string", SHMEM_VENDOR_STRING},
      {"mpi:library", "MPI library", mpi_library(false)},
      {"mpi:standard", "MPI standard", mpi_standard()},
      {"build:mpi", "Built for MPI", DART_SHMEM_BUILD_MPI},
      {"build:c_compiler", "C compiler", DART_SHMEM_BUILD_C_COMPILER},
      {"build:cxx_compiler", "C++ compiler", DART_SHMEM_BUILD_CXX_COMPILER},
      {"build:type", "Build type", DART_SHMEM_BUILD_TYPE},
      {"build:sanitizer", "Sanitizer", DART_SHMEM_BUILD_SANITIZER},
      {"build:shared_memory", "Shared memory", "on by default (DART_SHARED_MEMORY=0 turns it off)"},
      {"build:symmetric_heap", "Symmetric heap",
       std::string(kDefaultHeapText) + " per PE by default (SHMEM_SYMMETRIC_SIZE)"},
      {"build:profiling", "Profiling interface", "pshmem.h, a pshmem_ entry point for every routine"},
  };
  std::string out;
  char buf[512];
  if (parsable) {
    for (const Line& l : lines) out += std::string(l.key) + ":" + l.value + "\n";
    for (const Variable& v : kVariables) {
      out += std::string("env:") + v.name + ":value:" + value_of(v) + "\n";
      out += std::string("env:") + v.name + ":default:" + v.default_text + "\n";
      if (all) out += std::string("env:") + v.name + ":meaning:" + v.meaning + "\n";
    }
    return out;
  }
  out += version_line() + "\n";
  for (const Line& l : lines) {
    std::snprintf(buf, sizeof buf, "  %-24s %s\n", (std::string(l.label) + ":").c_str(), l.value.c_str());
    out += buf;
  }
  if (all) {
    out += "  MPI library, in full:\n";
    std::string m = mpi_library(true);
    for (std::size_t at = 0; at < m.size();) {
      const std::size_t nl = m.find('\n', at);
      out += "    " + m.substr(at, nl == std::string::npos ? std::string::npos : nl - at) + "\n";
      at = nl == std::string::npos ? m.size() : nl + 1;
    }
  }
  out += "Environment variables (value in this process; default):\n";
  for (const Variable& v : kVariables) {
    std::snprintf(buf, sizeof buf, "  %-30s = %-18s default %s\n", v.name, value_of(v).c_str(), v.default_text);
    out += buf;
    if (all) out += std::string("      ") + v.meaning + "\n";
  }
  return out;
}

bool parse_size(const char* text, std::size_t* out) {
  // Digits, at most one point, digits: no sign, exponent, hex or spaces,
  // which strtod alone would take.
  const char* p = text;
  std::size_t digits = 0;
  bool point = false;
  for (; *p; ++p) {
    if (std::isdigit(static_cast<unsigned char>(*p))) ++digits;
    else if (*p == '.' && !point) point = true;
    else break;
  }
  if (digits == 0) return false;
  errno = 0;
  const double v = std::strtod(std::string(text, static_cast<std::size_t>(p - text)).c_str(), nullptr);
  // K, M, G, T: 2^10, 2^20, 2^30, 2^40.
  static constexpr char kSuffixes[] = "KMGT";
  double scale = 1;
  if (const char* at = *p ? std::strchr(kSuffixes, std::toupper(static_cast<unsigned char>(*p))) : nullptr) {
    scale = std::ldexp(1.0, 10 * static_cast<int>(at - kSuffixes + 1));
    ++p;
  }
  if (scale > 1 && (*p == 'B' || *p == 'b')) ++p;
  const double bytes = std::floor(v * scale);
  if (errno || *p || !(bytes >= 1) || bytes > std::ldexp(1.0, 50)) return false;
  *out = static_cast<std::size_t>(bytes);
  return true;
}

std::optional<bool> parse_flag(const char* text) {
  if (!text || !*text) return false;
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* t : {"1", "ON", "YES", "TRUE"})
    if (s == t) return true;
  for (const char* f : {"0", "OFF", "NO", "FALSE"})
    if (s == f) return false;
  return std::nullopt;
}

}  // namespace dshmem::info
