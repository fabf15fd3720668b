/* rng.h - the benchmarks' generators' random numbers: xorshift64, seeded,
 * the same sequence on every machine (a header of static functions: each
 * generator is one file compiled on its own by bench/lib.sh). */
#ifndef ISOPREDICT_BENCH_RNG_H
#define ISOPREDICT_BENCH_RNG_H

#include <stdint.h>

typedef struct rng { uint64_t s; } rng;

/* A number in [0, bound). */
static inline uint32_t next(rng *r, uint32_t bound)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s % bound);
}

#endif
