#!/bin/sh
# bench/postgres/run.sh - conformance of PostgreSQL 15, measured, and
# predictions from its serializable runs confirmed by its weaker levels.
#
# Records every example application on a private cluster at each isolation
# level (several seeds and session counts), checks each trace with
# `isopredict check` against the level's promise (serializable: ser,
# repeatable read: si, read committed: rc) and names the anomalies of the
# traces that are not serializable; on the SERIALIZABLE traces runs
# `isopredict predict --model si` and `--model rc`.  Prints two markdown
# tables: conformance, and per application what was predicted from the
# serializable runs beside what the application really did at REPEATABLE
# READ / READ COMMITTED.  A trace that breaks its level's promise is named
# under the tables (and the run exits 1).
#
# usage: bench/postgres/run.sh [--out DIR] [--seeds "1 2 3"]
#            [--sessions "8 16"] [--txns T] [--apps "bank smallbank ..."]
#            [--timeout S]
# BUILD (default build) is the build directory with the apps and isopredict.
# DIR must not exist (default bench/postgres/out-<UTC time>): nothing is
# overwritten.  Everything is kept there: traces, check and predict output,
# results.tsv, table.md.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
out="" seeds="1 2 3" sessions="8 16" txns=50 timeout=120
apps="bank smallbank voter tpcc wikipedia"
while [ $# -gt 0 ]; do
    case $1 in
    --out) out=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --sessions) sessions=$2; shift 2 ;;
    --txns) txns=$2; shift 2 ;;
    --apps) apps=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    *) echo "usage: $0 [--out DIR] [--seeds LIST] [--sessions LIST] [--txns T] [--apps LIST] [--timeout S]" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || out=$root/bench/postgres/out-$(date -u +%Y%m%dT%H%M%SZ)
ip=$build/src/cli/isopredict
[ -x "$ip" ] || { echo "$ip: build first (BUILD=$build)" >&2; exit 2; }
mkdir "$out" || { echo "$out exists: give a new --out" >&2; exit 2; }
mkdir "$out/traces" "$out/pred"

