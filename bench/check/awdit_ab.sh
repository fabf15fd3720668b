#!/bin/sh
# Side by side: two isopredict binaries on AWDIT's three 10^6-event
# histories (../shared/corpus/awdit-bench, decompressed into $TMPDIR) at rc,
# ra and causal, end to end (read + check).  The two run in turn, RUNS
# pairs per row; prints a markdown table of the medians of wall and CPU
# seconds (user + system) from /usr/bin/time.  Every run has glibc's huge
# pages for malloc (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), as the
# start-up gives them (src/cli/hugepages.c), so neither re-executes itself.
# On a busy machine quote the CPU columns.
#
# usage: bench/check/awdit_ab.sh BIN_A BIN_B
#        env: RUNS (default 7), CORPUS (default ../shared/corpus/awdit-bench)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh"
a=$1 b=$2
runs=${RUNS:-7}
corpus=${CORPUS:-$root/../shared/corpus/awdit-bench}
bench_work awdit
hist="causal-e1000000-s100-l100000 read-atomic-e1000000-s100-l100000
read-committed-e1000000-s100-l100000"
for h in $hist; do
    [ -s "$work/$h.plume" ] || xz -dc "$corpus/$h.plume.xz" >"$work/$h.plume"
done
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1

timed() {   # timed BIN LEVEL FILE LOG: one run, "wall cpu" appended to LOG
    /usr/bin/time -f '%e %U %S' -o "$work/t" "$1" check --level "$2" "$3" \
        >/dev/null 2>&1 || true
    awk '/^[0-9]/ {print $1, $2 + $3}' "$work/t" >>"$4"
}

echo "| history | level | A wall / CPU s | B wall / CPU s | B / A (wall, CPU) |"
echo "|---|---|---|---|---|"
for h in $hist; do
    for l in rc ra causal; do
        : >"$work/a.log"
        : >"$work/b.log"
        i=0
        while [ "$i" -lt "$runs" ]; do
            timed "$a" "$l" "$work/$h.plume" "$work/a.log"
            timed "$b" "$l" "$work/$h.plume" "$work/b.log"
            i=$((i + 1))
        done
        aw=$(cut -d' ' -f1 "$work/a.log" | median)
        ac=$(cut -d' ' -f2 "$work/a.log" | median)
        bw=$(cut -d' ' -f1 "$work/b.log" | median)
        bc=$(cut -d' ' -f2 "$work/b.log" | median)
        echo "| ${h%%-e1000000*} | $l | $aw / $ac | $bw / $bc |" \
             "$(awk -v aw="$aw" -v ac="$ac" -v bw="$bw" -v bc="$bc" \
                'BEGIN {printf "%.2f, %.2f |", bw / aw, bc / ac}')"
    done
done
