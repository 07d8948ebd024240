#!/usr/bin/env bash
# The OpenSHMEM 1.6 routines on one node, 2 PEs, ours against Sandia
# OpenSHMEM: tests/perf/bench_shmem16.c built with our installation's oshcc
# (standard 1.6 names) and with Sandia OpenSHMEM's oshcc (its shmemx_
# forms, chosen by the program itself), the two run alternately (ours,
# Sandia, repeated --runs times) so both see the same machine. Every figure
# keeps its median over the runs. Prints one table: row, bytes, the new
# routine's latency in ours and in Sandia's, Sandia's over ours, and each
# library's new routine over its nearest existing operation. Rows Sandia
# OpenSHMEM 1.5.3 lacks (shmem_pe_quiet, the scans) show "-" for it.
#
# Sandia OpenSHMEM runs as it was built for this comparison (libfabric's
# shm provider, PMI-simple, same virtual addresses on every PE):
#   env FI_PROVIDER=shm mpiexec.mpich -n 2 setarch -R <program>
#
# Usage: scripts/bench-shmem16-compare.sh <prefix> [<sandia>] [--runs R] [--out DIR]
#                                         [--iterations N] [--rounds N]
#   <prefix>      our install tree (cmake --install <build> --prefix <prefix>):
#                 bin/oshcc builds, bin/oshrun launches
#   <sandia>      Sandia OpenSHMEM's install tree or its bin/oshcc; left out:
#                 ours only
#   --runs        runs of each program (default 3)
#   --out         output directory (default ./bench-shmem16-out)
#   --iterations, --rounds  passed to bench_shmem16 (defaults: its own, 1000 and 11)
# Nothing is downloaded: a peer that is not installed is skipped with a message.
set -uo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
src="$top/tests/perf/bench_shmem16.c"
usage="usage: bench-shmem16-compare.sh <prefix> [<sandia prefix or oshcc>] [--runs R] [--out DIR] [--iterations N] [--rounds N]"

positional=() runs=3 out=$PWD/bench-shmem16-out bench_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --iterations|--rounds) bench_args+=("$1" "$2"); shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    -*) echo "bench-shmem16-compare: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
if [ ${#positional[@]} -lt 1 ] || [ ${#positional[@]} -gt 2 ] || ! [ "$runs" -ge 1 ] 2> /dev/null; then
  echo "$usage" >&2
  exit 2
fi
prefix=$(cd "${positional[0]}" 2> /dev/null && pwd || echo "${positional[0]}")
if [ ! -x "$prefix/bin/oshcc" ] || [ ! -x "$prefix/bin/oshrun" ]; then
  echo "bench-shmem16-compare: $prefix has no bin/oshcc and bin/oshrun (cmake --install <build> --prefix $prefix)" >&2
  exit 2
fi
sandia_cc=
if [ ${#positional[@]} -eq 2 ]; then
  sandia_cc=${positional[1]}
  [ -d "$sandia_cc" ] && sandia_cc=$sandia_cc/bin/oshcc
  if [ ! -x "$sandia_cc" ]; then
    echo "bench-shmem16-compare: no Sandia OpenSHMEM oshcc at $sandia_cc, Sandia skipped" >&2
    sandia_cc=
  elif ! command -v mpiexec.mpich > /dev/null || ! command -v setarch > /dev/null; then
    echo "bench-shmem16-compare: mpiexec.mpich or setarch missing, Sandia skipped" >&2
    sandia_cc=
  fi
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

tag=bench-shmem16-compare
# shellcheck source-path=SCRIPTDIR source=lib/alternate-runs.sh
. "$top/scripts/lib/alternate-runs.sh"

bin=$(alt_build ours "$prefix/bin/oshcc") || exit 1
# oshrun is dartrun, which runs as root without a flag.
alt_add ours "$bin" "$prefix/bin/oshrun -n 2"
if [ -n "$sandia_cc" ]; then
  if bin=$(alt_build sandia "$sandia_cc"); then
    alt_add sandia "$bin" "env FI_PROVIDER=shm mpiexec.mpich -n 2 setarch -R"
  fi
fi

alt_run "$runs"
[ -n "${files_of[0]# }" ] || { echo "bench-shmem16-compare: no run of ours passed" >&2; exit 1; }

args=()
for k in "${!names[@]}"; do args+=("${names[$k]}=${files_of[$k]# }"); done
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" - "$out" "${args[@]}" << 'EOF' | tee "$out/table.txt"
import statistics, sys

out = sys.argv[1]
runs = {}  # implementation -> list of {(row, bytes): (new, baseline)}
for arg in sys.argv[2:]:
    name, _, files = arg.partition("=")
    runs[name] = []
    for path in files.split():
        rows = {}
        for line in open(path):
            f = line.split()
            if len(f) == 6 and f[0] == "row":
                rows[(f[1], int(f[2]))] = (float(f[3]), float(f[4]))
        runs[name].append(rows)

def med(impl, key):
    """Medians over the runs of (new, new / baseline), or None."""
    got = [r[key] for r in runs.get(impl, []) if key in r]
    if not got:
        return None
    return (statistics.median(n for n, _ in got), statistics.median(n / b for n, b in got if b > 0))

keys = []
for rows in runs["ours"]:
    for key in rows:
        if key not in keys:
            keys.append(key)

def fmt(x, spec):
    return format(x, spec) if x is not None else "-"

print(f"# median over runs: ours {len(runs['ours'])}, Sandia {len(runs.get('sandia', []))}; "
      "latency of the new routine in us; new/nearest = new routine over its nearest existing operation")
head = f"{'row':28} {'bytes':>7} {'ours':>10} {'Sandia':>10} {'Sandia/ours':>11} {'ours new/nearest':>16} {'Sandia new/nearest':>18}"
print(head)
csv = ["row,bytes,ours_us,sandia_us,sandia_over_ours,ours_new_over_nearest,sandia_new_over_nearest"]
for key in keys:
    o, s = med("ours", key), med("sandia", key)
    ratio = s[0] / o[0] if o and s and o[0] > 0 else None
    print(f"{key[0]:28} {key[1]:7d} {fmt(o and o[0], '10.3f'):>10} {fmt(s and s[0], '10.3f'):>10} "
          f"{fmt(ratio, '11.2f'):>11} {fmt(o and o[1], '16.2f'):>16} {fmt(s and s[1], '18.2f'):>18}")
    csv.append(",".join([key[0], str(key[1])] + ["" if v is None else f"{v:.4g}" for v in
                        (o and o[0], s and s[0], ratio, o and o[1], s and s[1])]))
with open(f"{out}/table.csv", "w") as f:
    f.write("\n".join(csv) + "\n")
EOF
echo "bench-shmem16-compare: runs, table.txt and table.csv in $out" >&2
