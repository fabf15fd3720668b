#!/bin/sh
# Prediction at the size of real test runs (issue 10): each example app at
# SIZES (sessions x transactions per session), seed 1, both models, the
# default (auto) search, then the exhaustive search on the mid-size TPC-C
# shapes.  Records the trace, runs `isopredict predict --json`, and prints
# one table row per run: outcome, seconds, peak memory, what was searched.
#
# Usage: bench/predict/large.sh [OUTDIR]        (OUTDIR must not exist)
# Environment:
#   BUILD=build        build directory with isopredict and the apps
#   APPS="bank smallbank voter tpcc wikipedia"
#   SIZES="10x100 30x300"
#   MODELS="causal rc"
#   TIMEOUT=60         isopredict --timeout, seconds
#   EXHAUSTIVE="tpcc:3x64 tpcc:8x16"   app:size runs with --search exhaustive
#   SEED=1
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
APPS=${APPS:-bank smallbank voter tpcc wikipedia}
SIZES=${SIZES:-10x100 30x300}
MODELS=${MODELS:-causal rc}
TIMEOUT=${TIMEOUT:-60}
EXHAUSTIVE=${EXHAUSTIVE-tpcc:3x64 tpcc:8x16}
SEED=${SEED:-1}
out=${1:-$here/large-$(date +%Y%m%d-%H%M%S)}
ip=$BUILD/src/cli/isopredict
[ -x "$ip" ] || { echo "no $ip: cmake --build $BUILD first" >&2; exit 2; }
command -v jq > /dev/null || { echo "jq is required" >&2; exit 2; }
[ -e "$out" ] && { echo "$out exists; not overwriting it" >&2; exit 2; }
mkdir -p "$out/traces" "$out/runs"

echo "| app | size | txns | model | search | exit | predictions | first s | total s | peak MiB | searched |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
run() {   # run APP SIZE MODEL SEARCH
    app=$1 size=$2 model=$3 search=$4
    s=${size%x*} t=${size#*x}
    trace=$out/traces/$app-$size.json
    [ -e "$trace" ] || "$BUILD/examples/apps/$app" --sessions "$s" --txns "$t" \
        --seed "$SEED" --record "$trace" --quiet
    tag=$app-$size-$model-$search
    set +e
    /usr/bin/time -f "%M %e" -o "$out/runs/$tag.time" "$ip" predict --json \
        --model "$model" --search "$search" --timeout "$TIMEOUT" \
        --out "$out/runs/$tag" "$trace" > "$out/runs/$tag.json" \
        2> "$out/runs/$tag.err"
    st=$?
    set -e
    kb=$(tail -n 1 "$out/runs/$tag.time" | cut -d' ' -f1)
    secs=$(tail -n 1 "$out/runs/$tag.time" | cut -d' ' -f2)
    j=$out/runs/$tag.json
    if jq -e . "$j" > /dev/null 2>&1; then
        n=$(jq '.predictions | length' "$j")
        first=$(jq -r 'if (.predictions | length) > 0 then (.predictions[0].seconds * 100 | round / 100) else "-" end' "$j")
        txns=$(jq '.search.transactions' "$j")
        searched=$(jq -r '([.search.rounds[] | "\(.kind) w\(.window) k\(.staleness) \(.searched)/\(.windows)"] | join("; "))
                          + (if .search.complete then " (complete)" else "" end)
                          + (if .search.stopped then " stopped: \(.search.stopped)" else "" end)' "$j")
    else
        n=- first=- txns=- searched="no JSON (exit $st)"
    fi
    echo "| $app | $size | $txns | $model | $search | $st | $n | $first | $secs | $((kb / 1024)) | $searched |"
}
for size in $SIZES; do
    for app in $APPS; do
        for model in $MODELS; do
            run "$app" "$size" "$model" auto
        done
    done
done
for spec in $EXHAUSTIVE; do
    run "${spec%%:*}" "${spec#*:}" causal exhaustive
done
