#!/usr/bin/env python3
"""Merges runs of bench_hotpath (ours, and DASH's DART-MPI when given) into
one table, writes it as TSV, and draws latency against size.

Each input is the output of one bench_hotpath run; its "row" lines are
    row <operation> <bytes> <dart ns> <limit ns> <raw MPI ns>
Per operation and size the table keeps the best figure of each column over
all runs (the runs alternate ours and DASH, so both saw the same machine).

Usage: hotpath-report.py --title T --ours F... [--dash F...] [--tsv OUT] [--plot DIR]
"""
import argparse
import collections
import math
import os
import sys


def read_rows(paths):
    """{(op, bytes): {"dart": ns, "limit": ns, "mpi": ns}}, best of all files."""
    best = collections.OrderedDict()
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 6 or parts[0] != "row":
                    continue
                key = (parts[1], int(parts[2]))
                vals = dict(zip(("dart", "limit", "mpi"), map(float, parts[3:])))
                cur = best.setdefault(key, vals)
                for k, v in vals.items():
                    cur[k] = min(cur[k], v)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--ours", nargs="+", required=True)
    ap.add_argument("--dash", nargs="*", default=[])
    ap.add_argument("--tsv")
    ap.add_argument("--plot")
    a = ap.parse_args()

    ours = read_rows(a.ours)
    dash = read_rows(a.dash) if a.dash else {}
    if not ours:
        sys.exit("hotpath-report: no rows in " + " ".join(a.ours))
    cols = ["operation", "bytes", "limit_ns", "raw_mpi_ns", "dash_ns", "ours_ns", "ours_minus_limit_ns",
            "ours_over_dash", "ours_over_mpi"]
    table = []
    for (op, size), v in ours.items():
        limit = min(v["limit"], dash.get((op, size), v)["limit"])
        mpi = min(v["mpi"], dash.get((op, size), v)["mpi"])
        d = dash.get((op, size), {}).get("dart", float("nan"))
        table.append([op, size, limit, mpi, d, v["dart"], v["dart"] - limit, v["dart"] / d if d == d else float("nan"),
                      v["dart"] / mpi])

    print("# " + a.title)
    print("%-18s %9s %9s %9s %9s %9s %11s %10s %9s" % ("operation", "bytes", "limit", "raw MPI", "DASH", "ours",
                                                       "ours-limit", "ours/DASH", "ours/MPI"))
    for r in table:
        print("%-18s %9d %9.1f %9.1f %9s %9.1f %11.1f %10s %9.2f" % (
            r[0], r[1], r[2], r[3], "-" if math.isnan(r[4]) else "%.1f" % r[4], r[5], r[6],
            "-" if math.isnan(r[7]) else "%.2f" % r[7], r[8]))
    print("(ns per call; limit = load/store on an MPI shared-memory window with the fence the call owes, "
          "raw MPI = the MPI call + MPI_Win_flush on that window)")

    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("\t".join(cols) + "\n")
            for r in table:
                f.write("\t".join(str(x) for x in r) + "\n")
    if a.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("hotpath-report: no plots: python3-matplotlib is not installed "
                  "(apt-get install python3-matplotlib)", file=sys.stderr)
            return
        os.makedirs(a.plot, exist_ok=True)
        ops = [op for op in dict.fromkeys(r[0] for r in table)]
        for op in ops:
            rows = [r for r in table if r[0] == op]
            if len(rows) < 2:
                continue
            x = [r[1] for r in rows]
            fig, ax = plt.subplots(figsize=(6, 4))
            ax.plot(x, [r[5] for r in rows], "o-", label="ours (libdart)")
            if not all(math.isnan(r[4]) for r in rows):
                ax.plot(x, [r[4] for r in rows], "s--", label="DASH DART-MPI")
            ax.plot(x, [r[3] for r in rows], "^:", label="raw MPI")
            ax.plot(x, [r[2] for r in rows], "k-", lw=1, label="limit (memcpy + fence)")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("bytes")
            ax.set_ylabel("ns per call")
            ax.set_title("%s: %s" % (a.title, op))
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
            fig.tight_layout()
            name = os.path.join(a.plot, "%s-%s.png" % (a.title.split(",")[0].replace(" ", "_"), op.replace("+", "_")))
            fig.savefig(name, dpi=110)
            plt.close(fig)
            print("plot: " + name)


if __name__ == "__main__":
    main()
