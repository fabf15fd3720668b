/* refute.c - the learned constraints: refuting a serial order (exact
 * encoding, paper 4.2.1 with the order fixed), refuting a closed partial
 * order (approx encoding: the candidate's acyclic pco), and blocking a set
 * of changed reads (enumeration). */
#include "enc_internal.h"

#include <stdlib.h>

typedef struct lit_vec {
    Z3_ast *a;
    uint32_t n, cap;
} lit_vec;

static bool vpush(lit_vec *v, Z3_ast a)
{
    if (v->n == v->cap && !ip_grow((void **)&v->a, &v->cap, sizeof *v->a))
        return false;
    v->a[v->n++] = a;
    return true;
}

/* An order over relevant transactions: idx[r] is relevant txn r's index
 * in it (IP_NONE when absent).  The first n indices are the transactions
 * the caller named; the ones from n on are the encoder's fill order (see
 * ip_encoder_set_fill), which come after all of them, totally ordered.
 * Among the named ones: total order - idx order; partial - bit idx[b] of
 * row idx[a] of `bits`. */
typedef struct order_view {
    uint32_t *idx;            /* n_rel entries */
    uint32_t n;               /* named transactions */
    const uint64_t *bits;     /* NULL for a total order */
    uint32_t words;
} order_view;

/* Txn 0 precedes every transaction whatever the order says. */
static bool before(const ip_encoder *e, const order_view *o, uint32_t a,
                   uint32_t b)
{
    uint32_t ra = e->rel[a], rb = e->rel[b];
    if (ra == 0 || rb == 0)
        return ra == 0 && rb != 0;
    uint32_t i = o->idx[ra], j = o->idx[rb];
    if (!o->bits || i >= o->n || j >= o->n)
        return i < j;
    return (o->bits[(size_t)i * o->words + j / 64] >> (j % 64)) & 1u;
}

static bool present(const order_view *o, const ip_encoder *e, uint32_t x)
{
    return e->rel[x] == 0 || o->idx[e->rel[x]] != IP_NONE;
}

/* The ww/rw terms of one (group, candidate t2) pair: "t3 reads k from
 * t2 and a write of k that the order puts between them exists".  Of the
 * writers of one session only the earliest in session order matters: a
 * later one's write exists only if the earlier one's does (boundaries
 * cut sessions from the end).  So one term, wr AND (one literal per
 * session), replaces a term per writer: clauses shrink and the solver
 * internalizes fewer new terms. */
static bool vpush_between(ip_encoder *e, const order_view *o,
                          const enc_group *g, uint32_t t2, Z3_ast wr,
                          lit_vec *v)
{
    const ip_trace *t = e->tr;
    uint32_t t3 = g->txn, n = 0;
    Z3_ast ex[8];             /* write of k by first[i] exists */
    uint32_t first[8], sess[8]; /* earliest such writer of session sess[i] */
    for (uint32_t q = t->key_writer_first[g->key];
         q < t->key_writer_first[g->key + 1]; q++) {
        uint32_t t1 = t->key_writer[q];
        if (t1 == IP_INIT_TXN || t1 == t2 || t1 == t3 || !present(o, e, t1))
            continue;
        bool ww = before(e, o, t1, t3) && !before(e, o, t1, t2);
        bool rw = before(e, o, t2, t1) && !before(e, o, t3, t1);
        if (!ww && !rw)
            continue;
        uint32_t s1 = t->txns[t1].session, i = 0;
        while (i < n && sess[i] != s1)
            i++;
        if (i < n && first[i] < t1)
            continue;         /* an earlier write of the session is there */
        if (i == n && n == 8) {
            if (!vpush(v, lit_and2(e, wr, lit_or(e, ex, n))))
                return false;
            n = i = 0;
        }
        if (i == n)
            n++;
        sess[i] = s1;
        first[i] = t1;
        ex[i] = enc_write_exists(e, t1, g->key);
    }
    return n == 0 || vpush(v, lit_and2(e, wr, lit_or(e, ex, n)));
}

