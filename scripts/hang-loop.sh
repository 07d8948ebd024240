#!/usr/bin/env bash
# Runs an MPI test program RUNS times in a row and, when a run outlives its
# deadline, records what the kernel and the debugger see of every thread of
# every rank before ending the job: the evidence a hang needs (docs/performance.md,
# "Tests and benchmarks").
#
#   hang-loop.sh <openmpi|mpich> <runs> <ranks> <exe> [args...]
#
# Environment:
#   HANG_DEADLINE  seconds a run may take before it counts as hung (default 60)
#   HANG_DIR       where each hang's record goes (default /tmp/hang-loop),
#                  one directory per hung run: <HANG_DIR>/<exe>-<mpi>-<date>-run<i>/
#   HANG_RIG=1     run across the rig's hosts (scripts/rig/run-multihost.sh,
#                  RIG_HOSTS x RIG_PPN units; <ranks> is then ignored)
#   HANG_STOP=1    stop at the first hang instead of going on
#   anything else (DART_*, BOOST_TEST_RUN_FILTERS, ...) reaches the ranks.
#
# A record holds, per rank and thread: /proc/<pid>/task/<tid>/{stat,status,
# wchan,syscall,stack,sched} read twice 2 s apart (a thread whose context
# switch counts did not move in between has not run), `gdb -batch -ex
# 'thread apply all bt'` of each rank, and /proc/timer_list and
# /proc/interrupts at both reads (the pending timers by task, each CPU's
# next programmed timer event and its local timer interrupt count).
# A run that ends while being recorded counts as slow, with its own exit
# status. Prints one line per run that hung, was slow or did not exit 0,
# and a summary; exit 0 only if every run exited 0.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($# >= 4)) || { sed -n '2,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2; }
mpi=$1 runs=$2 np=$3; shift 3
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift
[[ -x $exe ]] || { echo "hang-loop: $exe is not an executable" >&2; exit 2; }
deadline=${HANG_DEADLINE:-60}
outdir=${HANG_DIR:-/tmp/hang-loop}
case $mpi in
  openmpi) launch=(mpirun.openmpi --oversubscribe --bind-to none -n "$np")
           [[ $(id -u) == 0 ]] && launch+=(--allow-run-as-root)
           for v in $(compgen -e | grep -E '^(DART_|BOOST_TEST_|UCX_)'); do launch+=(-x "$v"); done ;;
  mpich)   launch=(mpiexec.mpich -n "$np")
           # As the CTest helper and dartrun set it under MPICH (docs/mpi-workarounds.md,
           # "Working around the MPI").
           export UCX_MEM_MMAP_HOOK_MODE=${UCX_MEM_MMAP_HOOK_MODE:-none} ;;
  *) echo "hang-loop: MPI must be openmpi or mpich" >&2; exit 2 ;;
esac
[[ ${HANG_RIG:-0} == 1 ]] && launch=("$HERE/rig/run-multihost.sh" "$mpi")

