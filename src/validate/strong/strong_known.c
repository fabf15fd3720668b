/*
 * strong_known.c - the known part of the dependency graph: so and wr
 * edges, who reads each write, and the keys whose write order follows from
 * direct evidence (each writer, in topological order, has an so or wr edge
 * from the previous one - the read-modify-write chains of mini-transaction
 * histories).  Such a key costs O(writers + readers) and no search, as
 * does the known part of a key's version order when the input gave one
 * (Elle's list-append lists).
 */
#include <stdlib.h>
#include <string.h>

#include "strong_graph.h"

bool sg_oom(sg_ctx *c)
{
    return ip_oom(c->err, "ser/si check: out of memory");
}

bool sg_add_base(sg_ctx *c, uint32_t u, uint32_t v, uint8_t kind,
                 uint32_t key, uint8_t forced)
{
    sg_edge e = { sg_commit(c, u), sg_start(c, v), key, IP_NONE, kind,
                  forced };
    return sg_push(&c->g, e);
}

static bool counts_read(const ip_trace *t, const ip_event *ev)
{
    return ev->kind == IP_READ && ip_committed(t, ev->txn) &&
           ev->writer != IP_NONE && ip_committed(t, ev->writer);
}

static bool add_session_and_read_edges(sg_ctx *c)
{
    const ip_trace *t = c->t;
    if (c->si)
        for (uint32_t x = 0; x < t->n_txns; x++) {
            sg_edge e = { 2 * x, 2 * x + 1, IP_NONE, IP_NONE, SG_INTERNAL, 1 };
            if (ip_committed(t, x) && !sg_push(&c->g, e))
                return false;
        }
    for (uint32_t x = 1; x < t->n_txns; x++) {   /* session by session */
        if (!ip_committed(t, x))
            continue;
        uint32_t p = ip_prev_committed(t, x);
        if (!sg_add_base(c, p == IP_NONE ? IP_INIT_TXN : p, x, IP_EDGE_SO,
                         IP_NONE, 1))
            return false;
    }
    for (uint32_t i = 0; i < t->n_events; i++) {
        const ip_event *ev = &t->events[i];
        if (counts_read(t, ev) &&
            !sg_add_base(c, ev->writer, ev->txn, IP_EDGE_WR, ev->key, 1))
            return false;
    }
    return true;
}

/* rd_*: readers of every write event, in event order; rd_wev. */
static bool index_readers(sg_ctx *c)
{
    const ip_trace *t = c->t;
    c->rd_first = calloc((size_t)t->n_events + 1, sizeof *c->rd_first);
    c->rd_wev = malloc(((size_t)t->n_events + 1) * sizeof *c->rd_wev);
    if (!c->rd_first || !c->rd_wev)
        return false;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_events; i++) {
        const ip_event *ev = &t->events[i];
        uint32_t w = counts_read(t, ev) ? ip_write_event(t, ev->writer, ev->key)
                                        : IP_NONE;
        c->rd_wev[i] = w;
        if (w != IP_NONE) {
            c->rd_first[w + 1]++;
            n++;
        }
    }
    for (uint32_t e = 0; e < t->n_events; e++)
        c->rd_first[e + 1] += c->rd_first[e];
    c->rd = malloc((size_t)(n ? n : 1) * sizeof *c->rd);
    uint32_t *fill = malloc(((size_t)t->n_events + 1) * sizeof *fill);
    if (!c->rd || !fill) {
        free(fill);
        return false;
    }
    memcpy(fill, c->rd_first, ((size_t)t->n_events + 1) * sizeof *fill);
    for (uint32_t i = 0; i < t->n_events; i++) {
        uint32_t w = c->rd_wev[i];
        if (w != IP_NONE)
            c->rd[fill[w]++] = t->events[i].txn;
    }
    free(fill);
    return true;
}

/* rf_*: the distinct writers each transaction reads from, sorted, so that
 * "does v read from u" is a binary search. */
static bool index_read_from(sg_ctx *c)
{
    const ip_trace *t = c->t;
    c->rf_first = malloc(((size_t)t->n_txns + 1) * sizeof *c->rf_first);
    c->rf = malloc((size_t)(t->n_events ? t->n_events : 1) * sizeof *c->rf);
    if (!c->rf_first || !c->rf)
        return false;
    uint32_t n = 0;
    for (uint32_t x = 0; x < t->n_txns; x++) {
        c->rf_first[x] = n;
        const ip_txn *tx = &t->txns[x];
        uint32_t begin = n;
        for (uint32_t i = tx->ev_first; i < tx->ev_first + tx->ev_count; i++)
            if (counts_read(t, &t->events[i]))
                c->rf[n++] = t->events[i].writer;
        ip_sort_ids(c->rf + begin, n - begin);
        uint32_t u = begin;
        for (uint32_t i = begin; i < n; i++)
            if (u == begin || c->rf[u - 1] != c->rf[i])
                c->rf[u++] = c->rf[i];
        n = u;
    }
    c->rf_first[t->n_txns] = n;
    return true;
}

