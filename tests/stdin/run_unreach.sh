#!/bin/bash
# dartrun late to the job's stdin server (issue 46, item 2), forced every
# time: dartrun's connect(2) calls are held for 2 s by strace
# (inject=connect:delay_enter), so a job that does not read stdin reaches
# dart_exit while dartrun is still on its way to the server's socket. Before
# the fix unit 0 closed its server then, and dartrun printed
# "PMIx_tool_init: error: cannot connect to unix:...: ERR-UNREACH" and
# "dartrun: stdin: the job took 0 of the 0 bytes read (ERR-UNREACH)" for a
# job that succeeded. Each case checks the exit codes, that no line says
# error, ERR-, FAIL, warn or "dartrun: stdin:" (the --stats line aside), and
# for a reading program that unit 0 verified every byte. A real failure is
# still reported: when every connect of dartrun fails, it must say so, and
# unit 0 must say it closed its server after 10 s without dartrun. Not
# covered: the TCP rendezvous (the same server wait and close), routing.
#
#   run_unreach.sh GEN DARTRUN UNIT_EXIT READER NP LAUNCHER
#
# The launcher is held (this script, as dartrun's --launcher) until strace
# is attached to every thread of dartrun, so the delay is in place before
# the job starts; strace follows no process but dartrun's own threads.
# Exit 77 (skipped) when strace is missing or cannot attach.
set -u
if [ -n "${RUN_UNREACH_GATE:-}" ]; then
  # The launcher gate: wait for the go file, then become the real launcher.
  if [ "${1:-}" != "--version" ]; then
    while [ ! -e "$RUN_UNREACH_GATE" ]; do sleep 0.02; done
  fi
  exec "$RUN_UNREACH_LAUNCHER" "$@"
