/*
 * pco.c - IsoPredict's partial commit order of a history (PLDI'24 4.2.2):
 * the least relation containing so and wr, closed under transitivity and
 * the two inference rules
 *   ww(o, w)  r reads k from w, o writes k, pco(o, r)
 *   rw(r, o)  r reads k from w, o writes k, pco(w, o)
 * (o not in {w, r}, o not the initial transaction).  Every serial order
 * contains it, so a cycle proves the history unserializable; no cycle
 * proves nothing (the approximation).
 *
 * Rows of bits over transaction ids; the closure is kept transitive as
 * edges are added, and the rules are applied in passes to a fixpoint.
 * O(n^3 / 64) for the first closure, O(n^2 / 64) per inferred edge.
 */
#include "validate.h"

#include <stdlib.h>
#include <string.h>

/* A history with more transactions would need over 50 MB of bits; the
 * predictor never builds such a history. */
#define PCO_MAX_TXNS 20000u

static uint64_t *row(const ip_pco *p, uint32_t a)
{
    return p->bits + (size_t)a * p->words;
}

static void set_bit(uint64_t *r, uint32_t b)
{
    r[b / 64] |= 1ull << (b % 64);
}

/* Add a -> b and keep the relation transitive: every x reaching a (and a
 * itself) now reaches b and everything b reaches. */
static void add_edge(ip_pco *p, uint32_t a, uint32_t b)
{
    uint64_t *rb = row(p, b);
    for (uint32_t x = 0; x < p->n; x++) {
        if (x != a && !ip_pco_before(p, x, a))
            continue;
        uint64_t *rx = row(p, x);
        for (uint32_t w = 0; w < p->words; w++)
            rx[w] |= rb[w];
        set_bit(rx, b);
    }
}

static void add_base(const ip_trace *t, ip_pco *p)
{
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        for (uint32_t a = se->txn_first; a < se->txn_first + se->txn_count; a++)
            for (uint32_t b = a + 1; ip_committed(t, a) &&
                 b < se->txn_first + se->txn_count; b++)
                if (ip_committed(t, b))
                    set_bit(row(p, a), b);
    }
    for (uint32_t x = 1; x < t->n_txns; x++)
        if (ip_committed(t, x))
            set_bit(row(p, IP_INIT_TXN), x);
    for (uint32_t e = 0; e < t->n_events; e++) {
        const ip_event *ev = &t->events[e];
        if (ev->kind == IP_READ && ip_committed(t, ev->txn) &&
            ev->writer != IP_NONE && ev->writer != ev->txn)
            set_bit(row(p, ev->writer), ev->txn);
    }
    /* transitive closure (Warshall over bit rows) */
    for (uint32_t k = 0; k < p->n; k++)
        for (uint32_t x = 0; x < p->n; x++)
            if (ip_pco_before(p, x, k)) {
                uint64_t *rx = row(p, x), *rk = row(p, k);
                for (uint32_t w = 0; w < p->words; w++)
                    rx[w] |= rk[w];
            }
}

/* One pass of the ww and rw rules; true if it added an edge. */
static bool infer_pass(const ip_trace *t, ip_pco *p)
{
    bool added = false;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const ip_event *ev = &t->events[e];
        uint32_t r = ev->txn, w = ev->writer;
        if (ev->kind != IP_READ || !ip_committed(t, r) || w == IP_NONE ||
            w == r)
            continue;
        for (uint32_t q = t->key_writer_first[ev->key];
             q < t->key_writer_first[ev->key + 1]; q++) {
            uint32_t o = t->key_writer[q];
            if (o == IP_INIT_TXN || o == w || o == r)
                continue;
            if (ip_pco_before(p, o, r) && !ip_pco_before(p, o, w)) {
                add_edge(p, o, w);
                added = true;
            }
            if (ip_pco_before(p, w, o) && !ip_pco_before(p, r, o)) {
                add_edge(p, r, o);
                added = true;
            }
        }
    }
    return added;
}

static bool has_cycle(const ip_pco *p)
{
    for (uint32_t x = 0; x < p->n; x++)
        if (ip_pco_before(p, x, x))
            return true;
    return false;
}

bool ip_pco_compute(const ip_trace *t, ip_pco *out, ip_error *err)
{
    memset(out, 0, sizeof *out);
    if (t->n_txns > PCO_MAX_TXNS)
        return ip_fail(err, "pco: %u transactions; at most %u are supported",
                       t->n_txns, PCO_MAX_TXNS);
    out->n = t->n_txns;
    out->words = (t->n_txns + 63) / 64;
    out->bits = calloc((size_t)out->n * out->words + 1, sizeof *out->bits);
    if (!out->bits)
        return ip_oom(err, "pco: out of memory");
    add_base(t, out);
    /* once cyclic, the answer cannot change: stop there */
    while (!(out->cyclic = has_cycle(out)) && infer_pass(t, out))
        ;
    return true;
}

void ip_pco_free(ip_pco *p)
{
    if (!p)
        return;
    free(p->bits);
    memset(p, 0, sizeof *p);
}
