# tests/lib.sh - the helpers of the end-to-end shell tests (POSIX sh, so
# that the sh and the bash scripts share it).  A script sources it first:
#
#     . "$(dirname "$0")/../lib.sh"        # from tests/DIR/SCRIPT.sh
#
# Two ways to fail, as in every test framework:
#   fail MSG...   says "FAIL: MSG" on stderr, counts it, and goes on; the
#                 script ends with `finish`, which exits 1 if any failed.
#   die MSG...    says the same and exits 1 at once (scripts under set -e,
#                 where there is nothing sensible left to check).
# TEST_CASE, when set, goes into every message ("FAIL [CASE]: ...").

TEST_FAILS=0
# tests/, absolute (work_dir changes the directory; $0 may be relative)
TESTS_DIR=$(cd "$(dirname "$0")/.." && pwd)
TEST_CASE=${TEST_CASE:-}

test_say() {   # test_say MSG...: "FAIL[ [CASE]]: MSG" on stderr
    if [ -n "$TEST_CASE" ]; then
        echo "FAIL [$TEST_CASE]: $*" >&2
    else
        echo "FAIL: $*" >&2
    fi
}
fail() { test_say "$@"; TEST_FAILS=$((TEST_FAILS + 1)); }
die() { test_say "$@"; exit 1; }

# finish [MSG]: exit 1 when something failed, else print MSG (or "ok")
finish() {
    if [ "$TEST_FAILS" != 0 ]; then
        echo "$TEST_FAILS failure(s)${TEST_CASE:+ [$TEST_CASE]}" >&2
        exit 1
    fi
    echo "${1:-ok${TEST_CASE:+ [$TEST_CASE]}}"
    exit 0
}

# work_dir NAME: a fresh directory WORK under $TMPDIR, removed on exit; the
# script runs in it (so `expect` leaves out and err there)
work_dir() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 2
    trap 'rm -rf "$WORK"' EXIT
    cd "$WORK" || exit 2
}

# fresh_dir DIR: DIR emptied and made (a work directory CTest names)
fresh_dir() {
    rm -rf "$1"
    mkdir -p "$1"
}

# expect STATUS CMD...: run CMD with stdout in ./out and stderr in ./err;
# a different exit status fails (with both shown) and returns 1
expect() {
    _want=$1
    shift
    "$@" > out 2> err
    _got=$?
    [ "$_got" = "$_want" ] && return 0
    fail "'$*' exited $_got, expected $_want"
    sed 's/^/    | /' out err | head -20 >&2
    return 1
}

# contains FILE TEXT: FILE holds TEXT (a fixed string); lacks: it does not;
# matches FILE REGEX: a line of FILE matches the basic regular expression
contains() { grep -qF -- "$2" "$1" || { fail "$1 lacks '$2': $(head -c 600 "$1")"; return 1; }; }
lacks() { ! grep -qF -- "$2" "$1" || { fail "$1 unexpectedly has '$2'"; return 1; }; }
matches() { grep -q -- "$2" "$1" || { fail "$1 has no line matching '$2': $(head -c 600 "$1")"; return 1; }; }

# no_temp NAME DIR: no temporary output file (".NAME.XXXXXX") left in DIR
no_temp() {
    _left=$(cd "$2" && ls -A | grep '^\.' | tr '\n' ' ')
    [ -z "$_left" ] || fail "$1: temporary files left behind: $_left"
}

# now: seconds since the epoch, with fractions; within LIMIT START: at most
# LIMIT seconds have passed since START
now() { date +%s.%N; }
within() { awk -v a="$2" -v b="$(now)" -v l="$1" 'BEGIN { exit !(b - a <= l) }'; }

# record APP_PATH SESSIONS TXNS SEED FILE: a run of an example application
record_app() {
    "$1" --sessions "$2" --txns "$3" --seed "$4" --record "$5" --quiet \
        > /dev/null 2>&1 || fail "could not record $(basename "$1")"
}

# recheck_prediction ISOPREDICT APP MODEL PREDICTION DIR N: a prediction
# file is valid under MODEL and unserializable by `isopredict check`; its
# replay (`isopredict validate`, report in DIR/valN.out, validating trace
# in DIR/valN.json) agrees with `check` on that trace: validated means
# valid under MODEL and unserializable, not validated means one of the
# two fails; and the divergence flags agree.  Stops the script at the
# first disagreement (the example scripts run under set -e).
recheck_prediction() {
    _ip=$1 _app=$2 _model=$3 _p=$4 _dir=$5 _n=$6
    "$_ip" check --level "$_model" "$_p" > /dev/null ||
        die "$_p is not valid under $_model"
    _st=0
    "$_ip" check --level ser "$_p" > /dev/null || _st=$?
    [ "$_st" = 1 ] || die "$_p is serializable (check exited $_st)"
    _vst=0
    "$_ip" validate --app "$_app" --json --out "$_dir/val$_n.json" "$_p" \
        > "$_dir/val$_n.out" || _vst=$?
    _result=$(jq -r .result "$_dir/val$_n.out")
    echo "$_p: validate exited $_vst: $_result: $(jq -r .reason "$_dir/val$_n.out")"
    # the validating execution, judged again by isopredict check
    _mst=0 _sst=0
    "$_ip" check --level "$_model" "$_dir/val$_n.json" > /dev/null || _mst=$?
    "$_ip" check --level ser "$_dir/val$_n.json" > /dev/null || _sst=$?
    case "$_vst:$_result" in
    1:validated|1:diverged-validated)
        [ "$_mst" = 0 ] && [ "$_sst" = 1 ] ||
            die "validated, but check says $_model=$_mst ser=$_sst" ;;
    0:not-validated)
        [ "$_mst" = 1 ] || [ "$_sst" = 0 ] ||
            die "not validated, but check says $_model=$_mst ser=$_sst" ;;
    *) die "validate exited $_vst with result $_result" ;;
    esac
    _div=$(jq -r .diverged "$_dir/val$_n.out")
    [ "$_div" = "$(jq -r .replay.diverged "$_dir/val$_n.json")" ] ||
        die "divergence flag differs from the validating trace"
    case "$_result:$_div" in
    validated:true|diverged-validated:false)
        die "result $_result but diverged=$_div" ;;
    esac
}
