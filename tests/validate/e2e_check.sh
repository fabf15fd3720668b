#!/bin/sh
# End-to-end tests of `isopredict check`: exit statuses, output, JSON.
# usage: e2e_check.sh ISOPREDICT CORPUS_DIR
set -u
bin=$1 corpus=$2
. "$(dirname "$0")/../lib.sh"
work_dir e2e_check
tmp=$WORK
# check STATUS ARGS...: isopredict check ARGS exits STATUS (out, err here)
check() { want=$1; shift; expect "$want" "$bin" check "$@"; }

aw=$corpus/awdit-tests
check 0 --level causal --format awdit-test "$aw/causal/lost-update.txt"
matches "$tmp/out" "satisfies causal (.* transactions, checked in .* ms)"
check 1 --level cc --format awdit-test "$aw/read-atomic/test-ra.txt"
matches "$tmp/out" "violates causal"
matches "$tmp/out" "cycle 1"
matches "$tmp/out" "\-co("
matches "$tmp/out" "cycle 1: monotonic-reads violation"
check 0 --level read-atomic --format awdit-test "$aw/read-atomic/test-ra.txt"
check 1 --level ra --format awdit-test "$aw/read-committed/non-repeatable-read.txt"
check 0 --level rc --format awdit-test "$aw/read-committed/non-repeatable-read.txt"
check 1 --level rc --format awdit-test "$aw/none/hb-cycle.txt"
matches "$tmp/out" "\-wr("
check 1 --level causal --json --format awdit-test "$aw/read-atomic/test-ra.txt"
matches "$tmp/out" '"result":[[:space:]]*"violated"'
matches "$tmp/out" '"cycles"'
matches "$tmp/out" '"anomaly":[[:space:]]*"monotonic-reads violation"'
matches "$tmp/out" '"cycle_anomalies":'
check 1 --level ser --json --format awdit-test "$aw/causal/lost-update.txt"
matches "$tmp/out" '"anomaly":[[:space:]]*"lost update"'
check 1 --level ra --format awdit-test "$aw/read-committed/non-repeatable-read.txt"
matches "$tmp/out" "non-repeatable read"
check 0 --level rc --json --format awdit-test "$aw/causal/fully-ser.txt"
matches "$tmp/out" '"order"'
check 0 --help
matches "$tmp/out" "usage: isopredict check"

# an anomaly fails every level, and is named with its op
cat >"$tmp/thin.json" <<'J'
{"isopredict_trace": 1, "sessions": [
 {"id": "a", "transactions": [{"id": "t1", "ops": [{"op": "write", "key": "x", "value": 1}]}]},
 {"id": "b", "transactions": [{"id": "t2", "ops": [{"op": "read", "key": "x", "value": 7}]}]}]}
J
check 1 --level rc "$tmp/thin.json"
matches "$tmp/out" "thin-air read: t2 reads x .*\[garbage read\]"
check 1 --level causal --json "$tmp/thin.json"
matches "$tmp/out" '"kind":[[:space:]]*"thin-air read"'
matches "$tmp/out" '"anomaly":[[:space:]]*"garbage read"'

# usage errors
check 2 "$aw/causal/lost-update.txt"
check 2 --level bogus "$aw/causal/lost-update.txt"
check 2 --level rc
check 2 --level rc --timeout x "$aw/causal/lost-update.txt"
check 2 --level rc "$tmp/missing.json"
matches "$tmp/err" "missing.json"

# mini-transactions: stats says so; ser and si take the linear-time path
# unless --general, with the same verdicts and witnesses
cat >"$tmp/mt.json" <<'J'
{"isopredict_trace": 1, "sessions": [
 {"id": "a", "transactions": [{"id": "t1", "ops": [{"op": "read", "key": "x", "from": "init"},
   {"op": "write", "key": "x", "value": 1}]}]},
 {"id": "b", "transactions": [{"id": "t2", "ops": [{"op": "read", "key": "x", "from": "t1"},
   {"op": "write", "key": "x", "value": 2}]}]},
 {"id": "c", "transactions": [{"id": "t3", "ops": [{"op": "read", "key": "x", "from": "t1"},
   {"op": "write", "key": "x", "value": 3}]}]}]}
