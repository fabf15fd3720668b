#!/bin/sh
# Triage benchmark (issue 25): how much of a test run `isopredict triage`
# covers, how fast, in how much memory.  For each app and model: record a
# run (seeded), triage it with one bounded round (windows of W
# transactions, staleness K, at most C changed reads) and print a row: classes, instances, windows
# searched of all, seconds, peak resident memory, whether the round was
# searched to the end, the share of the windows' thread time spent in
# solver checks (and in each formula's first check alone: mostly Z3
# taking the formula in; search.thread_seconds), and (VERIFY=1) how many of the representatives
# `isopredict verify` proves legal.  Optionally the 100,000-transaction
# smallbank run.
#
# Usage: bench/predict/triage.sh [OUTDIR]      (OUTDIR must not exist)
# Environment:
#   BUILD=build-bench     build directory with isopredict and the apps
#   APPS="bank smallbank voter tpcc wikipedia"
#   MODELS="causal rc ra si"
#   SIZE=10x100           sessions x transactions per session
#   SEED=1
#   WINDOW=32 STALENESS=2 CHANGES=4   (CHANGES=0: no change bound)
#   TIMEOUT=120           seconds per run (isopredict --timeout)
#   JOBS=2
#   BIG=0                 1: also smallbank 100x1000, causal (TIMEOUT_BIG=120)
#   VERIFY=0              1: verify every representative (not timed)
#   RUNS=1                runs of each row, one table row each ("app #i"):
#                         near a time limit this VM's speed swings a row's
#                         windows searched from one run to the next
# Writes OUTDIR/triage.md (the table) and each run's JSON report.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build-bench}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
APPS=${APPS:-bank smallbank voter tpcc wikipedia}
MODELS=${MODELS:-causal rc ra si}
SIZE=${SIZE:-10x100}
SEED=${SEED:-1}
WINDOW=${WINDOW:-32}
STALENESS=${STALENESS:-2}
CHANGES=${CHANGES:-4}
TIMEOUT=${TIMEOUT:-120}
TIMEOUT_BIG=${TIMEOUT_BIG:-120}
JOBS=${JOBS:-2}
BIG=${BIG:-0}
RUNS=${RUNS:-1}
VERIFY=${VERIFY:-0}
out=${1:-$here/triage-$(date +%Y%m%d-%H%M%S)}
ip=$BUILD/src/cli/isopredict
apps=$BUILD/examples/apps
[ -x "$ip" ] || { echo "no $ip: cmake --build $BUILD first" >&2; exit 2; }
command -v jq > /dev/null || { echo "jq is required" >&2; exit 2; }
[ -e "$out" ] && { echo "$out exists; not overwriting it" >&2; exit 2; }
mkdir -p "$out"
table=$out/triage.md

printf '| app | size | model | classes | instances | solver calls | windows searched | complete | seconds | peak MB | solver %% (first checks) | verified |\n' > "$table"
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n' >> "$table"

# verified TRACE DIR: "legal/all" of DIR's representatives, or "-"
verified() {
    [ "$VERIFY" = 1 ] || { echo -; return; }
    set -- "$1" "$2"/*.class-*.json
    [ -f "$2" ] || { echo 0/0; return; }
    observed=$1
    shift
    "$ip" verify --json --observed "$observed" "$@" 2> /dev/null |
        jq -r '"\(.legal)/\(.files)"' || echo "error"
}

# once APP SESSIONS TXNS MODEL TIMEOUT SUFFIX LABEL: one run, one row
once() {
    app=$1 s=$2 t=$3 model=$4 limit=$5 sfx=$6 label=$7
    trace=$out/$app-${s}x$t-$SEED.json
    [ -f "$trace" ] || "$apps/$app" --sessions "$s" --txns "$t" --seed "$SEED" \
        --record "$trace" > /dev/null 2>&1
    rep=$out/$app-${s}x$t-$model$sfx.report.json
    start=$(date +%s.%N)
    "$ip" triage --quiet --json --model "$model" --search bounded \
        --window "$WINDOW" --staleness "$STALENESS" --changes "$CHANGES" \
        --timeout "$limit" \
        --jobs "$JOBS" --out "$out/reps-$app-${s}x$t-$model$sfx" "$trace" > "$rep" || true
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    ver=$(verified "$trace" "$out/reps-$app-${s}x$t-$model$sfx")
    jq -r --arg app "$label" --arg size "${s}x$t" --arg wall "$wall" --arg ver "$ver" \
        '(.search.thread_seconds // {}) as $t | ($t.problems // 0) as $p |
         def pct(x): if $p > 0 then (100 * x / $p | round | tostring) else "-" end;
         "| \($app) | \($size) | \(.model) | \(.classes | length) | \(.instances) | \(.solver_calls) | \(.search.rounds[0].searched)/\(.search.rounds[0].windows) | \(if .search.rounds[0].searched == .search.rounds[0].windows then "yes" else "no" end) | \($wall) | \(.search.peak_bytes / 1048576 | floor) | \(pct(($t.first_checks // 0) + ($t.later_checks // 0))) (\(pct($t.first_checks // 0))) | \($ver) |"' \
        "$rep" >> "$table"
    tail -1 "$table"
}

# run APP SESSIONS TXNS MODEL TIMEOUT: RUNS rows
run() {
    if [ "$RUNS" = 1 ]; then
        once "$@" "" "$1"
        return
    fi
    i=1
    while [ "$i" -le "$RUNS" ]; do
        once "$@" "-$i" "$1 #$i"
        i=$((i + 1))
    done
}

sessions=${SIZE%x*}
txns=${SIZE#*x}
for app in $APPS; do
    for model in $MODELS; do
        run "$app" "$sessions" "$txns" "$model" "$TIMEOUT"
    done
done
if [ "$BIG" = 1 ]; then
    run smallbank 100 1000 causal "$TIMEOUT_BIG"
fi
echo "table: $table"
