#!/usr/bin/env bash
# Out of memory never changes an answer (issue 13): run one command with
# its N-th allocation failing, for N = 1, 2, ... until a run makes fewer
# than N allocations.  Every run either gives the normal answer (status
# and stdout of the run without failures) or stops with exit status 3 and
# "out of memory" on stderr; never another status, a crash, a partial
# output file, or a different answer.
# usage: oom.sh ISOPREDICT_FAILALLOC TRACES_DIR COMMAND [STEP [APPS_DIR]]
# (STEP > 1 tries every STEP-th allocation only, for slow builds, from
# allocation OOM_FIRST (default 1) on; the
# validate case replays in APPS_DIR/bank)
set -u -o pipefail
BIN=$(realpath "$1") TRACES=$(realpath "$2") CMD=$3 STEP=${4:-1}
APPS=${5:-}
. "$(dirname "$0")/../lib.sh"
# in sanitizer builds: leaks of the drawing libraries are theirs
export LSAN_OPTIONS="suppressions=$TESTS_DIR/oom/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TEST_CASE=$CMD
work_dir oom
T=$TRACES/deposit.json
PREDICT_OPTS=()
case $CMD in
predict_lazy)   # lazy weak isolation, pruning, the strict boundary
    T=$TRACES/smallbank.json
    PREDICT_OPTS=(--weak-isolation lazy --boundary strict) ;;
predict_si)     # snapshot isolation: points, pivot, kept forced pasts
    T=$TRACES/write-skew.json
    PREDICT_OPTS=(--model si --encoding exact) ;;
predict_html)   # the HTML report and its drawings
    PREDICT_OPTS=(--html r.html) ;;
predict_bounded)    # windows on worker threads, staleness
    T=$TRACES/smallbank.json
    PREDICT_OPTS=(--window 6 --staleness 2 --jobs 2 --max-predictions 2) ;;
esac
MAX=${OOM_MAX_RUNS:-20000}

