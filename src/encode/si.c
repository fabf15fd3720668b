/* si.c - snapshot isolation of the predicted history: a start and a
 * commit point per relevant transaction with the read and conflict rules
 * (the operational reading of Prefix and Conflict), and the pivot
 * condition that every unserializable si history meets (SEMANTICS.md,
 * "Models and unserializability"). */
#include "enc_internal.h"

#include <stdlib.h>

/* One rw edge candidate of si's pivot condition: reader p reads key k,
 * and t3, which writes k, is not in p's snapshot. */
typedef struct rw_term {
    uint32_t reader, writer;  /* relevant indices of p and t3 */
    Z3_ast x;
} rw_term;

/* Clause "pv -> one of the terms' variables" (buf: n + 1 entries). */
static void imply_some(ip_encoder *e, Z3_ast pv, const rw_term *terms,
                       const uint32_t *idx, uint32_t n, Z3_ast *buf)
{
    buf[0] = lit_not(e, pv);
    for (uint32_t i = 0; i < n; i++)
        buf[i + 1] = terms[idx ? idx[i] : i].x;
    enc_clause(e, buf, n + 1);
}

/* Is event b kept whenever event a of the same session is?  Relaxed
 * boundaries keep or drop whole transactions; strict ones keep a prefix
 * of each session's reads. */
static bool kept_with(const ip_encoder *e, uint32_t a, uint32_t b)
{
    const ip_trace *t = e->tr;
    if (e->opts.boundary != IP_BOUNDARY_STRICT)
        return t->events[a].txn == t->events[b].txn;
    return e->units_before[b] <= e->units_before[a];
}

/* Do p and t3 both write a key, each write kept whenever p's read r and
 * t3's write w are?  Then the conflict rule keeps them from overlapping,
 * and an rw term between them, which needs them concurrent, is false in
 * every model: leaving it out spares the solver the proof.  Most
 * read-modify-write rw edges are such (SI's first-committer-wins). */
static bool write_together(const ip_encoder *e, uint32_t p, uint32_t r,
                           uint32_t t3, uint32_t w)
{
    const ip_trace *t = e->tr;
    const ip_txn *a = &t->txns[p], *b = &t->txns[t3];
    uint32_t i = a->wkey_first, ie = i + a->wkey_count;
    uint32_t j = b->wkey_first, je = j + b->wkey_count;
    while (i < ie && j < je) {
        if (t->wkeys[i] < t->wkeys[j]) {
            i++;
        } else if (t->wkeys[i] > t->wkeys[j]) {
            j++;
        } else {
            if (kept_with(e, r, t->wkey_event[i]) &&
                kept_with(e, w, t->wkey_event[j]))
                return true;
            i++;
            j++;
        }
    }
    return false;
}

/* A necessary condition of an unserializable si history (Fekete et al.,
 * TODS 2005; SEMANTICS.md): under si points its dependency graph has a
 * cycle, and every such cycle has two consecutive rw edges between
 * concurrent transactions, so some pivot p has one out (p read a version
 * that a later commit overwrote, and that writer started no later than p
 * committed) and one in (the same, with p as the writer).  Only
 * necessary, hence no model is lost; it spares the refutation loop most
 * si-valid serializable candidates.  x -> its conjuncts suffices: the
 * terms occur only positively. */