/* Terms saying the order is not closed for the predicted history: a txn
 * it does not cover is present, a so or wr edge goes against it, or for
 * t3 reading k from t2 and another kept write t1 of k, the order has
 * t1 before t3 but not before t2 (ww), or t2 before t1 but not t3 before
 * t1 (rw).  For a total order the two rules coincide and say "t1 lies
 * between t2 and t3" (Eq. 1); a partial order closed under both contains
 * the least pco of the history. */
static bool violations(ip_encoder *e, const order_view *o, lit_vec *v)
{
    const ip_trace *t = e->tr;
    for (uint32_t i = 1; i < e->n_rel; i++) {
        uint32_t x = e->relv[i];
        bool bad = !present(o, e, x);
        /* so: the previous relevant txn of the session must come first */
        for (uint32_t p = x; !bad && p > t->sessions[t->txns[x].session].txn_first;) {
            p--;
            if (e->rel[p] != IP_NONE) {
                bad = present(o, e, p) && !before(e, o, p, x);
                break;
            }
        }
        if (bad && !vpush(v, enc_txn_present(e, x)))
            return false;
    }
    /* wr against the order: one txn-level literal per pair, not one per
     * key, which keeps the clause small */
    for (uint32_t i3 = 1; i3 < e->n_rel; i3++)
        for (uint32_t i = e->wr_first[i3]; i < e->wr_first[i3 + 1]; i++) {
            uint32_t i2 = e->wr_src[i];
            uint32_t t2 = e->relv[i2], t3 = e->relv[i3];
            Z3_ast wr = e->wr_h[i];
            if (i2 == 0 || i2 == i3 || lit_is_false(e, wr) ||
                !present(o, e, t2) || !present(o, e, t3) ||
                before(e, o, t2, t3))
                continue;
            if (!vpush(v, wr))
                return false;
        }
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        uint32_t t3 = g->txn;
        if (!present(o, e, t3))
            continue;           /* covered by "t3 is present" */
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t t2 = e->gcand[g->cand_first + i];
            Z3_ast wr = e->gwr_hist[g->wr_first + i];
            if (!present(o, e, t2) || lit_is_false(e, wr) ||
                !before(e, o, t2, t3))
                continue;       /* absent, or a wr violation above */
            if (!vpush_between(e, o, g, t2, wr, v))
                return false;
        }
    }
    return true;
}

/* idx for the n txns of `txn` (observed ids), then the fill order for
 * the rest; false on a bad list. */
static bool index_txns(ip_encoder *e, const uint32_t *txn, uint32_t n,
                       uint32_t *idx, ip_error *err)
{
    for (uint32_t i = 0; i < e->n_rel; i++)
        idx[i] = IP_NONE;
    for (uint32_t i = 0; i < n; i++) {
        if (txn[i] >= e->tr->n_txns)
            return ip_fail(err, "encode: refute: txn id %u out of range",
                           txn[i]);
        uint32_t r = e->rel[txn[i]];
        if (r == IP_NONE)
            continue;
        if (idx[r] != IP_NONE)
            return ip_fail(err, "encode: refute: txn '%s' appears twice",
                           ip_txn_name(e->tr, txn[i]));
        idx[r] = i;
    }
    for (uint32_t i = 0; i < e->n_fill; i++) {
        uint32_t r = e->fill[i];
        if (idx[r] == IP_NONE)
            idx[r] = n + i;
    }
    return true;
}

/* Assert the clause "the order over txn[0..n) (total when bits is NULL),
 * completed by the fill order, is violated". */
