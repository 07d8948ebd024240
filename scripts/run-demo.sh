#!/usr/bin/env bash
# The README's run command: installs what is missing, builds against Open
# MPI and runs the examples heat2d and gups on 4 processes with mpirun.
# heat2d leaves its picture in heat2d.png at the top of the tree.
# Usage: scripts/run-demo.sh
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" openmpi
flags=(--oversubscribe --bind-to none)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
bin="$top/build-openmpi/mpi_examples"
echo "=== mpirun -np 4 heat2d --size 256 --steps 5000 --verify ==="
mpirun.openmpi "${flags[@]}" -np 4 "$bin/heat2d" --size 256 --steps 5000 --verify --out "$top/heat2d.png"
echo
echo "=== mpirun -np 4 gups --log2-size 18 --updates 200000 ==="
mpirun.openmpi "${flags[@]}" -np 4 "$bin/gups" --log2-size 18 --updates 200000
echo
echo "The picture of the plate is $top/heat2d.png"