# Every descendant of pid $1 whose executable is $exe.
ranks_of() {
  local root=$1 p pp line
  local -A kids=()
  for p in /proc/[0-9]*; do
    read -r line 2>/dev/null <"$p/stat" || continue  # no fork per process: fast under load
    line=${line##*) }
    read -r _ pp _ <<<"$line"  # state, then the parent's pid
    kids[$pp]+=" ${p#/proc/}"
  done
  local todo=("$root") found=()
  while ((${#todo[@]})); do
    pp=${todo[0]}; todo=("${todo[@]:1}")
    for p in ${kids[$pp]:-}; do
      todo+=("$p")
      [[ $(readlink "/proc/$p/exe" 2>/dev/null) == "$exe" ]] && found+=("$p")
    done
  done
  echo "${found[@]:-}"
}

# For a thread in nanosleep (35) or clock_nanosleep (230): the timespec it
# asked the kernel for, read from its memory (a sleep that does not end may
# have been asked for far longer than the program meant).
sleep_request() {
  local pid=$1 t=$2 nr a1 a3 req
  read -r nr a1 _ a3 _ <"$t/syscall" 2>/dev/null || return 0
  case $nr in 35) req=$a1 ;; 230) req=$a3 ;; *) return 0 ;; esac
  python3 - "$pid" "$req" <<'PY' 2>&1
import struct, sys
pid, addr = int(sys.argv[1]), int(sys.argv[2], 16)
with open(f"/proc/{pid}/mem", "rb") as m:
    m.seek(addr)
    sec, nsec = struct.unpack("qq", m.read(16))
print(f"sleep request at {addr:#x}: tv_sec {sec}, tv_nsec {nsec}")
PY
}

# One read of every thread of the ranks into $1.
snapshot() {
  local f=$1 pid t; shift
  {
    echo "== $(date +%T.%N) uptime $(cut -d' ' -f1 /proc/uptime)"
    for pid in "$@"; do
      for t in /proc/"$pid"/task/*; do
        [[ -d $t ]] || continue
        echo "-- rank pid $pid tid ${t##*/} comm $(cat "$t/comm" 2>/dev/null)"
        echo "stat: $(cat "$t/stat" 2>/dev/null)"
        grep -E '^(State|voluntary_ctxt_switches|nonvoluntary_ctxt_switches|Cpus_allowed_list)' "$t/status" 2>/dev/null
        echo "wchan: $(cat "$t/wchan" 2>/dev/null)"
        echo "syscall: $(cat "$t/syscall" 2>/dev/null)"
        echo "timerslack_ns: $(cat "$t/timerslack_ns" 2>/dev/null)"
        sleep_request "$pid" "$t"
        grep -E '^(se\.exec_start|se\.sum_exec_runtime|nr_switches|nr_voluntary_switches|nr_involuntary_switches|se\.nr_migrations|nr_wakeups )' "$t/sched" 2>/dev/null
        echo "stack:"; cat "$t/stack" 2>/dev/null
      done
    done
  } >"$f"
}

record() {
  local dir=$1; shift
  mkdir -p "$dir"
  cp /proc/timer_list "$dir/timer_list.1"; cp /proc/interrupts "$dir/interrupts.1"
  snapshot "$dir/threads.1" "$@"
  sleep 2
  cp /proc/timer_list "$dir/timer_list.2"; cp /proc/interrupts "$dir/interrupts.2"
  snapshot "$dir/threads.2" "$@"
  local pid
  for pid in "$@"; do
    timeout 60 gdb -p "$pid" -batch -ex 'info threads' -ex 'thread apply all bt' >"$dir/gdb.$pid" 2>&1
  done
  ps -L -o pid,tid,stat,wchan:32,pcpu,comm -p "$(IFS=,; echo "$*")" >"$dir/ps" 2>&1
}

mkdir -p "$outdir"
declare -A count=()
fail=0 hung=0 slow=0 start=$SECONDS
for ((i = 1; i <= runs; ++i)); do
  log=$(mktemp "$outdir/run.XXXXXX")
  setsid "${launch[@]}" "$exe" "$@" >"$log" 2>&1 &
  job=$!
  t0=$SECONDS
  while kill -0 "$job" 2>/dev/null && ((SECONDS - t0 < deadline)); do sleep 0.2; done
  if kill -0 "$job" 2>/dev/null; then
    dir="$outdir/$(basename "$exe")-$mpi-$(date +%Y%m%d-%H%M%S)-run$i"
    pids=$(ranks_of "$job")
    # shellcheck disable=SC2086
    record "$dir" $pids
    mv "$log" "$dir/output"
    if kill -0 "$job" 2>/dev/null; then
      kill -TERM -- -"$job" 2>/dev/null; sleep 2; kill -KILL -- -"$job" 2>/dev/null
      wait "$job" 2>/dev/null
      rc=124 hung=$((hung + 1))
      echo "run $i: hung after ${deadline}s; ranks $pids; record in $dir"
    else
      # It ended while being recorded: slow (starved of CPU, say), not
      # stuck; the record shows how it stood at the deadline.
      wait "$job"; rc=$?
      slow=$((slow + 1))
      echo "run $i: slow: outlived ${deadline}s, then exited $rc while recorded; record in $dir"
    fi
  else
    wait "$job"; rc=$?
    if ((rc != 0)); then echo "run $i: exit $rc; output in $log"; else rm -f "$log"; fi
  fi
  count[$rc]=$((${count[$rc]:-0} + 1))
  ((rc == 0)) || fail=1
  [[ ${HANG_STOP:-0} == 1 && $rc == 124 ]] && break
done
summary=""
for rc in "${!count[@]}"; do summary+=" exit $rc: ${count[$rc]};"; done
echo "hang-loop: $(basename "$exe") under $mpi, $((i > runs ? runs : i)) runs in $((SECONDS - start)) s, $hung hung, $slow slow:${summary%;}"
exit $fail
