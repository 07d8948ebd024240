// Each host's clean-up watcher. dart_memalloc keeps its extents in
// /dev/shm/dart-<key>-<unit>-<n> (memory/local_extents.cpp); a unit killed
// before dart_exit leaves them there, and dartrun can only clean its own
// host. So under dartrun (DART_JOB_CHANNEL set) the first unit of every
// host starts a small process at dart_init that outlives the units: it
// holds a pidfd of each unit of its host, and once all of them are gone,
// however they ended (SIGKILL included), removes the job's objects on that
// host and tells dartrun over the job channel how many; dartrun waits
// (bounded) for every host that registered.
#pragma once

#include "core/config.hpp"

#include <mpi.h>

namespace dart {

// Collective over `world`. Does nothing without DART_JOB_CHANNEL or a job key.
void start_host_watch(const Config& cfg, MPI_Comm world);

}  // namespace dart
