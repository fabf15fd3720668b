#!/bin/bash
# End-to-end tests of `isopredict convert|stats|dot` and of input errors:
# every bad input must exit with status 2 and name its location.
# usage: cli_formats.sh ISOPREDICT CORPUS_DIR
set -u
BIN=$1
CORPUS=$2
. "$(dirname "$0")/../lib.sh"
work_dir ip_cli_formats

# run NAME STATUS CMD...: expect STATUS CMD... (stdout and stderr in
# $WORK/out and $WORK/err), a failure named NAME
run() {
    local name=$1
    shift
    TEST_CASE=$name expect "$@"
}

# has NAME FILE TEXT...: every TEXT occurs (fixed string) in FILE
has() {
    local name=$1 file=$2
    shift 2
    for s in "$@"; do
        grep -qF -- "$s" "$file" || {
            fail "$name: '$s' not in $(basename "$file"):"
            sed 's/^/    | /' "$file" | head -5
        }
    done
}

# bad NAME FILE_CONTENT TEXT...: reading the content (written to
# $WORK/NAME, extension in NAME) fails with status 2 and these texts
bad() {
    local name=$1 content=$2
    shift 2
    printf '%s' "$content" >"$WORK/$name"
    run "$name" 2 "$BIN" stats "$WORK/$name" && has "$name" "$WORK/err" "$@"
    has "$name" "$WORK/err" "isopredict: $WORK/$name"
}

AW=$CORPUS/awdit-tests/causal/lost-update.txt
IPT=$CORPUS/isopredict-microbenchmark/simple_causal_2s3t.txt

# ---- help ----------------------------------------------------------------
for c in convert stats dot; do
    run "$c --help" 0 "$BIN" $c --help && has "$c --help" "$WORK/out" \
        "usage: isopredict $c"
done

# ---- convert ---------------------------------------------------------------
run "convert awdit" 0 "$BIN" convert "$AW" "$WORK/lu.json" &&
    has "convert awdit" "$WORK/lu.json" '"isopredict_trace":' '"t1.0"'
run "convert json to json" 0 "$BIN" convert --from json "$WORK/lu.json" - &&
    { cmp -s "$WORK/out" "$WORK/lu.json" || fail "json -> json changed the text"; }
run "convert text to dot" 0 "$BIN" convert --to dot "$IPT" "$WORK/t.dot" &&
    has "convert text to dot" "$WORK/t.dot" 'digraph history' 'cluster_s0'
no_temp "convert" "$WORK"
# outputs are written whole beside their name and linked into place: an
# existing file is refused and untouched, and no temporary file remains
cp "$WORK/lu.json" "$WORK/lu.keep"
run "convert no overwrite" 2 "$BIN" convert "$AW" "$WORK/lu.json" &&
    has "convert no overwrite" "$WORK/err" \
        "lu.json: already exists; not overwriting it"
cmp -s "$WORK/lu.json" "$WORK/lu.keep" || fail "convert no overwrite: lu.json changed"
no_temp "convert no overwrite" "$WORK"
mkdir "$WORK/sub"
run "convert into a directory" 0 "$BIN" convert --to dot "$AW" "$WORK/sub/lu.dot" &&
    has "convert into a directory" "$WORK/sub/lu.dot" 'digraph history'
no_temp "convert into a directory" "$WORK/sub"
run "convert no directory" 2 "$BIN" convert "$AW" "$WORK/nosuchdir/lu.json" &&
    has "convert no directory" "$WORK/err" "nosuchdir/lu.json" "No such file"
[ ! -e "$WORK/nosuchdir" ] || fail "convert no directory: made a directory"
run "convert bad --to" 2 "$BIN" convert --to xml "$AW" - &&
    has "convert bad --to" "$WORK/err" "cannot write format 'xml'"
run "convert bad --from" 2 "$BIN" convert --from xml "$AW" - &&
    has "convert bad --from" "$WORK/err" "unknown input format 'xml'"
run "convert one arg" 2 "$BIN" convert "$AW"
run "convert wrong reader" 2 "$BIN" convert --from plume "$AW" - &&
    has "convert wrong reader" "$WORK/err" "lost-update.txt:1: column 1:"
# an aborted read of a value both the initial value (0) and t1 wrote keeps
# no writer: JSON says so ("from": null) and reads back the same, text too
printf 'w(1,0,1,1)\nr(1,0,2,-1)\n' >"$WORK/undecided.plume"
run "convert undecided aborted read" 0 "$BIN" convert "$WORK/undecided.plume" \
    "$WORK/undecided.json" &&
    has "convert undecided aborted read" "$WORK/undecided.json" \
        '{"op":"read","key":"1","from":null,"value":0}'
