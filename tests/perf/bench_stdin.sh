#!/bin/bash
# bench_stdin.sh: stdin of an MPI job against a raw pipe, in one run (issue 8).
#   bench_stdin.sh GEN SINK DARTRUN LAUNCHER [SIZE] [NP] [ROUNDS]
# SIZE bytes (default 1G) of stdin_gen's pattern go to unit 0 of a job of NP
# units (default 2), read by bench_stdin_sink --checksum (every byte folded
# into a checksum: a reader that touches its input, as real ones do, and the
# same code in every row), through:
#   raw pipe         stdin_gen | bench_stdin_sink --raw     (no MPI at all)
#   dartrun          stdin_gen | dartrun -n NP sink                 (Unix-socket rendezvous)
#   dartrun, tcp     stdin_gen | dartrun --rendezvous tcp -n NP sink (unit 0 anywhere)
#   launcher+server  stdin_gen | LAUNCHER -n NP sink        (DART's server reads the launcher's stdin)
#   launcher only    the same with DART_STDIN=off           (the launcher's own forwarding)
# ROUNDS (default 1) rounds run every path once each, in turn, so that a
# machine whose speed drifts slows all of them alike; each figure is the
# median over the rounds. Printed per path: the whole pipeline's wall time
# (start-up included, what a user waits for) and its ratio to the raw pipe
# of the same run, and the sink's rate from first byte to EOF. Then the
# peak RSS of every process for 10 MiB against SIZE through dartrun
# (dartrun, the launcher, each unit): the path holds a bounded amount
# whatever the input's size, so the two must match. The checksums of all
# rows must agree. A launcher that kills the job (MPICH: "reading stdin too
# slowly") is reported as such.
set -u
GEN=$1 SINK=$2 DARTRUN=$3 LAUNCHER=$4 SIZE=${5:-1G} NP=${6:-2} ROUNDS=${7:-1}
LFLAGS=()
if "$LAUNCHER" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  LFLAGS=(--bind-to none)
  [ "$(id -u)" = 0 ] && LFLAGS+=(--allow-run-as-root --oversubscribe)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The launcher's own peak RSS: dartrun runs it through this wrapper, which
# samples its VmHWM (its rusage would be the largest of its children's).
cat > "$out/launcher" <<EOF
#!/bin/bash
"$LAUNCHER" "\$@" &
pid=\$!
hwm=
while kill -0 \$pid 2>/dev/null; do
  v=\$(awk '/^VmHWM/ { print \$2 }' /proc/\$pid/status 2>/dev/null)
  [ -n "\$v" ] && hwm=\$v
  sleep 0.05
done
wait \$pid
rc=\$?
[ -n "\$hwm" ] && echo "launcher_vmhwm_kib=\$hwm" >> "\${BENCH_LAUNCHER_LOG:-/dev/null}"
exit \$rc
EOF
chmod +x "$out/launcher"

now() { date +%s.%N; }
# run NAME ROUND COMMAND...: runs a pipeline under bash, keeps its output
# and its wall time.
run() {
  local name=$1 round=$2
  shift 2
  local t0 t1 rc
  t0=$(now)
  timeout 300 bash -c "$*" > "$out/$name.$round" 2>&1
  rc=$?
  t1=$(now)
  echo "$rc" > "$out/$name.$round.rc"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$out/$name.$round.wall"
}
g="'$GEN' '$SIZE' --quiet"
for ((r = 1; r <= ROUNDS; ++r)); do
  run raw $r "$g | '$SINK' --raw --checksum"
  run dartrun $r "$g | '$DARTRUN' --stats -n $NP '$SINK' --checksum"
  run tcp $r "$g | '$DARTRUN' --stats --rendezvous tcp -n $NP '$SINK' --checksum"
  run server $r "$g | '$LAUNCHER' ${LFLAGS[*]} -n $NP '$SINK' --checksum"
  run bare $r "$g | DART_STDIN=off '$LAUNCHER' ${LFLAGS[*]} -n $NP '$SINK' --checksum"
