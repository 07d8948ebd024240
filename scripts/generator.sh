#!/usr/bin/env bash
# Prints the CMake generator arguments for a build directory: "-G Ninja"
# when Ninja is installed (install-deps.sh installs it) and the directory
# is new or already Ninja's, nothing otherwise (CMake's default, make).
# Ninja schedules the whole tree as one graph, where make builds one
# target's directory after another.
# Usage: gen=($(scripts/generator.sh <build-dir>))
build="$1"
if command -v ninja >/dev/null 2>&1 &&
   { [ ! -f "$build/CMakeCache.txt" ] || grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$build/CMakeCache.txt"; }; then
  echo "-G Ninja"
fi
