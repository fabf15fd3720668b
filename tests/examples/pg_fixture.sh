#!/bin/sh
# The PostgreSQL cluster of the --store postgres tests (a CTest fixture):
#   pg_fixture.sh start STATE CLUSTER_SH   start a private cluster, write
#                                          its DSN to STATE/pg_dsn
#   pg_fixture.sh stop STATE CLUSTER_SH    stop it and remove it
# The cluster lives in a fresh `mktemp -d` under /tmp (the postgres user,
# which runs the server when we are root, may not reach the build tree);
# STATE (in the build tree, one per build) records where, so that the
# normal and the sanitizer build never share a cluster and the cleanup
# (FIXTURES_CLEANUP: it runs even when tests fail) finds it.
set -eu
cmd=$1 state=$2 cluster=$3

stop() {
    [ -f "$state/pg_dir" ] || return 0
    dir=$(cat "$state/pg_dir")
    sh "$cluster" stop "$dir" || return 1
    rm -rf "$dir"
    rm -f "$state/pg_dir" "$state/pg_dsn"
}

case $cmd in
start)
    mkdir -p "$state"
    stop    # a cluster an interrupted run left behind
    dir=$(mktemp -d /tmp/isopredict-pg.XXXXXX)
    echo "$dir" > "$state/pg_dir"
    sh "$cluster" start "$dir" > "$state/pg_dsn.new"
    mv "$state/pg_dsn.new" "$state/pg_dsn"
    echo "cluster in $dir: $(cat "$state/pg_dsn")"
    ;;
stop) stop ;;
*) echo "usage: pg_fixture.sh start|stop STATE CLUSTER_SH" >&2; exit 2 ;;
esac
