#!/usr/bin/env bash
# Out of memory while loading Graphviz never changes an answer: check
# --html on a violation (two drawings) with the N-th allocation inside
# the dlopen of libcgraph.so.6 / libgvc.so.6 failing (faildlopen.so, an
# LD_PRELOAD library), for N = 1, 2, ... until a run makes fewer than N.
# Every run either writes the normal page (exit 1) or stops with exit 3
# and "out of memory" on stderr and no page; never "not available" (4).
# usage: dlopen_oom.sh ISOPREDICT FAILDLOPEN_SO TRACES_DIR
set -u
BIN=$1 SHIM=$(realpath "$2") TRACES=$(realpath "$3")
. "$(dirname "$0")/../lib.sh"
work_dir dlopen_oom
# a violation to draw: deposit's prediction
"$BIN" predict --quiet --out p "$TRACES/deposit.json" > /dev/null
V=$(ls "$PWD"/p/*.json 2> /dev/null)
[ -n "$V" ] || die "no prediction to draw"
page() {   # page FILE: the page without its time, the drawings' lines
           # sorted (Graphviz orders clusters by address, as oom.sh says)
    sed 's/[0-9.]* s</s</g; /<svg/,/<\/svg>/d' "$1"
    sed -n '/<svg/,/<\/svg>/p' "$1" | sort
}
run() {   # run N: check --html with the N-th allocation in dlopen failing
    rm -f c.html
    IP_FAIL_DLOPEN_ALLOC=$1 LD_PRELOAD=$SHIM \
        "$BIN" check --level ser --html c.html "$V" > out 2> err
}
run 0
[ $? = 1 ] || die "baseline: exit $?: $(cat err)"
page c.html > base.html
grep -q '<svg' base.html || die "baseline: no drawing"
oom=0
for ((n = 1; n <= 1000; n++)); do
    run "$n"
    st=$?
    if grep -q "faildlopen: not reached" err; then
        [ "$st" = 1 ] || fail "N=$n (not reached): exit $st"
        [ "$n" -gt 1 ] || fail "no allocation inside dlopen was counted"
        [ "$oom" -gt 0 ] || fail "no failure reached the loader's report"
        finish "each of $((n - 1)) allocations inside Graphviz's dlopen failed in turn: $oom runs out of memory (exit 3), the rest the normal page"
    fi
    if [ "$st" = 3 ] && grep -q "out of memory" err; then
        oom=$((oom + 1))
        [ ! -e c.html ] || fail "N=$n: out of memory, yet c.html written"
        no_temp "N=$n" .
    elif [ "$st" != 1 ]; then
        fail "N=$n: exit $st: $(head -c 300 err)"
    elif ! page c.html | cmp -s - base.html; then
        fail "N=$n: the page differs"
    fi
done
die "still allocating inside dlopen after 1000 runs"
