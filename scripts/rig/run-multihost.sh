#!/usr/bin/env bash
# Run an MPI program across the simulated hosts of the rig (rig.sh).
#
#   run-multihost.sh <openmpi|mpich> <exe> [args...]
#
# Uses the rig named $RIG_NAME (default dartrig) if it is up (e.g. made by the
# CTest fixture multihost.rig.setup) and leaves it up; otherwise creates one
# with $RIG_HOSTS hosts (default 2) and removes it when done, however this
# script ends. The job gets $RIG_PPN units per host (default 2), placed by
# host: ranks 0..PPN-1 on host 1, the next PPN on host 2, and so on. The
# launcher runs here (in the root namespaces, like a login node) and is
# bounded by `timeout` ($RIG_TIMEOUT seconds, default 120). After the job,
# anything it left running on the hosts is killed and listed.
#
# Other environment:
#   RIG_MPI_FLAGS   extra launcher flags (word-split), appended last
#   DART_*          forwarded to every rank (hydra forwards the whole
#                   environment anyway; Open MPI needs -x)
# Exit status: the job's (124 = timed out), 77 = skipped (no root, no tools).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RIG_ROOT=${RIG_ROOT:-/run/dart-rig}

(($# >= 2)) || { sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2; }
mpi=$1; shift
exe=$1; shift
[[ -x $exe ]] || { echo "run-multihost: $exe is not an executable" >&2; exit 2; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")

NAME=${RIG_NAME:-dartrig}
NHOSTS=${RIG_HOSTS:-2}
PPN=${RIG_PPN:-2}
TMO=${RIG_TIMEOUT:-120}

if [[ $(id -u) != 0 ]]; then echo "run-multihost: SKIP: needs root" >&2; exit 77; fi
for t in ip unshare nsenter timeout; do
  command -v "$t" >/dev/null || { echo "run-multihost: SKIP: '$t' not found" >&2; exit 77; }
done

case $mpi in
  openmpi) launcher=mpirun.openmpi ;;
  mpich)   launcher=mpiexec.mpich ;;
  *) echo "run-multihost: MPI must be openmpi or mpich" >&2; exit 2 ;;
esac
command -v "$launcher" >/dev/null || { echo "run-multihost: SKIP: $launcher not found" >&2; exit 77; }

own_rig=0
if [[ ! -f $RIG_ROOT/$NAME/env ]]; then
  "$HERE/rig.sh" up --name "$NAME" --hosts "$NHOSTS" >/dev/null
  own_rig=1
fi
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  RIG_QUIET=1 "$HERE/rig.sh" reap --name "$NAME" || true
  if ((own_rig)); then "$HERE/rig.sh" down --name "$NAME" || true; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The state file is written by rig.sh up.
set -a
# shellcheck source=/dev/null
. "$RIG_ROOT/$NAME/env"
set +a
read -r -a addrs <<<"$RIG_ADDRS"
((${#addrs[@]} >= 1)) || { echo "run-multihost: rig $NAME has no hosts" >&2; exit 1; }
np=$((${#addrs[@]} * PPN))

# shellcheck source=launch-args.sh
. "$HERE/launch-args.sh"
rc=0
rig_launch_args "$mpi" "$np" "$PPN" || rc=$?
((rc == 0)) || exit $rc
# shellcheck disable=SC2206
extra=(${RIG_MPI_FLAGS:-})

echo "run-multihost: $launcher ${args[*]} ${extra[*]} $exe $*" >&2
# In the background + wait, so that SIGINT/SIGTERM reach us at once (bash
# defers traps until a foreground command ends); `timeout` passes the
# SIGTERM on to the launcher, which stops its job.
timeout --kill-after=5 "$TMO" "$launcher" "${args[@]}" "${extra[@]}" "$exe" "$@" &
tpid=$!
trap 'kill -TERM $tpid 2>/dev/null; wait $tpid; exit 130' INT
trap 'kill -TERM $tpid 2>/dev/null; wait $tpid; exit 143' TERM
rc=0
wait "$tpid" || rc=$?
if ((rc == 124)); then echo "run-multihost: TIMEOUT after ${TMO}s" >&2; fi
exit $rc
