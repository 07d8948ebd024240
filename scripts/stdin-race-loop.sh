#!/bin/bash
# Stress loop for the job's stdin path (issue 14): the routing cases of
# tests/stdin, run through tests/stdin/run_case.sh over and over while busy
# loops keep the cores overloaded. Races between unit 0's threads (shim
# progress thread, main thread, writer, courier) and the units' receivers
# need a thread to lose its core at the wrong moment: issue 14 hung 3 of 55
# runs at a load average of 13, yet 1000 runs at a similar load elsewhere
# never hung, so one ctest pass proves nothing. Not part of the default
# test run.
#
#   scripts/stdin-race-loop.sh BUILD-DIR [RUNS] [BUSY-LOOPS]
#     BUILD-DIR   a build with the targets stdin_gen, stdin_reader, dartrun
#     RUNS        runs in all, the cases taken in turn (default 100)
#     BUSY-LOOPS  shell loops spinning beside the runs (default two per core)
#   Environment:
#     STDIN_RACE_CASES    the cases to cycle through, by name (default: all
#                         of: all2 unit1 set all3 all4 xoff_xon)
#     STDIN_RACE_SIZE     bytes per run (default 1048576)
#     STDIN_RACE_TIMEOUT  seconds a run may take before it counts as hung
#                         (default 60)
#
# A run that does not end in time is a hang: before it is killed, every
# process of the run gets `gdb -batch -ex 'thread apply all bt'`, so the
# threads' waits are on record. The loop stops at the first failure or hang
# and keeps that run's output, the backtraces and a process listing in a
# directory it names; it exits 1 then, 0 when every run passed. The busy
# loops end with the script (trap), however it ends.
set -u

usage() {
  sed -n '/^#   scripts\/stdin-race-loop.sh/,/^#$/s/^# \{0,1\}//p' "$0"
  exit 2
}
if [ $# -lt 1 ] || [ $# -gt 3 ]; then usage; fi
case ${1} in -h|--help) usage ;; esac
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "stdin-race-loop: no build directory $1"; exit 2; }
RUNS=${2:-100}
CORES=$(nproc)
BUSY=${3:-$((2 * CORES))}
SIZE=${STDIN_RACE_SIZE:-1048576}
TIMEOUT=${STDIN_RACE_TIMEOUT:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
RUN_CASE=$HERE/../tests/stdin/run_case.sh
GEN=$BUILD/tests/stdin/stdin_gen
READER=$BUILD/tests/stdin/stdin_reader
DARTRUN=$BUILD/pmix_shim/dartrun
for f in "$RUN_CASE" "$GEN" "$READER" "$DARTRUN"; do
  [ -x "$f" ] || { echo "stdin-race-loop: $f is missing (build stdin_gen stdin_reader dartrun)"; exit 2; }
done
FLAVOR=$(sed -n 's/^DART_MPI:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)

# A case by name: units|run_case options|environment of the run.
case_def() {
  case $1 in
    all2) echo "2|--stdin all|" ;;
    unit1) echo "2|--stdin 1|" ;;
    set) echo "3|--stdin 1,2|" ;;
    all3) echo "3|--stdin all|" ;;
    all4) echo "4|--stdin all|" ;;
    # Tiny water marks: an XOFF and an XON for nearly every chunk.
    xoff_xon) echo "3|--stdin all|DART_STDIN_HIGH_WATER=8K DART_STDIN_LOW_WATER=2K" ;;
    *) return 1 ;;
  esac
}
read -r -a CASES <<< "${STDIN_RACE_CASES:-all2 unit1 set all3 all4 xoff_xon}"
for c in "${CASES[@]}"; do
  case_def "$c" > /dev/null || { echo "stdin-race-loop: unknown case $c"; exit 2; }
done

