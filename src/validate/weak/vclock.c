/*
 * vclock.c - happens-before (so u wr)+ as vector clocks over sessions.
 *
 * Txn ids of a session are contiguous and increase along so, so a clock
 * entry can be a txn id: vc[t][s] = the so-latest txn of s that happens
 * before t (or t itself), 0 for none (txn 0 is in no session).  Join is an
 * element-wise max.  O(k) per wr edge.
 */
#include "weak.h"

#include <stdlib.h>
#include <string.h>

static void join(uint32_t *dst, const uint32_t *src, uint32_t k)
{
    for (uint32_t s = 0; s < k; s++)
        if (src[s] > dst[s])
            dst[s] = src[s];
}

uint32_t *wk_vector_clocks(const ip_trace *t, const uint32_t *topo,
                           uint32_t n_topo)
{
    size_t k = t->n_sessions ? t->n_sessions : 1;
    uint32_t *vc = calloc((size_t)t->n_txns * k, sizeof *vc);
    uint32_t *seen = malloc(t->n_txns * sizeof *seen);
    if (!vc || !seen) {
        free(vc);
        free(seen);
        return NULL;
    }
    for (uint32_t i = 0; i < t->n_txns; i++)
        seen[i] = IP_NONE;
    for (uint32_t i = 0; i < n_topo; i++) {
        uint32_t x = topo[i];
        if (x == IP_INIT_TXN)
            continue;
        uint32_t *row = vc + (size_t)x * k;
        uint32_t p = ip_prev_committed(t, x);
        if (p != IP_NONE)
            memcpy(row, vc + (size_t)p * k, k * sizeof *row);
        const ip_txn *tx = &t->txns[x];
        for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++) {
            const ip_event *ev = &t->events[e];
            if (!wk_read_event(t, ev) || ev->writer == IP_INIT_TXN ||
                seen[ev->writer] == x)
                continue;
            seen[ev->writer] = x;
            join(row, vc + (size_t)ev->writer * k, (uint32_t)k);
        }
        row[tx->session] = x;
    }
    free(seen);
    return vc;
}
