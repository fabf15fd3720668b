/*
 * strong_ambig.c - ser and si when some reads have several candidate
 * writers (ip_check_strong's way in for such traces).
 *
 * The choice of writer is part of the search, in three steps:
 *   1. deduction: a candidate c of a read by x on key k is impossible in
 *      every ser/si execution when x reaches c (the wr edge would close a
 *      cycle), or when some other writer w of k has c ->* w ->* x (then
 *      neither order of c and w is acyclic: w -> c closes c ->* w, c -> w
 *      gives the anti-dependency x -> w against w ->* x).  Both rules use
 *      only so and wr edges, base edges under si too.  A read left with
 *      one candidate gets it, which adds a wr edge, to a fixpoint.
 *   2. a guess for the reads still open (the candidate latest before the
 *      reader in a topological order), checked by the usual checker on a
 *      view of the trace whose reads all name their writer;
 *   3. when the guess fails, an exact search over the choices
 *      (strong_choose.c), its answer checked by the usual checker again.
 * A read left without a candidate, or a search without a choice, makes
 * the history a violation; its witness is the usual checker's cycle under
 * one choice, whose wr and rw edges of reads not deduced carry forced = 0
 * (every choice has some cycle; this one is under that choice).
 */
#include <stdlib.h>
#include <string.h>

#include "strong_ambig.h"

/* Vector clocks cost txns x sessions words: beyond this, no deduction. */
#define AMB_MAX_CLOCK_WORDS (64u << 20)

static bool amb_oom(amb_ctx *a)
{
    return ip_fail(a->err, "ser/si check: out of memory");
}

static bool amb_init(amb_ctx *a)
{
    const ip_trace *t = a->t;
    uint32_t n = t->n_ambiguous, nw = t->amb_first[n];
    a->live = malloc(nw * sizeof *a->live);
    a->n_live = malloc(n * sizeof *a->n_live);
    a->chosen = malloc(n * sizeof *a->chosen);
    a->deduced = calloc(n, 1);
    a->amb_of_event = malloc(((size_t)t->n_events + 1) * sizeof(uint32_t));
    a->topo_pos = malloc((size_t)t->n_txns * sizeof *a->topo_pos);
    if ((uint64_t)t->n_txns * t->n_sessions <= AMB_MAX_CLOCK_WORDS)
        a->vc = malloc(((size_t)t->n_txns * t->n_sessions + 1) *
                       sizeof *a->vc);
    if (!a->live || !a->n_live || !a->chosen || !a->deduced ||
        !a->amb_of_event || !a->topo_pos)
        return amb_oom(a);
    memcpy(a->live, t->amb_writer, nw * sizeof *a->live);
    memset(a->amb_of_event, 0xff, (size_t)t->n_events * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
        a->n_live[i] = t->amb_first[i + 1] - t->amb_first[i];
        a->chosen[i] = IP_NONE;
        a->amb_of_event[t->amb_event[i]] = i;
    }
    return true;
}

static void amb_free(amb_ctx *a)
{
    free(a->live);
    free(a->n_live);
    free(a->chosen);
    free(a->deduced);
    free(a->amb_of_event);
    free(a->topo_pos);
    free(a->vc);
}

/* ---- known reachability ------------------------------------------------- */

/* Runs body with p bound to each so/wr predecessor (not txn 0) of
 * committed x, over the fixed writers (one read several times comes
 * several times). */
#define FOR_PREDS(a, x, p, body)                                             \
    do {                                                                     \
        const ip_txn *tx_ = &(a)->t->txns[x];                                \
        uint32_t p = ip_prev_committed((a)->t, x);                            \
        if (p != IP_NONE) { body; }                                          \
        for (uint32_t e_ = tx_->ev_first; e_ < tx_->ev_first + tx_->ev_count; \
             e_++) {                                                         \
            if ((a)->t->events[e_].kind != IP_READ)                          \
                continue;                                                    \
            p = amb_writer_of(a, e_);                                        \
            if (p != IP_NONE && p != IP_INIT_TXN) { body; }                  \
        }                                                                    \
    } while (0)

/* A topological order of so ∪ wr (fixed writers) by Kahn's algorithm into
 * a->topo_pos, and the clocks along it; a->cyclic when it has a cycle. */