run "convert undecided aborted read again" 0 "$BIN" convert \
    "$WORK/undecided.json" - &&
    { cmp -s "$WORK/out" "$WORK/undecided.json" ||
          fail "convert undecided aborted read: json -> json changed the text"; }

# ---- stats -----------------------------------------------------------------
run "stats" 0 "$BIN" stats "$AW" &&
    has "stats" "$WORK/out" "sessions" "conflict_keys" "max_writers_per_key"
grep -qE '^transactions +3$' "$WORK/out" || fail "stats: transactions 3"
grep -qE '^max_writers_per_key +3$' "$WORK/out" || fail "stats: max writers 3"
run "stats --json" 0 "$BIN" stats --json --format awdit-test "$AW"
grep -qE '"sessions":[[:space:]]*3' "$WORK/out" || fail "stats --json sessions"
run "stats plume stdin" 0 "$BIN" stats --format plume - < <(printf 'w(1,1,0,0)\nr(1,1,1,1)\n')
grep -qE '^sessions +2$' "$WORK/out" || fail "stats from stdin"

# ---- dot -------------------------------------------------------------------
run "dot" 0 "$BIN" dot "$IPT" && has "dot" "$WORK/out" 'T0 -> T1'
run "dot --out" 0 "$BIN" dot --out "$WORK/x.dot" "$IPT"
[ -s "$WORK/x.dot" ] || fail "dot --out wrote nothing"
cp "$WORK/x.dot" "$WORK/x.keep"
run "dot --out exists" 2 "$BIN" dot --out "$WORK/x.dot" "$AW" &&
    has "dot --out exists" "$WORK/err" "x.dot: already exists; not overwriting it"
cmp -s "$WORK/x.dot" "$WORK/x.keep" || fail "dot --out exists: x.dot changed"
no_temp "dot --out" "$WORK"
if command -v dot >/dev/null; then
    dot -Tsvg "$WORK/x.dot" >/dev/null 2>&1 || fail "graphviz rejects our dot"
fi

# ---- lenient mode ------------------------------------------------------------
printf 'w 0 0\n=====\nr 0 1\n' >"$WORK/thin.txt"
run "strict anomaly" 2 "$BIN" stats "$WORK/thin.txt" &&
    has "strict anomaly" "$WORK/err" "thin.txt:3: value 1 of key '0'" "thin-air"
run "lenient anomaly" 0 "$BIN" stats --lenient "$WORK/thin.txt"
grep -qE '^anomalies +1$' "$WORK/out" || fail "lenient: one anomaly"

# ---- files -----------------------------------------------------------------
run "missing file" 2 "$BIN" stats "$WORK/nope.json" &&
    has "missing file" "$WORK/err" "nope.json: cannot open: No such file"
bad unknown.dat 'hello world' "cannot tell the trace format"
bad empty.txt '' "empty input"

# ---- JSON input errors -------------------------------------------------------
H='{"isopredict_trace":1,"sessions":['
S0='{"id":"c1","transactions":['
bad malformed.json $'{"isopredict_trace":1,\n  "sessions": [}' \
    "malformed.json:2:" "malformed JSON"
bad noversion.json '{"sessions":[]}' "isopredict_trace: missing required field"
bad version2.json '{"isopredict_trace":2,"sessions":[]}' "unsupported schema version"
bad nosessions.json '{"isopredict_trace":1}' "sessions: missing required field"
bad notxns.json "$H"'{"id":"c1"}]}' "sessions[0].transactions: missing required field"
bad opsnum.json "$H$S0"'{"id":"t1","ops":3}]}]}' \
    "sessions[0].transactions[0].ops: must be an array"
bad opkind.json "$H$S0"'{"id":"t1","ops":[{"op":"scan","key":"x"}]}]}]}' \
    "sessions[0].transactions[0].ops[0].op: must be"
bad keytype.json "$H$S0"'{"id":"t1","ops":[{"op":"write","key":5}]}]}]}' \
    "sessions[0].transactions[0].ops[0].key: must be a string"
bad idtype.json "$H$S0"'{"id":7,"ops":[]}]}]}' \
    "sessions[0].transactions[0].id: must be a string"
bad status.json "$H$S0"'{"id":"t1","status":"maybe","ops":[]}]}]}' \
    "sessions[0].transactions[0].status: must be"
bad duptxn.json "$H$S0"'{"id":"t1","ops":[]},{"id":"t1","ops":[]}]}]}' \
    "sessions[0].transactions[1].id" "duplicate transaction id 't1'"
bad dupsess.json "$H$S0"'{"id":"t1","ops":[{"op":"write","key":"x"}]}]},{"id":"c1","transactions":[]}]}' \
    "sessions[1].id" "duplicate session id 'c1'"
