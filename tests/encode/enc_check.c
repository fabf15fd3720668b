/* enc_check.c - see enc_check.h.  Deliberately written from the trace and
 * the assignment alone, without the encoder's internals. */
#include "enc_check.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

static bool txn_has_read(const ip_trace *t, uint32_t x)
{
    const ip_txn *tx = &t->txns[x];
    for (uint32_t i = 0; i < tx->ev_count; i++)
        if (t->events[tx->ev_first + i].kind == IP_READ)
            return true;
    return false;
}

/* strict: events kept per session; asserts the boundary rules */
static bool strict_keep(const ip_trace *t, const ip_assignment *a, bool *keep)
{
    bool ok = true;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        uint32_t b = a->boundary[s];
        uint32_t bpos = UINT32_MAX;
        if (b != IP_NONE) {
            CU_ASSERT_EQUAL_FATAL(t->events[b].kind, IP_READ);
            CU_ASSERT_EQUAL_FATAL(t->txns[t->events[b].txn].session, s);
            bpos = t->events[b].pos;
        }
        const ip_session *se = &t->sessions[s];
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++)
            for (uint32_t i = 0; i < t->txns[x].ev_count; i++) {
                uint32_t v = t->txns[x].ev_first + i;
                const ip_event *ev = &t->events[v];
                if (ev->kind == IP_WRITE) {
                    keep[v] = ev->pos < bpos;
                    continue;
                }
                keep[v] = ev->pos <= bpos;
                if (ev->pos < bpos && a->writer[v] != ev->writer)
                    ok = false;   /* before the boundary: observed */
                if (ev->pos > bpos && a->writer[v] != IP_NONE)
                    ok = false;   /* beyond: dropped */
                if (ev->pos == bpos && a->writer[v] == IP_NONE)
                    ok = false;   /* the boundary read is kept */
            }
    }
    return ok;
}

/* relaxed: txns kept; asserts the boundary rules */
static bool relaxed_keep(const ip_trace *t, const ip_assignment *a, bool *keep)
{
    bool ok = true;
    for (uint32_t v = 0; v < t->n_events; v++)
        keep[v] = false;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        uint32_t b = a->boundary[s];
        const ip_session *se = &t->sessions[s];
        if (b != IP_NONE && (t->txns[b].session != s || !txn_has_read(t, b)))
            return false;
        bool prev_inc = true;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            const ip_txn *tx = &t->txns[x];
            bool in_b = b == IP_NONE || x <= b, inc = in_b && prev_inc;
            bool first_read = true;
            for (uint32_t i = 0; i < tx->ev_count; i++) {
                uint32_t v = tx->ev_first + i;
                const ip_event *ev = &t->events[v];
                if (ev->kind != IP_READ)
                    continue;
                bool has = a->writer[v] != IP_NONE;
                if (first_read) {
                    if (has && !prev_inc)
                        ok = false;    /* included set is so-prefix closed */
                    inc = in_b && has;
                }
                first_read = false;
                if (has != inc)
                    ok = false;        /* a txn is kept whole or dropped */
                if (has && x != b && a->writer[v] != ev->writer)
                    ok = false;        /* only the boundary txn changes */
                if (has && a->writer[v] != IP_INIT_TXN &&
                    t->txns[a->writer[v]].session == s && a->writer[v] > x)
                    ok = false;        /* never a later own-session write */
            }
            for (uint32_t i = 0; i < tx->ev_count; i++)
                keep[tx->ev_first + i] = inc;
            prev_inc = inc;
        }
    }
    return ok;
}

/* relaxed: no kept txn happens after a boundary txn (hb in the history) */
static bool no_kept_after_boundary(const ip_trace *t, const ip_assignment *a,
                                   const bool *keep)
{
    bool *after = calloc(t->n_txns, sizeof *after);
    bool *kept = calloc(t->n_txns, sizeof *kept);
    for (uint32_t v = 0; v < t->n_events; v++)
        if (keep[v])
            kept[t->events[v].txn] = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t v = 0; v < t->n_events; v++) {
            const ip_event *ev = &t->events[v];
            uint32_t w = a->writer[v];
            if (!keep[v] || ev->kind != IP_READ || w == IP_INIT_TXN ||
                after[ev->txn])
                continue;
            bool w_is_b = a->boundary[t->txns[w].session] == w;
            if (w_is_b || after[w]) {
                after[ev->txn] = true;
                changed = true;
            }
        }
        for (uint32_t x = 1; x + 1 < t->n_txns; x++)
            if (after[x] && !after[x + 1] &&
                t->txns[x + 1].session == t->txns[x].session) {
                after[x + 1] = true;
                changed = true;
            }
    }
    bool ok = true;
    for (uint32_t x = 1; x < t->n_txns; x++)
        if (after[x] && kept[x])
            ok = false;
    free(after);
    free(kept);
    return ok;
}

