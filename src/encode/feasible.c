/* feasible.c - feasibility (paper 4.1 / B.1) and prediction boundaries
 * (4.5, SEMANTICS.md): writer choices, the per-session boundary as an
 * order encoding, which events the predicted history keeps. */
#include "enc_internal.h"

#include <stdlib.h>
#include <string.h>

static bool strict(const ip_encoder *e)
{
    return e->opts.boundary == IP_BOUNDARY_STRICT;
}

/* strict: "session s's boundary read reads from w" (w a relevant txn). */
static Z3_ast new_writer(const ip_encoder *e, uint32_t s, uint32_t w)
{
    return e->nw[(size_t)s * e->n_rel + e->rel[w]];
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
Z3_ast enc_in_boundary(const ip_encoder *e, uint32_t x)
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

Z3_ast enc_at_boundary(ip_encoder *e, uint32_t v)
{
    uint32_t s = e->tr->txns[e->tr->events[v].txn].session;
    int64_t j = e->units_before[v];
    Z3_ast kept = enc_g(e, s, j - 1), before = enc_g(e, s, j);
    return kept == before ? e->f : lit_and2(e, kept, lit_not(e, before));
}

Z3_ast enc_changed(ip_encoder *e, uint32_t v)
{
    const ip_trace *t = e->tr;
    uint32_t n = e->cand_first[v + 1] - e->cand_first[v];
    if (n < 2)
        return e->f;
    if (!strict(e))
        return lit_and2(e, enc_read_kept(e, v),
                        lit_not(e, e->cx[e->obs_cand[v]]));
    Z3_ast keeps = new_writer(e, t->txns[t->events[v].txn].session,
                              t->events[v].writer);
    return lit_and2(e, enc_at_boundary(e, v), lit_not(e, keeps));
}

/* strict: can the boundary be at read unit u (not a session's first)?
 * Only where it keeps something the unit before does not: a read of a
 * key some transaction writes, or a write.  A boundary at any other read
 * keeps, beyond the previous unit's history, only reads of keys nobody
 * writes - and perhaps the presence of a transaction holding just such
 * reads, which takes part in no conflict and ends its session - so it
 * predicts exactly what the previous unit predicts.  About half the reads
 * of the TPC-C shape are such reads. */
static bool unit_matters(const ip_encoder *e, uint32_t u)
{
    const ip_trace *t = e->tr;
    uint32_t v = e->unit_id[u];
    if (enc_key_shared(t, t->events[v].key))
        return true;
    for (uint32_t x = e->unit_id[u - 1] + 1; x < v; x++)
        if (t->events[x].kind != IP_READ)
            return true;
    return false;
}

/* g[u] <=> the boundary is after unit u: monotone, and equal to g[u-1]
 * where a boundary at u would predict nothing new. */
static void make_boundaries(ip_encoder *e)
{
    for (uint32_t s = 0; s < e->tr->n_sessions; s++)
        for (uint32_t u = e->unit_first[s]; u < e->unit_first[s + 1]; u++) {
            if (u > e->unit_first[s] && strict(e) && !unit_matters(e, u)) {
                e->g[u] = e->g[u - 1];
                continue;
            }
            e->g[u] = lit_var(e);
            if (u > e->unit_first[s]) {
                Z3_ast c[2] = { lit_not(e, e->g[u]), e->g[u - 1] };
                enc_clause(e, c, 2);
            }
        }
}

/* At most one of x: pairwise for few, else a sequential counter (pure
 * clauses: the solver has no PB theory here). */
static void at_most_one(ip_encoder *e, Z3_ast *x, uint32_t n)
{
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
        Z3_ast si = lit_var(e);
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

static void exactly_one(ip_encoder *e, Z3_ast *x, uint32_t n)
{
    Z3_ast *copy = malloc(sizeof *copy * n);
    if (!copy) {
        e->oom = true;        /* never drop a constraint silently */
        return;
    }
    memcpy(copy, x, sizeof *copy * n);
    enc_clause(e, copy, n);
    free(copy);
    at_most_one(e, x, n);
}

/* strict: one new-writer Boolean per session and writer some free read
 * of the session may read from, at most one true per session.  A strict
 * history changes at most the boundary read, so choosing its writer once
 * per session replaces a choice per read. */
static bool make_new_writers(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    size_t n = (size_t)t->n_sessions * e->n_rel;
    Z3_ast *row = malloc(sizeof *row * (e->n_rel + 1));
    e->nw = calloc(n + 1, sizeof *e->nw);
    if (!row || !e->nw) {
        free(row);
        return ip_oom(err, "encode: out of memory");
    }
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        uint32_t s = t->txns[g->txn].session;
        for (uint32_t i = 0; g->cand_count > 1 && i < g->cand_count; i++) {
            uint32_t w = e->gcand[g->cand_first + i];
            Z3_ast *x = &e->nw[(size_t)s * e->n_rel + e->rel[w]];
            if (!*x)
                *x = lit_var(e);
        }
    }
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        uint32_t k = 0;
        for (uint32_t r = 0; r < e->n_rel; r++)
            if (e->nw[(size_t)s * e->n_rel + r])
                row[k++] = e->nw[(size_t)s * e->n_rel + r];
        at_most_one(e, row, k);
    }
    free(row);
    return true;
}

