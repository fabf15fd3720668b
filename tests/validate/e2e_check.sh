#!/bin/sh
# End-to-end tests of `isopredict check`: exit statuses, output, JSON.
# usage: e2e_check.sh ISOPREDICT CORPUS_DIR
set -u
bin=$1 corpus=$2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() {   # expect STATUS ARGS...  (stdout to $tmp/out, stderr to $tmp/err)
    want=$1; shift
    "$bin" check "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: check $* -> exit $got, want $want"; cat "$tmp/out" "$tmp/err"
        fail=1
    fi
}
contains() {  # contains FILE TEXT
    if ! grep -q -- "$2" "$1"; then
        echo "FAIL: '$2' not in output:"; cat "$1"; fail=1
    fi
}

aw=$corpus/awdit-tests
expect 0 --level causal --format awdit-test "$aw/causal/lost-update.txt"
contains "$tmp/out" "satisfies causal (.* transactions, checked in .* ms)"
expect 1 --level cc --format awdit-test "$aw/read-atomic/test-ra.txt"
contains "$tmp/out" "violates causal"
contains "$tmp/out" "cycle 1"
contains "$tmp/out" "\-co("
expect 0 --level read-atomic --format awdit-test "$aw/read-atomic/test-ra.txt"
expect 1 --level ra --format awdit-test "$aw/read-committed/non-repeatable-read.txt"
expect 0 --level rc --format awdit-test "$aw/read-committed/non-repeatable-read.txt"
expect 1 --level rc --format awdit-test "$aw/none/hb-cycle.txt"
contains "$tmp/out" "\-wr("
expect 1 --level causal --json --format awdit-test "$aw/read-atomic/test-ra.txt"
contains "$tmp/out" '"result":[[:space:]]*"violated"'
contains "$tmp/out" '"cycles"'
expect 0 --level rc --json --format awdit-test "$aw/causal/fully-ser.txt"
contains "$tmp/out" '"order"'
expect 0 --help
contains "$tmp/out" "usage: isopredict check"

# an anomaly fails every level, and is named with its op
cat >"$tmp/thin.json" <<'J'
{"isopredict_trace": 1, "sessions": [
 {"id": "a", "transactions": [{"id": "t1", "ops": [{"op": "write", "key": "x", "value": 1}]}]},
 {"id": "b", "transactions": [{"id": "t2", "ops": [{"op": "read", "key": "x", "value": 7}]}]}]}
J
expect 1 --level rc "$tmp/thin.json"
contains "$tmp/out" "thin-air read: t2 reads x"
expect 1 --level causal --json "$tmp/thin.json"
contains "$tmp/out" '"kind":[[:space:]]*"thin-air read"'

# usage errors
expect 2 "$aw/causal/lost-update.txt"
expect 2 --level bogus "$aw/causal/lost-update.txt"
expect 2 --level rc
expect 2 --level rc --timeout x "$aw/causal/lost-update.txt"
expect 2 --level rc "$tmp/missing.json"
contains "$tmp/err" "missing.json"
exit $fail
