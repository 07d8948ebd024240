// The job's stdin path (docs/stdin.md "stdin path and dartrun", issue 8).
//
// Unit 0, the unit every launcher hands its stdin to, hosts a PMIx shim
// server. The server reads the launcher's stdin (plain mpirun/mpiexec) or
// accepts dartrun, which pushes the user's stdin over a private socket; the
// host feeds the bytes to the target units' fd 0, which dart_init replaces
// by a pipe the host writes. Bytes for units other than 0 travel over a
// private communicator. Configuration: DART_STDIN, DART_STDIN_TARGET,
// DART_STDIN_SERVER, DART_STDIN_RENDEZVOUS, DART_STDIN_SECRET,
// DART_STDIN_HIGH_WATER, DART_STDIN_LOW_WATER, read into Config by
// read_config (core/config.hpp; docs/stdin.md, "stdin path and dartrun").
#pragma once

namespace dart {

// Called by every unit at the end of a successful dart_init (collective over
// DART_TEAM_ALL). Decides on unit 0 whether the path is active and where
// stdin goes, agrees on it with a broadcast, and sets the path up. Problems
// are logged and leave the application's stdin as it was; never throws.
void stdin_host_start() noexcept;

// Called by every unit at the start of dart_exit, before the runtime is torn
// down. Unread input is discarded, the server is finalized, the helper
// threads are joined and every unit's original fd 0 is restored (unless the
// application replaced it meanwhile). Waits for the units that receive
// stdin to reach dart_exit too. Never throws.
void stdin_host_stop() noexcept;

}  // namespace dart