static bool refute(ip_encoder *e, const uint32_t *txn, uint32_t n,
                   const uint64_t *bits, uint32_t words, const char *what,
                   ip_error *err)
{
    order_view o = { malloc(sizeof *o.idx * (e->n_rel + 1)), n, bits, words };
    lit_vec v = { 0 };
    bool ok = o.idx ? index_txns(e, txn, n, o.idx, err)
                    : ip_oom(err, "encode: out of memory");
    if (ok && !violations(e, &o, &v))
        ok = ip_oom(err, "encode: out of memory");
    if (ok) {
        enc_clause(e, v.a, v.n);
        ok = enc_z3_ok(e, err, what);
    }
    free(v.a);
    free(o.idx);
    return ok;
}

bool ip_encoder_refute_order(ip_encoder *enc, const uint32_t *order,
                             uint32_t n, ip_error *err)
{
    if (!enc || (!order && n))
        return ip_fail(err, "encode: refute_order: no encoder or order");
    return refute(enc, order, n, NULL, 0, "refuting a serial order", err);
}

bool ip_encoder_refute_closed(ip_encoder *enc, const uint32_t *txn,
                              uint32_t n, const uint64_t *bits, uint32_t words,
                              ip_error *err)
{
    if (!enc || (!txn && n) || (!bits && n) || words < (n + 63) / 64)
        return ip_fail(err, "encode: refute_closed: bad arguments");
    return refute(enc, txn, n, bits, words,
                  "refuting a closed partial order", err);
}

bool ip_encoder_set_fill(ip_encoder *enc, const uint32_t *order, uint32_t n,
                         ip_error *err)
{
    if (!enc || (!order && n))
        return ip_fail(err, "encode: set_fill: no encoder or order");
    uint32_t *fill = malloc(sizeof *fill * (enc->n_rel + 1));
    uint8_t *seen = calloc(enc->n_rel + 1, 1);
    if (!fill || !seen) {
        free(fill);
        free(seen);
        return ip_oom(err, "encode: out of memory");
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (order[i] >= enc->tr->n_txns) {
            free(fill);
            free(seen);
            return ip_fail(err, "encode: set_fill: txn id %u out of range",
                           order[i]);
        }
        uint32_t r = enc->rel[order[i]];
        if (r == IP_NONE || r == 0 || seen[r])
            continue;
        seen[r] = 1;
        fill[k++] = r;
    }
    free(seen);
    free(enc->fill);
    enc->fill = fill;
    enc->n_fill = k;
    return true;
}

bool ip_encoder_block(ip_encoder *enc, const uint32_t *changed, uint32_t n,
                      ip_error *err)
{
    if (!enc || (!changed && n))
        return ip_fail(err, "encode: block: no encoder or reads");
    const ip_trace *t = enc->tr;
    uint8_t *is_changed = calloc((size_t)t->n_events + 1, 1);
    if (!is_changed)
        return ip_oom(err, "encode: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        if (changed[i] >= t->n_events ||
            t->events[changed[i]].kind != IP_READ) {
            free(is_changed);
            return ip_fail(err, "encode: block: event %u is not a read",
                           changed[i]);
        }
        is_changed[changed[i]] = 1;
    }
    lit_vec v = { 0 };
    bool ok = true;
    for (uint32_t e = 0; ok && e < t->n_events; e++) {
        if (t->events[e].kind != IP_READ ||
            enc->cand_first[e + 1] - enc->cand_first[e] < 2)
            continue;
        Z3_ast c = enc_changed(enc, e);
        ok = vpush(&v, is_changed[e] ? lit_not(enc, c) : c);
    }
    free(is_changed);
    if (!ok) {
        free(v.a);
        return ip_oom(err, "encode: out of memory");
    }
    enc_clause(enc, v.a, v.n);
    free(v.a);
    return enc_z3_ok(enc, err, "blocking a set of changed reads");
}

/* The candidate index of "read event r may read from txn w", or IP_NONE. */
static uint32_t candidate_of(const ip_encoder *e, uint32_t r, uint32_t w)
{
    for (uint32_t c = e->cand_first[r]; c < e->cand_first[r + 1]; c++)
        if (e->cand_txn[c] == w)
            return c;
    return IP_NONE;
}

