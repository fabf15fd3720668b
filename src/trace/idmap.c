/* idmap.c - numeric id -> index map for the text readers (see idmap.h). */
#include "idmap.h"
#include "trace.h"

#include <stdlib.h>

static uint32_t slot_of(uint64_t key, uint32_t cap)
{
    /* Fibonacci hashing: consecutive ids spread over the table */
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

uint32_t ip_idmap_get(const ip_idmap *m, uint64_t key)
{
    if (!m->cap)
        return IP_NONE;
    for (uint32_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->vals[i] == IP_NONE || m->keys[i] == key)
            return m->vals[i];
    }
}

static void insert(uint64_t *keys, uint32_t *vals, uint32_t cap,
                   uint64_t key, uint32_t val)
{
    uint32_t i = slot_of(key, cap);
    while (vals[i] != IP_NONE && keys[i] != key)
        i = (i + 1) & (cap - 1);
    keys[i] = key;
    vals[i] = val;
}

static bool grow(ip_idmap *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    if (cap < m->cap)
        return false;
    uint64_t *keys = malloc((size_t)cap * sizeof *keys);
    uint32_t *vals = malloc((size_t)cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return false;
    }
    for (uint32_t i = 0; i < cap; i++)
        vals[i] = IP_NONE;
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->vals[i] != IP_NONE)
            insert(keys, vals, cap, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return true;
}

bool ip_idmap_put(ip_idmap *m, uint64_t key, uint32_t val)
{
    if (2 * (m->n + 1) > m->cap && !grow(m))
        return false;
    uint32_t i = slot_of(key, m->cap);
    while (m->vals[i] != IP_NONE && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (m->vals[i] == IP_NONE)
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

void ip_idmap_free(ip_idmap *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->n = m->cap = 0;
}
