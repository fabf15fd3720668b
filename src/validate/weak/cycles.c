/*
 * cycles.c - violation witnesses: one cycle per non-trivial SCC of co'.
 *
 * Preference (AWDIT section 3.4): a cycle of so u wr alone when the SCC has
 * one, else a cycle through few inferred edges.  The latter is a 0-1 BFS
 * (so/wr cost 0, CO cost 1) from the head of a CO edge back to its tail,
 * tried for a few CO edges of the SCC; exact minimality over all of them
 * would cost a BFS per edge.
 */
#include "weak.h"

#include <stdlib.h>

#define WK_CANDIDATES_SMALL 8     /* CO edges tried in small SCCs */
#define WK_SMALL_SCC 1000         /* nodes: larger SCCs try one CO edge */

typedef struct cyc_ctx {
    const ip_trace *t;
    const wk_edges *g;
    wk_csr c;                     /* g's adjacency, the caller's */
    uint32_t *comp, n_comp;
    uint32_t *comp0;              /* SCCs of so u wr alone */
    uint32_t *size0;              /* size of each so u wr SCC */
    uint32_t *members, *mfirst;   /* nodes grouped by comp */
    uint32_t *dist, *parent, *stamp, run;
    uint32_t *deque;              /* circular, 2n + 2 */
} cyc_ctx;

static bool is_co(const ip_edge *e) { return e->kind == IP_EDGE_CO; }

/* 0-1 BFS from src to dst (src != dst) inside component `cc` of `comp`;
 * with zero_only, CO edges are not followed.  Leaves parent edges for
 * emit_cycle and returns the number of CO edges on the path, or IP_NONE. */
static uint32_t bfs01(cyc_ctx *x, uint32_t src, uint32_t dst,
                      const uint32_t *comp, uint32_t cc, bool zero_only)
{
    /* a node enters the deque at most twice (at cost d + 1, then d) */
    size_t cap = 2 * (size_t)x->c.n + 2, head = 0, len = 1;
    x->run++;
    x->stamp[src] = x->run;
    x->dist[src] = 0;
    x->parent[src] = IP_NONE;
    x->deque[0] = src;
    while (len) {
        uint32_t v = x->deque[head];
        head = (head + 1) % cap;
        len--;
        if (v == dst)
            return x->dist[v];
        for (uint32_t i = x->c.first[v]; i < x->c.first[v + 1]; i++) {
            const ip_edge *e = &x->g->e[x->c.edge[i]];
            uint32_t w = e->to, cost = is_co(e);
            if (comp[w] != cc || (zero_only && cost))
                continue;
            uint32_t d = x->dist[v] + cost;
            if (x->stamp[w] == x->run && x->dist[w] <= d)
                continue;
            x->stamp[w] = x->run;
            x->dist[w] = d;
            x->parent[w] = x->c.edge[i];
            /* v is at the deque's least distance, so dst reached from it
             * at no cost is final (nothing later is strictly closer, and
             * only a closer path replaces a parent): stop with the path
             * and distance the full run would leave */
            if (w == dst && !cost)
                return d;
            if (cost) {
                x->deque[(head + len) % cap] = w;
            } else {
                head = (head + cap - 1) % cap;
                x->deque[head] = w;
            }
            len++;
        }
    }
    return IP_NONE;
}

/* Append the cycle: edge `lead` (dst -> src), then the path bfs01 found
 * from src to dst. */
static bool emit_cycle(cyc_ctx *x, uint32_t lead, ip_verdict *v)
{
    uint32_t src = x->g->e[lead].to, dst = x->g->e[lead].from;
    uint32_t n = 1;
    for (uint32_t w = dst; w != src; w = x->g->e[x->parent[w]].from)
        n++;
    ip_cycle *cs = realloc(v->cycles, (v->n_cycles + 1) * sizeof *cs);
    if (!cs)
        return false;
    v->cycles = cs;
    ip_edge *edges = malloc(n * sizeof *edges);
    if (!edges)
        return false;
    edges[0] = x->g->e[lead];
    uint32_t i = n;
    for (uint32_t w = dst; w != src; w = edges[i].from)
        edges[--i] = x->g->e[x->parent[w]];
    cs[v->n_cycles++] = (ip_cycle){.edges = edges, .n_edges = n};
    return true;
}

/* A so u wr cycle through `node`, which lies in a non-trivial so u wr SCC:
 * one of its so/wr edges inside that SCC, closed by a so/wr path. */
static bool sowr_cycle(cyc_ctx *x, uint32_t node, ip_verdict *v)
{
    uint32_t cc = x->comp0[node];
    for (uint32_t i = x->c.first[node]; i < x->c.first[node + 1]; i++) {
        const ip_edge *e = &x->g->e[x->c.edge[i]];
        if (is_co(e) || x->comp0[e->to] != cc)
            continue;
        if (bfs01(x, e->to, node, x->comp0, cc, true) == IP_NONE)
            return false;   /* impossible inside an SCC */
        return emit_cycle(x, x->c.edge[i], v);
    }
    return false;
}

