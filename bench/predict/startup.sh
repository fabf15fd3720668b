#!/usr/bin/env bash
# startup.sh OTHER_ISOPREDICT [RUNS]: the start-up of this tree's isopredict
# (a Release build in $TMPDIR/isopredict-bench-startup/build) side by side
# with another binary (say a Release build of an older commit): `--version`
# and `predict --quiet --model causal --boundary strict` of bank 3x4 and
# 3x8, each with the default settings and with ISOPREDICT_HUGEPAGES=0, and
# the Z3-only floor (z3_floor.c) under glibc.malloc.hugetlb=1.  RUNS
# (default 9) runs of each, the two binaries alternating; prints the
# median wall time in ms (bash's clock: no process is started to time).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh"
other=$(realpath "$1")
runs=${2:-9}
bench_work startup
bench_build "$work/build"
cmake --build "$work/build" -j2 --target bank >/dev/null
cc -O2 -std=c11 -o "$work/z3_floor" "$root/bench/predict/z3_floor.c" -lz3
bank=$work/build/examples/apps/bank
for t in 4 8; do
    [ -e "$work/bank-3x$t.json" ] ||
        "$bank" --sessions 3 --txns "$t" --seed 1 --record "$work/bank-3x$t.json" \
            --quiet >/dev/null
done
ms() {   # ms CMD...: the wall time of CMD in ms (exit 0 or 1: the answer)
    rm -rf "$work/out"
    local t0=$EPOCHREALTIME st=0
    "$@" >/dev/null 2>&1 || st=$?
    [ "$st" -le 1 ] || { echo "startup.sh: $* exited $st" >&2; exit 1; }
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
}
row() {   # row LABEL ENV ARGS...: this tree's and the other's medians
    local label=$1 envs=$2 i
    shift 2
    : > "$work/a" && : > "$work/b"
    for ((i = 0; i < runs; i++)); do
        ms env $envs "$other" "$@" >> "$work/b"
        ms env $envs "$bin" "$@" >> "$work/a"
    done
    printf '| %s | %s | %s |\n' "$label" "$(median < "$work/b")" "$(median < "$work/a")"
}
echo "| run | other (ms) | this tree (ms) |"
echo "|---|---|---|"
p=(predict --quiet --model causal --boundary strict --out "$work/out")
for e in "-u ISOPREDICT_HUGEPAGES" "ISOPREDICT_HUGEPAGES=0"; do
    row "--version, env $e" "$e" --version
    for t in 4 8; do
        row "bank 3x$t, env $e" "$e" "${p[@]}" "$work/bank-3x$t.json"
    done
done
: > "$work/a"
for ((i = 0; i < runs; i++)); do
    ms env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$work/z3_floor" >> "$work/a"
done
echo "| Z3-only floor (hugetlb=1) | | $(median < "$work/a") |"
