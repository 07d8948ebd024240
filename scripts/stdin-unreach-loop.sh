#!/bin/bash
# Short jobs through dartrun and oshrun, over and over (issue 46, item 2):
# a job that starts and ends within milliseconds must neither lose a byte
# of its stdin nor print an error line. Before the fix, 25 of 1,730 oshrun
# launches printed "PMIx_tool_init: error: cannot connect to unix:...:
# ERR-UNREACH" and "dartrun: stdin: the job took 0 of the 0 bytes read
# (ERR-UNREACH)" and exited 0. Not part of the default test run;
# tests/stdin/run_unreach.sh forces the same window every time.
#
#   scripts/stdin-unreach-loop.sh [-n JOBS] [-s SIZE] [-l LAUNCHERS] BUILD-DIR...
#     -n JOBS       jobs per launcher and build (default 500)
#     -s SIZE       bytes of a non-empty stdin (default 65536)
#     -l LAUNCHERS  comma list of dartrun and oshrun (default both)
#     BUILD-DIR     a build with dartrun, stdin_gen, stdin_reader,
#                   unit_exit and shmem_stdin; its MPI's launcher is used
#   Environment: STDIN_UNREACH_TIMEOUT  seconds before a job counts as hung
#                                       (default 60)
#
# Each job runs 2 units. The jobs take four kinds in turn: empty stdin
# (stdin_gen 0) or SIZE bytes of the test pattern, to a program that reads
# stdin on unit 0 and checks every byte (stdin_reader; shmem_stdin --size
# under oshrun) or one that never reads it (unit_exit; shmem_stdin).
# "oshrun" is dartrun under that name (as installed) running the OpenSHMEM
# program. Per launcher it counts error lines (any line saying error, ERR-,
# FAIL, warn or "dartrun: stdin:", the --stats line aside), the jobs that
# printed one, the bytes a reading program did not get (size minus what
# unit 0 verified), exits other than 0, and hangs (60 s: every process of
# the job gets a gdb backtrace of all threads first), and the time. The
# first few failing jobs' output (and a hung job's backtraces) is kept in a
# directory it names.
# Exit 0 when no job printed an error line, lost a byte, failed or hung.
set -u

usage() {
  sed -n '/^#   scripts\/stdin-unreach-loop.sh/,/^#$/s/^# \{0,1\}//p' "$0"
  exit 2
}
JOBS=500 SIZE=65536 LAUNCHERS=dartrun,oshrun
while getopts n:s:l:h opt; do
  case $opt in
    n) JOBS=$OPTARG ;;
    s) SIZE=$OPTARG ;;
    l) LAUNCHERS=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
TIMEOUT=${STDIN_UNREACH_TIMEOUT:-60}
KEEP_MAX=5

WORK=$(mktemp -d "${TMPDIR:-/tmp}/stdin-unreach-XXXXXX")
KEEP=$WORK/kept
mkdir -p "$KEEP"
kept=0
trap 'rm -f "$WORK/job.out"; [ "$kept" = 0 ] && rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP

# Every process below $1 (children before grandchildren).
descendants() {
  local kids k
  kids=$(ps -e -o pid=,ppid= | awk -v p="$1" '$2 == p { print $1 }')
  for k in $kids; do
    echo "$k"
    descendants "$k"
  done
}

