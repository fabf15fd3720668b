/* tv_model.c - the independent model, brute force and witness checks. */
#include "tv.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

static bool committed(const ip_trace *t, uint32_t x)
{
    return x < t->n_txns && t->txns[x].status == IP_COMMITTED;
}

/* From the ops, not from the trace's derived key sets. */
static bool writes(const ip_trace *t, uint32_t x, uint32_t key)
{
    if (x == IP_INIT_TXN)
        return true;
    const ip_txn *tx = &t->txns[x];
    for (uint32_t o = tx->op_first; o < tx->op_first + tx->op_count; o++)
        if (t->ops[o].kind == IP_WRITE && t->ops[o].key == key)
            return true;
    return false;
}

static bool so(const ip_trace *t, uint32_t a, uint32_t b)
{
    if (a == b || b == IP_INIT_TXN)
        return false;
    return a == IP_INIT_TXN ||
           (t->txns[a].session == t->txns[b].session && a < b);
}

static bool is_read(const ip_event *ev)
{
    return ev->kind == IP_READ && ev->writer != IP_NONE;
}

static bool wr_any(const ip_trace *t, uint32_t a, uint32_t b)
{
    const ip_txn *tx = &t->txns[b];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
        if (is_read(&t->events[e]) && t->events[e].writer == a && a != b)
            return true;
    return false;
}

/* mark[v] = 1 for every committed v with v (so u wr)+ b. */
static void hb_into(const ip_trace *t, uint32_t b, uint8_t *mark)
{
    uint32_t *stack = malloc(t->n_txns * sizeof *stack), n = 0;
    memset(mark, 0, t->n_txns);
    stack[n++] = b;
    while (n) {
        uint32_t v = stack[--n];
        for (uint32_t a = 0; a < t->n_txns; a++)
            if (!mark[a] && committed(t, a) &&
                (so(t, a, v) || wr_any(t, a, v))) {
                mark[a] = 1;
                stack[n++] = a;
            }
    }
    free(stack);
}

static bool hb(const ip_trace *t, uint32_t a, uint32_t b)
{
    uint8_t *mark = malloc(t->n_txns);
    hb_into(t, b, mark);
    bool r = mark[a];
    free(mark);
    return r;
}

/* RC premise: some read of t3 before event j reads from t2. */
static bool read_before(const ip_trace *t, uint32_t t3, uint32_t j,
                        uint32_t t2)
{
    for (uint32_t e = t->txns[t3].ev_first; e < j; e++)
        if (is_read(&t->events[e]) && t->events[e].writer == t2)
            return true;
    return false;
}

static bool write_conflict(const ip_trace *t, uint32_t a, uint32_t b)
{
    if (a == IP_INIT_TXN || b == IP_INIT_TXN)
        return false;
    const ip_txn *tx = &t->txns[a];
    for (uint32_t o = tx->op_first; o < tx->op_first + tx->op_count; o++)
        if (t->ops[o].kind == IP_WRITE && writes(t, b, t->ops[o].key))
            return true;
    return false;
}

/* Biswas & Enea's axiom premises for t2 co t1, given read event j of t3. */
static bool premise(const ip_trace *t, ip_level lvl, const uint32_t *pos,
                    const uint8_t *hb3, uint32_t t2, uint32_t t3, uint32_t j)
{
    switch (lvl) {
    case IP_LVL_RC: return read_before(t, t3, j, t2);
    case IP_LVL_RA: return so(t, t2, t3) || wr_any(t, t2, t3);
    case IP_LVL_CAUSAL: return hb3[t2];
    case IP_LVL_SER: return pos[t2] < pos[t3];
    default: break;
    }
    for (uint32_t t4 = 0; t4 < t->n_txns; t4++) {   /* si */
        if (!committed(t, t4) || pos[t4] < pos[t2])
            continue;
        if (so(t, t4, t3) || wr_any(t, t4, t3))
            return true;                              /* prefix */
        if (pos[t4] < pos[t3] && write_conflict(t, t4, t3))
            return true;                              /* conflict */
    }
    return false;
}

