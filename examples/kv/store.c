/*
 * store.c - keys, transactions and the operation log of the store.
 */
#include "store_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool kv_grow(void **arr, uint32_t *cap, size_t elem, uint32_t need)
{
    if (need <= *cap)
        return true;
    uint32_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = ncap;
    return true;
}

bool kv_store_fail(kv_store *st, const char *fmt, ...)
{
    if (!st->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->err.msg, sizeof st->err.msg, fmt, ap);
        va_end(ap);
        st->failed = true;
    }
    return false;
}

bool kv_store_failed(const kv_store *st, kv_error *err)
{
    if (st->failed && err)
        *err = st->err;
    return st->failed;
}

kv_store *kv_store_new(uint32_t sessions, uint32_t max_txns, kv_error *err)
{
    if (sessions == 0 || max_txns == 0 || max_txns > 1u << 20 ||
        sessions > max_txns) {
        snprintf(err->msg, sizeof err->msg,
                 "store: need 1..%u sessions and at most 2^20 transactions",
                 max_txns);
        return NULL;
    }
    kv_store *st = calloc(1, sizeof *st);
    if (!st)
        goto oom;
    st->n_sessions = sessions;
    st->max_txns = max_txns;
    st->hb_words = (max_txns + 1 + 63) / 64;
    st->txns = calloc((size_t)max_txns + 1, sizeof *st->txns);
    st->txn_of = malloc((size_t)sessions * max_txns * sizeof *st->txn_of);
    st->last_committed = calloc(sessions, sizeof *st->last_committed);
    st->next_index = calloc(sessions, sizeof *st->next_index);
    st->n_slots = 256;
    st->slots = malloc(st->n_slots * sizeof *st->slots);
    if (!st->txns || !st->txn_of || !st->last_committed || !st->next_index ||
        !st->slots)
        goto oom;
    memset(st->txn_of, 0xff, (size_t)sessions * max_txns * sizeof *st->txn_of);
    memset(st->slots, 0xff, st->n_slots * sizeof *st->slots);
    st->txns[0] = (kv_txn){.st = st, .id = 0, .session = IP_NONE,
                           .status = TXN_COMMITTED};
    st->n_txns = 1;
    return st;
oom:
    kv_store_free(st);
    snprintf(err->msg, sizeof err->msg, "store: out of memory");
    return NULL;
}

void kv_store_free(kv_store *st)
{
    if (!st)
        return;
    for (uint32_t k = 0; k < st->n_keys; k++) {
        free(st->key_name[k]);
        free(st->versions[k].txn);
        free(st->versions[k].value);
    }
    for (uint32_t t = 0; st->txns && t < st->n_txns; t++)
        free(st->txns[t].wkeys);
    free(st->key_name);
    free(st->key_initial);
    free(st->versions);
    free(st->wmax);
    free(st->rmin);
    free(st->bmax);
    free(st->slots);
    free(st->txns);
    free(st->txn_of);
    free(st->last_committed);
    free(st->next_index);
    free(st->hb);
    free(st->ops);
    free(st->divs);
    free(st);
}

/* ---- keys ------------------------------------------------------------------ */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

uint32_t kv_key_find(const kv_store *st, const char *key)
{
    uint32_t mask = st->n_slots - 1;
    for (uint32_t i = name_hash(key) & mask;; i = (i + 1) & mask) {
        uint32_t k = st->slots[i];
        if (k == IP_NONE || strcmp(st->key_name[k], key) == 0)
            return k;
    }
}

static bool rehash(kv_store *st)
{
    uint32_t n = st->n_slots * 2;
    uint32_t *slots = malloc(n * sizeof *slots);
    if (!slots)
        return false;
    memset(slots, 0xff, n * sizeof *slots);
    for (uint32_t k = 0; k < st->n_keys; k++) {
        uint32_t i = name_hash(st->key_name[k]) & (n - 1);
        while (slots[i] != IP_NONE)
            i = (i + 1) & (n - 1);
        slots[i] = k;
    }
    free(st->slots);
    st->slots = slots;
    st->n_slots = n;
    return true;
}