rows=()
bad_total=0
for build in "$@"; do
  B=$(cd "$build" 2> /dev/null && pwd) || { echo "stdin-unreach-loop: no build directory $build"; exit 2; }
  GEN=$B/tests/stdin/stdin_gen READER=$B/tests/stdin/stdin_reader
  UNIT_EXIT=$B/tests/stdin/unit_exit SHMEM=$B/tests/stdin/shmem_stdin DARTRUN=$B/pmix_shim/dartrun
  for f in "$GEN" "$READER" "$UNIT_EXIT" "$SHMEM" "$DARTRUN"; do
    [ -x "$f" ] || { echo "stdin-unreach-loop: $f is missing (build stdin_gen stdin_reader unit_exit shmem_stdin dartrun)"; exit 2; }
  done
  FLAVOR=$(sed -n 's/^DART_MPI:[A-Z]*=//p' "$B/CMakeCache.txt" 2> /dev/null)
  # What dartrun gives the job under ctest (cmake/AddMPITest.cmake).
  ENVS=()
  [ "$FLAVOR" = mpich ] && ENVS=(UCX_MEM_MMAP_HOOK_MODE=none)
  # oshrun as installed: a link named oshrun to dartrun.
  mkdir -p "$WORK/bin-$FLAVOR"
  ln -sf "$DARTRUN" "$WORK/bin-$FLAVOR/oshrun"
  IFS=, read -r -a LIST <<< "$LAUNCHERS"
  for launcher in "${LIST[@]}"; do
    case $launcher in
      dartrun) RUN=$DARTRUN ;;
      oshrun) RUN=$WORK/bin-$FLAVOR/oshrun ;;
      *) echo "stdin-unreach-loop: unknown launcher $launcher"; exit 2 ;;
    esac
    err_lines=0 err_jobs=0 lost=0 bad_exit=0 hangs=0
    t0=$(date +%s.%N)
    for i in $(seq "$JOBS"); do
      kind=$(((i - 1) % 4))
      size=0
      [ $((kind / 2)) = 1 ] && size=$SIZE
      reads=$((kind % 2 == 0))
      if [ "$launcher" = oshrun ]; then
        if [ $reads = 1 ]; then prog=("$SHMEM" --size "$size"); else prog=("$SHMEM"); fi
      else
        if [ $reads = 1 ]; then prog=("$READER" --size "$size"); else prog=("$UNIT_EXIT"); fi
      fi
      out=$WORK/job.out
      env "${ENVS[@]}" timeout --kill-after=5 "$((TIMEOUT + 30))" bash -c \
        '"$1" "$2" --quiet | "${@:3}"; r=("${PIPESTATUS[@]}"); echo "loop: gen=${r[0]} run=${r[1]}"' \
        loop "$GEN" "$size" "$RUN" --stats -n 2 "${prog[@]}" > "$out" 2>&1 &
      job=$!
      # A job still running after TIMEOUT s is a hang: every process of it
      # gets `gdb -batch -ex 'thread apply all bt'` before timeout ends it,
      # so the threads' waits are on record (kept with its output).
      start=$SECONDS
      while kill -0 "$job" 2> /dev/null; do
        if [ $((SECONDS - start)) -ge "$TIMEOUT" ]; then
          for p in $(descendants "$job"); do
            comm=$(cat "/proc/$p/comm" 2> /dev/null) || continue
            case $comm in bash | timeout | sleep) continue ;; esac
            { echo "==== $p $comm"; gdb -p "$p" -batch -ex 'thread apply all bt' 2>&1; } >> "$WORK/gdb.txt"
          done
          kill -TERM "$job" 2> /dev/null
          break
        fi
        sleep 0.05
      done
      wait "$job"
      rc=$?
      [ -f "$WORK/gdb.txt" ] && mv "$WORK/gdb.txt" "$KEEP/$FLAVOR-$launcher-job$i.gdb" && kept=$((kept + 1))
      why=()
      n=$(grep -v '^dartrun: stats:' "$out" | grep -ciE 'error|ERR-|FAIL|warn|dartrun: stdin:')
      if [ "$n" -gt 0 ]; then err_lines=$((err_lines + n)); err_jobs=$((err_jobs + 1)); why+=("$n error lines"); fi
      if [ $((SECONDS - start)) -ge "$TIMEOUT" ]; then
        hangs=$((hangs + 1)); why+=("hung")
      else
        run_rc=$(sed -n 's/^loop: gen=[0-9]* run=\([0-9]*\)$/\1/p' "$out")
        if [ "$run_rc" != 0 ]; then bad_exit=$((bad_exit + 1)); why+=("exit ${run_rc:-?}"); fi
      fi
      if [ $reads = 1 ]; then
        if [ "$launcher" = oshrun ]; then
          got=$(grep -o 'shmem_stdin: pe 0: OK read=[0-9]*' "$out" | sed 's/.*read=//')
        else
          got=$(grep -o 'stdin_reader: unit 0: [^:]*OK [^:]*bytes=[0-9]*' "$out" | sed 's/.*bytes=//')
        fi
        if [ "${got:-x}" != "$size" ]; then
          miss=$size
          [ -n "$got" ] && miss=$((size - got))
          lost=$((lost + miss)); why+=("reader did not verify $size bytes (lost $miss)")
        fi
      fi
      if [ ${#why[@]} -gt 0 ]; then
        if [ "$kept" -lt "$KEEP_MAX" ]; then
          kept=$((kept + 1))
          cp "$out" "$KEEP/$FLAVOR-$launcher-job$i.out"
        fi
        echo "stdin-unreach-loop: $launcher ($FLAVOR) job $i (stdin $size bytes, $([ $reads = 1 ] && echo reads || echo "does not read")): $(IFS=';'; echo "${why[*]}")"
        grep -v '^dartrun: stats:' "$out" | grep -iE 'error|ERR-|FAIL|warn|dartrun: stdin:' | head -n 3 | sed 's/^/  | /'
      fi
    done
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
    per=$(awk -v s="$secs" -v n="$JOBS" 'BEGIN { printf "%.2f", s / n }')
    rows+=("| $launcher | ${FLAVOR:-?} | $JOBS | $err_lines | $err_jobs | $lost | $bad_exit | $hangs | $secs s ($per s/job) |")
    bad_total=$((bad_total + err_jobs + bad_exit + hangs + (lost > 0)))
    echo "stdin-unreach-loop: $launcher ($FLAVOR): $JOBS jobs, $err_lines error lines in $err_jobs jobs, $lost bytes lost, $bad_exit bad exits, $hangs hangs, $secs s"
  done
done
echo "| launcher | MPI | jobs | error lines | jobs with errors | bytes lost | exit != 0 | hangs | time |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
[ "$kept" -gt 0 ] && echo "stdin-unreach-loop: the first failing jobs' output is kept in $KEEP"
if [ "$bad_total" = 0 ]; then echo "stdin-unreach-loop: PASS"; exit 0; fi
echo "stdin-unreach-loop: FAILED"
exit 1
