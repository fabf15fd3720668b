/*
 * fuzz_bytes.h - reading a libFuzzer input as a stream of small choices,
 * for the harnesses that decode histories (fuzz_levels, fuzz_predict).
 * Past the end every choice is 0, so any input decodes.
 */
#ifndef FUZZ_BYTES_H
#define FUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_bytes {
    const uint8_t *p;
    size_t n, i;
} fuzz_bytes;

/* The next byte modulo `mod` (mod > 0). */
static inline unsigned fuzz_take(fuzz_bytes *b, unsigned mod)
{
    return b->i < b->n ? b->p[b->i++] % mod : 0;
}

/* The keys of the decoded histories. */
static const char *const FUZZ_KEYS[] = { "x", "y", "z" };

#endif