/* strict: read v's candidates as terms over the boundary and the new
 * writer, and "a read before the boundary reads a kept write". */
static void encode_read_strict(ip_encoder *e, uint32_t v)
{
    const ip_trace *t = e->tr;
    const ip_event *ev = &t->events[v];
    uint32_t first = e->cand_first[v], n = e->cand_first[v + 1] - first;
    uint32_t s = t->txns[ev->txn].session;
    int64_t j = e->units_before[v];
    Z3_ast kept = enc_g(e, s, j - 1), before = enc_g(e, s, j);
    if (n == 1) {
        e->cx[first] = e->t;
    } else {
        e->st.free_reads++;
        e->st.candidates += n;
        Z3_ast at = enc_at_boundary(e, v);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t w = e->cand_txn[first + i];
            Z3_ast x = new_writer(e, s, w);
            e->cx[first + i] = w == ev->writer
                                   ? lit_or2(e, lit_not(e, at), x)
                                   : lit_and2(e, at, x);
        }
        /* the boundary read's own writer: see make_group_lits */
        kept = before;
    }
    if (ev->writer != IP_INIT_TXN) {
        Z3_ast c[2] = { lit_not(e, kept),
                        enc_write_exists(e, ev->writer, ev->key) };
        enc_clause(e, c, 2);
    }
}

/* relaxed: choice Booleans of read v and the boundary rules about them. */
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
        for (uint32_t i = 0; i < n; i++) {
            /* a read of a hot key can have thousands of writers: stop
             * here too (the halted encoder is discarded unfinished) */
            if (i % 256 == 255 && enc_halted(e))
                return;
            e->cx[first + i] = lit_var(e);
        }
        exactly_one(e, &e->cx[first], n);
    }
    uint32_t s = t->txns[ev->txn].session;
    int64_t j = e->units_before[ev->txn];
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
        /* a kept read reads a write inside the boundary */
        Z3_ast c[3] = { lit_not(e, e->cx[first + i]), lit_not(e, kept),
                        enc_in_boundary(e, w) };
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
        return ip_oom(err, "encode: out of memory");
    e->tainted[0] = e->f;
    e->inc[IP_INIT_TXN] = e->t;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        Z3_ast prev_taint = e->f;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            Z3_ast inb = enc_in_boundary(e, x);
            if (e->rel[x] == IP_NONE) {
                /* reads initial values only: tainted only through so */
                e->inc[x] = lit_and2(e, inb, lit_not(e, prev_taint));
                continue;
            }
            Z3_ast tv = lit_var(e);
            e->tainted[e->rel[x]] = tv;
            Z3_ast iv = lit_var(e);
            enc_assert(e, Z3_mk_eq(e->z, iv,
                                   lit_and2(e, inb, lit_not(e, tv))));
            e->inc[x] = iv;
            prev_taint = tv;
        }
    }
    return true;
}

/* strict: wr_k(w, reader) of a group.  Its reads before the boundary
 * keep their observed writers, so "some read of the group reads w" is
 * "the first one observed reading w is before the boundary, or the
 * boundary read is in the group and reads w". */