static bool compute_clocks(amb_ctx *a)
{
    const ip_trace *t = a->t;
    uint32_t n = t->n_txns, S = t->n_sessions;
    uint32_t *indeg = calloc(n, sizeof *indeg);
    uint32_t *first = calloc((size_t)n + 1, sizeof *first);
    uint32_t *queue = malloc((size_t)n * sizeof *queue);
    uint32_t *succ = NULL;
    bool ok = indeg && first && queue;
    for (uint32_t x = 1; ok && x < n; x++)
        if (ip_committed(t, x))
            FOR_PREDS(a, x, p, { first[p + 1]++; indeg[x]++; });
    for (uint32_t x = 0; ok && x < n; x++)
        first[x + 1] += first[x];
    ok = ok && (succ = malloc(((size_t)first[n] + 1) * sizeof *succ));
    uint32_t head = 0, tail = 0, pos = 0;
    if (ok) {
        for (uint32_t x = 1; x < n; x++)
            if (ip_committed(t, x))
                FOR_PREDS(a, x, p, { succ[first[p]++] = x; });
        for (uint32_t x = n; x-- > 0;)   /* first[x] is now x's end */
            first[x + 1] = first[x];
        first[0] = 0;
        for (uint32_t x = 1; x < n; x++)
            if (ip_committed(t, x) && indeg[x] == 0)
                queue[tail++] = x;
        a->topo_pos[IP_INIT_TXN] = pos++;
        while (head < tail) {
            uint32_t x = queue[head++];
            a->topo_pos[x] = pos++;
            uint32_t *row = a->vc ? a->vc + (size_t)x * S : NULL;
            if (row) {
                memset(row, 0, S * sizeof *row);
                FOR_PREDS(a, x, p, {
                    const uint32_t *pr = a->vc + (size_t)p * S;
                    for (uint32_t s = 0; s < S; s++)
                        if (pr[s] > row[s])
                            row[s] = pr[s];
                });
                row[t->txns[x].session] = t->txns[x].index + 1;
            }
            for (uint32_t i = first[x]; i < first[x + 1]; i++)
                if (--indeg[succ[i]] == 0)
                    queue[tail++] = succ[i];
        }
    }
    a->cyclic = ok && pos != ip_committed_count(t) + 1;
    free(indeg);
    free(first);
    free(queue);
    free(succ);
    return ok || amb_oom(a);
}

/* ---- deduction ---------------------------------------------------------- */

/* Is candidate c of read i (by x on key) impossible (the rules above)? */
static bool impossible(const amb_ctx *a, uint32_t x, uint32_t key,
                       uint32_t c)
{
    const ip_trace *t = a->t;
    if (amb_reach(a, x, c))
        return true;
    for (uint32_t j = t->key_writer_first[key];
         j < t->key_writer_first[key + 1]; j++) {
        uint32_t w = t->key_writer[j];
        if (w != c && w != x && amb_reach(a, w, x) && amb_reach(a, c, w))
            return true;
    }
    return false;
}

/* One pass over the open reads; *fixed counts reads given a writer, *dead
 * is a read left without candidates (IP_NONE if none). */
static void deduce_pass(amb_ctx *a, uint32_t *fixed, uint32_t *dead)
{
    const ip_trace *t = a->t;
    for (uint32_t i = 0; i < t->n_ambiguous && *dead == IP_NONE; i++) {
        if (a->chosen[i] != IP_NONE)
            continue;
        const ip_event *ev = &t->events[t->amb_event[i]];
        uint32_t *c = a->live + t->amb_first[i], m = 0;
        for (uint32_t j = 0; j < a->n_live[i]; j++)
            if (!impossible(a, ev->txn, ev->key, c[j]))
                c[m++] = c[j];
        a->n_live[i] = m;
        if (m == 0) {
            *dead = i;
        } else if (m == 1) {
            a->chosen[i] = c[0];
            a->deduced[i] = 1;
            (*fixed)++;
        }
    }
}

/* Deduce to a fixpoint (only the clocks unless `prune`); *dead as in
 * deduce_pass. */
static bool deduce(amb_ctx *a, bool prune, uint32_t *dead)
{
    *dead = IP_NONE;
    for (;;) {
        if (!compute_clocks(a))
            return false;
        if (a->cyclic || !a->vc || !prune)
            return true;
        uint32_t fixed = 0;
        deduce_pass(a, &fixed, dead);
        if (!fixed || *dead != IP_NONE)
            return true;
    }
}

/* ---- checking one choice ------------------------------------------------ */

/* The usual checker on a view of t whose ambiguous reads read chosen[]:
 * the view shares everything with t but the events. */
