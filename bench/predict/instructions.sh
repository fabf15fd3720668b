#!/usr/bin/env bash
# instructions.sh [OTHER_ISOPREDICT]: the work of a triage run counted in
# instructions, which this VM's speed swings do not touch.  The same
# command's wall time ranged 20.8-32.5 s within one session (tpcc 10x100
# rc, two jobs), more than most changes are worth; the instructions of a
# one-job run with no time limit repeat to 0.01 % (Z3 and the search are
# deterministic given the same calls).  Each row is one shard of a run
# (`--shard I/N`: windows I, I+N, ...; they share no covers, so a shard
# finds more instances per window than the whole run does) under
# valgrind's cachegrind without cache simulation, about 50 times slower
# than native.  With OTHER_ISOPREDICT (an older build, say), each row
# gives both binaries' counts and their ratio; the instance and call
# counts show whether the two searched alike.
#
# Environment: SHARD=1/10 (smallbank 100x10: 1/5), JOBS=2 (rows at once),
# ROWS="app:sessions:txns:model ..." (default below).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh"
other=${1:+$(realpath "$1")}
command -v valgrind > /dev/null || { echo "valgrind is required" >&2; exit 2; }
command -v jq > /dev/null || { echo "jq is required" >&2; exit 2; }
SHARD_GIVEN=${SHARD:-}
SHARD=${SHARD:-1/10}
JOBS=${JOBS:-2}
ROWS=${ROWS:-"tpcc:10:100:rc tpcc:10:100:causal smallbank:100:10:causal smallbank:10:100:rc"}
bench_work instructions
bench_build "$work/build"
cmake --build "$work/build" -j2 --target bank smallbank tpcc voter wikipedia \
    > /dev/null
apps=$work/build/examples/apps

# count BIN TRACE MODEL SHARD OUT: "Ir classes instances calls" of one run
count() {
    local bin=$1 trace=$2 model=$3 shard=$4 out=$5
    rm -rf "$out" && mkdir -p "$out"
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$bin" triage --quiet --json --model "$model" --search bounded \
        --window 32 --staleness 2 --changes 4 --timeout 0 --jobs 1 \
        --shard "$shard" --out "$out/reps" "$trace" \
        > "$out/report.json" 2> "$out/valgrind.txt" || true
    local ir
    ir=$(sed -n 's/.*I *refs: *//p' "$out/valgrind.txt" | tr -d ',')
    [ -n "$ir" ] && jq -e . "$out/report.json" > /dev/null 2>&1 ||
        { echo "instructions.sh: $bin on $trace failed" >&2; exit 1; }
    echo "$ir $(jq -r '"\(.classes | length) \(.instances) \(.solver_calls)"' \
        "$out/report.json")"
}

# row SPEC: one table row (in its own file, printed in order at the end)
row() {
    local app model s t shard trace a b
    IFS=: read -r app s t model <<< "$1"
    shard=$SHARD
    [ "$app:$s" = smallbank:100 ] && [ -z "$SHARD_GIVEN" ] && shard=1/5
    trace=$work/$app-${s}x$t-1.json
    a=$(count "$bin" "$trace" "$model" "$shard" "$work/run-$app-$s-$t-$model-a")
    if [ -n "$other" ]; then
        b=$(count "$other" "$trace" "$model" "$shard" \
            "$work/run-$app-$s-$t-$model-b")
        awk -v l="$app ${s}x$t $model $shard" -v a="$a" -v b="$b" 'BEGIN {
            split(a, x, " "); split(b, y, " ")
            printf "| %s | %.3f | %.3f | %.3f | %s/%s/%s | %s/%s/%s |\n", l,
                y[1] / 1e9, x[1] / 1e9, x[1] / y[1], y[2], y[3], y[4],
                x[2], x[3], x[4] }'
    else
        awk -v l="$app ${s}x$t $model $shard" -v a="$a" 'BEGIN {
            split(a, x, " ")
            printf "| %s | %.3f | %s/%s/%s |\n", l, x[1] / 1e9, x[2], x[3], x[4] }'
    fi
}

if [ -n "$other" ]; then
    echo "| run (shard) | other (G instr) | this tree (G instr) | ratio | other: classes/instances/calls | this tree |"
    echo "|---|---|---|---|---|---|"
else
    echo "| run (shard) | G instructions | classes/instances/calls |"
    echo "|---|---|---|"
fi
trap 'kill $(jobs -p) 2> /dev/null || true' EXIT   # rows left running
for spec in $ROWS; do       # the traces first: rows run at once
    IFS=: read -r app s t model <<< "$spec"
    trace=$work/$app-${s}x$t-1.json
    [ -f "$trace" ] || "$apps/$app" --sessions "$s" --txns "$t" --seed 1 \
        --record "$trace" > /dev/null 2>&1
done
i=0
pids=()
for spec in $ROWS; do
    row "$spec" > "$work/row-$i" &
    pids+=($!)
    i=$((i + 1))
    if [ ${#pids[@]} -ge "$JOBS" ]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
done
wait
for ((k = 0; k < i; k++)); do cat "$work/row-$k"; done
