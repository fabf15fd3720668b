/*
 * strong_cycles.c - many cycles from one indexed graph, for the lazy
 * search: Kahn's algorithm removes what is acyclic; while points remain, a
 * shortest cycle through one of them is reported and one of its
 * conditional edges switched off, and removal continues.  One pass thus
 * yields up to `max` cycles, each missing from the graph minus the edges
 * switched off before it.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_graph.h"

typedef struct kahn_state {
    const sg_graph *g;
    uint32_t first_cond;
    uint32_t *indeg, *queue, head, tail, removed;
    uint8_t *gone, *off;      /* per point / per edge */
    uint32_t *stamp, *via, now;
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

/* A remaining point with a live in-edge from a remaining point, walked
 * back until a point repeats: that point lies on a cycle. */
static uint32_t on_cycle(kahn_state *k)
{
    const sg_graph *g = k->g;
    uint32_t p = 0;
    while (k->gone[p])
        p++;
    k->now++;
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

/* Shortest live cycle through start, as edge ids into out (n_out). */
static uint32_t shortest_cycle(kahn_state *k, uint32_t start, uint32_t *out)
{
    const sg_graph *g = k->g;
    uint32_t head = 0, tail = 0, closing = UINT32_MAX;
    uint32_t *bfs = k->queue + k->tail;   /* unused tail of the queue */
    k->now++;
    bfs[tail++] = start;
    k->stamp[start] = k->now;
    while (head < tail && closing == UINT32_MAX) {
        uint32_t p = bfs[head++];
        for (uint32_t i = g->out_first[p]; i < g->out_first[p + 1]; i++) {
            uint32_t e = g->out_edge[i], q = g->edges[e].to;
            if (!live(k, e))
                continue;
            if (q == start) {
                closing = e;
                break;
            }
            if (k->stamp[q] != k->now) {
                k->stamp[q] = k->now;
                k->via[q] = e;
                bfs[tail++] = q;
            }
        }
    }
    uint32_t len = 1;
    for (uint32_t p = g->edges[closing].from; p != start;
         p = g->edges[k->via[p]].from)
        len++;
    uint32_t i = len;
    out[--i] = closing;
    for (uint32_t p = g->edges[closing].from; p != start;
         p = g->edges[k->via[p]].from)
        out[--i] = k->via[p];
    return len;
}

int sg_many_cycles(const sg_graph *g, uint32_t first_cond, uint32_t max,
                   sg_cycle_fn fn, void *env)
{
    uint32_t n = g->n_points;
    kahn_state k = { .g = g, .first_cond = first_cond };
    k.indeg = calloc(n ? n : 1, sizeof *k.indeg);
    k.queue = malloc(2 * (size_t)(n ? n : 1) * sizeof *k.queue);
    k.gone = calloc(n ? n : 1, 1);
    k.off = calloc(g->n_edges ? g->n_edges : 1, 1);
    k.stamp = calloc(n ? n : 1, sizeof *k.stamp);
    k.via = malloc((n ? n : 1) * sizeof *k.via);
    uint32_t *cyc = malloc((n ? n : 1) * sizeof *cyc);
    int found = SG_CYCLES_OOM;
    if (!k.indeg || !k.queue || !k.gone || !k.off || !k.stamp || !k.via ||
        !cyc)
        goto out;
    for (uint32_t e = 0; e < g->n_edges; e++)
        k.indeg[g->edges[e].to]++;
    for (uint32_t p = 0; p < n; p++)
        if (k.indeg[p] == 0)
            k.queue[k.tail++] = p;
    found = 0;
    for (drain(&k); k.removed < n && (uint32_t)found < max; drain(&k)) {
        uint32_t len = shortest_cycle(&k, on_cycle(&k), cyc), cut = UINT32_MAX;
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
    free(k.gone);
    free(k.off);
    free(k.stamp);
    free(k.via);
    free(cyc);
    return found;
}
