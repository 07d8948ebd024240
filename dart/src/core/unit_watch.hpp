// Each unit's watcher. dart_memalloc keeps its extents in
// /dev/shm/dart-<key>-<unit>-<n> (memory/local_extents.cpp); a unit killed
// before dart_exit leaves them there, and dartrun can only clean its own
// host. And hydra, across hosts, loses how a remote unit ended (it ends the
// job with 255 once a remote proxy reports a killed unit). So under dartrun
// (DART_JOB_CHANNEL set) every unit forks, in dart_init, a small process
// that outlives it: it holds a pidfd of the unit and, once the unit has
// ended, however (SIGKILL included), reads its wait status (from /proc
// while it is a zombie, from pidfs once it is reaped), removes the unit's
// objects on its host and, when either is worth saying, tells dartrun over
// the job channel and waits for its "ok".
//
// The watcher keeps the unit's stdout and stderr open until then: every
// launcher counts the unit as running while they are open, so the report
// is in before the launcher (and dartrun) can finish. (hydra's proxy still
// reaps a unit it was told to kill at once: on kernels before 6.15, which
// have no pidfs exit status, such a unit's status may then be lost.)
#pragma once

#include "core/config.hpp"

namespace dart {

// Not collective. Does nothing without DART_JOB_CHANNEL or a job key.
void start_unit_watch(const Config& cfg, int myid);

}  // namespace dart