static ip_check_result check_view(amb_ctx *a, const ip_check_opts *opts,
                                  const ip_strong_opts *sopts,
                                  ip_verdict *out, ip_strong_stats *stats)
{
    const ip_trace *t = a->t;
    ip_trace view = *t;
    view.events = malloc(((size_t)t->n_events + 1) * sizeof *view.events);
    if (!view.events) {
        amb_oom(a);
        return IP_CHECK_ERROR;
    }
    memcpy(view.events, t->events, (size_t)t->n_events * sizeof *t->events);
    for (uint32_t i = 0; i < t->n_ambiguous; i++)
        view.events[t->amb_event[i]].writer = a->chosen[i];
    view.n_ambiguous = 0;
    view.amb_op = view.amb_event = view.amb_first = view.amb_writer = NULL;
    ip_check_result r = ip_check_strong(&view, a->si, opts, sopts, out, stats,
                                        a->err);
    free(view.events);
    return r;
}

/* The ambiguous read of `reader` on `key` that was not deduced, if any. */
static bool chosen_read(const amb_ctx *a, uint32_t reader, uint32_t key)
{
    const ip_txn *x = &a->t->txns[reader];
    for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++) {
        uint32_t i = a->amb_of_event[e];
        if (i != IP_NONE && a->t->events[e].key == key)
            return !a->deduced[i];
    }
    return false;
}

/* Hand the choice to the verdict; edges resting on a chosen (not deduced)
 * writer are marked not forced. */
static bool attach_choice(amb_ctx *a, ip_verdict *out)
{
    const ip_trace *t = a->t;
    out->writers = malloc(t->n_ambiguous * sizeof *out->writers);
    out->deduced = malloc(t->n_ambiguous);
    if (!out->writers || !out->deduced)
        return amb_oom(a);
    /* reads a violation did not need get any candidate: the cycle stays */
    for (uint32_t i = 0; i < t->n_ambiguous; i++)
        out->writers[i] = a->chosen[i] != IP_NONE
                              ? a->chosen[i] : t->amb_writer[t->amb_first[i]];
    memcpy(out->deduced, a->deduced, t->n_ambiguous);
    out->n_writers = t->n_ambiguous;
    for (uint32_t c = 0; c < out->n_cycles; c++)
        for (uint32_t i = 0; i < out->cycles[c].n_edges; i++) {
            ip_edge *e = &out->cycles[c].edges[i];
            if ((e->kind == IP_EDGE_WR && chosen_read(a, e->to, e->key)) ||
                (e->kind == IP_EDGE_RW && chosen_read(a, e->from, e->key)))
                e->forced = 0;
        }
    return true;
}

/* ---- finding a choice ----------------------------------------------------- */

typedef struct amb_run {
    amb_ctx *a;
    const ip_check_opts *opts;
    const ip_strong_opts *sopts;
    ip_strong_stats *stats;
    double deadline;          /* ip_now() seconds; 0 = none */
    uint32_t *last, *list;    /* scratch: per key, per ambiguous read */
} amb_run;

/* check_view within what is left of the time limit, and within
 * `budget_ms` when not 0 (a trial of the local search). */
static ip_check_result check_within(amb_run *run, unsigned budget_ms,
                                    ip_verdict *out)
{
    ip_check_opts o = run->opts ? *run->opts : (ip_check_opts){0, 0};
    memset(out, 0, sizeof *out);
    if (run->deadline) {
        double left = run->deadline - ip_now();
        if (left < 0.001)
            return IP_CHECK_UNKNOWN;
        o.timeout_ms = (unsigned)(left * 1000.0) + 1;
    }
    if (budget_ms && (!o.timeout_ms || budget_ms < o.timeout_ms))
        o.timeout_ms = budget_ms;
    return check_view(run->a, &o, run->sopts, out, run->stats);
}

static ip_check_result check_choice(amb_run *run, ip_verdict *out)
{
    return check_within(run, 0, out);
}

static bool is_live(const amb_ctx *a, uint32_t i, uint32_t w)
{
    const uint32_t *c = a->live + a->t->amb_first[i];
    for (uint32_t j = 0; j < a->n_live[i]; j++)
        if (c[j] == w)
            return true;
    return false;
}

/* Give every open read whose write in the serial order `order` (the last
 * writer of its key before its reader) is a live candidate that writer:
 * the order stays a witness.  The others go to run->list; their number is
 * returned.  topo_pos becomes the position in order. */