ip_trace *ec_history(const ip_trace *t, const ip_encode_opts *o,
                     const ip_assignment *a)
{
    bool *keep = calloc(t->n_events + 1, sizeof *keep);
    bool rules = o->boundary == IP_BOUNDARY_STRICT
                     ? strict_keep(t, a, keep)
                     : relaxed_keep(t, a, keep) &&
                           no_kept_after_boundary(t, a, keep);
    CU_ASSERT(rules);
    ip_error err = {0};
    const char *init = ip_str(t, t->initial_name);
    ip_builder *b = ip_builder_new("predicted", init, IP_STRICT);
    for (uint32_t s = 0; rules && s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        uint32_t sh = IP_NONE;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            const ip_txn *tx = &t->txns[x];
            uint32_t th = IP_NONE;
            for (uint32_t i = 0; i < tx->ev_count; i++) {
                uint32_t v = tx->ev_first + i;
                const ip_event *ev = &t->events[v];
                if (!keep[v])
                    continue;
                if (sh == IP_NONE)
                    sh = ip_builder_session(b, ip_str(t, se->name), &err);
                if (th == IP_NONE)
                    th = ip_builder_txn(b, sh, ip_txn_name(t, x),
                                        IP_COMMITTED, 0, &err);
                const char *from = ev->kind == IP_READ
                                       ? (a->writer[v] == IP_INIT_TXN
                                              ? init
                                              : ip_txn_name(t, a->writer[v]))
                                       : NULL;
                CU_ASSERT(ip_builder_op(b, th, ev->kind, ip_key_name(t, ev->key),
                                        NULL, from, 0, &err));
            }
        }
    }
    free(keep);
    if (!rules) {
        ip_builder_free(b);
        return NULL;
    }
    ip_trace *h = ip_builder_finish(b, &err);
    if (!h)
        fprintf(stderr, "\n  rebuilding the prediction failed: %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL(h);
    return h;
}

void ec_confirm(const ip_trace *t, const ip_encode_opts *o,
                const ip_assignment *a)
{
    ip_trace *h = ec_history(t, o, a);
    if (!h)
        return;
    ip_verdict v;
    ip_error err = {0};
    CU_ASSERT_EQUAL(ip_check(h, o->model, NULL, &v, &err), IP_CHECK_OK);
    ip_verdict_free(&v);
    CU_ASSERT_EQUAL(ip_check(h, IP_LVL_SER, NULL, &v, &err),
                    IP_CHECK_VIOLATION);
    ip_verdict_free(&v);
    ip_trace_free(h);
}

uint32_t ec_changed(const ip_trace *t, const ip_assignment *a)
{
    uint32_t n = 0;
    for (uint32_t v = 0; v < t->n_events; v++)
        n += t->events[v].kind == IP_READ && a->writer[v] != IP_NONE &&
             a->writer[v] != t->events[v].writer;
    return n;
}

static uint32_t txn_by_name(const ip_trace *t, const char *name)
{
    for (uint32_t x = 0; x < t->n_txns; x++)
        if (!strcmp(ip_txn_name(t, x), name))
            return x;
    return IP_NONE;
}

uint32_t *ec_serial_order(const ip_trace *t, const ip_trace *h, uint32_t *n)
{
    ip_verdict v;
    ip_error err = {0};
    ip_check_result r = ip_check(h, IP_LVL_SER, NULL, &v, &err);
    CU_ASSERT(r == IP_CHECK_OK || r == IP_CHECK_VIOLATION);
    uint32_t *order = NULL;
    if (r == IP_CHECK_OK) {
        order = malloc(sizeof *order * (v.n_order + 1));
        for (uint32_t i = 0; i < v.n_order; i++) {
            order[i] = txn_by_name(t, ip_txn_name(h, v.order[i]));
            CU_ASSERT_NOT_EQUAL(order[i], IP_NONE);
        }
        *n = v.n_order;
    }
    ip_verdict_free(&v);
    return order;
}

ip_solve_result ec_predict(const ip_trace *t, const ip_encode_opts *o,
                           ip_encode_stats *st, ip_assignment *a)
{
    ip_error err = {0};
    ip_encoder *e = ip_encoder_new(t, o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    if (getenv("ENC_STATS")) {
        ip_encode_stats g;
        ip_encoder_stats(e, &g);
        fprintf(stderr, "  [gen %.3fs, %lu literals, free %u cand %u txns %u]\n", g.gen_seconds,
                (unsigned long)g.literals, g.free_reads, g.candidates, g.txns);
    }
    ip_solve_result r = IP_SOLVE_ERROR;
    for (int round = 0; round < 500; round++) {
        r = ip_encoder_solve(e, 0, a, &err);
        if (r != IP_SOLVE_SAT || o->encoding == IP_ENC_APPROX_RANK)
            break;
        ip_trace *h = ec_history(t, o, a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(h);
        uint32_t n = 0, *order = ec_serial_order(t, h, &n);
        ip_trace_free(h);
        if (!order)
            break;              /* unserializable: a prediction */
        ip_assignment_free(a);
        CU_ASSERT_FATAL(ip_encoder_refute_order(e, order, n, &err));
        free(order);
        r = IP_SOLVE_ERROR;     /* if the loop runs out */
    }
    CU_ASSERT(r != IP_SOLVE_ERROR);
    if (r == IP_SOLVE_SAT)
        ec_confirm(t, o, a);
    if (st)
        ip_encoder_stats(e, st);
    ip_encoder_free(e);
    return r;
}
