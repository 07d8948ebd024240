#!/usr/bin/env bash
# The multi-host rig: N simulated hosts on this machine, for running MPI jobs
# whose units really sit on different "hosts".
#
# Each host is one long-lived holder process started by `unshare` with its own
# network, UTS (host name), IPC, PID and mount namespaces; in its mount
# namespace /dev/shm is a private tmpfs. Everything that runs "on" the host is
# entered into those namespaces with `nsenter -t <holder> -a` (see rig-agent,
# the stand-in for ssh). Why each namespace:
#   net   each host has its own eth0 (one end of a veth pair whose other end
#         sits on a bridge the rig creates), its own address in a private
#         subnet, and no route anywhere else, so traffic stays on the rig;
#   uts   distinct host names: MPI decides "same node" by host name (Open MPI
#         names its shared-memory files after it and crashes when they
#         collide), and DART's node-local teams follow MPI's split;
#   ipc, pid and a private /dev/shm: UCX and other shared-memory transports
#         also find peers through SysV IPC, POSIX shm files and process ids
#         (CMA); with them shared, "hosts" would still talk by shared memory.
# /tmp and the rest of the file system stay shared, like a cluster's shared
# file system: the build directory is visible on every host.
#
# The bridge in the root namespace has the subnet's .1 address, so launchers
# (mpirun, mpiexec) can run here, as on a login node, and reach the hosts.
# Host i (1-based) is <name>-h<i> at <subnet>.<10+i>.
#
# Usage (root):
#   rig.sh up     [--name N] [--hosts K] [--subnet A.B.C] [--replace]
#                 create, print the state dir (--replace: remove an existing
#                 rig of that name first)
#   rig.sh down   [--name N]       remove exactly what `up` recorded
#   rig.sh run    [--name N] [--hosts K] [--subnet A.B.C] -- CMD...
#                 up, run CMD with RIG_* in its environment, down (always)
#   rig.sh exec   [--name N] HOST CMD...   run CMD on HOST (host name or address)
#   rig.sh reap   [--name N]       kill every process on the hosts except the holders
#   rig.sh status [--name N]
#   rig.sh leftovers [--name N]    print anything of rig N that still exists; exit 1 if any
#
# State lives in /run/dart-rig/<name>/ (RIG_ROOT overrides /run/dart-rig):
#   created    one line per object created, in order: bridge, veth, holder
#              (teardown undoes exactly these, newest first)
#   hosts/<h>  the holder's ns-init pid and its start time (so a recycled pid
#              is never mistaken for it)
#   hostfile   one address per line, "slots=" for Open MPI (hostfile.ompi)
#              and "addr:slots" for hydra (hostfile.hydra)
#   env        RIG_NAME, RIG_DIR, RIG_SUBNET, RIG_CIDR, RIG_BRIDGE_ADDR, RIG_HOSTS, RIG_ADDRS
#
# Exit status 77 (CTest's SKIP_RETURN_CODE in tests/multihost) means the rig
# cannot be built here: not root, or ip/unshare/nsenter missing.
set -euo pipefail

RIG_ROOT=${RIG_ROOT:-/run/dart-rig}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "rig: $*" >&2; exit 1; }
skip() { echo "rig: SKIP: $*" >&2; exit 77; }
log() { [[ -n ${RIG_QUIET:-} ]] || echo "rig: $*" >&2; }

require_capable() {
  [[ $(id -u) == 0 ]] || skip "needs root (network, UTS, IPC, PID and mount namespaces)"
  local t
  for t in ip unshare nsenter; do
    command -v "$t" >/dev/null 2>&1 || skip "'$t' not found (Debian: iproute2, util-linux)"
  done
  # Root is not always enough (a container without CAP_SYS_ADMIN or
  # CAP_NET_ADMIN): try what the rig does before making anything.
  unshare --net --uts --ipc --pid --mount --fork true 2>/dev/null ||
    skip "cannot create network/UTS/IPC/PID/mount namespaces here"
  local probe=dartprobe$$
  ip link add name "$probe" type bridge 2>/dev/null || skip "cannot create a bridge here (no CAP_NET_ADMIN?)"
  ip link del "$probe" 2>/dev/null || true
}

# Start time of a pid in clock ticks since boot (field 22 of /proc/PID/stat),
# empty if the process does not exist.
starttime() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  # The command name (field 2) may hold spaces; cut after its closing paren.
  stat=${stat##*) }
  set -- $stat
  echo "${20}"
}

