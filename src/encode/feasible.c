/* feasible.c - feasibility (paper 4.1 / B.1) and prediction boundaries
 * (4.5, SEMANTICS.md): writer choices, the per-session boundary as an
 * order encoding, which events the predicted history keeps. */
#include "enc_internal.h"

#include <stdlib.h>

static bool strict(const ip_encoder *e)
{
    return e->opts.boundary == IP_BOUNDARY_STRICT;
}

Z3_ast enc_g(const ip_encoder *e, uint32_t s, int64_t j)
{
    uint32_t m = e->unit_first[s + 1] - e->unit_first[s];
    if (j < 0)
        return e->t;
    if (j >= (int64_t)m)
        return e->f;
    return e->g[e->unit_first[s] + (uint32_t)j];
}

/* relaxed: is txn x at or before its session's boundary transaction? */
static Z3_ast in_bound(const ip_encoder *e, uint32_t x)
{
    if (x == IP_INIT_TXN)
        return e->t;
    return enc_g(e, e->tr->txns[x].session, (int64_t)e->units_before[x] - 1);
}

Z3_ast enc_read_kept(const ip_encoder *e, uint32_t v)
{
    const ip_event *ev = &e->tr->events[v];
    if (!strict(e))
        return e->inc[ev->txn];
    return enc_g(e, e->tr->txns[ev->txn].session,
                 (int64_t)e->units_before[v] - 1);
}

Z3_ast enc_write_exists(const ip_encoder *e, uint32_t x, uint32_t key)
{
    if (x == IP_INIT_TXN)
        return e->t;
    if (!strict(e))
        return e->inc[x];
    uint32_t v = ip_write_event(e->tr, x, key);
    return enc_g(e, e->tr->txns[x].session, (int64_t)e->units_before[v] - 1);
}

Z3_ast enc_txn_present(const ip_encoder *e, uint32_t x)
{
    if (x == IP_INIT_TXN)
        return e->t;
    if (!strict(e))
        return e->inc[x];
    const ip_txn *tx = &e->tr->txns[x];
    if (tx->ev_count == 0)
        return e->f;
    return enc_g(e, tx->session, (int64_t)e->units_before[tx->ev_first] - 1);
}

Z3_ast enc_changed(ip_encoder *e, uint32_t v)
{
    uint32_t n = e->cand_first[v + 1] - e->cand_first[v];
    if (n < 2)
        return e->f;
    return lit_and2(e, enc_read_kept(e, v), lit_not(e, e->cx[e->obs_cand[v]]));
}

static void make_boundaries(ip_encoder *e)
{
    for (uint32_t s = 0; s < e->tr->n_sessions; s++)
        for (uint32_t u = e->unit_first[s]; u < e->unit_first[s + 1]; u++) {
            e->g[u] = lit_var(e, "after", s, u - e->unit_first[s]);
            if (u > e->unit_first[s]) {
                Z3_ast c[2] = { lit_not(e, e->g[u]), e->g[u - 1] };
                enc_clause(e, c, 2);
            }
        }
}

/* Exactly one of x: pairwise at-most-one for few candidates, else a
 * sequential counter (pure clauses: the solver has no PB theory here). */
static void exactly_one(ip_encoder *e, Z3_ast *x, uint32_t n, uint32_t v)
{
    Z3_ast *copy = malloc(sizeof *copy * n);
    if (!copy)
        return;
    for (uint32_t i = 0; i < n; i++)
        copy[i] = x[i];
    enc_clause(e, copy, n);
    free(copy);
    if (n <= 6) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++) {
                Z3_ast c[2] = { lit_not(e, x[i]), lit_not(e, x[j]) };
                enc_clause(e, c, 2);
            }
        return;
    }
    /* s_i <=> some of x_0..x_i chosen */
    Z3_ast prev = NULL;
    for (uint32_t i = 0; i < n; i++) {
        Z3_ast si = lit_var(e, "amo", v, i);
        Z3_ast c1[2] = { lit_not(e, x[i]), si };
        enc_clause(e, c1, 2);
        if (prev) {
            Z3_ast c2[2] = { lit_not(e, prev), si };
            Z3_ast c3[2] = { lit_not(e, x[i]), lit_not(e, prev) };
            enc_clause(e, c2, 2);
            enc_clause(e, c3, 2);
        }
        prev = si;
    }
}

