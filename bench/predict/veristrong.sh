#!/bin/sh
# Histories recorded on real databases (../shared/corpus/veristrong: the
# VeriStrong paper's Table 2 sample, dbcop and Cobra formats), read
# directly.  Two tables: `isopredict check` against VeriStrong's verdicts
# (EXPECTED.tsv), and prediction on the serializable CockroachDB histories
# under both models.
#
# Usage: bench/predict/veristrong.sh [CORPUS_DIR]
#        (default ../shared/corpus/veristrong beside the repository)
# Environment: BUILD=build, TIMEOUT=60 (seconds per run)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
TIMEOUT=${TIMEOUT:-60}
corpus=${1:-$root/../shared/corpus/veristrong}
ip=$BUILD/src/cli/isopredict
[ -x "$ip" ] || { echo "no $ip: build first" >&2; exit 2; }
command -v jq > /dev/null || { echo "jq is required" >&2; exit 2; }
work=$(mktemp -d /tmp/isopredict-veristrong.XXXXXX)
trap 'rm -rf "$work"' EXIT
for a in table2-sample table2-cobra; do
    tar xJf "$corpus/$a.tar.xz" -C "$work"
done
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

echo "## check against VeriStrong"
echo
echo "| history | level | VeriStrong | isopredict | seconds |"
echo "|---|---|---|---|---|"
same=0 all=0
tail -n +2 "$corpus/EXPECTED.tsv" | while IFS="$(printf '\t')" read -r h lvl want note; do
    [ -e "$work/$h" ] || continue
    t0=$(now)
    set +e
    "$ip" check --level "$lvl" --timeout "$TIMEOUT" "$work/$h" > /dev/null 2> "$work/err"
    st=$?
    set -e
    case $st in 0) got=satisfied ;; 1) got=violated ;; 3) got=unknown ;;
                *) got="input error: $(head -c 100 "$work/err")" ;; esac
    echo "| $h | $lvl | $want | $got | $(secs "$t0") |"
done

echo
echo "## prediction on the serializable CockroachDB histories"
echo
echo "| history | transactions | causal: exit, s | rc: exit, s |"
echo "|---|---|---|---|"
awk -F'\t' 'NR > 1 && $2 == "ser" && $3 == "satisfied" && $1 ~ /roach/ { print $1 }' \
    "$corpus/EXPECTED.tsv" | while read -r h; do
    txns=- causal=- rc=-
    for m in causal rc; do
        t0=$(now)
        set +e
        "$ip" predict --quiet --json --model "$m" --timeout "$TIMEOUT" \
            --out "$work/p-$m" "$work/$h" > "$work/p.json" 2> /dev/null
        st=$?
        set -e
        r="$st, $(secs "$t0")"
        if [ "$m" = causal ]; then causal=$r; else rc=$r; fi
        txns=$(jq '.search.transactions' "$work/p.json" 2> /dev/null || echo -)
        rm -rf "$work/p-$m"
    done
    echo "| ${h%/history.bincode} | $txns | $causal | $rc |"
done