# --- arguments -------------------------------------------------------------
NAME=${RIG_NAME:-dartrig}
HOSTS=2
SUBNET=""
REPLACE=0
parse_common() {
  ARGS=()
  while (($#)); do
    case $1 in
      --name) NAME=$2; shift 2 ;;
      --hosts) HOSTS=$2; shift 2 ;;
      --subnet) SUBNET=$2; shift 2 ;;
      --replace) REPLACE=1; shift ;;
      --) shift; ARGS+=("$@"); break ;;
      *) ARGS+=("$1"); shift ;;
    esac
  done
  # Interface names are at most 15 bytes: "<name>-br", "<name>-h<i>".
  [[ $NAME =~ ^[a-z][a-z0-9]{0,9}$ ]] || die "--name must be [a-z][a-z0-9]{0,9}, got '$NAME'"
  [[ $HOSTS =~ ^[1-9]$ ]] || die "--hosts must be 1..9"
  DIR=$RIG_ROOT/$NAME
  BRIDGE=$NAME-br
}

# The default subnet depends on the name, so rigs of different names can
# coexist: 10.231.<n>.0/24 with n from a checksum of the name.
default_subnet() {
  local sum
  sum=$(printf '%s' "$NAME" | cksum | cut -d' ' -f1)
  echo "10.231.$((sum % 200 + 20))"
}

record() { echo "$*" >>"$DIR/created"; }

# --- teardown --------------------------------------------------------------
# Undo what $DIR/created lists, newest first. Each step checks that the
# object is still the one we created and ignores what is already gone, so
# teardown may run twice or after a partial `up`.
teardown() {
  # Never stop half way: a process that vanishes while we look at it must
  # not abort the removal of the rest.
  local -
  set +e
  [[ -d $DIR ]] || return 0
  local kind a b
  if [[ -f $DIR/created ]]; then
    while read -r kind a b; do
      case $kind in
        holder)
          # a = unshare's pid (root pid namespace), b = its start time. The
          # ns init is its child; SIGKILL to the init kills every process in
          # the host's pid namespace (the kernel does that when a pid
          # namespace's init dies), which frees the network namespace and so
          # the veth end inside it.
          if [[ $(starttime "$a") == "$b" ]]; then
            local child
            for child in $(cat "/proc/$a/task/$a/children" 2>/dev/null); do
              kill -KILL "$child" 2>/dev/null || true
            done
            kill -KILL "$a" 2>/dev/null || true
            # Wait (bounded) until it is gone, so the namespaces are freed
            # before we look for leftovers.
            local i
            for i in $(seq 50); do [[ -e /proc/$a ]] || break; sleep 0.1; done
          fi ;;
        veth|bridge)
          ip link show "$a" >/dev/null 2>&1 && ip link del "$a" 2>/dev/null || true ;;
      esac
    done < <(tac "$DIR/created")
  fi
  # Safety net: a holder of this rig that is not (yet) in `created`, e.g.
  # when `up` was interrupted while the holder's subshell was starting. Its
  # command line names the host, "rig-init <rig>-h<i>", which only this
  # rig's holders have.
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    if [[ $(cat "/proc/$p/comm" 2>/dev/null) == unshare ]] &&
       tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qE "rig-init $NAME-h[0-9]+ ?$"; then
      kill -KILL "$p" 2>/dev/null
    fi
  done
  rm -rf "$DIR"
  log "rig '$NAME' removed"
}

# --- up --------------------------------------------------------------------
start_holder() {
  local i=$1 host=$2 addr=$3
  # The holder is started from a subshell that first records itself in
  # `created` (its pid and start time stay the same across exec), so a
  # signal that interrupts us right after the fork cannot leave an
  # unrecorded holder. It closes every inherited descriptor: a holder must
  # not keep a caller's terminal, pipes or log files open (CTest waits for
  # a test's output pipe to close, and would wait for the holder's life).
  # --kill-child: if unshare itself is killed, its child (the ns init) gets
  # SIGKILL too. The init sets the host name, mounts the private /dev/shm
  # and then waits forever, reaping orphans that the namespace hands to it.
  (
    echo "holder $BASHPID $(starttime "$BASHPID")" >>"$DIR/created"
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if ((fd > 2)); then eval "exec $fd>&-"; fi
    done
    exec setsid unshare --net --uts --ipc --pid --mount --fork --kill-child=KILL \
      --propagation private --mount-proc \
      sh -c 'hostname "$1" && mount -t tmpfs -o mode=1777,size=1g rigshm /dev/shm &&
             trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done' \
      rig-init "$host" </dev/null >/dev/null 2>&1
  ) &
  local upid=$!
  disown "$upid"   # no "Killed" job notice from bash at teardown
  local t
  for t in $(seq 100); do grep -q "^holder $upid " "$DIR/created" && break; sleep 0.02; done
  # Find the ns init (unshare's only child) and wait until its namespaces
  # are set up (host name set, /dev/shm mounted).
  local init=""
  for t in $(seq 100); do
    init=$(cat "/proc/$upid/task/$upid/children" 2>/dev/null | awk '{print $1}')
    if [[ -n $init ]] && [[ $(nsenter -t "$init" -u hostname 2>/dev/null) == "$host" ]] &&
       grep -q '^rigshm /dev/shm tmpfs' "/proc/$init/mounts" 2>/dev/null; then
      break
    fi
    init=""
    sleep 0.05
  done
  [[ -n $init ]] || die "holder of $host did not set up its namespaces"
  echo "$init $(starttime "$init") $addr" >"$DIR/hosts/$host"

  # Network: a veth pair, one end on the bridge, the other moved into the
  # host and renamed eth0 there.
  local veth=$NAME-h$i
  ip link add "$veth" type veth peer name "${veth}p"
  record veth "$veth"
  ip link set "${veth}p" netns "$init"
  ip link set "$veth" master "$BRIDGE" up
  nsenter -t "$init" -n sh -e -c "
    ip link set ${veth}p name eth0
    ip addr add $addr/24 dev eth0
    ip link set lo up
    ip link set eth0 up"
}

