#!/bin/sh
# The committed example trace is exactly what the app records today
# (3 sessions x 4 transactions, seed 1): apps are deterministic.  The
# shipped traces predate the transactions' "procedure" fields, so those
# are left out of the comparison (procedures.sh checks them).
# usage: shipped_trace.sh APP SHIPPED.json WORKDIR
set -eu
. "$(dirname "$0")/../lib.sh"
app=$1 shipped=$2 dir=$3
fresh_dir "$dir"
"$app" --sessions 3 --txns 4 --seed 1 --record "$dir/now.json" --quiet
jq -S . "$shipped" > "$dir/a.json"
jq -S 'del(.sessions[].transactions[].procedure)' "$dir/now.json" \
    > "$dir/b.json"
cmp "$dir/a.json" "$dir/b.json"
