/*
 * run.c - the search loop of ip_predict_run: solve, confirm, refute or
 * block, solve again (see predict.h).
 */
#include "confirm.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct search {
    const ip_trace *obs;
    const ip_predict_opts *opts;
    unsigned want;              /* predictions asked for */
    double start, deadline;     /* monotonic seconds; deadline 0 = none */
    ip_prediction *preds;
    uint32_t n, cap;
    ip_predict_stats *stats;
    ip_error *err;
} search;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(const search *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void progress(const search *s, const char *fmt, ...)
{
    if (!s->opts->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(s->opts->progress, "isopredict: [%7.2fs] ", now() - s->start);
    vfprintf(s->opts->progress, fmt, ap);
    fputc('\n', s->opts->progress);
    fflush(s->opts->progress);
    va_end(ap);
}

/* Milliseconds left before `deadline` (0 = no limit); false when none. */
static bool time_left(double deadline, unsigned *ms)
{
    *ms = 0;
    if (deadline == 0)
        return true;
    double left = deadline - now();
    if (left <= 0.0005)
        return false;
    *ms = left * 1000.0 > 4e9 ? 4000000000u : (unsigned)(left * 1000.0) + 1;
    return true;
}

static bool same_assignment(const ip_trace *obs, const ip_assignment *a,
                            const ip_assignment *b)
{
    return a->boundary && b->boundary &&
           !memcmp(a->boundary, b->boundary,
                   obs->n_sessions * sizeof *a->boundary) &&
           !memcmp(a->writer, b->writer, obs->n_events * sizeof *a->writer);
}

static bool keep_prediction(search *s, ip_prediction *p)
{
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 4;
        ip_prediction *np = realloc(s->preds, cap * sizeof *np);
        if (!np)
            return ip_fail(s->err, "prediction: out of memory");
        s->preds = np;
        s->cap = cap;
    }
    p->seconds = now() - s->start;
    s->preds[s->n++] = *p;
    return true;
}

/* Refute the serial order the ser checker found for p's history. */
static bool refute(search *s, ip_encoder *enc, const ip_prediction *p)
{
    const ip_verdict *v = &p->ser_verdict;
    uint32_t *order = malloc(((size_t)v->n_order + 1) * sizeof *order);
    if (!order)
        return ip_fail(s->err, "prediction: out of memory");
    for (uint32_t i = 0; i < v->n_order; i++)
        order[i] = p->map.obs_txn[v->order[i]];
    bool ok = ip_encoder_refute_order(enc, order, v->n_order, s->err);
    free(order);
    s->stats->refuted_orders++;
    return ok;
}

/* Refute p's acyclic pco (over its history's txn ids). */
static bool refute_pco(search *s, ip_encoder *enc, const ip_prediction *p,
                       const ip_pco *pco)
{
    if (pco->n != p->map.n_hist_txns)
        return ip_fail(s->err, "prediction: pco over %u transactions, history "
                       "of %u", pco->n, p->map.n_hist_txns);
    bool ok = ip_encoder_refute_closed(enc, p->map.obs_txn, pco->n, pco->bits,
                                       pco->words, s->err);
    s->stats->refuted_pcos++;
    return ok;
}

static const char *solve_name(ip_solve_result r)
{
    switch (r) {
    case IP_SOLVE_SAT: return "sat";
    case IP_SOLVE_UNSAT: return "unsat";
    case IP_SOLVE_UNKNOWN: return "unknown";
    case IP_SOLVE_ERROR: break;
    }
    return "error";
}

/* What to do with one model; returns -1 to go on, else the result. */
static int handle_model(search *s, ip_encoder *enc, ip_encoding kind,
                        ip_assignment *a, ip_assignment *prev, uint32_t iter)
{
    unsigned ms;
    time_left(s->deadline, &ms);
    confirm_ctx c = {.obs = s->obs, .model = s->opts->model,
                     .boundary = s->opts->boundary, .encoding = kind,
                     .check_timeout_ms = ms && ms < 1000 ? 1000 : ms,
                     .err = s->err};
    ip_prediction p;
    ip_pco pco;
    confirm_outcome o = ip_confirm(&c, a, &p, &pco);
    bool ok = true;
    p.iteration = s->stats->solver_calls;
    switch (o) {
    case CONFIRM_OK:
        progress(s, "candidate %u confirmed: %s satisfied, ser violated, "
                 "%u changed read(s)", iter, ip_level_name(s->opts->model),
                 p.n_changed);
        ip_assignment_free(prev);
        memset(prev, 0, sizeof *prev);
        if (!keep_prediction(s, &p)) {
            ip_prediction_clear(&p);
            return IP_PREDICT_ERROR;
        }
        if (s->n >= s->want)
            return IP_PREDICT_FOUND;
        return ip_encoder_block(enc, &s->preds[s->n - 1].assignment, s->err)
                   ? -1 : IP_PREDICT_ERROR;
    case CONFIRM_SERIALIZABLE:
        progress(s, "candidate %u is serializable; refuting its serial "
                 "order of %u transactions", iter, p.ser_verdict.n_order);
        ok = refute(s, enc, &p);
        break;
    case CONFIRM_NO_PCO_CYCLE:
        progress(s, "candidate %u has no pco cycle; refuting its pco over "
                 "%u transactions", iter, pco.n);
        ok = refute_pco(s, enc, &p, &pco);
        ip_pco_free(&pco);
        break;
    case CONFIRM_UNKNOWN:
        ip_prediction_clear(&p);
        return s->n ? IP_PREDICT_FOUND : IP_PREDICT_UNKNOWN;
    case CONFIRM_BUG:
        ip_prediction_clear(&p);
        return IP_PREDICT_UNCONFIRMED;
    case CONFIRM_ERROR:
        ip_prediction_clear(&p);
        return IP_PREDICT_ERROR;
    }
    /* refuted: keep the assignment to catch a model coming back */
    ip_assignment_free(prev);
    *prev = p.assignment;
    memset(&p.assignment, 0, sizeof p.assignment);
    ip_prediction_clear(&p);
    return ok ? -1 : IP_PREDICT_ERROR;
}

static ip_predict_result solve_loop(search *s, ip_encoder *enc,
                                    ip_encoding kind, double deadline)
{
    ip_assignment prev = {0};
    int r = -1;
    for (uint32_t iter = 1; r < 0; iter++) {
        unsigned ms;
        if (!time_left(deadline, &ms)) {
            progress(s, "time limit reached");
            r = s->n ? IP_PREDICT_FOUND : IP_PREDICT_UNKNOWN;
            break;
        }
        ip_assignment a = {0};
        ip_solve_result sr = ip_encoder_solve(enc, ms, &a, s->err);
        s->stats->solver_calls++;
        ip_encoder_stats(enc, &s->stats->encode);
        progress(s, "solve %u (%s): %s, %.2fs in the solver so far", iter,
                 ip_encoding_name(kind), solve_name(sr),
                 s->stats->encode.solve_seconds);
        if (sr != IP_SOLVE_SAT) {
            ip_assignment_free(&a);
            r = sr == IP_SOLVE_UNSAT ? (s->n ? IP_PREDICT_FOUND
                                             : IP_PREDICT_NONE)
              : sr == IP_SOLVE_UNKNOWN ? (s->n ? IP_PREDICT_FOUND
                                               : IP_PREDICT_UNKNOWN)
              : IP_PREDICT_ERROR;
            break;
        }
        if (same_assignment(s->obs, &a, &prev)) {
            ip_assignment_free(&a);
            ip_fail(s->err, "the encoder returned a model whose serial "
                    "order or pco was refuted before (the refutation had no "
                    "effect)");
            r = IP_PREDICT_UNCONFIRMED;
            break;
        }
        r = handle_model(s, enc, kind, &a, &prev, iter);
    }
    ip_assignment_free(&prev);
    return (ip_predict_result)r;
}

/* Some read must change: a history that only truncates a serializable
 * observed trace is serializable itself. */
static bool require_change(search *s, ip_encoder *enc)
{
    const ip_trace *t = s->obs;
    ip_assignment a = {
        .boundary = malloc(sizeof *a.boundary * (t->n_sessions + 1)),
        .writer = malloc(sizeof *a.writer * (t->n_events + 1))};
    bool ok = a.boundary && a.writer;
    for (uint32_t x = 0; ok && x < t->n_sessions; x++)
        a.boundary[x] = IP_NONE;
    for (uint32_t e = 0; ok && e < t->n_events; e++)
        a.writer[e] = t->events[e].kind == IP_READ ? t->events[e].writer
                                                   : IP_NONE;
    ok = ok ? ip_encoder_block(enc, &a, s->err)
            : ip_fail(s->err, "prediction: out of memory");
    ip_assignment_free(&a);
    return ok;
}

/* When the observed trace is serializable (the usual case: the test run
 * passed), two facts make the search loop much shorter: some read must
 * change, and a serial order of the observed trace completes every
 * refuted order - candidates are the observed trace with a few reads
 * changed, so its order tends to fit the transactions a candidate leaves
 * out.  Otherwise neither is claimed. */
static bool use_observed_order(search *s, ip_encoder *enc)
{
    unsigned ms;
    time_left(s->deadline, &ms);
    ip_check_opts co = {.timeout_ms = ms, .max_cycles = 1};
    ip_verdict v;
    ip_check_result r = ip_check(s->obs, IP_LVL_SER, &co, &v, s->err);
    if (r == IP_CHECK_ERROR)
        return false;
    bool ok = true;
    if (r == IP_CHECK_OK) {
        ok = require_change(s, enc) &&
             ip_encoder_set_fill(enc, v.order, v.n_order, s->err);
        progress(s, "observed trace is serializable: some read must change, "
                 "and its serial order completes refuted orders");
    } else {
        progress(s, "observed trace is %s: predictions may leave every read "
                 "unchanged", r == IP_CHECK_VIOLATION
                                  ? "not serializable"
                                  : "of unknown serializability");
    }
    ip_verdict_free(&v);
    return ok;
}

static ip_predict_result search_with(search *s, ip_encoding kind,
                                     double deadline)
{
    ip_encode_opts eo = {.model = s->opts->model,
                         .boundary = s->opts->boundary, .encoding = kind};
    progress(s, "encoding: %s, %s boundary, %s encoding",
             ip_level_name(eo.model), ip_boundary_name(eo.boundary),
             ip_encoding_name(kind));
    ip_encoder *enc = ip_encoder_new(s->obs, &eo, s->err);
    if (!enc)
        return IP_PREDICT_ERROR;
    ip_encoder_stats(enc, &s->stats->encode);
    const ip_encode_stats *es = &s->stats->encode;
    progress(s, "formula: %u transactions, %u free reads, %u candidate "
             "writers, %llu literals, generated in %.2fs", es->txns,
             es->free_reads, es->candidates,
             (unsigned long long)es->literals, es->gen_seconds);
    if (!use_observed_order(s, enc)) {
        ip_encoder_free(enc);
        return IP_PREDICT_ERROR;
    }
    /* what an earlier encoder found is not to be found again */
    for (uint32_t i = 0; i < s->n; i++)
        if (!ip_encoder_block(enc, &s->preds[i].assignment, s->err)) {
            ip_encoder_free(enc);
            return IP_PREDICT_ERROR;
        }
    ip_predict_result r = solve_loop(s, enc, kind, deadline);
    ip_encoder_free(enc);
    return r;
}

ip_predict_result ip_predict_run(const ip_trace *obs,
                                 const ip_predict_opts *opts,
                                 ip_prediction **out, uint32_t *n,
                                 ip_predict_stats *stats, ip_error *err)
{
    ip_predict_stats local;
    search s = {.obs = obs, .opts = opts, .start = now(),
                .want = opts->max_predictions ? opts->max_predictions : 1,
                .stats = stats ? stats : &local, .err = err};
    memset(s.stats, 0, sizeof *s.stats);
    if (opts->timeout_ms)
        s.deadline = s.start + opts->timeout_ms / 1000.0;
    *out = NULL;
    *n = 0;
    if (opts->model != IP_LVL_CAUSAL && opts->model != IP_LVL_RC) {
        ip_fail(err, "prediction: model must be causal or rc, not %s",
                ip_level_name(opts->model));
        return IP_PREDICT_ERROR;
    }
    ip_predict_result r = search_with(&s, opts->encoding, s.deadline);
    s.stats->seconds = now() - s.start;
    progress(&s, "done: %u prediction(s), %u solver call(s), %u refuted "
             "serial order(s), %u refuted pco(s)", s.n, s.stats->solver_calls,
             s.stats->refuted_orders, s.stats->refuted_pcos);
    if (r == IP_PREDICT_NONE && s.n)
        r = IP_PREDICT_FOUND;
    *out = s.preds;
    *n = s.n;
    return r;
}
