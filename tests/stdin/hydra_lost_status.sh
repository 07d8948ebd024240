#!/bin/bash
# A launcher for dartrun: MPICH's real mpiexec ($REAL_MPIEXEC), except that
# its "Exit codes:" line shows what hydra shows when it sees a unit's PMI
# connection close before it reaps the unit: the status of every unit that
# exited non-zero becomes 1 (which reads as SIGHUP). hydra does that by
# timing, rarely; here it happens every time, so the test of dartrun's own
# exit reports (run_exit.sh with DARTRUN_LAUNCHER=this) is deterministic.
set -u
if [ "${1:-}" = "--version" ]; then exec "$REAL_MPIEXEC" --version; fi
set -o pipefail
"$REAL_MPIEXEC" "$@" | perl -pe 'BEGIN { $| = 1 }
  s/(?<=[ ,])(\d+)(?=[,\s]|$)/($1 > 0 && $1 % 256 == 0) ? 1 : $1/ge if /^\[mpiexec@[^]]*\] Exit codes:/'
