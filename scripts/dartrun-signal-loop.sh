#!/usr/bin/env bash
# dartrun's exit status when dartrun itself is signalled while the job runs:
# it must pass the signal on to the job and exit 128+N, every time, under
# every launcher.
#
#   scripts/dartrun-signal-loop.sh [-n RUNS] [-s "INT TERM HUP"] [-p NP] BUILD...
#
# For each BUILD (a build tree with pmix_shim/dartrun and
# tests/stdin/unit_exit; its launcher is the one its dartrun wraps), each
# signal and RUNS runs (default 50): starts `dartrun -n NP unit_exit --sleep
# 60` with stdin /dev/null, waits until unit 0 prints that every unit is
# running, sends the signal to dartrun and takes its exit status. Prints
# the count of each exit status per launcher and signal, and exits 1 if any
# run gave anything but 128+N (a run that did not start or end in time
# counts as a failure too). tests/stdin registers a short run of it
# (stdin_signal_loop) in the default test run.
set -uo pipefail
runs=50 signals="INT TERM HUP" np=2
while getopts "n:s:p:" o; do
  case $o in
    n) runs=$OPTARG ;;
    s) signals=$OPTARG ;;
    p) np=$OPTARG ;;
    *) echo "usage: $0 [-n RUNS] [-s SIGNALS] [-p NP] BUILD..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if (($# == 0)); then echo "usage: $0 [-n RUNS] [-s SIGNALS] [-p NP] BUILD..." >&2; exit 2; fi
# Per run: the launch must show "ready" within READY_S, and dartrun must
# exit within END_S of the signal (its own grace before it kills the
# launcher is 10 s).
READY_S=${DARTRUN_SIGNAL_READY_S:-30} END_S=${DARTRUN_SIGNAL_END_S:-20}
ulimit -c 0
work=$(mktemp -d "${TMPDIR:-/tmp}/dartrun-signal-XXXXXX")
trap 'rm -rf "$work"' EXIT

# One run; prints dartrun's exit status, or "no-start"/"no-end".
one_run() {
  local dartrun=$1 prog=$2 sig=$3 fifo=$work/out fd line ready=0 pid rc drain t
  rm -f "$fifo"
  mkfifo "$fifo"
  # Default dispositions: a background job of a script starts with SIGINT
  # ignored, and dartrun (as a shell does) leaves an ignored signal alone.
  env --default-signal=INT,TERM,HUP "$dartrun" -n "$np" "$prog" --sleep 60 </dev/null >"$fifo" 2>"$work/err" &
  pid=$!
  exec {fd}<"$fifo"
  while read -r -t "$READY_S" -u "$fd" line; do
    if [[ $line == "unit_exit: ready" ]]; then ready=1; break; fi
  done
  if ((ready == 0)); then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    exec {fd}<&-
    echo no-start
    return
  fi
  cat <&"$fd" >/dev/null &  # keep draining the job's output
  drain=$!
  exec {fd}<&-
  kill -"$sig" "$pid"
  # A bound, not a wait for something to happen: past it dartrun is killed
  # and the run counts as "no-end".
  for ((t = 0; t < END_S * 20; t++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    rc=no-end
    wait "$pid"
  else
    wait "$pid"
    rc=$?
  fi
  kill "$drain" 2>/dev/null
  wait "$drain" 2>/dev/null
  echo "$rc"
}

fail=0
for build in "$@"; do
  dartrun=$build/pmix_shim/dartrun prog=$build/tests/stdin/unit_exit
  if [[ ! -x $dartrun || ! -x $prog ]]; then
    echo "dartrun-signal-loop: $build has no pmix_shim/dartrun or tests/stdin/unit_exit" >&2
    exit 2
  fi
  launcher=$("$dartrun" --help | sed -n 's/.*--launcher PATH.*else \([^)]*\)).*/\1/p')
  launcher=${DARTRUN_LAUNCHER:-$launcher}
  for sig in $signals; do
    want=$((128 + $(kill -l "$sig")))
    declare -A count=()
    for ((r = 0; r < runs; r++)); do
      got=$(one_run "$dartrun" "$prog" "$sig")
      count[$got]=$((${count[$got]:-0} + 1))
      if [[ $got != "$want" ]]; then
        fail=1
        echo "dartrun-signal-loop: $launcher SIG$sig run $r: $got (want $want); dartrun's stderr:" >&2
        sed 's/^/  /' "$work/err" >&2
      fi
    done
    summary=""
    for k in "${!count[@]}"; do summary+=" $k:${count[$k]}"; done
    echo "dartrun-signal-loop: $(basename "$launcher") SIG$sig (want $want), $runs runs, exit status:count$summary"
    unset count
  done
done
if ((fail)); then echo "dartrun-signal-loop: FAIL"; exit 1; fi
echo "dartrun-signal-loop: PASS"
