#!/bin/sh
# The PostgreSQL backend of the example store, against a real server:
# reads name their writers, the server's aborts are recorded as aborted
# attempts and retried, and errors exit 2 with the libpq message and no
# trace file (a bad DSN, a server stopped in the middle of a run).
# usage: pg_backend.sh BANK DSN_FILE WORKDIR CLUSTER_SH
set -eu
. "$(dirname "$0")/../lib.sh"
bank=$1 dsn=$(cat "$2") dir=$3 cluster=$4
fresh_dir "$dir"

# ---- reads name writers; retries are aborted attempts --------------------
t=$dir/ser.json
"$bank" --store postgres --dsn "$dsn" --isolation serializable --sessions 8 \
    --txns 25 --seed 3 --record "$t" --quiet
# every read of another transaction's write names a committed transaction
# whose last write of the key is the value read; initial reads read 100
jq -e '[.sessions[].transactions[]] as $tx
  | ($tx | map({key: .id, value: .}) | from_entries) as $by
  | [$tx[] | .id as $me | .ops[] | select(.op == "read" and .from != $me)
     | . as $r
     | if $r.from == "init" then $r.value == 100
       else $by[$r.from] as $w
         | $w.status == "committed" and
           ([$w.ops[] | select(.op == "write" and .key == $r.key)] | last
            | .value) == $r.value
       end] | (length > 0 and all)' "$t" > /dev/null ||
    die "a read does not name the writer of the value it read"
retries=$(jq .meta.store.retries "$t")
[ "$retries" -gt 0 ] ||
    die "8 sessions on 2 accounts at serializable: expected retries"
# a retried attempt is s<k>.<i>#<n>, aborted, and comes before the last
# attempt s<k>.<i> of the same transaction; each transaction ends once
jq -e --argjson n "$retries" '
  [.sessions[].transactions[] | select(.id | contains("#"))] as $r
  | ($r | length) == $n and ($r | all(.status == "aborted"))' "$t" \
    > /dev/null || die "retries are not the '#' attempts, all aborted"
jq -e '[.sessions[] | [.transactions[].id | split("#")[0]] as $ids
  | ($ids | unique | length) == 25 and
    ($ids == ($ids | sort_by(split(".")[1] | tonumber)))
  and ([.transactions[] | select(.id | contains("#") | not)] | length) == 25]
  | all' "$t" > /dev/null ||
    die "a session's attempts are not in order, one final per transaction"
echo "reads name writers; $retries retries recorded as aborted attempts"

# ---- errors: exit 2, the libpq message, no trace -------------------------
expect2() {   # expect2 NAME GREP ARGS...: exit 2, stderr matches, no file
    name=$1 pat=$2
    shift 2
    set +e
    "$bank" --record "$dir/$name.json" "$@" 2> "$dir/$name.err"
    st=$?
    set -e
    [ "$st" = 2 ] || die "$name: exit $st, expected 2"
    grep -q "$pat" "$dir/$name.err" ||
        die "$name: stderr lacks '$pat': $(cat "$dir/$name.err")"
    [ ! -e "$dir/$name.json" ] || die "$name: a trace file was left"
}
expect2 nodsn "needs --dsn" --store postgres
expect2 level "isolation" --store postgres --dsn "$dsn" --isolation snapshot
expect2 replay "in-memory store only" --store postgres --dsn "$dsn" \
    --replay "$t"
expect2 noserver "cannot connect.*No such file" --store postgres \
    --dsn "host=$dir/none port=5432 user=postgres dbname=postgres"
expect2 baddsn "cannot connect" --store postgres --dsn "nosuchoption=1"
expect2 nodb "cannot connect.*does not exist" --store postgres \
    --dsn "$dsn dbname=nosuchdb"

# ---- a server stopped in the middle of a run ------------------------------
own=$(mktemp -d /tmp/isopredict-pgstop.XXXXXX)
cleanup() { sh "$cluster" stop "$own" > /dev/null 2>&1 || true; rm -rf "$own"; }
trap cleanup EXIT
odsn=$(sh "$cluster" start "$own")
set +e
"$bank" --store postgres --dsn "$odsn" --sessions 8 --txns 4000 \
    --record "$dir/stopped.json" 2> "$dir/stopped.err" &
pid=$!
sleep 1
sh "$cluster" stop "$own"
wait $pid
st=$?
set -e
[ "$st" = 2 ] || die "server stopped mid-run: exit $st, expected 2"
grep -q "connection" "$dir/stopped.err" ||
    die "server stopped mid-run: $(cat "$dir/stopped.err")"
[ ! -e "$dir/stopped.json" ] || die "server stopped mid-run: a trace was left"
echo "errors: exit 2 with the message, no trace: $(head -c 300 "$dir/stopped.err")"