done
# Memory, untimed (the wrapper's sampling would add to the wall time).
run small 1 "'$GEN' 10M --quiet | BENCH_LAUNCHER_LOG='$out/launcher.small' '$DARTRUN' --stats --launcher '$out/launcher' -n $NP '$SINK' --checksum"
run big 1 "$g | BENCH_LAUNCHER_LOG='$out/launcher.big' '$DARTRUN' --stats --launcher '$out/launcher' -n $NP '$SINK' --checksum"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# The median over the rounds of a path that ended with the sink's line.
wall() {
  local r
  for ((r = 1; r <= ROUNDS; ++r)); do
    if grep -q "MBps=" "$out/$1.$r"; then cat "$out/$1.$r.wall"; fi
  done
}
rate() {
  local r
  for ((r = 1; r <= ROUNDS; ++r)); do
    sed -n 's/^bench_stdin_sink: bytes.*MBps=\([0-9.]*\).*/\1/p' "$out/$1.$r"
  done
}
field() { sed -n "s/.*$2=\([0-9a-f]*\).*/\1/p" "$1" | head -1; }
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; else echo "-"; fi; }

echo "bench_stdin: $SIZE to unit 0 of $NP unit(s), launcher $LAUNCHER, reader checksums every byte," \
     "median of $ROUNDS round(s) run in turn; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "  %-32s %9s %12s %13s %10s\n" path "wall s" "wall vs raw" "reader MB/s" "checksum"
raw_wall=$(wall raw | median)
for p in raw:"raw pipe" dartrun:"dartrun" tcp:"dartrun, TCP rendezvous" server:"launcher + in-job server" \
         bare:"launcher only (DART_STDIN=off)"; do
  key=${p%%:*} label=${p#*:}
  w=$(wall "$key" | median)
  mbps=$(rate "$key" | median)
  sum=$(field "$out/$key.1" fnv1a)
  if [ -z "$w" ]; then
    w="killed(rc=$(cat "$out/$key.1.rc"))"
    sum=-
  fi
  printf "  %-32s %9s %12s %13s %10s\n" "$label" "$w" "$(ratio "${w%%killed*}" "$raw_wall")" "${mbps:--}" "${sum:--}"
done
sums=$(for k in raw dartrun tcp server bare big; do field "$out/$k.1" fnv1a; done | sort -u | wc -l)
[ "$sums" -le 1 ] && echo "  checksums: all equal" || echo "  checksums: MISMATCH"

hwm_units() {
  local u s=
  for ((u = 0; u < NP; ++u)); do
    if [ $u = 0 ]; then s+=" $(sed -n 's/^bench_stdin_sink: bytes.*vmhwm_kib=\([0-9]*\).*/\1/p' "$1" | head -1)"
    else s+=" $(sed -n "s/^bench_stdin_sink: unit $u vmhwm_kib=\([0-9]*\).*/\1/p" "$1" | head -1)"; fi
  done
  echo "$s"
}
echo "  peak RSS (KiB), 10M -> $SIZE through dartrun:"
echo "    dartrun  $(field "$out/small.1" peak_rss_kib) -> $(field "$out/big.1" peak_rss_kib)"
echo "    launcher $(tail -1 "$out/launcher.small" 2>/dev/null | cut -d= -f2) -> $(tail -1 "$out/launcher.big" 2>/dev/null | cut -d= -f2)"
read -r -a small_u <<< "$(hwm_units "$out/small.1")"
read -r -a big_u <<< "$(hwm_units "$out/big.1")"
for ((u = 0; u < NP; ++u)); do
  echo "    unit $u   ${small_u[$u]:--} -> ${big_u[$u]:--}"
done
grep -h "xoff_received" "$out/big.1" | sed 's/^/  /'
echo "bench_stdin: done"
