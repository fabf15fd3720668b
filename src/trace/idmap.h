/*
 * idmap.h - map from the numeric ids of text formats (session and
 * transaction numbers, any uint64) to builder indices.  Internal to
 * src/trace.  Open addressing with linear probing; grows at half load, so
 * a lookup is a multiply and a few probes and never allocates.
 */
#ifndef ISOPREDICT_IDMAP_H
#define ISOPREDICT_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ip_idmap {
    uint64_t *keys;
    uint32_t *vals;           /* IP_NONE marks an empty slot */
    uint32_t n, cap;          /* cap: a power of two, or 0 */
} ip_idmap;

/* The value stored for key, or IP_NONE. */
uint32_t ip_idmap_get(const ip_idmap *m, uint64_t key);

/* Store key -> val (val != IP_NONE); false when out of memory. */
bool ip_idmap_put(ip_idmap *m, uint64_t key, uint32_t val);

void ip_idmap_free(ip_idmap *m);

#endif
