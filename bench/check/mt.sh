#!/bin/sh
# Benchmark `isopredict check --level ser|si` on generated mini-transaction
# histories (bench/check/gen_mt.c, JSON, seeded): the general checker
# (--general, the path every history took before) against the linear-time
# mini-transaction path (the default on such histories).  Prints a markdown
# table: history, level, verdict, path, then the median of RUNS runs of the
# check time the command prints, and the CPU time (user + system), wall
# time and peak RSS of the whole command (reading included), from
# /usr/bin/time -v.  On a busy machine quote the CPU times.
#
# usage: bench/check/mt.sh [OPS]       (default 1000000 operations)
#        env: BUILD (default build-bench), RUNS (default 3)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh"
build=${BUILD:-$root/build-bench}
ops=${1:-1000000}
runs=${RUNS:-3}
bench_work mt

bench_build "$build"
bench_generator gen_mt


# run FILE LABEL LEVEL PATH_OPTION
run() {
    : >"$work/checks"; : >"$work/walls"; : >"$work/rss"; : >"$work/cpus"
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -v "$bin" check --level "$3" $4 "$1" \
            >"$work/out" 2>"$work/time" || true
        sed -n 's/.*checked in \([0-9]*\) ms.*/\1/p' "$work/out" \
            >>"$work/checks"
        sed -n 's/.*Elapsed (wall clock) time.*: //p' "$work/time" |
            awk -F: '{print $(NF-1) * 60 + $NF}' >>"$work/walls"
        sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time" \
            >>"$work/rss"
        sed -n 's/.*\(User\|System\) time (seconds): //p' "$work/time" |
            awk '{s += $1} END {print s}' >>"$work/cpus"
        i=$((i + 1))
    done
    verdict=$(head -1 "$work/out" | cut -d' ' -f1)
    path=${4:-mini-transactions}
    printf '| %s | %s | %s | %s | %s | %s s | %s s | %s MiB |\n' "$2" "$3" \
        "${verdict:-none}" "${path#--}" "$(median <"$work/checks")" \
        "$(median <"$work/cpus")" "$(median <"$work/walls")" \
        "$(($(median <"$work/rss") / 1024))"
}

echo "| history | level | verdict | path | check ms | CPU | wall | peak RSS |"
echo "|---|---|---|---|---|---|---|---|"
# ser: serial; si: snapshot isolation on 1,000 keys (write skews); lost:
# snapshots without the write check (lost updates)
for model in ser si lost; do
    keys=$((ops / 10))
    [ "$model" = si ] && keys=1000
    f="$work/mt-$ops-$model.json"
    [ -f "$f" ] || "$work/gen_mt" "$ops" 100 1 "$model" "$keys" >"$f"
    for lvl in ser si; do
        for path in --general ""; do
            run "$f" "$model, $ops ops" "$lvl" "$path"
        done
    done
done
