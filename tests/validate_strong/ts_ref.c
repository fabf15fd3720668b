/*
 * ts_ref.c - reference checkers for the ser/si tests.  They read the ops
 * (not the events the checker uses) and enumerate: serial orders for ser,
 * every per-key write order for the graph definitions of ser and si.
 */
#include <stdlib.h>
#include <string.h>

#include "ts.h"

#define MAXT 16

static bool writes_key(const ip_trace *t, uint32_t x, uint32_t k)
{
    const ip_txn *tx = &t->txns[x];
    if (x == IP_INIT_TXN)
        return true;
    if (!ip_committed(t, x))
        return false;
    for (uint32_t i = 0; i < tx->op_count; i++) {
        const ip_op *op = &t->ops[tx->op_first + i];
        if (op->kind == IP_WRITE && op->key == k)
            return true;
    }
    return false;
}

/* Does x read k from w (a non-local read)? */
static bool reads_from(const ip_trace *t, uint32_t x, uint32_t w, uint32_t k)
{
    const ip_txn *tx = &t->txns[x];
    for (uint32_t i = 0; i < tx->op_count; i++) {
        const ip_op *op = &t->ops[tx->op_first + i];
        if (op->kind == IP_READ && !op->local && op->from == w &&
            (k == IP_NONE || op->key == k))
            return true;
    }
    return false;
}

static bool session_before(const ip_trace *t, uint32_t a, uint32_t b)
{
    if (a == b || b == IP_INIT_TXN)
        return false;
    if (a == IP_INIT_TXN)
        return true;
    return t->txns[a].session == t->txns[b].session &&
           t->txns[a].index < t->txns[b].index;
}

bool ts_serial_ok(const ip_trace *t, const uint32_t *order, uint32_t n)
{
    uint32_t pos[MAXT * 64] = { 0 }, last[MAXT * 64];
    if (t->n_txns > MAXT * 64 || t->n_keys > MAXT * 64)
        return false;
    for (uint32_t x = 0; x < t->n_txns; x++)
        pos[x] = IP_NONE;
    for (uint32_t i = 0; i < n; i++) {
        if (order[i] >= t->n_txns || pos[order[i]] != IP_NONE ||
            !ip_committed(t, order[i]))
            return false;
        pos[order[i]] = i;
    }
    for (uint32_t x = 0; x < t->n_txns; x++)
        if (ip_committed(t, x) && pos[x] == IP_NONE)
            return false;
    if (pos[IP_INIT_TXN] != 0)
        return false;
    for (uint32_t a = 0; a < t->n_txns; a++)
        for (uint32_t b = 0; b < t->n_txns; b++)
            if (ip_committed(t, a) && ip_committed(t, b) &&
                session_before(t, a, b) && pos[a] > pos[b])
                return false;
    for (uint32_t k = 0; k < t->n_keys; k++)
        last[k] = IP_INIT_TXN;
    for (uint32_t i = 1; i < n; i++) {
        const ip_txn *tx = &t->txns[order[i]];
        for (uint32_t j = 0; j < tx->op_count; j++) {
            const ip_op *op = &t->ops[tx->op_first + j];
            if (op->kind == IP_READ && !op->local && op->from != last[op->key])
                return false;
        }
        for (uint32_t j = 0; j < tx->op_count; j++) {
            const ip_op *op = &t->ops[tx->op_first + j];
            if (op->kind == IP_WRITE)
                last[op->key] = order[i];
        }
    }
    return true;
}

static bool permute(const ip_trace *t, uint32_t *order, uint32_t n,
                    uint32_t k)
{
    if (k == n)
        return ts_serial_ok(t, order, n);
    for (uint32_t i = k; i < n; i++) {
        uint32_t x = order[k];
        order[k] = order[i];
        order[i] = x;
        bool ok = permute(t, order, n, k + 1);
        order[i] = order[k];
        order[k] = x;
        if (ok)
            return true;
    }
    return false;
}

