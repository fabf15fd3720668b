/*
 * strong_witness.c - what the ser/si checker hands back: an order over the
 * committed transactions read off the final acyclic graph, or one cycle of
 * labelled dependency edges, and the serial-order validator.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_graph.h"

/* si: does the commit order put writers in their known version order? */
static bool commits_follow_versions(const ip_trace *t, const uint32_t *order,
                                    uint32_t n, bool *oom)
{
    if (!ip_trace_has_versions(t))
        return true;
    uint32_t *pos = malloc(((size_t)t->n_txns + 1) * sizeof *pos);
    if (!pos)
        return !(*oom = true);
    for (uint32_t i = 0; i < n; i++)
        pos[order[i]] = i;
    bool ok = ip_versions_respected(t, pos);
    free(pos);
    return ok;
}

bool sg_order_witness(sg_ctx *c, ip_verdict *out)
{
    const ip_trace *t = c->t;
    const sg_graph *g = &c->g;
    uint32_t n = ip_committed_count(t) + 1, k = 0;
    out->order = malloc((size_t)n * sizeof *out->order);
    if (!out->order)
        return sg_oom(c);
    /* ser: the topological order; si: the order of commit points */
    for (uint32_t i = 0; i < g->n_topo && k < n; i++) {
        uint32_t p = g->topo[i], x = sg_txn_of(c, p);
        if (ip_committed(t, x) && p == sg_commit(c, x))
            out->order[k++] = x;
    }
    out->n_order = k;
    bool oom = false;
    if (k != n || out->order[0] != IP_INIT_TXN ||
        (!c->si && !ip_serial_order_is_valid(t, out->order, n, &oom)) ||
        (c->si && !commits_follow_versions(t, out->order, n, &oom)))
        return oom ? sg_oom(c)
                   : ip_fail(c->err, "ser/si check: internal error: the "
                             "witness order is not valid");
    return true;
}

/* si: entering a transaction through an rw edge lands on its commit point,
 * leaving through one starts from its start point; only that pair cannot
 * be joined inside the transaction. */
static bool joinable(const sg_ctx *c, const sg_edge *in, const sg_edge *outg)
{
    return !c->si || in->kind != IP_EDGE_RW || outg->kind != IP_EDGE_RW;
}

/* Drop internal edges, then cut the cycle at repeated transactions (si
 * point cycles may pass a transaction twice) keeping a joinable part. */
static uint32_t simple_cycle(const sg_ctx *c, sg_edge *e, uint32_t n,
                             uint32_t *seen)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (e[i].kind != SG_INTERNAL)
            e[m++] = e[i];
    for (bool again = true; again;) {
        again = false;
        for (uint32_t i = 0; i < m; i++)
            seen[sg_txn_of(c, e[i].from)] = UINT32_MAX;
        for (uint32_t j = 0; j < m && !again; j++) {
            uint32_t x = sg_txn_of(c, e[j].from), i = seen[x];
            if (i == UINT32_MAX) {
                seen[x] = j;
                continue;
            }
            again = true;
            /* part A: e[i..j-1]; part B: e[j..m-1] then e[0..i-1] */
            if (joinable(c, &e[j - 1], &e[i])) {
                memmove(e, e + i, (size_t)(j - i) * sizeof *e);
                m = j - i;
            } else {
                memmove(e + i, e + j, (size_t)(m - j) * sizeof *e);
                m = i + (m - j);
            }
        }
    }
    return m;
}

bool sg_cycle_witness(sg_ctx *c, ip_verdict *out)
{
    uint32_t n = 0;
    uint32_t *ids = sg_find_cycle(&c->g, &n);
    sg_edge *e = ids ? malloc((size_t)n * sizeof *e) : NULL;
    uint32_t *seen = malloc((size_t)c->t->n_txns * sizeof *seen);
    out->cycles = calloc(1, sizeof *out->cycles);
    bool ok = ids && e && seen && out->cycles;
    if (ok) {
        for (uint32_t i = 0; i < n; i++)
            e[i] = c->g.edges[ids[i]];
        uint32_t m = simple_cycle(c, e, n, seen);
        ip_edge *ed = malloc((size_t)m * sizeof *ed);
        ok = ed != NULL;
        for (uint32_t i = 0; ok && i < m; i++) {
            bool order_edge = e[i].kind == IP_EDGE_WW || e[i].kind == IP_EDGE_RW;
            ed[i] = (ip_edge){ .from = sg_txn_of(c, e[i].from),
                               .to = sg_txn_of(c, e[i].to),
                               .kind = e[i].kind, .key = e[i].key,
                               .via = e[i].via,
                               .forced = order_edge && e[i].forced };
        }
        if (ok) {
            out->cycles[0] = (ip_cycle){ ed, m };
            out->n_cycles = 1;
        }
    }
    free(ids);
    free(e);
    free(seen);
    return ok || sg_oom(c);
}

static bool place_orders(const ip_trace *t, const uint32_t *order, uint32_t n,
                         uint32_t *pos)
{
    uint32_t seen = 0;
    for (uint32_t x = 0; x < t->n_txns; x++)
        pos[x] = IP_NONE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = order[i];
        if (x >= t->n_txns || !ip_committed(t, x) || pos[x] != IP_NONE ||
            (x == IP_INIT_TXN && i != 0))
            return false;
        pos[x] = i;
        seen += x != IP_INIT_TXN;
    }
    return seen == ip_committed_count(t);
}

static bool respects_sessions(const ip_trace *t, const uint32_t *pos)
{
    for (uint32_t x = 1; x < t->n_txns; x++) {
        uint32_t p = ip_committed(t, x) ? ip_prev_committed(t, x) : IP_NONE;
        if (p != IP_NONE && pos[p] > pos[x])
            return false;
    }
    return true;
}

/* May read event e see a write of `writer`?  A read without writer or
 * candidates is unconstrained (the ambiguous checker's views leave open
 * reads so). */
static bool may_read(const ip_trace *t, uint32_t e, uint32_t writer)
{
    if (t->events[e].writer == IP_NONE && t->n_ambiguous == 0)
        return true;
    return ip_read_may_see(t, e, writer);
}

/* Run the order: each read event must see the last writer of its key. */
static bool reads_latest(const ip_trace *t, const uint32_t *order, uint32_t n,
                         uint32_t *last)
{
    for (uint32_t k = 0; k < t->n_keys; k++)
        last[k] = IP_INIT_TXN;
    for (uint32_t i = 0; i < n; i++) {
        const ip_txn *tx = &t->txns[order[i]];
        const ip_event *ev = t->events + tx->ev_first;
        for (uint32_t j = 0; j < tx->ev_count; j++)
            if (ev[j].kind == IP_READ &&
                !may_read(t, tx->ev_first + j, last[ev[j].key]))
                return false;
        for (uint32_t j = 0; j < tx->ev_count; j++)
            if (ev[j].kind == IP_WRITE)
                last[ev[j].key] = order[i];
    }
    return true;
}

bool ip_serial_order_is_valid(const ip_trace *t, const uint32_t *order,
                              uint32_t n, bool *oom)
{
    uint32_t *pos = malloc(((size_t)t->n_txns + 1) * sizeof *pos);
    uint32_t *last = malloc(((size_t)t->n_keys + 1) * sizeof *last);
    if (oom)
        *oom = !pos || !last;
    bool ok = pos && last && place_orders(t, order, n, pos) &&
              respects_sessions(t, pos) && ip_versions_respected(t, pos) &&
              reads_latest(t, order, n, last);
    free(pos);
    free(last);
    return ok;
}