static uint32_t take_natural(amb_run *run, const uint32_t *order, uint32_t n)
{
    amb_ctx *a = run->a;
    const ip_trace *t = a->t;
    for (uint32_t k = 0; k < t->n_keys; k++)
        run->last[k] = IP_INIT_TXN;
    for (uint32_t p = 0; p < n; p++) {
        const ip_txn *x = &t->txns[order[p]];
        a->topo_pos[order[p]] = p;
        for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++) {
            uint32_t i = a->amb_of_event[e];
            if (i != IP_NONE && a->chosen[i] == IP_NONE &&
                is_live(a, i, run->last[t->events[e].key]))
                a->chosen[i] = run->last[t->events[e].key];
        }
        for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++)
            if (t->events[e].kind == IP_WRITE)
                run->last[t->events[e].key] = order[p];
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < t->n_ambiguous; i++)
        if (a->chosen[i] == IP_NONE)
            run->list[m++] = i;
    return m;
}

/* The live candidate of read i latest before its reader by topo_pos, else
 * the earliest. */
static uint32_t latest_before(const amb_ctx *a, uint32_t i)
{
    const ip_trace *t = a->t;
    uint32_t px = a->topo_pos[t->events[t->amb_event[i]].txn];
    const uint32_t *c = a->live + t->amb_first[i];
    uint32_t best = IP_NONE, low = IP_NONE;
    for (uint32_t j = 0; j < a->n_live[i]; j++) {
        uint32_t pc = a->topo_pos[c[j]];
        if (pc < px && (best == IP_NONE || pc > a->topo_pos[best]))
            best = c[j];
        if (low == IP_NONE || pc < a->topo_pos[low])
            low = c[j];
    }
    return best != IP_NONE ? best : low;
}

/* A trial of the local search may take this long (a wrong choice can
 * cost the checker's solver dearly); restarts after getting stuck. */
#define AMB_TRIAL_MS 2000u
#define AMB_RESTARTS 8u

static bool past_deadline(const amb_run *run)
{
    return run->deadline && ip_now() >= run->deadline;
}

/* Give the first n reads of run->list writers (their latest candidates
 * before them, or for one read each candidate in turn) and check; an
 * execution replaces *v.  IP_CHECK_VIOLATION: none of the tries had one. */
static ip_check_result try_reads(amb_run *run, uint32_t n, ip_verdict *v)
{
    amb_ctx *a = run->a;
    uint32_t tries = 1, i0 = run->list[0];
    if (n == 1)
        tries = a->n_live[i0];
    for (uint32_t k = 0; k < tries; k++) {
        for (uint32_t j = 0; j < n; j++)
            a->chosen[run->list[j]] = latest_before(a, run->list[j]);
        if (n == 1 && tries > 1)
            a->chosen[i0] = a->live[a->t->amb_first[i0] + k];
        ip_verdict w;
        ip_check_result r = check_within(run, AMB_TRIAL_MS, &w);
        if (r == IP_CHECK_OK) {
            ip_verdict_free(v);
            *v = w;
            return r;
        }
        ip_verdict_free(&w);
        for (uint32_t j = 0; j < n; j++)
            a->chosen[run->list[j]] = IP_NONE;
        if (r == IP_CHECK_ERROR || past_deadline(run))
            return r == IP_CHECK_ERROR ? r : IP_CHECK_UNKNOWN;
    }
    return IP_CHECK_VIOLATION;   /* a trial that timed out counts as failed */
}

/* Local search from an execution *v of the reads given writers so far:
 * reads its order agrees with take that writer; of the rest, as many as
 * still leave an execution (halving the batch on failure) take their
 * latest candidate before them, and again with the new execution.  OK:
 * every read has a writer and *v is an execution.  VIOLATION: stuck (no
 * proof of anything; the exact search decides). */
static ip_check_result local_search(amb_run *run, ip_verdict *v)
{
    amb_ctx *a = run->a;
    for (uint32_t restarts = 0;;) {
        uint32_t m = take_natural(run, v->order, v->n_order);
        if (m == 0)
            return IP_CHECK_OK;
        ip_check_result r = IP_CHECK_VIOLATION;
        for (uint32_t n = m; n >= 1 && r == IP_CHECK_VIOLATION; n /= 2)
            r = try_reads(run, n, v);
        if (r == IP_CHECK_OK)
            continue;
        if (r != IP_CHECK_VIOLATION || restarts++ == AMB_RESTARTS)
            return r;
        /* stuck on list[0] whatever its writer: the choices so far are
         * to blame; start again from that read alone */
        for (uint32_t i = 0; i < a->t->n_ambiguous; i++)
            if (!a->deduced[i])
                a->chosen[i] = IP_NONE;
        r = try_reads(run, 1, v);
        if (r != IP_CHECK_OK)
            return r;
    }
}

