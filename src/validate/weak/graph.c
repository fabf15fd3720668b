/* graph.c - adjacency (CSR) and topological order of an edge list; the
 * strongly connected components are in scc.c. */
#include "weak.h"

#include <stdlib.h>

bool wk_csr_build(wk_csr *c, uint32_t n_nodes, const wk_edges *g)
{
    c->n = n_nodes;
    c->first = calloc((size_t)n_nodes + 1, sizeof *c->first);
    c->edge = malloc((g->n ? g->n : 1) * sizeof *c->edge);
    if (!c->first || !c->edge) {
        wk_csr_free(c);
        return false;
    }
    for (size_t i = 0; i < g->n; i++)
        c->first[g->e[i].from + 1]++;
    for (uint32_t v = 0; v < n_nodes; v++)
        c->first[v + 1] += c->first[v];
    /* fill back to front: first[v + 1] walks down from the end of v's row
     * to its start, so edges keep their list order within a row */
    for (size_t i = g->n; i-- > 0;)
        c->edge[--c->first[g->e[i].from + 1]] = (uint32_t)i;
    for (uint32_t v = 0; v < n_nodes; v++)
        c->first[v] = c->first[v + 1];
    c->first[n_nodes] = (uint32_t)g->n;
    return true;
}

void wk_csr_free(wk_csr *c)
{
    free(c->first);
    free(c->edge);
    c->first = c->edge = NULL;
}

uint32_t wk_topo_order(const ip_trace *t, const wk_edges *g,
                       const wk_csr *c, uint32_t *order)
{
    uint32_t *indeg = calloc(t->n_txns, sizeof *indeg);
    if (!indeg)
        return IP_NONE;
    for (size_t i = 0; i < g->n; i++)
        indeg[g->e[i].to]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < t->n_txns; v++)
        if (indeg[v] == 0 && ip_committed(t, v))
            order[tail++] = v;
    while (head < tail) {
        uint32_t v = order[head++];
        for (uint32_t i = c->first[v]; i < c->first[v + 1]; i++) {
            uint32_t w = g->e[c->edge[i]].to;
            if (--indeg[w] == 0)
                order[tail++] = w;
        }
    }
    free(indeg);
    return tail;
}