static bool encode_si_pivot(ip_encoder *e, Z3_ast *st)
{
    const ip_trace *t = e->tr;
    uint32_t n = e->n_rel, cap = 0, nt = 0;
    rw_term *terms = NULL;
    bool ok = true;
    for (uint32_t gi = 0; ok && gi < e->n_groups && !enc_halted(e); gi++) {
        const enc_group *g = &e->groups[gi];
        uint32_t p = g->txn, pi = e->rel[p];
        /* the group's first read is kept whenever one of them is */
        Z3_ast kept = enc_read_kept(e, e->gev[g->ev_first]);
        if (lit_is_false(e, kept))
            continue;
        for (uint32_t k = t->key_writer_first[g->key];
             ok && k < t->key_writer_first[g->key + 1]; k++) {
            uint32_t t3 = t->key_writer[k], i3 = e->rel[t3];
            /* hb either way rules the term out: t3 in p's snapshot, or
             * t3 starting after p committed */
            if (t3 == IP_INIT_TXN || t3 == p || i3 == IP_NONE ||
                enc_forced_before(e, t3, p) || enc_forced_before(e, p, t3))
                continue;
            Z3_ast ex = enc_write_exists(e, t3, g->key);
            if (lit_is_false(e, ex) ||
                write_together(e, p, e->gev[g->ev_first], t3,
                               ip_write_event(t, t3, g->key)))
                continue;
            if (nt == cap &&
                !(ok = ip_grow((void **)&terms, &cap, sizeof *terms)))
                break;
            Z3_ast x = lit_var(e);
            Z3_ast c[4][2] = {
                { lit_not(e, x), kept },
                { lit_not(e, x), ex },
                /* t3 is not in p's snapshot: by the read rule, exactly
                 * when it commits after the version p read */
                { lit_not(e, x), lit_not(e, lit_lt(e, e->co[i3], st[pi])) },
                /* and started no later than p committed */
                { lit_not(e, x), lit_not(e, lit_lt(e, e->co[pi], st[i3])) } };
            for (int j = 0; j < 4; j++)
                enc_clause(e, c[j], 2);
            terms[nt++] = (rw_term){pi, i3, x};
            e->st.rw_terms++;
        }
    }
    /* the terms come in reader order, as the groups do; bucket them by
     * writer (counting sort of their indices) */
    uint32_t *in_first = calloc(n + 2, sizeof *in_first);
    uint32_t *by_in = malloc(sizeof *by_in * (nt + 1));
    Z3_ast *buf = malloc(sizeof *buf * (nt + 2));
    Z3_ast *pivots = malloc(sizeof *pivots * (n + 1));
    ok = ok && in_first && by_in && buf && pivots;
    for (uint32_t i = 0; ok && i < nt; i++)
        in_first[terms[i].writer + 2]++;
    for (uint32_t i = 2; ok && i < n + 2; i++)
        in_first[i] += in_first[i - 1];
    for (uint32_t i = 0; ok && i < nt; i++)
        by_in[in_first[terms[i].writer + 1]++] = i;
    uint32_t np = 0, out = 0;
    for (uint32_t p = 1; ok && p < n && !enc_halted(e); p++) {
        uint32_t end = out;
        while (end < nt && terms[end].reader == p)
            end++;
        uint32_t ni = in_first[p + 1] - in_first[p];
        if (end > out && ni) {
            Z3_ast pv = lit_var(e);
            imply_some(e, pv, terms + out, NULL, end - out, buf);
            imply_some(e, pv, terms, by_in + in_first[p], ni, buf);
            pivots[np++] = pv;
        }
        out = end;
    }
    if (ok)
        enc_clause(e, pivots, np);   /* np == 0: false, no si prediction */
    free(terms);
    free(in_first);
    free(by_in);
    free(buf);
    free(pivots);
    return ok;
}

/* The points: st < co per transaction; so and wr go from a commit to
 * the next start. */
static void si_points(ip_encoder *e, Z3_ast *st)
{
    const ip_trace *t = e->tr;
    uint32_t n = e->n_rel;
    for (uint32_t i = 1; i < n; i++) {
        st[i] = lit_int(e);
        e->co[i] = lit_int(e);
        enc_assert(e, lit_lt(e, st[i], e->co[i]));
    }
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        Z3_ast prev = NULL;
        const ip_session *se = &t->sessions[s];
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            if (e->rel[x] == IP_NONE)
                continue;
            enc_assert(e, lit_lt(e, prev, st[e->rel[x]]));
            prev = e->co[e->rel[x]];
        }
    }
    for (uint32_t b = 1; b < n && !enc_halted(e); b++)
        for (uint32_t i = e->wr_first[b]; i < e->wr_first[b + 1]; i++) {
            uint32_t a = e->wr_src[i];
            if (a == 0 || lit_is_false(e, e->wr_b[i]))
                continue;
            Z3_ast c[2] = { lit_not(e, e->wr_b[i]), lit_lt(e, e->co[a], st[b]) };
            enc_clause(e, c, 2);
        }
}

