#!/usr/bin/env bash
# The README's run command: installs what is missing, builds against Open
# MPI and runs the demo on 4 processes with mpirun.
# Usage: scripts/run-demo.sh
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" openmpi
flags=(--oversubscribe --bind-to none)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
echo "=== mpirun -np 4 ring_put ==="
mpirun.openmpi "${flags[@]}" -np 4 "$top/build-openmpi/mpi_examples/ring_put"
