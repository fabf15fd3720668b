#!/usr/bin/env bash
# Installed like a Debian tool: `cmake --install` into a temporary prefix
# gives a working binary, a manual page that `man -l` renders and that
# names every option of every command's --help, and a bash completion
# that completes; CPack builds a .deb with those files and the Debian
# dependencies.
# usage: install.sh BUILD_DIR TRACES_DIR
set -u
BUILD=$(realpath "$1") TRACES=$(realpath "$2")
. "$(dirname "$0")/../lib.sh"
work_dir install

cmake --install "$BUILD" --prefix "$WORK/prefix" > install.log ||
    { cat install.log; exit 1; }
BIN=$WORK/prefix/bin/isopredict
MAN=$WORK/prefix/share/man/man1/isopredict.1
COMP=$WORK/prefix/share/bash-completion/completions/isopredict
for f in "$BIN" "$MAN" "$COMP"; do [ -e "$f" ] || fail "not installed: $f"; done

# the installed binary works
"$BIN" --version | grep -qE '^isopredict [0-9.]+ \(Z3 ' || fail "--version"
"$BIN" predict --quiet --out p "$TRACES/deposit.json" > /dev/null
[ $? = 1 ] || fail "installed predict did not find the deposit bug"

# the manual page renders, and names every option the commands offer
if command -v man > /dev/null; then
    MANWIDTH=100 man -l "$MAN" > man.txt 2> man.err || fail "man -l failed: $(cat man.err)"
    grep -q "EXIT STATUS" man.txt || fail "man page has no EXIT STATUS"
    for cmd in predict check convert stats dot validate report; do
        for opt in $("$BIN" $cmd --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
            grep -qE -- "${opt}([^a-z-]|$)" man.txt || fail "man page lacks $cmd $opt"
        done
    done
    for fmt in json isopredict-text plume awdit-test dbcop cobra; do
        grep -qw -- "$fmt" man.txt || fail "man page lacks format $fmt"
    done
else
    echo "man not installed: skipping the manual page checks (apt-get install man-db)"
fi

# bash completion: commands, options, option values
out=$(bash -c '
    source "$1"
    complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _isopredict; echo "${COMPREPLY[*]}"; }
    complete_words isopredict ch
    complete_words isopredict check --le
    complete_words isopredict --model ""
    complete_words isopredict check --level s' _ "$COMP")
echo "$out" | sed -n 1p | grep -qw check || fail "completion of commands: $out"
echo "$out" | sed -n 2p | grep -qw -- --level || fail "completion of options: $out"
[ "$(echo "$out" | sed -n 3p)" = "causal rc ra si" ] || fail "completion of --model: $out"
[ "$(echo "$out" | sed -n 4p)" = "si ser" ] || fail "completion of --level: $out"

# the Debian package
if command -v cpack > /dev/null && command -v dpkg-deb > /dev/null; then
    cpack -G DEB -B "$WORK/deb" --config "$BUILD/CPackConfig.cmake" > cpack.log 2>&1 ||
        { cat cpack.log; fail "cpack failed"; }
    deb=$(ls "$WORK"/deb/*.deb 2> /dev/null | head -1)
    if [ -n "$deb" ]; then
        dpkg-deb -f "$deb" Depends | grep -q libz3 || fail "deb: no Z3 dependency"
        dpkg-deb -f "$deb" Depends | grep -q libcjson || fail "deb: no cJSON dependency"
        dpkg-deb -f "$deb" Depends | grep -q libgvc || fail "deb: no Graphviz dependency"
        dpkg-deb -c "$deb" > contents
        for f in ./usr/bin/isopredict ./usr/share/man/man1/isopredict.1 \
                 ./usr/share/bash-completion/completions/isopredict; do
            grep -q " $f\$" contents || fail "deb lacks $f"
        done
    else
        fail "cpack made no .deb"
    fi
fi

finish
