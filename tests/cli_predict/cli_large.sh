#!/usr/bin/env bash
# End-to-end tests of `isopredict predict` on traces too large for the
# exhaustive search: limits that hold (--timeout, --max-memory, SIGINT),
# the bounded search's report, and shards that together find what one
# process finds.  Traces are recorded by the example applications.
# usage: cli_large.sh ISOPREDICT APPS_DIR CASE
set -u
BIN=$1 APPS=$2 CASE=$3
. "$(dirname "$0")/../lib.sh"
TEST_CASE=$CASE
work_dir cli_large
record() { record_app "$APPS/$1" "$2" "$3" 1 "$4"; }   # APP SESSIONS TXNS FILE

case $CASE in
stream)
    # thousands of predictions: each written as found, so the time limit
    # holds with the writing, and every file the report names exists
    record smallbank 10 100 s.json
    t0=$(now)
    "$BIN" predict --quiet --json --search bounded --window 32 --staleness 2 \
        --max-predictions 100000 --timeout 4 --out o s.json >out 2>err
    st=$?
    [ "$st" = 1 ] || fail "exit $st, expected 1"
    within 6.5 "$t0" || fail "--timeout 4 took more than 6.5 s"
    n=$(jq '.predictions | length' out)
    [ "$n" -ge 100 ] || fail "only $n predictions in 4 s"
    [ "$(ls o/*.json | wc -l)" = "$n" ] || fail "files differ from the report"
    jq -e 'all(.predictions[]; has("commit_order") | not) and
           .search.stopped == "time limit"' out >/dev/null ||
        fail "report: $(jq -c .search out)"
    f=$(jq -r '.predictions[-1].file' out)
    jq -e '.prediction.commit_order | length > 0' "$f" >/dev/null ||
        fail "$f lacks its commit order"
    "$BIN" check --level causal "$f" >/dev/null || fail "$f is not causal"
    # the same with --html: the page is drawn from the streamed files after
    # the search, within the limit (the search keeps a tenth of it for the
    # page); at most 100 drawn, the rest listed with their files
    t0=$(now)
    "$BIN" predict --json --search bounded --window 32 --staleness 2 \
        --max-predictions 100000 --timeout 4 --html p.html --out h s.json \
        >out 2>err
    st=$?
    [ "$st" = 1 ] || fail "--html: exit $st, expected 1"
    within 6.5 "$t0" || fail "--html: --timeout 4 took more than 6.5 s"
    contains err "time limit of 4 s reached"
    lacks err "--search bounded"     # it was bounded already
    n=$(jq '.predictions | length' out)
    drawn=$(grep -c 'class="prediction"' p.html)
    listed=$(grep -c 'class="undrawn"' p.html)
    [ "$drawn" -le 100 ] || fail "--html: $drawn drawn, at most 100"
    [ $((drawn + listed)) = "$n" ] ||
        fail "--html: $drawn drawn + $listed listed, $n predictions"
    [ "$(ls h/*.json | wc -l)" = "$n" ] || fail "--html: files differ"
    if [ "$listed" -gt 0 ]; then
        f=$(grep -o 'File: <code>[^<]*' p.html | tail -1 | sed 's/File: <code>//')
        [ -f "$f" ] || fail "--html: listed file $f missing"
    fi
    ;;
timeout)
    # enumerating every prediction of this trace takes far longer than
    # 1 s (its formula alone takes about that long to generate)
    record tpcc 10 100 t.json
    t0=$(now)
    "$BIN" predict --search exhaustive --max-predictions 100000 \
        --max-memory 0 --timeout 1 --out o t.json >out 2>err
    st=$?
    [ "$st" = 3 ] || fail "exit $st, expected 3"
    within 4 "$t0" || fail "--timeout 1 took more than 4 s"
    contains err "time limit"
    ;;
memory)
    # refused before building: the estimate is far above the budget
    record bank 10 100 b.json
    "$BIN" predict --search exhaustive --max-memory 100M --out o b.json >out 2>err
    st=$?
    [ "$st" = 3 ] || fail "exit $st, expected 3"
    contains err "memory limit"
    contains err "--max-memory"
    # the guard's resident-memory check is tested in tests/predict (guard)
    ;;