run() {   # run DIR: the command, run in DIR, its outputs there
    cd "$1" || return 99
    case $CMD in
    stats)        "$BIN" stats --json "$T" ;;
    check_causal) "$BIN" check --level causal "$T" |
                      sed 's/checked in [0-9.]* ms//' ;;
    check_ser)    # deposit.json is made of mini-transactions: strong_mt.c
                  "$BIN" check --json --level ser "$T" | sed '/"seconds"/d' ;;
    check_ser_general)  # the same history through the general checker
                  "$BIN" check --json --level ser --general "$T" |
                      sed '/"seconds"/d' ;;
    check_ambiguous)  # reads with several candidate writers
                  "$BIN" check --json --level ser "$TRACES/ambiguous.json" |
                      sed '/"seconds"/d' ;;
    convert)      "$BIN" convert "$T" c.json && cat c.json ;;
    convert_plume)  # a format that renumbers keys and values
                  "$BIN" convert --to plume "$T" c.plume && cat c.plume ;;
    convert_cobra)  # a directory of logs
                  "$BIN" convert --to cobra "$T" c.cobra &&
                      cat c.cobra/*.log | od -An -tx1 ;;
    convert_elle) # a Jepsen history (EDN reader) written as EDN
                  "$BIN" convert --to elle "$TESTS_DIR/fuzz/seeds/small.edn" c.edn &&
                      cat c.edn ;;
    check_elle)   # an incompatible order (list-append), as an anomaly
                  "$BIN" check --json --level ser "$TESTS_DIR/cli_elle/incompatible.edn" |
                      sed '/"seconds"/d' ;;
    check_versions_ser)     # list-append version orders: fixed ww/rw edges
                  "$BIN" check --json --level ser \
                      "$TRACES/../corpus/elle/paper-example.edn" |
                      sed '/"seconds"/d' ;;
    check_versions_causal)  # ... and the weak checkers' ww edges
                  "$BIN" check --json --level causal \
                      "$TESTS_DIR/cli_elle/version-order.edn" |
                      sed '/"seconds"/d' ;;
    check_versions_json)    # ... read from JSON's "versions", and written
                  "$BIN" convert "$TESTS_DIR/cli_elle/version-order.json" c.json &&
                      cat c.json ;;
    dot)          "$BIN" dot --out d.dot "$T" && cat d.dot ;;
    validate)     "$BIN" validate --json --app "$APPS/bank" "$V" > v.json
                  local vst=$?
                  [ "$vst" = 3 ] && return 3
                  jq -S 'walk(if type == "object" then del(.seconds,
                         .app) else . end)' v.json || return
                  return $vst ;;
    predict*)     "$BIN" predict --quiet --json --out p "${PREDICT_OPTS[@]}" "$T" > r.json
                  local st=$?
                  # out of memory (most runs): the output is not compared,
                  # so not normalised either (jq is a third of a run's cost)
                  [ "$st" = 3 ] && return 3
                  # times and memory differ from run to run; the answer may
                  # not, in the report or in the files written
                  local f='walk(if type == "object" then del(.seconds,
                           .gen_seconds, .solve_seconds, .peak_bytes,
                           .thread_seconds)
                           else . end)'
                  jq -S "$f" r.json 2>/dev/null
                  for p in p/*.json; do [ -e "$p" ] && jq -S "$f" "$p"; done
                  # the page without its times; the drawings' lines sorted
                  # (Graphviz orders clusters by address, which another
                  # allocation pattern changes)
                  if [ -e r.html ]; then
                      sed 's/[0-9.]* s</s</g; /<svg/,/<\/svg>/d' r.html
                      sed -n '/<svg/,/<\/svg>/p' r.html | sort
                  fi
                  return $st ;;
    esac
}

if [ "$CMD" = validate ]; then
    # a prediction of a small bank run, to replay
    mkdir pred
    (cd pred && "$APPS/bank" --sessions 2 --txns 3 --seed 1 --record t.json \
         --quiet && IP_FAIL_ALLOC=0 "$BIN" predict --quiet --out p t.json) \
        > /dev/null
    V=$(ls "$PWD"/pred/p/*.json 2> /dev/null)
    [ -n "$V" ] || die "no prediction to validate"
fi
mkdir base
(IP_FAIL_ALLOC=0 run base) > base.out 2> base.err
base=$?
[ "$base" -le 1 ] || die "baseline exited $base: $(cat base.err)"
# A process costs ~10 ms on our machines and a run is ~25 ms of work, so
# the loop starts as few as it can: a new directory per run (the old ones
# go in batches), and the checks of stderr and of hidden files are bash's.
shopt -s nullglob dotglob globstar
has() { local text; read -r -d '' text < "$1"; [[ $text == *"$2"* ]]; }
hidden_files() {   # hidden_files DIR: LEFT, the hidden regular files under DIR
    local f
    LEFT=
    for f in "$1"/**/.*; do [ -f "$f" ] && LEFT+="$f "; done
}
oom=0
for ((n = ${OOM_FIRST:-1}; n <= MAX; n += STEP)); do
    o=o$n
    mkdir "$o"
    (IP_FAIL_ALLOC=$n run "$o") > out 2> err
    st=$?
    if [ "$st" = "$base" ] && has err "failalloc: not reached"; then
        cmp -s out base.out || fail "N=$n (not reached) differs"
        case $STEP in 1) every="each" ;; 2) every="every 2nd" ;;
                      3) every="every 3rd" ;; *) every="every ${STEP}th" ;; esac
        [ "${OOM_FIRST:-1}" = 1 ] || every="$every from number $OOM_FIRST"
        made=$(grep -o '[0-9]* allocations' err)
        echo "$CMD: $every of $made failed in turn: $oom runs out of memory (exit 3), the rest the normal answer"
        finish
    fi
    if [ "$st" = 3 ] && has err "out of memory"; then
        oom=$((oom + 1))
        # nothing half-written may be left behind (outputs are written to
        # a hidden temporary file and linked into place when complete)
        hidden_files "$o"
        [ -z "$LEFT" ] || fail "N=$n left $LEFT"
    elif [ "$st" != "$base" ] || ! cmp -s out base.out; then
        fail "N=$n: exit $st (normal $base): $(head -c 300 err)"
        [ "$TEST_FAILS" -ge 10 ] && die "stopping after 10 failures"
    fi
    (( n % 64 < STEP )) && rm -rf o[0-9]*
done
die "still allocating after $MAX runs"
