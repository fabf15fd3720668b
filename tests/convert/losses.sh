#!/bin/bash
# What a format cannot hold is said, never dropped silently: `convert`
# warns on stderr, naming what and how many, and still writes; where the
# file would read back as another history it refuses (exit 2) and writes
# nothing.  Also the output rules for cobra's directory.
# usage: losses.sh ISOPREDICT
set -u
BIN=$1
. "$(dirname "$0")/../lib.sh"
work_dir ip_convert_losses

# converts NAME FORMAT IN OUT TEXT...: exit 0, OUT written, each TEXT said
converts() {
    local name=$1 fmt=$2 in=$3 out=$4
    shift 4
    TEST_CASE=$name
    expect 0 "$BIN" convert --to "$fmt" "$in" "$out" || return
    [ -e "$out" ] || fail "$out not written"
    for s in "$@"; do contains err "$s"; done
    TEST_CASE=""
}

# refuses NAME FORMAT IN OUT TEXT: exit 2, nothing written, TEXT said
refuses() {
    TEST_CASE=$1
    expect 2 "$BIN" convert --to "$2" "$3" "$4" &&
        contains err "$5"
    [ "$4" = - ] || [ ! -e "$4" ] || fail "refused, but $4 was written"
    TEST_CASE=""
}

H='{"isopredict_trace":1,"sessions":['
# two aborted transactions in one session, an empty one, tool fields
cat >ab.json <<JSON
$H{"id":"c1","meta":{"who":"a"},"transactions":[
 {"id":"t1","ops":[{"op":"write","key":"1","value":1}]},
 {"id":"a1","status":"aborted","ops":[{"op":"write","key":"1","value":7}]},
 {"id":"a2","status":"aborted","ops":[{"op":"write","key":"2","value":8}]},
 {"id":"e","ops":[]}]},
 {"id":"c2","transactions":[
 {"id":"t2","procedure":"p","ops":[{"op":"read","key":"1","value":1}]}]}]}
JSON
converts "text aborted" isopredict-text ab.json ab.txt \
    "warning: isopredict-text cannot hold aborted transactions: 2 left out" \
    "isopredict-text cannot hold transactions without operations: 1 left out" \
    "isopredict-text cannot hold tool fields (procedure, args, meta, ...): left out of 2 objects" \
    "isopredict-text cannot hold values: 2 left out"
contains ab.txt "READ KEY[1] Txn(2, 1) From(1, 1)"
converts "plume merged" plume ab.json ab.plume \
    "plume holds a session's aborted transactions as one: 2 aborted transactions merged into 1"
lacks err "aborted transactions: 2 left out"
contains ab.plume "w(1,7,0,-1)"
converts "dbcop failed" dbcop ab.json ab.bincode \
    "dbcop drops aborted transactions when read (dbcop itself ignores them): 2 written as failed"
lacks err "without operations"          # dbcop holds empty transactions
converts "awdit aborted" awdit-test ab.json ab.awdit \
    "awdit-test cannot hold aborted transactions: 2 left out"
converts "cobra aborted" cobra ab.json ab.cobra \
    "cobra cannot hold aborted transactions: 2 left out"
[ -f ab.cobra/s0.log ] && [ -f ab.cobra/s1.log ] || fail "cobra: logs s0, s1"
TEST_CASE="cobra read back" expect 0 "$BIN" stats --json ab.cobra &&
    { [ "$(jq .committed out)" = 3 ] || fail "cobra: 3 committed back"; }

# keys and values that are not integers, the initial value
cat >kv.json <<JSON
$H{"id":"c1","transactions":[
 {"id":"t1","ops":[{"op":"read","key":"acct","from":"init"},
                   {"op":"write","key":"acct","value":"fifty"}]}]},
 {"id":"c2","transactions":[
 {"id":"t2","ops":[{"op":"read","key":"acct","value":"fifty"}]}]}]}
JSON
converts "plume renumbered" plume kv.json kv.plume \
    "plume cannot hold key names that are not unsigned 64-bit integers ('acct', ...: 1 key): all 1 keys renumbered 0 to 0" \
    "plume cannot hold values that are not unsigned 64-bit integers (the values of 3 ops): all values renumbered"
contains kv.plume "r(0,0,0,1)"
contains kv.plume "r(0,1,1,2)"
converts "awdit initial" awdit-test kv.json kv.awdit \
    "awdit-test has no initial state: the initial values of 1 key are written by a transaction of their own"
