/*
 * strong_cycles.c - many cycles from one indexed graph, for the lazy
 * search: Kahn's algorithm removes what is acyclic; while points remain, a
 * short cycle through one of them is reported and one of its conditional
 * edges switched off, and removal continues.  One pass thus yields up to
 * `max` cycles, each missing from the graph minus the edges switched off
 * before it.
 *
 * Cost: points downstream of a cycle stay after Kahn, and a search from a
 * cycle's point used to walk all of them, thousands of points per cycle
 * on the Figure 13 histories, for thousands of cycles a round.  Two
 * bounds: the strongly connected components of what Kahn left are found
 * once (Tarjan), and a cycle through a point never leaves its component
 * (switching edges off only splits components); and the search runs from
 * both ends, forward from the point along out-edges and backward along
 * in-edges, expanding the smaller frontier a level at a time: where the
 * one-sided search reached b^L points for a cycle of length L (b edges a
 * point), the two sides meet after about 2 b^(L/2).  On rubis-10k this
 * took the cycle search from 75% of the check to 10%.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_graph.h"

typedef struct kahn_state {
    const sg_graph *g;
    uint32_t *indeg, *queue, head, tail, removed;
    uint8_t *gone, *off;      /* per point / per edge */
    uint32_t *comp;           /* per point: component of what Kahn left */
    /* the search from both ends: stamps (now: reached forward, now + 1:
     * backward) and the tree edge a point was reached by */
    uint32_t *stamp, *via, *bfs, now, first;
} kahn_state;

static bool live(const kahn_state *k, uint32_t e)
{
    return !k->off[e] && !k->gone[k->g->edges[e].from] &&
           !k->gone[k->g->edges[e].to];
}

static void drain(kahn_state *k)
{
    const sg_graph *g = k->g;
    while (k->head < k->tail) {
        uint32_t p = k->queue[k->head++];
        k->gone[p] = 1;
        k->removed++;
        for (uint32_t i = g->out_first[p]; i < g->out_first[p + 1]; i++) {
            uint32_t e = g->out_edge[i], q = g->edges[e].to;
            if (!k->off[e] && --k->indeg[q] == 0)
                k->queue[k->tail++] = q;
        }
    }
}

/* Tarjan's components of the points Kahn left, without recursion; a
 * component is named by its root's index.  Scratch: idx, low, the point
 * stack and the call stack (point and next out-edge), n entries each. */
static void components(kahn_state *k, uint32_t *idx, uint32_t *low,
                       uint32_t *stack, uint32_t (*call)[2])
{
    const sg_graph *g = k->g;
    uint32_t n = g->n_points, next = 0, sp = 0, cp = 0;
    for (uint32_t p = 0; p < n; p++)
        idx[p] = k->comp[p] = IP_NONE;
    for (uint32_t root = 0; root < n; root++) {
        if (k->gone[root] || idx[root] != IP_NONE)
            continue;
        idx[root] = low[root] = next++;
        stack[sp++] = root;
        call[cp][0] = root;
        call[cp++][1] = g->out_first[root];
        while (cp > 0) {
            uint32_t p = call[cp - 1][0];
            if (call[cp - 1][1] < g->out_first[p + 1]) {
                uint32_t q = g->edges[g->out_edge[call[cp - 1][1]++]].to;
                if (k->gone[q])
                    continue;
                if (idx[q] == IP_NONE) {
                    idx[q] = low[q] = next++;
                    stack[sp++] = q;
                    call[cp][0] = q;
                    call[cp++][1] = g->out_first[q];
                } else if (k->comp[q] == IP_NONE && idx[q] < low[p]) {
                    low[p] = idx[q];          /* q is on the stack */
                }
                continue;
            }
            cp--;
            if (low[p] == idx[p]) {
                uint32_t q;
                do {
                    q = stack[--sp];
                    k->comp[q] = idx[p];
                } while (q != p);
            }
            if (cp > 0 && low[p] < low[call[cp - 1][0]])
                low[call[cp - 1][0]] = low[p];
        }
    }
}

/* A remaining point with a live in-edge from a remaining point, walked
 * back until a point repeats: that point lies on a cycle.  Points only
 * ever leave, so the scan for the first remaining one goes on from where
 * the last stopped. */
static uint32_t on_cycle(kahn_state *k)
{
    const sg_graph *g = k->g;
    while (k->gone[k->first])
        k->first++;
    uint32_t p = k->first;
    k->now += 2;
    while (k->stamp[p] != k->now) {
        k->stamp[p] = k->now;
        for (uint32_t i = g->in_first[p]; i < g->in_first[p + 1]; i++)
            if (live(k, g->in_edge[i])) {
                p = g->edges[g->in_edge[i]].from;
                break;
            }
    }
    return p;
}

/* Expand one level of one side of the search: the points bfs[*head ..
 * end) (forward when fwd) along their live edges inside component c.
 * Returns the edge where the two sides meet, or UINT32_MAX. */