/* x's place in key's known version order: 0 for txn 0, i + 1 for the
 * i-th listed writer, UINT32_MAX for any other (a linear scan). */
static uint32_t vo_rank(const ip_trace *t, uint32_t key, uint32_t x)
{
    if (x == IP_INIT_TXN)
        return 0;
    for (uint32_t i = t->key_order_first[key]; i < t->key_order_first[key + 1];
         i++)
        if (t->key_order[i] == x)
            return i - t->key_order_first[key] + 1;
    return UINT32_MAX;
}

/* Do the positions put every pair of writers of a key with a known
 * version order in that order? */
static bool versions_ok(const ip_trace *t, const uint32_t *pos)
{
    if (!t->key_order_first)
        return true;
    for (uint32_t k = 0; k < t->n_keys; k++)
        for (uint32_t a = 0; a < t->n_txns; a++)
            for (uint32_t b = 0; b < t->n_txns; b++)
                if (committed(t, a) && committed(t, b) && writes(t, a, k) &&
                    writes(t, b, k) &&
                    vo_rank(t, k, a) < vo_rank(t, k, b) && pos[a] > pos[b])
                    return false;
    return true;
}

static bool order_shape_ok(const ip_trace *t, const uint32_t *order,
                           uint32_t n, uint32_t *pos)
{
    uint32_t want = 0;
    for (uint32_t x = 0; x < t->n_txns; x++) {
        pos[x] = IP_NONE;
        want += committed(t, x);
    }
    if (n != want || order[0] != IP_INIT_TXN)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!committed(t, order[i]) || pos[order[i]] != IP_NONE)
            return false;
        pos[order[i]] = i;
    }
    for (uint32_t a = 0; a < t->n_txns; a++)
        for (uint32_t b = 0; b < t->n_txns; b++)
            if (committed(t, a) && committed(t, b) &&
                (so(t, a, b) || wr_any(t, a, b)) && pos[a] > pos[b])
                return false;
    return versions_ok(t, pos);
}

bool tv_order_ok(const ip_trace *t, ip_level lvl, const uint32_t *order,
                 uint32_t n)
{
    uint32_t *pos = malloc(t->n_txns * sizeof *pos);
    uint8_t *hb3 = malloc(t->n_txns);
    bool ok = t->n_anomalies == 0 && order_shape_ok(t, order, n, pos);
    for (uint32_t t3 = 1; ok && t3 < t->n_txns; t3++) {
        if (!committed(t, t3))
            continue;
        if (lvl == IP_LVL_CAUSAL)
            hb_into(t, t3, hb3);
        const ip_txn *tx = &t->txns[t3];
        for (uint32_t j = tx->ev_first; ok && j < tx->ev_first + tx->ev_count;
             j++) {
            const ip_event *ev = &t->events[j];
            if (!is_read(ev))
                continue;
            for (uint32_t t2 = 0; ok && t2 < t->n_txns; t2++)
                if (t2 != ev->writer && t2 != t3 && committed(t, t2) &&
                    writes(t, t2, ev->key) &&
                    premise(t, lvl, pos, hb3, t2, t3, j))
                    ok = pos[t2] < pos[ev->writer];
        }
    }
    free(pos);
    free(hb3);
    return ok;
}

static bool permute(const ip_trace *t, ip_level lvl, uint32_t *order,
                    uint32_t k, uint32_t n)
{
    if (k == n)
        return tv_order_ok(t, lvl, order, n);
    for (uint32_t i = k; i < n; i++) {
        uint32_t tmp = order[k];
        order[k] = order[i];
        order[i] = tmp;
        bool ok = permute(t, lvl, order, k + 1, n);
        order[i] = order[k];
        order[k] = tmp;
        if (ok)
            return true;
    }
    return false;
}

