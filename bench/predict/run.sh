#!/bin/sh
# Prediction benchmark in the shape of the IsoPredict paper's Tables 4/5:
# for each app, workload size, seed, model and strategy: record a trace,
# run `isopredict predict --json`, validate what it predicts, and collect
# outcome, formula size, times and peak memory.  Then a scaling series.
#
# Usage: bench/predict/run.sh [OUTDIR]      (OUTDIR must not exist)
# Environment (defaults = the paper's setup):
#   BUILD=build-bench   build directory with isopredict and the apps
#   APPS="bank smallbank voter tpcc wikipedia"
#   SIZES="3x4 3x8"     sessions x transactions per session
#   SEEDS="1 2 3 4 5 6 7 8 9 10"
#   MODELS="causal rc"
#   STRATEGIES="exact-strict approx-strict approx-relaxed"
#   TIMEOUT=60          seconds per prediction (isopredict --timeout)
#   SCALING="3x16 3x32 3x64 8x16"   scaling series (seed 1, rc,
#   SCALING_STRATEGY=approx-relaxed  this strategy); "" to skip
# Writes OUTDIR/runs.csv (one row per run), OUTDIR/summary.csv and
# OUTDIR/summary.md (the table), OUTDIR/scaling.csv.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build-bench}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
APPS=${APPS:-bank smallbank voter tpcc wikipedia}
SIZES=${SIZES:-3x4 3x8}
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8 9 10}
MODELS=${MODELS:-causal rc}
STRATEGIES=${STRATEGIES:-exact-strict approx-strict approx-relaxed}
TIMEOUT=${TIMEOUT:-60}
SCALING=${SCALING-3x16 3x32 3x64 8x16}
SCALING_STRATEGY=${SCALING_STRATEGY:-approx-relaxed}
out=${1:-$here/out-$(date +%Y%m%d-%H%M%S)}
ip=$BUILD/src/cli/isopredict
apps=$BUILD/examples/apps

[ -x "$ip" ] || { echo "no $ip: cmake --build $BUILD first" >&2; exit 2; }
command -v jq > /dev/null || { echo "jq is required" >&2; exit 2; }
[ -e "$out" ] && { echo "$out exists; not overwriting it" >&2; exit 2; }
mkdir -p "$out/traces" "$out/runs"

header=app,sessions,txns,seed,model,strategy,exit,result,reads,writes,committed,literals,gen_s,solve_s,total_s,peak_kb,validated,diverged

# one_run APP S T SEED MODEL STRATEGY -> one CSV row on stdout
one_run() {
    app=$1 s=$2 t=$3 seed=$4 model=$5 strategy=$6
    trace=$out/traces/$app-${s}x$t-$seed.json
    [ -e "$trace" ] || "$apps/$app" --sessions "$s" --txns "$t" --seed "$seed" \
        --record "$trace" --quiet
    enc=${strategy%-*} bnd=${strategy#*-}
    tag=$app-${s}x$t-$seed-$model-$strategy
    dir=$out/runs/$tag
    set +e
    /usr/bin/time -f %M -o "$dir.mem" timeout $((TIMEOUT + 30)) \
        "$ip" predict --quiet --json --model "$model" --boundary "$bnd" \
        --encoding "$enc" --timeout "$TIMEOUT" --out "$dir" "$trace" \
        > "$dir.json" 2> "$dir.err"
    st=$?
    set -e
    case $st in
    0) result=unsat ;; 1) result=sat ;; 3|124) result=unknown ;; *) result=error ;;
    esac
    counts=$(jq -r '[([.sessions[].transactions[].ops[] | select(.op=="read")] | length),
                     ([.sessions[].transactions[] | select(.status!="aborted") | .ops[] | select(.op=="write")] | length),
                     ([.sessions[].transactions[] | select(.status!="aborted")] | length)] | map(tostring) | join(",")' "$trace")
    # gen_seconds/solve_seconds are reported when the predictor emits them
    stats=$(jq -r '.stats // {} | [.literals, .gen_seconds, .solve_seconds, .seconds] | map(if . == null then "" else tostring end) | join(",")' \
        "$dir.json" 2> /dev/null || echo ',,,')
    mem=$(tail -1 "$dir.mem" 2> /dev/null | tr -dc 0-9)
    validated= diverged=
    if [ "$result" = sat ]; then
        p=$(ls "$dir"/*.json 2> /dev/null | head -1)
        if [ -n "$p" ]; then
            set +e
            "$ip" validate --app "$apps/$app" --json --timeout "$TIMEOUT" "$p" \
                > "$dir.validate.json" 2> /dev/null
            vst=$?
            set -e
            validated=$([ $vst = 1 ] && echo 1 || echo 0)
            diverged=$(jq -r 'if .diverged then 1 else 0 end' "$dir.validate.json" 2> /dev/null || echo "")
        fi
    fi
    echo "$app,$s,$t,$seed,$model,$strategy,$st,$result,$counts,$stats,${mem:-},$validated,$diverged"
}

echo "$header" > "$out/runs.csv"
total=0
for app in $APPS; do for size in $SIZES; do for seed in $SEEDS; do
for model in $MODELS; do for strategy in $STRATEGIES; do
    total=$((total + 1))
done; done; done; done; done
n=0
for app in $APPS; do for size in $SIZES; do
    s=${size%x*} t=${size#*x}
    for seed in $SEEDS; do for model in $MODELS; do for strategy in $STRATEGIES; do
        n=$((n + 1))
        row=$(one_run "$app" "$s" "$t" "$seed" "$model" "$strategy")
        echo "$row" >> "$out/runs.csv"
        echo "[$n/$total] $row" >&2
    done; done; done
done; done

if [ -n "$SCALING" ]; then
    echo "$header" > "$out/scaling.csv"
    for app in $APPS; do for size in $SCALING; do
        row=$(one_run "$app" "${size%x*}" "${size#*x}" 1 rc "$SCALING_STRATEGY")
        echo "$row" >> "$out/scaling.csv"
        echo "[scaling] $row" >&2
    done; done
fi

sh "$here/summarize.sh" "$out/runs.csv" "$out/summary.csv" > "$out/summary.md"
cat "$out/summary.md"
echo "results in $out" >&2
