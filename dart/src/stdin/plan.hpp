// What unit 0 decides about the job's stdin, from its configuration
// (DART_STDIN*, read by read_config in core/config.cpp), the state of its
// fd 0 and MPI's thread level. Only unit 0 decides and broadcasts the plan:
// the units' environments may differ, and every unit must set up the same
// path.
#pragma once

#include "core/config.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dart::stdin_path {

// Broadcast as bytes: plain data, the same layout on every unit.
struct Plan {
  std::int32_t active = 0;                         // the path is set up at all
  std::int32_t serve = 0;                          // unit 0 runs a server (some unit is a target)
  std::uint64_t high = Config{}.stdin_high_water;  // bytes per target
  std::uint64_t low = Config{}.stdin_low_water;
};

// DART_STDIN_TARGET: "0", "k", a list "1,3,5-7", "all" or "none" (lower
// case). Fills one flag per unit of `n`; false on a malformed spec or a
// unit out of range.
bool parse_targets(const std::string& spec, int n, std::vector<unsigned char>* flags);

// Unit 0, after MPI_Init: fills `plan` and, when it is active, `targets`
// (one flag per unit of `nunits`). Problems are logged and fall back to
// the defaults (stdin to unit 0).
void decide(const Config& cfg, int nunits, Plan* plan, std::vector<unsigned char>* targets);

}  // namespace dart::stdin_path
