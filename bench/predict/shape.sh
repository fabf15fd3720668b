#!/bin/sh
# The IsoPredict paper's largest measured trace shape (TPC-C, 3 sessions x
# 8 transactions, ~7000 reads, ~1500 writes): generate seeded traces with
# tpcc_shape.py and time `isopredict predict` on each for every model and
# strategy.  Prints a Markdown table (times in seconds, memory in MiB).
#
# Usage: bench/predict/shape.sh [SEEDS...]     (default: 1 2 3)
# Environment: BUILD=build (directory holding src/cli/isopredict),
#              MODELS="causal rc ra si",
#              TIMEOUT=60 (seconds per prediction)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
ip=$BUILD/src/cli/isopredict
TIMEOUT=${TIMEOUT:-60}
[ -x "$ip" ] || { echo "no $ip: build first" >&2; exit 2; }
command -v jq > /dev/null || { echo "jq is required" >&2; exit 2; }
seeds=${*:-1 2 3}
work=$(mktemp -d /tmp/isopredict-shape.XXXXXX)
echo "| seed | reads | writes | model | strategy | result | literals | gen s | solve s | total s | peak MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for seed in $seeds; do
    trace=$work/tpcc-shape-$seed.json
    python3 "$here/tpcc_shape.py" "$seed" "$trace"
    rw=$("$ip" stats --json "$trace" | jq -r '"\(.reads) | \(.writes)"')
    for model in ${MODELS:-causal rc ra si}; do
        for strategy in approx-relaxed approx-strict exact-strict; do
            enc=${strategy%-*} bnd=${strategy#*-}
            run=$work/$seed-$model-$strategy
            set +e
            /usr/bin/time -f %M -o "$run.mem" "$ip" predict --quiet --json \
                --model "$model" --boundary "$bnd" --encoding "$enc" \
                --timeout "$TIMEOUT" --out "$run" "$trace" > "$run.json"
            st=$?
            set -e
            case $st in 0) res=unsat ;; 1) res=sat ;; 3) res=unknown ;; *) res=error ;; esac
            mib=$(( $(tail -1 "$run.mem" | tr -dc 0-9) / 1024 ))
            jq -r --arg s "$seed" --arg rw "$rw" --arg m "$model" \
                --arg g "$strategy" --arg r "$res" --arg mem "$mib" \
                '"| \($s) | \($rw) | \($m) | \($g) | \($r) | \(.stats.literals) | \(.stats.gen_seconds*100|round/100) | \(.stats.solve_seconds*100|round/100) | \(.stats.seconds*100|round/100) | \($mem) |"' \
                "$run.json"
        done
    done
done
rm -rf "$work"