bool ts_bf_ser_orders(const ip_trace *t)
{
    uint32_t order[MAXT], n = 0;
    for (uint32_t x = 0; x < t->n_txns && n < MAXT; x++)
        if (ip_committed(t, x))
            order[n++] = x;
    return permute(t, order, n, 1);
}

/* ---- graph definitions under a chosen write order ---- */

typedef struct choice {
    uint32_t rank[MAXT][MAXT];   /* [key][txn]: position among writers */
} choice;

typedef bool mat[MAXT][MAXT];

static bool acyclic(const ip_trace *t, mat m)
{
    uint32_t n = t->n_txns;
    mat c;
    memcpy(c, m, sizeof c);
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < n; i++)
            if (c[i][k])
                for (uint32_t j = 0; j < n; j++)
                    c[i][j] = c[i][j] || c[k][j];
    for (uint32_t i = 0; i < n; i++)
        if (c[i][i])
            return false;
    return true;
}

static void graphs(const ip_trace *t, const choice *ch, mat base, mat rw)
{
    uint32_t n = t->n_txns;
    memset(base, 0, sizeof(mat));
    memset(rw, 0, sizeof(mat));
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            if (a == b || !ip_committed(t, a) || !ip_committed(t, b))
                continue;
            bool e = session_before(t, a, b) || reads_from(t, b, a, IP_NONE);
            for (uint32_t k = 0; k < t->n_keys; k++) {
                if (!writes_key(t, b, k))
                    continue;
                if (writes_key(t, a, k) && ch->rank[k][a] < ch->rank[k][b])
                    e = true;
                for (uint32_t w = 0; w < n; w++)
                    if (w != b && reads_from(t, a, w, k) &&
                        ch->rank[k][w] < ch->rank[k][b])
                        rw[a][b] = true;
            }
            base[a][b] = e;
        }
}

static void verdicts(const ip_trace *t, const choice *ch, bool *ser, bool *si)
{
    uint32_t n = t->n_txns;
    mat base, rw, d, ind;
    graphs(t, ch, base, rw);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            d[a][b] = base[a][b] || rw[a][b];
            ind[a][b] = base[a][b];
            for (uint32_t x = 0; x < n; x++)
                ind[a][b] = ind[a][b] || (base[a][x] && rw[x][b]);
        }
    *ser = acyclic(t, d);
    *si = acyclic(t, ind);
}

typedef struct enum_state {
    const ip_trace *t;
    choice ch;
    uint32_t wr[MAXT][MAXT], nw[MAXT];   /* non-initial writers per key */
    bool ser, si;
} enum_state;

static void enum_key(enum_state *s, uint32_t k, uint32_t i)
{
    if (s->ser && s->si)
        return;
    if (k == s->t->n_keys) {
        bool ser, si;
        verdicts(s->t, &s->ch, &ser, &si);
        s->ser = s->ser || ser;
        s->si = s->si || si;
        return;
    }
    if (i == s->nw[k]) {
        for (uint32_t j = 0; j < s->nw[k]; j++)
            s->ch.rank[k][s->wr[k][j]] = j + 1;
        enum_key(s, k + 1, 0);
        return;
    }
    for (uint32_t j = i; j < s->nw[k]; j++) {
        uint32_t *w = s->wr[k], x = w[i];
        w[i] = w[j];
        w[j] = x;
        enum_key(s, k, i + 1);
        w[j] = w[i];
        w[i] = x;
    }
}

static void collect_writers(enum_state *s)
{
    const ip_trace *t = s->t;
    memset(&s->ch, 0, sizeof s->ch);
    for (uint32_t k = 0; k < t->n_keys; k++) {
        s->nw[k] = 0;
        for (uint32_t x = 1; x < t->n_txns; x++)
            if (writes_key(t, x, k))
                s->wr[k][s->nw[k]++] = x;
    }
}

bool ts_bf_feasible(const ip_trace *t)
{
    if (t->n_txns > MAXT || t->n_keys > MAXT)
        return false;
    enum_state s = { .t = t };
    collect_writers(&s);
    double prod = 1;
    for (uint32_t k = 0; k < t->n_keys; k++)
        for (uint32_t i = 2; i <= s.nw[k]; i++)
            prod *= i;
    return prod <= 5000;
}

