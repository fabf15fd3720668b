/*
 * probe_graph.c - the observed dependency graph, and what it tells of a
 * probe before any history is built (probe_graph.h).
 *
 * Under a serial order's version order every edge of the observed graph
 * points forward, and so does every edge a probe keeps; each changed read
 * adds one backward edge at most: rw from its reader to the first writer
 * after the one it now reads, or wr from a writer after its reader.  The
 * probe's history is unserializable only if such an edge closes a cycle
 * (a graph acyclic under one version order has a serial order), so only
 * if the observed graph, less the changed reads' own edges and with their
 * new ones, leads back from the edge's head to its tail.  The observed
 * graph holds every edge of the probe's history, or a path for it (a ww
 * or rw edge over a write the history leaves out becomes a path through
 * that write), so a probe with a cycle is never judged without one.  The
 * walks are linear in the graph; a window's has a few hundred edges.
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
    free(g->parent);
    free(g->seen);
}

/* The first writer of key k after the writer at place p that is not x
 * and not marked in out[] (NULL: none), or IP_NONE. */
static uint32_t writer_after(const dep_graph *g, uint32_t k, uint32_t p,
                             uint32_t x, const uint8_t *out)
{
    for (uint32_t i = g->kw_first[k]; i < g->kw_first[k + 1]; i++)
        if (g->pos[g->kw[i]] > p && g->kw[i] != x &&
            !(out && out[g->kw[i]]))
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
        uint32_t x = writer_after(g, ev->key, g->pos[w], ev->txn, NULL);
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
    g->parent = malloc(nt * sizeof *g->parent);
    g->seen = malloc(nt);
    if (!g->pos || !g->kw_first || !g->first || !g->stack || !g->parent ||
        !g->seen)
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

/* The edges of changed reads: the new ones (each read's wr edge from its
 * writer, and rw to the first writer after that writer), and which old
 * ones to leave out (any whose read is one of the changed reads). */
typedef struct changed_edges {
    const probe_change *c;
    uint32_t n;
    uint32_t from[2 * PROBE_MAX_CHANGES], to[2 * PROBE_MAX_CHANGES];
    uint32_t n_new;
} changed_edges;

static bool left_out(const changed_edges *x, uint32_t read)
{
    for (uint32_t i = 0; i < x->n; i++)
        if (x->c[i].read == read)
            return true;
    return false;
}

/* May a walk that is not along hb take edge d from v, given the
 * transactions marked in `out`?  Those are not in the probe's history,
 * but a chain of writes of one key through them stands for the history's
 * own ww edge past them (and a read's rw edge to one of them for its rw
 * edge to the next writer kept): so an out transaction is entered by ww
 * or rw and left by ww only.  Such a walk may leave by another key's
 * chain than it entered, a path the history lacks: that only makes a
 * cycle more likely, never one missed. */
static bool takes_past_out(const dep_edge *d, uint32_t v, const uint8_t *out)
{
    if (out[v] && (d->hb || d->read != IP_NONE))
        return false;         /* left by ww only */
    return !out[d->to] || !d->hb;
}

/* Does a path lead from `from` to `to`, over the observed edges less
 * those of the changed reads, and no place past `to` (see
 * dep_graph_cycle)?  hb: along so and wr only, through no transaction
 * marked in `out` (NULL: none), and the new edges are not taken (a claim
 * that a path surely exists rests on the observed edges the probe keeps);
 * otherwise the new edges are taken too, and a transaction in `out` only
 * as takes_past_out says. */
static bool leads(dep_graph *g, uint32_t from, uint32_t to,
                  const changed_edges *x, const uint8_t *out, bool hb)
{
    uint32_t lim = g->pos[to], n = 0;
    memset(g->seen, 0, g->t->n_txns);
    g->stack[n++] = from;
    g->seen[from] = 1;
    while (n > 0) {
        uint32_t v = g->stack[--n];
        if (v == to)
            return true;
        for (uint32_t i = g->first[v]; i < g->first[v + 1]; i++) {
            const dep_edge *d = &g->edge[i];
            if (g->seen[d->to] || g->pos[d->to] > lim ||
                (hb && !d->hb) ||
                (out && (hb ? out[d->to] : !takes_past_out(d, v, out))) ||
                (d->read != IP_NONE && left_out(x, d->read)))
                continue;
            g->seen[d->to] = 1;
            g->parent[d->to] = v;
            g->stack[n++] = d->to;
        }
        for (uint32_t i = 0; !hb && !(out && out[v]) && i < x->n_new; i++)
            if (x->from[i] == v && !g->seen[x->to[i]] &&
                g->pos[x->to[i]] <= lim) {
                g->seen[x->to[i]] = 1;
                g->parent[x->to[i]] = v;
                g->stack[n++] = x->to[i];
            }
    }
    return false;
}

/* x: the edges of changes c[0..n); false when some change has no place
 * in the order to judge by.  A read's rw edge goes to the first writer
 * after its new one that out[] (NULL: none) keeps: the history's own rw
 * edge, where a walk through the dropped writers between (takes_past_out)
 * could come back to the reader itself as a later writer of the key. */
static bool changed_edges_of(const dep_graph *g, const probe_change *c,
                             uint32_t n, const uint8_t *out,
                             changed_edges *x)
{
    x->c = c;
    x->n = n;
    x->n_new = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ip_event *ev = &g->t->events[c[i].read];
        if (g->pos[c[i].writer] == IP_NONE || g->pos[ev->txn] == IP_NONE)
            return false;
        x->from[x->n_new] = c[i].writer;
        x->to[x->n_new++] = ev->txn;
        uint32_t after = writer_after(g, ev->key, g->pos[c[i].writer],
                                      ev->txn, out);
        if (after != IP_NONE) {
            x->from[x->n_new] = ev->txn;
            x->to[x->n_new++] = after;
        }
    }
    return true;
}

