#!/usr/bin/env bash
# The job's stdin path across hosts: stdin_gen SIZE | dartrun --stdin T ...
# with the job on the rig (rig-launcher), so the unit that hosts the stdin
# server (unit 0, host 1) forwards the stream over MPI to unit T on the
# other host. run_case.sh checks every unit's bytes, EOF once, the exit
# codes and that dartrun saw as many XON as XOFF.
#
#   stdin_across_hosts.sh GEN DARTRUN READER SIZE TARGET
# Needs the rig $RIG_NAME up (the multihost.rig.setup fixture); exits 77
# (skipped) when it is not, as every multi-host test does without root.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RIG=$HERE/../../scripts/rig
gen=$1 dartrun=$2 reader=$3 size=$4 target=$5
name=${RIG_NAME:-dartrig}
if [[ $(id -u) != 0 || ! -f ${RIG_ROOT:-/run/dart-rig}/$name/env ]]; then
  echo "stdin_across_hosts: SKIP: rig $name is not up (needs root)" >&2
  exit 77
fi
if [[ ${RIG_MPI:-openmpi} == mpich && ${RIG_MPICH:-} != force ]]; then
  echo "stdin_across_hosts: SKIP: ${RIG_MPICH_REASON:-MPICH across hosts is unreliable here}; RIG_MPICH=force runs it" >&2
  exit 77
fi
. "${RIG_ROOT:-/run/dart-rig}/$name/env"
read -r -a addrs <<<"$RIG_ADDRS"
np=$((${#addrs[@]} * ${RIG_PPN:-2}))
export DARTRUN_LAUNCHER=$RIG/rig-launcher
rc=0
"$HERE/../stdin/run_case.sh" "$gen" "$dartrun" "$reader" "$np" "$size" --stdin "$target" || rc=$?
RIG_QUIET=1 "$RIG/rig.sh" reap --name "$name" || true
exit $rc
