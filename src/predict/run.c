/*
 * run.c - ip_predict_run: the limits of the run, the choice between the
 * exhaustive search and bounded rounds, and the predictions kept across
 * them (predict.h, "Search modes").
 */
#include "found.h"
#include "window.h"
#include "extract_internal.h"

#include <stdlib.h>
#include <string.h>

/* The exhaustive formula is built at once below this estimate; above it,
 * bounded rounds come first (the paper-sized TPC-C shape is estimated at
 * 0.3-1.1 M: its formula has 0.1-0.25 M). */
#define AUTO_EXHAUSTIVE_LITERALS 3000000ull
/* ... and up to this many relevant transactions: each has an integer
 * commit position, and Z3's arithmetic over thousands of them is slow
 * even when the formula is small (voter 30x300, 9,000 transactions and
 * 0.15 M literals: 5.5 s for the first solve; its windows: milliseconds). */
#define AUTO_EXHAUSTIVE_TXNS 2000u

static accept_result keep_exhaustive(void *ctx, ip_prediction *p)
{
    run_state *rs = ctx;
    if (rs->opts->triage) {
        accept_result r = run_classify(rs, p, NULL, rs->err);
        ip_prediction_clear(p);
        return r;
    }
    uint64_t *sig;
    uint32_t n;
    if (!run_signature(rs, rs->obs, NULL, p, &sig, &n)) {
        ip_prediction_clear(p);
        ip_oom(rs->err, "prediction: out of memory");
        return ACCEPT_ERROR;
    }
    return run_keep(rs, p, sig, n, IP_NONE);
}

/* The exhaustive formula checks weak isolation lazily except under causal
 * with the strict boundary, where the eager formula proves "none" faster
 * (the paper-sized shape: 0.8 s against 5-6 s and thousands of solver
 * calls), unless it would be large (tpcc 8x16: 12 M estimated literals,
 * a first solve of 37 s against 5 s in all).  Elsewhere lazy was as fast
 * or faster on every trace measured (bench/predict/RESULTS.md): the 3x8
 * applications, the paper-sized shape under rc, and the 15 serializable
 * CockroachDB histories of the VeriStrong sample (rc: 0.5 s against over
 * 60 s on 425 transactions; causal: 0.16 s against 2-3 s).  ra is like
 * rc (3x8 strict: lazy 0.02 s, eager 0.04 s on tpcc).  si has no lazy
 * form. */
#define LAZY_ABOVE_LITERALS 3000000ull

static bool lazy_by_default(const ip_predict_opts *o,
                            const ip_encode_estimate *est)
{
    return o->model == IP_LVL_RC || o->model == IP_LVL_RA ||
           o->boundary == IP_BOUNDARY_RELAXED ||
           est->literals > LAZY_ABOVE_LITERALS;
}

/* Windows check weak isolation lazily unless asked for eager (or si, or
 * the rank encoding), and under auto (the default) a window whose
 * candidates are mostly model violations turns eager (solve.c): measured
 * with triage at 10x100 (bench/predict/RESULTS.md, "Lazy weak isolation
 * in windows" and "Weak isolation that adapts"), lazy searched more
 * windows on smallbank and wikipedia but far fewer on tpcc (causal: 1 of
 * 59 against 48).  Lazy is sound there: every window's so u wr is acyclic
 * (a stretch of a serial or topological order) and every candidate goes
 * through the legality check, which the relaxed boundary needs without
 * commit positions. */
static bool lazy_windows(const ip_predict_opts *o)
{
    return o->weak != IP_WEAK_EAGER && o->model != IP_LVL_SI &&
           o->encoding != IP_ENC_APPROX_RANK;
}

static bool si_lazy(const run_state *rs)
{
    return rs->stats->search.lazy_weak;
}

