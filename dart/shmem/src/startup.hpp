// shmem_init's environment (SHMEM_SYMMETRIC_SIZE, SHMEM_VERSION,
// SHMEM_INFO, SHMEM_DEBUG) and the reports those ask for.
#pragma once

#include "info.hpp"

#include <cstddef>

namespace dshmem::startup {

struct Settings {
  std::size_t heap_bytes = info::kDefaultHeapBytes;  // SHMEM_SYMMETRIC_SIZE
  bool version = false;                              // SHMEM_VERSION
  bool info = false;                                 // SHMEM_INFO
  bool debug = false;                                // SHMEM_DEBUG
};

// Reads the variables once DART runs (st.me and st.npes are set).
// Collective over the world team: false on every PE when any PE's
// environment holds a value a variable does not accept; that PE logs one
// line naming the variable, the value and the accepted forms, the others
// one line saying a PE's environment was refused.
bool read_settings(Settings* out);

// Prints what the settings ask for, once per process, when shmem_init has
// set everything up: SHMEM_VERSION's line and SHMEM_INFO's report on PE 0
// (stdout), SHMEM_DEBUG's lines on every PE (stderr, "shmem: PE n: debug:").
void report(const Settings& s);

}  // namespace dshmem::startup
