# bench/lib.sh - what the benchmark scripts share (POSIX sh).  A script sets
# `root` (the source tree) and sources it:
#
#     root=$(cd "$(dirname "$0")/../.." && pwd)
#     . "$root/bench/lib.sh"

# bench_build DIR: a Release isopredict in DIR; sets bin.
# -Wno-error=format-truncation: src/trace/formats/json/read_json.c trips
# it at -O3.
bench_build() {
    cmake -S "$root" -B "$1" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS=-Wno-error=format-truncation >/dev/null
    cmake --build "$1" -j2 --target isopredict >/dev/null
    bin="$1/src/cli/isopredict"
}

# bench_work NAME: the scratch directory $TMPDIR/isopredict-bench-NAME,
# kept between runs (generated inputs are reused); sets work.
bench_work() {
    work=${TMPDIR:-/tmp}/isopredict-bench-$1
    mkdir -p "$work"
}

# bench_generator NAME: bench/*/NAME.c compiled into $work/NAME.
bench_generator() {
    cc -O2 -std=c11 -I"$root/bench" -o "$work/$1" "$root"/bench/*/"$1.c"
}

# median: the median of the numbers on stdin, one a line (the lower of the
# two middle ones for an even count).
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
