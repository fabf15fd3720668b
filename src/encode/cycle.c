/* cycle.c - a necessary condition for an unserializable prediction,
 * asserted once: its dependency graph under a fixed version order has a
 * cycle (ip_encoder_require_cycle in encode.h).
 *
 * Why it holds: fix, per key, a total order << of its writers.  The
 * graph has so, wr, ww (each writer to the writers after it by <<) and rw
 * (a reader to the writers after its writer by <<, itself excepted).  If
 * it is acyclic, any topological order is a serial order: a read of k
 * from w sees no other write of k in between, since writers before w
 * precede w and writers after w follow the reader.  So an unserializable
 * history has a cycle, whatever << is.  With << the observed serial
 * order, so, ww and the observed reads' edges all point forward in it: a
 * cycle needs a changed read (a stale read's rw edge or a read of a later
 * write points backward) and a way back from it.  A history whose changed
 * reads lead nowhere back - the bulk of the serializable candidates of a
 * bounded search, which the caller would otherwise refute one serial
 * order at a time - has no such cycle, and the solver stops proposing it.
 *
 * The graph is the history's own: its edges need the transactions and
 * writes they join to be kept.  The cycle itself is "a nonempty set of
 * nodes each with an edge to one in the set": in a finite graph such a
 * set holds a cycle, and a cycle is such a set. */
#include "enc_internal.h"

#include <stdlib.h>

typedef struct dep_edge {
    uint32_t src, dst;        /* nodes (see slot_node) */
    Z3_ast act;               /* the edge is in the history's graph */
} dep_edge;

typedef struct edge_list {
    dep_edge *a;
    uint32_t n, cap;
    bool oom;
} edge_list;

static void add_edge(const ip_encoder *e, edge_list *l, uint32_t src,
                     uint32_t dst, Z3_ast act)
{
    if (src == 0 || dst == 0 || src == dst || lit_is_false(e, act))
        return;               /* txn 0 has no edge in: never on a cycle */
    if (l->n == l->cap && !ip_grow((void **)&l->a, &l->cap, sizeof *l->a)) {
        l->oom = true;
        return;
    }
    l->a[l->n++] = (dep_edge){src, dst, act};
}

/* Each key's writers in the version order: rank[q] is key_writer[q]'s
 * place, next[q] the slot of the writer after it (IP_NONE for the last). */
typedef struct version_order {
    uint32_t *rank, *next;
} version_order;

static bool version_order_of(const ip_trace *t, const uint32_t *pos,
                             version_order *vo)
{
    uint32_t total = t->key_writer_first[t->n_keys];
    uint32_t *slot = malloc(sizeof *slot * (total + 1));
    vo->rank = malloc(sizeof *vo->rank * (total + 1));
    vo->next = malloc(sizeof *vo->next * (total + 1));
    bool ok = slot && vo->rank && vo->next &&
              enc_rank_writers(t, pos, vo->rank);
    for (uint32_t k = 0; ok && k < t->n_keys; k++) {
        uint32_t f = t->key_writer_first[k], n = t->key_writer_first[k + 1] - f;
        for (uint32_t i = 0; i < n; i++)
            slot[f + vo->rank[f + i]] = f + i;
        for (uint32_t r = 0; r < n; r++)
            vo->next[slot[f + r]] = r + 1 < n ? slot[f + r + 1] : IP_NONE;
    }
    free(slot);
    return ok;
}

/* Nodes: relevant transactions (their dense index), then one per
 * key_writer slot: the point of the key's version order just after that
 * write.  A point leads to the next point and to the next writer, a
 * writer to the point after its write, when the write is in the history:
 * a path along the version order enters only writers the history keeps.
 * A transaction the history drops has no edge out (so, wr and rw edges
 * all need both ends kept). */
static uint32_t slot_node(const ip_encoder *e, uint32_t q)
{
    return e->n_rel + q;
}

static void order_edges(ip_encoder *e, const version_order *vo,
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
                add_edge(e, l, e->rel[prev], e->rel[x],
                         enc_txn_present(e, x));
            prev = x;
        }
    }
    for (uint32_t k = 0; k < t->n_keys; k++) {
        if (!enc_key_shared(t, k))
            continue;
        for (uint32_t q = t->key_writer_first[k];
             q < t->key_writer_first[k + 1]; q++) {
            uint32_t w = t->key_writer[q], n = vo->next[q];
            if (w != IP_INIT_TXN)
                add_edge(e, l, e->rel[w], slot_node(e, q),
                         enc_write_exists(e, w, k));
            if (n == IP_NONE)
                continue;
            add_edge(e, l, slot_node(e, q), slot_node(e, n), e->t);
            add_edge(e, l, slot_node(e, q), e->rel[t->key_writer[n]],
                     enc_write_exists(e, t->key_writer[n], k));
        }
    }
}