/* Read rule: t3 reads k from t2; another writer t1 of k committed before
 * t2 or not before t3's start. */
static void si_read_rule(ip_encoder *e, Z3_ast *st)
{
    const ip_trace *t = e->tr;
    for (uint32_t gi = 0; gi < e->n_groups && !enc_halted(e); gi++) {
        const enc_group *g = &e->groups[gi];
        uint32_t t3 = e->rel[g->txn];
        for (uint32_t w = t->key_writer_first[g->key];
             w < t->key_writer_first[g->key + 1]; w++) {
            uint32_t t1 = t->key_writer[w];
            /* t3 hb-before t1 whenever t1's write is kept: t1 is never
             * in t3's snapshot */
            if (t1 == IP_INIT_TXN || t1 == g->txn ||
                enc_forced_before(e, g->txn, t1))
                continue;
            Z3_ast exists = enc_write_exists(e, t1, g->key);
            Z3_ast c1 = e->co[e->rel[t1]];
            for (uint32_t i = 0; i < g->cand_count; i++) {
                uint32_t t2 = e->gcand[g->cand_first + i];
                /* t1 hb-before t2 whenever t2 is read: committed before */
                if (t2 == t1 || enc_forced_before(e, t1, t2))
                    continue;
                Z3_ast c[4] = { lit_not(e, e->gwr_hist[g->wr_first + i]),
                                lit_not(e, exists),
                                lit_lt(e, c1, e->co[e->rel[t2]]),
                                lit_not(e, lit_lt(e, c1, st[t3])) };
                enc_clause(e, c, 4);
            }
        }
    }
}

/* Conflict rule: writers of one key do not overlap (pairs ordered by so,
 * or by hb whenever both are kept, never do). */
static void si_conflict_rule(ip_encoder *e, Z3_ast *st)
{
    const ip_trace *t = e->tr;
    for (uint32_t k = 0; k < t->n_keys && !enc_halted(e); k++) {
        if (!enc_key_shared(t, k))
            continue;
        uint32_t lo = t->key_writer_first[k], hi = t->key_writer_first[k + 1];
        for (uint32_t a = lo; a < hi && !enc_halted(e); a++) {
            uint32_t t1 = t->key_writer[a];
            if (t1 == IP_INIT_TXN || e->rel[t1] == IP_NONE)
                continue;
            for (uint32_t b = a + 1; b < hi; b++) {
                uint32_t t4 = t->key_writer[b];
                if (t4 == IP_INIT_TXN || e->rel[t4] == IP_NONE ||
                    ip_so(t, t1, t4) || ip_so(t, t4, t1) ||
                    enc_forced_before(e, t1, t4) ||
                    enc_forced_before(e, t4, t1))
                    continue;
                uint32_t i1 = e->rel[t1], i4 = e->rel[t4];
                Z3_ast c[4] = { lit_not(e, enc_write_exists(e, t1, k)),
                                lit_not(e, enc_write_exists(e, t4, k)),
                                lit_lt(e, e->co[i1], st[i4]),
                                lit_lt(e, e->co[i4], st[i1]) };
                enc_clause(e, c, 4);
            }
        }
    }
}

/* Snapshot isolation as its operational definition, which is equivalent
 * to the axioms Prefix and Conflict over a commit order (SEMANTICS.md):
 * every relevant txn has a start point st and a commit point co, st <
 * co; a txn sees exactly the txns that commit before its start; so and
 * wr (within the boundary, as for the other models) go from commit to
 * start.  A read of k from t2 sees no later commit of k before its start
 * (read rule), and two writers of one key never overlap (conflict rule).
 * Txn 0 commits before every start (NULL: minus infinity). */
bool enc_si(ip_encoder *e)
{
    Z3_ast *st = calloc(e->n_rel + 1, sizeof *st);
    if (!st)
        return false;
    si_points(e, st);
    si_read_rule(e, st);
    si_conflict_rule(e, st);
    bool ok = encode_si_pivot(e, st);
    free(st);
    return ok;
}