static ip_predict_result exhaustive(run_state *rs, ip_search_round *out)
{
    ip_predict_stats st = {0};
    problem pb = {.tr = rs->obs, .g = rs->g,
                  .progress = rs->opts->progress, .start = rs->start,
                  .accept = keep_exhaustive, .ctx = rs,
                  .cover = rs->opts->triage != NULL, .stats = &st,
                  .err = rs->err};
    /* One formula per run: Z3's preprocessing costs it once (windows skip
     * it, having thousands: encoder.c), and it keeps the first answers
     * the exhaustive search has always given (the README's example). */
    pb.eo = (ip_encode_opts){.model = rs->opts->model,
                             .boundary = rs->opts->boundary,
                             .encoding = rs->opts->encoding,
                             .lazy_weak = si_lazy(rs), .z3_preprocess = true};
    memset(out, 0, sizeof *out);
    out->windows = 1;
    ip_predict_result r = solve_problem(&pb);
    stats_add(rs->stats, &st);
    rs->stats->encode = st.encode;
    if (r == IP_PREDICT_NONE || r == IP_PREDICT_FOUND)
        out->done = 1;
    else if (r == IP_PREDICT_UNKNOWN && !guard_stopped(rs->g))
        out->gave_up = 1;
    if (r == IP_PREDICT_UNKNOWN && guard_why(rs->g) == GUARD_DONE)
        r = IP_PREDICT_FOUND;
    return r;
}

/* Above this, the approximate encoding's semantics (a pco cycle, cubic
 * to compute) is not checked on the observed trace itself. */
#define PCO_TXNS 4000

/* When the observed trace is not serializable: is it itself a prediction
 * (valid under the model, no read changed)? */
static ip_predict_result observed_itself(run_state *rs)
{
    const ip_trace *t = rs->obs;
    ip_encoding kind = rs->opts->encoding == IP_ENC_EXACT ? IP_ENC_EXACT
                                                          : IP_ENC_APPROX;
    if (kind == IP_ENC_APPROX && t->n_txns > PCO_TXNS)
        return IP_PREDICT_NONE;
    ip_assignment a;
    if (!ip_assignment_observed(t, &a)) {
        ip_oom(rs->err, "prediction: out of memory");
        return IP_PREDICT_ERROR;
    }
    confirm_ctx c = {.obs = t, .model = rs->opts->model,
                     .boundary = rs->opts->boundary, .encoding = kind,
                     .check_timeout_ms = guard_check_ms(rs->g),
                     .err = rs->err};
    ip_prediction p;
    ip_pco pco;
    confirm_outcome o = ip_confirm(&c, &a, &p, &pco);
    ip_pco_free(&pco);
    p.window = IP_NONE;
    if (o == CONFIRM_OK)
        return keep_exhaustive(rs, &p) == ACCEPT_ERROR ? IP_PREDICT_ERROR
                                                        : IP_PREDICT_FOUND;
    ip_prediction_clear(&p);
    return o == CONFIRM_ERROR ? IP_PREDICT_ERROR : IP_PREDICT_NONE;
}

/* Bounded rounds, widening while time lasts: window 32, staleness 2, 4
 * changed reads, doubling all three, until a window covers the trace or
 * `max` rounds ran.
 * Each window gets a time share that doubles too, so no single window
 * holds a round up. */
static ip_predict_result widening(run_state *rs, ip_search_info *si,
                                  uint32_t max)
{
    ip_predict_result r = IP_PREDICT_NONE;
    double share = 2.0;
    for (ip_search_round b = {.window = IP_WINDOW_FIRST,
                              .staleness = IP_STALENESS_FIRST,
                              .changes = IP_CHANGES_FIRST};
         b.window < rs->n_order && !guard_stopped(rs->g) &&
                                 si->n_rounds + 1 < IP_MAX_ROUNDS &&
                                 si->n_rounds < max;
         b.window *= 2, b.staleness *= 2, b.changes *= 2, share *= 2) {
        rs->round = si->n_rounds;
        r = run_round(rs, &b, share, &si->rounds[si->n_rounds++]);
        if (r != IP_PREDICT_NONE)
            break;
    }
    return r;
}

/* Does the exhaustive formula fit the memory budget?  Without a budget
 * it always does. */
static bool fits(const run_state *rs, const ip_encode_estimate *est)
{
    return !rs->opts->max_memory || est->bytes <= rs->opts->max_memory;
}

