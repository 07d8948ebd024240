#!/usr/bin/env bash
# Runs the tests that move more than 2 GiB per transfer (about 8 GiB of
# memory each, one at a time) under both MPIs. Not part of the default
# suite because of their memory and time.
# Usage: scripts/run-large-tests.sh
set -uo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
status=0
for mpi in openmpi mpich; do
  "$top/scripts/build.sh" "$mpi" -DDART_LARGE_TESTS=ON || { status=1; continue; }
  ctest --test-dir "$top/build-$mpi" -L large --output-on-failure || status=1
done
exit $status