bool sg_build_base(sg_ctx *c)
{
    c->g.n_points = c->si ? 2 * c->t->n_txns : c->t->n_txns;
    if (!add_session_and_read_edges(c) || !index_readers(c))
        return sg_oom(c);
    return true;
}

bool sg_build_known(sg_ctx *c)
{
    return sg_build_base(c) && (index_read_from(c) || sg_oom(c));
}

static bool push_edge(void *env, const sg_edge *e)
{
    return sg_push(&((sg_ctx *)env)->g, *e);
}

/* sg_option_edges with a's write event e of key known. */
static bool option_edges_at(const sg_ctx *c, uint32_t key, uint32_t a,
                            uint32_t e, uint32_t b, uint8_t forced,
                            sg_edge_fn fn, void *env)
{
    sg_edge ww = { sg_commit(c, a), sg_start(c, b), key, IP_NONE, IP_EDGE_WW,
                   forced };
    if (!fn(env, &ww))
        return false;
    for (uint32_t i = c->rd_first[e]; i < c->rd_first[e + 1]; i++) {
        uint32_t r = c->rd[i];
        if (r == b)
            continue;
        sg_edge rw = { sg_start(c, r), sg_commit(c, b), key, a, IP_EDGE_RW,
                       forced };
        if (!fn(env, &rw))
            return false;
    }
    return true;
}

bool sg_option_edges(const sg_ctx *c, uint32_t key, uint32_t a, uint32_t b,
                     uint8_t forced, sg_edge_fn fn, void *env)
{
    return option_edges_at(c, key, a, ip_write_event(c->t, a, key), b, forced,
                           fn, env);
}

bool sg_add_option(sg_ctx *c, uint32_t key, uint32_t a, uint32_t b,
                   uint8_t forced)
{
    return sg_option_edges(c, key, a, b, forced, push_edge, c) || sg_oom(c);
}

bool sg_add_option_at(sg_ctx *c, uint32_t e, uint32_t b, uint8_t forced)
{
    const ip_event *ev = &c->t->events[e];
    return option_edges_at(c, ev->key, ev->txn, e, b, forced, push_edge, c) ||
           sg_oom(c);
}

/* An so or wr edge u -> v, given that u precedes v topologically. */
static bool direct_edge(const sg_ctx *c, uint32_t u, uint32_t v)
{
    const ip_trace *t = c->t;
    if (u == IP_INIT_TXN || t->txns[u].session == t->txns[v].session)
        return true;
    uint32_t hi = c->rf_first[v + 1];
    uint32_t i = ip_lower_bound(c->rf, c->rf_first[v], hi, u);
    return i < hi && c->rf[i] == u;
}

typedef struct { uint32_t pos, txn, ev; } pos_txn;