/* rw of group g reading from slot q's writer (wr its literal): to every
 * writer after it but g's own transaction, whose write of the key is at
 * slot own (IP_NONE: none).  When that write comes later in the order,
 * the writers in between get an edge each and the rest are reached from
 * the point after it; else the point after q leads to them all. */
static void rw_edges(ip_encoder *e, const version_order *vo,
                     const enc_group *g, uint32_t own, uint32_t q, Z3_ast wr,
                     edge_list *l)
{
    const ip_trace *t = e->tr;
    if (own == IP_NONE || vo->rank[own] < vo->rank[q]) {
        add_edge(e, l, e->rel[g->txn], slot_node(e, q), wr);
        return;
    }
    for (uint32_t p = vo->next[q]; p != own; p = vo->next[p]) {
        uint32_t w = t->key_writer[p];
        add_edge(e, l, e->rel[g->txn], e->rel[w],
                 lit_and2(e, wr, enc_write_exists(e, w, g->key)));
    }
    add_edge(e, l, e->rel[g->txn], slot_node(e, own), wr);
}

static void read_edges(ip_encoder *e, const version_order *vo,
                       edge_list *l)
{
    const ip_trace *t = e->tr;
    for (uint32_t r = 1; r < e->n_rel; r++)
        for (uint32_t i = e->wr_first[r]; i < e->wr_first[r + 1]; i++)
            add_edge(e, l, e->wr_src[i], r, e->wr_h[i]);
    for (uint32_t gi = 0; gi < e->n_groups && !l->oom; gi++) {
        const enc_group *g = &e->groups[gi];
        uint32_t own = ip_write_event(t, g->txn, g->key) != IP_NONE
                           ? enc_writer_slot(t, g->key, g->txn) : IP_NONE;
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t q = enc_writer_slot(t, g->key,
                                         e->gcand[g->cand_first + i]);
            rw_edges(e, vo, g, own, q, e->gwr_hist[g->wr_first + i], l);
        }
    }
}

/* oc[v] => some edge out of v is in the graph and leads to a w with
 * oc[w]; some oc[v] of a transaction (the version order's points alone
 * hold no cycle). */
static bool assert_cycle(ip_encoder *e, const edge_list *l, uint32_t n)
{
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
        oc[v] = lit_var(e);
    for (uint32_t v = 1; ok && v < n && !enc_halted(e); v++) {
        uint32_t m = 0;
        lits[m++] = lit_not(e, oc[v]);
        for (uint32_t i = first[v]; i < first[v + 1]; i++)
            lits[m++] = lit_and2(e, by_src[i].act, oc[by_src[i].dst]);
        enc_clause(e, lits, m);
    }
    for (uint32_t v = 1; ok && v < e->n_rel; v++)
        lits[v - 1] = oc[v];
    if (ok)
        enc_clause(e, lits, e->n_rel - 1);
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
    for (uint32_t i = 0; i < n; i++)
        if (order[i] >= t->n_txns)
            return ip_fail(err, "encode: require_cycle: txn id %u out of "
                           "range", order[i]);
    /* named transactions by their place; the rest after them, by id */
    uint32_t *pos = malloc(sizeof *pos * (t->n_txns + 1));
    version_order vo = {0};
    edge_list l = {0};
    bool ok = pos != NULL;
    for (uint32_t x = 0; ok && x < t->n_txns; x++)
        pos[x] = n + 1 + x;
    for (uint32_t i = 0; ok && i < n; i++)
        pos[order[i]] = i + 1;
    ok = ok && version_order_of(t, pos, &vo);
    if (ok) {
        order_edges(enc, &vo, &l);
        read_edges(enc, &vo, &l);
        ok = !l.oom &&
             assert_cycle(enc, &l, enc->n_rel + t->key_writer_first[t->n_keys]);
    }
    free(pos);
    free(vo.rank);
    free(vo.next);
    free(l.a);
    if (!ok)
        return ip_oom(err, "encode: out of memory");
    return enc_z3_ok(enc, err, "requiring a cycle");
}
