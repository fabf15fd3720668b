#!/usr/bin/env bash
# End-to-end tests of `isopredict predict`: exit statuses, the report, the
# written prediction files (re-checked by `isopredict check`), and that
# outputs never replace existing files.
# usage: cli_predict.sh ISOPREDICT TRACES_DIR CORPUS_DIR CASE
set -u
BIN=$1 TRACES=$2 CORPUS=$3 CASE=$4
MICRO=$CORPUS/isopredict-microbenchmark
. "$(dirname "$0")/../lib.sh"
TEST_CASE=$CASE
work_dir cli_predict

case $CASE in
found)
    expect 1 "$BIN" predict "$TRACES/deposit.json"
    contains out "causal, relaxed boundary, approx encoding: 1 unserializable prediction"
    contains out "session bob, transaction t2, op 0: read of acct from t1 -> from init"
    contains out "cycle: t"
    contains out "-rw(acct)->"
    contains out "assumes each boundary transaction issues the same operations"
    f=isopredict-out/deposit.causal-relaxed-approx.prediction-1.json
    [ -f "$f" ] || fail "missing $f"
    contains out "written: $f"
    contains err "formula:"          # progress on stderr
    # the prediction file is a trace the checkers agree with
    expect 1 "$BIN" check --level ser "$f"
    expect 0 "$BIN" check --level causal "$f"
    contains "$f" '"prediction"'
    contains "$f" '"changed_reads"'
    contains "$f" '"predicted":"init"'
    ;;
none)
    expect 0 "$BIN" predict --boundary strict "$TRACES/deposit.json"
    contains out "no prediction"
    [ ! -e isopredict-out ] || fail "an output directory was made for nothing"
    expect 0 "$BIN" predict --encoding exact --quiet "$TRACES/wikipedia-unsat.json"
    contains out "no causal, unserializable execution exists"
    [ ! -s err ] || fail "--quiet still printed: $(cat err)"
    ;;
no_subcommand)
    # `isopredict --model=rc TRACE` means predict
    expect 1 "$BIN" --model=rc --boundary=strict --out=o "$MICRO/simple_causal_2s3t.txt"
    [ -f o/simple_causal_2s3t.rc-strict-approx.prediction-1.json ] || fail "no file in o/"
    expect 1 "$BIN" check --level ser o/simple_causal_2s3t.rc-strict-approx.prediction-1.json
    expect 0 "$BIN" check --level rc o/simple_causal_2s3t.rc-strict-approx.prediction-1.json
    ;;
