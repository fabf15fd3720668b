#!/bin/sh
# Record APP on PostgreSQL at SERIALIZABLE, predict under MODEL from that
# trace, re-check each prediction (isopredict verify against the observed
# trace, check at MODEL and ser), and replay it on the in-memory store
# (isopredict validate): replay never runs on PostgreSQL, which cannot be
# told which write a read sees.
# usage: pg_predict.sh ISOPREDICT APP DSN_FILE WORKDIR MODEL SESSIONS TXNS SEED
set -eu
ip=$1 app=$2 dsn=$(cat "$3") dir=$4 model=$5 sessions=$6 txns=$7 seed=$8
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
# a concurrent run is not reproducible: a few recordings, until one has a
# prediction (almost always the first)
for try in 1 2 3 4 5; do
    obs=$dir/obs$try.json
    "$app" --store postgres --dsn "$dsn" --isolation serializable \
        --sessions "$sessions" --txns "$txns" --seed "$seed" --record "$obs" \
        --quiet
    "$ip" check --level ser "$obs" > /dev/null ||
        fail "$obs: PostgreSQL at serializable recorded an unserializable trace"
    set +e
    "$ip" predict --quiet --model "$model" --timeout 60 --out "$dir/pred$try" \
        "$obs" > "$dir/predict$try.txt"
    st=$?
    set -e
    [ "$st" = 1 ] && break
    [ "$st" = 0 ] || fail "predict exited $st"
done
[ "$st" = 1 ] || fail "no prediction from $try recordings"
n=0
for p in "$dir/pred$try"/*.json; do
    n=$((n + 1))
    "$ip" verify --observed "$obs" "$p" > /dev/null ||
        fail "$p: isopredict verify rejects it"
    "$ip" check --level "$model" "$p" > /dev/null ||
        fail "$p is not valid under $model"
    set +e
    "$ip" check --level ser "$p" > /dev/null
    st=$?
    "$ip" validate --app "$app" --json --out "$dir/val$n.json" "$p" \
        > "$dir/val$n.out"
    vst=$?
    set -e
    [ "$st" = 1 ] || fail "$p is serializable (check exited $st)"
    result=$(jq -r .result "$dir/val$n.out")
    echo "$p: validate exited $vst: $result"
    set +e
    "$ip" check --level "$model" "$dir/val$n.json" > /dev/null
    mst=$?
    "$ip" check --level ser "$dir/val$n.json" > /dev/null
    sst=$?
    set -e
    case "$vst:$result" in
    1:validated|1:diverged-validated)
        [ "$mst" = 0 ] && [ "$sst" = 1 ] ||
            fail "validated, but check says $model=$mst ser=$sst" ;;
    0:not-validated)
        [ "$mst" = 1 ] || [ "$sst" = 0 ] ||
            fail "not validated, but check says $model=$mst ser=$sst" ;;
    *) fail "validate exited $vst with result $result" ;;
    esac
done
[ "$n" -gt 0 ] || fail "predict wrote no prediction file"
