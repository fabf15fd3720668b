#!/bin/bash
# Round trips through every format we write and read: json -> FORMAT ->
# json keeps the history, so `isopredict check` gives the same verdict at
# every level; the committed transactions and their events are the same
# (awdit-test adds one transaction for the initial values it reads); and
# further trips read back the same JSON (a fixed point).  Traces: tests/traces, examples/traces and two corpora.
# usage: round_trip.sh ISOPREDICT CORPUS_DIR EXAMPLE_TRACES_DIR [EVERY]
# (EVERY: take every EVERY-th trace only; default 1)
set -u
BIN=$1
CORPUS=$2
EXAMPLES=$3
EVERY=${4:-1}
. "$(dirname "$0")/../lib.sh"
work_dir ip_convert_rt

FORMATS="isopredict-text plume awdit-test dbcop cobra"
LEVELS="rc ra causal si ser"

# out_name NAME FORMAT: the converted file's name (dbcop by its extension)
out_name() {
    case $2 in
    dbcop) echo "$1.bincode" ;;
    *) echo "$1.$2" ;;
    esac
}

# verdicts FILE: "level=status ..." of `check` at every level
verdicts() {
    local v=""
    for lv in $LEVELS; do
        "$BIN" check --level "$lv" "$1" >/dev/null 2>&1
        v="$v $lv=$?"
    done
    echo "$v"
}

# counts FILE: committed transactions and events (stats --json)
counts() {
    "$BIN" stats --json "$1" | jq -c '[.committed, .events, .read_events,
                                       .write_events]'
}

# trip NAME TRACE: TRACE through every format and back
trip() {
    local name=$1 trace=$2 want counts_want
    want=$(verdicts "$trace")
    counts_want=$(counts "$trace")
    for fmt in $FORMATS; do
        TEST_CASE="$name $fmt"
        local f1 f2
        f1=$(out_name "$name.1" "$fmt")
        f2=$(out_name "$name.2" "$fmt")
        if ! "$BIN" convert --to "$fmt" "$trace" "$f1" 2>notes; then
            # refused: only for what the format cannot say (the ambiguous
            # reads of isopredict-text), and nothing is written
            grep -q 'ambiguous reads' notes || fail "refused: $(cat notes)"
            [ ! -e "$f1" ] || fail "refused, but $f1 was written"
            continue
        fi
        expect 0 "$BIN" convert --from "$fmt" "$f1" "$name.1.$fmt.json" ||
            continue
        local got
        got=$(verdicts "$name.1.$fmt.json")
        [ "$got" = "$want" ] || fail "verdicts$want became$got"
        local c
        c=$(counts "$name.1.$fmt.json")
        if [ "$fmt" = awdit-test ] && grep -q 'no initial state' notes; then
            # plus the transaction that writes the initial values read
            c=$(jq -c '.[0] -= 1 | .[0:1]' <<<"$c")
            local w
            w=$(jq -c '.[0:1]' <<<"$counts_want")
            [ "$c" = "$w" ] || fail "committed transactions $w became $c"
        else
            [ "$c" = "$counts_want" ] ||
                fail "committed/events $counts_want became $c"
        fi
        # then a fixed point: the first trip loses what the format cannot
        # hold, the second what went with it (names: transactions are
        # numbered with the aborted ones that dbcop wrote and plume
        # merged), the third nothing
        local f3
        f3=$(out_name "$name.3" "$fmt")
        expect 0 "$BIN" convert --to "$fmt" "$name.1.$fmt.json" "$f2" &&
            expect 0 "$BIN" convert --from "$fmt" "$f2" "$name.2.$fmt.json" &&
            expect 0 "$BIN" convert --to "$fmt" "$name.2.$fmt.json" "$f3" &&
            expect 0 "$BIN" convert --from "$fmt" "$f3" "$name.3.$fmt.json" &&
            { cmp -s "$name.2.$fmt.json" "$name.3.$fmt.json" ||
                  fail "a third trip changed the history"; }
        grep -q 'aborted transactions' notes ||
            cmp -s "$name.1.$fmt.json" "$name.2.$fmt.json" ||
            fail "a second trip changed the history"
    done
    TEST_CASE=""
}

n=0 seen=0
for t in "$TESTS_DIR"/traces/*.json "$EXAMPLES"/bank.json \
         "$EXAMPLES"/smallbank.json \
         "$CORPUS"/isopredict-microbenchmark/*.txt \
         "$CORPUS"/awdit-tests/causal/*.txt \
         "$CORPUS"/awdit-tests/read-atomic/*.txt; do
    [ -f "$t" ] || continue
    seen=$((seen + 1))
    [ $(((seen - 1) % EVERY)) = 0 ] || continue
    n=$((n + 1))
    trip "t$n-$(basename "${t%.*}")" "$t"
done
[ "$seen" -ge 20 ] || fail "only $seen traces found"
no_temp "round trips" "$WORK"
finish "ok: $n traces through $FORMATS"
