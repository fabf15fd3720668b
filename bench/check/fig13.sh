#!/bin/sh
# The VeriStrong paper's Figure 13 histories (10,000 transactions each,
# ../shared/corpus/veristrong/fig13.tar.xz): `isopredict check --level ser`
# against VeriStrong's verdict and time on the same machine kind.  Four are
# dbcop histories with duplicate written values and three Cobra logs whose
# reads name no writer: most have ambiguous reads (several candidate
# writers), which the ser checker decides as part of its search.
# Prints a markdown table: history, ambiguous reads, verdict, seconds, peak
# RSS, VeriStrong's verdict and seconds, and the target (half of those).
#
# usage: bench/check/fig13.sh [CORPUS_DIR]
#        env: BUILD (default build-bench, Release), TIMEOUT seconds (150)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh"
build=${BUILD:-$root/build-bench}
timeout=${TIMEOUT:-150}
corpus=${1:-$root/../shared/corpus/veristrong}
work=$(mktemp -d "${TMPDIR:-/tmp}/isopredict-fig13.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_build "$build"
tar xJf "$corpus/fig13.tar.xz" -C "$work"

echo "| history | ambiguous reads | verdict | seconds | peak RSS | VeriStrong | VeriStrong s | target s |"
echo "|---|---|---|---|---|---|---|---|"
# name, VeriStrong's verdict and seconds (README of the corpus)
for row in "RH-10k satisfied 4.1" "tpcc-10k satisfied 1.0" \
           "twitter-10k satisfied 3.9" "rubis-10k satisfied 12.3" \
           "BL-10k satisfied 93" "WH-10k satisfied 144" \
           "HD-10k undecided 300"; do
    set -- $row
    h="$work/fig13/$1"
    amb=$("$bin" stats --json "$h" | sed -n 's/.*"ambiguous_reads":[^0-9]*\([0-9]*\).*/\1/p')
    /usr/bin/time -v "$bin" check --level ser --timeout "$timeout" "$h" \
        >"$work/out" 2>"$work/time" || true
    verdict=$(head -1 "$work/out" | cut -d' ' -f1)
    wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$work/time")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
    target=$(awk -v s="$3" -v v="$2" 'BEGIN { print v == "undecided" ? 150 : s / 2 }')
    printf '| %s | %s | %s | %s | %s MiB | %s | %s | %s |\n' "$1" "$amb" \
        "${verdict:-none}" "$wall" "$((rss / 1024))" "$2" "$3" "$target"
done
