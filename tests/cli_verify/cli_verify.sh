#!/usr/bin/env bash
# End-to-end tests of `isopredict verify`: predictions of the example
# applications pass it; mutants of them (a kept read given another writer,
# a dropped transaction kept or unlisted, a kept one dropped, a boundary
# moved, a cut changed) fail it with the rule they break; JSON; errors.
# usage: cli_verify.sh ISOPREDICT TEST_TRACES APPS_DIR CASE
set -u
BIN=$1 TRACES=$2 APPS=$3 CASE=$4
. "$(dirname "$0")/../lib.sh"
TEST_CASE=$CASE
work_dir cli_verify
record() { record_app "$APPS/$1" "$2" "$3" "$4" "$5"; }   # APP S T SEED FILE

PREDS=0
# predict TRACE DIR OPTIONS...: up to 2 predictions into DIR, each verified
predict_and_verify() {
    local t=$1 dir=$2; shift 2
    "$BIN" predict --quiet --max-predictions 2 --out "$dir" "$@" "$t" \
        >/dev/null 2>err
    local st=$?
    [ "$st" = 0 ] || [ "$st" = 1 ] || [ "$st" = 3 ] ||
        { fail "predict $* $t exited $st"; cat err >&2; return; }
    for p in "$dir"/*.json; do
        [ -e "$p" ] || continue
        PREDS=$((PREDS + 1))
        "$BIN" verify --observed "$t" "$p" >out 2>err ||
            { fail "verify $p ($*): $(cat out err)"; }
    done
}

# Under the sanitizers a prediction costs several times more: there each
# trace runs every SHARE-th combination, starting at its own offset, so
# the five traces still cover them all between them.
SHARE=1
ldd "$BIN" | grep -q libasan && SHARE=3
OFFSET=0

# every combination that applies, for trace $1 (exhaustive too when $2)
matrix() {
    local t=$1 exhaustive=$2 n=0
    for m in rc ra causal si; do
        for b in strict relaxed; do
            for e in approx exact; do
                for w in eager lazy; do
                    [ $m = si ] && [ $w = lazy ] && continue
                    local opts=(--model $m --boundary $b --encoding $e
                                --weak-isolation $w --timeout 10)
                    n=$((n + 1))
                    [ $(((n + OFFSET) % SHARE)) = 0 ] || continue
                    [ "$exhaustive" = 1 ] &&
                        predict_and_verify "$t" "$t-x$n" "${opts[@]}" \
                            --search exhaustive
                    predict_and_verify "$t" "$t-b$n" "${opts[@]}" \
                        --search bounded --window 8 --staleness 2
                done
            done
        done
    done
}

# jq-edit prediction $1 with filter $2 into m.json; verify must say $3
mutant() {
    jq "$2" "$1" > m.json || { fail "jq $2"; return; }
    expect 1 "$BIN" verify --observed "$OBS" m.json
    contains out "NOT LEGAL"
    contains out "$3"
}

case $CASE in
small)
    # 3 x 4 traces of the five applications, every combination
    for app in bank smallbank voter tpcc wikipedia; do
        record $app 3 4 2 $app.json
        matrix $app.json 1
        OFFSET=$((OFFSET + 1))
    done
    [ $((PREDS * SHARE)) -ge 100 ] || fail "only $PREDS predictions verified"
    ;;
large)
    # 10 x 100: bounded search only, one model per boundary and encoding
    for app in bank smallbank voter tpcc wikipedia; do
        record $app 10 100 3 $app.json
        predict_and_verify $app.json c$app --model causal --timeout 10 \
            --window 32 --staleness 2
        predict_and_verify $app.json r$app --model rc --boundary strict \
            --encoding exact --timeout 10 --window 32 --staleness 2
        predict_and_verify $app.json a$app --model ra --weak-isolation lazy \
            --timeout 10 --window 32 --staleness 2
    done
    [ $PREDS -ge 10 ] || fail "only $PREDS predictions verified"
    ;;
mutants)
    # A fresh prediction passes; the mutants are made from fixed ones
    # (tests/traces/verify-mutants): which of the equivalent
    # counterexamples the solver gives first is not what they test.
    record tpcc 3 4 8 tpcc.json
    expect 1 "$BIN" predict --quiet --model ra --out p tpcc.json
    expect 0 "$BIN" verify --observed tpcc.json p/*.json
    # a relaxed prediction with a dropped transaction (tpcc 3x4, seed 8,
    # ra: s2.3 reads d0:next_o from the boundary transaction s1.0)
    OBS=$TRACES/verify-mutants/tpcc-3x4-seed8.json
    P=$TRACES/verify-mutants/tpcc-ra.prediction.json
    expect 0 "$BIN" verify --observed "$OBS" "$P"
    contains out ": legal (ra, relaxed boundary)"
    contains out "1 dropped"
    # a dropped transaction no longer said to be dropped
    mutant "$P" '.prediction.witness.dropped = []' \
        "happen after a boundary transaction"
    # ... or said to be dropped by a step that does not exist
    mutant "$P" '.prediction.witness.dropped[0].by = "so"' \
        "not a happens-before step"
    # a changed read given another writer: the history is not the file's
    mutant "$P" '(.prediction.witness.reads[] | select(.transaction == "s3.0"
                  and .key == "d0:next_o") | .writer) = "s1.0"' \
        "dropped transactions; 2 happen after a boundary transaction"
    # ... or a writer that does not write the key
    mutant "$P" '(.prediction.witness.reads[] | select(.transaction == "s3.0"
                  and .key == "s26:qty") | .writer) = "s2.0"' \
        "does not commit a write of the key"
    # the changed reads forgotten: the dropped one reads observed writers,
    # which lie beyond their sessions' boundaries
    mutant "$P" '.prediction.witness.reads = []' \
        "lies after its session's boundary"
    # a kept transaction removed from the history
    mutant "$P" 'del(.sessions[0].transactions[0])' "transactions"
    # s1's boundary moved to the session end: nothing happens after a
    # boundary transaction any more
    mutant "$P" '.prediction.boundaries[0].kind = "end"' \
        "does not happen after a boundary transaction"
    # s3's: its changed reads are illegal
    mutant "$P" '.prediction.boundaries[2].kind = "end"' \
        "precedes its session's boundary transaction but changed its writer"
    # a model the history violates, or a boundary kind it is not
    mutant "$P" '.prediction.model = "si"' "not valid under si"
    mutant "$P" '.prediction.witness.reads[0].writer = "nobody"' \
        "does not have"
    # a bounded prediction: its cut is part of the witness
    record smallbank 3 8 2 sb.json
    OBS=sb.json
    "$BIN" predict --quiet --search bounded --window 8 --out q sb.json \
        >/dev/null 2>&1
    Q=$(ls q/*.json 2>/dev/null | head -1)
    if [ -n "$Q" ]; then
        expect 0 "$BIN" verify --observed sb.json "$Q"
        jq -e '.prediction.witness.cut | length > 0' "$Q" >/dev/null ||
            fail "bounded prediction without a cut"
        mutant "$Q" '.prediction.witness.cut[0].transactions += 100' \
            "commits fewer"
    else
        fail "no bounded prediction on sb.json"
    fi
    # the history edited: a read the witness keeps at init reads t1
    OBS=$TRACES/deposit.json
    expect 1 "$BIN" predict --quiet --out d "$OBS"
    D=$(ls d/*.json | head -1)
    mutant "$D" '.sessions[1].transactions[0].ops[0].from = "t1" |
                 .sessions[1].transactions[0].ops[0].value = 50' \
        "transaction 't2' differs from what the witness gives (op 0)"
    # strict: the boundary read is named by its observed op
    OBS=$TRACES/pco-gap.json
    expect 1 "$BIN" predict --quiet --boundary strict --model rc --out s \
        "$OBS"
    expect 0 "$BIN" verify --observed "$OBS" s/*.json
    S=$TRACES/verify-mutants/pco-gap-rc-strict.prediction.json
    expect 0 "$BIN" verify --observed "$OBS" "$S"
    jq -e '.prediction.boundaries[4] | .kind == "read" and
           .transaction == "R1" and .observed_op == 2' "$S" >/dev/null ||
        fail "strict boundary of s5: $(jq -c .prediction.boundaries "$S")"
    mutant "$S" '.prediction.boundaries[4].observed_op = 7' "not a read of"
    # moved to an earlier read: R1 keeps fewer ops than the file says
    mutant "$S" '.prediction.boundaries[4].observed_op = 0' "R1"
    ;;
json)
    record bank 3 4 1 bank.json
    expect 1 "$BIN" predict --quiet --out p bank.json
    P=$(ls p/*.json | head -1)
    jq '.prediction.witness.reads = []' "$P" > bad.json
    expect 1 "$BIN" verify --json --observed bank.json "$P" bad.json
    jq -e '.files == 2 and .legal == 1 and
           .predictions[0].verdict == "legal" and
           .predictions[0].model == "causal" and
           .predictions[1].verdict == "illegal" and
           (.predictions[1].rule | length > 0)' out >/dev/null ||
        fail "json: $(cat out)"
    ;;
usage)
    expect 2 "$BIN" verify
    contains err "--observed"
    expect 2 "$BIN" verify --observed "$TRACES/deposit.json"
    contains err "no PREDICTION"
    expect 2 "$BIN" verify --observed nonexistent.json x.json
    expect 2 "$BIN" verify --bogus
    # not a prediction file: the observed trace itself
    expect 2 "$BIN" verify --observed "$TRACES/deposit.json" \
        "$TRACES/deposit.json"
    contains err "not a prediction file"
    echo '{"isopredict_trace":1' > broken.json
    expect 2 "$BIN" verify --observed "$TRACES/deposit.json" broken.json
    contains err "broken.json"
    # a prediction without a witness (an older file)
    expect 1 "$BIN" predict --quiet --out p "$TRACES/deposit.json"
    jq 'del(.prediction.witness)' p/*.json > old.json
    expect 2 "$BIN" verify --observed "$TRACES/deposit.json" old.json
    contains err "witness: missing"
    expect 0 "$BIN" verify --help
    contains out "usage: isopredict verify"
    ;;
*)
    fail "unknown case"
    ;;
esac
finish
