#!/usr/bin/env bash
# End-to-end tests of batch mode: predict and check over several traces
# and directories (one child process per trace), summary lines, the final
# table, JSON Lines, and the most severe exit status.
# usage: cli_batch.sh ISOPREDICT TRACES_DIR
set -u
BIN=$1 TRACES=$2
. "$(dirname "$0")/../lib.sh"
work_dir cli_batch

mkdir suite
cp "$TRACES/deposit.json" "$TRACES/voter.json" "$TRACES/write-skew.json" suite/
printf '{ "isopredict_trace": 1, "sessions": [' > suite/broken.json
echo "not a trace" > suite/notes.md          # not a trace name: skipped

# a directory: one line per trace in name order, a table, exit 2 (the
# input error outranks the predictions)
expect 2 "$BIN" predict --out preds --jobs 2 suite
[ "$(grep -c '^suite/' out)" = 8 ] || fail "expected 4 lines and 4 table rows: $(cat out)"
[ "$(sed -n 1p out | cut -d: -f1)" = suite/broken.json ] || fail "not in name order: $(cat out)"
contains out "suite/deposit.json: found, 1 prediction"
contains out "suite/voter.json: none"
contains out "4 traces: 2 with predictions, 1 without, 0 undecided, 0 unavailable, 1 input or usage error; exit status 2"
grep -q notes.md out && fail "notes.md taken for a trace"
[ "$(ls preds/*.json | wc -l)" = 2 ] || fail "expected 2 prediction files: $(ls preds)"
for p in preds/*.json; do expect 1 "$BIN" check --level ser "$p"; done

# several files: without the broken one the worst is 1
expect 1 "$BIN" predict --model causal --out p2 suite/deposit.json suite/voter.json
contains out "2 traces: 1 with predictions, 1 without"

# JSON Lines: one object per trace with its report, trace and exit status
expect 2 "$BIN" predict --json --out p3 suite
[ "$(wc -l < out)" = 4 ] || fail "expected 4 JSON lines: $(cat out)"
jq -e -s 'length == 4 and (map(.exit_status) == [2, 1, 0, 1])
          and .[0].error != null and .[1].result == "found"
          and (.[1].predictions | length) == 1 and .[3].trace == "suite/write-skew.json"' \
    out > /dev/null || fail "JSON Lines: $(cat out)"

# check: the level's verdict per trace; a violation makes the worst 1
expect 1 "$BIN" check --level ser --jobs 3 preds/*.json suite/voter.json
contains out "ser violated"
contains out "suite/voter.json: ser satisfied"
expect 1 "$BIN" check --level ser --json preds/*.json
jq -e -s 'all(.exit_status == 1 and .result == "violated")' out > /dev/null ||
    fail "check JSON Lines: $(cat out)"

# --html: one page for the batch, a row per trace (the broken one too), a
# section per trace that found something; the children's pages are gone.
# (Under ASan, Graphviz's and fontconfig's own leaks would make a drawing
# child exit 1 before its report is flushed: suppressed as tests/oom does.)
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/oom/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkdir pages
expect 2 "$BIN" predict --model causal --out p4 --html pages/suite.html suite
[ "$(sed -n '/class="traces"/,/<\/table>/p' pages/suite.html | grep -c '<tr><td>')" = 4 ] ||
    fail "batch page: expected 4 rows"
[ "$(grep -c '<section class="trace"' pages/suite.html)" = 2 ] ||
    fail "batch page: expected 2 trace sections"
grep -q 'input error' pages/suite.html || fail "batch page: the broken trace's status"
[ "$(ls -A pages)" = suite.html ] || fail "batch page: left behind $(ls -A pages)"
expect 2 "$BIN" predict --model causal --out p5 --html pages/suite.html suite
contains err "already exists"
expect 1 "$BIN" check --level ser --json --html pages/check.html preds/*.json suite/voter.json
grep -q '<td>satisfied</td>' pages/check.html && grep -q '<td>violated</td>' pages/check.html ||
    fail "check batch page: statuses"

# a directory holding *.log is one (Cobra) history, not a batch
mkdir cobra && : > cobra/a.log
expect 2 "$BIN" check --level ser cobra
grep -q "trace .*exit" out && fail "a Cobra directory was taken as a batch"
# a directory without traces
mkdir empty
expect 2 "$BIN" predict empty
contains err "no traces in empty"

finish
