#!/usr/bin/env bash
# Runs the benchmarks of tests/perf at the rank counts of record under both
# MPIs (building first if needed) and writes the tables to
# benchmark-report.txt at the top of the tree.
# Usage: scripts/run-benchmarks.sh
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
report="$top/benchmark-report.txt"
: > "$report"
for mpi in openmpi mpich; do
  if [ ! -x "$top/build-$mpi/tests/perf/bench_team_alloc" ] || [ ! -x "$top/build-$mpi/tests/perf/bench_rma" ]; then
    "$top/scripts/build.sh" "$mpi"
  fi
  if [ "$mpi" = openmpi ]; then
    launch=(mpiexec.openmpi --oversubscribe --bind-to none)
    [ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
  else
    launch=(mpiexec.mpich)
  fi
  # One-sided access from rank 0 to rank 1: on-node (load/store) under both
  # MPIs, and under Open MPI also through MPI RMA (every unit its own node).
  # It runs first: it takes seconds, while a slow run below may hit its
  # timeout and end the script.
  timeout 600 "${launch[@]}" -np 2 "$top/build-$mpi/tests/perf/bench_rma" | tee -a "$report"
  echo | tee -a "$report"
  if [ "$mpi" = openmpi ]; then
    timeout 600 "${launch[@]}" -x DART_SHARED_MEMORY=0 -np 2 "$top/build-$mpi/tests/perf/bench_rma" | tee -a "$report"
    echo | tee -a "$report"
  fi
  for np in 2 4; do
    timeout 600 "${launch[@]}" -np "$np" "$top/build-$mpi/tests/perf/bench_team_alloc" | tee -a "$report"
    echo | tee -a "$report"
  done
done
echo "report written to $report"
