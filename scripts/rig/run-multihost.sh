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
#   RIG_MPICH=force run MPICH even though it is unreliable here (see below)
#   DART_*          forwarded to every rank (hydra forwards the whole
#                   environment anyway; Open MPI needs -x)
# Exit status: the job's (124 = timed out), 77 = skipped (no root, no tools,
# or MPICH without RIG_MPICH=force).
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

if [[ $mpi == openmpi ]]; then
  # Why each flag (each checked on this machine; README "Multi-host rig"):
  #  plm_rsh_agent      the rig's ssh stand-in starts orted on each host
  #  oob_tcp_if_include the runtime's own traffic only on the rig's subnet
  #  pml ucx, osc sm,ucx  the one one-sided path across hosts that works for
  #                     an MPI_THREAD_MULTIPLE program (DART's harness and
  #                     progress thread ask for it): osc/rdma over btl tcp
  #                     fails MPI_Win_allocate across hosts, and osc/pt2pt
  #                     refuses MPI_THREAD_MULTIPLE in Open MPI 4.1.
  #  pml/osc_ucx_tls any, _devices any  Debian's defaults accept only
  #                     InfiniBand devices; without them pml ucx cannot be
  #                     selected at all
  #  UCX_NET_DEVICES=eth0  UCX's TCP only on the rig's interface (not lo);
  #                     its shared-memory transports stay on for units of one
  #                     host, and cannot reach across hosts because IPC, PID
  #                     and /dev/shm differ
  #  bind-to none       two simulated hosts share the same 2 cores
  args=(--allow-run-as-root --oversubscribe
        --hostfile "$RIG_DIR/hostfile.ompi" -np "$np" --map-by "ppr:$PPN:node"
        --mca plm_rsh_agent "$HERE/rig-agent"
        --mca oob_tcp_if_include "$RIG_CIDR"
        --bind-to none)
  # RIG_OMPI_TRANSPORT replaces the transport choice, for experiments.
  # shellcheck disable=SC2206
  args+=(${RIG_OMPI_TRANSPORT:---mca pml ucx --mca osc sm,ucx
         --mca pml_ucx_tls any --mca pml_ucx_devices any
         --mca osc_ucx_tls any --mca osc_ucx_devices any
         -x UCX_NET_DEVICES=eth0})
  for v in $(compgen -e | grep '^DART_' || true); do args+=(-x "$v"); done
else
  if [[ ${RIG_MPICH:-} != force ]]; then
    echo "run-multihost: SKIP: ${RIG_MPICH_REASON:-MPICH 4.0.2 (Debian 12) across hosts is unreliable here; set RIG_MPICH=force to run anyway}" >&2
    exit 77
  fi
  # hydra: the rsh launcher with our agent; -localhost: the address proxies
  # connect back to (this machine's own name resolves to eth0, which the
  # hosts cannot reach). UCX: TCP over the rig's eth0 and loopback to self.
  export UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0}
  args=(-launcher rsh -launcher-exec "$HERE/rig-agent"
        -f "$RIG_DIR/hostfile.hydra" -localhost "$RIG_BRIDGE_ADDR"
        -n "$np" -ppn "$PPN")
fi
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