static ip_predict_result search(run_state *rs, ip_search_info *si)
{
    const ip_predict_opts *o = rs->opts;
    bool serializable = false;
    if (!run_observed_order(rs, &serializable))
        return IP_PREDICT_ERROR;
    si->txns = rs->n_order;
    ip_encode_opts eo = {.model = o->model, .boundary = o->boundary,
                         .encoding = o->encoding};
    if (!ip_encoder_estimate(rs->obs, &eo, &si->estimate, rs->err))
        return IP_PREDICT_ERROR;
    bool bounded = o->search == IP_SEARCH_BOUNDED ||
                   (o->search == IP_SEARCH_AUTO &&
                    (si->estimate.literals > AUTO_EXHAUSTIVE_LITERALS ||
                     si->estimate.txns > AUTO_EXHAUSTIVE_TXNS ||
                     !fits(rs, &si->estimate)));
    if (bounded && !rs->has_order)
        bounded = false;      /* hb is cyclic: no order to cut windows
                                 from, so the exhaustive search runs */
    if (bounded && !serializable) {
        /* windows exclude it (reads keep their writers only before the
         * window), so look at the observed trace itself first */
        ip_predict_result r = observed_itself(rs);
        if (r != IP_PREDICT_NONE && (r != IP_PREDICT_FOUND ||
                                     rs->n_kept >= rs->want))
            return r;
    }
    ip_predict_result r = IP_PREDICT_NONE;
    if (o->search == IP_SEARCH_BOUNDED && rs->has_order) {
        rs->round = 0;
        si->n_rounds = 1;
        /* triage: every window gets its share of the time, so that a
         * limited run looks at the whole trace */
        ip_search_round b = {.window = o->window, .staleness = o->staleness,
                             .changes = o->changes};
        return run_round(rs, &b, o->triage ? -1 : 0, &si->rounds[0]);
    }
    bool lazy = o->weak == IP_WEAK_LAZY ||
                (o->weak == IP_WEAK_AUTO && lazy_by_default(o, &si->estimate));
    if (lazy && rs->has_order && o->encoding != IP_ENC_APPROX_RANK &&
        o->model != IP_LVL_SI) {
        eo.lazy_weak = si->lazy_weak = true;
        if (!ip_encoder_estimate(rs->obs, &eo, &si->estimate, rs->err))
            return IP_PREDICT_ERROR;
    }
    if (bounded) {
        /* when the lazy exhaustive formula is small after all, one round
         * of windows (which finds most predictions in milliseconds), then
         * the complete search (voter 10x100 causal, no prediction: 5 s of
         * widening rounds against 0.65 s exhaustive) */
        bool small = si->estimate.literals <= AUTO_EXHAUSTIVE_LITERALS &&
                     si->estimate.txns <= AUTO_EXHAUSTIVE_TXNS &&
                     fits(rs, &si->estimate);
        r = widening(rs, si, small ? 1 : UINT32_MAX);
        if (r != IP_PREDICT_NONE)
            return r;
    }
    if (!fits(rs, &si->estimate)) {
        si->skipped = "its formula would exceed the memory budget";
        return IP_PREDICT_UNKNOWN;
    }
    if (guard_stopped(rs->g))
        return IP_PREDICT_UNKNOWN;
    rs->round = si->n_rounds;
    r = exhaustive(rs, &si->rounds[si->n_rounds++]);
    si->complete = r == IP_PREDICT_NONE;
    return r;
}

static int by_round_window(const void *a, const void *b)
{
    const kept *x = a, *y = b;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    if (x->window != y->window)
        return x->window < y->window ? -1 : 1;
    return (x->p.seconds > y->p.seconds) - (x->p.seconds < y->p.seconds);
}

