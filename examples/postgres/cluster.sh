#!/bin/sh
# cluster.sh - a throwaway PostgreSQL 15 cluster for recording the example
# applications (examples/kv, --store postgres).
#
#   cluster.sh start DIR   initdb DIR/data (first time), start the server
#                          with its Unix socket in DIR and no TCP port, and
#                          print its libpq DSN on stdout
#   cluster.sh stop DIR    stop it (fast shutdown); nothing is left running
#
# The server refuses to run as root: as root, DIR is handed to the
# `postgres` user and every server command runs as that user (runuser), so
# the user must be able to reach DIR (a fresh `mktemp -d` under /tmp is
# safe; a build tree under /root or a 0700 home is not).  As any other
# user the commands run as that user.  The settings trade durability for
# speed (fsync off): the cluster is for tests and benchmarks only.
# PG_BIN overrides the server binaries' directory.
set -eu

bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
port=5432    # names the socket file DIR/.s.PGSQL.5432; no TCP is opened

die() { echo "cluster.sh: $*" >&2; exit 2; }

usage() { die "usage: cluster.sh start|stop DIR"; }

[ $# -eq 2 ] || usage
cmd=$1 dir=$2
case $dir in
/*) ;;
*) dir=$(pwd)/$dir ;;
esac
case $dir in
*[!A-Za-z0-9/._-]*) die "$dir: use a directory path of letters, digits, '/', '.', '_' and '-' only (it goes into the server's options)" ;;
esac
# a Unix socket path holds at most 107 bytes
[ ${#dir} -le 80 ] || die "$dir: path too long for a Unix socket; use a shorter one (mktemp -d)"

if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 ||
        die "no 'postgres' user: install the server (apt-get install postgresql-15)"
    as_server() { runuser -u postgres -- "$@"; }
else
    as_server() { "$@"; }
fi
[ -x "$bin/pg_ctl" ] ||
    die "$bin/pg_ctl not found: apt-get install postgresql-15 (or set PG_BIN)"

case $cmd in
start)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
        chown postgres "$dir"
        as_server test -w "$dir" ||
            die "$dir: the postgres user cannot write here (a parent directory is not searchable by it?); use a directory under /tmp"
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_server "$bin/initdb" -D "$dir/data" -A trust -U postgres \
            --no-sync >"$dir/initdb.log" 2>&1 ||
            die "initdb failed, see $dir/initdb.log"
    fi
    # fsync, full_page_writes off: throwaway; deadlock_timeout short, so a
    # deadlock (40P01, retried) costs milliseconds, not a second
    as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-k $dir -p $port -c listen_addresses= -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c deadlock_timeout=20ms -c max_connections=120" \
        start >/dev/null ||
        die "the server did not start, see $dir/server.log"
    echo "host=$dir port=$port user=postgres dbname=postgres"
    ;;
stop)
    [ -f "$dir/data/postmaster.pid" ] || exit 0   # not running: done
    as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null ||
        die "the server in $dir did not stop, see $dir/server.log"
    ;;
*) usage ;;
esac
