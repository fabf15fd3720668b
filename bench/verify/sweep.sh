#!/bin/bash
# Property sweep (issue 27): every prediction is legal.  For each example
# application, seed and size: record a run, predict up to 3 times under
# each model, boundary, weak-isolation mode and search (exhaustive on the
# small sizes, bounded windows on all), and check every prediction file
# with `isopredict verify`.  Prints each illegal file and a total line.
#
# Usage: bench/verify/sweep.sh [OUTDIR]     (OUTDIR must not exist)
# Environment:
#   BUILD=build-bench   APPS="bank smallbank voter tpcc wikipedia"
#   SEEDS="1 2 3 4 5 6"  SIZES="3x4 3x8 10x100"  TIMEOUT=20 (per run)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build-bench}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
APPS=${APPS:-bank smallbank voter tpcc wikipedia}
SEEDS=${SEEDS:-1 2 3 4 5 6}
SIZES=${SIZES:-3x4 3x8 10x100}
TIMEOUT=${TIMEOUT:-20}
OUT=${1:-$root/bench/verify/sweep-$(date +%Y%m%d-%H%M%S)}
[ -e "$OUT" ] && { echo "$OUT exists" >&2; exit 2; }
mkdir -p "$OUT" && cd "$OUT" || exit 2
B=$BUILD/src/cli/isopredict
n=0 bad=0 runs=0
for app in $APPS; do
  for seed in $SEEDS; do
    for size in $SIZES; do
      s=${size%x*} t=${size#*x}
      T=$app-$size-$seed.json
      "$BUILD/examples/apps/$app" --sessions "$s" --txns "$t" --seed "$seed" \
          --record "$T" >/dev/null 2>&1 || continue
      for m in rc ra causal si; do for bd in strict relaxed; do
        for wi in eager lazy; do
          [ $m = si ] && [ $wi = lazy ] && continue
          for mode in exhaustive bounded; do
            if [ $mode = exhaustive ]; then
              [ "$s" -ge 10 ] && continue
              X=(--search exhaustive)
            else
              X=(--window 16 --staleness 2)
            fi
            O=out-$T-$m-$bd-$wi-$mode
            "$B" predict --quiet --model $m --boundary $bd \
                --weak-isolation $wi --max-predictions 3 \
                --timeout "$TIMEOUT" "${X[@]}" --out "$O" "$T" >/dev/null 2>&1
            runs=$((runs + 1))
            for p in "$O"/*.json; do
              [ -e "$p" ] || continue
              n=$((n + 1))
              "$B" verify --observed "$T" "$p" > v.txt 2>&1 ||
                  { bad=$((bad + 1)); echo "ILLEGAL $p: $(cat v.txt)"; }
            done
          done
        done
      done; done
    done
  done
done
echo "runs=$runs predictions=$n illegal=$bad"
[ "$bad" = 0 ]
