#!/bin/bash
# End-to-end tests of --format elle (Jepsen histories in EDN) and of
# `convert --to elle`.
# usage: cli_elle.sh ISOPREDICT ELLE_CORPUS SOURCE_DIR READ_LIMIT_SECONDS
set -u
BIN=$1
CORPUS=$2
SRC=$3
LIMIT=$4
. "$(dirname "$0")/../lib.sh"
work_dir ip_cli_elle

run() { local name=$1; shift; TEST_CASE=$name expect "$@"; }

xz -dc "$CORPUS/huge-scc.edn.xz" > huge-scc.edn || die "cannot unpack huge-scc.edn"
cp "$CORPUS/paper-example.edn" "$CORPUS/si-without-g-single.edn" .

# ---- the corpus: read, and decided at every level ---------------------------
# huge-scc.edn: 10,254 invocations (3,036 :ok, 7,070 :fail, 148 :info), 94
# nemesis ops (corpus README); reading it is fast
t0=$(now)
run "huge stats" 0 "$BIN" stats --json huge-scc.edn &&
    { within "$LIMIT" "$t0" || fail "reading huge-scc.edn took more than $LIMIT s"; }
for f in '"skipped_ops":	94' '"info_txns":	148' '"aborted":	7070'; do
    contains out "$f"
done
# committed = 3,036 :ok + the :info transactions kept; kept + left out = 148
committed=$(sed -n 's/.*"committed":[^0-9]*\([0-9]*\).*/\1/p' out)
left=$(sed -n 's/.*"info_left_out":[^0-9]*\([0-9]*\).*/\1/p' out)
[ $((committed - 3036 + left)) = 148 ] ||
    fail "committed $committed and info_left_out $left do not add up to 148 :info"
# paper-example.edn has no :process: each transaction a session
run "paper stats" 0 "$BIN" stats paper-example.edn && matches out '^sessions  *4$'

# expected verdicts, by level: si-without-g-single.edn is, as its name says,
# snapshot isolated without G-single (Elle: G2-item only); paper-example.edn
# has a G-single once the lists' version orders count; both cycles are
# checked on the files
for f in huge-scc paper-example si-without-g-single; do
    for l in rc ra causal si ser; do
        want=0
        case $f.$l in si-without-g-single.ser|paper-example.s*) want=1;; esac
        run "$f $l" $want "$BIN" check --level $l "$f.edn"
    done
done
run "si-without ser" 1 "$BIN" check --level ser si-without-g-single.edn
contains out "t10 -ww(9)-> t30: both write 9 (the known version order)" &&
    contains out "t30 -rw(8)-> t20" && contains out "t20 -rw(9)-> t10"
# re-checked on the history itself: t20 reads 9 as nil and t10 appends
# to 9; t30 reads 8 as nil and t20 appends to 8; t40 reads 9 as [2]
# (t10's), so t30's later append of 5 follows it
grep -q ':index 21.*\[:append 8 1\] \[:r 9 nil\]' si-without-g-single.edn ||
    fail "t20 does not read 9 as nil"
grep -q ':index 31.*\[:r 8 nil\] \[:append 9 5\]' si-without-g-single.edn ||
    fail "t30 does not read 8 as nil"
grep -q ':index 41.*\[:r 9 \[2\]\]' si-without-g-single.edn ||
    fail "t40 does not read 9 as [2]"
grep -q ':index 11.*\[:append 9 2\]' si-without-g-single.edn ||
    fail "t10 does not append 2 to 9"
# paper-example: t4's list of 256 is [1 2 4] (t0's 1 2, its own 4), so t6's
# append of 3 comes later; t6 read 255 without t2's 8, which t4 saw
run "paper si" 1 "$BIN" check --level si paper-example.edn &&
    contains out "t2 -wr(255)-> t4" &&
    contains out "t4 -ww(256)-> t6: both write 256 (the known version order)" &&
    contains out "t6 -rw(255)-> t2: t6 reads 255 from t0, overwritten by t2"

