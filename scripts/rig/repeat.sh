#!/usr/bin/env bash
# Runs a program across the rig RUNS times in a row and counts how each run
# ended: the check that a job finishes every time (MPICH's finalize hang
# across hosts shows in a share of runs only; docs/mpi-workarounds.md, "Working around the
# MPI").
#
#   repeat.sh <openmpi|mpich> <runs> <exe> [args...]
#
# Environment as run-multihost.sh (RIG_NAME, RIG_HOSTS, RIG_PPN,
# RIG_TIMEOUT, default 60 s per run). Exit 0 only if every run exited 0.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($# >= 3)) || { sed -n '2,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2; }
mpi=$1 runs=$2; shift 2
export RIG_TIMEOUT=${RIG_TIMEOUT:-60}
declare -A count=()
fail=0
start=$SECONDS
for ((i = 1; i <= runs; ++i)); do
  rc=0
  "$HERE/run-multihost.sh" "$mpi" "$@" >/dev/null 2>&1 || rc=$?
  count[$rc]=$((${count[$rc]:-0} + 1))
  ((rc == 0)) || { fail=1; echo "run $i: exit $rc$( ((rc == 124)) && echo " (timed out after ${RIG_TIMEOUT}s)")"; }
done
summary=""
for rc in "${!count[@]}"; do summary+=" exit $rc: ${count[$rc]};"; done
echo "repeat: $(basename "$1") under $mpi, $runs runs in $((SECONDS - start)) s:${summary%;}"
exit $fail