static bool grow_keys(kv_store *st)
{
    uint32_t cap = st->cap_keys, need = st->n_keys + 1;
    if (need <= cap)
        return true;
    uint32_t c;
#define GROW_KEY_ARRAY(a)                                          \
    c = cap;                                                       \
    if (!kv_grow((void **)&st->a, &c, sizeof *st->a, need))        \
        return false;
    GROW_KEY_ARRAY(key_name)
    GROW_KEY_ARRAY(key_initial)
    GROW_KEY_ARRAY(versions)
    GROW_KEY_ARRAY(wmax)
    GROW_KEY_ARRAY(rmin)
    GROW_KEY_ARRAY(bmax)
#undef GROW_KEY_ARRAY
    st->cap_keys = c;
    return true;
}

uint32_t kv_key_id(kv_store *st, const char *key)
{
    uint32_t k = kv_key_find(st, key);
    if (k != IP_NONE)
        return k;
    if ((st->n_keys + 1) * 2 > st->n_slots && !rehash(st))
        return IP_NONE;
    if (!grow_keys(st))
        return IP_NONE;
    char *name = strdup(key);
    if (!name)
        return IP_NONE;
    k = st->n_keys++;
    st->key_name[k] = name;
    st->key_initial[k] = KV_ABSENT;
    st->versions[k] = (kv_versions){0};
    /* a key born inside a transaction has no writer but txn 0 yet */
    st->wmax[k] = 0;
    st->rmin[k] = IP_NONE;
    st->bmax[k] = 0;
    uint32_t i = name_hash(key) & (st->n_slots - 1);
    while (st->slots[i] != IP_NONE)
        i = (i + 1) & (st->n_slots - 1);
    st->slots[i] = k;
    return k;
}

bool kv_store_set_initial(kv_store *st, const char *key, kv_value v)
{
    uint32_t k = kv_key_id(st, key);
    if (k == IP_NONE)
        return kv_store_fail(st, "store: out of memory");
    st->key_initial[k] = v;
    return true;
}

kv_value kv_final(const kv_store *st, const char *key)
{
    uint32_t k = kv_key_find(st, key);
    if (k == IP_NONE)
        return KV_ABSENT;
    const kv_versions *v = &st->versions[k];
    return v->n ? v->value[v->n - 1] : st->key_initial[k];
}

/* ---- log ------------------------------------------------------------------- */

bool kv_push_op(kv_store *st, const kv_op *op)
{
    if (!kv_grow((void **)&st->ops, &st->cap_ops, sizeof *st->ops,
                 st->n_ops + 1))
        return kv_store_fail(st, "store: out of memory");
    st->ops[st->n_ops++] = *op;
    return true;
}

void kv_add_divergence(kv_store *st, const kv_divergence *d)
{
    if (!kv_grow((void **)&st->divs, &st->cap_divs, sizeof *st->divs,
                 st->n_divs + 1)) {
        kv_store_fail(st, "store: out of memory");
        return;
    }
    st->divs[st->n_divs++] = *d;
}

void kv_store_counts(const kv_store *st, kv_counts *out)
{
    *out = (kv_counts){.txns = st->n_txns - 1, .divergences = st->n_divs};
    for (uint32_t t = 1; t < st->n_txns; t++) {
        out->committed += st->txns[t].status == TXN_COMMITTED;
        out->aborted += st->txns[t].status == TXN_ABORTED;
    }
    for (uint32_t i = 0; i < st->n_ops; i++) {
        out->reads += st->ops[i].kind == IP_READ;
        out->writes += st->ops[i].kind == IP_WRITE;
    }
}

/* ---- names ------------------------------------------------------------------ */

void kv_session_name(uint32_t session, char *buf, size_t len)
{
    snprintf(buf, len, "s%u", session + 1);
}

void kv_txn_name(uint32_t session, uint32_t index, char *buf, size_t len)
{
    snprintf(buf, len, "s%u.%u", session + 1, index);
}

static bool parse_u32(const char **s, uint32_t *out)
{
    uint64_t v = 0;
    const char *p = *s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > UINT32_MAX)
            return false;
    }
    *s = p;
    *out = (uint32_t)v;
    return true;
}

bool kv_parse_txn_name(const char *name, uint32_t *session, uint32_t *index)
{
    const char *p = name;
    uint32_t s;
    if (*p++ != 's' || !parse_u32(&p, &s) || s == 0 || *p++ != '.' ||
        !parse_u32(&p, index) || *p)
        return false;
    *session = s - 1;
    return true;
}
