/* idmap.c - number -> index map of the readers and the builder (see
 * idmap.h). */
#include "idmap.h"
#include "trace.h"

#include <stdlib.h>

enum { DENSE_MAX = 1 << 20 };

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
    if (key < m->n_dense)
        return m->dense[key];
    return m->cap ? find(m, key)->val : IP_NONE;
}

/* Rebuild the table at cap slots, moving keys below n_dense to dense. */
static bool rehash(ip_idmap *m, uint32_t cap)
{
    ip_idmap old = *m;
    ip_idmap_slot *slots = ip_malloc_big((size_t)cap * sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < cap; i++)
        slots[i].val = IP_NONE;
    m->slots = slots;
    m->cap = cap;
    m->n = 0;
    for (uint32_t i = 0; i < old.cap; i++) {
        ip_idmap_slot s = old.slots[i];
        if (s.val == IP_NONE)
            continue;
        if (s.key < m->n_dense) {
            m->dense[s.key] = s.val;
        } else {
            *find(m, s.key) = s;
            m->n++;
        }
    }
    free(old.slots);
    return true;
}

/* Cover keys below `need` with the direct array, when the keys are dense
 * enough (ids counting up from 0 or 1, small numeric keys) that it costs
 * no more than the hash table would. */
static bool grow_dense(ip_idmap *m, uint64_t need)
{
    uint32_t n = m->n_dense ? m->n_dense : 64;
    while (n < need)
        n *= 2;
    uint32_t *d = realloc(m->dense, (size_t)n * sizeof *d);
    if (!d)
        return false;
    for (uint32_t i = m->n_dense; i < n; i++)
        d[i] = IP_NONE;
    m->dense = d;
    m->n_dense = n;
    return m->cap == 0 || rehash(m, m->cap);
}

bool ip_idmap_put(ip_idmap *m, uint64_t key, uint32_t val)
{
    /* dense enough: at least one key in eight below the largest */
    if (key >= m->n_dense && key < DENSE_MAX &&
        key < 8 * (uint64_t)m->size + 1024 && !grow_dense(m, key + 1))
        return false;
    if (key < m->n_dense) {
        m->size += m->dense[key] == IP_NONE;
        m->dense[key] = val;
        return true;
    }
    if (2 * (m->n + 1) > m->cap && !rehash(m, m->cap ? 2 * m->cap : 64))
        return false;
    ip_idmap_slot *s = find(m, key);
    if (s->val == IP_NONE)
        m->n++, m->size++;
    s->key = key;
    s->val = val;
    return true;
}

void ip_idmap_free(ip_idmap *m)
{
    free(m->slots);
    free(m->dense);
    *m = (ip_idmap){0};
}
