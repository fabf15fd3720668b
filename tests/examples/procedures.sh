#!/bin/sh
# Every transaction an app records, committed or aborted, names the
# procedure it ran (its "procedure" tool field), and only procedures the
# app has; a replay records them too.
# usage: procedures.sh APP WORKDIR PROCEDURE...
set -eu
. "$(dirname "$0")/../lib.sh"
app=$1 dir=$2
shift 2
fresh_dir "$dir"
# enough transactions that smallbank and bank abort some
"$app" --sessions 3 --txns 12 --seed 5 --record "$dir/obs.json" --quiet
known=$(printf '%s\n' "$@" | jq -R . | jq -cs .)
check() {
    jq -e '[.sessions[].transactions[]] | length > 0 and
           all(.procedure | type == "string" and length > 0)' "$1" \
        > /dev/null || die "$1: a transaction without a procedure"
    unknown=$(jq -c --argjson known "$known" \
        '[.sessions[].transactions[].procedure] - $known | unique' "$1")
    [ "$unknown" = "[]" ] || die "$1: procedures not of the app: $unknown"
}
check "$dir/obs.json"
jq '. + {prediction: {model: "rc", commit_order: .schedule}}' \
    "$dir/obs.json" > "$dir/pred.json"
"$app" --replay "$dir/pred.json" --record "$dir/rep.json" --quiet
check "$dir/rep.json"
echo "procedures: $(jq -r '[.sessions[].transactions[] |
    .procedure + (if .status == "aborted" then " (aborted)" else "" end)]
    | group_by(.) | map("\(.[0]) x\(length)") | join(", ")' "$dir/obs.json")"