TEST_CASE="awdit initial read back" expect 0 "$BIN" convert kv.awdit kv.awdit.json &&
    contains kv.awdit.json '"from":"t0.0"'
TEST_CASE=""

# values written twice, so that a value does not name its writer
cat >dup.json <<JSON
$H{"id":"c1","transactions":[
 {"id":"t1","ops":[{"op":"write","key":"5","value":3}]},
 {"id":"t2","ops":[{"op":"write","key":"5","value":3}]}]},
 {"id":"c2","transactions":[
 {"id":"t3","ops":[{"op":"read","key":"5","from":"t1","value":3}]}]}]}
JSON
converts "dbcop duplicate value" dbcop dup.json dup.bincode \
    "dbcop resolves reads by value, and these values do not name the writers of 1 read alone: all values renumbered"
lacks err "key names"                    # integer keys are kept
converts "cobra names writers" cobra dup.json dup.cobra
lacks err "renumbered"                   # cobra names t1: values kept
TEST_CASE="dbcop duplicate read back" expect 0 "$BIN" convert dup.bincode dup.back.json &&
    contains dup.back.json '{"op":"read","key":"5","from":"s0.0","value":1}'
TEST_CASE=""

# ambiguous reads: kept where the values keep them, refused elsewhere
cat >amb.json <<JSON
$H{"id":"c1","transactions":[
 {"id":"t1","ops":[{"op":"write","key":"5","value":3}]},
 {"id":"t2","ops":[{"op":"write","key":"5","value":3}]}]},
 {"id":"c2","transactions":[
 {"id":"t3","ops":[{"op":"read","key":"5","value":3}]}]}]}
JSON
refuses "text ambiguous" isopredict-text amb.json amb.txt \
    "cannot write this trace as isopredict-text: isopredict-text names one writer a read: the trace's 1 ambiguous reads cannot be written"
for f in plume awdit-test dbcop cobra; do
    converts "$f ambiguous kept" $f amb.json amb.$f
    TEST_CASE="$f ambiguous read back" expect 0 "$BIN" stats --json \
        --format $f amb.$f &&
        { [ "$(jq .ambiguous_reads out)" = 1 ] || fail "$f: one ambiguous read"; }
done
TEST_CASE=""
sed 's/"value":3/"value":"x"/g' amb.json >amb-s.json
refuses "plume ambiguous renumbered" plume amb-s.json amb-s.plume \
    "plume cannot keep the trace's 1 ambiguous reads ambiguous"
refuses "cobra ambiguous renumbered" cobra amb-s.json amb-s.cobra \
    "cobra cannot keep the trace's 1 ambiguous reads ambiguous"

# a key isopredict-text cannot spell
printf '%s{"id":"c1","transactions":[{"id":"t1","ops":[{"op":"write","key":"a]b","value":1}]}]}]}' "$H" >br.json
refuses "text bracket" isopredict-text br.json br.txt \
    "isopredict-text cannot spell key names that are empty or hold ']' or a control byte ('a]b', ...: 1 key)"

# a thin-air read kept by --lenient
printf '%s{"id":"c1","transactions":[{"id":"t1","ops":[{"op":"read","key":"k","from":null}]},{"id":"t2","ops":[{"op":"write","key":"k"}]}]}]}' "$H" >thin.json
TEST_CASE="text thin air" expect 0 "$BIN" convert --lenient --to isopredict-text thin.json thin.txt &&
    contains err "isopredict-text cannot hold reads without a writer it holds (kept by --lenient): 1 left out"
TEST_CASE=""

# cobra writes a new directory: never '-', never over anything
refuses "cobra stdout" cobra ab.json - "cobra writes a directory"
mkdir empty.cobra
TEST_CASE="cobra over a directory" expect 2 "$BIN" convert --to cobra ab.json empty.cobra &&
    contains err "empty.cobra: already exists; not overwriting it"
[ -z "$(ls -A empty.cobra)" ] || fail "cobra wrote into an existing directory"
TEST_CASE=""
no_temp "cobra" "$WORK"
# stdout works for the file formats (dbcop needs --format dbcop back)
TEST_CASE="dbcop stdout" expect 0 "$BIN" convert --to dbcop ab.json - &&
    { "$BIN" stats --format dbcop - <out >/dev/null || fail "dbcop from stdout"; }
TEST_CASE=""
finish