ip_predict_result ip_predict_run(const ip_trace *obs,
                                 const ip_predict_opts *opts,
                                 ip_prediction **out, uint32_t *n,
                                 ip_predict_stats *stats, ip_error *err)
{
    ip_predict_stats local;
    run_state rs = {.obs = obs, .opts = opts, .start = ip_now(),
                    .want = opts->triage ? UINT32_MAX
                          : opts->max_predictions ? opts->max_predictions : 1,
                    .stats = stats ? stats : &local, .err = err,
                    .failure = IP_PREDICT_NONE,
                    .lazy_windows = lazy_windows(opts),
                    .adapt_windows = lazy_windows(opts) &&
                                     opts->weak == IP_WEAK_AUTO};
    memset(rs.stats, 0, sizeof *rs.stats);
    if (!ip_trace_unique(obs)) {
        char why[600];
        ip_ambiguous_message(obs, why, sizeof why);
        ip_fail(err, "%s; prediction needs every read to name its writer",
                why);
        return IP_PREDICT_ERROR;
    }
    ip_search_info *si = &rs.stats->search;
    si->shard = opts->shards > 1 ? opts->shard : 0;
    si->shards = opts->shards > 1 ? opts->shards : 0;
    *out = NULL;
    *n = 0;
    if (opts->model == IP_LVL_SER || opts->model >= IP_LVL_COUNT) {
        ip_fail(err, "prediction: model must be rc, ra, causal or si, not "
                "%s", ip_level_name(opts->model));
        return IP_PREDICT_ERROR;
    }
    if (opts->model == IP_LVL_SI && opts->weak == IP_WEAK_LAZY) {
        ip_fail(err, "prediction: si has no lazy weak isolation (an si "
                "violation is not a cycle the formula can forbid)");
        return IP_PREDICT_ERROR;
    }
    if (opts->shards > 1 && opts->shard >= opts->shards) {
        ip_fail(err, "prediction: shard %u of %u does not exist",
                opts->shard + 1, opts->shards);
        return IP_PREDICT_ERROR;
    }
    double deadline = opts->timeout_ms ? rs.start + opts->timeout_ms / 1000.0
                                       : 0;
    ip_encode_set_globals(opts->max_memory);
    rs.g = guard_start(deadline, opts->max_memory, opts->interrupt,
                       opts->overrun, opts->overrun_ctx, err);
    rs.ev_of_op = ip_events_of_ops(obs);
    if (!rs.g || !rs.ev_of_op || pthread_mutex_init(&rs.lock, NULL) != 0) {
        guard_finish(rs.g);
        free(rs.ev_of_op);
        if (rs.g)
            ip_oom(err, "prediction: out of memory");
        return IP_PREDICT_ERROR;
    }
    ip_predict_result r = search(&rs, si);
    guard_reason why = guard_why(rs.g);
    si->stopped = guard_stop_of(why);
    si->peak_bytes = guard_peak(rs.g);
    guard_finish(rs.g);
    if (r == IP_PREDICT_UNKNOWN && why == GUARD_DONE && rs.n_kept)
        r = IP_PREDICT_FOUND;
    if (r == IP_PREDICT_NONE && (rs.n_kept || rs.n_found))
        r = IP_PREDICT_FOUND;
    rs.stats->seconds = ip_now() - rs.start;
    if (rs.n_kept)
        qsort(rs.kept, rs.n_kept, sizeof *rs.kept, by_round_window);
    ip_prediction *preds = calloc((size_t)rs.n_kept + 1, sizeof *preds);
    for (uint32_t i = 0; i < rs.n_kept; i++) {
        if (preds)
            preds[i] = rs.kept[i].p;
        else
            ip_prediction_clear(&rs.kept[i].p);
        free(rs.kept[i].sig);
    }
    free(rs.kept);
    free(rs.pos);
    free(rs.order);
    free(rs.ev_of_op);
    pthread_mutex_destroy(&rs.lock);
    if (!preds) {
        ip_oom(err, "prediction: out of memory");
        return IP_PREDICT_ERROR;
    }
    *out = preds;
    *n = rs.n_kept;
    if (opts->progress) {
        char found[80];
        run_found_words(&rs, found, sizeof found);
        fprintf(opts->progress, "isopredict: [%7.2fs] done: %s, %u solver "
                "call(s), %u refuted serial order(s), %u refuted pco(s), "
                "%u model violation(s) and %u illegal candidate(s) "
                "forbidden; %u of %u single changed reads, %u of %u "
                "widened to their transaction, %u of %u pairs of them and "
                "%u of %u models' other changed reads held an instance; %u "
                "window(s) turned eager\n",
                rs.stats->seconds, found, rs.stats->solver_calls,
                rs.stats->refuted_orders, rs.stats->refuted_pcos,
                rs.stats->refuted_cycles, rs.stats->refuted_illegal,
                rs.stats->probes_found, rs.stats->probes_tried,
                rs.stats->groups_found, rs.stats->groups_tried,
                rs.stats->pairs_found, rs.stats->pairs_tried,
                rs.stats->rest_found, rs.stats->rest_tried,
                rs.stats->eager_switches);
    }
    return r;
}
