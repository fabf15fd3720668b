#!/bin/sh
# Long fuzz campaigns (issue 13): every libFuzzer harness of tests/fuzz for
# a number of executions or seconds, ASan+UBSan, seeded with the project's
# traces and corpora.  Prints one table row per harness: executions,
# executions per second, coverage (edges, features), corpus size and
# findings (crash, leak, timeout and out-of-memory inputs, kept under
# OUTDIR/HARNESS/findings).  A finding is a bug: put the input in
# tests/fuzz/regress/ with its fix.
#
# Usage: bench/fuzz/run.sh [OUTDIR]            (OUTDIR must not exist)
# Environment:
#   BUILD=build-fuzz      Clang build with -DIP_FUZZ=ON -DIP_SANITIZE=ON
#                         (configured and built here when missing)
#   HARNESSES="fuzz_read_json fuzz_read_text fuzz_read_plume fuzz_read_awdit
#              fuzz_read_dbcop fuzz_read_cobra fuzz_read fuzz_levels
#              fuzz_predict"
#   RUNS=10000000         executions per reader harness (0: no limit)
#   LEVELS_RUNS=200000    executions of fuzz_levels (each checks 5 levels
#                         against brute force: a few hundred a second)
#   PREDICT_RUNS=20000    executions of fuzz_predict (each enumerates with
#                         Z3 and the brute-force oracle: ~80 per second)
#   SECONDS_MAX=3600      time limit per harness
#   JOBS=2                harnesses run at once
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build-fuzz}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
HARNESSES=${HARNESSES:-fuzz_read_json fuzz_read_text fuzz_read_plume fuzz_read_awdit fuzz_read_dbcop fuzz_read_cobra fuzz_read fuzz_levels fuzz_predict}
RUNS=${RUNS:-10000000}
LEVELS_RUNS=${LEVELS_RUNS:-200000}
PREDICT_RUNS=${PREDICT_RUNS:-20000}
SECONDS_MAX=${SECONDS_MAX:-3600}
JOBS=${JOBS:-2}
out=${1:-$here/out-$(date +%Y%m%d-%H%M%S)}
[ -e "$out" ] && { echo "$out exists; not overwriting it" >&2; exit 2; }
command -v clang > /dev/null || { echo "clang is required (apt-get install clang)" >&2; exit 2; }

if [ ! -x "$BUILD/tests/fuzz/fuzz_read" ]; then
    CC=clang cmake -S "$root" -B "$BUILD" -DIP_FUZZ=ON -DIP_SANITIZE=ON > /dev/null
fi
# shellcheck disable=SC2086
cmake --build "$BUILD" -j"$JOBS" --target $HARNESSES > /dev/null

# seeds: SELECTOR-BYTE + file (the readers' first byte picks format/mode)
seed() {   # seed DIR BYTE FILE...
    d=$1 byte=$2
    shift 2
    for f in "$@"; do
        [ -f "$f" ] || continue
        { printf "\\$(printf '%03o' "$byte")"; head -c 4000 "$f"; } \
            > "$d/$(basename "$f").$byte"
    done
}
mkdir -p "$out"
json_files="$root/tests/traces/*.json $root/examples/traces/*.json $root/tests/fuzz/seeds/small.json $root/tests/fuzz/seeds/small-lines.json $root/tests/fuzz/seeds/small-tabs.json $root/tests/fuzz/regress/*.json"
text_files="$root/tests/corpus/isopredict-microbenchmark/*.txt"
plume_files="$root/tests/fuzz/seeds/small.plume"
awdit_files="$root/tests/corpus/awdit-tests/causal/*.txt $root/tests/corpus/awdit-tests/none/*.txt $root/tests/corpus/awdit-tests/read-atomic/generated/l4e10sqrt.txt"
dbcop_files="$root/tests/fuzz/seeds/small.bincode"
# a Cobra seed is the log count less one (one byte), then the logs cut
# into that many equal parts
cobra_files="$root/tests/fuzz/seeds/small.cobra"
for h in $HARNESSES; do
    mkdir -p "$out/$h/corpus" "$out/$h/findings"
    c=$out/$h/corpus
    # shellcheck disable=SC2086
    case $h in
    fuzz_read_json)  seed "$c" 0 $json_files ;;
    fuzz_read_text)  seed "$c" 0 $text_files ;;
    fuzz_read_plume) seed "$c" 0 $plume_files ;;
    fuzz_read_awdit) seed "$c" 0 $awdit_files ;;
    fuzz_read_dbcop) seed "$c" 0 $dbcop_files ;;
    fuzz_read_cobra) seed "$c" 0 $cobra_files ;;
    fuzz_read)       seed "$c" 1 $json_files; seed "$c" 2 $text_files
                     seed "$c" 3 $plume_files; seed "$c" 4 $awdit_files
                     seed "$c" 5 $dbcop_files; seed "$c" 6 $cobra_files ;;
    esac
done

campaign() {   # campaign HARNESS: one libFuzzer run, its log in OUTDIR
    h=$1 runs=$RUNS len=4096
    case $h in
    fuzz_levels)  runs=$LEVELS_RUNS len=128 ;;
    fuzz_predict) runs=$PREDICT_RUNS len=128 ;;
    esac
    [ "$runs" = 0 ] && runs=-1     # libFuzzer: -runs=0 runs only the seeds
    t0=$(date +%s.%N)
    (cd "$out/$h/findings" &&
     "$BUILD/tests/fuzz/$h" -runs="$runs" -max_total_time="$SECONDS_MAX" \
         -max_len=$len -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
         "$out/$h/corpus" > "$out/$h/log" 2>&1) || true
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' \
        > "$out/$h/seconds"
}
n=0
for h in $HARNESSES; do
    campaign "$h" &
    n=$((n + 1))
    [ $((n % JOBS)) -eq 0 ] && wait
done
wait

echo "| harness | executions | seconds | exec/s | edges | features | corpus | findings |"
echo "|---|---|---|---|---|---|---|---|"
for h in $HARNESSES; do
    log=$out/$h/log
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    secs=$(cat "$out/$h/seconds")
    rate=$(awk -v r="${runs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? r / s : 0) }')
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    found=$(find "$out/$h/findings" -type f | wc -l)
    echo "| $h | ${runs:--} | $secs | $rate | ${cov:--} | ${ft:--} | ${corp:--} | $found |"
done
