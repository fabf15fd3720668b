/*
 * found.c - what a prediction run has found (found.h): predictions kept
 * once per set of changed reads and handed to the stream sink, or bug
 * classes under triage.
 */
#include "found.h"
#include "smallest.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

bool run_signature(const run_state *rs, const ip_trace *base,
                   const uint32_t *base_txn, const ip_prediction *p,
                   uint64_t **sig, uint32_t *n)
{
    *n = p->n_changed;
    *sig = malloc(sizeof **sig * ((size_t)p->n_changed + 1));
    if (!*sig)
        return false;
    for (uint32_t i = 0; i < p->n_changed; i++) {
        const ip_changed_read *c = &p->changed[i];
        uint32_t e = c->event, w = c->predicted;
        if (base_txn) {
            uint32_t op = base->events[e].op, x = base->ops[op].txn;
            uint32_t ox = base_txn[x];
            e = rs->ev_of_op[rs->obs->txns[ox].op_first +
                             (op - base->txns[x].op_first)];
            w = base_txn[w];
        }
        (*sig)[i] = (uint64_t)e << 32 | w;
    }
    qsort(*sig, *n, sizeof **sig, cmp_u64);
    return true;
}

/* Hand p to the caller's sink (under rs->lock) and keep only what the
 * report order needs of it. */
static accept_result stream(run_state *rs, ip_prediction *p)
{
    ip_error err = {0};
    if (!rs->opts->sink(rs->opts->sink_ctx, rs->obs, p, &err)) {
        if (rs->failure == IP_PREDICT_NONE) {
            rs->failure = IP_PREDICT_ERROR;
            *rs->err = err;
        }
        return ACCEPT_ERROR;
    }
    ip_prediction small = {.window = p->window, .seconds = p->seconds,
                           .iteration = p->iteration};
    ip_prediction_clear(p);
    *p = small;
    return ACCEPT_KEPT;
}

accept_result run_keep(run_state *rs, ip_prediction *p, uint64_t *sig,
                       uint32_t n_sig, uint32_t window)
{
    accept_result r = ACCEPT_KEPT;
    pthread_mutex_lock(&rs->lock);
    for (uint32_t i = 0; i < rs->n_kept && r == ACCEPT_KEPT; i++)
        if (rs->kept[i].n_sig == n_sig &&
            !memcmp(rs->kept[i].sig, sig, n_sig * sizeof *sig))
            r = ACCEPT_KNOWN;         /* found before, in another window */
    if (r == ACCEPT_KEPT && rs->n_kept >= rs->want)
        r = ACCEPT_ENOUGH;            /* another worker was first */
    if (r == ACCEPT_KEPT && rs->n_kept == rs->cap_kept &&
        !ip_grow((void **)&rs->kept, &rs->cap_kept, sizeof *rs->kept)) {
        ip_oom(rs->err, "prediction: out of memory");
        rs->failure = IP_PREDICT_ERROR;
        r = ACCEPT_ERROR;
    }
    if (r == ACCEPT_KEPT) {
        p->seconds = ip_now() - rs->start;
        r = rs->opts->sink ? stream(rs, p) : ACCEPT_KEPT;
    }
    if (r == ACCEPT_KEPT) {
        rs->kept[rs->n_kept++] = (kept){.p = *p, .sig = sig, .n_sig = n_sig,
                                        .round = rs->round, .window = window};
        memset(p, 0, sizeof *p);
        sig = NULL;
        if (rs->n_kept >= rs->want)
            r = ACCEPT_ENOUGH;
    }
    pthread_mutex_unlock(&rs->lock);
    if (r == ACCEPT_ENOUGH)
        guard_done(rs->g);
    free(sig);
    ip_prediction_clear(p);
    return r;
}

static accept_result counted(run_state *rs, ip_triage_result t)
{
    if (t == IP_TRIAGE_ERROR)
        return ACCEPT_ERROR;
    if (t == IP_TRIAGE_KNOWN)
        return ACCEPT_KNOWN;
    pthread_mutex_lock(&rs->lock);
    rs->n_found++;
    pthread_mutex_unlock(&rs->lock);
    return ACCEPT_KEPT;
}

/* The exhaustive search's confirmation, of a copy of holder a's
 * assignment. */
static confirm_outcome confirm_whole(void *ctx, const ip_prediction *a,
                                     ip_prediction *q, ip_error *err)
{
    const run_state *rs = ctx;
    const ip_trace *t = rs->obs;
    ip_assignment c;
    memset(q, 0, sizeof *q);
    if (!ip_assignment_copy(t, &a->assignment, &c))
        return ip_oom(err, "prediction: out of memory"), CONFIRM_ERROR;
    confirm_ctx cc = {.obs = t, .model = rs->opts->model,
                      .boundary = rs->opts->boundary,
                      .encoding = rs->opts->encoding, .lazy_weak = true,
                      .check_timeout_ms = guard_check_ms(rs->g), .err = err};
    ip_pco pco;
    confirm_outcome o = ip_confirm(&cc, &c, q, &pco);
    ip_pco_free(&pco);
    return o;
}

static uint32_t kept_size(void *ctx, const ip_prediction *q)
{
    (void)ctx;
    return q->history->n_txns - 1;
}

/* p, or a smaller part found from it (smallest.h), as class cls's
 * representative. */
static bool represent_smallest(run_state *rs, ip_prediction *p, uint32_t cls,
                               ip_error *err)
{
    smallest_ctx c = {.tr = rs->obs, .tg = rs->opts->triage, .cls = cls,
                      .confirm = confirm_whole, .size = kept_size,
                      .ctx = rs};
    ip_prediction pm, qm;
    int s = smallest_part(&c, p, p, &pm, &qm, err);
    bool ok = s >= 0 &&
              ip_triage_represent(rs->opts->triage, cls, rs->obs,
                                  s ? &qm : p, s ? &qm : p, err);
    if (s > 0) {
        ip_prediction_clear(&pm);
        ip_prediction_clear(&qm);
    }
    return ok;
}

accept_result run_classify(run_state *rs, ip_prediction *p,
                           const uint32_t *base_txn, ip_error *err)
{
    p->seconds = ip_now() - rs->start;
    if (base_txn)                 /* a window's, over its cut: as it is */
        return counted(rs, ip_triage_add(rs->opts->triage, rs->obs, p,
                                         base_txn, rs->round, err));
    uint32_t cls;
    bool want;
    accept_result r = counted(rs, ip_triage_add_part(rs->opts->triage, p,
                                                     NULL, rs->round,
                                                     kept_size(rs, p), &cls,
                                                     &want, err));
    if (r != ACCEPT_ERROR && want && !represent_smallest(rs, p, cls, err))
        r = ACCEPT_ERROR;
    return r;
}

accept_result run_classify_part(run_state *rs, ip_prediction *p,
                                const uint32_t *base_txn, uint32_t cut_txns,
                                uint32_t *cls, bool *want, ip_error *err)
{
    p->seconds = ip_now() - rs->start;
    return counted(rs, ip_triage_add_part(rs->opts->triage, p, base_txn,
                                          rs->round, cut_txns, cls, want,
                                          err));
}

void run_found_words(const run_state *rs, char *buf, size_t n)
{
    const ip_triage *tg = rs->opts->triage;
    if (tg)
        snprintf(buf, n, "%u class(es), %u instance(s)", ip_triage_count(tg),
                 ip_triage_instances(tg));
    else
        snprintf(buf, n, "%u prediction(s)", rs->n_kept);
}
