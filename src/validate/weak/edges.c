/* edges.c - the edge list of co' and its so u wr base. */
#include "weak.h"

#include <stdlib.h>

bool wk_push(wk_edges *g, uint32_t from, uint32_t to, ip_edge_kind kind,
             uint32_t key, uint32_t via)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 1024;
        ip_edge *e = realloc(g->e, cap * sizeof *e);
        if (!e)
            return false;
        g->e = e;
        g->cap = cap;
    }
    g->e[g->n++] = (ip_edge){.from = from, .to = to, .kind = (uint8_t)kind,
                             .key = key, .via = via, .forced = 0};
    return true;
}

void wk_edges_free(wk_edges *g)
{
    free(g->e);
    *g = (wk_edges){0};
}

static bool add_so(const ip_trace *t, wk_edges *g)
{
    for (uint32_t x = 1; x < t->n_txns; x++) {   /* session by session */
        if (!ip_committed(t, x))
            continue;
        uint32_t p = ip_prev_committed(t, x);
        if (!wk_push(g, p == IP_NONE ? IP_INIT_TXN : p, x, IP_EDGE_SO,
                     IP_NONE, IP_NONE))
            return false;
    }
    return true;
}

/* wr edges from txn 0 are implied by so and left out. */
static bool add_wr(const ip_trace *t, wk_edges *g, uint32_t *seen)
{
    for (uint32_t x = 1; x < t->n_txns; x++) {
        if (!ip_committed(t, x))
            continue;
        const ip_txn *tx = &t->txns[x];
        for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++) {
            const ip_event *ev = &t->events[e];
            if (wk_new_writer(t, ev, x, seen) &&
                !wk_push(g, ev->writer, x, IP_EDGE_WR, ev->key, IP_NONE))
                return false;
        }
    }
    return true;
}

bool wk_add_so_wr(const ip_trace *t, wk_edges *g)
{
    uint32_t *seen = calloc(t->n_txns, sizeof *seen);
    bool ok = seen && add_so(t, g) && add_wr(t, g, seen);
    free(seen);
    return ok;
}

bool wk_add_versions(const ip_trace *t, wk_edges *g)
{
    if (!ip_trace_has_versions(t))
        return true;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        uint32_t first = t->key_order_first[k], end = t->key_order_first[k + 1];
        for (uint32_t i = first; i + 1 < end; i++)
            if (!wk_push(g, t->key_order[i], t->key_order[i + 1], IP_EDGE_WW,
                         k, IP_NONE))
                return false;
        for (uint32_t i = t->key_writer_first[k];
             first < end && i < t->key_writer_first[k + 1]; i++)
            if (t->key_writer[i] != IP_INIT_TXN &&
                t->key_order_pos[i] == IP_NONE &&
                !wk_push(g, t->key_order[end - 1], t->key_writer[i],
                         IP_EDGE_WW, k, IP_NONE))
                return false;
    }
    for (size_t i = 0; i < g->n; i++)
        g->e[i].forced = g->e[i].kind == IP_EDGE_WW;
    return true;
}
