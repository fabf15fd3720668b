/*
 * confirm.c - from one solver model to a confirmed prediction, or to the
 * reason it is none (see predict.h for what each outcome means).
 */
#include "confirm.h"
#include "extract_internal.h"

#include <stdlib.h>
#include <string.h>

void ip_prediction_clear(ip_prediction *p)
{
    ip_trace_free(p->history);
    ip_trace_free(p->base);
    ip_history_map_free(&p->map);
    ip_assignment_free(&p->assignment);
    free(p->changed);
    ip_verdict_free(&p->model_verdict);
    ip_verdict_free(&p->ser_verdict);
    memset(p, 0, sizeof *p);
}

void ip_predictions_free(ip_prediction *p, uint32_t n)
{
    for (uint32_t i = 0; p && i < n; i++)
        ip_prediction_clear(&p[i]);
    free(p);
}

/* The kept reads whose writer differs from the observed one, in one pass
 * over the events (a candidate has a handful; this runs for every
 * candidate confirmed, and a second, counting pass was 2 % of a TPC-C
 * triage). */
static bool collect_changed(const ip_trace *obs, ip_prediction *p)
{
    uint32_t n = 0, cap = 0;
    for (uint32_t e = 0; e < obs->n_events; e++) {
        const ip_event *ev = &obs->events[e];
        uint32_t w = ev->kind == IP_READ ? p->assignment.writer[e] : IP_NONE;
        if (w == IP_NONE || w == ev->writer ||
            p->map.hist_txn[ev->txn] == IP_NONE ||
            p->map.hist_op[ev->op] == IP_NONE)
            continue;
        if (n == cap && !ip_grow((void **)&p->changed, &cap,
                                 sizeof *p->changed))
            return false;
        p->changed[n++] = (ip_changed_read){
            .event = e, .txn = ev->txn, .hist_op = p->map.hist_op[ev->op],
            .key = ev->key, .observed = ev->writer, .predicted = w};
    }
    if (!p->changed && !(p->changed = calloc(1, sizeof *p->changed)))
        return false;
    p->n_changed = n;
    return true;
}

static confirm_outcome check_model(const confirm_ctx *c, ip_prediction *p,
                                   const ip_check_opts *co)
{
    ip_check_result r = ip_check(p->history, c->model, co, &p->model_verdict,
                                 c->err);
    if (r == IP_CHECK_ERROR)
        return CONFIRM_ERROR;
    if (r == IP_CHECK_UNKNOWN)
        return CONFIRM_UNKNOWN;
    if (r == IP_CHECK_VIOLATION && c->lazy_weak &&
        p->model_verdict.n_cycles > 0)
        return CONFIRM_NOT_MODEL;
    if (r == IP_CHECK_VIOLATION) {
        ip_fail(c->err, "the predicted history violates %s according to the "
                "%s checker (encoder and checker disagree)",
                ip_level_name(c->model), ip_level_name(c->model));
        return CONFIRM_BUG;
    }
    return CONFIRM_OK;
}

/* The ser verdict into p->ser_verdict.  A violation's cycle must be a
 * real cycle of the history. */
static confirm_outcome run_ser(const confirm_ctx *c, ip_prediction *p,
                               const ip_check_opts *co, ip_check_result *r)
{
    *r = ip_check(p->history, IP_LVL_SER, co, &p->ser_verdict, c->err);
    if (*r == IP_CHECK_ERROR)
        return CONFIRM_ERROR;
    bool oom = false;
    if (*r == IP_CHECK_VIOLATION && p->ser_verdict.n_cycles > 0 &&
        !ip_cycle_is_valid(p->history, IP_LVL_SER, &p->ser_verdict.cycles[0],
                           &oom)) {
        if (oom)
            return ip_oom(c->err, "prediction: out of memory checking the "
                          "witness cycle"), CONFIRM_ERROR;
        ip_fail(c->err, "the ser checker's violation cycle is not a cycle of "
                "the predicted history");
        return CONFIRM_BUG;
    }
    return CONFIRM_OK;
}

/* exact: unserializable, or a serial order to refute. */
static confirm_outcome check_exact(const confirm_ctx *c, ip_prediction *p,
                                   const ip_check_opts *co)
{
    ip_check_result r;
    confirm_outcome o = run_ser(c, p, co, &r);
    if (o != CONFIRM_OK)
        return o;
    return r == IP_CHECK_UNKNOWN ? CONFIRM_UNKNOWN
         : r == IP_CHECK_OK ? CONFIRM_SERIALIZABLE : CONFIRM_OK;
}