static uint32_t expand(kahn_state *k, bool fwd, uint32_t start, uint32_t *bfs,
                       uint32_t *head, uint32_t *tail)
{
    const sg_graph *g = k->g;
    const uint32_t *first = fwd ? g->out_first : g->in_first;
    const uint32_t *ids = fwd ? g->out_edge : g->in_edge;
    uint32_t mine = k->now + !fwd, other = k->now + fwd, end = *tail;
    uint32_t c = k->comp[start];
    for (; *head < end; (*head)++) {
        uint32_t p = bfs[*head];
        for (uint32_t i = first[p]; i < first[p + 1]; i++) {
            uint32_t e = ids[i];
            uint32_t q = fwd ? g->edges[e].to : g->edges[e].from;
            if (k->comp[q] != c || !live(k, e))
                continue;
            if (q == start || k->stamp[q] == other)
                return e;
            if (k->stamp[q] == mine)
                continue;
            k->stamp[q] = mine;
            k->via[q] = e;
            bfs[(*tail)++] = q;
        }
    }
    return UINT32_MAX;
}

/* The tree edges from start to p (forward side: in order, ending at p) or
 * from p to start (backward side), appended to out at *n. */
static void path(const kahn_state *k, uint32_t start, uint32_t p, bool fwd,
                 uint32_t *out, uint32_t *n)
{
    const sg_graph *g = k->g;
    uint32_t len = 0;
    for (uint32_t q = p; q != start;
         q = fwd ? g->edges[k->via[q]].from : g->edges[k->via[q]].to)
        len++;
    uint32_t i = fwd ? *n + len : *n;
    for (uint32_t q = p; q != start;
         q = fwd ? g->edges[k->via[q]].from : g->edges[k->via[q]].to) {
        if (fwd)
            out[--i] = k->via[q];
        else
            out[i++] = k->via[q];
    }
    *n += len;
}

/* A shortest live cycle through start, which lies on one, as edge ids from
 * start into out; its length (0 only if start lies on none, a bug).
 * Points reached forward are stamped now, backward now + 1; start, the
 * root of both sides, is stamped forward and recognised by name. */
static uint32_t short_cycle(kahn_state *k, uint32_t start, uint32_t *out)
{
    uint32_t *fq = k->bfs, *bq = k->bfs + k->g->n_points;
    uint32_t fh = 0, ft = 0, bh = 0, bt = 0, meet = UINT32_MAX;
    k->now += 2;
    k->stamp[start] = k->now;
    fq[ft++] = start;
    bq[bt++] = start;
    while (meet == UINT32_MAX && (fh < ft || bh < bt)) {
        /* a level of the side with fewer points waiting */
        bool fwd = bh == bt || (fh < ft && ft - fh <= bt - bh);
        meet = fwd ? expand(k, true, start, fq, &fh, &ft)
                   : expand(k, false, start, bq, &bh, &bt);
    }
    if (meet == UINT32_MAX)
        return 0;
    uint32_t n = 0;
    path(k, start, k->g->edges[meet].from, true, out, &n);
    out[n++] = meet;
    path(k, start, k->g->edges[meet].to, false, out, &n);
    return n;
}

int sg_many_cycles(const sg_graph *g, uint32_t first_cond, uint32_t max,
                   sg_cycle_fn fn, void *env)
{
    uint32_t n = g->n_points;
    size_t n1 = n ? n : 1;
    kahn_state k = { .g = g };
    k.indeg = calloc(n1, sizeof *k.indeg);
    k.queue = malloc(n1 * sizeof *k.queue);
    k.bfs = malloc(2 * n1 * sizeof *k.bfs);
    k.gone = calloc(n1, 1);
    k.off = calloc(g->n_edges ? g->n_edges : 1, 1);
    k.comp = malloc(n1 * sizeof *k.comp);
    k.stamp = calloc(n1, sizeof *k.stamp);
    k.via = malloc(n1 * sizeof *k.via);
    uint32_t *cyc = malloc(n1 * sizeof *cyc);
    uint32_t (*call)[2] = malloc(n1 * sizeof *call);
    int found = SG_CYCLES_OOM;
    if (!k.indeg || !k.queue || !k.bfs || !k.gone || !k.off || !k.comp ||
        !k.stamp || !k.via || !cyc || !call)
        goto out;
    for (uint32_t e = 0; e < g->n_edges; e++)
        k.indeg[g->edges[e].to]++;
    for (uint32_t p = 0; p < n; p++)
        if (k.indeg[p] == 0)
            k.queue[k.tail++] = p;
    drain(&k);
    /* scratch of the components: the search's arrays, not yet in use */
    components(&k, k.via, cyc, k.bfs, call);
    found = 0;
    for (; k.removed < n && (uint32_t)found < max; drain(&k)) {
        uint32_t len = short_cycle(&k, on_cycle(&k), cyc), cut = UINT32_MAX;
        for (uint32_t i = 0; i < len && cut == UINT32_MAX; i++)
            if (cyc[i] >= first_cond)
                cut = cyc[i];
        if (cut == UINT32_MAX || !fn(env, cyc, len)) {
            found = cut == UINT32_MAX ? SG_CYCLES_KNOWN : SG_CYCLES_STOPPED;
            break;
        }
        found++;
        k.off[cut] = 1;
        if (--k.indeg[g->edges[cut].to] == 0)
            k.queue[k.tail++] = g->edges[cut].to;
    }
out:
    free(k.indeg);
    free(k.queue);
    free(k.bfs);
    free(k.gone);
    free(k.off);
    free(k.comp);
    free(k.stamp);
    free(k.via);
    free(cyc);
    free(call);
    return found;
}
