#!/bin/sh
# The test of mpi_examples/stdin_wordcount (registered in mpi_examples/stdin.cmake): about 12 MiB of text (more than a block, so
# words straddle block boundaries) through dartrun, against `wc -w`.
#   wordcount_test.sh DARTRUN STDIN_WORDCOUNT NP
set -u
text=$(mktemp "${TMPDIR:-/tmp}/wordcount-XXXXXX")
trap 'rm -f "$text"' EXIT
awk 'BEGIN { srand(7); for (i = 0; i < 400000; i++) { n = int(rand() * 9); line = "";
       for (j = 0; j < n; j++) line = line sprintf("w%d%s", int(rand() * 100000), (rand() < 0.1 ? "\t" : "  "));
       print line } }' > "$text"
expect=$(wc -w < "$text" | tr -d ' ')
out=$("$1" -n "$3" "$2" < "$text") || { echo "FAIL: dartrun exited $?"; exit 1; }
echo "$out"
got=$(echo "$out" | sed -n 's/^stdin_wordcount: \([0-9]*\) words.*/\1/p')
if [ "$got" = "$expect" ]; then echo "stdin_wordcount_test: OK ($got words)"; else echo "FAIL: $got words, wc -w says $expect"; exit 1; fi
