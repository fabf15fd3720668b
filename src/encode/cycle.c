/* cycle.c - a necessary condition for an unserializable prediction,
 * asserted once: its dependency graph under a fixed version order has a
 * cycle (ip_encoder_require_cycle in encode.h).
 *
 * Why it holds: fix, per key, a total order << of its writers.  The
 * graph has so, wr, ww (each writer to the next one by <<) and rw (a
 * reader to the writer that follows its writer by <<).  If it is acyclic,
 * any topological order is a serial order: a read of k from w sees no
 * other write of k in between, since writers before w reach w along the
 * ww chain and writers after w are reached from the reader through its rw
 * edge and the chain.  So an unserializable history has a cycle, whatever
 * << is.  With << the observed serial order, so, ww and the observed
 * reads' edges all point forward in it: a cycle needs a changed read (a
 * stale read's rw edge or a read of a later write points backward) and a
 * way back from it.  A history that only changes reads nothing leads
 * back to - the bulk of the serializable candidates of a bounded search,
 * which the caller would otherwise refute one serial order at a time -
 * has no such cycle, and the solver stops proposing it.
 *
 * The graph is over-approximated where that is cheaper: edges of
 * transactions and writes the history leaves out stay in (more edges only
 * weaken the condition).  The cycle itself is "a nonempty set of
 * transactions each with an edge to one in the set": in a finite graph
 * such a set holds a cycle, and a cycle is such a set. */
#include "enc_internal.h"

#include <stdlib.h>

typedef struct dep_edge {
    uint32_t src, dst;        /* relevant indices */
    Z3_ast act;               /* the edge is in the history's graph */
} dep_edge;

typedef struct edge_list {
    dep_edge *a;
    uint32_t n;
} edge_list;

static void add_edge(const ip_encoder *e, edge_list *l, uint32_t src,
                     uint32_t dst, Z3_ast act)
{
    if (src == 0 || dst == 0 || src == dst || src == IP_NONE ||
        dst == IP_NONE || lit_is_false(e, act))
        return;               /* txn 0 has no edge in: never on a cycle */
    l->a[l->n++] = (dep_edge){src, dst, act};
}

/* next[q]: the writer after key_writer[q] in its key's version order by
 * pos, IP_NONE for the last. */
static bool next_writers(const ip_trace *t, const uint32_t *pos,
                         uint32_t *next)
{
    uint32_t total = t->key_writer_first[t->n_keys];
    uint32_t *rank = malloc(sizeof *rank * (total + 1));
    uint32_t *slot = malloc(sizeof *slot * (total + 1));
    bool ok = rank && slot && enc_rank_writers(t, pos, rank);
    for (uint32_t k = 0; ok && k < t->n_keys; k++) {
        uint32_t f = t->key_writer_first[k], n = t->key_writer_first[k + 1] - f;
        for (uint32_t i = 0; i < n; i++)
            slot[f + rank[f + i]] = f + i;
        for (uint32_t r = 0; r < n; r++)
            next[slot[f + r]] = r + 1 < n ? t->key_writer[slot[f + r + 1]]
                                          : IP_NONE;
    }
    free(rank);
    free(slot);
    return ok;
}

/* so between consecutive relevant transactions of a session (the others
 * touch no shared key), and the ww chains. */
static void static_edges(const ip_encoder *e, const uint32_t *next,
                         edge_list *l)
{
    const ip_trace *t = e->tr;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        uint32_t prev = IP_NONE;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            if (e->rel[x] == IP_NONE)
                continue;
            if (prev != IP_NONE)
                add_edge(e, l, e->rel[prev], e->rel[x], e->t);
            prev = x;
        }
    }
    for (uint32_t k = 0; k < t->n_keys; k++) {
        if (!enc_key_shared(t, k))
            continue;
        for (uint32_t q = t->key_writer_first[k];
             q < t->key_writer_first[k + 1]; q++)
            if (next[q] != IP_NONE)
                add_edge(e, l, e->rel[t->key_writer[q]], e->rel[next[q]],
                         e->t);
    }
}

/* wr from each possible writer, rw from each read group to the writer
 * after the one it reads (its own write, if that is next, is a step of
 * the chain it continues from). */
