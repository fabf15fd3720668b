/*
 * idmap.h - map from 64-bit numbers (session and transaction numbers of
 * the text formats, numeric keys and values) to 32-bit indices.  Internal
 * to src/trace.  Small numbers that come densely (ids counting from 0,
 * keys numbered 1..n) are held in a direct array, up to 2^20 of them; the
 * others by open addressing with linear probing over slots that hold the
 * number and its index side by side, so a lookup is a multiply and,
 * mostly, one cache line.  The table grows at half load; a lookup never
 * allocates.
 */
#ifndef ISOPREDICT_IDMAP_H
#define ISOPREDICT_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ip_idmap_slot {
    uint64_t key;
    uint32_t val;             /* IP_NONE marks an empty slot */
} ip_idmap_slot;

typedef struct ip_idmap {
    uint32_t *dense;          /* keys below n_dense: a direct array */
    uint32_t n_dense;
    ip_idmap_slot *slots;     /* the other keys */
    uint32_t n, cap;          /* cap: a power of two, or 0 */
    uint32_t size;            /* keys stored, in both */
} ip_idmap;

/* The value stored for key, or IP_NONE. */
uint32_t ip_idmap_get(const ip_idmap *m, uint64_t key);

/* Store key -> val (val != IP_NONE); false when out of memory. */
bool ip_idmap_put(ip_idmap *m, uint64_t key, uint32_t val);

void ip_idmap_free(ip_idmap *m);

#endif
