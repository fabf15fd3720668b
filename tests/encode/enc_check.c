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

/* relaxed: in-boundary txns have a writer for every read (kept or
 * dropped), others none; asserts the boundary rules.  in_b[x] gets
 * "committed and at or before its session's boundary". */
static bool relaxed_rules(const ip_trace *t, const ip_assignment *a,
                          bool *in_b)
{
    bool ok = true;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        uint32_t b = a->boundary[s];
        const ip_session *se = &t->sessions[s];
        if (b != IP_NONE && (t->txns[b].session != s || !txn_has_read(t, b)))
            return false;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            const ip_txn *tx = &t->txns[x];
            in_b[x] = (b == IP_NONE || x <= b) && ip_committed(t, x);
            for (uint32_t i = 0; i < tx->ev_count; i++) {
                uint32_t v = tx->ev_first + i, w = a->writer[v];
                const ip_event *ev = &t->events[v];
                if (ev->kind != IP_READ || !ip_committed(t, x))
                    continue;
                if ((w != IP_NONE) != in_b[x])
                    ok = false;    /* writers exactly inside the boundary */
                if (w != IP_NONE && x != b && w != ev->writer)
                    ok = false;    /* only the boundary txn changes */
                if (w != IP_NONE && w != IP_INIT_TXN &&
                    t->txns[w].session == s && w > x)
                    ok = false;    /* never a later own-session write */
            }
        }
    }
    return ok;
}

/* relaxed: hb = (so u wr)+ over the in-boundary txns as a matrix, naively
 * closed; false when cyclic.  after[x]: hb-after some boundary txn. */
static bool relaxed_after(const ip_trace *t, const ip_assignment *a,
                          const bool *in_b, bool *after)
{
    uint32_t n = t->n_txns;
    bool *hb = calloc((size_t)n * n + 1, sizeof *hb);
#define HB(x, y) hb[(size_t)(x) * n + (y)]
    for (uint32_t x = 1; x < n; x++) {
        if (!in_b[x])
            continue;
        for (uint32_t y = x + 1; y < n && t->txns[y].session ==
                                              t->txns[x].session; y++)
            HB(x, y) = in_b[y];
        const ip_txn *tx = &t->txns[x];
        for (uint32_t i = 0; i < tx->ev_count; i++) {
            uint32_t w = a->writer[tx->ev_first + i];
            if (t->events[tx->ev_first + i].kind == IP_READ &&
                w != IP_INIT_TXN && w != IP_NONE)
                HB(w, x) = true;
        }
    }
    for (uint32_t k = 1; k < n; k++)
        for (uint32_t x = 1; x < n; x++)
            for (uint32_t y = 1; x != k && y < n; y++)
                if (HB(x, k) && HB(k, y))
                    HB(x, y) = true;
    bool acyclic = true;
    for (uint32_t x = 1; x < n; x++) {
        acyclic &= !HB(x, x);
        after[x] = false;
        for (uint32_t s = 0; s < t->n_sessions; s++)
            if (a->boundary[s] != IP_NONE && HB(a->boundary[s], x))
                after[x] = true;
    }
#undef HB
    free(hb);
    return acyclic;
}

/* relaxed: events kept (the in-boundary txns not hb-after a boundary
 * txn, whole); asserts the rules */
static bool relaxed_keep(const ip_trace *t, const ip_assignment *a, bool *keep)
{
    bool *in_b = calloc(t->n_txns + 1, sizeof *in_b);
    bool *after = calloc(t->n_txns + 1, sizeof *after);
    bool ok = relaxed_rules(t, a, in_b) && relaxed_after(t, a, in_b, after);
    for (uint32_t v = 0; v < t->n_events; v++) {
        uint32_t x = t->events[v].txn;
        keep[v] = ok && x != IP_INIT_TXN && in_b[x] && !after[x];
    }
    free(in_b);
    free(after);
    return ok;
}

ip_trace *ec_history(const ip_trace *t, const ip_encode_opts *o,
                     const ip_assignment *a)
{
    bool *keep = calloc(t->n_events + 1, sizeof *keep);
    bool rules = o->boundary == IP_BOUNDARY_STRICT
                     ? strict_keep(t, a, keep)
                     : relaxed_keep(t, a, keep);
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

/* The kept reads whose writer differs from the observed one, into ev
 * (room for n_events) or only counted (ev NULL). */
static uint32_t changed_reads(const ip_trace *t, const ip_encode_opts *o,
                              const ip_assignment *a, uint32_t *ev)
{
    bool *keep = calloc(t->n_events + 1, sizeof *keep);
    bool rules = o->boundary == IP_BOUNDARY_STRICT ? strict_keep(t, a, keep)
                                                   : relaxed_keep(t, a, keep);
    CU_ASSERT(rules);
    uint32_t n = 0;
    for (uint32_t v = 0; v < t->n_events; v++)
        if (keep[v] && t->events[v].kind == IP_READ &&
            a->writer[v] != t->events[v].writer) {
            if (ev)
                ev[n] = v;
            n++;
        }
    free(keep);
    return n;
}

uint32_t ec_changed(const ip_trace *t, const ip_encode_opts *o,
                    const ip_assignment *a, uint32_t *ev)
{
    return changed_reads(t, o, a, ev);
}

bool ec_block(ip_encoder *e, const ip_trace *t, const ip_encode_opts *o,
              const ip_assignment *a)
{
    uint32_t *ev = malloc(sizeof *ev * (t->n_events + 1));
    uint32_t n = changed_reads(t, o, a, ev);
    ip_error err = {0};
    bool ok = ip_encoder_block(e, ev, n, &err);
    free(ev);
    return ok;
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
