/*
 * strong_graph.c - the point graph of the ser/si checker: edge storage,
 * indexing with a topological sort, and shortest-cycle extraction.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_graph.h"

bool sg_reserve(sg_graph *g, uint32_t n)
{
    if (n <= g->cap_edges - g->n_edges)
        return true;
    uint64_t cap = (uint64_t)g->n_edges + n;
    if (cap > UINT32_MAX)
        return false;
    sg_edge *p = realloc(g->edges, (size_t)cap * sizeof *p);
    if (!p)
        return false;
    g->edges = p;
    g->cap_edges = (uint32_t)cap;
    return true;
}

bool sg_push(sg_graph *g, sg_edge e)
{
    if (g->n_edges == g->cap_edges &&
        !sg_reserve(g, g->cap_edges ? g->cap_edges : 1024))
        return false;
    g->edges[g->n_edges++] = e;
    return true;
}

/* Counting sort of edge ids by endpoint (from when by_source). */
static void group_edges(const sg_graph *g, bool by_source, uint32_t *first,
                        uint32_t *ids)
{
    memset(first, 0, ((size_t)g->n_points + 1) * sizeof *first);
    for (uint32_t e = 0; e < g->n_edges; e++) {
        uint32_t p = by_source ? g->edges[e].from : g->edges[e].to;
        first[p + 1]++;
    }
    for (uint32_t p = 0; p < g->n_points; p++)
        first[p + 1] += first[p];
    /* fill from the back so ids stay ascending within a group */
    for (uint32_t e = g->n_edges; e-- > 0;) {
        uint32_t p = by_source ? g->edges[e].from : g->edges[e].to;
        ids[--first[p + 1]] = e;
    }
    /* first[p+1] now holds the start of group p; shift back */
    for (uint32_t p = 0; p < g->n_points; p++)
        first[p] = first[p + 1];
    first[g->n_points] = g->n_edges;
}

static void kahn(sg_graph *g, uint32_t *indeg)
{
    uint32_t n = g->n_points, head = 0, tail = 0;
    memset(indeg, 0, (size_t)n * sizeof *indeg);
    for (uint32_t e = 0; e < g->n_edges; e++)
        indeg[g->edges[e].to]++;
    for (uint32_t p = 0; p < n; p++)
        if (indeg[p] == 0)
            g->topo[tail++] = p;
    while (head < tail) {
        uint32_t p = g->topo[head++];
        for (uint32_t i = g->out_first[p]; i < g->out_first[p + 1]; i++) {
            uint32_t q = g->edges[g->out_edge[i]].to;
            if (--indeg[q] == 0)
                g->topo[tail++] = q;
        }
    }
    g->n_topo = tail;
    g->acyclic = tail == n;
    for (uint32_t p = 0; p < n; p++)
        g->topo_pos[p] = UINT32_MAX;
    for (uint32_t i = 0; i < tail; i++)
        g->topo_pos[g->topo[i]] = i;
}

static bool realloc_u32(uint32_t **p, size_t n)
{
    uint32_t *q = realloc(*p, (n ? n : 1) * sizeof *q);
    if (!q)
        return false;
    *p = q;
    return true;
}

bool sg_index(sg_graph *g)
{
    size_t n = g->n_points;
    if (!realloc_u32(&g->out_first, n + 1) ||
        !realloc_u32(&g->in_first, n + 1) ||
        !realloc_u32(&g->out_edge, g->n_edges) ||
        !realloc_u32(&g->in_edge, g->n_edges) ||
        !realloc_u32(&g->topo, n) || !realloc_u32(&g->topo_pos, n))
        return false;
    uint32_t *indeg = malloc((n ? n : 1) * sizeof *indeg);
    if (!indeg)
        return false;
    group_edges(g, true, g->out_first, g->out_edge);
    group_edges(g, false, g->in_first, g->in_edge);
    kahn(g, indeg);
    free(indeg);
    return true;
}

/* A point on a cycle: every point Kahn left has a predecessor it left too,
 * so walking back from one must repeat. */
static uint32_t point_on_cycle(const sg_graph *g, uint8_t *seen)
{
    uint32_t p = 0;
    while (g->topo_pos[p] != UINT32_MAX)
        p++;
    while (!seen[p]) {
        seen[p] = 1;
        for (uint32_t i = g->in_first[p]; i < g->in_first[p + 1]; i++) {
            uint32_t q = g->edges[g->in_edge[i]].from;
            if (g->topo_pos[q] == UINT32_MAX) {
                p = q;
                break;
            }
        }
    }
    return p;
}

uint32_t *sg_find_cycle(const sg_graph *g, uint32_t *n_out)
{
    uint32_t n = g->n_points;
    uint8_t *seen = calloc(n, 1);
    uint32_t *via = malloc((size_t)n * sizeof *via);   /* BFS tree edge */
    uint32_t *queue = malloc((size_t)n * sizeof *queue);
    uint32_t *cyc = NULL;
    if (!seen || !via || !queue)
        goto done;
    uint32_t start = point_on_cycle(g, seen);
    for (uint32_t p = 0; p < n; p++)
        via[p] = UINT32_MAX;
    uint32_t head = 0, tail = 0, closing = UINT32_MAX;
    queue[tail++] = start;
    while (head < tail && closing == UINT32_MAX) {
        uint32_t p = queue[head++];
        for (uint32_t i = g->out_first[p]; i < g->out_first[p + 1]; i++) {
            uint32_t e = g->out_edge[i], q = g->edges[e].to;
            if (q == start) {
                closing = e;
                break;
            }
            if (via[q] == UINT32_MAX && g->topo_pos[q] == UINT32_MAX) {
                via[q] = e;
                queue[tail++] = q;
            }
        }
    }
    /* closing exists: start lies on a cycle of unremoved points */
    uint32_t len = 1;
    for (uint32_t p = g->edges[closing].from; p != start;
         p = g->edges[via[p]].from)
        len++;
    cyc = malloc((size_t)len * sizeof *cyc);
    if (!cyc)
        goto done;
    uint32_t i = len;
    cyc[--i] = closing;
    for (uint32_t p = g->edges[closing].from; p != start;
         p = g->edges[via[p]].from)
        cyc[--i] = via[p];
    *n_out = len;
done:
    free(seen);
    free(via);
    free(queue);
    return cyc;
}

void sg_graph_free(sg_graph *g)
{
    free(g->edges);
    free(g->out_first);
    free(g->out_edge);
    free(g->in_first);
    free(g->in_edge);
    free(g->topo);
    free(g->topo_pos);
    memset(g, 0, sizeof *g);
}
