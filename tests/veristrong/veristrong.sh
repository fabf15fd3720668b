#!/bin/bash
# The VeriStrong sample (tests/corpus/veristrong): every history VeriStrong
# decided gets its verdict from `isopredict check` at the same level
# (satisfied: exit 0, violated: exit 1, with a witness cycle); every fourth
# also goes through `convert` to JSON and back with the same verdict.  The
# histories VeriStrong left undecided (29,419-transaction Cobra logs) and
# the Figure 13 ones are benchmarks, not tests.  cock-blog names writers
# that are in no log: an input error (exit 2) naming the file and byte.
# usage: veristrong.sh ISOPREDICT CORPUS_DIR
set -u
BIN=$1 CORPUS=$2
. "$(dirname "$0")/../lib.sh"
work_dir ip_veristrong
for a in table2-sample table2-cobra; do
    tar xJf "$CORPUS/$a.tar.xz" -C "$WORK" || die "cannot unpack $a"
done
checked=0 converted=0
while IFS=$'\t' read -r h lvl want note; do
    [ "$h" = history ] && continue
    [ -e "$WORK/$h" ] || continue          # fig13: not in the suite
    [ "$want" = unknown ] && continue      # undecided by VeriStrong: bench
    case $h in
    */cock-blog)
        "$BIN" check --level "$lvl" "$WORK/$h" > /dev/null 2> "$WORK/err"
        st=$?
        [ "$st" = 2 ] && grep -q "T15.log: byte 9" "$WORK/err" ||
            fail "$h: exit $st, want 2 naming T15.log byte 9: $(head -1 "$WORK/err")"
        continue ;;
    esac
    case $want in satisfied) code=0 ;; violated) code=1 ;; *) fail "$h: $want?"; continue ;; esac
    "$BIN" check --json --level "$lvl" "$WORK/$h" > "$WORK/out" 2> "$WORK/err"
    st=$?
    checked=$((checked + 1))
    if [ "$st" != "$code" ]; then
        fail "$h ($lvl): exit $st, VeriStrong $want; $(head -1 "$WORK/err")"
        continue
    fi
    if [ "$code" = 1 ] && ! grep -q '"kind"' "$WORK/out"; then
        fail "$h ($lvl): a violation without a witness cycle"
    fi
    if [ $((checked % 4)) = 0 ]; then
        converted=$((converted + 1))
        rm -f "$WORK/c.json"
        "$BIN" convert "$WORK/$h" "$WORK/c.json" 2> "$WORK/err" ||
            { fail "$h: convert: $(head -1 "$WORK/err")"; continue; }
        "$BIN" check --level "$lvl" "$WORK/c.json" > /dev/null 2>&1
        st=$?
        [ "$st" = "$code" ] || fail "$h ($lvl): exit $st after JSON, $code before"
    fi
done < "$CORPUS/EXPECTED.tsv"
[ "$checked" -ge 80 ] || fail "only $checked histories checked"
finish "veristrong: $checked histories as VeriStrong decided them, $converted through JSON"
