#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium renders the pages
# that predict --html, check --html and report write, and the rendered
# DOM must hold every prediction's section, its tables and its drawings,
# with as many highlighted edges and boxes as the prediction files say.
# A screenshot of each page goes into OUT_DIR.  Exit 77 (skipped) only
# when Chromium is missing or cannot start here.
# usage: report.sh ISOPREDICT APPS_DIR TRACES_DIR OUT_DIR
set -u
BIN=$1 APPS=$2 TRACES=$3 OUT=$4
. "$(dirname "$0")/../lib.sh"
work_dir report
# Under ASan, Graphviz's and fontconfig's own leaks would make a drawing
# run exit 1 before its report is flushed (a batch's children): suppressed
# as tests/oom does.
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/oom/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || { echo "SKIP: chromium is not installed (make deps installs it)"; exit 77; }
render() {   # render PAGE NAME: the rendered DOM in NAME.dom, a screenshot
    local flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars
                 --no-first-run --user-data-dir="$WORK/profile")
    timeout 120 "$CHROME" "${flags[@]}" --dump-dom "file://$WORK/$1" \
        > "$2.dom" 2> "$2.err"
    timeout 120 "$CHROME" "${flags[@]}" --window-size=1280,1600 \
        --screenshot="$OUT/$2.png" "file://$WORK/$1" > /dev/null 2>> "$2.err"
    [ -s "$2.dom" ]
}
printf '<!DOCTYPE html><p id="probe">ok</p>' > probe.html
render probe.html probe && grep -q 'id="probe"' probe.dom ||
    { echo "SKIP: chromium cannot run here: $(tail -2 probe.err)"; exit 77; }
mkdir -p "$OUT"

# count PATTERN FILE: occurrences of an extended regexp
count() { grep -oE -- "$1" "$2" | wc -l; }