static ip_check_result internal(ip_error *err, const char *what)
{
    ip_fail(err, "ser/si check: internal error: %s", what);
    return IP_CHECK_ERROR;
}

/* Every open read has a writer in a->chosen: the final check, whose
 * execution must exist. */
static ip_check_result confirm(amb_run *run, ip_verdict *out)
{
    ip_verdict_free(out);
    ip_check_result r = check_choice(run, out);
    if (r == IP_CHECK_VIOLATION)
        r = internal(run->a->err, "the chosen writers have no execution");
    return r;
}

/* After deduction: decide by the other reads alone, local search, and the
 * exact search; *out is the verdict.  `viol` keeps the witness of a
 * violation under the guess. */
static ip_check_result decide_open(amb_run *run, ip_verdict *out)
{
    amb_ctx *a = run->a;
    const ip_trace *t = a->t;
    /* the other reads alone: a violation stands for every choice */
    ip_check_result r = check_choice(run, out);
    if (r != IP_CHECK_OK)
        return r;
    r = run->sopts && run->sopts->no_guess ? IP_CHECK_VIOLATION
                                           : local_search(run, out);
    if (r == IP_CHECK_OK) {
        /* si: a commit order is no serial order, so its writers may fail */
        ip_verdict_free(out);
        r = check_choice(run, out);
        if (r != IP_CHECK_VIOLATION)
            return r;
    }
    if (r != IP_CHECK_VIOLATION)
        return r;
    for (uint32_t i = 0; i < t->n_ambiguous; i++)
        if (!a->deduced[i])
            a->chosen[i] = IP_NONE;
    double left = run->deadline ? run->deadline - ip_now() : 0;
    if (run->deadline && left < 0.001)
        return IP_CHECK_UNKNOWN;
    r = amb_search(a, run->deadline ? (unsigned)(left * 1000.0) + 1 : 0);
    if (r == IP_CHECK_OK)
        return confirm(run, out);
    if (r != IP_CHECK_VIOLATION)
        return r;
    /* no choice has an execution: show the cycle under one of them */
    for (uint32_t i = 0; i < t->n_ambiguous; i++)
        if (a->chosen[i] == IP_NONE)
            a->chosen[i] = latest_before(a, i);
    ip_verdict_free(out);
    r = check_choice(run, out);
    return r == IP_CHECK_OK ? internal(a->err, "a choice the search refuted "
                                       "has an execution") : r;
}

ip_check_result sg_check_ambiguous(const ip_trace *t, bool si,
                                   const ip_check_opts *opts,
                                   const ip_strong_opts *sopts,
                                   ip_verdict *out, ip_strong_stats *stats,
                                   ip_error *err)
{
    amb_ctx a = {.t = t, .si = si, .err = err};
    amb_run run = {.a = &a, .opts = opts, .sopts = sopts, .stats = stats};
    if (opts && opts->timeout_ms)
        run.deadline = ip_now() + opts->timeout_ms / 1000.0;
    ip_check_result r = IP_CHECK_ERROR;
    uint32_t dead;
    memset(out, 0, sizeof *out);
    run.last = malloc(((size_t)t->n_keys + 1) * sizeof *run.last);
    run.list = malloc(((size_t)t->n_ambiguous + 1) * sizeof *run.list);
    if (!run.last || !run.list) {
        amb_oom(&a);
        goto out;
    }
    if (!amb_init(&a) || !deduce(&a, !sopts || !sopts->no_pruning, &dead))
        goto out;
    if (dead != IP_NONE || a.cyclic) {
        /* a violation whatever the choice: the cycle under one choice */
        for (uint32_t i = 0; i < t->n_ambiguous; i++)
            if (a.chosen[i] == IP_NONE)
                a.chosen[i] = t->amb_writer[t->amb_first[i]];
        r = check_choice(&run, out);
        if (r == IP_CHECK_OK)
            r = internal(err, "a read without possible writers has an "
                         "execution");
    } else {
        r = decide_open(&run, out);
    }
    if ((r == IP_CHECK_OK || r == IP_CHECK_VIOLATION) &&
        !attach_choice(&a, out))
        r = IP_CHECK_ERROR;
    out->result = r;
out:
    free(run.last);
    free(run.list);
    amb_free(&a);
    return r;
}
