// The job's names and what dartrun removes after it: the per-job secret,
// the key of its shared-memory objects (DART_JOB_KEY), its private
// directory, and the objects a killed job left in this host's /dev/shm.
// Other hosts are cleaned by the watcher libdart starts for every unit
// (dart/src/core/unit_watch.hpp), which reports over the job channel.
#pragma once

#include <string>

namespace dartrun {

// 48 hex digits from getrandom.
std::string random_secret();

// DART_JOB_KEY from the environment when it is 16 hex digits, not all 0;
// else a fresh random one.
std::string job_key();

// Removes /dev/shm/dart-<key>-* on this host; returns how many.
int remove_job_objects(const std::string &key);

// A fresh 0700 directory under $TMPDIR (or /tmp); empty on failure (said).
std::string private_dir();

// What tells this host from another for a Unix socket: the kernel's boot
// id and the host name (DART_STDIN_HOST; see dart/src/stdin/host.cpp).
std::string host_identity();

}  // namespace dartrun
