#!/usr/bin/env bash
# OpenSHMEM on one node, 2 PEs: tests/perf/bench_shmem.c built against our
# installation (DART's OpenSHMEM), against Open MPI's oshmem and against
# OSHMPI over MPICH, the programs run alternately (ours, oshmem, OSHMPI,
# repeated --runs times) so all see the same machine. Every metric keeps its
# median over the runs. Prints one table (ours, the peers, the peers'
# figures over ours), checks the targets, and writes the runs' outputs, a
# CSV of the table, a CSV of latency against size and a plot of it (python3
# matplotlib or gnuplot when installed; an ASCII table otherwise) to --out.
#
# Usage: scripts/bench-shmem-compare.sh <prefix> [<second-prefix>] [--runs R] [--out DIR]
#                                       [--iterations N] [--rounds N] [--oshmpi DIR] [--no-peers]
#   <prefix>          our install tree (cmake --install <build> --prefix <prefix>):
#                     bin/oshcc builds, bin/oshrun launches
#   <second-prefix>   optional: a second install of ours, e.g. the MPICH build when
#                     <prefix> is the Open MPI one; run in the same rotation
#   --runs            runs of each program (default 3)
#   --out             output directory (default ./bench-shmem-out)
#   --iterations, --rounds  passed to bench_shmem (defaults: its own, 20000 and 7)
#   --oshmpi          OSHMPI's install tree (default /tmp/oshmpi-mpich-install)
#   --no-peers        ours only
# Nothing is downloaded: a peer that is not installed is skipped with a message.
set -uo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
src="$top/tests/perf/bench_shmem.c"
usage="usage: bench-shmem-compare.sh <prefix> [<second-prefix>] [--runs R] [--out DIR] [--iterations N] [--rounds N] [--oshmpi DIR] [--no-peers]"

prefixes=() runs=3 out=$PWD/bench-shmem-out oshmpi=/tmp/oshmpi-mpich-install peers=1 bench_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --iterations|--rounds) bench_args+=("$1" "$2"); shift 2 ;;
    --oshmpi) oshmpi=$2; shift 2 ;;
    --no-peers) peers=0; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    -*) echo "bench-shmem-compare: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
    *) prefixes+=("$(cd "$1" 2>/dev/null && pwd || echo "$1")"); shift ;;
  esac
done
if [ ${#prefixes[@]} -lt 1 ] || [ ${#prefixes[@]} -gt 2 ]; then
  echo "$usage" >&2
  exit 2
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)

tag=bench-shmem-compare
# shellcheck source-path=SCRIPTDIR source=lib/alternate-runs.sh
. "$top/scripts/lib/alternate-runs.sh"

# Which MPI an installation of ours runs on, from the libraries libdart needs.
mpi_of() {
  local lib deps
  lib=$(find "$1"/lib "$1"/lib64 -maxdepth 1 -name libdart.so 2> /dev/null | head -n 1)
  deps=$([ -n "$lib" ] && ldd "$lib" 2> /dev/null)
  case $deps in
    *libmpich*) echo mpich ;;
    *libmpi.so*) echo ompi ;;
    *) echo unknown ;;
  esac
}

