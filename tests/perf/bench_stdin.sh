#!/bin/bash
# bench_stdin.sh: stdin of an MPI job, in one run (issue 8).
#   bench_stdin.sh GEN SINK DARTRUN LAUNCHER [SIZE] [NP]
# SIZE bytes (default 1G) of stdin_gen's pattern go to unit 0 of a job of NP
# units (default 1) through:
#   raw pipe         stdin_gen | bench_stdin_sink --raw     (no MPI at all)
#   dartrun          stdin_gen | dartrun -n NP sink                 (Unix-socket rendezvous)
#   dartrun, tcp     stdin_gen | dartrun --rendezvous tcp -n NP sink (unit 0 anywhere)
#   launcher+server  stdin_gen | LAUNCHER -n NP sink        (DART's server reads the launcher's stdin)
#   launcher only    the same with DART_STDIN=off           (the launcher's own forwarding)
# and prints MB/s (first byte to EOF, measured by the sink) with ratios, and
# the peak memory of dartrun and of unit 0 for 10 MiB against SIZE.
# A launcher that kills the job (MPICH: "reading stdin too slowly") is
# reported as such.
set -u
GEN=$1 SINK=$2 DARTRUN=$3 LAUNCHER=$4 SIZE=${5:-1G} NP=${6:-1}
LFLAGS=()
if "$LAUNCHER" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  LFLAGS=(--bind-to none)
  [ "$(id -u)" = 0 ] && LFLAGS+=(--allow-run-as-root --oversubscribe)
fi
rate() { sed -n 's/.*MBps=\([0-9.]*\).*/\1/p' "$1" | head -1; }
hwm() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | head -1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$GEN" "$SIZE" --quiet | "$SINK" --raw > "$out/raw" 2>&1
"$GEN" "$SIZE" --quiet | "$DARTRUN" --stats -n "$NP" "$SINK" > "$out/dartrun" 2>&1
"$GEN" "$SIZE" --quiet | "$DARTRUN" --stats --rendezvous tcp -n "$NP" "$SINK" > "$out/tcp" 2>&1
timeout 300 bash -c "'$GEN' '$SIZE' --quiet | '$LAUNCHER' ${LFLAGS[*]} -n $NP '$SINK'" > "$out/server" 2>&1
rc_server=$?
timeout 300 bash -c "'$GEN' '$SIZE' --quiet | DART_STDIN=off '$LAUNCHER' ${LFLAGS[*]} -n $NP '$SINK'" > "$out/bare" 2>&1
rc_bare=$?
"$GEN" 10M --quiet | "$DARTRUN" --stats -n "$NP" "$SINK" > "$out/small" 2>&1

raw=$(rate "$out/raw"); dr=$(rate "$out/dartrun"); tcp=$(rate "$out/tcp"); sv=$(rate "$out/server"); bare=$(rate "$out/bare")
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; else echo "-"; fi; }
echo "bench_stdin: $SIZE to unit 0 of $NP unit(s), launcher $LAUNCHER"
printf "  %-34s %10s %12s %14s\n" path MB/s "vs raw pipe" "vs launcher"
printf "  %-34s %10s %12s %14s\n" "raw pipe" "$raw" 1.00 -
printf "  %-34s %10s %12s %14s\n" "dartrun" "$dr" "$(ratio "$dr" "$raw")" "$(ratio "$dr" "$bare")"
printf "  %-34s %10s %12s %14s\n" "dartrun, TCP rendezvous" "$tcp" "$(ratio "$tcp" "$raw")" "$(ratio "$tcp" "$bare")"
printf "  %-34s %10s %12s %14s\n" "launcher + in-job server" "${sv:-killed(rc=$rc_server)}" "$(ratio "$sv" "$raw")" "$(ratio "$sv" "$bare")"
printf "  %-34s %10s %12s %14s\n" "launcher only (DART_STDIN=off)" "${bare:-killed(rc=$rc_bare)}" "$(ratio "$bare" "$raw")" 1.00
echo "  peak memory, 10M -> $SIZE: dartrun $(hwm "$out/small" peak_rss_kib) -> $(hwm "$out/dartrun" peak_rss_kib) KiB;" \
     "unit 0 $(hwm "$out/small" vmhwm_kib) -> $(hwm "$out/dartrun" vmhwm_kib) KiB"
grep -h "xoff_received" "$out/dartrun" | sed 's/^/  /'
echo "bench_stdin: done"