/* Mark `to` dropped, and walk on from it (once). */
static void drop_and_push(dep_graph *g, uint8_t *drop, uint32_t *top,
                          uint32_t to)
{
    drop[to] = 1;
    if (!g->seen[to]) {
        g->seen[to] = 1;
        g->stack[(*top)++] = to;
    }
}

void dep_graph_drop_after(dep_graph *g, const probe_change *c, uint32_t n,
                          const uint32_t *boundary, uint8_t *drop)
{
    const ip_trace *t = g->t;
    changed_edges x = {.c = c, .n = n};
    uint32_t top = 0;
    memset(g->seen, 0, t->n_txns);    /* pushed once each */
    for (uint32_t s = 0; s < t->n_sessions; s++)
        if (boundary[s] != IP_NONE && !g->seen[boundary[s]]) {
            g->seen[boundary[s]] = 1;
            g->stack[top++] = boundary[s];
        }
    /* a boundary itself is kept unless another reaches it */
    while (top > 0) {
        uint32_t v = g->stack[--top];
        for (uint32_t i = g->first[v]; i < g->first[v + 1]; i++) {
            const dep_edge *d = &g->edge[i];
            if (d->hb && !(d->read != IP_NONE && left_out(&x, d->read)))
                drop_and_push(g, drop, &top, d->to);
        }
        for (uint32_t i = 0; i < n; i++)  /* the changed reads' wr edges */
            if (c[i].writer == v)
                drop_and_push(g, drop, &top, t->events[c[i].read].txn);
    }
}

/* A cycle of the probe's history under the observed order's version
 * order takes a new edge that points backward, and a path back from its
 * head to its tail.  Every new edge starts or ends at the changed reads'
 * transaction r, so a cycle with two backward ones enters r by one (from
 * u after r) and leaves it by the other (to v before r), and the walk for
 * the one entering finds r -> v and then forward edges up to u: no walk
 * needs to pass the place of its target. */
probe_verdict dep_graph_cycle(dep_graph *g, const probe_change *c,
                              uint32_t n, const uint8_t *out)
{
    changed_edges x;
    if (n == 0 || n > PROBE_MAX_CHANGES ||
        !changed_edges_of(g, c, n, out, &x))
        return PROBE_TRY;             /* no order to judge by */
    /* the reader happens after a boundary: its changed reads are not in
     * the history, whose reads are then all observed ones, and the
     * observed order (restricted to it) serializes it - or the boundary
     * is its own, reached through a writer it now reads, and hb is
     * cyclic: illegal */
    if (out && out[g->t->events[c[0].read].txn])
        return PROBE_CUT_NO_CYCLE;
    for (uint32_t i = 0; i < x.n_new; i++)
        if (g->pos[x.from[i]] > g->pos[x.to[i]] &&
            leads(g, x.to[i], x.from[i], &x, out, false))
            return PROBE_TRY;
    return out ? PROBE_CUT_NO_CYCLE : PROBE_NO_CYCLE;
}

uint32_t dep_graph_cycle_txns(dep_graph *g, const probe_change *c,
                              uint32_t n, uint32_t *txns)
{
    changed_edges x;
    if (n == 0 || n > PROBE_MAX_CHANGES ||
        !changed_edges_of(g, c, n, NULL, &x))
        return 0;
    for (uint32_t i = 0; i < x.n_new; i++) {
        uint32_t head = x.to[i], tail = x.from[i];
        if (g->pos[tail] <= g->pos[head] ||
            !leads(g, head, tail, &x, NULL, false))
            continue;
        uint32_t m = 0;       /* the walk's path back, tail to head */
        for (uint32_t v = tail; v != head; v = g->parent[v])
            txns[m++] = v;
        txns[m++] = head;
        return m;
    }
    return 0;
}

/* ---- what the confirmation would reject anyway ------------------------
 * Both claims rest on paths through transactions the probe has: for
 * legality, those inside the boundaries (not out[]); for the model, hb
 * paths into the reader, whose transactions the history keeps whenever
 * it keeps the reader: a transaction it drops (beyond a boundary, or
 * after one along so and wr: drop[]) drops all that happen after it.
 * The paths are over observed edges the probe keeps (leads, hb). */

/* Relaxed legality: change c of r now reads from a writer after r in the
 * order, and r happens before it inside the boundary: hb is cyclic. */
