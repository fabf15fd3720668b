#!/bin/sh
# isopredict validate: input errors exit 2 with a message, never 0 or 1.
# usage: validate_errors.sh ISOPREDICT APP WORKDIR
set -u
. "$(dirname "$0")/../lib.sh"
ip=$1 app=$2 dir=$3
fresh_dir "$dir"
"$app" --seed 3 --record "$dir/obs.json" --quiet || die "record"
expect2() {
    what=$1
    shift
    "$@" > "$dir/out.txt" 2> "$dir/err.txt"
    st=$?
    [ "$st" = 2 ] || die "$what: exit $st, expected 2"
    [ -s "$dir/err.txt" ] || die "$what: no message"
    echo "$what: $(head -1 "$dir/err.txt")"
}
expect2 "no --app" "$ip" validate "$dir/obs.json"
expect2 "not a prediction" "$ip" validate --app "$app" "$dir/obs.json"
expect2 "missing file" "$ip" validate --app "$app" "$dir/nope.json"
jq '. + {prediction: {model: "causal", commit_order: .schedule}}' \
    "$dir/obs.json" > "$dir/pred.json"
: > "$dir/exists.json"
expect2 "existing --out" "$ip" validate --app "$app" --out "$dir/exists.json" \
    "$dir/pred.json"
[ ! -s "$dir/exists.json" ] || die "overwrote --out"
ls -A "$dir" | grep -q '^\.' && die "existing --out: temporary files left"
expect2 "missing app" "$ip" validate --app "$dir/no-such-app" "$dir/pred.json"
jq '.prediction.model = "ser"' "$dir/pred.json" > "$dir/si.json"
expect2 "bad model" "$ip" validate --app "$app" "$dir/si.json"
jq 'del(.workload)' "$dir/pred.json" > "$dir/nowl.json"
expect2 "no workload" "$ip" validate --app "$app" "$dir/nowl.json"
# counts are bounded (cli_parse_count): the message names the bound
for bad in 4097 -1 +3 " 3" 3x ""; do
    expect2 "--sessions '$bad'" "$ip" validate --app "$app" --sessions "$bad" \
        --txns 4 --seed 3 "$dir/nowl.json"
    grep -q "sessions expects an integer from 0 to 4096, not '$bad'" \
        "$dir/err.txt" || die "--sessions '$bad': $(cat "$dir/err.txt")"
done
expect2 "--seed past 2^53" "$ip" validate --app "$app" --sessions 3 \
    --txns 4 --seed 9007199254740993 "$dir/nowl.json"
# the observed trace replayed as its own prediction is serializable
"$ip" validate --app "$app" "$dir/pred.json" > "$dir/out.txt" 2>/dev/null
st=$?
[ "$st" = 0 ] || die "serializable replay: exit $st, expected 0"
grep -q "^not-validated: the validating execution is serializable" "$dir/out.txt" ||
    die "serializable replay: $(cat "$dir/out.txt")"
"$ip" validate --app "$app" --sessions 3 --txns 4 --seed 3 "$dir/nowl.json" \
    > /dev/null 2>&1
[ "$?" = 0 ] || die "workload from options"
# --out: the validating trace is recorded beside it and linked into place
"$ip" validate --app "$app" --out "$dir/val.json" "$dir/pred.json" \
    > "$dir/out.txt" 2>/dev/null
st=$?
[ "$st" = 0 ] || die "--out: exit $st, expected 0"
grep -q "validating trace: $dir/val.json" "$dir/out.txt" ||
    die "--out: $(cat "$dir/out.txt")"
"$ip" stats "$dir/val.json" > /dev/null || die "--out: val.json unreadable"
ls -A "$dir" | grep -q '^\.' && die "--out: temporary files left"
echo ok
