#!/bin/sh
# Benchmark `isopredict check` on generated causal histories (and, with
# --awdit, on /work/shared/corpus/awdit-bench).  Seeded and reproducible.
# Prints a markdown table: size, sessions, level, verdict, check time (the
# checker's own), wall time and peak RSS of the whole command (parse
# included), from /usr/bin/time -v.
#
# usage: bench/check/run.sh [--awdit] [--levels "rc ra causal ser"]
#        env: BUILD (default build-bench), TIMEOUT seconds for ser (60)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh"
build=${BUILD:-$root/build-bench}
levels="rc ra causal ser"
awdit=0
while [ $# -gt 0 ]; do
    case $1 in
        --awdit) awdit=1 ;;
        --levels) levels=$2; shift ;;
        *) echo "usage: $0 [--awdit] [--levels LIST]" >&2; exit 2 ;;
    esac
    shift
done
timeout=${TIMEOUT:-60}
bench_work check

bench_build "$build"
bench_generator gen_causal

run() {   # run FILE LABEL SESSIONS
    for lvl in $levels; do
        /usr/bin/time -v "$bin" check --level "$lvl" --format plume \
            --timeout "$timeout" --max-cycles 1 "$1" \
            >"$work/out" 2>"$work/time" || true
        verdict=$(head -1 "$work/out" | cut -d' ' -f1)
        check=$(head -1 "$work/out" | sed -n 's/.*checked in \([0-9]*\) ms.*/\1/p')
        wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$work/time")
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$2" "$3" "$lvl" \
            "${verdict:-none}" "${check:-?}" "$wall" "$((rss / 1024)) MiB"
    done
}

echo "| history | sessions | level | verdict | check ms | wall | peak RSS |"
echo "|---|---|---|---|---|---|---|"
for ops in 10000 100000 1000000; do
    for k in 50 100; do
        f="$work/causal-$ops-$k.plume"
        [ -f "$f" ] || "$work/gen_causal" "$ops" "$k" 1 >"$f"
        run "$f" "generated causal, $ops ops" "$k"
    done
done
if [ "$awdit" = 1 ]; then
    for xz in /work/shared/corpus/awdit-bench/*.plume.xz; do
        f="$work/$(basename "$xz" .xz)"
        [ -f "$f" ] || xz -dkc "$xz" >"$f"
        run "$f" "$(basename "$f" .plume)" 100
    done
fi