interrupt)
    record tpcc 10 100 t.json
    "$BIN" predict --search exhaustive --max-predictions 100000 \
        --max-memory 0 --timeout 0 --out o t.json >out 2>err &
    pid=$!
    sleep 1
    t0=$(now)
    kill -INT $pid
    wait $pid
    st=$?
    [ "$st" = 3 ] || fail "exit $st after SIGINT, expected 3"
    within 2 "$t0" || fail "SIGINT took more than 2 s to stop the run"
    contains err "interrupted"
    ;;
bounded)
    record bank 10 100 b.json
    "$BIN" predict --json --timeout 60 --out o b.json >out 2>err
    st=$?
    [ "$st" = 1 ] || fail "exit $st, expected 1 (a prediction)"
    jq -e . out >/dev/null || fail "stdout is not one JSON document"
    jq -e '.search.mode == "bounded" and .search.complete == false' out \
        >/dev/null || fail "no bounded search object: $(jq -c .search out)"
    jq -e '.predictions | length == 1' out >/dev/null || fail "no prediction"
    contains err "windows searched"      # progress on stderr only
    f=$(jq -r '.predictions[0].file' out)
    "$BIN" check --level ser "$f" >/dev/null; [ $? = 1 ] || fail "$f is serializable"
    "$BIN" check --level causal "$f" >/dev/null || fail "$f is not causal"
    "$BIN" predict --quiet --out o b.json >out 2>err
    contains out "search: not complete: windows of 32 transactions"
    # --search bounded alone: the first widening round, not one window
    # over the whole trace
    "$BIN" predict --quiet --json --search bounded --out o2 b.json >out 2>err
    jq -e '.search.rounds | length == 1 and .[0].window == 32 and
           .[0].staleness == 2' out >/dev/null ||
        fail "--search bounded alone: $(jq -c .search.rounds out)"
    ;;
shards)
    # every window of one process = the union of three shards' windows
    record bank 4 30 b.json
    opts="--search bounded --window 12 --staleness 2 --max-predictions 500 --json --quiet"
    sig='[.predictions[] | [.changed_reads[] | [.transaction, .op, .predicted]] | sort] | unique'
    "$BIN" predict $opts --jobs 2 --out one b.json >one.json
    [ $? -le 1 ] || fail "single run failed"
    for i in 1 2 3; do
        "$BIN" predict $opts --jobs 1 --shard $i/3 --out s$i b.json >s$i.json
        [ $? -le 1 ] || fail "shard $i failed"
        jq -e ".search.shard == $i and .search.shards == 3" s$i.json >/dev/null ||
            fail "shard $i not stated in the search object"
    done
    jq -c "$sig" one.json >a
    jq -s -c "map($sig) | add | unique" s1.json s2.json s3.json >b
    cmp -s a b || fail "shards differ from one run: $(cat a) vs $(cat b)"
    n=$(jq length a)
    [ "$n" -ge 2 ] || fail "only $n predictions: the comparison says little"
    ;;
lazy)
    # the exhaustive search with weak isolation checked lazily finds what
    # the eager one finds, and says which it used
    record tpcc 3 8 t.json
    for weak in eager lazy; do
        "$BIN" predict --search exhaustive --weak-isolation $weak --json \
            --quiet --out $weak t.json >$weak.json
        [ $? = 1 ] || fail "--weak-isolation $weak: no prediction"
        jq -e ".search.complete == false and .search.lazy_weak_isolation == \
               $([ $weak = lazy ] && echo true || echo false)" $weak.json \
            >/dev/null || fail "$weak not stated: $(jq -c .search $weak.json)"
        f=$(jq -r '.predictions[0].file' $weak.json)
        "$BIN" check --level ser "$f" >/dev/null; [ $? = 1 ] || fail "$f serializable"
        "$BIN" check --level causal "$f" >/dev/null || fail "$f not causal"
    done
    "$BIN" predict --weak-isolation sometimes t.json >out 2>err
    [ $? = 2 ] || fail "a bad --weak-isolation is not a usage error"
    ;;
*)
    fail "unknown case"
    ;;
esac
finish
