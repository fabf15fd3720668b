/* idmap.c - number -> index map of the readers and the builder (see
 * idmap.h). */
#include "idmap.h"
#include "trace.h"

#include <stdlib.h>

static uint32_t slot_of(uint64_t key, uint32_t cap)
{
    /* Fibonacci hashing: consecutive ids spread over the table */
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static ip_idmap_slot *find(const ip_idmap *m, uint64_t key)
{
    uint32_t mask = m->cap - 1;
    for (uint32_t i = slot_of(key, m->cap);; i = (i + 1) & mask) {
        ip_idmap_slot *s = &m->slots[i];
        if (s->val == IP_NONE || s->key == key)
            return s;
    }
}

uint32_t ip_idmap_get(const ip_idmap *m, uint64_t key)
{
    return m->cap ? find(m, key)->val : IP_NONE;
}

static bool grow(ip_idmap *m)
{
    ip_idmap old = *m;
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    if (cap < m->cap)
        return false;
    ip_idmap_slot *slots = ip_malloc_big((size_t)cap * sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < cap; i++)
        slots[i].val = IP_NONE;
    m->slots = slots;
    m->cap = cap;
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.slots[i].val != IP_NONE)
            *find(m, old.slots[i].key) = old.slots[i];
    free(old.slots);
    return true;
}

bool ip_idmap_put(ip_idmap *m, uint64_t key, uint32_t val)
{
    if (2 * (m->n + 1) > m->cap && !grow(m))
        return false;
    ip_idmap_slot *s = find(m, key);
    if (s->val == IP_NONE)
        m->n++;
    s->key = key;
    s->val = val;
    return true;
}

void ip_idmap_free(ip_idmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->n = m->cap = 0;
}