static void strict_group_lits(ip_encoder *e, const enc_group *g, Z3_ast *buf)
{
    const ip_trace *t = e->tr;
    uint32_t s = t->txns[g->txn].session;
    if (g->cand_count == 1) {   /* kept reads read the only writer */
        e->gwr_hist[g->wr_first] = enc_read_kept(e, e->gev[g->ev_first]);
        e->gwr_bound[g->wr_first] = e->gwr_hist[g->wr_first];
        return;
    }
    for (uint32_t k = 0; k < g->ev_count; k++)
        buf[k] = enc_at_boundary(e, e->gev[g->ev_first + k]);
    Z3_ast in_group = lit_or_def(e, buf, g->ev_count);
    for (uint32_t i = 0; i < g->cand_count; i++) {
        uint32_t w = e->gcand[g->cand_first + i];
        Z3_ast x = new_writer(e, s, w);
        buf[i] = x;
        Z3_ast first_obs = e->f;
        for (uint32_t k = 0; k < g->ev_count; k++) {
            uint32_t v = e->gev[g->ev_first + k];
            if (t->events[v].writer == w) {
                first_obs = enc_g(e, s, e->units_before[v]);
                break;
            }
        }
        Z3_ast as_boundary = lit_and2(e, in_group, x);
        e->gwr_hist[g->wr_first + i] = lit_or2(e, first_obs, as_boundary);
        e->gwr_bound[g->wr_first + i] = e->gwr_hist[g->wr_first + i];
        if (w != IP_INIT_TXN) {
            Z3_ast c[3] = { lit_not(e, in_group), lit_not(e, x),
                            enc_write_exists(e, w, g->key) };
            enc_clause(e, c, 3);
        }
    }
    /* the boundary read reads from one of its candidates */
    Z3_ast c0 = lit_not(e, in_group);
    for (uint32_t i = g->cand_count; i > 0; i--)
        buf[i] = buf[i - 1];
    buf[0] = c0;
    enc_clause(e, buf, g->cand_count + 1);
}

/* relaxed: wr_k(w, reader) inside the history / the boundary. */
static void relaxed_group_lits(ip_encoder *e, const enc_group *g, Z3_ast *buf)
{
    for (uint32_t i = 0; i < g->cand_count; i++) {
        for (uint32_t k = 0; k < g->ev_count; k++) {
            uint32_t v = e->gev[g->ev_first + k];
            buf[k] = e->cx[e->cand_first[v] + i];
        }
        Z3_ast any = lit_or_def(e, buf, g->ev_count);
        e->gwr_hist[g->wr_first + i] = lit_and2(e, any, e->inc[g->txn]);
        e->gwr_bound[g->wr_first + i] =
            lit_and2(e, any, enc_in_boundary(e, g->txn));
    }
}

static bool make_group_lits(ip_encoder *e, ip_error *err)
{
    uint32_t max = 1;
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        if (g->ev_count > max)
            max = g->ev_count;
        if (g->cand_count + 1 > max)
            max = g->cand_count + 1;
    }
    Z3_ast *buf = malloc(sizeof *buf * (max + 1));
    if (!buf)
        return ip_oom(err, "encode: out of memory");
    for (uint32_t gi = 0; gi < e->n_groups && !enc_halted(e); gi++) {
        if (strict(e))
            strict_group_lits(e, &e->groups[gi], buf);
        else
            relaxed_group_lits(e, &e->groups[gi], buf);
    }
    free(buf);
    return true;
}

/* At most max_changes changed reads: one pseudo-Boolean constraint over
 * the changed-read literals (Z3's atmost, which its pb theory handles
 * without unfolding it into clauses). */
static bool bound_changes(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    uint32_t k = e->opts.max_changes;
    if (k == 0)
        return true;
    Z3_ast *lits = malloc(sizeof *lits * ((size_t)t->n_events + 1));
    if (!lits)
        return ip_oom(err, "encode: out of memory");
    uint32_t n = 0;
    for (uint32_t v = 0; v < t->n_events; v++) {
        if (t->events[v].kind != IP_READ)
            continue;
        Z3_ast c = enc_changed(e, v);
        if (!lit_is_false(e, c))
            lits[n++] = c;
    }
    if (n > k) {
        Z3_solver_assert(e->z, e->s, Z3_mk_atmost(e->z, n, lits, k));
        e->st.literals += n;
    }
    free(lits);
    return true;
}

bool enc_feasible(ip_encoder *e, ip_error *err)
{
    make_boundaries(e);
    if (strict(e) ? !make_new_writers(e, err) : !make_inclusion(e, err))
        return false;
    for (uint32_t v = 0; v < e->tr->n_events && !enc_halted(e); v++)
        if (e->tr->events[v].kind == IP_READ) {
            if (strict(e))
                encode_read_strict(e, v);
            else
                encode_read(e, v);
        }
    return make_group_lits(e, err) && bound_changes(e, err) &&
           enc_z3_ok(e, err, "encoding feasibility");
}