# detection by content too (no .edn name), and every command reads it
cp si-without-g-single.edn history
run "auto by content" 0 "$BIN" stats history
run "dot" 0 "$BIN" dot si-without-g-single.edn && contains out "digraph"
run "predict" 1 "$BIN" predict --model causal --out preds si-without-g-single.edn

# huge-scc with the version orders its lists give is serializable and
# snapshot isolated in our model (no real time): Elle reports only
# G2-item-realtime for it (not strict serializable).  Deciding it is fast.
for l in si ser; do
    t0=$(now)
    run "huge $l in time" 0 "$BIN" check --level $l huge-scc.edn &&
        { within "$LIMIT" "$t0" || fail "huge-scc $l took more than $LIMIT s"; }
done

# ---- the version order of list-append histories -----------------------------
cp "$TESTS_DIR/cli_elle/version-order.edn" vo.edn
run "vo ser" 1 "$BIN" check --level ser vo.edn &&
    contains out "t0 -so-> t2" && contains out "t2 -rw(:x)-> t0: t2 reads :x from t4"
run "vo causal" 1 "$BIN" check --level causal vo.edn &&
    contains out "t4 -ww(:x)-> t0: both write :x (the known version order)"
run "vo rc" 0 "$BIN" check --level rc vo.edn
# JSON keeps it ("versions"), EDN (rw-register) cannot and says so; JSON
# without it is serializable
run "vo to json" 0 "$BIN" convert vo.edn vo.json &&
    contains vo.json '"versions":{":x":["t4","t0"]}'
run "vo json ser" 1 "$BIN" check --level ser vo.json && contains out "t2 -rw(:x)-> t0"
run "vo json again" 0 "$BIN" convert vo.json vo2.json &&
    { cmp -s vo.json vo2.json || fail "vo.json converted again differs"; }
run "vo to edn" 0 "$BIN" convert --to elle vo.json vo-rw.edn &&
    contains err "warning: vo-rw.edn: the known version order of 1 key"
sed 's/,"versions":{[^}]*}//' vo.json > vo-none.json
run "vo json without" 0 "$BIN" check --level ser vo-none.json
sed 's/"t4","t0"/"t4","t9"/' vo.json > vo-bad.json
run "vo json unknown" 2 "$BIN" check --level ser vo-bad.json &&
    contains err "vo-bad.json: the version order of key ':x' names 't9', which is no declared transaction"
sed 's/"t4","t0"/"t4","t6"/' vo.json > vo-bad.json
run "vo json reader" 2 "$BIN" check --level ser vo-bad.json &&
    contains err "names t6, which is not a committed writer of it"
sed 's/\["t4","t0"\]/"t4"/' vo.json > vo-bad.json
run "vo json shape" 2 "$BIN" check --level ser vo-bad.json &&
    contains err "vo-bad.json: versions.:x: must be an array of transaction ids"
# an append in no list came after the longest list: with t6 reading [1],
# t0's 2 is in none, and t2 after it still misses it
sed 's/\[:r :x \[1 2\]\]/[:r :x [1]]/' vo.edn > vo1.edn
run "vo short lists" 1 "$BIN" check --level ser vo1.edn &&
    contains out "t2 -rw(:x)-> t0"

# ---- anomalies by name, errors by line and column ---------------------------
cp "$TESTS_DIR/cli_elle/incompatible.edn" inc.edn
for l in rc ser; do
    run "incompatible $l" 1 "$BIN" check --level $l inc.edn &&
        contains out "incompatible order: line8 reads :x (op 0, line 9)" &&
        contains out "line6's read (op 0, line 7)"
done
run "incompatible json" 1 "$BIN" check --level si --json inc.edn &&
    contains out '"kind":	"incompatible order"'
run "incompatible strict" 2 "$BIN" stats inc.edn &&
    contains err "inc.edn:9: line8 reads key ':x'" && contains err "inc.edn:7"

