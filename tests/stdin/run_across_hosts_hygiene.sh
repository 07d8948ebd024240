#!/usr/bin/env bash
# dartrun with the job on the multi-host rig (scripts/rig/rig-launcher as its
# launcher; dartrun itself on the rig's head, where no unit runs):
#
#   run_across_hosts_hygiene.sh sigkill   DARTRUN UNIT_EXIT
#       every unit holds an object in /dev/shm (dart_memalloc beyond the
#       pool); unit 3, on the second host, is SIGKILLed while the others
#       wait in a barrier: dartrun must exit 137 and no object of the job
#       may remain in /dev/shm on any host (each host has its own).
#   run_across_hosts_hygiene.sh code5     DARTRUN UNIT_EXIT
#       unit 3, on the second host, calls exit(5) after dart_exit; dartrun's
#       directory is where no host sees it (its TMPDIR in the head's own
#       /dev/shm), and under MPICH hydra's status line is made to lose the
#       code (hydra_lost_status.sh, as hydra does by timing), so the code
#       can only come over the job channel: dartrun must exit 5. (Not while
#       the others wait in a barrier: MPICH 4.0.2 across hosts then hangs
#       the job even without dartrun.)
#   run_across_hosts_hygiene.sh placement DARTRUN READER GEN
#       unit 0 on the second host, no --rendezvous and no host option that
#       dartrun could see (the wrapper holds them): 1 MiB of stdin must reach
#       unit 0 exactly (run_case.sh), through the TCP rendezvous.
#
# Needs the rig $RIG_NAME up (rig.sh up) and RIG_MPI (openmpi or mpich);
# exits 77 (skipped) when it is not up, as every multi-host test does
# without root. Each run is bounded by timeout (RIG_CASE_TIMEOUT, 60 s).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RIG=$HERE/../../scripts/rig
case=${1:-} dartrun=${2:-} prog=${3:-}
if [[ -z $case || -z $dartrun || -z $prog ]]; then
  echo "usage: $0 sigkill|code5 DARTRUN UNIT_EXIT | placement DARTRUN READER GEN" >&2
  exit 2
fi
name=${RIG_NAME:-dartrig}
if [[ $(id -u) != 0 || ! -f ${RIG_ROOT:-/run/dart-rig}/$name/env ]]; then
  echo "run_across_hosts_hygiene: SKIP: rig $name is not up (needs root)" >&2
  exit 77
fi
. "${RIG_ROOT:-/run/dart-rig}/$name/env"
read -r -a hosts <<<"$RIG_HOSTS"
export RIG_NAME=$name RIG_PPN=${RIG_PPN:-2} DARTRUN_LAUNCHER=$RIG/rig-launcher
unset DARTRUN_RENDEZVOUS
np=$((${#hosts[@]} * RIG_PPN))
tmo=${RIG_CASE_TIMEOUT:-60}
ulimit -c 0
work=$(mktemp -d "${TMPDIR:-/tmp}/hygiene-XXXXXX")
cleanup() {
  rm -rf "$work"
  [[ -n ${hidden:-} ]] && rm -rf "$hidden"
  RIG_QUIET=1 "$RIG/rig.sh" reap --name "$name" >/dev/null 2>&1 || true
}
trap cleanup EXIT
fail() { echo "run_across_hosts_hygiene: $case: FAIL: $*"; exit 1; }

# The job's objects left on each host, and on the head (dartrun's).
leftovers() {
  local key=$1 h n total=0
  for h in "${hosts[@]}"; do
    n=$("$RIG/rig-agent" "$h" ls /dev/shm | grep -c "^dart-$key-")
    ((n)) && echo "  $h: $n objects of the job left in /dev/shm" >&2
    total=$((total + n))
  done
  n=$(ls /dev/shm | grep -c "^dart-$key-")
  ((n)) && echo "  head: $n objects of the job left in /dev/shm" >&2
  echo $((total + n))
}

key=$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')
[[ $key == 0000000000000000 ]] && key=0000000000000001
export DART_JOB_KEY=$key
last=$((np - 1))
case $case in
  sigkill)
    timeout --kill-after=5 "$tmo" "$dartrun" --stats -n "$np" "$prog" --unit "$last" --signal 9 --memalloc 33554432 \
      </dev/null >"$work/out" 2>&1
    rc=$?
    grep -v '^\s*$' "$work/out" | tail -n 8
    [[ $rc == 137 ]] || fail "dartrun exited $rc, expected 137"
    left=$(leftovers "$key")
    [[ $left == 0 ]] || fail "$left objects of the job left in /dev/shm"
    ;;
  code5)
    # A directory of the head's own /dev/shm: the rig's hosts each have a
    # private one, so no unit can write its exit report file there.
    hidden=$(mktemp -d /dev/shm/hygiene-XXXXXX)
    if [[ ${RIG_MPI:-openmpi} == mpich ]]; then
      export REAL_MPIEXEC=$DARTRUN_LAUNCHER DARTRUN_LAUNCHER=$HERE/hydra_lost_status.sh
    fi
    TMPDIR=$hidden timeout --kill-after=5 "$tmo" "$dartrun" --stats -n "$np" "$prog" --unit "$last" --code 5 --late \
      </dev/null >"$work/out" 2>&1
    rc=$?
    grep -v '^\s*$' "$work/out" | tail -n 8
    [[ $rc == 5 ]] || fail "dartrun exited $rc, expected 5"
    ;;
  placement)
    reader=$prog gen=${4:?placement needs GEN}
    export RIG_FIRST_HOST=2
    timeout --kill-after=5 "$tmo" "$HERE/run_case.sh" "$gen" "$dartrun" "$reader" "$np" 1048576 --stdin 0 \
      >"$work/out" 2>&1
    rc=$?
    cat "$work/out"
    grep -q "stdin_reader: unit 0: .*host=$name-h2 " "$work/out" || fail "unit 0 did not run on $name-h2"
    grep -q "run_case: PASS" "$work/out" || fail "run_case.sh exited $rc"
    grep -q "rendezvous=tcp" "$work/out" || fail "dartrun did not meet unit 0 over TCP"
    ;;
  *) echo "run_across_hosts_hygiene: unknown case $case" >&2; exit 2 ;;
esac
echo "run_across_hosts_hygiene: $case: PASS"
