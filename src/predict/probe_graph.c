/*
 * probe_graph.c - the observed dependency graph, and what it tells of a
 * probe before any history is built (probe_graph.h).
 *
 * Under a serial order's version order every edge of the observed graph
 * points forward, and so does every edge a single changed read keeps; the
 * change adds one backward edge at most: rw from its reader to the first
 * writer after the one it now reads, or wr from a writer after its
 * reader.  The probe's history is unserializable only if that edge closes
 * a cycle (a graph acyclic under one version order has a serial order),
 * so only if the observed graph, less the changed read's own edges, leads
 * back from the edge's head to its tail.  The observed graph holds every
 * edge of the probe's history, or a path for it (a ww or rw edge over a
 * write the history leaves out becomes a path through that write), so a
 * probe with a cycle is never judged without one.  The walks are linear
 * in the graph; a window's has a few hundred edges.
 */
#include "probe_graph.h"

#include <stdlib.h>
#include <string.h>

void dep_graph_free(dep_graph *g)
{
    free(g->pos);
    free(g->kw_first);
    free(g->kw);
    free(g->first);
    free(g->edge);
    free(g->stack);
    free(g->seen);
}

/* The first writer of key k after the writer at place p that is not x,
 * or IP_NONE. */
static uint32_t writer_after(const dep_graph *g, uint32_t k, uint32_t p,
                             uint32_t x)
{
    for (uint32_t i = g->kw_first[k]; i < g->kw_first[k + 1]; i++)
        if (g->pos[g->kw[i]] > p && g->kw[i] != x)
            return g->kw[i];
    return IP_NONE;
}

/* Each key's writers ordered by place (insertion sort: a window's keys
 * have few writers, and key_writer is already by txn id, which the
 * order mostly follows). */
static void sort_writers(dep_graph *g)
{
    for (uint32_t k = 0; k < g->t->n_keys; k++)
        for (uint32_t i = g->kw_first[k] + 1; i < g->kw_first[k + 1]; i++)
            for (uint32_t j = i; j > g->kw_first[k] &&
                                 g->pos[g->kw[j - 1]] > g->pos[g->kw[j]];
                 j--) {
                uint32_t tmp = g->kw[j];
                g->kw[j] = g->kw[j - 1];
                g->kw[j - 1] = tmp;
            }
}

/* Every edge of the observed graph: counted into first[] or, with place,
 * put at fill[from]. */
static void each_edge(dep_graph *g, bool place, uint32_t *fill)
{
    const ip_trace *t = g->t;
#define EDGE(a, b, r, h)                                                  \
    do {                                                                  \
        if (place)                                                        \
            g->edge[fill[a]++] = (dep_edge){(b), (r), (h)};               \
        else                                                              \
            g->first[(a) + 1]++;                                          \
    } while (0)
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        uint32_t prev = IP_NONE;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            if (g->pos[x] == IP_NONE)
                continue;
            if (prev != IP_NONE)
                EDGE(prev, x, IP_NONE, true);
            prev = x;
        }
    }
    for (uint32_t k = 0; k < t->n_keys; k++)
        for (uint32_t i = g->kw_first[k] + 1; i < g->kw_first[k + 1]; i++)
            EDGE(g->kw[i - 1], g->kw[i], IP_NONE, false);
    for (uint32_t e = 0; e < t->n_events; e++) {
        const ip_event *ev = &t->events[e];
        uint32_t w = ev->writer;
        if (ev->kind != IP_READ || g->pos[ev->txn] == IP_NONE ||
            w == IP_NONE || g->pos[w] == IP_NONE)
            continue;
        EDGE(w, ev->txn, e, true);
        uint32_t x = writer_after(g, ev->key, g->pos[w], ev->txn);
        if (x != IP_NONE)
            EDGE(ev->txn, x, e, false);
    }
#undef EDGE
}

bool dep_graph_build(dep_graph *g, const ip_trace *t, const uint32_t *order,
                     uint32_t n)
{
    memset(g, 0, sizeof *g);
    g->t = t;
    size_t nt = (size_t)t->n_txns + 1;
    g->pos = malloc(nt * sizeof *g->pos);
    g->kw_first = calloc((size_t)t->n_keys + 1, sizeof *g->kw_first);
    g->first = calloc(nt + 1, sizeof *g->first);
    g->stack = malloc(nt * sizeof *g->stack);
    g->seen = malloc(nt);
    if (!g->pos || !g->kw_first || !g->first || !g->stack || !g->seen)
        return false;
    for (uint32_t x = 0; x < t->n_txns; x++)
        g->pos[x] = x == IP_INIT_TXN ? 0 : IP_NONE;
    for (uint32_t i = 0; i < n; i++)
        if (order[i] < t->n_txns && order[i] != IP_INIT_TXN)
            g->pos[order[i]] = i + 1;
    uint32_t m = 0;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        g->kw_first[k] = m;
        for (uint32_t q = t->key_writer_first[k];
             q < t->key_writer_first[k + 1]; q++)
            m += g->pos[t->key_writer[q]] != IP_NONE;
    }
    g->kw_first[t->n_keys] = m;
    if (!(g->kw = malloc(((size_t)m + 1) * sizeof *g->kw)))
        return false;
    for (uint32_t k = 0, j = 0; k < t->n_keys; k++)
        for (uint32_t q = t->key_writer_first[k];
             q < t->key_writer_first[k + 1]; q++)
            if (g->pos[t->key_writer[q]] != IP_NONE)
                g->kw[j++] = t->key_writer[q];
    sort_writers(g);
    each_edge(g, false, NULL);
    for (uint32_t x = 0; x < t->n_txns; x++)
        g->first[x + 1] += g->first[x];
    uint32_t *fill = malloc(nt * sizeof *fill);
    g->edge = malloc(((size_t)g->first[t->n_txns] + 1) * sizeof *g->edge);
    if (!fill || !g->edge) {
        free(fill);
        return false;
    }
    memcpy(fill, g->first, (nt - 1) * sizeof *fill);
    each_edge(g, true, fill);
    free(fill);
    return true;
}