static bool co_cycle(cyc_ctx *x, uint32_t cc, ip_verdict *v)
{
    uint32_t size = x->mfirst[cc + 1] - x->mfirst[cc];
    uint32_t tries = size <= WK_SMALL_SCC ? WK_CANDIDATES_SMALL : 1;
    uint32_t best = IP_NONE, best_cost = IP_NONE, last = IP_NONE;
    for (uint32_t m = x->mfirst[cc]; m < x->mfirst[cc + 1] && tries; m++) {
        uint32_t u = x->members[m];
        for (uint32_t i = x->c.first[u]; i < x->c.first[u + 1] && tries; i++) {
            const ip_edge *e = &x->g->e[x->c.edge[i]];
            if (!is_co(e) || x->comp[e->to] != cc)
                continue;
            tries--;
            uint32_t cost = bfs01(x, e->to, u, x->comp, cc, false);
            last = x->c.edge[i];
            if (cost < best_cost) {
                best_cost = cost;
                best = x->c.edge[i];
            }
        }
    }
    if (best == IP_NONE)
        return true;     /* cannot happen: an SCC of >1 node has a CO edge
                            unless it has a so u wr cycle */
    const ip_edge *e = &x->g->e[best];
    if (best != last)     /* the parents are the last search's */
        bfs01(x, e->to, e->from, x->comp, cc, false);
    return emit_cycle(x, best, v);
}

static bool group_members(cyc_ctx *x)
{
    uint32_t n = x->c.n;
    x->mfirst = calloc((size_t)x->n_comp + 2, sizeof *x->mfirst);
    x->members = malloc((n ? n : 1) * sizeof *x->members);
    if (!x->mfirst || !x->members)
        return false;
    for (uint32_t w = 0; w < n; w++)
        x->mfirst[x->comp[w] + 1]++;
    for (uint32_t c = 0; c < x->n_comp; c++)
        x->mfirst[c + 1] += x->mfirst[c];
    for (uint32_t w = n; w-- > 0;)
        x->members[--x->mfirst[x->comp[w] + 1]] = w;
    for (uint32_t c = 0; c < x->n_comp; c++)
        x->mfirst[c] = x->mfirst[c + 1];
    x->mfirst[x->n_comp] = n;
    return true;
}

static bool sowr_components(cyc_ctx *x)
{
    wk_edges sowr = {0};
    for (size_t i = 0; i < x->g->n; i++)
        if (!is_co(&x->g->e[i]) &&
            !wk_push(&sowr, x->g->e[i].from, x->g->e[i].to, x->g->e[i].kind,
                     x->g->e[i].key, x->g->e[i].via))
            return wk_edges_free(&sowr), false;
    wk_csr c0 = {0};
    uint32_t n0 = 0;
    bool ok = wk_csr_build(&c0, x->c.n, &sowr) &&
              (x->comp0 = wk_scc_of(&c0, sowr.e, &n0)) != NULL &&
              (x->size0 = calloc((size_t)n0 + 1, sizeof *x->size0)) != NULL;
    for (uint32_t w = 0; ok && w < x->c.n; w++)
        x->size0[x->comp0[w]]++;
    wk_csr_free(&c0);
    wk_edges_free(&sowr);
    return ok;
}

static bool one_per_component(cyc_ctx *x, uint32_t max, ip_verdict *v)
{
    for (uint32_t cc = 0; cc < x->n_comp; cc++) {
        if (max && v->n_cycles >= max)
            break;
        if (x->mfirst[cc + 1] - x->mfirst[cc] < 2)
            continue;
        uint32_t sowr_node = IP_NONE;
        for (uint32_t m = x->mfirst[cc]; x->comp0 && m < x->mfirst[cc + 1];
             m++)
            if (x->size0[x->comp0[x->members[m]]] > 1) {
                sowr_node = x->members[m];
                break;
            }
        bool ok = sowr_node != IP_NONE ? sowr_cycle(x, sowr_node, v)
                                       : co_cycle(x, cc, v);
        if (!ok)
            return false;
    }
    return true;
}

bool wk_cycles(const ip_trace *t, const wk_edges *g, const wk_csr *c,
               bool sowr_acyclic, uint32_t max, ip_verdict *v)
{
    cyc_ctx x = {.t = t, .g = g, .c = *c};
    size_t n = t->n_txns;
    bool ok = (x.comp = wk_scc_of(&x.c, g->e, &x.n_comp)) != NULL &&
              (sowr_acyclic || sowr_components(&x)) && group_members(&x);
    if (ok) {
        x.dist = malloc(n * sizeof *x.dist);
        x.parent = malloc(n * sizeof *x.parent);
        x.stamp = calloc(n, sizeof *x.stamp);
        x.deque = malloc((2 * n + 2) * sizeof *x.deque);
        ok = x.dist && x.parent && x.stamp && x.deque &&
             one_per_component(&x, max, v);
    }
    free(x.comp);
    free(x.comp0);
    free(x.size0);
    free(x.members);
    free(x.mfirst);
    free(x.dist);
    free(x.parent);
    free(x.stamp);
    free(x.deque);
    return ok;
}
