#!/bin/sh
# Benchmark reading: one generated causal history (bench/check/gen_causal.c,
# seeded) written in every input format (gen_formats.c; JSON by `isopredict
# convert`, one op a line, and the same indented with tabs by jq, as other
# tools print JSON), read by `isopredict check --level rc`, whose progress
# line gives the reading time alone.  Prints a markdown table: format, file
# size, and the fastest and median of RUNS reads (fresh processes).
#
# usage: bench/read/run.sh [OPS]      (default 1000000 operations)
#        env: BUILD (default build-bench), RUNS (default 9)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh"
build=${BUILD:-$root/build-bench}
ops=${1:-1000000}
runs=${RUNS:-9}
bench_work read

bench_build "$build"
bench_generator gen_causal
bench_generator gen_formats

h="$work/h$ops"
if [ ! -f "$h.plume" ]; then
    "$work/gen_causal" "$ops" 100 1 >"$h.plume"
    "$work/gen_formats" "$h.plume" "$h"
    "$bin" convert "$h.plume" "$h.json"
fi
[ -f "$h.tabs.json" ] || jq --tab . "$h.json" >"$h.tabs.json"

# read_ms FILE FORMAT: the sorted reading times of $runs runs, one a line
read_ms() {
    i=0
    while [ $i -lt "$runs" ]; do
        "$bin" check --level rc --format "$2" "$1" 2>&1 >/dev/null |
            sed -n 's/.* in \([0-9]*\) ms; checking.*/\1/p'
        i=$((i + 1))
    done | sort -n
}

echo "| format | input | fastest | median |"
echo "|---|---|---|---|"
for f in plume:plume json:json tabs.json:json bincode:dbcop cobra:cobra \
         awdit:awdit-test txt:isopredict-text; do
    ext=${f%%:*}
    fmt=${f#*:}
    [ "$ext" = tabs.json ] && fmt="json (tabs)"
    size=$(du -sm "$h.$ext" | cut -f1)
    times=$(read_ms "$h.$ext" "${fmt%% *}")
    fast=$(echo "$times" | head -1)
    med=$(echo "$times" | sed -n "$(((runs + 1) / 2))p")
    printf '| %s | %s MB | %s ms | %s ms |\n' "$fmt" "$size" "$fast" "$med"
done