/* Does a path lead from `from` to `to` without the edges of read event
 * `read`, through no transaction marked in `out` (NULL: none), and with
 * hb only along so and wr?  Edges point forward, so places past `to` are
 * not walked. */
static bool leads(dep_graph *g, uint32_t from, uint32_t to, uint32_t read,
                  const uint8_t *out, bool hb)
{
    uint32_t limit = g->pos[to], n = 0;
    memset(g->seen, 0, g->t->n_txns);
    g->stack[n++] = from;
    g->seen[from] = 1;
    while (n > 0) {
        uint32_t x = g->stack[--n];
        if (x == to)
            return true;
        for (uint32_t i = g->first[x]; i < g->first[x + 1]; i++) {
            const dep_edge *d = &g->edge[i];
            if (d->read == read || g->seen[d->to] || g->pos[d->to] > limit ||
                (hb && !d->hb) || (out && out[d->to]))
                continue;
            g->seen[d->to] = 1;
            g->stack[n++] = d->to;
        }
    }
    return false;
}

probe_verdict dep_graph_cycle(dep_graph *g, uint32_t e, uint32_t w)
{
    const ip_event *ev = &g->t->events[e];
    uint32_t r = ev->txn;
    if (g->pos[w] == IP_NONE || g->pos[r] == IP_NONE)
        return PROBE_TRY;             /* no order to judge by */
    bool cycle;
    if (g->pos[w] > g->pos[r]) {      /* wr from a later writer */
        cycle = leads(g, r, w, e, NULL, false);
    } else {
        uint32_t x = writer_after(g, ev->key, g->pos[w], r);
        cycle = x != IP_NONE && g->pos[x] < g->pos[r] &&
                leads(g, x, r, e, NULL, false);
    }
    return cycle ? PROBE_TRY : PROBE_NO_CYCLE;
}

/* ---- what the confirmation would reject anyway ------------------------
 * Both claims rest on paths through transactions the probe has: for
 * legality, those inside the boundaries (not out[]); for the model, those
 * before the reader in the order when no other session was cut (out[]
 * then holds only the reader's later transactions, and nothing before
 * the reader happens after it, so all of them are kept). */

/* Relaxed legality: read e of r now reads from w, after r in the order,
 * and r happens before w inside the boundary: hb is cyclic. */
static bool surely_illegal(dep_graph *g, uint32_t e, uint32_t w,
                           const uint8_t *out)
{
    uint32_t r = g->t->events[e].txn;
    return g->pos[w] > g->pos[r] && leads(g, r, w, e, out, true);
}

/* t1 precedes reader r by the model's premise (weak.c): causal - hb; ra -
 * one so or wr step; rc - a read of r before read e reads from t1. */
static bool premise(dep_graph *g, ip_level model, uint32_t t1, uint32_t r,
                    uint32_t e)
{
    const ip_trace *t = g->t;
    switch (model) {
    case IP_LVL_CAUSAL:
        return leads(g, t1, r, e, NULL, true);
    case IP_LVL_RA:
        if (ip_so(t, t1, r))
            return true;
        for (uint32_t i = g->first[t1]; i < g->first[t1 + 1]; i++)
            if (g->edge[i].to == r && g->edge[i].hb &&
                g->edge[i].read != IP_NONE && g->edge[i].read != e)
                return true;
        return false;
    case IP_LVL_RC:
        for (uint32_t f = t->txns[r].ev_first; f < e; f++)
            if (t->events[f].kind == IP_READ && t->events[f].writer == t1)
                return true;
        return false;
    default:
        return false;
    }
}

/* The model: read e of r now reads from w, before r in the order; a
 * writer t1 of the key after w precedes r by the model's premise, so the
 * model orders t1 before w; and w happens before t1: a cycle. */
static bool surely_not_model(dep_graph *g, ip_level model, uint32_t e,
                             uint32_t w)
{
    const ip_event *ev = &g->t->events[e];
    uint32_t r = ev->txn;
    if (g->pos[w] > g->pos[r])
        return false;
    for (uint32_t i = g->kw_first[ev->key]; i < g->kw_first[ev->key + 1];
         i++) {
        uint32_t t1 = g->kw[i];
        if (g->pos[t1] <= g->pos[w] || t1 == r)
            continue;
        if (g->pos[t1] > g->pos[r])
            break;
        if (premise(g, model, t1, r, e) &&
            (w == IP_INIT_TXN || leads(g, w, t1, e, NULL, true)))
            return true;
    }
    return false;
}

probe_verdict dep_graph_fit(dep_graph *g, ip_level model, uint32_t e,
                            uint32_t w, const uint8_t *out, bool cut)
{
    if (g->pos[w] == IP_NONE || g->pos[g->t->events[e].txn] == IP_NONE)
        return PROBE_TRY;
    if (surely_illegal(g, e, w, out))
        return PROBE_ILLEGAL;
    if (!cut && surely_not_model(g, model, e, w))
        return PROBE_NOT_MODEL;
    return PROBE_TRY;
}
