/*
 * anomaly.c - the names testers give what a checker found (verdict.h,
 * "Anomaly names"): Adya's G0, G1a, G1b, G1c, G-single and G2-item as
 * Elle uses them, the classic two-transaction shapes (lost update, write
 * skew), and for the weak levels' inferred cycles the session guarantee
 * or atomicity that the inferred edge stands for.  The one place of these
 * names: check's outputs and predict's reports and bug classes use it.
 */
#include "verdict.h"

const char *ip_cycle_classic_name(const ip_cycle *c)
{
    if (!c || c->n_edges != 2)
        return NULL;
    const ip_edge *a = &c->edges[0], *b = &c->edges[1];
    bool rw_a = a->kind == IP_EDGE_RW, rw_b = b->kind == IP_EDGE_RW;
    if (rw_a && rw_b && a->key != b->key)
        return "write skew";
    bool rw_ww = (rw_a || a->kind == IP_EDGE_WW) &&
                 (rw_b || b->kind == IP_EDGE_WW);
    if ((rw_a || rw_b) && rw_ww && a->key == b->key)
        return "lost update";
    return NULL;
}

/* Adya's name from the dependency edges alone (so and co count as
 * neither ww nor rw): G0 when every edge is ww, else by the rw count. */
static const char *adya_name(const ip_cycle *c)
{
    uint32_t rw = 0, ww = 0;
    for (uint32_t i = 0; i < c->n_edges; i++) {
        rw += c->edges[i].kind == IP_EDGE_RW;
        ww += c->edges[i].kind == IP_EDGE_WW;
    }
    if (rw == 0 && ww == c->n_edges && ww > 0)
        return "G0";
    return rw == 0 ? "G1c" : rw == 1 ? "G-single" : "G2-item";
}

/* Does txn r read anything from txn w? */
static bool reads_from(const ip_trace *t, uint32_t r, uint32_t w)
{
    const ip_txn *x = &t->txns[r];
    for (uint32_t v = x->ev_first; v < x->ev_first + x->ev_count; v++)
        if (t->events[v].kind == IP_READ && t->events[v].writer == w)
            return true;
    return false;
}

/* Does txn r read key k from txn w? */
static bool reads_key_from(const ip_trace *t, uint32_t r, uint32_t k,
                           uint32_t w)
{
    const ip_txn *x = &t->txns[r];
    for (uint32_t v = x->ev_first; v < x->ev_first + x->ev_count; v++)
        if (t->events[v].kind == IP_READ && t->events[v].writer == w &&
            t->events[v].key == k)
            return true;
    return false;
}

/* Does a transaction before r in r's session read from w? */
static bool session_saw(const ip_trace *t, uint32_t r, uint32_t w)
{
    uint32_t s = t->txns[r].session;
    if (s == IP_NONE)
        return false;
    for (uint32_t x = t->sessions[s].txn_first; x < r; x++)
        if (ip_committed(t, x) && reads_from(t, x, w))
            return true;
    return false;
}

/* How specific each name of an inferred edge is: the first wins. */
enum {
    CO_RYW, CO_NON_REPEATABLE, CO_NON_MONOTONIC_READ, CO_FRACTURED, CO_MONOTONIC_READS,
    CO_CAUSALITY, CO_NONE
};

static const char *const co_names[] = {
    "read-your-writes violation", "non-repeatable read",
    "non-monotonic read", "fractured read",
    "monotonic-reads violation", "causality violation"};

/* e = from -co(k)-> to, via r: r reads k from `to` although `from`, which
 * writes k too, is visible to r (the level's axiom says how).  Which
 * guarantee that breaks: r's own session wrote k before (read your
 * writes); r read k itself from `from` too (a non-repeatable read); r
 * read from `from` within the transaction (rc: an earlier
 * read saw more than a later one; else: a fractured read); r's session
 * had seen `from` (monotonic reads); else `from` reached r through a
 * chain of sessions and reads (causality). */
static int co_kind(const ip_trace *t, ip_level lvl, const ip_edge *e)
{
    uint32_t from = e->from, r = e->via;
    if (r == IP_NONE || r >= t->n_txns || from >= t->n_txns)
        return CO_CAUSALITY;
    if (from != IP_INIT_TXN && ip_so(t, from, r))
        return CO_RYW;
    if (reads_key_from(t, r, e->key, from))
        return CO_NON_REPEATABLE;
    if (reads_from(t, r, from))
        return lvl == IP_LVL_RC ? CO_NON_MONOTONIC_READ : CO_FRACTURED;
    if (session_saw(t, r, from))
        return CO_MONOTONIC_READS;
    return CO_CAUSALITY;
}

const char *ip_cycle_anomaly_name(const ip_trace *t, ip_level lvl,
                                  const ip_cycle *c)
{
    if (!c || c->n_edges == 0)
        return NULL;
    const char *classic = ip_cycle_classic_name(c);
    if (classic)
        return classic;
    int best = CO_NONE;
    for (uint32_t i = 0; t && i < c->n_edges; i++)
        if (c->edges[i].kind == IP_EDGE_CO) {
            int k = co_kind(t, lvl, &c->edges[i]);
            best = k < best ? k : best;
        }
    return best != CO_NONE ? co_names[best] : adya_name(c);
}

const char *ip_read_anomaly_adya(const ip_trace *t, const ip_anomaly *a)
{
    switch ((ip_anomaly_kind)a->kind) {
    case IP_AN_THIN_AIR: return "garbage read";
    case IP_AN_ABORTED_READ: return "G1a";
    case IP_AN_FUTURE_READ:
    case IP_AN_NOT_OWN_WRITE: return "internal";
    case IP_AN_NOT_LATEST_WRITE:
        /* another transaction's overwritten write: an intermediate read;
         * the reader's own: its view of itself is inconsistent */
        return a->writer != IP_NONE && a->writer < t->n_txns &&
                       a->writer != t->ops[a->op].txn
                   ? "G1b"
                   : "internal";
    case IP_AN_INCOMPATIBLE_ORDER: return "incompatible order";
    }
    return "unknown";
}

const char *ip_verdict_anomaly(const ip_trace *t, const ip_verdict *v)
{
    if (v->result != IP_CHECK_VIOLATION)
        return NULL;
    if (t->n_anomalies)
        return ip_read_anomaly_adya(t, &t->anomalies[0]);
    return v->n_cycles ? ip_cycle_anomaly_name(t, v->level, &v->cycles[0])
                       : NULL;
}