i=0
for p in "${prefixes[@]}"; do
  if [ ! -x "$p/bin/oshcc" ] || [ ! -x "$p/bin/oshrun" ]; then
    echo "bench-shmem-compare: $p has no bin/oshcc and bin/oshrun (cmake --install <build> --prefix $p)" >&2
    exit 2
  fi
  name=ours
  [ ${#prefixes[@]} -gt 1 ] && name="ours-$(mpi_of "$p")"
  [ $i -gt 0 ] && [ "$name" = "${names[0]}" ] && name="$name-2"
  bin=$(alt_build "$name" "$p/bin/oshcc") || exit 1
  [ -x "$bin" ] || exit 1
  # oshrun is dartrun, which runs as root without a flag.
  alt_add "$name" "$bin" "$p/bin/oshrun -n 2"
  i=$((i + 1))
done

if [ $peers -eq 1 ]; then
  # Open MPI's oshmem: OpenSHMEM 1.4 (contexts, no signals, no non-blocking
  # atomics, active-set collectives). It crashes in shmem_finalize after the
  # program has run: its output decides, not its exit status.
  if [ -x /usr/bin/oshcc ] && command -v oshrun > /dev/null; then
    if bin=$(alt_build oshmem /usr/bin/oshcc) && [ -x "$bin" ]; then
      alt_add oshmem "$bin" "oshrun ${root_flag[*]} -n 2"
    fi
  else
    echo "bench-shmem-compare: Open MPI's oshmem (/usr/bin/oshcc, oshrun) not installed, skipped"
  fi
  # OSHMPI over MPICH: its header says 1.4 but it has the team collectives and
  # the non-blocking atomics; its put-with-signal routines abort (stubs), so
  # they stay out.
  if [ -x "$oshmpi/bin/oshcc" ] && command -v mpiexec.mpich > /dev/null; then
    if bin=$(alt_build oshmpi "$oshmpi/bin/oshcc" -DBENCH_HAVE_NBI_AMO=1 -DBENCH_HAVE_TEAMS=1) && [ -x "$bin" ]; then
      alt_add OSHMPI "$bin" "env UCX_MEM_MMAP_HOOK_MODE=none mpiexec.mpich -n 2"
    fi
  else
    echo "bench-shmem-compare: OSHMPI ($oshmpi/bin/oshcc, mpiexec.mpich) not installed, skipped"
  fi
fi

alt_run "$runs"

args=()
for k in "${!names[@]}"; do args+=("${names[$k]}=${files_of[$k]# }"); done
py=python3
# Debian's python3 has python3-matplotlib; another python3 first in PATH may not.
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" - "$out" "${args[@]}" << 'EOF'
import os, shutil, statistics, subprocess, sys

out = sys.argv[1]
impls = []  # (name, [files])
for a in sys.argv[2:]:
    name, _, files = a.partition("=")
    impls.append((name, [f for f in files.split() if f]))

def parse(path):
    res, sizes, notes = {}, {}, []
    for line in open(path, errors="replace"):
        w = line.split()
        if line.startswith("#"):
            notes.append(line.rstrip())
        elif len(w) >= 3 and w[0] == "RESULT":
            res[w[1]] = (None if w[2] == "n/a" else float(w[2]), w[3] if len(w) > 3 else "ns")
    return res, notes

data, units, notes = {}, {}, {}
for name, files in impls:
    per = {}
    for f in files:
        res, n = parse(f)
        notes.setdefault(name, n)
        for k, (v, u) in res.items():
            units[k] = u
            if v is not None:
                per.setdefault(k, []).append(v)
    data[name] = {k: statistics.median(v) for k, v in per.items()}
    data[name]["__runs"] = len(files)

names = [n for n, _ in impls]
ours = names[0]
peers = [n for n in names if not n.startswith("ours")]

def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "ops/s":
        return "%.3g" % v
    if unit == "x":
        return "%.2f" % v
    return "%.1f" % v if v < 1e4 else "%.0f" % v

order = ["put8_quiet", "get8", "p_quiet", "g", "pingpong_signal_rt", "pingpong_flag_rt", "fetch_add",
         "fetch_add_nbi", "fetch_add_minus_cpu_atomic", "barrier_all", "broadcast8", "alltoall8"]
keys = set()
for n in names:
    keys |= {k for k in data[n] if not k.startswith("__")}
ctx = sorted(k for k in keys if k.startswith("ctx_"))
base = ["cacheline_rt", "cacheline_oneway", "cpu_atomic", "memcpy8"]
sizes = sorted({int(k.split("_")[-1]) for k in keys if k.startswith("put_quiet_")})
rows = order + ctx + base

head = ["metric", "unit"] + names + ["%s/%s" % (p, ours) for p in peers]
table = []
for k in rows:
    u = units.get(k, "ns")
    line = [k, u] + [fmt(data[n].get(k), u) for n in names]
    for p in peers:
        a, b = data[ours].get(k), data[p].get(k)
        if a is None or b is None or a <= 0 or b <= 0 or u == "x" or k in base or k.startswith("fetch_add_minus"):
            line.append("-")
        else:
            # how many times better ours is: time ratio for ns, rate ratio for ops/s
            line.append("%.1f" % (b / a if u == "ns" else a / b))
    table.append(line)

w = [max(len(str(r[i])) for r in [head] + table) for i in range(len(head))]
print()
print("OpenSHMEM, one node, 2 PEs; medians of %s runs (%s)" %
      ("/".join(str(data[n]["__runs"]) for n in names), ", ".join(names)))
print("peer/ours columns: how many times faster ours is (> 1: ours faster)")
print(" | ".join(h.ljust(w[i]) for i, h in enumerate(head)))
print("-+-".join("-" * x for x in w))
for r in table:
    print(" | ".join(str(c).rjust(w[i]) if i else str(c).ljust(w[i]) for i, c in enumerate(r)))

with open(os.path.join(out, "bench-shmem.csv"), "w") as f:
    f.write(",".join(head) + "\n")
    for r in table:
        f.write(",".join(r) + "\n")

# Targets, ours against the baselines of its own runs and against the peers.
print("\ntargets (%s):" % ours)
o = data[ours]
def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "NOT met")
p8 = o.get("put8_quiet")
print("  8 B put + quiet <= 10 ns: %s ns -> %s" % (fmt(p8, "ns"), verdict(None if p8 is None else p8 <= 10)))
for p in peers:
    b = data[p].get("put8_quiet")
    ok = None if p8 is None or b is None else b / p8 >= 5
    print("  8 B put + quiet >= 5x faster than %s: %s x -> %s" % (p, "n/a" if ok is None else "%.1f" % (b / p8), verdict(ok)))
rt, ow, crt = o.get("pingpong_signal_rt"), o.get("cacheline_oneway"), o.get("cacheline_rt")
ok = None if rt is None or ow is None else rt <= 2 * ow
print("  put-with-signal ping-pong round trip <= 2 x one cache-line hand-off: %s ns vs 2 x %s ns "
      "(cache-line round trip %s ns) -> %s" % (fmt(rt, "ns"), fmt(ow, "ns"), fmt(crt, "ns"), verdict(ok)))
fa, ca = o.get("fetch_add"), o.get("cpu_atomic")
ok = None if fa is None or ca is None else fa - ca <= 5
print("  fetch-add within 5 ns of a CPU atomic: %s ns vs %s ns (+%s ns) -> %s" %
      (fmt(fa, "ns"), fmt(ca, "ns"), "n/a" if ok is None else "%.1f" % (fa - ca), verdict(ok)))

# Latency against size: CSV, ASCII table, plot when a plotter is installed.
csv = os.path.join(out, "bench-shmem-latency.csv")
cols = names + ["memcpy"]
with open(csv, "w") as f:
    f.write("bytes," + ",".join(cols) + "\n")
    for s in sizes:
        vals = [data[n].get("put_quiet_%d" % s) for n in names] + [o.get("memcpy_%d" % s)]
        f.write("%d,%s\n" % (s, ",".join("" if v is None else "%.3f" % v for v in vals)))
print("\nput + quiet latency against size (ns; memcpy from %s's runs)" % ours)
print("%10s | " % "bytes" + " | ".join("%12s" % c for c in cols))
for s in sizes:
    vals = [data[n].get("put_quiet_%d" % s) for n in names] + [o.get("memcpy_%d" % s)]
    print("%10d | " % s + " | ".join("%12s" % fmt(v, "ns") for v in vals))
print("\nwritten: %s, %s" % (os.path.join(out, "bench-shmem.csv"), csv))

png = os.path.join(out, "bench-shmem-latency.png")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for c in cols:
        key = (lambda s: "memcpy_%d" % s) if c == "memcpy" else (lambda s: "put_quiet_%d" % s)
        src = o if c == "memcpy" else data[c]
        pts = [(s, src[key(s)]) for s in sizes if key(s) in src]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=c + ("" if c == "memcpy" else ": put + quiet"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes")
    ax.set_ylabel("ns")
    ax.set_title("OpenSHMEM put + quiet latency, one node, 2 PEs")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    print("plot: %s (matplotlib)" % png)
except ImportError:
    gp = shutil.which("gnuplot")
    if gp:
        script = ["set terminal pngcairo size 840,540" if subprocess.run([gp, "-e", "set terminal pngcairo"],
                  capture_output=True).returncode == 0 else "set terminal png size 840,540",
                  "set output '%s'" % png, "set datafile separator ','", "set key autotitle columnhead",
                  "set logscale xy", "set xlabel 'bytes'", "set ylabel 'ns'",
                  "set title 'OpenSHMEM put + quiet latency, one node, 2 PEs'"]
        script.append("plot " + ", ".join("'%s' using 1:%d with linespoints" % (csv, i + 2) for i in range(len(cols))))
        subprocess.run([gp], input="\n".join(script), text=True)
        print("plot: %s (gnuplot)" % png)
    else:
        print("plot: neither python3-matplotlib nor gnuplot installed; the ASCII table above and the CSV stand in")
EOF
