#!/bin/sh
# record -> isopredict predict -> re-check the prediction with isopredict
# check -> isopredict validate -> re-check the validating execution.
# usage: e2e.sh ISOPREDICT APP WORKDIR MODEL BOUNDARY SESSIONS TXNS SEED
set -eu
ip=$1 app=$2 dir=$3 model=$4 boundary=$5 sessions=$6 txns=$7 seed=$8
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$app" --sessions "$sessions" --txns "$txns" --seed "$seed" \
    --record "$dir/obs.json" --quiet
"$ip" check --level ser "$dir/obs.json" > /dev/null ||
    fail "the observed trace is not serializable"
set +e
"$ip" predict --quiet --model "$model" --boundary "$boundary" --timeout 20 \
    --out "$dir/pred" "$dir/obs.json" > "$dir/predict.txt"
st=$?
set -e
[ "$st" = 1 ] || fail "expected a prediction, predict exited $st"
n=0
for p in "$dir"/pred/*.json; do
    n=$((n + 1))
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
    echo "$p: validate exited $vst: $result: $(jq -r .reason "$dir/val$n.out")"
    # the validating execution, judged again by isopredict check
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
    diverged=$(jq -r .diverged "$dir/val$n.out")
    [ "$diverged" = "$(jq -r .replay.diverged "$dir/val$n.json")" ] ||
        fail "divergence flag differs from the validating trace"
    case "$result:$diverged" in
    validated:true|diverged-validated:false) fail "result $result but diverged=$diverged" ;;
    esac
done
[ "$n" -gt 0 ] || fail "predict wrote no prediction file"