bad unknownfrom.json "$H$S0"'{"id":"t1","ops":[{"op":"read","key":"x","from":"nope"}]}]}]}' \
    "sessions[0].transactions[0].ops[0].from" "unknown transaction 'nope'"
bad novalue.json "$H$S0"'{"id":"t1","ops":[{"op":"write","key":"x","value":1}]},{"id":"t2","ops":[{"op":"read","key":"x","value":9}]}]}]}' \
    "sessions[0].transactions[1].ops[0].value" "matches no committed"
bad badcands.json "$H$S0"'{"id":"t1","ops":[{"op":"write","key":"x","value":1}]},{"id":"t2","ops":[{"op":"read","key":"x","from":["t1","t9"]}]}]}]}' \
    "sessions[0].transactions[1].ops[0].from[1]" "unknown transaction 't9'"
bad aborted.json "$H$S0"'{"id":"t1","status":"aborted","ops":[{"op":"write","key":"x"}]},{"id":"t2","ops":[{"op":"read","key":"x","from":"t1"}]}]}]}' \
    "sessions[0].transactions[1].ops[0].from" "aborted transaction 't1'"
bad neverwrote.json "$H$S0"'{"id":"t1","ops":[{"op":"write","key":"y"}]},{"id":"t2","ops":[{"op":"read","key":"x","from":"t1"}]}]}]}' \
    "sessions[0].transactions[1].ops[0].from" "never writes 'x'"
# an aborted reader is not analysed, but naming a writer that never writes
# the key is an input error for it too (fuzz finding: it used to be dropped)
bad abortedneverwrote.json "$H$S0"'{"id":"t1","ops":[{"op":"write","key":"y"}]},{"id":"t2","status":"aborted","ops":[{"op":"read","key":"x","from":"t1"}]}]}]}' \
    "sessions[0].transactions[1].ops[0].from" "reads key 'x' from 't1', which never writes 'x'"
bad abortedownneverwrote.json "$H$S0"'{"id":"t1","ops":[{"op":"write","key":"y"}]},{"id":"t2","status":"aborted","ops":[{"op":"read","key":"x","from":"t2"}]}]}]}' \
    "sessions[0].transactions[1].ops[0].from" "own transaction, which never writes 'x'"
bad future.json "$H$S0"'{"id":"t1","ops":[{"op":"read","key":"x","from":"t1"},{"op":"write","key":"x"}]}]}]}' \
    "sessions[0].transactions[0].ops[0]" "future read"
bad emptytrace.json "$H"']}' "empty trace"
bad onlyaborted.json "$H$S0"'{"id":"t1","status":"aborted","ops":[]}]}]}' "empty trace"

# ---- text format errors (line numbers) ---------------------------------------
bad text1.txt $'WRITE KEY[x] Txn(1, 0)\n\nREAD KEY[x] Txn(2, 0) From(1 0)\n' \
    "text1.txt:3: column 30:" "expected ','"
bad text2.txt $'WRITE KEY[x] Txn(1, 0)\nREAD KEY[x] Txn(2, 0) From(4, 0)\n' \
    "text2.txt:2:" "unknown transaction '4, 0'"
bad text3.txt $'WRITE KEY[x] Txn(1, 0)\nWRITE KEY[x] Txn(1, 0) ;\n' \
    "text3.txt:2: column 24:" "expected the end of the line"
bad plume1.plume $'w(1,1,0,1)\nw(1,2,0,2)\nr(1,2,0\n' \
    "plume1.plume:3: column 8:" "expected ','"
bad plume2.plume $'w(1,1,0,1)\nr(1,3,1,2)\n' \
    "plume2.plume:2:" "matches no committed"
bad awdit1.txt $'w 0 0\n-----\nr 0 0\nread 1 1\n' \
    "awdit1.txt:4: column 1:" "expected 'r', 'w'"
bad awdit2.txt $'w 0 0\n=====\nr 0 0 0\n' \
    "awdit2.txt:3: column 6:" "expected the end of the line"

# ---- ambiguous reads: a value two transactions wrote ------------------------
# t3 reads x = 1, which t1 and t2 both wrote; t4 reads t3's y, so a choice
# of t2 (same session as t3, after it) would close a cycle
printf '%s' "$H$S0"'{"id":"t1","ops":[{"op":"write","key":"x","value":1}]},{"id":"t3","ops":[{"op":"read","key":"x","value":1},{"op":"write","key":"y","value":5}]},{"id":"t2","ops":[{"op":"write","key":"x","value":1}]}]}]}' > "$WORK/amb.json"
if run "stats ambiguous" 0 "$BIN" stats --json "$WORK/amb.json"; then
    has "stats ambiguous" "$WORK/out" '"ambiguous_reads":	1'