static int cmp_pos(const void *a, const void *b)
{
    const pos_txn *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Room for one more undecided key of m writers. */
static bool grow_ukeys(sg_ctx *c, uint32_t m, uint32_t *cap_k, uint32_t *cap_w,
                       uint64_t *cap_o)
{
    uint32_t nk = c->n_ukeys, nw = c->uk_first[nk];
    uint64_t no = c->uk_ord[nk], need_o = no + (uint64_t)m * m;
    if (need_o > ((uint64_t)1 << 32))
        return ip_fail(c->err, "ser/si check: too many unordered writers "
                               "(%llu writer pairs)",
                       (unsigned long long)need_o);
    if (nk + 1 >= *cap_k) {
        *cap_k *= 2;
        uint32_t *k = realloc(c->uk_key, *cap_k * sizeof *k);
        if (k) c->uk_key = k;
        uint32_t *f = realloc(c->uk_first, *cap_k * sizeof *f);
        if (f) c->uk_first = f;
        uint64_t *o = realloc(c->uk_ord, *cap_k * sizeof *o);
        if (o) c->uk_ord = o;
        if (!k || !f || !o)
            return sg_oom(c);
    }
    while (nw + m > *cap_w) {
        *cap_w *= 2;
        uint32_t *w = realloc(c->uk_w, *cap_w * sizeof *w);
        if (w)
            c->uk_w = w;
        uint32_t *e = realloc(c->uk_ev, *cap_w * sizeof *e);
        if (e)
            c->uk_ev = e;
        if (!w || !e)
            return sg_oom(c);
    }
    if (need_o > *cap_o) {
        uint64_t old = *cap_o;
        while (need_o > *cap_o)
            *cap_o *= 2;
        int8_t *o = realloc(c->ord, *cap_o);
        if (!o)
            return sg_oom(c);
        memset(o + old, 0, *cap_o - old);
        c->ord = o;
    }
    return true;
}

static bool add_ukey(sg_ctx *c, uint32_t key, const pos_txn *w, uint32_t m,
                     uint32_t *cap_k, uint32_t *cap_w, uint64_t *cap_o)
{
    if (!grow_ukeys(c, m, cap_k, cap_w, cap_o))
        return false;
    uint32_t nk = c->n_ukeys++;
    c->uk_key[nk] = key;
    for (uint32_t i = 0; i < m; i++) {
        c->uk_w[c->uk_first[nk] + i] = w[i].txn;
        c->uk_ev[c->uk_first[nk] + i] = w[i].ev;
    }
    c->uk_first[nk + 1] = c->uk_first[nk] + m;
    c->uk_ord[nk + 1] = c->uk_ord[nk] + (uint64_t)m * m;
    c->stats->pairs_total += (uint64_t)m * (m - 1) / 2;
    return true;
}

/* Key k with a known version order (ip_trace.key_order_*): its listed
 * writers in order are fixed, as is each other writer after the last
 * listed one; only the order among those others is left to the search
 * (a key of its own in uk_*, without the listed writers). */
static bool add_versioned_key(sg_ctx *c, uint32_t k, pos_txn *w,
                              uint32_t *cap_k, uint32_t *cap_w,
                              uint64_t *cap_o)
{
    const ip_trace *t = c->t;
    uint32_t prev = IP_INIT_TXN, m = 0;
    for (uint32_t i = t->key_order_first[k]; i < t->key_order_first[k + 1];
         i++) {
        if (!sg_add_option(c, k, prev, t->key_order[i], 1))
            return false;
        prev = t->key_order[i];
    }
    for (uint32_t i = t->key_writer_first[k]; i < t->key_writer_first[k + 1];
         i++) {
        uint32_t x = t->key_writer[i];
        if (x == IP_INIT_TXN || t->key_order_pos[i] != IP_NONE)
            continue;
        if (!sg_add_option(c, k, prev, x, 1))
            return false;
        w[m++] = (pos_txn){ c->g.topo_pos[sg_commit(c, x)], x,
                            t->key_writer_event[i] };
    }
    if (m < 2) {
        c->stats->keys_chained++;
        return true;
    }
    qsort(w, m, sizeof *w, cmp_pos);
    return add_ukey(c, k, w, m, cap_k, cap_w, cap_o);
}

static bool has_versions(const ip_trace *t, uint32_t k)
{
    return ip_trace_has_versions(t) &&
           t->key_order_first[k + 1] > t->key_order_first[k];
}

bool sg_chain_keys(sg_ctx *c, bool no_chains)
{
    const ip_trace *t = c->t;
    uint32_t cap_k = 16, cap_w = 64;
    uint64_t cap_o = 256;
    c->uk_key = malloc(cap_k * sizeof *c->uk_key);
    c->uk_first = calloc(cap_k, sizeof *c->uk_first);
    c->uk_ord = calloc(cap_k, sizeof *c->uk_ord);
    c->uk_w = malloc(cap_w * sizeof *c->uk_w);
    c->uk_ev = malloc(cap_w * sizeof *c->uk_ev);
    c->ord = calloc(cap_o, 1);
    uint32_t max_m = 0;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        uint32_t m = t->key_writer_first[k + 1] - t->key_writer_first[k];
        max_m = m > max_m ? m : max_m;
    }
    pos_txn *w = malloc((size_t)(max_m ? max_m : 1) * sizeof *w);
    if (!c->uk_key || !c->uk_first || !c->uk_ord || !c->uk_w || !c->uk_ev ||
        !c->ord || !w) {
        free(w);
        return sg_oom(c);
    }
    bool ok = true;
    for (uint32_t k = 0; ok && k < t->n_keys; k++) {
        uint32_t first = t->key_writer_first[k];
        uint32_t m = t->key_writer_first[k + 1] - first;
        if (m < 2)
            continue;
        c->stats->keys_total++;
        if (has_versions(t, k)) {
            ok = add_versioned_key(c, k, w, &cap_k, &cap_w, &cap_o);
            continue;
        }
        for (uint32_t i = 0; i < m; i++) {
            w[i].txn = t->key_writer[first + i];
            w[i].ev = t->key_writer_event[first + i];
            w[i].pos = c->g.topo_pos[sg_commit(c, w[i].txn)];
        }
        qsort(w, m, sizeof *w, cmp_pos);
        bool chain = !no_chains;
        for (uint32_t i = 1; chain && i < m; i++)
            chain = direct_edge(c, w[i - 1].txn, w[i].txn);
        if (!chain) {
            ok = add_ukey(c, k, w, m, &cap_k, &cap_w, &cap_o);
            continue;
        }
        c->stats->keys_chained++;
        for (uint32_t i = 1; ok && i < m; i++)
            ok = sg_add_option(c, k, w[i - 1].txn, w[i].txn, 1);
    }
    free(w);
    c->fixed_edges = c->g.n_edges;
    return ok;
}
