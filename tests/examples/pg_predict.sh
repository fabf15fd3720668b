#!/bin/sh
# Record APP on PostgreSQL at SERIALIZABLE, predict under MODEL from that
# trace, re-check each prediction (isopredict verify against the observed
# trace, check at MODEL and ser), and replay it on the in-memory store
# (isopredict validate): replay never runs on PostgreSQL, which cannot be
# told which write a read sees.
# usage: pg_predict.sh ISOPREDICT APP DSN_FILE WORKDIR MODEL SESSIONS TXNS SEED
set -eu
. "$(dirname "$0")/../lib.sh"
ip=$1 app=$2 dsn=$(cat "$3") dir=$4 model=$5 sessions=$6 txns=$7 seed=$8
fresh_dir "$dir"
# a concurrent run is not reproducible: a few recordings, until one has a
# prediction (almost always the first; on a loaded machine the sessions
# interleave less, and once five recordings in a row had none - predict
# at the commit before agreed - so up to ten)
for try in 1 2 3 4 5 6 7 8 9 10; do
    obs=$dir/obs$try.json
    "$app" --store postgres --dsn "$dsn" --isolation serializable \
        --sessions "$sessions" --txns "$txns" --seed "$seed" --record "$obs" \
        --quiet
    "$ip" check --level ser "$obs" > /dev/null ||
        die "$obs: PostgreSQL at serializable recorded an unserializable trace"
    st=0
    "$ip" predict --quiet --model "$model" --timeout 60 --out "$dir/pred$try" \
        "$obs" > "$dir/predict$try.txt" || st=$?
    [ "$st" = 1 ] && break
    [ "$st" = 0 ] || die "predict exited $st"
done
[ "$st" = 1 ] || die "no prediction from $try recordings"
n=0
for p in "$dir/pred$try"/*.json; do
    n=$((n + 1))
    "$ip" verify --observed "$obs" "$p" > /dev/null ||
        die "$p: isopredict verify rejects it"
    recheck_prediction "$ip" "$app" "$model" "$p" "$dir" "$n"
done
[ "$n" -gt 0 ] || die "predict wrote no prediction file"
