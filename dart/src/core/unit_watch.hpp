// Each unit's watcher. dart_memalloc keeps its extents in
// /dev/shm/dart-<key>-<unit>-<n> (memory/local_extents.cpp); a unit killed
// before dart_exit leaves them there, and dartrun can only clean its own
// host. And hydra, across hosts, loses how a remote unit ended (it ends the
// job with 255 once a remote proxy reports a killed unit). So under dartrun
// (DART_JOB_CHANNEL set) every unit forks, in dart_init, a small process
// that outlives it: it holds a pidfd of the unit and, once the unit has
// ended, however (SIGKILL included), reads its wait status while it is a
// zombie, removes the unit's objects on its host and, when either is worth
// saying, tells dartrun over the job channel and waits for its "ok".
//
// The watcher keeps the unit's stdout and stderr open until then: hydra's
// proxy reaps a unit only once both are closed, so the zombie is still
// there to be read, and every launcher counts the unit as running, so the
// report is in before the launcher (and dartrun) can finish.
#pragma once

#include "core/config.hpp"

namespace dart {

// Not collective. Does nothing without DART_JOB_CHANNEL or a job key.
void start_unit_watch(const Config& cfg, int myid);

}  // namespace dart
