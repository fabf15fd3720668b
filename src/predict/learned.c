/*
 * learned.c - one window's learned constraints, recorded and replayed
 * (learned.h).  One flat array of words: a tag, a count, then the
 * payload (a fact is three words).
 */
#include "learned.h"

#include <stdlib.h>

enum { TAG_ORDER, TAG_FORBID, TAG_BLOCK };

struct learned {
    uint32_t *w;
    uint32_t n, cap;
    bool eager;               /* the window switched to eager weak isolation */
};

learned *learned_new(void)
{
    return calloc(1, sizeof(learned));
}

void learned_free(learned *l)
{
    if (l)
        free(l->w);
    free(l);
}

/* Room for `more` words; false when out of memory. */
static bool reserve(learned *l, uint64_t more)
{
    if ((uint64_t)l->n + more > UINT32_MAX)
        return false;
    while (l->n + more > l->cap)
        if (!ip_grow((void **)&l->w, &l->cap, sizeof *l->w))
            return false;
    return true;
}

static bool record(learned *l, uint32_t tag, const uint32_t *a, uint32_t n)
{
    if (!reserve(l, 2 + (uint64_t)n))
        return false;
    l->w[l->n++] = tag;
    l->w[l->n++] = n;
    for (uint32_t i = 0; i < n; i++)
        l->w[l->n++] = a[i];
    return true;
}

bool learned_order(learned *l, const uint32_t *order, uint32_t n)
{
    return record(l, TAG_ORDER, order, n);
}

bool learned_block(learned *l, const uint32_t *changed, uint32_t n)
{
    return record(l, TAG_BLOCK, changed, n);
}

bool learned_forbid(learned *l, const ip_fact *f, uint32_t n)
{
    if (!reserve(l, 2 + 3 * (uint64_t)n))
        return false;
    l->w[l->n++] = TAG_FORBID;
    l->w[l->n++] = n;
    for (uint32_t i = 0; i < n; i++) {
        l->w[l->n++] = f[i].kind;
        l->w[l->n++] = f[i].a;
        l->w[l->n++] = f[i].b;
    }
    return true;
}

/* Forbid the n facts recorded at `at` (three words each). */
static bool forbid_at(const uint32_t *at, uint32_t n, ip_encoder *enc,
                      ip_error *err)
{
    ip_fact *f = malloc(((size_t)n + 1) * sizeof *f);
    if (!f)
        return ip_oom(err, "prediction: out of memory");
    for (uint32_t i = 0; i < n; i++)
        f[i] = (ip_fact){.kind = (uint8_t)at[3 * i], .a = at[3 * i + 1],
                         .b = at[3 * i + 2]};
    bool ok = ip_encoder_forbid(enc, f, n, err);
    free(f);
    return ok;
}

void learned_set_eager(learned *l)
{
    if (l)
        l->eager = true;
}

bool learned_eager(const learned *l)
{
    return l && l->eager;
}

bool learned_replay(const learned *l, ip_encoder *enc, uint32_t *n,
                    ip_error *err)
{
    *n = 0;
    for (uint32_t i = 0; l && i < l->n; (*n)++) {
        uint32_t tag = l->w[i], k = l->w[i + 1];
        const uint32_t *at = l->w + i + 2;
        bool ok = tag == TAG_ORDER    ? ip_encoder_refute_order(enc, at, k, err)
                  : tag == TAG_BLOCK  ? ip_encoder_block(enc, at, k, err)
                                      : forbid_at(at, k, enc, err);
        if (!ok)
            return false;
        i += 2 + (tag == TAG_FORBID ? 3 * k : k);
    }
    return true;
}
