// What the library is and how it is configured: the report of oshmem_info
// (dartshmem_info) and of SHMEM_INFO, and the parsing of the OpenSHMEM
// layer's environment variables. Needs no running runtime, only MPI's
// library queries (which MPI allows before MPI_Init), so that the
// information tool compiles this file into itself without libdartshmem.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace dshmem::info {

// One environment variable the runtime reads: the OpenSHMEM layer's
// (SHMEM_*) and DART's underneath (DART_*, DASH_MAX_SHMEM_MBPS). The table
// (kVariables in info.cpp) is what the report lists; test
// info_lists_every_variable checks it against every variable name the
// sources read, both ways.
struct Variable {
  const char* name;
  const char* default_text;  // as the report prints it
  const char* meaning;       // one sentence (--all)
  bool secret;               // its value is not printed (a job's secret)
};

// "DART OpenSHMEM 0.1.0 (OpenSHMEM 1.5)": SHMEM_VERSION's line.
[[nodiscard]] std::string version_line();

// The report: versions, the MPI, build options, and every variable with
// its value in this process's environment and its default. `all` adds each
// variable's meaning and the MPI's full description; `parsable` prints
// "section:key:value" lines instead of the aligned text.
[[nodiscard]] std::string report(bool all, bool parsable);

// SHMEM_SYMMETRIC_SIZE's default, and as the report and the manual print it.
constexpr std::size_t kDefaultHeapBytes = std::size_t(256) << 20;
constexpr const char* kDefaultHeapText = "256M";

// SHMEM_SYMMETRIC_SIZE's forms: bytes, optionally with a fraction and one
// of the suffixes K, M, G, T (powers of 1024, either case), optionally
// followed by B: "1048576", "512M", "1.5G", "2gb". False for anything else,
// zero, or more than 2^50 bytes. A fraction is rounded down to whole bytes.
bool parse_size(const char* text, std::size_t* out);
// The text that says what parse_size accepts, for error messages.
extern const char* const kSizeForms;

// A flag variable's value (SHMEM_VERSION, SHMEM_INFO, SHMEM_DEBUG): unset
// (nullptr) or empty is false; 1/ON/YES/TRUE or 0/OFF/NO/FALSE (any
// case); std::nullopt for anything else.
[[nodiscard]] std::optional<bool> parse_flag(const char* text);
extern const char* const kFlagForms;

}  // namespace dshmem::info
