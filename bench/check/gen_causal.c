/*
 * gen_causal.c - seeded generator of causally consistent histories in
 * plume format, for benchmarking `isopredict check`.
 *
 * Model: a causal store.  Every transaction gets a global arbitration
 * number; each session sees a causally closed prefix of every session
 * (a vector of prefix lengths) and, before each transaction, merges what
 * one random other session had seen at its last commit.  A read returns
 * the arbitration-latest visible write of its key; values are unique per
 * key.  Such histories satisfy causal consistency (and so ra and rc), and
 * are usually not serializable.
 *
 * usage: gen_causal OPS SESSIONS SEED > history.plume
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define OPS_PER_TXN 8

typedef struct txn_info { uint32_t session, index; } txn_info;

typedef struct world {
    uint32_t k, n_keys;
    uint32_t *view;        /* k x k: view[s][s'] = prefix of s' s sees */
    uint32_t *last_view;   /* k x k: view of s at its last commit */
    uint32_t *n_done;      /* per session: committed txns */
    txn_info *txns;        /* by global txn id (arbitration order) */
    uint32_t **writers;    /* per key: txn ids writing it, ascending */
    uint32_t **values;     /* per key: value each of those wrote */
    uint32_t *n_writers, *cap_writers;
    uint32_t *next_value;  /* per key */
} world;

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fputs("gen_causal: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static int visible(const world *w, uint32_t s, uint32_t txn)
{
    const txn_info *t = &w->txns[txn];
    return t->index < w->view[(size_t)s * w->k + t->session];
}

/* Latest visible write of key: its value, 0 (initial) if none. */
static uint32_t read_value(const world *w, uint32_t s, uint32_t key)
{
    for (uint32_t i = w->n_writers[key]; i-- > 0;)
        if (visible(w, s, w->writers[key][i]))
            return w->values[key][i];
    return 0;
}

static void add_writer(world *w, uint32_t key, uint32_t txn, uint32_t value)
{
    if (w->n_writers[key] == w->cap_writers[key]) {
        uint32_t cap = w->cap_writers[key] ? 2 * w->cap_writers[key] : 8;
        w->writers[key] = realloc(w->writers[key], cap * sizeof(uint32_t));
        w->values[key] = realloc(w->values[key], cap * sizeof(uint32_t));
        if (!w->writers[key] || !w->values[key])
            exit(2);
        w->cap_writers[key] = cap;
    }
    w->writers[key][w->n_writers[key]] = txn;
    w->values[key][w->n_writers[key]++] = value;
}

/* Merge the view another session had at its last commit (closed). */
static void merge(world *w, uint32_t s, uint32_t from)
{
    uint32_t *v = w->view + (size_t)s * w->k;
    const uint32_t *o = w->last_view + (size_t)from * w->k;
    for (uint32_t i = 0; i < w->k; i++)
        if (o[i] > v[i])
            v[i] = o[i];
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: gen_causal OPS SESSIONS SEED\n", stderr);
        return 2;
    }
    uint64_t ops = strtoull(argv[1], NULL, 10);
    world w = {.k = (uint32_t)strtoul(argv[2], NULL, 10)};
    rng r = {strtoull(argv[3], NULL, 10) * 2654435761u + 1};
    if (ops == 0 || w.k == 0)
        return 2;
    uint32_t n_txns = (uint32_t)(ops / OPS_PER_TXN);
    w.n_keys = (uint32_t)(ops / 10 > 16 ? ops / 10 : 16);
    w.view = xmalloc((size_t)w.k * w.k * sizeof(uint32_t));
    w.last_view = xmalloc((size_t)w.k * w.k * sizeof(uint32_t));
    w.n_done = xmalloc(w.k * sizeof(uint32_t));
    w.txns = xmalloc((size_t)n_txns * sizeof *w.txns);
    w.writers = xmalloc(w.n_keys * sizeof(uint32_t *));
    w.values = xmalloc(w.n_keys * sizeof(uint32_t *));
    w.n_writers = xmalloc(w.n_keys * sizeof(uint32_t));
    w.cap_writers = xmalloc(w.n_keys * sizeof(uint32_t));
    w.next_value = xmalloc(w.n_keys * sizeof(uint32_t));
    for (uint32_t id = 0; id < n_txns; id++) {
        uint32_t s = next(&r, w.k);
        merge(&w, s, next(&r, w.k));
        w.txns[id] = (txn_info){s, w.n_done[s]};
        for (int o = 0; o < OPS_PER_TXN; o++) {
            /* a skewed key choice makes keys shared across sessions */
            uint32_t key = next(&r, 4) ? next(&r, w.n_keys / 16 + 1)
                                       : next(&r, w.n_keys);
            if (next(&r, 2)) {
                uint32_t v = ++w.next_value[key];
                add_writer(&w, key, id, v);
                printf("w(%u,%u,%u,%u)\n", key, v, s, id);
            } else {
                /* own earlier writes are visible: the txn sees itself */
                w.view[(size_t)s * w.k + s] = w.n_done[s] + 1;
                uint32_t v = read_value(&w, s, key);
                w.view[(size_t)s * w.k + s] = w.n_done[s];
                printf("r(%u,%u,%u,%u)\n", key, v, s, id);
            }
        }
        w.n_done[s]++;
        w.view[(size_t)s * w.k + s] = w.n_done[s];
        memcpy(w.last_view + (size_t)s * w.k, w.view + (size_t)s * w.k,
               w.k * sizeof(uint32_t));
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