/* Choice Booleans of read v and the boundary rules about them. */
static void encode_read(ip_encoder *e, uint32_t v)
{
    const ip_trace *t = e->tr;
    const ip_event *ev = &t->events[v];
    uint32_t first = e->cand_first[v], n = e->cand_first[v + 1] - first;
    if (n == 1) {
        e->cx[first] = e->t;
    } else {
        e->st.free_reads++;
        e->st.candidates += n;
        for (uint32_t i = 0; i < n; i++)
            e->cx[first + i] = lit_var(e, "x", v, e->cand_txn[first + i]);
        exactly_one(e, &e->cx[first], n, v);
    }
    uint32_t s = t->txns[ev->txn].session;
    int64_t j = strict(e) ? e->units_before[v] : e->units_before[ev->txn];
    Z3_ast kept = enc_g(e, s, j - 1), before = enc_g(e, s, j);
    Z3_ast obs = e->cx[e->obs_cand[v]];
    /* before the boundary: the observed writer; beyond it: fixed too, so
     * that dropped reads do not multiply models */
    Z3_ast c1[2] = { obs, lit_not(e, before) };
    Z3_ast c2[2] = { obs, kept };
    enc_clause(e, c1, 2);
    enc_clause(e, c2, 2);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t w = e->cand_txn[first + i];
        if (w == IP_INIT_TXN)
            continue;
        /* a kept read reads a write that the predicted history keeps:
         * strict wrpos_k(w) < boundary(s_w); relaxed w in boundary */
        Z3_ast exists = strict(e) ? enc_write_exists(e, w, ev->key)
                                  : in_bound(e, w);
        Z3_ast c[3] = { lit_not(e, e->cx[first + i]), lit_not(e, kept),
                        exists };
        enc_clause(e, c, 3);
    }
}

/* relaxed: tainted vars (defined in wr.c) and inclusion per txn. */
static bool make_inclusion(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    e->tainted = calloc(e->n_rel + 1, sizeof *e->tainted);
    e->inc = calloc(t->n_txns + 1, sizeof *e->inc);
    if (!e->tainted || !e->inc)
        return ip_fail(err, "encode: out of memory");
    e->tainted[0] = e->f;
    e->inc[IP_INIT_TXN] = e->t;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        Z3_ast prev_taint = e->f;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            Z3_ast inb = in_bound(e, x);
            if (e->rel[x] == IP_NONE) {
                /* reads initial values only: tainted only through so */
                e->inc[x] = lit_and2(e, inb, lit_not(e, prev_taint));
                continue;
            }
            Z3_ast tv = lit_var(e, "tainted", x, 0);
            e->tainted[e->rel[x]] = tv;
            Z3_ast iv = lit_var(e, "inc", x, 0);
            enc_assert(e, Z3_mk_eq(e->z, iv,
                                   lit_and2(e, inb, lit_not(e, tv))));
            e->inc[x] = iv;
            prev_taint = tv;
        }
    }
    return true;
}

/* Group literals: wr_k(w, reader) inside the history / the boundary. */
static void make_group_lits(ip_encoder *e)
{
    Z3_ast terms[256];
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        for (uint32_t i = 0; i < g->cand_count; i++) {
            Z3_ast *buf = terms, *heap = NULL;
            if (g->ev_count > 256)
                buf = heap = malloc(sizeof *heap * g->ev_count);
            if (!buf)
                return;
            for (uint32_t k = 0; k < g->ev_count; k++) {
                uint32_t v = e->gev[g->ev_first + k];
                Z3_ast x = e->cx[e->cand_first[v] + i];
                buf[k] = strict(e) ? lit_and2(e, x, enc_read_kept(e, v)) : x;
            }
            Z3_ast any = lit_or_def(e, buf, g->ev_count, "wrk", gi, i);
            free(heap);
            if (strict(e)) {
                e->gwr_hist[g->wr_first + i] = any;
                e->gwr_bound[g->wr_first + i] = any;
            } else {
                e->gwr_hist[g->wr_first + i] =
                    lit_and2(e, any, e->inc[g->txn]);
                e->gwr_bound[g->wr_first + i] =
                    lit_and2(e, any, in_bound(e, g->txn));
            }
        }
    }
}

bool enc_feasible(ip_encoder *e, ip_error *err)
{
    make_boundaries(e);
    if (!strict(e) && !make_inclusion(e, err))
        return false;
    for (uint32_t v = 0; v < e->tr->n_events; v++)
        if (e->tr->events[v].kind == IP_READ)
            encode_read(e, v);
    make_group_lits(e);
    return enc_z3_ok(e, err, "encoding feasibility");
}