fi
GEN=$1 DARTRUN=$2 UNIT_EXIT=$3 READER=$4 NP=$5 LAUNCHER=$6
SELF=$(readlink -f "$0")
command -v strace > /dev/null || { echo "run_unreach: SKIPPED (no strace)"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stdin-unreach-XXXXXX")
STRACE_PID=
trap '[ -n "$STRACE_PID" ] && kill "$STRACE_PID" 2> /dev/null; rm -rf "$WORK"' EXIT
fail=0
CASE_LIMIT=${RUN_UNREACH_CASE_LIMIT:-30}

# run_one NAME SIZE INJECT PROGRAM...: stdin_gen SIZE | dartrun --stats -n NP PROGRAM
# with dartrun's connect(2) tampered with by strace -e inject=connect:INJECT.
run_one() {
  local name=$1 size=$2 inject=$3
  shift 3
  local go=$WORK/$name.go out=$WORK/$name.out
  rm -f "$go"
  local t0=$SECONDS
  RUN_UNREACH_GATE=$go RUN_UNREACH_LAUNCHER=$LAUNCHER \
    bash -c '"$1" "$2" --quiet | "${@:3}"; r=("${PIPESTATUS[@]}"); echo "run_unreach: gen=${r[0]} run=${r[1]}"' \
    run "$GEN" "$size" "$DARTRUN" --launcher "$SELF" --stats -n "$NP" "$@" > "$out" 2>&1 &
  local job=$!
  # dartrun is the pipeline's second process: the child of bash named dartrun.
  local pid= tries=0
  while [ -z "$pid" ] && [ $tries -lt 500 ]; do
    pid=$(pgrep -P "$job" -x dartrun)
    [ -z "$pid" ] && { sleep 0.01; tries=$((tries + 1)); }
  done
  # Attach only once dartrun has forked the launcher (held by the gate):
  # strace -f follows every child made after it attached, and a traced
  # launcher would have its units' connects held too. The launcher is the
  # child that has become this script (before its exec it is named
  # dartrun); dartrun's flavour test runs it with --version under sh.
  local launcher=
  while [ -n "$pid" ] && [ -z "$launcher" ] && [ $tries -lt 1000 ]; do
    for c in $(pgrep -P "$pid" -x "$(basename "$SELF" | cut -c1-15)"); do
      tr '\0' ' ' < "/proc/$c/cmdline" 2> /dev/null | grep -q -- '--version' || launcher=$c
    done
    [ -z "$launcher" ] && { sleep 0.01; tries=$((tries + 1)); }
  done
  if [ -z "$launcher" ]; then
    echo "FAIL: $name: dartrun did not start its launcher"; fail=1; touch "$go"; wait "$job"; return
  fi
  strace -f -qq -o "$WORK/$name.strace" -e trace=connect -e inject=connect:"$inject" -p "$pid" 2> "$WORK/strace.err" &
  STRACE_PID=$!
  # Every thread of dartrun traced before the job may start.
  local attached=0
  for _ in $(seq 500); do
    attached=1
    for s in /proc/"$pid"/task/*/status; do
      [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "$s" 2> /dev/null)" -gt 0 ] 2> /dev/null || attached=0
    done
    [ $attached = 1 ] && break
    kill -0 "$STRACE_PID" 2> /dev/null || break
    sleep 0.01
  done
  if [ $attached = 0 ]; then
    echo "run_unreach: SKIPPED (strace cannot attach: $(cat "$WORK/strace.err"))"
    touch "$go"; wait "$job"; exit 77
  fi
  echo "run_unreach: $name: dartrun (pid $pid) traced, the job starts"
  touch "$go"
  # A case that has not ended in CASE_LIMIT s is a hang: end it (dartrun
  # takes the launcher and the job with it), show what it printed, fail.
  local hung=0
  while kill -0 "$job" 2> /dev/null; do
    if [ $((SECONDS - t0)) -ge "$CASE_LIMIT" ]; then
      hung=1
      kill -TERM "$pid" 2> /dev/null
      sleep 12
      kill -KILL "$pid" "$job" 2> /dev/null
      break
    fi
    sleep 0.1
  done
  wait "$job"
  wait "$STRACE_PID" 2> /dev/null
  STRACE_PID=
  echo "---- $name ($((SECONDS - t0)) s): stdin $size bytes, connect $inject, $*"
  cat "$out"
  if [ $hung = 1 ]; then echo "FAIL: $name: did not end within $CASE_LIMIT s"; fail=1; fi
}

# check NAME [--reads SIZE] [--expect-error] [--gen-any]
check() {
  local name=$1
  shift
  local reads= expect_error= out=$WORK/$name.out
  while [ $# -gt 0 ]; do
    case $1 in
      --reads) reads=$2; shift 2 ;;
      --expect-error) expect_error=1; shift ;;
    esac
  done
  local run gen errs
  run=$(sed -n 's/^run_unreach: gen=[0-9]* run=\([0-9]*\)$/\1/p' "$out")
  gen=$(sed -n 's/^run_unreach: gen=\([0-9]*\) run=.*/\1/p' "$out")
  errs=$(grep -v '^dartrun: stats:' "$out" | grep -ciE 'error|ERR-|FAIL|warn|dartrun: stdin:')
  if [ "$run" != 0 ]; then echo "FAIL: $name: dartrun exited ${run:-?}, expected 0"; fail=1; fi
  # The producer ends 0, or 3 when dartrun let go of stdin unread (EPIPE).
  if [ "$gen" != 0 ] && [ "$gen" != 3 ]; then echo "FAIL: $name: the producer exited ${gen:-?}"; fail=1; fi
  if [ -n "$expect_error" ]; then
    if ! grep -q '^dartrun: stdin: the job took 0 of the 0 bytes read (ERR-UNREACH)' "$out"; then
      echo "FAIL: $name: dartrun did not report that it could not reach the job's server"; fail=1
    fi
  elif [ "$errs" != 0 ]; then
    echo "FAIL: $name: $errs error lines from a job that succeeded"; fail=1
  fi
  if [ -n "$reads" ]; then
    local got
    got=$(grep -o 'stdin_reader: unit 0: [^:]*OK [^:]*bytes=[0-9]*' "$out" | sed 's/.*bytes=//')
    if [ "${got:-x}" != "$reads" ]; then echo "FAIL: $name: unit 0 verified ${got:-no} bytes of $reads"; fail=1; fi
  fi
}

# dartrun 2 s late, the job ends at once: empty and non-empty stdin.
run_one late_empty 0 delay_enter=2000000 "$UNIT_EXIT"
check late_empty
run_one late_bytes 4096 delay_enter=2000000 "$UNIT_EXIT"
check late_bytes
# dartrun 2 s late to a program that reads: every byte arrives.
run_one late_reader 65536 delay_enter=2000000 "$READER" --size 65536
check late_reader --reads 65536
# A real failure: dartrun never reaches the server. It gives up after 2 s
# and says so; the job, which does not read stdin, ends 0.
# Unit 0 gives up on it after 10 s (its warning, at DART_LOG_LEVEL=WARN).
DART_LOG_LEVEL=WARN run_one unreachable 4096 error=ECONNREFUSED "$UNIT_EXIT"
check unreachable --expect-error
if ! grep -q 'dart_stdin: warning: dartrun did not reach the stdin server within 10 s' "$WORK/unreachable.out"; then
  echo "FAIL: unreachable: unit 0 did not say that dartrun never reached its server"; fail=1
fi

if [ $fail = 0 ]; then echo "run_unreach: PASS"; else echo "run_unreach: FAILED"; fi
exit $fail