confirm_outcome ip_confirm_ser(const confirm_ctx *c, ip_prediction *p)
{
    ip_check_opts co = {.timeout_ms = c->check_timeout_ms, .max_cycles = 1};
    return check_exact(c, p, &co);
}

/* approx and approx-rank: a pco cycle, which the ser checker must confirm;
 * without one (approx only), a serial order or the pco to refute. */
static confirm_outcome check_approx(const confirm_ctx *c, ip_prediction *p,
                                    const ip_check_opts *co, ip_pco *pco)
{
    if (!ip_pco_compute(p->history, pco, c->err))
        return CONFIRM_ERROR;
    bool cyclic = pco->cyclic;
    if (!cyclic && c->encoding == IP_ENC_APPROX_RANK) {
        ip_fail(c->err, "the rank encoding claimed a pco cycle, but the pco "
                "of the predicted history is acyclic (encoder and pco "
                "disagree)");
        return CONFIRM_BUG;
    }
    ip_check_result r;
    confirm_outcome o = run_ser(c, p, co, &r);
    if (o != CONFIRM_OK)
        return o;
    if (!cyclic)
        return r == IP_CHECK_OK ? CONFIRM_SERIALIZABLE : CONFIRM_NO_PCO_CYCLE;
    if (r == IP_CHECK_UNKNOWN)
        return CONFIRM_UNKNOWN;
    if (r == IP_CHECK_OK) {
        ip_fail(c->err, "the predicted history is serializable according to "
                "the ser checker, but its pco has a cycle (pco and checker "
                "disagree)");
        return CONFIRM_BUG;
    }
    return CONFIRM_OK;
}

confirm_outcome ip_confirm(const confirm_ctx *c, ip_assignment *a,
                           ip_prediction *p, ip_pco *pco)
{
    memset(pco, 0, sizeof *pco);
    memset(p, 0, sizeof *p);
    p->assignment = *a;               /* ownership moves to p */
    memset(a, 0, sizeof *a);
    p->n_sessions = c->obs->n_sessions;
    ip_error why = {0};
    ip_legality local, *l = c->legal ? c->legal : &local;
    ip_legal_result lr = ip_legality_check(c->obs, &p->assignment,
                                           c->boundary, l, &why);
    if (lr == IP_LEGAL_OK)            /* its kept transactions: the history */
        p->history = ip_history_from_legal(c->obs, &p->assignment,
                                           c->boundary, l, &p->map, &why);
    if (l == &local)
        ip_legality_free(l);
    switch (lr) {
    case IP_LEGAL_OK:
        break;
    case IP_LEGAL_HB_CYCLE:
        if (c->lazy_weak)             /* no commit positions to stop it */
            return CONFIRM_ILLEGAL;
        ip_fail(c->err, "the encoder's model is not a legal prediction: %s",
                why.msg);
        return CONFIRM_BUG;
    case IP_LEGAL_UNFIT:
        if (c->unsolved)
            return CONFIRM_UNFIT;
        /* fall through */
    case IP_LEGAL_BROKEN:
        ip_fail(c->err, "the %s breaks the boundary rules: %s",
                c->unsolved ? "candidate made without the solver"
                            : "encoder's model", why.msg);
        return CONFIRM_BUG;
    case IP_LEGAL_ERROR:
        return ip_oom(c->err, "prediction: out of memory checking the "
                       "boundary rules"), CONFIRM_ERROR;
    }
    if (!p->history) {
        if (why.oom)
            return ip_oom(c->err, "prediction: out of memory building the "
                           "predicted history"), CONFIRM_ERROR;
        /* Every transaction dropped (each session's first transaction
         * is its boundary and reads from another's): the empty history
         * is serializable, by the empty order, which the caller
         * refutes. */
        if (p->map.empty) {
            memset(&p->ser_verdict, 0, sizeof p->ser_verdict);
            p->ser_verdict.result = IP_CHECK_OK;
            return CONFIRM_SERIALIZABLE;
        }
        ip_fail(c->err, "cannot build the predicted history: %s", why.msg);
        return CONFIRM_BUG;
    }
    if (!collect_changed(c->obs, p)) {
        ip_oom(c->err, "prediction: out of memory");
        return CONFIRM_ERROR;
    }
    ip_check_opts co = {.timeout_ms = c->check_timeout_ms, .max_cycles = 1};
    confirm_outcome o = check_model(c, p, &co);
    if (o != CONFIRM_OK || c->ser_known)
        return o;
    o = c->encoding == IP_ENC_EXACT ? check_exact(c, p, &co)
                                    : check_approx(c, p, &co, pco);
    if (o != CONFIRM_NO_PCO_CYCLE)
        ip_pco_free(pco);
    return o;
}
