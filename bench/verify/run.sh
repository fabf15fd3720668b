#!/bin/sh
# verify benchmark (issue 27): how long `isopredict verify` takes on a
# prediction of a large trace, beside reading that trace alone (`stats`).
# For each app: record a run (seeded), predict once with a bounded search
# (the prediction lies in some window of the whole run), then time
# `verify --observed TRACE PREDICTION` and `stats TRACE` in turn with
# /usr/bin/time (median of RUNS each, after one warm-up) and print a row.
#
# Usage: bench/verify/run.sh [OUTDIR]      (OUTDIR must not exist)
# Environment:
#   BUILD=build-bench     build directory with isopredict and the apps
#   APPS="tpcc smallbank"
#   SIZE_tpcc=50x400      about 10^6 operations
#   SIZE_smallbank=100x1000
#   SEED=1 RUNS=5
# Writes OUTDIR/verify.md (the table) and the raw times (times-APP-*.txt).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build-bench}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
APPS=${APPS:-tpcc smallbank}
SEED=${SEED:-1}
RUNS=${RUNS:-5}
OUT=${1:-$root/bench/verify/out-$(date +%Y%m%d-%H%M%S)}
[ -e "$OUT" ] && { echo "$OUT exists" >&2; exit 2; }
mkdir -p "$OUT"
BIN=$BUILD/src/cli/isopredict
{
    echo "| app | sessions x txns | ops | prediction (kept / dropped / changed) | verify cpu s | stats cpu s | verify wall s | stats wall s |"
    echo "|---|---|---|---|---|---|---|---|"
} > "$OUT/verify.md"
for app in $APPS; do
    eval size=\${SIZE_$app:-}
    [ -n "$size" ] || size=$([ "$app" = tpcc ] && echo 50x400 || echo 100x1000)
    s=${size%x*} t=${size#*x}
    trace=$OUT/$app.json
    "$BUILD/examples/apps/$app" --sessions "$s" --txns "$t" --seed "$SEED" \
        --record "$trace" >/dev/null 2>&1
    ops=$("$BIN" stats --json "$trace" | jq .ops)
    "$BIN" predict --quiet --window 32 --staleness 2 --timeout 120 \
        --out "$OUT/p-$app" "$trace" >/dev/null 2>&1 || true
    pred=$(ls "$OUT/p-$app"/*.json 2>/dev/null | head -1)
    [ -n "$pred" ] || { echo "| $app | $size | $ops | none found | - | - | - | - |" >> "$OUT/verify.md"; continue; }
    shape=$("$BIN" verify --json --observed "$trace" "$pred" |
            jq -r '.predictions[0] | "\(.kept) / \(.dropped) / \(.changed_reads)"')
    # the two commands in turn, one line "user sys wall" per run each
    "$BIN" verify --observed "$trace" "$pred" > /dev/null 2>&1 || true
    : > "$OUT/times-$app-verify.txt"
    : > "$OUT/times-$app-stats.txt"
    i=0
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -f '%U %S %e' -a -o "$OUT/times-$app-verify.txt" \
            "$BIN" verify --observed "$trace" "$pred" > /dev/null 2>&1 || true
        /usr/bin/time -f '%U %S %e' -a -o "$OUT/times-$app-stats.txt" \
            "$BIN" stats "$trace" > /dev/null 2>&1 || true
        i=$((i + 1))
    done
    # med FILE cpu|wall: the median over the runs
    med() {
        awk -v what="$2" '/^[0-9.]+ [0-9.]+ [0-9.]+$/ {
                print (what == "cpu" ? $1 + $2 : $3) }' "$1" | sort -n |
            awk '{ v[NR] = $1 }
                 END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                       printf "%.3f", m }'
    }
    v=$OUT/times-$app-verify.txt st=$OUT/times-$app-stats.txt
    echo "| $app | $size | $ops | $shape | $(med "$v" cpu) | $(med "$st" cpu) |" \
         "$(med "$v" wall) | $(med "$st" wall) |" >> "$OUT/verify.md"
done
cat "$OUT/verify.md"
