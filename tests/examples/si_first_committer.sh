#!/bin/sh
# Snapshot isolation's first committer wins in an application's replay.
# Two deposits to one account that both read the initial balance (a lost
# update): replayed under si, the second to commit is aborted by the
# store, bank counts only the committed deposit (its invariants hold), and
# isopredict validate finds the execution valid under si but serializable,
# a divergence from the prediction that names the conflict.  Replayed
# under causal, which allows the lost update, both commit and it validates.
# usage: si_first_committer.sh ISOPREDICT BANK WORKDIR
set -eu
. "$(dirname "$0")/../lib.sh"
ip=$1 app=$2 dir=$3
fresh_dir "$dir"
"$app" --sessions 2 --txns 1 --seed 2 --record "$dir/obs.json" --quiet
shape=$(jq -c '[.sessions[].transactions[0] | .procedure, .ops[0].key]' \
    "$dir/obs.json")
[ "$shape" = '["deposit","bal:0","deposit","bal:0"]' ] ||
    die "seed 2 no longer records two deposits to bal:0 ($shape)"

# the prediction: s2.0 reads the initial balance, as s1.0 did
predict() {
    jq --arg m "$1" 'del(.schedule, .invariants) |
        .sessions[1].transactions[0].ops[0] |= (.from = "init" | .value = 100) |
        . + {prediction: {model: $m, commit_order: ["init", "s1.0", "s2.0"]}}' \
        "$dir/obs.json" > "$dir/pred-$1.json"
}
# validate MODEL -> exit status; the report in val-MODEL.out
validate() {
    predict "$1"
    set +e
    "$ip" validate --app "$app" --json --out "$dir/val-$1.json" \
        "$dir/pred-$1.json" > "$dir/val-$1.out" 2> "$dir/val-$1.err"
    st=$?
    set -e
    echo "$1: validate exited $st: $(jq -r .reason "$dir/val-$1.out")" >&2
    return $st
}
field() { jq -r "$2" "$dir/val-$1.out"; }
status_of_s2() {
    jq -r '.sessions[1].transactions[0].status' "$dir/val-$1.json"
}

st=0; validate si || st=$?
[ "$st" = 0 ] || die "si: validate exited $st, expected 0 (not validated)"
[ "$(field si .result)" = not-validated ] || die "si: $(field si .result)"
[ "$(field si .diverged)" = true ] || die "si: no divergence reported"
[ "$(field si '.divergences | length')" = 1 ] ||
    die "si: $(field si '.divergences | length') divergences, expected 1"
[ "$(field si '.divergences[0] | .txn + " " + .kind + " " + .key')" = \
  "s2.0 write-conflict bal:0" ] ||
    die "si: divergence $(field si '.divergences[0]')"
field si '.divergences[0].reason' | grep -q "s1.0 wrote 'bal:0'" ||
    die "si: the reason does not name the winner"
[ "$(field si .invariants.violated)" = 0 ] ||
    die "si: bank counted the aborted deposit: $(field si .invariants)"
[ "$(status_of_s2 si)" = aborted ] || die "si: s2.0 $(status_of_s2 si)"
"$ip" check --level si "$dir/val-si.json" > /dev/null ||
    die "si: the validating execution violates si"
"$ip" check --level ser "$dir/val-si.json" > /dev/null ||
    die "si: the validating execution is not serializable"

st=0; validate causal || st=$?
[ "$st" = 1 ] || die "causal: validate exited $st, expected 1 (validated)"
[ "$(field causal .result)" = validated ] ||
    die "causal: $(field causal .result)"
[ "$(field causal .invariants.violated)" -gt 0 ] ||
    die "causal: the lost update broke no invariant"
[ "$(status_of_s2 causal)" = committed ] ||
    die "causal: s2.0 $(status_of_s2 causal)"
echo "ok"