bool tv_brute(const ip_trace *t, ip_level lvl)
{
    if (t->n_anomalies)
        return false;
    uint32_t order[16], n = 0;
    for (uint32_t x = 0; x < t->n_txns && n < 16; x++)
        if (committed(t, x))
            order[n++] = x;
    return permute(t, lvl, order, 1, n);
}

bool tv_edge_ok(const ip_trace *t, ip_level lvl, const ip_edge *e)
{
    uint32_t a = e->from, b = e->to;
    if (a == b || !committed(t, a) || !committed(t, b))
        return false;
    switch ((ip_edge_kind)e->kind) {
    case IP_EDGE_SO: return so(t, a, b);
    case IP_EDGE_WW:
        /* a known version order: the weak levels' ww edges are its own,
         * ser and si's must not contradict it */
        if (t->key_order_first && e->key < t->n_keys &&
            (lvl == IP_LVL_SER || lvl == IP_LVL_SI
                 ? vo_rank(t, e->key, a) > vo_rank(t, e->key, b)
                 : vo_rank(t, e->key, a) >= vo_rank(t, e->key, b)))
            return false;
        return writes(t, a, e->key) && writes(t, b, e->key);
    case IP_EDGE_WR:
    case IP_EDGE_RW:
    case IP_EDGE_CO: break;
    }
    uint32_t reader = e->kind == IP_EDGE_WR ? b : e->kind == IP_EDGE_RW ? a
                                                                       : e->via;
    uint32_t writer = e->kind == IP_EDGE_WR ? a : e->kind == IP_EDGE_RW ? e->via
                                                                       : b;
    if (!committed(t, reader))
        return false;
    const ip_txn *tx = &t->txns[reader];
    for (uint32_t j = tx->ev_first; j < tx->ev_first + tx->ev_count; j++) {
        const ip_event *ev = &t->events[j];
        if (!is_read(ev) || ev->key != e->key || ev->writer != writer)
            continue;
        if (e->kind == IP_EDGE_WR)
            return true;
        if (e->kind == IP_EDGE_RW)
            return b != e->via && writes(t, b, e->key) &&
                   (!t->key_order_first ||
                    vo_rank(t, e->key, e->via) <= vo_rank(t, e->key, b));
        if (!writes(t, a, e->key) || a == reader)
            continue;
        if (lvl == IP_LVL_RC ? read_before(t, reader, j, a)
            : lvl == IP_LVL_RA ? so(t, a, reader) || wr_any(t, a, reader)
                               : hb(t, a, reader))
            return true;
    }
    return false;
}

ip_check_result tv_expect(const ip_trace *t, ip_level lvl,
                          ip_check_result expect)
{
    ip_verdict v;
    ip_error err = {0};
    ip_check_opts opts = {0};
    ip_check_result r = ip_check(t, lvl, &opts, &v, &err);
    if (r != expect) {
        fprintf(stderr, "\n  at %s: expected %d, got %d\n", ip_level_name(lvl),
                expect, r);
        ip_verdict_print(t, &v, stderr);
    }
    CU_ASSERT_EQUAL(r, expect);
    if (r == IP_CHECK_OK)
        CU_ASSERT(tv_order_ok(t, lvl, v.order, v.n_order));
    if (r == IP_CHECK_VIOLATION)
        CU_ASSERT(v.n_cycles > 0 || t->n_anomalies > 0);
    for (uint32_t i = 0; i < v.n_cycles; i++) {
        const ip_cycle *c = &v.cycles[i];
        CU_ASSERT(ip_cycle_is_valid(t, lvl, c, NULL));
        for (uint32_t j = 0; j < c->n_edges; j++) {
            CU_ASSERT(tv_edge_ok(t, lvl, &c->edges[j]));
            CU_ASSERT_EQUAL(c->edges[j].to,
                            c->edges[(j + 1) % c->n_edges].from);
        }
    }
    ip_verdict_free(&v);
    return r;
}
