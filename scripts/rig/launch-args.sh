# Launcher arguments for a job on the rig, shared by run-multihost.sh and
# rig-launcher (sourced, not run).
#
#   rig_launch_args <openmpi|mpich> <np> <ppn>
# sets `launcher` (the real mpirun/mpiexec) and `args` (its options for the
# rig, without the program). Needs the rig's state (RIG_DIR, RIG_CIDR,
# RIG_BRIDGE_ADDR, ...) in the environment and HERE = scripts/rig.
rig_launch_args() {
  local mpi=$1 np=$2 PPN=$3
  case $mpi in
    openmpi) launcher=mpirun.openmpi ;;
    mpich)   launcher=mpiexec.mpich ;;
    *) echo "rig: MPI must be openmpi or mpich" >&2; return 2 ;;
  esac
  # RIG_FIRST_HOST=i starts the host list (and so rank 0) at host i, as a
  # cluster's hostfile or batch allocation may put the job's first rank on
  # a host other than the one it is launched from.
  local hf_ompi=$RIG_DIR/hostfile.ompi hf_hydra=$RIG_DIR/hostfile.hydra
  if [[ -n ${RIG_FIRST_HOST:-} && ${RIG_FIRST_HOST} != 1 ]]; then
    local f
    for f in ompi hydra; do
      local src=$RIG_DIR/hostfile.$f dst=$RIG_DIR/hostfile.$f.from$RIG_FIRST_HOST
      { tail -n +"$RIG_FIRST_HOST" "$src"; head -n $((RIG_FIRST_HOST - 1)) "$src"; } >"$dst"
    done
    hf_ompi=$RIG_DIR/hostfile.ompi.from$RIG_FIRST_HOST hf_hydra=$RIG_DIR/hostfile.hydra.from$RIG_FIRST_HOST
  fi
  if [[ $mpi == openmpi ]]; then
    # Why each flag (each checked on this machine; docs/multihost.md "Multi-host rig"):
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
          --hostfile "$hf_ompi" -np "$np" --map-by "ppr:$PPN:node"
          --mca plm_rsh_agent "$HERE/rig-agent"
          --mca oob_tcp_if_include "$RIG_CIDR"
          --bind-to none)
    # mpi_yield_when_idle: the rig's hosts share this machine's cores, but
    # each host's slots say it has cores of its own, so Open MPI does not
    # see the job as oversubscribed and its waits spin without yielding;
    # a unit that waits for a partner then holds the CPU the partner needs.
    # 2 hosts x 2 on 2 cores: dart_teams 51 s -> 4.6 s, raw MPI GUPS (one
    # MPI_Fetch_and_op + flush per update) 31 ms -> 2.3 ms per update.
    if ((np > $(nproc))); then args+=(--mca mpi_yield_when_idle 1); fi
    # RIG_OMPI_TRANSPORT replaces the transport choice, for experiments.
    # shellcheck disable=SC2206
    args+=(${RIG_OMPI_TRANSPORT:---mca pml ucx --mca osc sm,ucx
           --mca pml_ucx_tls any --mca pml_ucx_devices any
           --mca osc_ucx_tls any --mca osc_ucx_devices any
           -x UCX_NET_DEVICES=eth0})
    for v in $(compgen -e | grep '^DART_' || true); do args+=(-x "$v"); done
  else
    # hydra: the rsh launcher with our agent; -localhost: the address proxies
    # connect back to (this machine's own name resolves to eth0, which the
    # hosts cannot reach). UCX: TCP over the rig's eth0 and loopback to self.
    export UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0}
    args=(-launcher rsh -launcher-exec "$HERE/rig-agent"
          -f "$hf_hydra" -localhost "$RIG_BRIDGE_ADDR"
          -n "$np" -ppn "$PPN")
  fi
}