fi
if run "convert ambiguous" 0 "$BIN" convert "$WORK/amb.json" "$WORK/amb2.json"; then
    has "convert ambiguous" "$WORK/amb2.json" '"from":["t1","t2"]'
    run "stats converted ambiguous" 0 "$BIN" stats --json "$WORK/amb2.json" &&
        has "stats converted ambiguous" "$WORK/out" '"ambiguous_reads":	1'
fi
if run "check ser ambiguous" 0 "$BIN" check --json --level ser "$WORK/amb.json"; then
    has "check ser ambiguous" "$WORK/out" '"writers"' '"deduced":	true'
fi
run "check si ambiguous" 0 "$BIN" check --level si "$WORK/amb.json" &&
    has "check si ambiguous" "$WORK/out" "1 ambiguous read: 1 writer deduced"
for lvl in rc ra causal; do
    run "check $lvl ambiguous" 4 "$BIN" check --level $lvl "$WORK/amb.json" &&
        has "check $lvl ambiguous" "$WORK/err" "several candidate writers" \
            "needs every read to name its writer"
done
run "predict ambiguous" 4 "$BIN" predict "$WORK/amb.json" &&
    has "predict ambiguous" "$WORK/err" "predict needs every read to name"
# a violation under every choice: t3 reads x = 2 from t4 (known) and
# x = 1 from t1 or t2 (chosen); only the edge on the choice says so
printf '%s' "$H"'{"id":"a","transactions":[{"id":"t1","ops":[{"op":"write","key":"x","value":1}]},{"id":"t4","ops":[{"op":"read","key":"y","value":1},{"op":"write","key":"x","value":2}]}]},{"id":"b","transactions":[{"id":"t2","ops":[{"op":"write","key":"x","value":1},{"op":"write","key":"y","value":1}]},{"id":"t3","ops":[{"op":"read","key":"x","value":2},{"op":"read","key":"x","value":1}]}]}]}' > "$WORK/ambv.json"
if run "check ser ambiguous violation" 1 "$BIN" check --level ser "$WORK/ambv.json"; then
    has "ambiguous violation" "$WORK/out" "every choice has a cycle" \
        "(one of its candidates), overwritten by t4"
    grep -qx '    t4 -wr(x)-> t3: t3 reads x from t4' "$WORK/out" ||
        fail "ambiguous violation: the known read of x from t4 is marked chosen"
fi
run "dot ambiguous" 0 "$BIN" dot "$WORK/amb.json" &&
    has "dot ambiguous" "$WORK/out" 'wr?(x)'

# ---- binary histories of real databases: dbcop and Cobra ---------------------
SEEDS=$TESTS_DIR/fuzz/seeds
if run "stats dbcop" 0 "$BIN" stats --json "$SEEDS/small.bincode"; then
    has "stats dbcop" "$WORK/out" '"committed":	4'
fi
run "convert dbcop" 0 "$BIN" convert "$SEEDS/small.bincode" "$WORK/db.json" &&
    run "check converted dbcop" 0 "$BIN" check --level causal "$WORK/db.json"
# a Cobra history: a directory of logs (printf's octal escapes: big-endian
# int64 fields); s0 writes key 5 = 7, s1 reads it naming its writer
mkdir "$WORK/cobra"
z7='\000\000\000\000\000\000\000'
printf "S${z7}\001W${z7}\001${z7}\005${z7}\007C${z7}\001" > "$WORK/cobra/T0.log"
printf "S${z7}\002R${z7}\001${z7}\001${z7}\005${z7}\007C${z7}\002" > "$WORK/cobra/T1.log"
echo noise > "$WORK/cobra/T0.debug"
if run "stats cobra" 0 "$BIN" stats --json "$WORK/cobra"; then
    has "stats cobra" "$WORK/out" '"sessions":	2' '"committed":	2'
fi
run "check cobra" 0 "$BIN" check --level ser "$WORK/cobra"
printf "S${z7}\003R${z7}\011${z7}\001${z7}\005${z7}\007C${z7}\003" > "$WORK/cobra/T2.log"
run "cobra unknown writer" 2 "$BIN" stats "$WORK/cobra" &&
    has "cobra unknown writer" "$WORK/err" "T2.log: byte 9: the read names writer transaction t9"
printf "S${z7}\003X" > "$WORK/cobra/T2.log"
run "cobra opcode" 2 "$BIN" stats "$WORK/cobra" &&
    has "cobra opcode" "$WORK/err" "T2.log: byte 9: unknown opcode 0x58"
head -c 100 "$SEEDS/small.bincode" > "$WORK/cut.bincode"
run "dbcop truncated" 2 "$BIN" stats "$WORK/cut.bincode" &&
    has "dbcop truncated" "$WORK/err" "cut.bincode: byte "

finish "all cli_formats checks passed"