J
expect 0 "$bin" stats "$tmp/mt.json"
matches "$tmp/out" "^mini_transactions  *yes$"
expect 0 "$bin" stats --json "$tmp/mt.json"
matches "$tmp/out" '"mini_transactions":[[:space:]]*true'
cat >"$tmp/blind.json" <<'J'
{"isopredict_trace": 1, "sessions": [
 {"id": "a", "transactions": [{"id": "t1", "ops": [{"op": "write", "key": "x", "value": 1}]}]}]}
J
expect 0 "$bin" stats "$tmp/blind.json"
matches "$tmp/out" "^mini_transactions  *no (t1: a transaction writes a key it has not read before)$"
expect 0 "$bin" stats --json "$tmp/blind.json"
matches "$tmp/out" '"mini_transactions":[[:space:]]*false'
matches "$tmp/out" '"mini_transactions_why":[[:space:]]*"t1: a transaction writes a key it has not read before"'
for lvl in ser si; do
    for path in "" --general; do
        check 1 --level $lvl $path "$tmp/mt.json"
        matches "$tmp/out" "violates $lvl (3 transactions"
        matches "$tmp/out" "t2 -.*(x)-> t3"
    done
done

# causal on a session of more than 2^16 txns: the vector clocks take 32-bit
# positions there (16-bit ones would wrap and miss that the reader of x = 1
# saw txn 69000, which overwrote it, through key 3)
long_session() {   # long_session VALUE_READ: session 0 of 70,000 txns
    awk -v v="$1" 'BEGIN {
        print "w(1,1,0,0)"
        for (i = 0; i < 70000; i++) printf "w(2,%d,0,%d)\n", i + 1, i
        print "w(1,2,0,69000)"; print "w(3,1,0,69000)"
        print "r(3,1,1,70000)"; printf "r(1,%d,1,70000)\n", v }'
}
long_session 1 >"$tmp/long1.plume"
check 1 --level causal "$tmp/long1.plume"
matches "$tmp/out" "violates causal (70001 transactions"
# the cycle with fewest inferred edges: back along session 0, the 0-1
# search stopping where it reaches t69000's predecessor at no cost
matches "$tmp/out" "cycle 1: fractured read (69001 edges, 1 inferred)"
long_session 2 >"$tmp/long2.plume"
check 0 --level causal "$tmp/long2.plume"

# the cycle with fewest inferred edges when a CO edge back is met first:
# from B the search sees B -co-> A (one inferred) before B -so-> C -wr-> A
# (none), and must not stop at the former
cat >"$tmp/rc3.json" <<'J'
{"isopredict_trace": 1, "sessions": [
 {"id": "s1", "transactions": [
   {"id": "B", "ops": [{"op": "write", "key": "x", "value": 1}, {"op": "write", "key": "y", "value": 1},
                       {"op": "write", "key": "b", "value": 1}]},
   {"id": "C", "ops": [{"op": "write", "key": "z", "value": 1}]}]},
 {"id": "s2", "transactions": [
   {"id": "A", "ops": [{"op": "read", "key": "z", "from": "C"}, {"op": "write", "key": "a", "value": 1},
                       {"op": "write", "key": "x", "value": 2}, {"op": "write", "key": "y", "value": 2}]}]},
 {"id": "s3", "transactions": [
   {"id": "R1", "ops": [{"op": "read", "key": "a", "from": "A"}, {"op": "read", "key": "x", "from": "B"}]}]},
 {"id": "s4", "transactions": [
   {"id": "R2", "ops": [{"op": "read", "key": "b", "from": "B"}, {"op": "read", "key": "y", "from": "A"}]}]}]}
J
check 1 --level rc "$tmp/rc3.json"
matches "$tmp/out" "cycle 1: non-monotonic read (3 edges, 1 inferred)"
matches "$tmp/out" "C -wr(z)-> A"

finish
