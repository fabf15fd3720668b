/*
 * rc.c - saturation for read committed (AWDIT Algorithm 1).
 *
 * Axiom: t3 reads from t2 at r, later reads x from t1 != t2, t2 writes x
 * => t2 co t1.  Per reader t3, only the first read from each writer t2 can
 * produce edges (later ones give a subset), and only toward the po-earliest
 * other writer of x after it: further writers are ordered after that one
 * by the same axiom applied at its own read.  Reads are walked backwards
 * keeping, per key, the two earliest distinct writers read from below.
 */
#include "weak.h"

#include <stdlib.h>

typedef struct rc_scratch {
    uint32_t *first_of;   /* per txn: reader whose first read we marked */
    uint8_t *is_first;    /* per event: first read of its writer */
    uint32_t *ew_stamp;   /* per key: reader that set e0/e1 */
    uint32_t *e0, *e1;    /* per key: second earliest and earliest writer */
    uint32_t *read_keys;  /* keys read below the current read */
} rc_scratch;

static void mark_first_reads(const ip_trace *t, uint32_t t3, rc_scratch *s)
{
    const ip_txn *tx = &t->txns[t3];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++) {
        const ip_event *ev = &t->events[e];
        s->is_first[e] = 0;
        if (wk_read_event(t, ev) && s->first_of[ev->writer] != t3) {
            s->first_of[ev->writer] = t3;
            s->is_first[e] = 1;
        }
    }
}

static bool infer(const ip_trace *t, uint32_t t3, uint32_t t2, uint32_t x,
                  const rc_scratch *s, wk_edges *g)
{
    uint32_t t1 = s->e1[x] == t2 ? s->e0[x] : s->e1[x];
    if (t1 == IP_NONE || ip_so(t, t2, t1))
        return true;
    return wk_push(g, t2, t1, IP_EDGE_CO, x, t3);
}

/* KeysWt(t2) n readKeys, iterating the smaller side. */
static bool infer_from(const ip_trace *t, uint32_t t3, uint32_t t2,
                       uint32_t n_read_keys, const rc_scratch *s, wk_edges *g)
{
    const ip_txn *w = &t->txns[t2];
    if (w->wkey_count <= n_read_keys) {
        for (uint32_t i = w->wkey_first; i < w->wkey_first + w->wkey_count;
             i++) {
            uint32_t x = t->wkeys[i];
            if (s->ew_stamp[x] == t3 && !infer(t, t3, t2, x, s, g))
                return false;
        }
        return true;
    }
    for (uint32_t i = 0; i < n_read_keys; i++) {
        uint32_t x = s->read_keys[i];
        if (ip_write_event(t, t2, x) != IP_NONE && !infer(t, t3, t2, x, s, g))
            return false;
    }
    return true;
}

static bool saturate_reader(const ip_trace *t, uint32_t t3, rc_scratch *s,
                            wk_edges *g)
{
    mark_first_reads(t, t3, s);
    const ip_txn *tx = &t->txns[t3];
    uint32_t n_read_keys = 0;
    for (uint32_t e = tx->ev_first + tx->ev_count; e-- > tx->ev_first;) {
        const ip_event *ev = &t->events[e];
        if (!wk_read_event(t, ev))
            continue;
        uint32_t t2 = ev->writer, y = ev->key;
        if (s->is_first[e] && t2 != IP_INIT_TXN &&
            !infer_from(t, t3, t2, n_read_keys, s, g))
            return false;
        if (s->ew_stamp[y] != t3) {
            s->ew_stamp[y] = t3;
            s->e0[y] = s->e1[y] = IP_NONE;
            s->read_keys[n_read_keys++] = y;
        }
        if (s->e1[y] != t2) {
            s->e0[y] = s->e1[y];
            s->e1[y] = t2;
        }
    }
    return true;
}

bool wk_saturate_rc(const ip_trace *t, wk_edges *g)
{
    rc_scratch s = {
        .first_of = malloc(t->n_txns * sizeof(uint32_t)),
        .is_first = malloc(t->n_events + 1),
        .ew_stamp = malloc((t->n_keys + 1) * sizeof(uint32_t)),
        .e0 = malloc((t->n_keys + 1) * sizeof(uint32_t)),
        .e1 = malloc((t->n_keys + 1) * sizeof(uint32_t)),
        .read_keys = malloc((t->n_keys + 1) * sizeof(uint32_t)),
    };
    bool ok = s.first_of && s.is_first && s.ew_stamp && s.e0 && s.e1 &&
              s.read_keys;
    if (ok) {
        for (uint32_t i = 0; i < t->n_txns; i++)
            s.first_of[i] = IP_NONE;
        for (uint32_t k = 0; k < t->n_keys; k++)
            s.ew_stamp[k] = IP_NONE;
    }
    for (uint32_t t3 = 1; ok && t3 < t->n_txns; t3++)
        if (ip_committed(t, t3))
            ok = saturate_reader(t, t3, &s, g);
    free(s.first_of);
    free(s.is_first);
    free(s.ew_stamp);
    free(s.e0);
    free(s.e1);
    free(s.read_keys);
    return ok;
}