pgdir=$(mktemp -d /tmp/isopredict-bench-pg.XXXXXX)
cleanup() { sh "$root/examples/postgres/cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true; rm -rf "$pgdir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
dsn=$(sh "$root/examples/postgres/cluster.sh" start "$pgdir")

# The name of an anomaly from its cycle (edges so/wr/ww/rw): Adya's class
# by the number of anti-dependencies (G1c none, G-single one, G2-item
# more), or the classic name when the cycle is one of two transactions.
classify='def cls: (map(select(.kind == "rw")) | length) as $rw
  | (map(select(.kind == "ww")) | length) as $ww
  | if length == 2 and $rw == 2 and .[0].key == .[1].key then "lost update"
    elif length == 2 and $rw == 2 then "write skew"
    elif length == 2 and $rw == 1 and $ww == 1 and .[0].key == .[1].key then "lost update"
    elif length == 2 and $rw == 1 then "read skew"
    elif $rw == 0 then "G1c" elif $rw == 1 then "G-single" else "G2-item" end;'

res=$out/results.tsv
printf 'app\tlevel\tsessions\tseed\tseconds\ttxns\tretries\tapp_exit\tpromise\tser\tanomalies\n' > "$res"
pres=$out/predictions.tsv
printf 'app\tsessions\tseed\tmodel\tresult\tkinds\n' > "$pres"
broken=""
for app in $apps; do
  for s in $sessions; do
    for seed in $seeds; do
      for level in serializable:ser repeatable-read:si read-committed:rc; do
        iso=${level%%:*} model=${level#*:}
        t=$out/traces/$app-$iso-s$s-$seed.json
        start=$(date +%s.%N)
        set +e
        "$build/examples/apps/$app" --store postgres --dsn "$dsn" \
            --isolation "$iso" --sessions "$s" --txns "$txns" --seed "$seed" \
            --record "$t" --quiet > "$t.out" 2> "$t.err"
        st=$?
        set -e
        secs=$(echo "$(date +%s.%N) - $start" | bc)
        if [ "$st" = 2 ]; then
            echo "$t: recording failed: $(cat "$t.err")" >&2
            broken="$broken $t(recording)"
            continue
        fi
        set +e
        "$ip" check --level "$model" "$t" > "$t.$model.txt" 2>&1
        pst=$?
        "$ip" check --level ser --json "$t" > "$t.ser.json" 2> /dev/null
        sst=$?
        set -e
        promise=kept
        [ "$pst" = 0 ] || { promise=BROKEN; broken="$broken $t($model)"; }
        ser=yes kinds=""
        if [ "$sst" = 1 ]; then
            ser=no
            kinds=$(jq -r "$classify"' [.cycles[] | cls] | join(",")' "$t.ser.json")
        elif [ "$sst" != 0 ]; then
            ser=undecided
        fi
        n=$(jq '[.sessions[].transactions[]] | length' "$t")
        r=$(jq '.meta.store.retries' "$t")
        printf '%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$iso" \
            "$s" "$seed" "$secs" "$n" "$r" "$st" "$promise" "$ser" "$kinds" >> "$res"
        [ "$iso" = serializable ] || continue
        for pm in si rc; do
          pd=$out/pred/$app-s$s-$seed-$pm
          set +e
          "$ip" predict --json --model "$pm" --timeout "$timeout" --out "$pd" \
              "$t" > "$pd.json" 2> "$pd.err"
          pst=$?
          set -e
          case $pst in
          0) result=none kinds="" ;;
          1) result=found
             kinds=$(jq -r "$classify"' [.predictions[] | .cycle | cls] | join(",")' "$pd.json") ;;
          3) result=timeout kinds="" ;;
          *) result="error($pst)" kinds="" ;;
          esac
          # every prediction re-checked without the solver
          if [ "$pst" = 1 ] && ! "$ip" verify --observed "$t" "$pd"/*.json > "$pd.verify" 2>&1; then
              result=ILLEGAL; broken="$broken $pd(verify)"
          fi
          printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$s" "$seed" "$pm" "$result" "$kinds" >> "$pres"
        done
      done
    done
  done
done

# ---- tables ------------------------------------------------------------------
# "a,b,a" -> "a x2, b"
count_kinds() { tr ',' '\n' | grep -v '^$' | sort | uniq -c | sort -rn |
    awk '{n=$1; $1=""; sub(/^ /,""); printf "%s%s%s", (NR>1?", ":""), $0, (n>1?" x" n:"")}'; }
{
echo "PostgreSQL $(jq -r .meta.store.server_version "$(ls "$out"/traces/*.json | head -1)"), $txns transactions per session, sessions {$sessions}, seeds {$seeds}."
echo
echo "| app | level | traces | promise kept | not serializable | anomalies found (cycles) | retries / trace | seconds / trace |"
echo "|---|---|---|---|---|---|---|---|"
for app in $apps; do
  for iso in serializable repeatable-read read-committed; do
    rows=$(awk -F'\t' -v a="$app" -v l="$iso" '$1==a && $2==l' "$res")
    [ -n "$rows" ] || continue
    n=$(echo "$rows" | wc -l)
    kept=$(echo "$rows" | awk -F'\t' '$9=="kept"' | wc -l)
    nonser=$(echo "$rows" | awk -F'\t' '$10=="no"' | wc -l)
    kinds=$(echo "$rows" | cut -f11 | paste -sd, | count_kinds)
    retr=$(echo "$rows" | awk -F'\t' '{s+=$7} END {printf "%.0f", s/NR}')
    secs=$(echo "$rows" | awk -F'\t' '{s+=$5} END {printf "%.2f", s/NR}')
    echo "| $app | $iso | $n | $kept/$n | $nonser | ${kinds:--} | $retr | $secs |"
  done
done
echo
echo "Predicted from the SERIALIZABLE traces vs. observed at the weaker level (traces with an anomaly / traces; kinds):"
echo
echo "| app | predicted si | observed REPEATABLE READ | predicted rc | observed READ COMMITTED |"
echo "|---|---|---|---|---|"
for app in $apps; do
  cell_pred() {
    rows=$(awk -F'\t' -v a="$app" -v m="$1" '$1==a && $4==m' "$pres")
    [ -n "$rows" ] || { echo "-"; return; }
    n=$(echo "$rows" | wc -l)
    f=$(echo "$rows" | awk -F'\t' '$5=="found"' | wc -l)
    to=$(echo "$rows" | awk -F'\t' '$5=="timeout"' | wc -l)
    k=$(echo "$rows" | cut -f6 | paste -sd, | count_kinds)
    echo "$f/$n${k:+: $k}$( [ "$to" = 0 ] || echo " ($to timed out)")"
  }
  cell_obs() {
    rows=$(awk -F'\t' -v a="$app" -v l="$1" '$1==a && $2==l' "$res")
    [ -n "$rows" ] || { echo "-"; return; }
    n=$(echo "$rows" | wc -l)
    f=$(echo "$rows" | awk -F'\t' '$10=="no"' | wc -l)
    k=$(echo "$rows" | cut -f11 | paste -sd, | count_kinds)
    echo "$f/$n${k:+: $k}"
  }
  echo "| $app | $(cell_pred si) | $(cell_obs repeatable-read) | $(cell_pred rc) | $(cell_obs read-committed) |"
done
if [ -n "$broken" ]; then
  echo
  echo "BROKEN (a level's promise, a recording or a prediction):$broken"
fi
} > "$out/table.md"
cat "$out/table.md"
echo "(kept in $out)" >&2
[ -z "$broken" ]