/* A one-fact READS forbid: that candidate is ruled out whatever else a
 * model holds (ip_encoder_choices leaves it out). */
static bool note_alone(ip_encoder *e, const ip_fact *f)
{
    if (!e->alone && !(e->alone = calloc(e->n_cand + 1, 1)))
        return false;
    e->alone[candidate_of(e, f->a, f->b)] = 1;
    return true;
}

/* Which facts the formula can state: the checks of fact_literal. */
bool ip_encoder_can_state(const ip_encoder *e, const ip_fact *f)
{
    const ip_trace *t = e->tr;
    bool relaxed = e->opts.boundary == IP_BOUNDARY_RELAXED;
    switch ((ip_fact_kind)f->kind) {
    case IP_FACT_PRESENT:
        return f->a < t->n_txns;
    case IP_FACT_WRITES:
        return f->a < t->n_txns && f->b < t->n_keys &&
               ip_write_event(t, f->a, f->b) != IP_NONE;
    case IP_FACT_INSIDE:
        return f->a < t->n_txns && relaxed;
    case IP_FACT_READS:
    case IP_FACT_CHOOSES:
        return f->a < t->n_events && t->events[f->a].kind == IP_READ &&
               (f->kind == IP_FACT_READS || relaxed) &&
               candidate_of(e, f->a, f->b) != IP_NONE;
    }
    return false;
}

/* The literal of one fact, or NULL for a fact the formula cannot state. */
static Z3_ast fact_literal(ip_encoder *e, const ip_fact *f)
{
    if (!ip_encoder_can_state(e, f))
        return NULL;
    const ip_trace *t = e->tr;
    switch ((ip_fact_kind)f->kind) {
    case IP_FACT_PRESENT:
        return enc_txn_present(e, f->a);
    case IP_FACT_WRITES:
        return enc_write_exists(e, f->a, f->b);
    case IP_FACT_INSIDE:
        return enc_in_boundary(e, f->a);
    case IP_FACT_READS:
        return lit_and2(e, enc_read_kept(e, f->a),
                        e->cx[candidate_of(e, f->a, f->b)]);
    case IP_FACT_CHOOSES:
        return lit_and2(e, enc_in_boundary(e, t->events[f->a].txn),
                        e->cx[candidate_of(e, f->a, f->b)]);
    }
    return NULL;
}

bool ip_encoder_forbid(ip_encoder *enc, const ip_fact *facts, uint32_t n,
                       ip_error *err)
{
    if (!enc || (!facts && n))
        return ip_fail(err, "encode: forbid: no encoder or facts");
    lit_vec v = { 0 };
    for (uint32_t i = 0; i < n; i++) {
        Z3_ast l = fact_literal(enc, &facts[i]);
        if (!l) {
            free(v.a);
            return ip_fail(err, "encode: forbid: fact %u (kind %u: %u, %u) "
                           "is not one the formula can state", i,
                           (unsigned)facts[i].kind, facts[i].a, facts[i].b);
        }
        if (!vpush(&v, lit_not(enc, l))) {
            free(v.a);
            return ip_oom(err, "encode: out of memory");
        }
    }
    enc_clause(enc, v.a, v.n);
    free(v.a);
    if (n == 1 && facts[0].kind == IP_FACT_READS && !note_alone(enc, facts))
        return ip_oom(err, "encode: out of memory");
    return enc_z3_ok(enc, err, "forbidding facts");
}

uint32_t ip_encoder_choices(const ip_encoder *e, uint32_t read,
                            uint32_t *out, uint32_t cap)
{
    const ip_trace *t = e->tr;
    if (read >= t->n_events || t->events[read].kind != IP_READ)
        return 0;
    uint32_t n = 0;
    for (uint32_t c = e->cand_first[read]; c < e->cand_first[read + 1]; c++)
        if (!lit_is_false(e, e->cx[c]) && !(e->alone && e->alone[c])) {
            if (n < cap)
                out[n] = e->cand_txn[c];
            n++;
        }
    return n;
}
