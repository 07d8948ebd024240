#!/usr/bin/env bash
# Proves that the rig (scripts/rig/rig.sh) leaves nothing behind when things
# go wrong. A rig of its own, "dartfail", is brought down in five ways:
#   1. the command run on it fails (after leaving a process running on a host)
#   2. an MPI job launched by run-multihost.sh across its hosts fails
#   3. `rig.sh run` is sent SIGTERM while its command runs (as `timeout` does)
#   4. `rig.sh run` is sent SIGINT (Ctrl-C)
#   5. `rig.sh up` fails half way (the second host's veth name is taken)
# After each: no state dir, no interface of the rig, no named netns, no
# holder process, no process that was started on a host.
#
#   teardown_after_failure.sh [openmpi|mpich]     (default openmpi)
# Exit 0 = all clean, 1 = a leftover or an unexpected outcome, 77 = skipped.
set -uo pipefail
RIG=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts/rig" && pwd)
MPI=${1:-openmpi}
NAME=dartfail
# A marker no other process on this machine has on its command line, so a
# process the test started on a host can be found afterwards (pgrep -x: the
# whole command line is "sleep <MARK>", not a launcher's that mentions it).
MARK=$((900000 + $$ % 99999))

[[ $(id -u) == 0 ]] || { echo "SKIP: needs root"; exit 77; }
for t in ip unshare nsenter timeout; do
  command -v "$t" >/dev/null || { echo "SKIP: '$t' not found"; exit 77; }
done

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# Holders made by an earlier, crashed run of this test would spoil the result.
"$RIG/rig.sh" down --name "$NAME" >/dev/null 2>&1 || true

check_clean() {
  local what=$1 out
  out=$("$RIG/rig.sh" leftovers --name "$NAME")
  [[ -z $out ]] || fail "$what: $out"
  if pgrep -xf "sleep $MARK" >/dev/null; then
    fail "$what: a process started on a host survives: $(pgrep -axf "sleep $MARK")"
  fi
  [[ -n $out ]] || echo "ok: $what: nothing left"
}

# 1. A failing command that first starts a background process on host 1.
rc=0
"$RIG/rig.sh" run --name "$NAME" --hosts 2 -- \
  sh -c "'$RIG/rig-agent' $NAME-h1 'sleep $MARK >/dev/null 2>&1 &'; sleep 0.2;
         pgrep -xf 'sleep $MARK' >/dev/null || exit 3; exit 42" || rc=$?
[[ $rc == 42 ]] || fail "1: expected the command's status 42, got $rc"
check_clean "1 (command fails)"

# 2. An MPI job across the hosts that fails on every rank (`false`).
rc=0
RIG_NAME=$NAME RIG_TIMEOUT=60 RIG_PPN=1 \
  "$RIG/run-multihost.sh" "$MPI" /bin/false >/dev/null 2>&1 || rc=$?
[[ $rc != 0 && $rc != 77 ]] || fail "2: expected the job to fail, got status $rc"
check_clean "2 (MPI job fails, status $rc)"

# 3 and 4. A signal while the command runs.
for sig in TERM INT; do
  # A script's background job starts with SIGINT ignored, and bash cannot
  # trap a signal ignored at entry; env --default-signal undoes that, as a
  # terminal's Ctrl-C would find it.
  env --default-signal=INT "$RIG/rig.sh" run --name "$NAME" --hosts 2 -- \
    sh -c "'$RIG/rig-agent' $NAME-h2 'sleep $MARK'" >/dev/null 2>&1 &
  pid=$!
  # Wait until the process on the host exists, i.e. the rig is fully up.
  for _ in $(seq 100); do pgrep -xf "sleep $MARK" >/dev/null && break; sleep 0.1; done
  pgrep -xf "sleep $MARK" >/dev/null || fail "$sig: the rig did not come up"
  kill -"$sig" "$pid"
  rc=0; wait "$pid" || rc=$?
  [[ $rc != 0 ]] || fail "$sig: rig.sh run exited 0 after SIG$sig"
  check_clean "SIG$sig (status $rc)"
done

# 5. Setup fails half way: an interface named like host 2's veth exists, so
# `up` fails after creating the bridge and host 1. Our own interface is
# removed by us afterwards; the check runs before that, so it is excluded.
ip link add "$NAME-h2" type veth peer name "$NAME-x2"
rc=0
"$RIG/rig.sh" up --name "$NAME" --hosts 2 >/dev/null 2>&1 || rc=$?
[[ $rc != 0 ]] || fail "5: rig.sh up succeeded although $NAME-h2 was taken"
out=$("$RIG/rig.sh" leftovers --name "$NAME" | grep -v "interface $NAME-h2\$")
ip link del "$NAME-h2"   # and its peer
if [[ -n $out ]]; then fail "5 (setup fails): $out"; else echo "ok: 5 (setup fails, status $rc): nothing left"; fi

if ((failures)); then echo "$failures failure(s)"; exit 1; fi
echo "PASSED: the rig leaves nothing behind"