cmd_up() {
  require_capable
  [[ -n $SUBNET ]] || SUBNET=$(default_subnet)
  [[ $SUBNET =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--subnet takes the first three octets, e.g. 10.231.7"
  mkdir -p "$RIG_ROOT"
  exec 9>"$RIG_ROOT/.lock"
  flock 9
  if [[ -e $DIR ]]; then
    # --replace: a rig left by a crashed run (e.g. a CTest run killed before
    # its cleanup test) is removed first instead of blocking every later up.
    ((REPLACE)) || die "rig '$NAME' exists ($DIR); 'rig.sh down --name $NAME' first, or up --replace"
    log "removing the existing rig '$NAME' first (--replace)"
    teardown
  fi
  # Refuse a subnet that something on this machine already routes.
  if ip -4 route show | grep -q "^$SUBNET\."; then
    die "subnet $SUBNET.0/24 is already routed here; pick another with --subnet"
  fi
  ip link show "$BRIDGE" >/dev/null 2>&1 && die "interface $BRIDGE exists but is not ours"
  mkdir -p "$DIR/hosts"
  : >"$DIR/created"
  # From here on, any failure or interrupt removes what was created so far.
  trap 'rc=$?; trap - ERR INT TERM EXIT; log "setup failed, removing"; teardown; exit $((rc ? rc : 1))' ERR INT TERM
  trap 'rc=$?; if ((rc)); then trap - ERR INT TERM EXIT; teardown; fi' EXIT

  ip link add "$BRIDGE" type bridge
  record bridge "$BRIDGE"
  ip addr add "$SUBNET.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up

  local i host addr hosts=() addrs=()
  : >"$DIR/hostfile.ompi"; : >"$DIR/hostfile.hydra"
  for ((i = 1; i <= HOSTS; i++)); do
    host=$NAME-h$i
    addr=$SUBNET.$((10 + i))
    start_holder "$i" "$host" "$addr"
    hosts+=("$host"); addrs+=("$addr")
    # Addresses, not names: nothing here resolves the host names, and
    # editing /etc/hosts would touch this machine's configuration.
    echo "$addr slots=${RIG_SLOTS:-2}" >>"$DIR/hostfile.ompi"
    echo "$addr:${RIG_SLOTS:-2}" >>"$DIR/hostfile.hydra"
  done
  # Each host must reach the bridge and every other host before we say yes.
  # (No ping on a minimal Debian: a UDP datagram to the discard port makes
  # the kernel resolve the address by ARP, and a neighbour entry with a
  # link-layer address proves the peer answered.)
  for host in "${hosts[@]}"; do
    read -r init _ <"$DIR/hosts/$host"
    for addr in "$SUBNET.1" "${addrs[@]}"; do
      [[ $addr == $(awk '{print $3}' "$DIR/hosts/$host") ]] && continue
      nsenter -t "$init" -n bash -c '
        for t in $(seq 40); do
          (echo > /dev/udp/$1/9) 2>/dev/null
          ip neigh show "$1" | grep -q lladdr && exit 0
          sleep 0.05
        done; exit 1' reach "$addr" || die "$host cannot reach $addr"
    done
  done
  cat >"$DIR/env" <<EOF
RIG_NAME=$NAME
RIG_DIR=$DIR
RIG_SUBNET=$SUBNET
RIG_CIDR=$SUBNET.0/24
RIG_BRIDGE_ADDR=$SUBNET.1
RIG_HOSTS="${hosts[*]}"
RIG_ADDRS="${addrs[*]}"
EOF
  trap - ERR INT TERM EXIT
  exec 9>&-   # release the lock
  log "rig '$NAME' up: ${hosts[*]} on $SUBNET.0/24 (bridge $BRIDGE at $SUBNET.1)"
  echo "$DIR"
}

cmd_down() {
  require_capable
  mkdir -p "$RIG_ROOT"
  exec 9>"$RIG_ROOT/.lock"
  flock 9
  teardown
}

# Every process whose pid namespace is that of one of the rig's hosts.
host_pids() {
  local f init st _a pidns p
  for f in "$DIR"/hosts/*; do
    [[ -f $f ]] || continue
    read -r init st _a <"$f"
    [[ $(starttime "$init") == "$st" ]] || continue
    pidns=$(readlink "/proc/$init/ns/pid")
    for p in /proc/[0-9]*; do
      p=${p#/proc/}
      [[ $p == "$init" ]] && continue
      [[ $(readlink "/proc/$p/ns/pid" 2>/dev/null) == "$pidns" ]] || continue
      # The init's own `sleep` is part of the holder.
      [[ $(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) == "$init" &&
         $(cat "/proc/$p/comm" 2>/dev/null) == sleep ]] && continue
      echo "$p"
    done
  done
}

# After a job: kill whatever it left running on the hosts (a daemon the
# launcher did not stop, a rank of a timed-out run). Prints what it killed.
cmd_reap() {
  require_capable
  local -
  set +e    # processes may vanish while we look at them
  local p left=()
  for p in $(host_pids); do left+=("$p:$(cat /proc/$p/comm 2>/dev/null)"); kill -KILL "$p" 2>/dev/null || true; done
  if ((${#left[@]})); then echo "rig: reaped ${left[*]}" >&2; fi
  return 0
}

cmd_exec() {
  require_capable
  exec "$HERE/rig-agent" "${ARGS[@]}"
}

cmd_status() {
  [[ -d $DIR ]] || { echo "rig '$NAME': not up"; return 1; }
  cat "$DIR/env"
  local f
  for f in "$DIR"/hosts/*; do echo "host $(basename "$f"): $(cat "$f")"; done
  echo "processes on the hosts: $(host_pids | wc -l)"
}

# What of rig NAME exists now: its state dir, interfaces named after it,
# holder processes (unshare ... rig-init <name>-h*), named netns. Prints
# each leftover; exit 1 if there is any.
cmd_leftovers() {
  local found=0 l
  if [[ -e $DIR ]]; then echo "leftover: state dir $DIR"; found=1; fi
  while read -r l; do
    [[ -n $l ]] && { echo "leftover: interface $l"; found=1; }
  done < <(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
           grep -E "^$NAME-(br|h[0-9]p?)$" || true)
  while read -r l; do
    [[ -n $l ]] && { echo "leftover: netns $l"; found=1; }
  done < <(ip netns list 2>/dev/null | grep -E "^$NAME(-|$)" || true)
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    if tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qE "rig-init $NAME-h[0-9]+ ?$"; then
      echo "leftover: process $p ($(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-80))"; found=1
    fi
  done
  return $found
}

cmd_run() {
  local cmd=("${ARGS[@]}")
  ((${#cmd[@]})) || die "run: no command"
  ARGS=()
  # Set up (a failed or interrupted `up` removes what it made itself); from
  # then on tear down however we leave: success, failure, Ctrl-C, or SIGTERM
  # from a timeout.
  cmd_up >/dev/null
  trap 'trap - EXIT INT TERM; set +e; cmd_reap; cmd_down' EXIT
  set -a; . "$DIR/env"; set +a
  # The command runs in the background and we `wait` for it: bash runs a
  # trap only after the foreground command ends, but interrupts `wait`. On
  # SIGINT/SIGTERM the command gets SIGTERM (a background job of a script
  # ignores SIGINT), then the EXIT trap removes the rig, which also ends
  # everything the command started on the hosts.
  "${cmd[@]}" &
  local child=$! rc=0
  trap 'kill -TERM $child 2>/dev/null; exit 130' INT
  trap 'kill -TERM $child 2>/dev/null; exit 143' TERM
  wait "$child" || rc=$?
  exit $rc
}

sub=${1:-}
[[ -n $sub ]] || { sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2; }
shift
parse_common "$@"
case $sub in
  up) cmd_up ;;
  down) cmd_down ;;
  run) cmd_run ;;
  exec) cmd_exec ;;
  reap) cmd_reap ;;
  status) cmd_status ;;
  leftovers) cmd_leftovers ;;
  *) die "unknown command '$sub'" ;;
esac