cat > g1a.edn <<'EDN'
[{:type :invoke, :f :txn, :value [[:w "k" 1]], :process 0}
 {:type :fail, :f :txn, :value [[:w "k" 1]], :process 0}
 {:type :invoke, :f :txn, :value [[:r "k" nil] [:r :y nil]], :process 1}
 {:type :ok, :f :txn, :value [[:r "k" 1] [:r :y 99]], :process 1}]
EDN
run "g1a" 1 "$BIN" check --level rc g1a.edn &&
    contains out "aborted read: line3 reads k (op 0, line 4) from line1" &&
    contains out "thin-air read: line3 reads :y (op 1, line 4) from no write"

printf '{:type :ok, :process 2}\n' > bad.edn
run "not invoked" 2 "$BIN" stats bad.edn &&
    contains err "bad.edn:1:1: process 2 completes an operation it did not invoke"
printf '{:type :invoke, :process 1, :value [[:r 1]]}\n' > bad.edn
run "bad micro-op" 2 "$BIN" check --level rc bad.edn &&
    contains err "bad.edn:1:37: a micro-op is [f key value]"
printf '{:type :invoke, :process 1,\n :value [[:r 1 "x]]}\n' > bad.edn
run "open string" 2 "$BIN" convert bad.edn - &&
    contains err "bad.edn:2:16: string not closed"

# ---- convert --to elle and back ---------------------------------------------
# canon JSON: the history without names (txns as session.index among the
# sessions that have any), values of reads of the initial state dropped
canon() {
    python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
init = t.get("initial", "init")
place, out = {}, []
sessions = [s for s in t["sessions"] if s["transactions"]]
for i, s in enumerate(sessions):
    for j, x in enumerate(s["transactions"]):
        place[x["id"]] = "%d.%d" % (i, j)
for s in sessions:
    for x in s["transactions"]:
        ops = []
        for o in x["ops"]:
            frm = o.get("from")
            if frm == init:
                ops.append([o["op"], o["key"], "init"])
            else:
                ops.append([o["op"], o["key"], o.get("value"), place.get(frm, frm)])
        out.append([place[x["id"]], x.get("status", "committed"), ops])
print(json.dumps(out, sort_keys=True))
PY
}
for f in "$SRC"/tests/traces/deposit.json "$SRC"/tests/traces/write-skew.json \
         "$SRC"/tests/traces/fractured.json "$SRC"/examples/traces/tpcc.json \
         "$SRC"/examples/traces/voter.json; do
    n=$(basename "$f" .json)
    run "$n to elle" 0 "$BIN" convert --to elle "$f" "$n.edn" &&
        { [ ! -s err ] || fail "$n: unexpected warning: $(cat err)"; }
    run "$n back" 0 "$BIN" convert "$n.edn" "$n.back.json" || continue
    [ "$(canon "$f")" = "$(canon "$n.back.json")" ] ||
        fail "$n: json -> elle -> json changed the history"
    for l in rc causal ser; do
        "$BIN" check --level $l "$f" > /dev/null 2>&1; a=$?
        "$BIN" check --level $l "$n.back.json" > /dev/null 2>&1; b=$?
        [ "$a" = "$b" ] || fail "$n: check --level $l $a before, $b after"
    done
done
# a trace EDN cannot say: the warning names the read, the file is written
run "lossy" 0 "$BIN" convert --to elle "$SRC/examples/traces/bank.json" bank.edn &&
    contains err "warning: bank.edn: 1 read cannot name its writer in EDN"
[ -s bank.edn ] || fail "bank.edn not written"
# the corpus through JSON and back to EDN: the same EDN twice
run "paper to json" 0 "$BIN" convert paper-example.edn p.json &&
    run "paper to elle" 0 "$BIN" convert --to elle p.json p.edn &&
    run "paper elle again" 0 "$BIN" convert --to elle p.edn p2.edn &&
    { cmp -s p.edn p2.edn || fail "paper-example: EDN written twice differs"; }
run "convert --to bad" 2 "$BIN" convert --to nope p.json x.edn

finish
