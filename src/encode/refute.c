/* refute.c - the two kinds of learned constraints: refuting a serial order
 * (exact encoding, paper 4.2.1 with the order fixed) and blocking a set of
 * changed reads (enumeration). */
#include "enc_internal.h"

#include <stdlib.h>

typedef struct lit_vec {
    Z3_ast *a;
    uint32_t n, cap;
} lit_vec;

static bool vpush(lit_vec *v, Z3_ast a)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? 2 * v->cap : 64;
        Z3_ast *na = realloc(v->a, sizeof *na * cap);
        if (!na)
            return false;
        v->a = na;
        v->cap = cap;
    }
    v->a[v->n++] = a;
    return true;
}

/* Terms saying `order` (positions pos, -1 for txn 0 when absent) breaks
 * a requirement of the predicted history: a so or wr edge against it, or
 * t1 between t2 and t3 in it while t3 reads k from t2 and t1's write to k
 * is kept (Eq. 1). */
static bool violations(ip_encoder *e, const int64_t *pos, lit_vec *v)
{
    const ip_trace *t = e->tr;
    for (uint32_t i = 1; i < e->n_rel; i++) {
        uint32_t x = e->relv[i];
        bool bad = pos[i] == INT64_MAX || pos[i] < pos[0];
        /* so: the previous relevant txn of the session must come first */
        for (uint32_t p = x; !bad && p > t->sessions[t->txns[x].session].txn_first;) {
            p--;
            if (e->rel[p] != IP_NONE) {
                bad = pos[e->rel[p]] != INT64_MAX && pos[e->rel[p]] > pos[i];
                break;
            }
        }
        if (bad && !vpush(v, enc_txn_present(e, x)))
            return false;
    }
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        int64_t p3 = pos[e->rel[g->txn]];
        if (p3 == INT64_MAX)
            continue;           /* covered by "g->txn is present" */
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t t2 = e->gcand[g->cand_first + i];
            int64_t p2 = pos[e->rel[t2]];
            Z3_ast wr = e->gwr_hist[g->wr_first + i];
            if (p2 == INT64_MAX || lit_is_false(e, wr))
                continue;
            if (p2 > p3) {
                if (!vpush(v, wr))
                    return false;
                continue;
            }
            for (uint32_t q = t->key_writer_first[g->key];
                 q < t->key_writer_first[g->key + 1]; q++) {
                uint32_t t1 = t->key_writer[q];
                int64_t p1 = pos[e->rel[t1]];
                if (t1 == t2 || t1 == g->txn || p1 == INT64_MAX ||
                    !(p2 < p1 && p1 < p3))
                    continue;
                if (!vpush(v, lit_and2(e, wr,
                                       enc_write_exists(e, t1, g->key))))
                    return false;
            }
        }
    }
    return true;
}

bool ip_encoder_refute_order(ip_encoder *enc, const uint32_t *order,
                             uint32_t n, ip_error *err)
{
    if (!enc || (!order && n))
        return ip_fail(err, "encode: refute_order: no encoder or order");
    int64_t *pos = malloc(sizeof *pos * (enc->n_rel + 1));
    lit_vec v = { 0 };
    if (!pos)
        return ip_fail(err, "encode: out of memory");
    for (uint32_t i = 0; i <= enc->n_rel; i++)
        pos[i] = INT64_MAX;
    bool ok = true;
    for (uint32_t i = 0; ok && i < n; i++) {
        if (order[i] >= enc->tr->n_txns) {
            ok = ip_fail(err, "encode: refute_order: txn id %u out of range",
                         order[i]);
        } else if (enc->rel[order[i]] != IP_NONE) {
            uint32_t r = enc->rel[order[i]];
            if (pos[r] != INT64_MAX)
                ok = ip_fail(err, "encode: refute_order: txn '%s' appears "
                             "twice", ip_txn_name(enc->tr, order[i]));
            pos[r] = i;
        }
    }
    if (ok && pos[0] == INT64_MAX)
        pos[0] = -1;
    if (ok && !violations(enc, pos, &v))
        ok = ip_fail(err, "encode: out of memory");
    if (ok) {
        enc_clause(enc, v.a, v.n);
        ok = enc_z3_ok(enc, err, "refuting a serial order");
    }
    free(pos);
    free(v.a);
    return ok;
}

bool ip_encoder_block(ip_encoder *enc, const ip_assignment *a, ip_error *err)
{
    if (!enc || !a || !a->writer)
        return ip_fail(err, "encode: block: no encoder or assignment");
    const ip_trace *t = enc->tr;
    lit_vec v = { 0 };
    for (uint32_t e = 0; e < t->n_events; e++) {
        if (t->events[e].kind != IP_READ ||
            enc->cand_first[e + 1] - enc->cand_first[e] < 2)
            continue;
        bool changed = a->writer[e] != IP_NONE &&
                       a->writer[e] != t->events[e].writer;
        Z3_ast c = enc_changed(enc, e);
        if (!vpush(&v, changed ? lit_not(enc, c) : c)) {
            free(v.a);
            return ip_fail(err, "encode: out of memory");
        }
    }
    enc_clause(enc, v.a, v.n);
    free(v.a);
    return enc_z3_ok(enc, err, "blocking an assignment");
}
