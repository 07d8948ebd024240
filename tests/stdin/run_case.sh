#!/bin/bash
# One stdin test case:  stdin_gen SIZE | dartrun [--stdin T] -n NP stdin_reader ...
# and its checks: every unit's reader says OK (stdin_reader checks bytes,
# order, EOF once and, on unit 0, XOFF == XON of the job's server), dartrun
# received as many XON as XOFF, dartrun's and the producer's exit codes are
# the expected ones (the producer is 3 when it was told by EPIPE).
#
#   run_case.sh GEN DARTRUN READER NP SIZE [options] [-- READER-ARGS...]
#     --stdin T          routing (dartrun --stdin; the reader gets --targets T)
#     --exit C           expected exit code of dartrun (default 0)
#     --gen-exit C       expected exit code of the producer (default 0)
#     --memory KIB       also run with empty input first and require every
#                        unit's and dartrun's peak RSS to stay within KIB of it
#     --progress         give the producer and the reader a progress file
set -u
GEN=$1 DARTRUN=$2 READER=$3 NP=$4 SIZE=$5
shift 5
TARGET=0 EXPECT_EXIT=0 GEN_EXIT=0 MEMORY= PROGRESS=
while [ $# -gt 0 ]; do
  case $1 in
    --stdin) TARGET=$2; shift 2 ;;
    --exit) EXPECT_EXIT=$2; shift 2 ;;
    --gen-exit) GEN_EXIT=$2; shift 2 ;;
    --memory) MEMORY=$2; shift 2 ;;
    --progress) PROGRESS=1; shift ;;
    --) shift; break ;;
    *) echo "run_case.sh: unknown option $1"; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stdin-case-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
EXTRA=()
GEN_EXTRA=()
if [ -n "$PROGRESS" ]; then
  EXTRA=(--progress "$WORK/progress")
  GEN_EXTRA=(--progress "$WORK/progress")
fi

# The reader arguments after the size and output file.
reader_args=("$@")
run_pipeline() {
  local size=$1 out=$2
  "$GEN" "$size" --quiet "${GEN_EXTRA[@]}" |
    "$DARTRUN" --stats --stdin "$TARGET" -n "$NP" "$READER" --size "$size" --targets "$TARGET" "${EXTRA[@]}" \
      "${reader_args[@]}" > "$out" 2>&1
  local rc=("${PIPESTATUS[@]}")
  GEN_RC=${rc[0]} RUN_RC=${rc[1]}
  cat "$out"
}

fail=0
check_run() {
  local out=$1 size=$2 gen_expect=$3 exit_expect=$4
  local ok
  # hydra may glue the units' lines together: match pieces, not lines.
  ok=$(grep -o "stdin_reader: unit [0-9]*: [^:]*OK " "$out" | wc -l)
  if [ "$ok" != "$NP" ]; then echo "FAIL: $ok of $NP units OK (size $size)"; fail=1; fi
  if grep -q "stdin_reader: .*FAIL" "$out"; then echo "FAIL: a unit failed (size $size)"; fail=1; fi
  if [ "$RUN_RC" != "$exit_expect" ]; then echo "FAIL: dartrun exited $RUN_RC, expected $exit_expect"; fail=1; fi
  if [ "$GEN_RC" != "$gen_expect" ]; then echo "FAIL: the producer exited $GEN_RC, expected $gen_expect"; fail=1; fi
  local xoff xon
  xoff=$(sed -n 's/^dartrun: stats: .*xoff_received=\([0-9]*\).*/\1/p' "$out")
  xon=$(sed -n 's/^dartrun: stats: .*xon_received=\([0-9]*\).*/\1/p' "$out")
  if [ -z "$xoff" ] || [ "$xoff" != "$xon" ]; then echo "FAIL: dartrun XOFF ($xoff) != XON ($xon)"; fail=1; fi
}

if [ -n "$MEMORY" ]; then
  run_pipeline 0 "$WORK/base.out"
  check_run "$WORK/base.out" 0 0 0
fi
run_pipeline "$SIZE" "$WORK/run.out"
check_run "$WORK/run.out" "$SIZE" "$GEN_EXIT" "$EXPECT_EXIT"

if [ -n "$MEMORY" ]; then
  # Peak RSS per unit and of dartrun, empty input against this input.
  for u in $(seq 0 $((NP - 1))); do
    b=$(grep -o "stdin_reader: unit $u: [^:]*vmhwm_kib=[0-9]*" "$WORK/base.out" | sed 's/.*vmhwm_kib=//')
    r=$(grep -o "stdin_reader: unit $u: [^:]*vmhwm_kib=[0-9]*" "$WORK/run.out" | sed 's/.*vmhwm_kib=//')
    echo "memory: unit $u peak ${b} KiB (empty input) -> ${r} KiB"
    if [ -z "$b" ] || [ -z "$r" ] || [ $((r - b)) -gt "$MEMORY" ]; then echo "FAIL: unit $u peak memory grew by more than $MEMORY KiB"; fail=1; fi
  done
  b=$(sed -n 's/^dartrun: stats: .*peak_rss_kib=\([0-9]*\).*/\1/p' "$WORK/base.out")
  r=$(sed -n 's/^dartrun: stats: .*peak_rss_kib=\([0-9]*\).*/\1/p' "$WORK/run.out")
  echo "memory: dartrun peak ${b} KiB (empty input) -> ${r} KiB"
  if [ -z "$b" ] || [ -z "$r" ] || [ $((r - b)) -gt "$MEMORY" ]; then echo "FAIL: dartrun peak memory grew by more than $MEMORY KiB"; fail=1; fi
fi
if [ $fail = 0 ]; then echo "run_case: PASS"; else echo "run_case: FAILED"; fi
exit $fail
