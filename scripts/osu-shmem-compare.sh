#!/usr/bin/env bash
# OSU's OpenSHMEM micro-benchmarks (c/openshmem of the OSU suite) built once
# per OpenSHMEM implementation, run alternately (every implementation once,
# then again, --runs times) so all see the same machine, and reduced to one
# table per benchmark: for each message size (or atomic routine) the median
# of the runs for every implementation and each one's figure over the
# first's. Latencies are in microseconds (the atomics' last column); the
# *_mr benchmarks report a rate (messages/s), where a larger figure is better.
#
# Nothing is downloaded or built here: each implementation is named by the
# directory where the suite was configured with its oshcc (./configure
# CC=<prefix>/bin/oshcc --enable-openshmem; make -C c/util; make -C
# c/openshmem) and the command that launches 2 PEs.
#
# Usage: scripts/osu-shmem-compare.sh --impl 'NAME|OSU_DIR|LAUNCH...' [--impl ...]
#          [--runs R] [--out DIR] [--timeout S] [--bench "osu_oshm_put:heap ..."]
#   --impl     the first one is "ours": every ratio is the others' figure over it
#   --runs     runs of each benchmark and implementation (default 3)
#   --out      raw outputs and the table (default ./osu-shmem-out)
#   --timeout  limit for one run in seconds (default 300)
#   --bench    benchmarks with their argument (default: all of them, heap and global)
# Example:
#   scripts/osu-shmem-compare.sh \
#     --impl 'ours|/tmp/osu-ours|/opt/dart/bin/oshrun -n 2' \
#     --impl 'oshmpi|/tmp/osu-oshmpi|mpiexec.mpich -n 2'
set -uo pipefail

impls=() runs=3 out=$PWD/osu-shmem-out limit=300
benches="osu_oshm_put:heap osu_oshm_put:global osu_oshm_get:heap osu_oshm_get:global
osu_oshm_put_nb:heap osu_oshm_put_nb:global osu_oshm_get_nb:heap osu_oshm_get_nb:global
osu_oshm_put_overlap:heap osu_oshm_put_overlap:global
osu_oshm_atomics:heap osu_oshm_atomics:global
osu_oshm_put_mr:heap osu_oshm_put_mr_nb:heap osu_oshm_get_mr_nb:heap
osu_oshm_barrier: osu_oshm_broadcast: osu_oshm_reduce: osu_oshm_collect: osu_oshm_fcollect:"
while [ $# -gt 0 ]; do
  case $1 in
    --impl) impls+=("$2"); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --bench) benches=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "osu-shmem-compare: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ ${#impls[@]} -ge 1 ] || { echo "osu-shmem-compare: at least one --impl is required" >&2; exit 2; }
mkdir -p "$out"
names=()
for spec in "${impls[@]}"; do names+=("${spec%%|*}"); done

# one run: IMPL-SPEC BENCH ARG LOG
run_one() {
  local rest=${1#*|}
  local dir=${rest%%|*} launch=${rest#*|}
  # shellcheck disable=SC2086
  timeout -k 10 "$limit" $launch "$dir/c/openshmem/$2" ${3:+"$3"} > "$4" 2>&1
}

failed=0
for b in $benches; do
  bench=${b%%:*} arg=${b#*:}
  tag=$bench${arg:+.$arg}
  for r in $(seq "$runs"); do
    for i in "${!impls[@]}"; do
      log="$out/$tag.${names[$i]}.$r.log"
      if ! run_one "${impls[$i]}" "$bench" "$arg" "$log"; then
        echo "osu-shmem-compare: $tag run $r failed for ${names[$i]} (see $log)" >&2
        failed=1
      fi
    done
  done
done

# The table: per benchmark, per key (size or routine), medians and ratios.
python3 - "$out" "$runs" "${names[@]}" <<'EOF' | tee "$out/table.txt"
import glob, os, statistics, sys
out, runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
tags = sorted({os.path.basename(p).split(".")[0] + ("." + os.path.basename(p).split(".")[1]
               if os.path.basename(p).count(".") == 4 else "")
               for p in glob.glob(os.path.join(out, "*.log"))})
def rows(path):
    vals = {}
    try:
        for line in open(path, errors="replace"):
            f = line.split()
            if not f or line.startswith("#"):
                continue
            # "size value", "routine rate latency" or, for the barrier, a
            # lone latency: the key is the first column, the figure the last.
            try:
                vals[f[0] if len(f) > 1 else "-"] = float(f[-1])
            except ValueError:
                pass
    except OSError:
        pass
    return vals
for tag in tags:
    per = {n: [rows(os.path.join(out, f"{tag}.{n}.{r}.log")) for r in range(1, runs + 1)] for n in names}
    keys = []
    for n in names:
        for run in per[n]:
            for k in run:
                if k not in keys:
                    keys.append(k)
    if not keys:
        continue
    rate = "_mr" in tag
    print(f"\n## {tag} ({'messages/s, higher is better' if rate else 'us, lower is better'})")
    print("| key | " + " | ".join(names) + " | " + " | ".join(f"{n}/{names[0]}" for n in names[1:]) + " |")
    print("|---" * (1 + 2 * len(names) - 1) + "|")
    for k in keys:
        med = {}
        for n in names:
            xs = [run[k] for run in per[n] if k in run]
            med[n] = statistics.median(xs) if xs else None
        cells = ["-" if med[n] is None else f"{med[n]:.4g}" for n in names]
        ratios = []
        for n in names[1:]:
            a, b = med[names[0]], med[n]
            ratios.append("-" if a in (None, 0) or b is None else f"{b / a:.3g}")
        print(f"| {k} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
EOF
exit $failed
