#!/bin/sh
# Replaying an observed trace as its own prediction (commit order = the
# observed schedule) must reproduce it exactly, without divergence.
# usage: replay_identity.sh APP WORKDIR
set -eu
. "$(dirname "$0")/../lib.sh"
app=$1 dir=$2
fresh_dir "$dir"
"$app" --sessions 3 --txns 5 --seed 7 --record "$dir/obs.json" --quiet
for model in causal rc; do
    jq --arg m "$model" '. + {prediction: {model: $m, commit_order: .schedule}}' \
        "$dir/obs.json" > "$dir/pred-$model.json"
    "$app" --replay "$dir/pred-$model.json" --record "$dir/rep-$model.json" --quiet
    jq -S .sessions "$dir/obs.json" > "$dir/a.json"
    jq -S .sessions "$dir/rep-$model.json" > "$dir/b.json"
    cmp "$dir/a.json" "$dir/b.json"
    [ "$(jq -c .schedule "$dir/obs.json")" = "$(jq -c .schedule "$dir/rep-$model.json")" ]
    jq -e '.replay.diverged == false and (.replay.divergences | length) == 0' \
        "$dir/rep-$model.json" > /dev/null
    jq -e '.invariants.violated == 0' "$dir/rep-$model.json" > /dev/null
done
# the replay refuses to overwrite its output
if "$app" --replay "$dir/pred-rc.json" --record "$dir/rep-rc.json" --quiet 2>/dev/null; then
    die "overwrote an existing file"
fi
echo "replay reproduces the observed trace"
