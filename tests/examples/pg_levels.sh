#!/bin/sh
# Record APP on PostgreSQL at each isolation level and check the level's
# promise with isopredict check: serializable traces are serializable,
# repeatable read ones satisfy si (PostgreSQL's repeatable read is snapshot
# isolation), read committed ones satisfy rc.
# usage: pg_levels.sh ISOPREDICT APP DSN_FILE WORKDIR SESSIONS TXNS SEED
set -eu
. "$(dirname "$0")/../lib.sh"
ip=$1 app=$2 dsn=$(cat "$3") dir=$4 sessions=$5 txns=$6 seed=$7
fresh_dir "$dir"
for level in serializable:ser repeatable-read:si read-committed:rc; do
    iso=${level%%:*} model=${level#*:}
    t=$dir/$iso.json
    set +e
    "$app" --store postgres --dsn "$dsn" --isolation "$iso" \
        --sessions "$sessions" --txns "$txns" --seed "$seed" --record "$t" \
        --quiet
    st=$?
    set -e
    # invariants may fail below serializable (exit 1), never at it
    case "$iso:$st" in
    serializable:0|repeatable-read:[01]|read-committed:[01]) ;;
    *) die "$iso: the app exited $st" ;;
    esac
    [ "$(jq -r .meta.store.isolation "$t")" = "$iso" ] ||
        die "$iso: the trace does not say its isolation level"
    [ "$(jq '[.sessions[].transactions[] | select(.status == "committed")] | length' "$t")" \
        = $((sessions * txns - $(jq '[.sessions[].transactions[] | select(.status == "aborted" and (.id | contains("#") | not))] | length' "$t"))) ] ||
        die "$iso: every transaction ends once, committed or aborted by the app"
    set +e
    "$ip" check --level "$model" "$t" > "$dir/$iso.check"
    st=$?
    set -e
    [ "$st" = 0 ] || die "$iso: the trace breaks $model: $(cat "$dir/$iso.check")"
    echo "$iso: $model kept; $(jq .meta.store.retries "$t") retries"
done
