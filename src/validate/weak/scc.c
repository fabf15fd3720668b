/* scc.c - Tarjan's strongly connected components, without recursion. */
#include "weak.h"

#include <stdlib.h>

typedef struct tarjan {
    const wk_csr *c;
    const ip_edge *e;
    uint32_t *index, *low, *comp;
    uint32_t *stack, n_stack;      /* Tarjan's node stack */
    uint32_t *call, *pos, n_call;  /* DFS call stack: node, next edge */
    uint32_t next_index, n_comp;
} tarjan;

static void pop_component(tarjan *s, uint32_t v)
{
    uint32_t w;
    do {
        w = s->stack[--s->n_stack];
        s->comp[w] = s->n_comp;
    } while (w != v);
    s->n_comp++;
}

static void visit(tarjan *s, uint32_t root)
{
    s->index[root] = s->low[root] = s->next_index++;
    s->stack[s->n_stack++] = root;
    s->call[0] = root;
    s->pos[0] = s->c->first[root];
    s->n_call = 1;
    while (s->n_call) {
        uint32_t v = s->call[s->n_call - 1];
        uint32_t *p = &s->pos[s->n_call - 1];
        if (*p < s->c->first[v + 1]) {
            uint32_t w = s->e[s->c->edge[(*p)++]].to;
            if (s->index[w] == IP_NONE) {
                s->index[w] = s->low[w] = s->next_index++;
                s->stack[s->n_stack++] = w;
                s->call[s->n_call] = w;
                s->pos[s->n_call++] = s->c->first[w];
            } else if (s->comp[w] == IP_NONE && s->index[w] < s->low[v]) {
                s->low[v] = s->index[w];     /* w is on the stack */
            }
            continue;
        }
        if (s->low[v] == s->index[v])
            pop_component(s, v);
        if (--s->n_call) {
            uint32_t u = s->call[s->n_call - 1];
            if (s->low[v] < s->low[u])
                s->low[u] = s->low[v];
        }
    }
}

uint32_t *wk_scc_of(const wk_csr *c, const ip_edge *e, uint32_t *n_comp)
{
    size_t n = c->n ? c->n : 1;
    tarjan s = {.c = c, .e = e,
                .index = malloc(n * sizeof(uint32_t)),
                .low = malloc(n * sizeof(uint32_t)),
                .comp = malloc(n * sizeof(uint32_t)),
                .stack = malloc(n * sizeof(uint32_t)),
                .call = malloc(n * sizeof(uint32_t)),
                .pos = malloc(n * sizeof(uint32_t))};
    bool ok = s.index && s.low && s.comp && s.stack && s.call && s.pos;
    if (ok) {
        for (uint32_t v = 0; v < c->n; v++)
            s.index[v] = s.comp[v] = IP_NONE;
        for (uint32_t v = 0; v < c->n; v++)
            if (s.index[v] == IP_NONE)
                visit(&s, v);
        *n_comp = s.n_comp;
    }
    free(s.index);
    free(s.low);
    free(s.stack);
    free(s.call);
    free(s.pos);
    if (!ok) {
        free(s.comp);
        return NULL;
    }
    return s.comp;
}
