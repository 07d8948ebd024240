#!/bin/bash
# dartrun's exit status for one outcome, the same under both launchers:
#   run_exit.sh DARTRUN UNIT_EXIT NP EXPECTED [unit_exit args...]
# Runs dartrun -n NP unit_exit ARGS with stdin /dev/null (as a batch job
# does) and requires exit status EXPECTED within 20 s: a unit that exits or
# dies while the others wait in a barrier must end the whole job promptly.
# With DART_JOB_KEY in the environment it also requires that no object of
# the job is left in /dev/shm afterwards.
set -u
DARTRUN=$1 PROG=$2 NP=$3 EXPECT=$4
shift 4
ulimit -c 0  # the signal cases must not leave core files behind
out=$(mktemp "${TMPDIR:-/tmp}/run-exit-XXXXXX")
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
timeout --kill-after=5 20 "$DARTRUN" -n "$NP" "$PROG" "$@" < /dev/null > "$out" 2>&1
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
echo "run_exit: dartrun -n $NP unit_exit $*: exit $rc after $secs s (expected $EXPECT)"
grep -v "^$" "$out" | head -20
if [ "$rc" = 124 ] || [ "$rc" = 137 -a "$EXPECT" != 137 ]; then echo "run_exit: FAILED (the job did not end)"; exit 1; fi
if [ "$rc" != "$EXPECT" ]; then echo "run_exit: FAILED"; exit 1; fi
# With DART_JOB_KEY set, the job's objects in /dev/shm must be gone.
if [ -n "${DART_JOB_KEY:-}" ]; then
  left=$(ls /dev/shm | grep -c "^dart-$DART_JOB_KEY-")
  if [ "$left" != 0 ]; then echo "run_exit: FAILED ($left objects of the job left in /dev/shm)"; exit 1; fi
fi
echo "run_exit: PASS"
