#!/usr/bin/env bash
# The job's stdin path across hosts: stdin_gen SIZE | dartrun --stdin T ...
# with the job on the rig (rig-launcher), so the unit that hosts the stdin
# server (unit 0, host 1) forwards the stream over MPI to unit T on the
# other host. run_case.sh checks every unit's bytes, EOF once, the exit
# codes and that dartrun saw as many XON as XOFF.
#
#   stdin_across_hosts.sh GEN DARTRUN READER SIZE TARGET [FIRST_HOST [RUN_CASE_ARGS...]]
# FIRST_HOST (default 1) is the host the launcher puts unit 0 on; with 2,
# dartrun on the rig's head reaches the stdin server on the second host
# through its TCP rendezvous (DARTRUN_RENDEZVOUS=tcp), and the test checks
# that unit 0 did run there. RUN_CASE_ARGS go to run_case.sh (e.g.
# --progress --memory KIB -- --pause-at ...).
# Needs the rig $RIG_NAME up (the multihost.rig.setup fixture); exits 77
# (skipped) when it is not, as every multi-host test does without root.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RIG=$HERE/../../scripts/rig
gen=$1 dartrun=$2 reader=$3 size=$4 target=$5 first=${6:-1}
shift $(($# < 6 ? $# : 6))
name=${RIG_NAME:-dartrig}
if [[ $(id -u) != 0 || ! -f ${RIG_ROOT:-/run/dart-rig}/$name/env ]]; then
  echo "stdin_across_hosts: SKIP: rig $name is not up (needs root)" >&2
  exit 77
fi
. "${RIG_ROOT:-/run/dart-rig}/$name/env"
read -r -a addrs <<<"$RIG_ADDRS"
np=$((${#addrs[@]} * ${RIG_PPN:-2}))
export DARTRUN_LAUNCHER=$RIG/rig-launcher
export RIG_FIRST_HOST=$first
[[ $first == 1 ]] || export DARTRUN_RENDEZVOUS=tcp
rc=0
out=$(mktemp "${TMPDIR:-/tmp}/stdin-hosts-XXXXXX")
"$HERE/../stdin/run_case.sh" "$gen" "$dartrun" "$reader" "$np" "$size" --stdin "$target" "$@" | tee "$out" ||
  rc=${PIPESTATUS[0]}
if [[ $first != 1 ]] && ! grep -q "stdin_reader: unit 0: .*host=$name-h$first " "$out"; then
  echo "stdin_across_hosts: FAIL: unit 0 did not run on $name-h$first"
  rc=1
fi
rm -f "$out"
RIG_QUIET=1 "$RIG/rig.sh" reap --name "$name" || true
exit $rc
