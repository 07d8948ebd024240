#!/bin/bash
# The job's stdin server dies mid-stream: unit 0 (which hosts it) kills
# itself with SIGKILL after reading KILL_AFTER of SIZE bytes.
#   run_server_killed.sh GEN DARTRUN READER NP SIZE KILL_AFTER [READER-ARGS...]
# Requires: dartrun exits 137 within 30 s; its push failed
# (push= in --stats is not SUCCESS); it says how much the job took
# ("dartrun: stdin: the job took N of the M bytes read") with the same
# N and M as its stats, N <= M < SIZE; and the producer was let go
# (it exits, with EPIPE's code 3, instead of blocking).
set -u
GEN=$1 DARTRUN=$2 READER=$3 NP=$4 SIZE=$5 KILL_AFTER=$6
shift 6
ulimit -c 0
out=$(mktemp "${TMPDIR:-/tmp}/server-killed-XXXXXX")
trap 'rm -f "$out"' EXIT
timeout --kill-after=5 30 "$GEN" "$SIZE" --quiet |
  timeout --kill-after=5 30 "$DARTRUN" --stats -n "$NP" "$READER" --size "$SIZE" --kill-after "$KILL_AFTER" "$@" \
    > "$out" 2>&1
rc=("${PIPESTATUS[@]}")
GEN_RC=${rc[0]} RUN_RC=${rc[1]}
grep -v "^$" "$out" | grep -v "^stdin_reader: unit" | head -20
fail=0
if [ "$RUN_RC" != 137 ]; then echo "run_server_killed: dartrun exited $RUN_RC, expected 137"; fail=1; fi
if [ "$GEN_RC" != 3 ]; then echo "run_server_killed: the producer exited $GEN_RC, expected 3 (EPIPE)"; fail=1; fi
stats=$(grep -o "dartrun: stats: .*" "$out" | tail -n 1)
pushed=$(echo "$stats" | sed -n 's/.*bytes_pushed=\([0-9]*\).*/\1/p')
acked=$(echo "$stats" | sed -n 's/.*bytes_acked=\([0-9]*\).*/\1/p')
push=$(echo "$stats" | sed -n 's/.* push=\([^ ]*\).*/\1/p')
xoff=$(echo "$stats" | sed -n 's/.*xoff_received=\([0-9]*\).*/\1/p')
took=$(grep -o "dartrun: stdin: the job took [0-9]* of the [0-9]* bytes read" "$out" | tail -n 1)
t_n=$(echo "$took" | awk '{print $6}')
t_m=$(echo "$took" | awk '{print $9}')
echo "run_server_killed: pushed=$pushed acked=$acked xoff=$xoff push=$push line='$took'"
if [ -z "$pushed" ] || [ -z "$acked" ]; then echo "run_server_killed: no stats line"; fail=1
else
  if [ "$push" = SUCCESS ] || [ -z "$push" ]; then echo "run_server_killed: the push reported '$push'"; fail=1; fi
  if [ -z "$took" ]; then echo "run_server_killed: dartrun did not say how much the job took"; fail=1
  elif [ "$t_n" != "$acked" ] || [ "$t_m" != "$pushed" ]; then
    echo "run_server_killed: the message ($t_n of $t_m) disagrees with the stats ($acked of $pushed)"; fail=1
  fi
  # A reader that pauses first must have had dartrun suspended when it died.
  case " $* " in *" --pause-at "*)
    if [ "${xoff:-0}" -lt 1 ]; then echo "run_server_killed: dartrun was never suspended"; fail=1; fi ;;
  esac
  if [ "$acked" -gt "$pushed" ] || [ "$pushed" -ge "$SIZE" ]; then
    echo "run_server_killed: counts out of range (acked $acked, pushed $pushed, size $SIZE)"; fail=1
  fi
fi
[ "$fail" = 0 ] && echo "run_server_killed: PASS" || echo "run_server_killed: FAILED"
exit "$fail"