static bool surely_illegal(dep_graph *g, const changed_edges *x,
                           const probe_change *c, const uint8_t *out)
{
    uint32_t r = g->t->events[c->read].txn;
    return g->pos[c->writer] > g->pos[r] &&
           leads(g, r, c->writer, x, out, true);
}

/* The writer read event f reads from in the probe. */
static uint32_t probe_writer(const ip_trace *t, const changed_edges *x,
                             uint32_t f)
{
    for (uint32_t i = 0; i < x->n; i++)
        if (x->c[i].read == f)
            return x->c[i].writer;
    return t->events[f].writer;
}

/* t1 precedes reader r of change c by the model's premise (weak.c):
 * causal - hb (si too: an si history is causal); ra - one so or wr step;
 * rc - a read of r before c's reads from t1. */
static bool premise(dep_graph *g, ip_level model, const changed_edges *x,
                    uint32_t t1, uint32_t r, const probe_change *c)
{
    const ip_trace *t = g->t;
    switch (model) {
    case IP_LVL_CAUSAL:
    case IP_LVL_SI:
        return leads(g, t1, r, x, NULL, true);
    case IP_LVL_RA:
        if (ip_so(t, t1, r))
            return true;
        for (uint32_t i = g->first[t1]; i < g->first[t1 + 1]; i++)
            if (g->edge[i].to == r && g->edge[i].hb &&
                g->edge[i].read != IP_NONE && !left_out(x, g->edge[i].read))
                return true;
        return false;
    case IP_LVL_RC:
        for (uint32_t f = t->txns[r].ev_first; f < c->read; f++)
            if (t->events[f].kind == IP_READ &&
                probe_writer(t, x, f) == t1)
                return true;
        return false;
    default:
        return false;
    }
}

/* The model: change c of r now reads from w, before r in the order; a
 * writer t1 of the key after w precedes r by the model's premise, so the
 * model orders t1 before w; and w happens before t1: a cycle. */
static bool surely_not_model(dep_graph *g, ip_level model,
                             const changed_edges *x, const probe_change *c)
{
    const ip_event *ev = &g->t->events[c->read];
    uint32_t r = ev->txn, w = c->writer;
    if (g->pos[w] > g->pos[r])
        return false;
    for (uint32_t i = g->kw_first[ev->key]; i < g->kw_first[ev->key + 1];
         i++) {
        uint32_t t1 = g->kw[i];
        if (g->pos[t1] <= g->pos[w] || t1 == r)
            continue;
        if (g->pos[t1] > g->pos[r])
            break;
        if (premise(g, model, x, t1, r, c) &&
            (w == IP_INIT_TXN || leads(g, w, t1, x, NULL, true)))
            return true;
    }
    return false;
}

/* Does txn x read key k from txn w (an observed read: x is not the
 * probe's reader)? */
static bool reads_from(const ip_trace *t, uint32_t x, uint32_t k, uint32_t w)
{
    const ip_txn *tx = &t->txns[x];
    for (uint32_t f = tx->ev_first; f < tx->ev_first + tx->ev_count; f++)
        if (t->events[f].kind == IP_READ && t->events[f].key == k)
            return t->events[f].writer == w;
    return false;
}

/* si's conflict rule: change c of r now reads key k from w, and r writes
 * k; another writer of k that the probe keeps (not drop[]) reads k from w
 * too.  Two writers of a key that read the same version of it are
 * concurrent (a lost update), whatever else the history holds: each
 * would have to see the other's write had it committed first. */
static bool surely_lost_update(dep_graph *g, const changed_edges *x,
                               const probe_change *c, const uint8_t *drop)
{
    const ip_trace *t = g->t;
    const ip_event *ev = &t->events[c->read];
    uint32_t r = ev->txn;
    if (ip_write_event(t, r, ev->key) == IP_NONE)
        return false;
    for (uint32_t i = g->kw_first[ev->key]; i < g->kw_first[ev->key + 1];
         i++) {
        uint32_t u = g->kw[i];
        if (u != r && u != c->writer && !drop[u] &&
            reads_from(t, u, ev->key, c->writer) &&
            !leads(g, r, u, x, NULL, true))
            return true;
    }
    return false;
}

probe_verdict dep_graph_fit(dep_graph *g, ip_level model,
                            const probe_change *c, uint32_t n,
                            const uint8_t *out, const uint8_t *drop)
{
    changed_edges x;
    if (n == 0 || n > PROBE_MAX_CHANGES ||
        !changed_edges_of(g, c, n, NULL, &x))
        return PROBE_TRY;
    for (uint32_t i = 0; i < n; i++)
        if (surely_illegal(g, &x, &c[i], out))
            return PROBE_ILLEGAL;
    if (drop[g->t->events[c[0].read].txn])
        return PROBE_CUT_NO_CYCLE;    /* its changes are not in the history */
    for (uint32_t i = 0; i < n; i++)
        if (surely_not_model(g, model, &x, &c[i]))
            return PROBE_NOT_MODEL;
    for (uint32_t i = 0; model == IP_LVL_SI && i < n; i++)
        if (surely_lost_update(g, &x, &c[i], drop))
            return PROBE_NOT_MODEL;
    return PROBE_TRY;
}