bool ts_bf_graph(const ip_trace *t, bool *ser_graph, bool *si)
{
    enum_state *s = calloc(1, sizeof *s);
    if (!s)
        return false;
    s->t = t;
    collect_writers(s);
    enum_key(s, 0, 0);
    *ser_graph = s->ser;
    *si = s->si;
    free(s);
    return true;
}

bool ts_si_commit_order_ok(const ip_trace *t, const uint32_t *order,
                           uint32_t n)
{
    if (t->n_txns > MAXT || t->n_keys > MAXT || n == 0 ||
        order[0] != IP_INIT_TXN)
        return false;
    uint32_t pos[MAXT];
    for (uint32_t x = 0; x < t->n_txns; x++)
        pos[x] = IP_NONE;
    for (uint32_t i = 0; i < n; i++) {
        if (order[i] >= t->n_txns || !ip_committed(t, order[i]) ||
            pos[order[i]] != IP_NONE)
            return false;
        pos[order[i]] = i;
    }
    choice ch = { 0 };
    for (uint32_t k = 0; k < t->n_keys; k++)
        for (uint32_t x = 0; x < t->n_txns; x++) {
            if (ip_committed(t, x) && pos[x] == IP_NONE)
                return false;
            ch.rank[k][x] = pos[x];
        }
    mat base, rw;
    graphs(t, &ch, base, rw);
    for (uint32_t a = 0; a < t->n_txns; a++)
        for (uint32_t b = 0; b < t->n_txns; b++)
            if (base[a][b] && pos[a] > pos[b])
                return false;
    bool ser, si;
    verdicts(t, &ch, &ser, &si);
    return si;
}

static bool edge_real(const ip_trace *t, const ip_edge *e)
{
    if (e->from >= t->n_txns || e->to >= t->n_txns || e->from == e->to)
        return false;
    switch (e->kind) {
    case IP_EDGE_SO: return session_before(t, e->from, e->to);
    case IP_EDGE_WR: return reads_from(t, e->to, e->from, e->key);
    case IP_EDGE_WW:
        return writes_key(t, e->from, e->key) && writes_key(t, e->to, e->key);
    case IP_EDGE_RW:
        return e->via < t->n_txns && e->via != e->to &&
               reads_from(t, e->from, e->via, e->key) &&
               writes_key(t, e->to, e->key);
    default: return false;
    }
}

/* The write orders a cycle assumes (ww edges, and via before target for rw)
 * must fit one order per key, with the initial txn first. */
static bool orders_consistent(const ip_trace *t, const ip_cycle *c)
{
    for (uint32_t k = 0; k < t->n_keys; k++) {
        mat m;
        memset(m, 0, sizeof m);
        for (uint32_t i = 0; i < c->n_edges; i++) {
            const ip_edge *e = &c->edges[i];
            if (e->key != k)
                continue;
            if (e->kind == IP_EDGE_WW)
                m[e->from][e->to] = true;
            if (e->kind == IP_EDGE_RW)
                m[e->via][e->to] = true;
        }
        for (uint32_t x = 1; x < t->n_txns; x++)
            m[IP_INIT_TXN][x] = true;
        if (!acyclic(t, m))
            return false;
    }
    return true;
}

bool ts_cycle_ok(const ip_trace *t, bool si, const ip_cycle *c)
{
    if (!c || c->n_edges < 2 || t->n_txns > MAXT)
        return false;
    for (uint32_t i = 0; i < c->n_edges; i++) {
        const ip_edge *e = &c->edges[i], *nx = &c->edges[(i + 1) % c->n_edges];
        if (e->to != nx->from || !edge_real(t, e))
            return false;
        if (si && e->kind == IP_EDGE_RW && nx->kind == IP_EDGE_RW)
            return false;
    }
    return orders_consistent(t, c);
}