# check_page PAGE NAME PREDICTION_FILES...: the rendered page against the files
check_page() {
    local page=$1 name=$2; shift 2
    render "$page" "$name" || { fail "$name: chromium rendered nothing"; return; }
    local dom=$name.dom i=0
    [ "$(count '<section class="prediction"' "$dom")" = $# ] ||
        fail "$name: expected $# prediction sections"
    for f in "$@"; do
        i=$((i + 1))
        local changed cycle boxes
        changed=$(jq '.prediction.changed_reads | length' "$f")
        cycle=$(jq '.prediction.cycle | length' "$f")
        # boxes: every committed transaction and init, up to 50 of them
        boxes=$(jq '[.sessions[].transactions[] | select(.status != "aborted")] | length' "$f")
        # the section's own tables
        sect=$(sed -n "/id=\"prediction-$i\"/,/<\/section>/p" "$dom")
        echo "$sect" > "sect$i"
        [ "$(count '<svg' "sect$i")" = 2 ] || fail "$name #$i: expected 2 drawings"
        [ "$(count '<tr>' <(sed -n '/class="changed-reads"/,/<\/table>/p' "sect$i"))" = $((changed + 1)) ] ||
            fail "$name #$i: changed-reads table does not have $changed rows"
        [ "$(count '<tr>' <(sed -n '/class="boundaries"/,/<\/table>/p' "sect$i"))" = \
          $(( $(jq '.prediction.boundaries | length' "$f") + 1 )) ] ||
            fail "$name #$i: boundaries table rows"
        [ "$(count "id=\"p$i-changed-[0-9]+\" class=\"edge\"" "sect$i")" = "$changed" ] ||
            fail "$name #$i: expected $changed changed-read edges drawn"
        [ "$(count "id=\"p$i-cycle-[0-9]+\" class=\"edge\"" "sect$i")" = "$cycle" ] ||
            fail "$name #$i: expected $cycle cycle edges drawn"
        local drawn folds
        drawn=$(count "id=\"p$i-predicted-t[0-9]+\" class=\"node\"" "sect$i")
        folds=$(count "id=\"p$i-predicted-fold[0-9]+\" class=\"node\"" "sect$i")
        if [ "$boxes" -le 50 ]; then
            [ "$drawn" = $((boxes + 1)) ] && [ "$folds" = 0 ] ||
                fail "$name #$i: $drawn boxes and $folds folds drawn for $boxes transactions"
        else
            [ "$folds" -ge 1 ] && [ "$drawn" -lt "$boxes" ] && [ "$drawn" -ge 2 ] ||
                fail "$name #$i: $boxes transactions not folded ($drawn boxes, $folds folds)"
        fi
        grep -q "data-cycle-edges=\"$cycle\"" "sect$i" || fail "$name #$i: data-cycle-edges"
    done
}

# write skew under si, with the observed run beside it
"$BIN" predict --quiet --model si --out p1 --html ws.html "$TRACES/write-skew.json" > /dev/null
[ $? = 1 ] || fail "predict --html on write-skew"
check_page ws.html write-skew p1/*.json
grep -q "Prediction 1: write skew" write-skew.dom || fail "write skew not named"

# several predictions of an application run, 24 transactions
"$APPS/bank" --sessions 3 --txns 8 --seed 2 --record bank.json --quiet
"$BIN" predict --quiet --max-predictions 3 --out p2 --html bank.html bank.json > /dev/null
check_page bank.html bank $(ls p2/*.json | sort -t- -k2)

# a run of 120 transactions: the drawing folds what is not on the cycle
"$APPS/bank" --sessions 4 --txns 30 --seed 1 --record big.json --quiet
"$BIN" predict --quiet --out p3 --html big.html big.json > /dev/null
[ -n "$(ls p3/*.json 2> /dev/null)" ] && check_page big.html big p3/*.json

# the report command over files already written
"$BIN" report --out all.html p1/*.json p3/*.json
check_page all.html report p1/*.json p3/*.json

# check --html: the witness cycle of a violation
"$BIN" check --level ser --html v.html p1/*.json > /dev/null
render v.html violation || fail "violation page"
n=$("$BIN" check --level ser --json p1/*.json | jq '.cycles[0] | length')
[ "$(count 'id="v-cycle-[0-9]+" class="edge"' violation.dom)" = "$n" ] ||
    fail "violation page: expected $n cycle edges"
[ "$(count '<tr>' <(sed -n '/class="cycle-edges"/,/<\/table>/p' violation.dom))" = $((n + 1)) ] ||
    fail "violation page: cycle table rows"
# the anomaly named as check --json names it, the history's size, the
# cycle drawn alone too, and every box with its operations
name=$("$BIN" check --level ser --json p1/*.json | jq -r .anomaly)
grep -q "Violates ser: <span class=\"anomaly\">$name</span>" violation.dom ||
    fail "violation page: anomaly '$name' not named"
for row in anomaly sessions transactions events; do
    grep -q "<th>$row</th>" violation.dom || fail "violation page: no $row row"
done
[ "$(count '<svg' violation.dom)" = 2 ] || fail "violation page: expected 2 drawings"
grep -q '<figcaption>The cycle</figcaption>' violation.dom || fail "violation page: the cycle alone"
grep -qE '>r [a-z]+ &#8592; |>r [a-z]+ ← ' violation.dom || fail "violation page: no read drawn in a box"

# a weak level's cycle, on another input format, and read anomalies
printf 'w 0 0\n=====\nw 0 1\n=====\nr 0 0\nr 0 1\n' > nrr.txt
"$BIN" check --level ra --format awdit-test --html nrr.html nrr.txt > /dev/null
[ $? = 1 ] || fail "check --html at ra: expected a violation"
render nrr.html weak || fail "weak violation page"
grep -q 'class="anomaly">non-repeatable read<' weak.dom || fail "weak page: anomaly not named"
cat > thin.json <<'J'
{"isopredict_trace": 1, "sessions": [
 {"id": "a", "transactions": [{"id": "t1", "ops": [{"op": "write", "key": "x", "value": 1}]}]},
 {"id": "b", "transactions": [{"id": "t2", "ops": [{"op": "read", "key": "x", "value": 7}]}]}]}
J
"$BIN" check --level causal --html thin.html thin.json > /dev/null
render thin.html thin || fail "read-anomaly page"
[ "$(count '<tr>' <(sed -n '/class="read-anomalies"/,/<\/table>/p' thin.dom))" = 2 ] ||
    fail "read-anomaly page: table rows"
grep -q 'class="anomaly">garbage read<' thin.dom || fail "read-anomaly page: not named"

# a batch (check): one page, a row per trace, a section per violated one
"$BIN" check --level ser --html batch.html "$TRACES" > /dev/null
[ $? = 1 ] || fail "check --html over a directory: expected exit 1"
render batch.html batch || fail "batch page"
n=$(ls "$TRACES"/*.json | wc -l)
bad=$("$BIN" check --level ser --json "$TRACES" | jq -s '[.[] | select(.exit_status == 1)] | length')
[ "$(count '<tr>' <(sed -n '/class="traces"/,/<\/table>/p' batch.dom))" = $((n + 1)) ] ||
    fail "batch page: expected $n rows"
[ "$bad" -ge 1 ] && [ "$(count '<section class="trace"' batch.dom)" = "$bad" ] ||
    fail "batch page: expected $bad sections"
for a in $(grep -oE 'href="#trace-[0-9]+"' batch.dom | grep -oE 'trace-[0-9]+'); do
    grep -q "id=\"$a\"" batch.dom || fail "batch page: link to a missing $a"
done
[ "$(count '<section class="violation"' batch.dom)" = "$bad" ] || fail "batch page: violations not embedded"
# sorted by time (column 3) on load: the times ascend
render 'batch.html#sort-3' sorted || fail "sorted batch page"
sed -n '/class="traces"/,/<\/table>/p' sorted.dom | grep -oE '<td data-v="[0-9.]+">[0-9.]+</td><td>' |
    grep -oE 'data-v="[0-9.]+"' | grep -oE '[0-9.]+' > times
sort -g times | cmp -s - times || fail "batch page: not sorted by time"
[ "$(wc -l < times)" = "$n" ] || fail "batch page: $(wc -l < times) times for $n traces"
# a batch (predict): the prediction sections of the traces that have some
"$BIN" predict --quiet --model si --out p4 --html pbatch.html "$TRACES/write-skew.json" "$TRACES/deposit.json" > /dev/null
render pbatch.html pbatch || fail "predict batch page"
[ "$(count '<section class="trace"' pbatch.dom)" = 1 ] && [ "$(count '<section class="prediction"' pbatch.dom)" = 1 ] ||
    fail "predict batch page: expected write-skew's section only"
grep -q '1 prediction: write skew' pbatch.dom || fail "predict batch page: result column"

# self-contained: nothing fetched from elsewhere
grep -lE '(src|href)="(https?:)?//' ./*.html && fail "a page loads a network resource"

finish "ok (screenshots in $OUT)"
