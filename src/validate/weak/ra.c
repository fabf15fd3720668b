/*
 * ra.c - saturation for read atomic (AWDIT Algorithm 2).
 *
 * Axiom: t1 wr_x t3, t2 writes x, t2 (so u wr) t3, t1 != t2 => t2 co t1.
 * The so case needs only the so-latest writer of x before t3 (earlier ones
 * are so-before it); the wr case intersects the keys each writer of t3
 * wrote with the keys t3 read.  Repeatable reads (one writer per key and
 * reader) is implied by the axiom: a reader of x from both w1 and w2 forces
 * w1 co w2 and w2 co w1, and those two edges are what we record.
 */
#include "weak.h"

#include <stdlib.h>

typedef struct ra_scratch {
    uint32_t *last_write;  /* per key: latest committed writer so far */
    uint32_t *rd_stamp;    /* per key: reader that set rd_writer */
    uint32_t *rd_writer;   /* per key: the (first) writer t3 read it from */
    uint32_t *rd_keys;     /* keys t3 read */
    uint32_t *seen;        /* per txn: reader that visited it as a writer */
} ra_scratch;

static bool push_co(const ip_trace *t, wk_edges *g, uint32_t t2, uint32_t t1,
                    uint32_t x, uint32_t t3)
{
    if (t2 == t1 || t2 == IP_INIT_TXN || ip_so(t, t2, t1))
        return true;          /* implied by so */
    return wk_push(g, t2, t1, IP_EDGE_CO, x, t3);
}

/* Record the keys t3 reads and their writers; report non-repeatable
 * reads as two opposite edges.  Returns the number of keys, or IP_NONE. */
static uint32_t collect_reads(const ip_trace *t, uint32_t t3, ra_scratch *s,
                              wk_edges *g)
{
    const ip_txn *tx = &t->txns[t3];
    uint32_t n = 0;
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++) {
        const ip_event *ev = &t->events[e];
        if (!wk_read_event(t, ev))
            continue;
        uint32_t x = ev->key, w = ev->writer;
        if (s->rd_stamp[x] != t3) {
            s->rd_stamp[x] = t3;
            s->rd_writer[x] = w;
            s->rd_keys[n++] = x;
        } else if (s->rd_writer[x] != w) {
            if (!push_co(t, g, s->rd_writer[x], w, x, t3) ||
                !push_co(t, g, w, s->rd_writer[x], x, t3))
                return IP_NONE;
        }
    }
    return n;
}

/* so case: the latest earlier writer of x in t3's session. */
static bool infer_so(const ip_trace *t, uint32_t t3, const ra_scratch *s,
                     uint32_t n_keys, wk_edges *g)
{
    uint32_t sess = t->txns[t3].session;
    for (uint32_t i = 0; i < n_keys; i++) {
        uint32_t x = s->rd_keys[i], t2 = s->last_write[x];
        if (t2 != IP_NONE && t->txns[t2].session == sess &&
            !push_co(t, g, t2, s->rd_writer[x], x, t3))
            return false;
    }
    return true;
}

/* wr case: KeysWt(t2) n KeysRd(t3) for every writer t2 of t3. */
static bool infer_wr(const ip_trace *t, uint32_t t3, ra_scratch *s,
                     uint32_t n_keys, wk_edges *g)
{
    const ip_txn *tx = &t->txns[t3];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++) {
        const ip_event *ev = &t->events[e];
        if (!wk_read_event(t, ev) || ev->writer == IP_INIT_TXN ||
            s->seen[ev->writer] == t3)
            continue;
        uint32_t t2 = ev->writer;
        s->seen[t2] = t3;
        const ip_txn *w = &t->txns[t2];
        if (w->wkey_count <= n_keys) {
            for (uint32_t i = w->wkey_first;
                 i < w->wkey_first + w->wkey_count; i++) {
                uint32_t x = t->wkeys[i];
                if (s->rd_stamp[x] == t3 &&
                    !push_co(t, g, t2, s->rd_writer[x], x, t3))
                    return false;
            }
            continue;
        }
        for (uint32_t i = 0; i < n_keys; i++) {
            uint32_t x = s->rd_keys[i];
            if (ip_write_event(t, t2, x) != IP_NONE &&
                !push_co(t, g, t2, s->rd_writer[x], x, t3))
                return false;
        }
    }
    return true;
}

static bool saturate_reader(const ip_trace *t, uint32_t t3, ra_scratch *s,
                            wk_edges *g)
{
    uint32_t n = collect_reads(t, t3, s, g);
    if (n == IP_NONE || !infer_so(t, t3, s, n, g) || !infer_wr(t, t3, s, n, g))
        return false;
    const ip_txn *tx = &t->txns[t3];
    for (uint32_t i = tx->wkey_first; i < tx->wkey_first + tx->wkey_count; i++)
        s->last_write[t->wkeys[i]] = t3;
    return true;
}

bool wk_saturate_ra(const ip_trace *t, wk_edges *g)
{
    size_t nk = (size_t)t->n_keys + 1;
    ra_scratch s = {
        .last_write = malloc(nk * sizeof(uint32_t)),
        .rd_stamp = malloc(nk * sizeof(uint32_t)),
        .rd_writer = malloc(nk * sizeof(uint32_t)),
        .rd_keys = malloc(nk * sizeof(uint32_t)),
        .seen = malloc(t->n_txns * sizeof(uint32_t)),
    };
    bool ok = s.last_write && s.rd_stamp && s.rd_writer && s.rd_keys && s.seen;
    if (ok) {
        for (size_t k = 0; k < nk; k++)
            s.last_write[k] = s.rd_stamp[k] = IP_NONE;
        for (uint32_t i = 0; i < t->n_txns; i++)
            s.seen[i] = IP_NONE;
    }
    /* txn ids run session by session in so order */
    for (uint32_t t3 = 1; ok && t3 < t->n_txns; t3++)
        if (ip_committed(t, t3))
            ok = saturate_reader(t, t3, &s, g);
    free(s.last_write);
    free(s.rd_stamp);
    free(s.rd_writer);
    free(s.rd_keys);
    free(s.seen);
    return ok;
}