models)
    expect 1 "$BIN" predict --model rc --out o "$MICRO/not_readcommitted.txt"
    expect 0 "$BIN" predict --model causal --out o "$MICRO/not_readcommitted.txt"
    expect 0 "$BIN" predict --model causal --out o "$TRACES/voter.json"
    expect 1 "$BIN" predict --model rc --encoding exact --out o "$TRACES/voter.json"
    contains out "rc, relaxed boundary, exact encoding: 1 unserializable prediction"
    for f in o/*.json; do
        expect 1 "$BIN" check --level ser "$f"
        expect 0 "$BIN" check --level rc "$f"
    done
    # snapshot isolation: write skew, never a lost update
    expect 1 "$BIN" predict --model si --out si "$TRACES/write-skew.json"
    contains out "si, relaxed boundary, approx encoding: 1 unserializable prediction"
    contains out "confirmed: si satisfied, ser violated"
    contains out "(write skew)"
    f=si/write-skew.si-relaxed-approx.prediction-1.json
    [ "$(jq -r '.prediction.anomaly' "$f")" = "write skew" ] ||
        fail "$f: no anomaly named"
    expect 0 "$BIN" check --level si "$f"
    expect 1 "$BIN" check --level ser "$f"
    expect 1 "$BIN" predict --model si --json --out si2 "$TRACES/write-skew.json"
    [ "$(jq -r '.predictions[0].anomaly' out)" = "write skew" ] ||
        fail "si --json: no write skew: $(cat out)"
    expect 1 "$BIN" predict --model causal --out cc "$TRACES/deposit.json"
    contains out "(lost update)"
    expect 0 "$BIN" predict --model si --out si3 "$TRACES/deposit.json"
    # read atomic: no fractured read, which read committed allows
    expect 1 "$BIN" predict --model rc --out rc "$TRACES/fractured.json"
    expect 0 "$BIN" predict --model ra --out ra "$TRACES/fractured.json"
    expect 1 "$BIN" predict --model ra --out ra2 "$TRACES/deposit.json"
    expect 0 "$BIN" check --level ra ra2/deposit.ra-relaxed-approx.prediction-1.json
    ;;
no_overwrite)
    mkdir -p o
    f=o/deposit.causal-relaxed-approx.prediction-1.json
    echo precious > "$f"
    expect 1 "$BIN" predict --quiet --out o "$TRACES/deposit.json"
    [ "$(cat "$f")" = precious ] || fail "$f was overwritten"
    g=o/deposit.causal-relaxed-approx.prediction-1.2.json
    [ -f "$g" ] || fail "no uniquified file $g"
    contains out "written: $g"
    cp "$g" keep.json
    expect 1 "$BIN" predict --quiet --out o "$TRACES/deposit.json"
    cmp -s "$g" keep.json || fail "$g was overwritten by a second run"
    [ -f o/deposit.causal-relaxed-approx.prediction-1.3.json ] || fail "third run wrote no new file"
    # each file is written beside its name and linked into place: no
    # temporary file (".NAME.XXXXXX") is left behind
    expect 1 "$BIN" predict --quiet --dot --out o "$TRACES/deposit.json"
    [ -f o/deposit.causal-relaxed-approx.prediction-1.4.dot ] || fail "no .dot written"
    left=$(ls -A o | grep '^\.')
    [ -z "$left" ] || fail "temporary files left in o/: $left"
    [ "$(cat "$f")" = precious ] || fail "$f was overwritten"
    # an --out that is a file is refused
    echo x > plain
    expect 2 "$BIN" predict --quiet --out plain "$TRACES/deposit.json"
    [ "$(cat plain)" = x ] || fail "plain was modified"
    ;;
json_dot)
    expect 1 "$BIN" predict --json --dot --quiet --out o "$TRACES/smallbank.json"
    contains out '"result":	"found"'
    contains out '"changed_reads"'
    contains out '"cycle"'
    contains out '"file":	"o/smallbank.causal-relaxed-approx.prediction-1.json"'
    lacks out "prediction 1:"
    d=o/smallbank.causal-relaxed-approx.prediction-1.dot
    [ -f "$d" ] || fail "missing $d"
    contains "$d" "digraph"
    contains "$d" "red"
    contains "$d" "darkorange"
    contains "$d" "predicted, was"
    expect 0 "$BIN" predict --json --quiet --boundary strict --out o "$TRACES/deposit.json"
    contains out '"result":	"none"'
    ;;
max_predictions)
    expect 1 "$BIN" predict --quiet --max-predictions 3 --out o "$MICRO/simple_causal_2s5t.txt"
    contains out "3 unserializable predictions"
    n=$(ls o/*.json | wc -l)
    [ "$n" = 3 ] || fail "expected 3 files, got $n"
    for f in o/*.json; do
        expect 1 "$BIN" check --level ser "$f"
        expect 0 "$BIN" check --level causal "$f"
    done
    ;;
tool_fields)
    # tool fields (TRACE_FORMAT.md) go through convert byte for byte and
    # into predictions; those about the observed run do not
    cat > t.json <<'JSON'
{"isopredict_trace": 1, "workload": {"app": "bank", "seed": 3},
 "invariants": {"checked": 1}, "replay": {"diverged": false},
 "meta": {"ci": "job-7"},
 "sessions": [
  {"id": "alice", "meta": {"host": "n1"}, "transactions": [
   {"id": "t1", "procedure": "deposit", "args": [50], "ops": [
    {"op": "read", "key": "acct", "from": "init", "value": 0},
    {"op": "write", "key": "acct", "value": 50, "meta": {"stmt": 2}}]}]},
  {"id": "bob", "transactions": [
   {"id": "t2", "procedure": "deposit", "args": [60], "ops": [
    {"op": "read", "key": "acct", "from": "t1", "value": 50},
    {"op": "write", "key": "acct", "value": 110}]}]}]}
JSON
    expect 0 "$BIN" convert t.json c1.json
    expect 0 "$BIN" convert c1.json c2.json
    cmp -s c1.json c2.json || fail "convert twice differs"
    for f in workload invariants replay meta; do
        [ "$(jq -c ".$f" t.json)" = "$(jq -c ".$f" c1.json)" ] || fail "convert lost $f"
    done
    [ "$(jq -c '.sessions[0].transactions[0] | [.procedure, .args, .ops[1].meta]' c1.json)" = \
      '["deposit",[50],{"stmt":2}]' ] || fail "convert lost txn/op fields"
    expect 1 "$BIN" predict --quiet --out o t.json
    p=o/t.causal-relaxed-approx.prediction-1.json
    [ "$(jq -c '[.workload, .meta, .sessions[0].meta]' "$p")" = \
      '[{"app":"bank","seed":3},{"ci":"job-7"},{"host":"n1"}]' ] ||
        fail "prediction lost tool fields: $(jq -c 'del(.sessions, .prediction)' "$p")"
    [ "$(jq -c '[.invariants, .replay]' "$p")" = '[null,null]' ] ||
        fail "prediction kept the observed run's invariants or replay"
    [ "$(jq -r '.sessions[1].transactions[0].procedure' "$p")" = deposit ] ||
        fail "prediction lost procedure"
    expect 1 "$BIN" check --level ser "$p"
    # a typo is an input error naming the path and the field meant
    sed 's/"procedure": "deposit", "args": \[60\]/"procedur": "deposit"/' t.json > typo.json
    expect 2 "$BIN" predict --quiet --out o2 typo.json
    contains err 'sessions[1].transactions[0].procedur: unknown field; did you mean "procedure"?'
    ;;
usage)
    expect 0 "$BIN" --version
    grep -qE '^isopredict [0-9.]+ \(Z3 4\.[0-9.]+, cJSON [0-9.]+\)$' out ||
        fail "--version: $(cat out)"
    expect 2 "$BIN" predict --model ser "$TRACES/deposit.json"
    contains err "--model must be causal, rc, ra or si"
    expect 2 "$BIN" predict --model si --weak-isolation lazy "$TRACES/deposit.json"
    contains err "not available under --model si"
    expect 2 "$BIN" predict --boundary loose "$TRACES/deposit.json"
    expect 2 "$BIN" predict --encoding fast "$TRACES/deposit.json"
    # every name of --search and --weak-isolation (predict/names.c), and
    # one that is none
    for m in auto exhaustive bounded; do
        expect 1 "$BIN" predict --quiet --json --search $m --out "s-$m" "$TRACES/deposit.json"
        [ $m = auto ] || [ "$(jq -r .search.mode out)" = $m ] ||
            fail "--search $m ran a $(jq -r .search.mode out) search"
    done
    expect 2 "$BIN" predict --search everywhere "$TRACES/deposit.json"
    contains err "--search must be auto, exhaustive or bounded, not 'everywhere'"
    for m in eager lazy; do
        expect 1 "$BIN" predict --quiet --json --weak-isolation $m --out "w-$m" "$TRACES/deposit.json"
        [ "$(jq .search.lazy_weak_isolation out)" = "$([ $m = lazy ] && echo true || echo false)" ] ||
            fail "--weak-isolation $m: lazy_weak_isolation $(jq .search.lazy_weak_isolation out)"
    done
    expect 1 "$BIN" predict --quiet --weak-isolation auto --out w-auto "$TRACES/deposit.json"
    expect 2 "$BIN" predict --weak-isolation eventually "$TRACES/deposit.json"
    contains err "--weak-isolation must be auto, eager or lazy, not 'eventually'"
    expect 2 "$BIN" predict --timeout soon "$TRACES/deposit.json"
    # the longest limit (IP_MAX_TIMEOUT_MS, in seconds) and one past it
    expect 2 "$BIN" predict --timeout 4000001 "$TRACES/deposit.json"
    contains err "--timeout 4000001: at most 4000000 seconds"
    expect 1 "$BIN" predict --quiet --timeout 4000000 --out o4m "$TRACES/deposit.json"
    expect 2 "$BIN" predict --max-predictions 0 "$TRACES/deposit.json"
    expect 2 "$BIN" predict
    contains err "no TRACE given"
    # several traces are batch mode (tests/cli_batch): --html makes one
    # page of them, never over a file
    : > r.html
    expect 2 "$BIN" predict --html r.html "$TRACES/deposit.json" "$TRACES/voter.json"
    contains err "already exists"
    expect 2 "$BIN" predict no-such-trace.json
    contains err "no-such-trace.json"
    printf '{"isopredict_trace": 1, "sessions": [{"id": "s", "transactions": [{"id": "t", "ops": [{"op": "read", "key": "k", "from": "nobody"}]}]}]}' > bad.json
    expect 2 "$BIN" predict bad.json
    contains err "bad.json"
    expect 0 "$BIN" predict --help
    contains out "--max-predictions"
    [ ! -e isopredict-out ] || fail "usage errors made an output directory"
    ;;
huge_pages)
    # The binary executes itself once with glibc's huge pages for malloc
    # (src/cli/hugepages.c) and gives its children the user's environment.
    # A stand-in application records both: its own environment, and the
    # environment isopredict's image was started with (/proc/PPID/environ).
    expect 1 "$BIN" predict --quiet --out p "$TRACES/deposit.json"
    pred=p/deposit.causal-relaxed-approx.prediction-1.json
    printf '#!/bin/sh\nenv > env.child\ntr "\\000" "\\n" < /proc/$PPID/environ > env.image\nexit 3\n' > app.sh
    chmod +x app.sh
    reexec=yes
    grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null && reexec=no
    [ -e /sys/kernel/mm/transparent_hugepage/enabled ] || reexec=no
    ldd "$BIN" | grep -q libasan && reexec=no
    run_app() {   # run_app ENV...: validate with the stand-in, in env ENV
        rm -f env.child env.image
        env -u GLIBC_TUNABLES -u ISOPREDICT_HUGEPAGES "$@" \
            "$BIN" validate --app ./app.sh --sessions 2 --txns 1 --seed 1 \
            "$pred" > /dev/null 2>&1
        [ -s env.child ] && [ -s env.image ] || fail "the stand-in did not run"
    }
    # (glibc may rewrite GLIBC_TUNABLES in place while it parses it, so the
    # re-executed image is recognised by the value we saved for it)
    run_app
    ! grep -q '^GLIBC_TUNABLES=\|^ISOPREDICT_SAVED' env.child ||
        fail "the child got our tunables: $(grep TUNABLES env.child)"
    if [ $reexec = yes ]; then
        grep -qx 'ISOPREDICT_SAVED_TUNABLES=-' env.image &&
        grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1' env.image ||
            fail "not re-executed with huge pages: $(grep TUNABLES env.image)"
    else
        ! grep -q 'TUNABLES=' env.image || fail "re-executed here"
    fi
    run_app GLIBC_TUNABLES=glibc.malloc.tcache_count=7
    grep -qx 'GLIBC_TUNABLES=glibc.malloc.tcache_count=7' env.child ||
        fail "the user's tunables were not given back: $(grep TUNABLES env.child)"
    ! grep -q '^ISOPREDICT_SAVED' env.child || fail "the saved tunables leaked"
    if [ $reexec = yes ]; then
        grep -qx 'ISOPREDICT_SAVED_TUNABLES==glibc.malloc.tcache_count=7' env.image ||
            fail "not re-executed, or the user's tunables not saved: $(grep TUNABLES env.image)"
    fi
    run_app ISOPREDICT_HUGEPAGES=0
    ! grep -q 'TUNABLES=' env.image || fail "ISOPREDICT_HUGEPAGES=0 was ignored"
    run_app GLIBC_TUNABLES=glibc.malloc.hugetlb=0
    ! grep -q '^ISOPREDICT_SAVED' env.image ||
        fail "re-executed although the user chose hugetlb"
    grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=0' env.child ||
        fail "the user's hugetlb setting was changed: $(grep TUNABLES env.child)"
    ;;
html)
    # --html draws with Graphviz, loaded only then (src/predict/report/
    # gv_lib.c): the page has both runs drawn, with their text laid out
    expect 1 "$BIN" predict --quiet --out p --html r.html "$TRACES/deposit.json"
    [ "$(grep -c '<svg' r.html)" = 2 ] || fail "expected 2 drawings in r.html"
    contains r.html '<g id="p1&#45;predicted&#45;t2" class="node">'
    contains r.html '>t1</text>'
    contains r.html '>r acct ← init</text>'
    contains r.html '>session alice</text>'
    # a check's violation, drawn
    expect 1 "$BIN" check --level ser --html c.html \
        p/deposit.causal-relaxed-approx.prediction-1.json
    [ "$(grep -c '<svg' c.html)" = 2 ] || fail "expected 2 drawings in c.html"
    ;;
no_graphviz)
    # Graphviz unloadable: a directory searched before the system's
    # (LD_LIBRARY_PATH comes before ld.so.cache for a name without a slash)
    # holds an empty libgvc.so.6.  Only what draws fails, as not available
    # (4), with the loader's reason and no page; everything else runs, as
    # nothing loads Graphviz at start-up (a program linked against it would
    # not even start here).
    mkdir gv
    : > gv/libgvc.so.6
    no_gv() { LD_LIBRARY_PATH=$PWD/gv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }
    expect 0 no_gv "$BIN" --version
    expect 1 no_gv "$BIN" predict --quiet --out p "$TRACES/deposit.json"
    [ -f p/deposit.causal-relaxed-approx.prediction-1.json ] || fail "no prediction file"
    expect 1 no_gv "$BIN" predict --quiet --json --out p2 "$TRACES/deposit.json"
    expect 0 no_gv "$BIN" check --level ser "$TRACES/deposit.json"
    expect 4 no_gv "$BIN" predict --quiet --out p3 --html r.html "$TRACES/deposit.json"
    contains err "the HTML report needs Graphviz"
    contains err "libgvc.so.6 cannot be loaded: $PWD/gv/libgvc.so.6: "
    [ ! -e r.html ] || fail "a page was written without Graphviz"
    no_temp predict .
    # asked before the search, not after it: nothing of the run is made
    [ ! -e p3 ] || fail "predict --html searched although it could not draw"
    expect 4 no_gv "$BIN" triage --quiet --out tr --html t.html "$TRACES/deposit.json"
    contains err "libgvc.so.6 cannot be loaded"
    [ ! -e tr ] && [ ! -e t.html ] || fail "triage --html ran although it could not draw"
    expect 4 no_gv "$BIN" check --level ser --html c.html "$TRACES/deposit.json"
    contains err "libgvc.so.6 cannot be loaded"
    expect 4 no_gv "$BIN" check --level ser --html c.html p/*.json
    contains err "libgvc.so.6 cannot be loaded"
    expect 4 no_gv "$BIN" report --out all.html p/*.json
    contains err "libgvc.so.6 cannot be loaded"
    [ ! -e c.html ] && [ ! -e all.html ] || fail "a page was written without Graphviz"
    no_temp check .
    # the other library, opened first
    rm gv/libgvc.so.6
    : > gv/libcgraph.so.6
    expect 4 no_gv "$BIN" check --level ser --html c.html "$TRACES/deposit.json"
    contains err "libcgraph.so.6 cannot be loaded: $PWD/gv/libcgraph.so.6: "
    ;;
*)
    fail "unknown case"
    ;;
esac
finish
