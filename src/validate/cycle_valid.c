/*
 * cycle_valid.c - independent re-check of a witness cycle against the trace.
 *
 * Every edge is re-derived from the trace alone (not from the checker's
 * graph):
 *   so  ip_so(from, to);
 *   wr  `to` has a read event of `key` whose writer is `from` (or, for an
 *       ambiguous read, one of whose candidates is);
 *   ww  both write `key`, in an order the known version order (if any)
 *       allows: at ser and si one it does not contradict, at the weak
 *       levels (whose only ww edges come from it) one it gives;
 *   rw  `from` reads `key` from `via`, `to` writes `key`, to != via, and
 *       the known version order does not put `to` before `via`;
 *   co  an instance of the level's axiom with t2 = from, t1 = to, the key
 *       and t3 = via; at si and ser the causal axiom (both imply causal, so
 *       its inferred orders are forced there too).
 * All transactions must be committed and distinct per edge, and the edges
 * must chain and close.
 */
#include "validate.h"

#include <stdlib.h>

/* Index of the first read event of `reader` with the given writer (and
 * key, unless key is IP_NONE), at or after event `from_ev`; IP_NONE if
 * none. */
static uint32_t find_read(const ip_trace *t, uint32_t reader, uint32_t writer,
                          uint32_t key, uint32_t from_ev)
{
    const ip_txn *x = &t->txns[reader];
    uint32_t end = x->ev_first + x->ev_count;
    for (uint32_t e = from_ev > x->ev_first ? from_ev : x->ev_first; e < end;
         e++) {
        const ip_event *ev = &t->events[e];
        if (ev->kind == IP_READ && ip_read_may_see(t, e, writer) &&
            (key == IP_NONE || ev->key == key))
            return e;
    }
    return IP_NONE;
}

static bool writes(const ip_trace *t, uint32_t txn, uint32_t key)
{
    return key < t->n_keys && ip_write_event(t, txn, key) != IP_NONE;
}

/* (so u wr)+ from a to b, by a backward search from b.  Out of memory:
 * false with *oom set (nothing decided). */
static bool happens_before(const ip_trace *t, uint32_t a, uint32_t b,
                           bool *oom)
{
    if (a == IP_INIT_TXN)
        return b != IP_INIT_TXN;
    uint8_t *seen = calloc(t->n_txns, 1);
    uint32_t *stack = malloc(t->n_txns * sizeof *stack);
    bool found = false;
    uint32_t n = 0;
    if (!seen || !stack) {
        *oom = true;
        goto out;
    }
    stack[n++] = b;
    seen[b] = 1;
    while (n && !found) {
        uint32_t v = stack[--n];
        const ip_txn *x = &t->txns[v];
        /* so predecessor: every earlier committed txn reaches v by so */
        for (uint32_t p = v; p-- > t->sessions[x->session].txn_first;)
            if (ip_committed(t, p)) {
                if (!seen[p]) {
                    seen[p] = 1;
                    stack[n++] = p;
                }
                break;
            }
        for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++) {
            uint32_t w = t->events[e].writer;
            if (t->events[e].kind != IP_READ || w == IP_NONE ||
                w == IP_INIT_TXN || seen[w] || !ip_committed(t, w))
                continue;
            seen[w] = 1;
            stack[n++] = w;
        }
        found = seen[a];
    }
out:
    free(seen);
    free(stack);
    return found;
}

/* RC: via reads from t2 at r, and later reads key from t1. */
static bool rc_instance(const ip_trace *t, const ip_edge *e)
{
    uint32_t r = find_read(t, e->via, e->from, IP_NONE, 0);
    return r != IP_NONE && find_read(t, e->via, e->to, e->key, r + 1) != IP_NONE;
}

static bool co_instance(const ip_trace *t, ip_level lvl, const ip_edge *e,
                        bool *oom)
{
    if (e->via == IP_NONE || e->via >= t->n_txns || e->via == e->from ||
        e->via == e->to || !ip_committed(t, e->via) ||
        !writes(t, e->from, e->key))
        return false;
    if (lvl == IP_LVL_RC)
        return rc_instance(t, e);
    if (find_read(t, e->via, e->to, e->key, 0) == IP_NONE)
        return false;
    if (ip_so(t, e->from, e->via) ||
        find_read(t, e->via, e->from, IP_NONE, 0) != IP_NONE)
        return true;             /* so u wr: enough for ra and causal */
    return lvl != IP_LVL_RA && happens_before(t, e->from, e->via, oom);
}

/* May a's version of key precede b's?  At ser and si any order the known
 * version order does not contradict (the checker chose the rest); at the
 * weak levels, whose only ww edges are the known orders', that order. */
static bool version_allows(const ip_trace *t, ip_level lvl, uint32_t key,
                           uint32_t a, uint32_t b)
{
    int cmp = ip_version_cmp(t, key, a, b);
    return lvl == IP_LVL_SER || lvl == IP_LVL_SI ? cmp >= 0 : cmp > 0;
}

static bool edge_valid(const ip_trace *t, ip_level lvl, const ip_edge *e,
                       bool *oom)
{
    if (e->from >= t->n_txns || e->to >= t->n_txns || e->from == e->to ||
        !ip_committed(t, e->from) || !ip_committed(t, e->to))
        return false;
    switch ((ip_edge_kind)e->kind) {
    case IP_EDGE_SO:
        return ip_so(t, e->from, e->to);
    case IP_EDGE_WR:
        return e->key < t->n_keys &&
               find_read(t, e->to, e->from, e->key, 0) != IP_NONE;
    case IP_EDGE_WW:
        return writes(t, e->from, e->key) && writes(t, e->to, e->key) &&
               version_allows(t, lvl, e->key, e->from, e->to);
    case IP_EDGE_RW:
        return e->via != IP_NONE && e->via < t->n_txns && e->to != e->via &&
               find_read(t, e->from, e->via, e->key, 0) != IP_NONE &&
               writes(t, e->to, e->key) &&
               version_allows(t, lvl, e->key, e->via, e->to);
    case IP_EDGE_CO:
        return co_instance(t, lvl, e, oom);
    }
    return false;
}

bool ip_cycle_is_valid(const ip_trace *t, ip_level lvl, const ip_cycle *c,
                       bool *oom)
{
    bool no_memory = false;
    if (oom)
        *oom = false;
    if (!c || !c->edges || c->n_edges == 0 || lvl >= IP_LVL_COUNT)
        return false;
    for (uint32_t i = 0; i < c->n_edges; i++) {
        const ip_edge *e = &c->edges[i];
        if (e->to != c->edges[(i + 1) % c->n_edges].from ||
            !edge_valid(t, lvl, e, &no_memory)) {
            if (oom)
                *oom = no_memory;
            return false;
        }
    }
    return true;
}