static void read_edges(const ip_encoder *e, const uint32_t *next,
                       edge_list *l)
{
    const ip_trace *t = e->tr;
    for (uint32_t r = 1; r < e->n_rel; r++)
        for (uint32_t i = e->wr_first[r]; i < e->wr_first[r + 1]; i++)
            add_edge(e, l, e->wr_src[i], r, e->wr_h[i]);
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t w = e->gcand[g->cand_first + i];
            uint32_t q = ip_lower_bound(t->key_writer,
                                        t->key_writer_first[g->key],
                                        t->key_writer_first[g->key + 1], w);
            uint32_t y = next[q];
            if (y != IP_NONE && y != g->txn)
                add_edge(e, l, e->rel[g->txn], e->rel[y],
                         e->gwr_hist[g->wr_first + i]);
        }
    }
}

/* oc[v] => some edge out of v is in the graph and leads to a w with
 * oc[w]; some oc[v]. */
static bool assert_cycle(ip_encoder *e, const edge_list *l)
{
    uint32_t n = e->n_rel;
    uint32_t *first = calloc((size_t)n + 2, sizeof *first);
    dep_edge *by_src = malloc(sizeof *by_src * (l->n + 1));
    Z3_ast *oc = malloc(sizeof *oc * (n + 1));
    Z3_ast *lits = malloc(sizeof *lits * ((size_t)(l->n > n ? l->n : n) + 2));
    bool ok = first && by_src && oc && lits;
    for (uint32_t i = 0; ok && i < l->n; i++)
        first[l->a[i].src + 1]++;
    for (uint32_t v = 0; ok && v < n; v++)
        first[v + 1] += first[v];
    for (uint32_t i = 0; ok && i < l->n; i++)
        by_src[first[l->a[i].src]++] = l->a[i];
    for (uint32_t v = n; ok && v > 0; v--)   /* back to each run's start */
        first[v] = first[v - 1];
    if (ok)
        first[0] = 0;
    for (uint32_t v = 1; ok && v < n; v++)
        oc[v] = lit_var(e, "oc", e->relv[v], 0);
    for (uint32_t v = 1; ok && v < n && !enc_halted(e); v++) {
        uint32_t m = 0;
        lits[m++] = lit_not(e, oc[v]);
        for (uint32_t i = first[v]; i < first[v + 1]; i++)
            lits[m++] = lit_and2(e, by_src[i].act, oc[by_src[i].dst]);
        enc_clause(e, lits, m);
    }
    for (uint32_t v = 1; ok && v < n; v++)
        lits[v - 1] = oc[v];
    if (ok)
        enc_clause(e, lits, n - 1);
    free(first);
    free(by_src);
    free(oc);
    free(lits);
    return ok;
}

bool ip_encoder_require_cycle(ip_encoder *enc, const uint32_t *order,
                              uint32_t n, ip_error *err)
{
    if (!enc || (!order && n))
        return ip_fail(err, "encode: require_cycle: no encoder or order");
    const ip_trace *t = enc->tr;
    uint32_t *pos = malloc(sizeof *pos * (t->n_txns + 1));
    uint32_t *next = malloc(sizeof *next *
                            (t->key_writer_first[t->n_keys] + 1));
    size_t cap = (size_t)enc->n_rel + t->key_writer_first[t->n_keys] +
                 2 * (size_t)enc->n_gcand + 1;
    edge_list l = {malloc(sizeof *l.a * cap), 0};
    bool ok = pos && next && l.a;
    /* named transactions by their place; the rest after them, by id */
    for (uint32_t x = 0; ok && x < t->n_txns; x++)
        pos[x] = n + 1 + x;
    for (uint32_t i = 0; ok && i < n; i++) {
        if (order[i] >= t->n_txns) {
            free(pos);
            free(next);
            free(l.a);
            return ip_fail(err, "encode: require_cycle: txn id %u out of "
                           "range", order[i]);
        }
        pos[order[i]] = i + 1;
    }
    ok = ok && next_writers(t, pos, next);
    if (ok) {
        static_edges(enc, next, &l);
        read_edges(enc, next, &l);
        ok = assert_cycle(enc, &l);
    }
    free(pos);
    free(next);
    free(l.a);
    if (!ok)
        return ip_oom(err, "encode: out of memory");
    return enc_z3_ok(enc, err, "requiring a cycle");
}
