#!/bin/sh
# record -> isopredict predict -> re-check the prediction with isopredict
# check -> isopredict validate -> re-check the validating execution.
# usage: e2e.sh ISOPREDICT APP WORKDIR MODEL BOUNDARY SESSIONS TXNS SEED
set -eu
. "$(dirname "$0")/../lib.sh"
ip=$1 app=$2 dir=$3 model=$4 boundary=$5 sessions=$6 txns=$7 seed=$8
fresh_dir "$dir"
"$app" --sessions "$sessions" --txns "$txns" --seed "$seed" \
    --record "$dir/obs.json" --quiet
"$ip" check --level ser "$dir/obs.json" > /dev/null ||
    die "the observed trace is not serializable"
st=0
"$ip" predict --quiet --model "$model" --boundary "$boundary" --timeout 20 \
    --out "$dir/pred" "$dir/obs.json" > "$dir/predict.txt" || st=$?
[ "$st" = 1 ] || die "expected a prediction, predict exited $st"
n=0
for p in "$dir"/pred/*.json; do
    n=$((n + 1))
    recheck_prediction "$ip" "$app" "$model" "$p" "$dir" "$n"
done
[ "$n" -gt 0 ] || die "predict wrote no prediction file"
