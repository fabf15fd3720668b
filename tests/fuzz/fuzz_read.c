/*
 * fuzz_read.c - libFuzzer harness for the trace readers.  The first byte
 * selects the format (auto, json, isopredict-text, plume, awdit-test,
 * dbcop, cobra, elle) and
 * the mode (strict, lenient); the rest is the input.  Built only with
 * Clang and -DIP_FUZZ=ON (the library gets coverage instrumentation):
 *   CC=clang cmake -S . -B build-fuzz -DIP_FUZZ=ON -DIP_SANITIZE=ON
 *   cmake --build build-fuzz --target fuzz_read
 * Seed inputs need the selector byte in front, e.g. for plume (3):
 *   mkdir in; printf '\003' | cat - tests/fuzz/seeds/small.plume > in/a
 *   build-fuzz/tests/fuzz/fuzz_read -max_total_time=120 -max_len=4096 in
 * (1 json, 2 isopredict-text, 3 plume, 4 awdit-test, 5 dbcop, 6 cobra
 * (the next byte: how many logs the rest is cut into), 7 elle, 0 auto;
 * +128 for lenient).  Keep crashing inputs in regress/ (mutate_test replays them
 * with and without their first byte).  Built with -DFUZZ_FORMAT=N it reads
 * format N only (fuzz_read_json, _text, _plume, _awdit, _dbcop, _cobra,
 * _elle): the first byte
 * then selects the mode alone.
 */
#include "fuzz_check.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const ip_format fmts[] = {IP_FMT_AUTO, IP_FMT_JSON,
                                     IP_FMT_ISOPREDICT_TEXT, IP_FMT_PLUME,
                                     IP_FMT_AWDIT_TEST, IP_FMT_DBCOP,
                                     IP_FMT_COBRA, IP_FMT_ELLE};
#ifdef FUZZ_FORMAT            /* one reader per binary (bench/fuzz) */
    ip_format fmt = fmts[FUZZ_FORMAT];
#else
    ip_format fmt = fmts[data[0] % 8];
#endif
    ip_mode mode = data[0] & 0x80 ? IP_LENIENT : IP_STRICT;
    char why[600];
    if (!fuzz_check("fuzz", (const char *)data + 1, size - 1, fmt, mode,
                    why, sizeof why)) {
        fprintf(stderr, "property violated (%s, %s): %s\n",
                ip_format_name(fmt), mode ? "lenient" : "strict", why);
        abort();
    }
    return 0;
}
