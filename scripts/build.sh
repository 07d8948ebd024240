#!/usr/bin/env bash
# Configures and builds the project against one MPI.
# Usage: scripts/build.sh <openmpi|mpich> [extra cmake args...]
# Builds into build-<mpi>/ at the top of the source tree.
set -euo pipefail
mpi="${1:-openmpi}"; shift || true
top="$(cd "$(dirname "$0")/.." && pwd)"
build="$top/build-$mpi"
# shellcheck disable=SC2207
gen=($("$top/scripts/generator.sh" "$build"))
cmake -S "$top" -B "$build" "${gen[@]}" -DDART_MPI="$mpi" -DDART_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
