/*
 * solve.c - the search loop of one problem: solve, confirm, refute or
 * accept, solve again (search.h, predict.h).
 */
#include "probe.h"
#include "search.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void progress(const problem *pb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void progress(const problem *pb, const char *fmt, ...)
{
    if (!pb->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(pb->progress, "isopredict: [%7.2fs] ", ip_now() - pb->start);
    vfprintf(pb->progress, fmt, ap);
    fputc('\n', pb->progress);
    fflush(pb->progress);
    va_end(ap);
}

/* At the problem's own limit: move it on when more_time grants some. */
static bool extended(problem *pb)
{
    if (!pb->more_time || pb->deadline <= 0 || ip_now() < pb->deadline)
        return false;
    double more = pb->more_time(pb->ctx);
    if (more <= 0)
        return false;
    pb->deadline = ip_now() + more;
    return true;
}

/* Milliseconds left for this problem (its own limit and the run's); false
 * when none is left or the guard stopped the run. */
static bool ms_left(const problem *pb, unsigned *ms)
{
    *ms = 0;
    if (guard_stopped(pb->g))
        return false;
    double left = guard_left(pb->g);
    if (pb->deadline > 0 && pb->deadline - ip_now() < left)
        left = pb->deadline - ip_now();
    if (left * 1000.0 < 0.5)              /* not even a millisecond */
        return false;
    *ms = guard_ms(left);
    return true;
}

/* The same, after moving the problem's own limit on when it can be. */
static bool time_left(problem *pb, unsigned *ms)
{
    extended(pb);
    return ms_left(pb, ms);
}

/* The checkers' time for one candidate: at least a second past a
 * window's own share, but never past the run's deadline (the checkers
 * are not interrupted by the guard, which ends a run that overruns it). */
static unsigned check_ms(const problem *pb)
{
    unsigned ms;
    ms_left(pb, &ms);
    unsigned run_ms = guard_check_ms(pb->g);
    unsigned floor_ms = run_ms && run_ms < 1000 ? run_ms : 1000;
    return ms && ms < floor_ms ? floor_ms : ms;
}

static bool same_assignment(const ip_trace *t, const ip_assignment *a,
                            const ip_assignment *b)
{
    return a->boundary && b->boundary &&
           !memcmp(a->boundary, b->boundary,
                   t->n_sessions * sizeof *a->boundary) &&
           !memcmp(a->writer, b->writer, t->n_events * sizeof *a->writer);
}

/* ip_encoder_forbid, recorded for later passes (learned.h). */
static bool forbid(problem *pb, ip_encoder *enc, const ip_fact *f,
                   uint32_t n)
{
    return ip_encoder_forbid(enc, f, n, pb->err) &&
           (!pb->memo || learned_forbid(pb->memo, f, n) ||
            ip_oom(pb->err, "prediction: out of memory"));
}

/* Refute the serial order the ser checker found for p's history. */
static bool refute_order(problem *pb, ip_encoder *enc, const ip_prediction *p)
{
    const ip_verdict *v = &p->ser_verdict;
    uint32_t *order = malloc(((size_t)v->n_order + 1) * sizeof *order);
    if (!order)
        return ip_oom(pb->err, "prediction: out of memory");
    for (uint32_t i = 0; i < v->n_order; i++)
        order[i] = p->map.obs_txn[v->order[i]];
    bool ok = ip_encoder_refute_order(enc, order, v->n_order, pb->err) &&
              (!pb->memo || learned_order(pb->memo, order, v->n_order) ||
               ip_oom(pb->err, "prediction: out of memory"));
    free(order);
    pb->stats->refuted_orders++;
    return ok;
}

/* Refute p's acyclic pco (over its history's txn ids). */
static bool refute_pco(problem *pb, ip_encoder *enc, const ip_prediction *p,
                       const ip_pco *pco)
{
    if (pco->n != p->map.n_hist_txns)
        return ip_fail(pb->err, "prediction: pco over %u transactions, "
                       "history of %u", pco->n, p->map.n_hist_txns);
    bool ok = ip_encoder_refute_closed(enc, p->map.obs_txn, pco->n, pco->bits,
                                       pco->words, pb->err);
    pb->stats->refuted_pcos++;
    return ok;
}

/* Forbid the cycle by which p's history violates the weak model. */
static bool forbid_violation(problem *pb, ip_encoder *enc,
                             const ip_prediction *p)
{
    ip_fact *f = NULL;
    uint32_t n = 0;
    bool ok = ip_violation_facts(pb->tr, p, pb->eo.model,
                                 &p->model_verdict.cycles[0], &f, &n,
                                 pb->err) &&
              forbid(pb, enc, f, n);
    free(f);
    pb->stats->refuted_cycles++;
    return ok;
}

/* Forbid the hb cycle inside the boundary that makes a candidate
 * illegal (lazy weak isolation, relaxed): every model choosing the same
 * writers for those reads, with those transactions inside the boundary,
 * has the same cycle. */
static bool forbid_hb_cycle(problem *pb, ip_encoder *enc,
                            const ip_legality *l)
{
    ip_fact *f = malloc(((size_t)l->n_cycle + 1) * sizeof *f);
    if (!f)
        return ip_oom(pb->err, "prediction: out of memory");
    for (uint32_t i = 0; i < l->n_cycle; i++) {
        const ip_hb_step *s = &l->cycle[i];
        f[i] = s->read == IP_NONE
                   ? (ip_fact){.kind = IP_FACT_INSIDE, .a = s->to}
                   : (ip_fact){.kind = IP_FACT_CHOOSES, .a = s->read,
                               .b = s->from};
    }
    bool ok = forbid(pb, enc, f, l->n_cycle);
    free(f);
    pb->stats->refuted_illegal++;
    return ok;
}

/* Forbid p's set of changed reads. */
static bool block_changed(problem *pb, ip_encoder *enc,
                          const ip_prediction *p)
{
    uint32_t *ev = malloc(((size_t)p->n_changed + 1) * sizeof *ev);
    if (!ev)
        return ip_oom(pb->err, "prediction: out of memory");
    for (uint32_t i = 0; i < p->n_changed; i++)
        ev[i] = p->changed[i].event;
    bool ok = ip_encoder_block(enc, ev, p->n_changed, pb->err) &&
              (!pb->memo || learned_block(pb->memo, ev, p->n_changed) ||
               ip_oom(pb->err, "prediction: out of memory"));
    free(ev);
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

/* Triage: "this read reads from that writer" for each changed read of
 * p's class cycle (ip_cycle_changed_reads), so that no later model holds
 * the same instance again, whatever else it changes.  *n 0: nothing to
 * forbid (no changed read on the cycle). */
static bool cover_facts(problem *pb, const ip_prediction *p, ip_fact **f,
                        uint32_t *n)
{
    uint32_t *reads;
    *f = NULL;
    *n = 0;
    if (!pb->cover)
        return true;
    if (!ip_cycle_changed_reads(pb->tr, p, &reads, n) ||
        !(*f = malloc(((size_t)*n + 1) * sizeof **f))) {
        free(reads);
        return ip_oom(pb->err, "prediction: out of memory");
    }
    for (uint32_t i = 0; i < *n; i++)
        (*f)[i] = (ip_fact){.kind = IP_FACT_READS, .a = reads[i],
                            .b = p->assignment.writer[reads[i]]};
    free(reads);
    return true;
}

/* p's assignment with the cover's reads back on their observed writers,
 * into *rest; false when p changes no other read (or out of memory:
 * *oom). */
static bool rest_of(const problem *pb, const ip_prediction *p,
                    const ip_fact *cover, uint32_t n_cover,
                    ip_assignment *rest, bool *oom)
{
    const ip_trace *t = pb->tr;
    memset(rest, 0, sizeof *rest);
    *oom = false;
    if (!pb->cover || n_cover == 0 || p->n_changed <= n_cover)
        return false;
    if (!ip_assignment_copy(t, &p->assignment, rest))
        return !(*oom = true);
    for (uint32_t i = 0; i < n_cover; i++)
        rest->writer[cover[i].a] = t->events[cover[i].a].writer;
    return true;
}

static int accept_rest(problem *pb, ip_encoder *enc, ip_assignment *rest,
                       uint32_t iter);

/* A confirmed candidate: block it, then hand it over.  Plain search
 * blocks its set of changed reads; triage forbids the reads of its class
 * cycle with their writers instead (every later model with them holds
 * the same instance), which also covers what blocking would. */
static int accept_model(problem *pb, ip_encoder *enc, ip_prediction *p,
                        uint32_t iter)
{
    progress(pb, "candidate %u confirmed: %s satisfied, ser violated, "
             "%u changed read(s)", iter, ip_level_name(pb->eo.model),
             p->n_changed);
    ip_fact *cover;
    uint32_t n_cover;
    ip_assignment rest;
    bool oom = false;
    bool ok = cover_facts(pb, p, &cover, &n_cover) &&
              (n_cover ? forbid(pb, enc, cover, n_cover)
                       : block_changed(pb, enc, p));
    bool has_rest = ok && rest_of(pb, p, cover, n_cover, &rest, &oom);
    if (!ok || oom) {
        if (oom)
            ip_oom(pb->err, "prediction: out of memory");
        free(cover);
        ip_prediction_clear(p);
        return IP_PREDICT_ERROR;
    }
    accept_result r = pb->accept(pb->ctx, p);
    if ((r == ACCEPT_KEPT || r == ACCEPT_ENOUGH) && n_cover && pb->share &&
        !pb->share(pb->ctx, cover, n_cover, pb->err))
        r = ACCEPT_ERROR;
    free(cover);
    switch (r) {
    case ACCEPT_KEPT:
    case ACCEPT_KNOWN:
    case ACCEPT_REJECTED:
        return has_rest ? accept_rest(pb, enc, &rest, iter) : -1;
    case ACCEPT_ENOUGH:
        if (has_rest)
            ip_assignment_free(&rest);
        return IP_PREDICT_FOUND;
    case ACCEPT_ERROR: break;
    }
    if (has_rest)
        ip_assignment_free(&rest);
    return IP_PREDICT_ERROR;
}

/* Triage: an assignment of pb->tr found without the solver (the rest of
 * a model, a probe), taken: confirmed as a model is, its weak isolation
 * checked, and when it confirms (*confirmed counted up) covered and
 * accepted as a model is.  What does not confirm is dropped and nothing
 * is refuted, since the solver may never propose it - a rest, whose
 * boundaries are its model's, may even read past one (CONFIRM_UNFIT) -
 * but checkers that contradict each other end the search as for a
 * model. */
static int accept_unsolved(problem *pb, ip_encoder *enc, ip_assignment *a,
                           uint32_t iter, uint32_t *confirmed)
{
    unsigned ms;
    if (!time_left(pb, &ms)) {
        ip_assignment_free(a);
        return -1;
    }
    ip_error why = {0};
    confirm_ctx c = {.obs = pb->tr, .model = pb->eo.model,
                     .boundary = pb->eo.boundary, .encoding = pb->eo.encoding,
                     .lazy_weak = true, .unsolved = true,
                     .check_timeout_ms = check_ms(pb), .err = &why};
    ip_prediction p;
    ip_pco pco;
    confirm_outcome o = ip_confirm(&c, a, &p, &pco);
    ip_pco_free(&pco);
    /* a tight probe's moved reads may exceed the change bound (probe.h):
     * every prediction of a bounded round stays within it */
    if (o == CONFIRM_OK && pb->eo.max_changes &&
        p.n_changed > pb->eo.max_changes)
        o = CONFIRM_UNFIT;
    if (o == CONFIRM_OK) {
        (*confirmed)++;
        p.iteration = pb->stats->solver_calls;
        p.window = IP_NONE;
        return accept_model(pb, enc, &p, iter);
    }
    ip_prediction_clear(&p);
    if ((o == CONFIRM_ERROR && why.oom) || o == CONFIRM_BUG) {
        *pb->err = why;
        return o == CONFIRM_BUG ? IP_PREDICT_UNCONFIRMED : IP_PREDICT_ERROR;
    }
    return -1;
}

/* Triage: the rest of a model whose instance was just covered - its other
 * changed reads - often holds another instance, found without a solver
 * call of its own. */
static int accept_rest(problem *pb, ip_encoder *enc, ip_assignment *rest,
                       uint32_t iter)
{
    pb->stats->rest_tried++;
    return accept_unsolved(pb, enc, rest, iter, &pb->stats->rest_found);
}

/* What to do with one model; returns -1 to go on, else the result. */
static int handle_model(problem *pb, ip_encoder *enc, ip_assignment *a,
                        ip_assignment *prev, uint32_t iter)
{
    ip_legality legal = {0};
    confirm_ctx c = {.obs = pb->tr, .model = pb->eo.model,
                     .boundary = pb->eo.boundary, .encoding = pb->eo.encoding,
                     .lazy_weak = pb->eo.lazy_weak,
                     .check_timeout_ms = check_ms(pb),
                     .legal = &legal, .err = pb->err};
    ip_prediction p;
    ip_pco pco;
    confirm_outcome o = ip_confirm(&c, a, &p, &pco);
    bool ok = true;
    p.iteration = pb->stats->solver_calls;
    p.window = IP_NONE;
    switch (o) {
    case CONFIRM_OK:
        ip_legality_free(&legal);
        ip_assignment_free(prev);
        memset(prev, 0, sizeof *prev);
        return accept_model(pb, enc, &p, iter);
    case CONFIRM_ILLEGAL:
        progress(pb, "candidate %u is not a legal prediction (happens-before "
                 "is cyclic inside the boundary); forbidding its %u-step "
                 "cycle", iter, legal.n_cycle);
        ok = forbid_hb_cycle(pb, enc, &legal);
        break;
    case CONFIRM_SERIALIZABLE:
        progress(pb, "candidate %u is serializable; refuting its serial "
                 "order of %u transactions", iter, p.ser_verdict.n_order);
        ok = refute_order(pb, enc, &p);
        break;
    case CONFIRM_NO_PCO_CYCLE:
        progress(pb, "candidate %u has no pco cycle; refuting its pco over "
                 "%u transactions", iter, pco.n);
        ok = refute_pco(pb, enc, &p, &pco);
        ip_pco_free(&pco);
        break;
    case CONFIRM_NOT_MODEL:
        progress(pb, "candidate %u violates %s; forbidding its cycle", iter,
                 ip_level_name(pb->eo.model));
        ok = forbid_violation(pb, enc, &p);
        break;
    case CONFIRM_UNKNOWN:
        ip_legality_free(&legal);
        ip_prediction_clear(&p);
        return IP_PREDICT_UNKNOWN;
    case CONFIRM_UNFIT:               /* unsolved candidates only */
    case CONFIRM_BUG:
        ip_legality_free(&legal);
        ip_prediction_clear(&p);
        return IP_PREDICT_UNCONFIRMED;
    case CONFIRM_ERROR:
        ip_legality_free(&legal);
        ip_prediction_clear(&p);
        return IP_PREDICT_ERROR;
    }
    ip_legality_free(&legal);
    /* refuted: keep the assignment to catch a model coming back */
    ip_assignment_free(prev);
    *prev = p.assignment;
    memset(&p.assignment, 0, sizeof p.assignment);
    ip_prediction_clear(&p);
    return ok ? -1 : IP_PREDICT_ERROR;
}

/* The candidates a lazy search refuted that the eager formula excludes. */
static uint32_t lazy_refutations(const problem *pb)
{
    return pb->stats->refuted_cycles + pb->stats->refuted_illegal;
}

/* Lazy weak isolation pays a solver call for every model the model's
 * checker rejects or the legality check finds hb cyclic in (the relaxed
 * boundary), both of which the eager formula's commit positions exclude.
 * Where most candidates are such (TPC-C: transactions that read dozens of
 * keys, so many ways to violate the model or to read in circles) the
 * axioms in the formula cost less than those refutations one by one, and
 * where few are (bank, smallbank rc) lazy is up to 2x faster
 * (bench/predict/RESULTS.md, "Weak isolation that adapts", "A cycle under
 * the observed version order").  So an adaptive search switches once
 * ADAPT_CALLS calls are made and three in four of them were such (bank
 * causal: 40 %; smallbank 100x1000 causal, where eager searches a quarter
 * more windows in the same time: 87 %; TPC-C causal: over 95 %). */
static bool should_turn_eager(const problem *pb, uint32_t calls,
                              uint32_t refuted)
{
    return pb->adapt_weak && pb->eo.lazy_weak && calls >= ADAPT_CALLS &&
           4 * (uint64_t)refuted >= 3 * (uint64_t)calls;
}

/* What solve_loop asks of its caller besides its result. */
typedef enum {
    LOOP_DONE = 0,
    LOOP_EAGER,               /* start again with eager weak isolation */
    LOOP_FRESH                /* start again on a fresh encoder */
} loop_next;

/* IP_PREDICT_UNKNOWN with *next set: start again (loop_next). */
static ip_predict_result solve_loop(problem *pb, ip_encoder *enc,
                                    loop_next *next)
{
    ip_assignment prev = {0};
    int r = -1;
    uint32_t calls0 = pb->stats->solver_calls;
    uint32_t lazy0 = lazy_refutations(pb);
    for (uint32_t iter = 1; r < 0; iter++) {
        if (should_turn_eager(pb, pb->stats->solver_calls - calls0,
                              lazy_refutations(pb) - lazy0)) {
            progress(pb, "%u of %u candidates violated %s or were illegal: "
                     "checking weak isolation eagerly from here on",
                     lazy_refutations(pb) - lazy0,
                     pb->stats->solver_calls - calls0,
                     ip_level_name(pb->eo.model));
            *next = LOOP_EAGER;
            r = IP_PREDICT_UNKNOWN;
            break;
        }
        unsigned ms;
        if (!time_left(pb, &ms)) {
            progress(pb, "time limit reached");
            r = IP_PREDICT_UNKNOWN;
            break;
        }
        if (pb->learn && !pb->learn(pb->ctx, enc, false, pb->err)) {
            r = IP_PREDICT_ERROR;
            break;
        }
        /* The guard interrupts the call at the run's deadline and at the
         * problem's own (guard.h), so Z3 needs no timeout of its own. */
        guard_set_until(pb->g, enc, pb->deadline > 0 ? pb->deadline : 0);
        ip_assignment a = {0};
        ip_solve_result sr = ip_encoder_solve(enc, 0, &a, pb->err);
        pb->stats->solver_calls++;
        ip_encoder_stats(enc, &pb->stats->encode);
        progress(pb, "solve %u (%s): %s, %.2fs in the solver so far", iter,
                 ip_encoding_name(pb->eo.encoding), solve_name(sr),
                 pb->stats->encode.solve_seconds);
        if (sr == IP_SOLVE_UNKNOWN && !guard_stopped(pb->g) &&
            extended(pb)) {
            /* Its own limit ended the call, and it has more time.  Not on
             * this encoder: after a check interrupted early (while it
             * took in the formula) Z3 4.8.12 gave models that break the
             * base formula (the sanitizer build, 2 runs in 15).  A fresh
             * one replays what this one learned; with nothing to replay
             * the problem stops here. */
            ip_assignment_free(&a);
            if (pb->memo)
                *next = LOOP_FRESH;
            r = IP_PREDICT_UNKNOWN;
            break;
        }
        if (sr != IP_SOLVE_SAT) {
            ip_assignment_free(&a);
            r = sr == IP_SOLVE_UNSAT ? IP_PREDICT_NONE
              : sr == IP_SOLVE_UNKNOWN || guard_stopped(pb->g)
                  ? IP_PREDICT_UNKNOWN : IP_PREDICT_ERROR;
            break;
        }
        if (same_assignment(pb->tr, &a, &prev)) {
            ip_assignment_free(&a);
            ip_fail(pb->err, "the encoder returned a model whose serial "
                    "order or pco was refuted before (the refutation had no "
                    "effect)");
            r = IP_PREDICT_UNCONFIRMED;
            break;
        }
        r = handle_model(pb, enc, &a, &prev, iter);
    }
    ip_assignment_free(&prev);
    return (ip_predict_result)r;
}

/* Some read must change: a history that only truncates a serializable
 * observed trace is serializable itself. */
static bool require_change(problem *pb, ip_encoder *enc)
{
    return ip_encoder_block(enc, NULL, 0, pb->err);
}

/* When the observed trace is serializable (the usual case: the test run
 * passed), its serial order makes the search loop much shorter: some read
 * must change; a history's dependency graph under that order's version
 * order must have a cycle, which only changed reads can close (the
 * candidates whose changes lead nowhere were most serializable ones a
 * bounded search refuted, smallbank 10x100: 16,500 of 22,800 solver
 * calls); and the order completes every refuted order - candidates are
 * the observed trace with a few reads changed, so it tends to fit the
 * transactions a candidate leaves out.  Otherwise none is claimed.  The
 * ser verdict goes to *v (the caller frees it): the probes use the order
 * too. */
static bool use_observed_order(problem *pb, ip_encoder *enc, ip_verdict *v)
{
    unsigned ms;
    time_left(pb, &ms);
    ip_check_opts co = {.timeout_ms = ms, .max_cycles = 1};
    ip_check_result r = ip_check(pb->tr, IP_LVL_SER, &co, v, pb->err);
    if (r == IP_CHECK_ERROR)
        return false;
    if (r == IP_CHECK_OK) {
        progress(pb, "observed trace is serializable: some read must "
                 "change and close a cycle under its version order, and its "
                 "serial order completes refuted orders");
        return require_change(pb, enc) &&
               ip_encoder_set_fill(enc, v->order, v->n_order, pb->err) &&
               ip_encoder_require_cycle(enc, v->order, v->n_order, pb->err);
    }
    progress(pb, "observed trace is %s: predictions may leave every read "
             "unchanged", r == IP_CHECK_VIOLATION ? "not serializable"
                                                  : "of unknown serializability");
    return true;
}

/* A problem's probes stop when the first PROBE_BARREN of them all fail:
 * where no instance needs only one changed read (tpcc under si: 22,000
 * probes, none confirming, a fifth of the run), probing is all cost.  A
 * low rate alone is no reason: tpcc rc's confirming probes come in runs
 * (reads are probed session by session).  Pairs of changes mostly fail
 * where the single changes were not instances waiting for a repair (tpcc
 * rc: 4 of 2,600 confirmed, 5 % of the run with 64 tries a window), so
 * they stop after PAIR_BARREN once fewer than one in PAIR_RATE confirms
 * (smallbank: about one in five).  Most pairs never get tried: the graph
 * rules them out, and making each costs boundaries (a TPC-C window made
 * 3,300 pairs to try 14, a twentieth of its run, for 4 instances in all
 * 59 windows; smallbank's made 20 to 60).  So at most PAIR_MADE are made
 * per pair found, plus PAIR_MADE. */
enum { PROBE_BARREN = 64, PAIR_BARREN = 16, PAIR_RATE = 8, PAIR_MADE = 256 };

/* Whether probing goes on after `tried` probes of which `found`
 * confirmed (pairs: with a rate to keep). */
static bool keep_probing(const problem *pb, uint32_t tried, uint32_t found,
                         bool pairs)
{
    if (guard_stopped(pb->g) ||
        (pb->deadline > 0 && ip_now() >= pb->deadline))
        return false;
    if (pairs)
        return tried < PAIR_BARREN || (uint64_t)found * PAIR_RATE >= tried;
    return tried < PROBE_BARREN || found > 0;
}

/* Triage on the relaxed boundary: the probes (probe.h) of pb's formula
 * before its first solver call - single changed reads, then (where the
 * change bound allows two) the single changes that failed widened to
 * their transaction, and pairs of reads of one transaction made of them;
 * -1 to go on, else the result.  Stops at
 * the problem's own limit and when probes keep failing (the solver then
 * finds what is left). */
static int probe_changes(problem *pb, ip_encoder *enc, const ip_verdict *v)
{
    if (pb->eo.boundary != IP_BOUNDARY_RELAXED ||
        pb->tr->n_txns > PROBE_MAX_TXNS)
        return -1;
    probe_set *ps = probe_set_new(pb->tr, v->order, v->n_order);
    if (!ps)
        return ip_oom(pb->err, "prediction: out of memory"),
               IP_PREDICT_ERROR;
    int r = -1;
    ip_assignment a;
    bool oom = false;
    uint32_t tried = 0, found = 0;
    while (r < 0 && !oom && keep_probing(pb, tried, found, false) &&
           probe_next(ps, enc, pb->eo.model, &a, &oom)) {
        uint32_t before = found;
        tried++;
        r = accept_unsolved(pb, enc, &a, 0, &found);
        oom = r < 0 && found == before && !probe_failed(ps);
    }
    pb->stats->probes_tried += tried;
    pb->stats->probes_found += found;
    tried = found = 0;
    bool pairs = pb->eo.max_changes == 0 || pb->eo.max_changes >= 2;
    while (pairs && r < 0 && !oom && keep_probing(pb, tried, found, true) &&
           probe_next_group(ps, enc, pb->eo.model, pb->eo.max_changes, &a,
                            &oom)) {
        tried++;
        r = accept_unsolved(pb, enc, &a, 0, &found);
    }
    pb->stats->groups_tried += tried;
    pb->stats->groups_found += found;
    tried = found = 0;
    while (pairs && r < 0 && !oom && keep_probing(pb, tried, found, true) &&
           probe_next_pair(ps, enc, pb->eo.model, PAIR_MADE * (found + 1),
                           &a, &oom)) {
        tried++;
        r = accept_unsolved(pb, enc, &a, 0, &found);
    }
    pb->stats->pairs_tried += tried;
    pb->stats->pairs_found += found;
    probe_set_free(ps);
    if (oom)
        return ip_oom(pb->err, "prediction: out of memory"),
               IP_PREDICT_ERROR;
    return r;
}

/* One encoder for pb, its learned constraints replayed, the loop. */
static ip_predict_result solve_once(problem *pb, loop_next *next)
{
    progress(pb, "encoding: %s, %s boundary, %s encoding%s%s",
             ip_level_name(pb->eo.model), ip_boundary_name(pb->eo.boundary),
             ip_encoding_name(pb->eo.encoding),
             pb->eo.staleness ? ", staleness bound" : "",
             pb->eo.lazy_weak ? ", weak isolation checked lazily" : "");
    pb->eo.stop = guard_flag(pb->g);
    ip_search_time *tm = &pb->stats->search.time;
    double t0 = ip_now();
    ip_encoder *enc = ip_encoder_new(pb->tr, &pb->eo, pb->err);
    tm->formulas += ip_now() - t0;
    if (!enc)
        return guard_stopped(pb->g) ? IP_PREDICT_UNKNOWN : IP_PREDICT_ERROR;
    if (!guard_register(pb->g, enc)) {
        ip_encoder_free(enc);
        ip_fail(pb->err, "prediction: too many encoders at once");
        return IP_PREDICT_ERROR;
    }
    ip_encoder_stats(enc, &pb->stats->encode);
    const ip_encode_stats *es = &pb->stats->encode;
    progress(pb, "formula: %u transactions, %u free reads, %u candidate "
             "writers (%u pruned), %llu literals, generated in %.2fs",
             es->txns, es->free_reads, es->candidates, es->pruned,
             (unsigned long long)es->literals, es->gen_seconds);
    uint32_t replayed = 0;
    ip_predict_result r = IP_PREDICT_ERROR;
    ip_verdict v;
    memset(&v, 0, sizeof v);
    v.result = IP_CHECK_UNKNOWN;
    if (use_observed_order(pb, enc, &v) &&
        learned_replay(pb->memo, enc, &replayed, pb->err) &&
        (!pb->learn || pb->learn(pb->ctx, enc, true, pb->err))) {
        int pr = -1;
        if (pb->cover && !pb->probed && v.result == IP_CHECK_OK) {
            pb->probed = true;
            double tp = ip_now();
            pr = probe_changes(pb, enc, &v);
            tm->probes += ip_now() - tp;
        }
        r = pr < 0 ? solve_loop(pb, enc, next) : (ip_predict_result)pr;
    }
    ip_verdict_free(&v);
    pb->stats->replayed += replayed;
    if (r == IP_PREDICT_ERROR && guard_stopped(pb->g))
        r = IP_PREDICT_UNKNOWN;
    guard_unregister(pb->g, enc);
    ip_encode_stats es_end;
    ip_encoder_stats(enc, &es_end);
    tm->first_checks += es_end.first_solve_seconds;
    tm->later_checks += es_end.solve_seconds - es_end.first_solve_seconds;
    double tf = ip_now();
    ip_encoder_free(enc);
    tm->formulas += ip_now() - tf;
    return r;
}

ip_predict_result solve_problem(problem *pb)
{
    bool adapt = pb->adapt_weak && pb->eo.lazy_weak;
    learned *own = NULL;      /* what to replay when the caller keeps none */
    if (adapt && !pb->memo && !(pb->memo = own = learned_new())) {
        ip_oom(pb->err, "prediction: out of memory");
        return IP_PREDICT_ERROR;
    }
    double began = ip_now();
    loop_next next = LOOP_DONE;
    ip_predict_result r = solve_once(pb, &next);
    while (next != LOOP_DONE) {
        if (next == LOOP_EAGER) {
            pb->stats->eager_switches++;
            pb->eo.lazy_weak = false;
            learned_set_eager(pb->memo);
        }
        next = LOOP_DONE;
        r = solve_once(pb, &next);
    }
    if (own) {
        learned_free(own);
        pb->memo = NULL;
    }
    pb->stats->search.time.problems += ip_now() - began;
    return r;
}

void stats_add(ip_predict_stats *to, const ip_predict_stats *from)
{
    to->solver_calls += from->solver_calls;
    to->refuted_orders += from->refuted_orders;
    to->refuted_pcos += from->refuted_pcos;
    to->refuted_cycles += from->refuted_cycles;
    to->refuted_illegal += from->refuted_illegal;
    to->eager_switches += from->eager_switches;
    to->rest_tried += from->rest_tried;
    to->rest_found += from->rest_found;
    to->probes_tried += from->probes_tried;
    to->probes_found += from->probes_found;
    to->groups_tried += from->groups_tried;
    to->groups_found += from->groups_found;
    to->pairs_tried += from->pairs_tried;
    to->pairs_found += from->pairs_found;
    to->replayed += from->replayed;
    ip_search_time_add(&to->search.time, &from->search.time);
}

void ip_search_time_add(ip_search_time *to, const ip_search_time *from)
{
    to->problems += from->problems;
    to->formulas += from->formulas;
    to->first_checks += from->first_checks;
    to->later_checks += from->later_checks;
    to->probes += from->probes;
}