KEEP=$(mktemp -d "${TMPDIR:-/tmp}/stdin-race-XXXXXX")
BUSY_PIDS=()
RUN_PID=
# shellcheck disable=SC2317  # run by the trap
cleanup() {
  [ ${#BUSY_PIDS[@]} -gt 0 ] && kill "${BUSY_PIDS[@]}" 2> /dev/null
  [ -n "$RUN_PID" ] && kill -TERM "$RUN_PID" 2> /dev/null
  [ -n "$KEEP" ] && rm -rf "$KEEP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Every process below $1 (children before grandchildren).
descendants() {
  local all kids k
  all=$(ps -e -o pid=,ppid=)
  kids=$(awk -v p="$1" '$2 == p { print $1 }' <<< "$all")
  for k in $kids; do
    echo "$k"
    descendants "$k"
  done
}

loadavg() { cut -d' ' -f1 /proc/loadavg; }

for _ in $(seq "$BUSY"); do
  ( while :; do :; done ) &
  BUSY_PIDS+=($!)
done
echo "stdin-race-loop: $RUNS runs of ${CASES[*]} ($SIZE bytes, ${FLAVOR:-unknown MPI}), $BUSY busy loops on $CORES cores, timeout ${TIMEOUT} s"
sleep 5  # let the load average climb before the first run

runs=0 failures=0 hangs=0
load_min='' load_max='' load_sum=0
declare -A case_runs=()
t0=$(date +%s)
for i in $(seq "$RUNS"); do
  name=${CASES[$(((i - 1) % ${#CASES[@]}))]}
  IFS='|' read -r np opts envs <<< "$(case_def "$name")"
  out=$KEEP/run.out
  # timeout is the backstop; the watchdog below decides "hung" first, so
  # the backtraces are taken while every process still waits.
  # shellcheck disable=SC2086  # $opts and $envs are word lists
  env $envs timeout --kill-after=10 $((TIMEOUT + 120)) \
    "$RUN_CASE" "$GEN" "$DARTRUN" "$READER" "$np" "$SIZE" $opts -- > "$out" 2>&1 &
  RUN_PID=$!
  start=$(date +%s)
  hung=0
  while kill -0 "$RUN_PID" 2> /dev/null; do
    if [ $(($(date +%s) - start)) -ge "$TIMEOUT" ]; then
      hung=1
      pids=$(descendants "$RUN_PID")
      ps -o pid,ppid,stat,etime,comm -p "$(paste -sd, <<< "$RUN_PID $pids" | tr ' ' ,)" > "$KEEP/ps.txt" 2>&1
      for p in $pids; do
        comm=$(cat "/proc/$p/comm" 2> /dev/null) || continue
        case $comm in bash | run_case.sh | timeout | sleep | cat) continue ;; esac
        { echo "==== $p $comm"; gdb -p "$p" -batch -ex 'thread apply all bt' 2>&1; } >> "$KEEP/gdb.txt"
      done
      kill -TERM "$RUN_PID" 2> /dev/null
      sleep 5
      for p in $pids; do kill -KILL "$p" 2> /dev/null; done
      break
    fi
    sleep 0.2
  done
  wait "$RUN_PID"
  rc=$?
  RUN_PID=
  runs=$((runs + 1))
  case_runs[$name]=$((${case_runs[$name]:-0} + 1))
  l=$(loadavg)
  load_sum=$(awk -v a="$load_sum" -v b="$l" 'BEGIN { print a + b }')
  if [ -z "$load_min" ] || awk -v a="$l" -v b="$load_min" 'BEGIN { exit !(a < b) }'; then load_min=$l; fi
  if [ -z "$load_max" ] || awk -v a="$l" -v b="$load_max" 'BEGIN { exit !(a > b) }'; then load_max=$l; fi
  if [ "$hung" = 1 ] || [ "$rc" != 0 ] || ! grep -q "run_case: PASS" "$out"; then
    if [ "$hung" = 1 ]; then hangs=$((hangs + 1)); else failures=$((failures + 1)); fi
    echo "stdin-race-loop: run $i ($name, $np units, ${envs:-default water marks}) $([ "$hung" = 1 ] && echo "HUNG (${TIMEOUT} s)" || echo "FAILED (exit $rc)") at load $l"
    tail -n 20 "$out" | sed 's/^/  | /'
    echo "stdin-race-loop: output, backtraces and process list kept in $KEEP"
    KEEP_DIR=$KEEP
    KEEP=  # keep it past the trap
    break
  fi
  if [ $((i % 25)) = 0 ]; then
    echo "stdin-race-loop: $runs runs, $failures failures, $hangs hangs, load $l, $(($(date +%s) - t0)) s"
  fi
done
# The load ends before the summary is read.
kill "${BUSY_PIDS[@]}" 2> /dev/null
BUSY_PIDS=()
per_case=
for c in "${CASES[@]}"; do per_case+=" $c=${case_runs[$c]:-0}"; done
echo "stdin-race-loop: SUMMARY runs=$runs failures=$failures hangs=$hangs (${per_case# }) loadavg_1min min=$load_min" \
  "mean=$(awk -v s="$load_sum" -v n="$runs" 'BEGIN { printf "%.1f", n ? s / n : 0 }') max=$load_max" \
  "busy_loops=$BUSY mpi=${FLAVOR:-unknown} secs=$(($(date +%s) - t0))"
[ -n "${KEEP_DIR:-}" ] && exit 1
exit 0
