/*
 * strong_ambig.c - ser and si when some reads have several candidate
 * writers (ip_check_strong's way in for such traces).
 *
 * The choice of writer is part of the search, in two steps:
 *   1. deduction: a candidate c of a read by x on key k is impossible in
 *      every ser/si execution when x reaches c (the wr edge would close a
 *      cycle), or when some other writer w of k has c ->* w ->* x (then
 *      neither order of c and w is acyclic: w -> c closes c ->* w, c -> w
 *      gives the anti-dependency x -> w against w ->* x).  Both rules use
 *      only so and wr edges, base edges under si too.  A read left with
 *      one candidate gets it, which adds a wr edge, to a fixpoint.
 *   2. the usual checker on a view of the trace whose open reads have no
 *      writer, with those reads handed to its search (sg_open): pruning
 *      runs without them, the lazy solver chooses their writers next to
 *      the open writer orders (strong_solve.c).  An execution it finds is
 *      checked once more with every writer fixed.
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
    return ip_oom(a->err, "ser/si check: out of memory");
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
    if ((uint64_t)t->n_txns * t->n_sessions <= AMB_MAX_CLOCK_WORDS)
        a->vc = malloc(((size_t)t->n_txns * t->n_sessions + 1) *
                       sizeof *a->vc);
    if (!a->live || !a->n_live || !a->chosen || !a->deduced ||
        !a->amb_of_event)
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

/* The clocks along a topological order of so ∪ wr with the fixed writers
 * (ip_so_wr_order_chosen, trace/order.c); a->cyclic when it has a
 * cycle. */
static bool compute_clocks(amb_ctx *a)
{
    const ip_trace *t = a->t;
    uint32_t S = t->n_sessions, n = 0;
    uint32_t *order = malloc(((size_t)t->n_txns + 1) * sizeof *order);
    bool ok = order && ip_so_wr_order_chosen(t, a->chosen, order, &n);
    for (uint32_t i = 0; ok && a->vc && i < n; i++) {
        uint32_t x = order[i];
        uint32_t *row = a->vc + (size_t)x * S;
        memset(row, 0, S * sizeof *row);
        FOR_PREDS(a, x, p, {
            const uint32_t *pr = a->vc + (size_t)p * S;
            for (uint32_t s = 0; s < S; s++)
                if (pr[s] > row[s])
                    row[s] = pr[s];
        });
        row[t->txns[x].session] = t->txns[x].index + 1;
    }
    a->cyclic = ok && n != ip_committed_count(t);
    free(order);
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

/* ---- deciding ----------------------------------------------------------- */

typedef struct amb_run {
    amb_ctx *a;
    const ip_check_opts *opts;
    const ip_strong_opts *sopts;
    ip_strong_stats *stats;
    double deadline;          /* ip_now() seconds; 0 = none */
} amb_run;

/* The usual checker on a view of t whose ambiguous reads read chosen[]
 * (the view shares everything with t but the events); `open` reads, when
 * given, are left without writer for the checker's search.  Within what
 * is left of the time limit. */
static ip_check_result check_view(amb_run *run, const sg_open *open,
                                  ip_verdict *out)
{
    amb_ctx *a = run->a;
    const ip_trace *t = a->t;
    ip_check_opts o = run->opts ? *run->opts : (ip_check_opts){0};
    memset(out, 0, sizeof *out);
    if (run->deadline) {
        double left = run->deadline - ip_now();
        if (left < 0.001)
            return IP_CHECK_UNKNOWN;
        o.timeout_ms = (unsigned)(left * 1000.0) + 1;
    }
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
    ip_check_result r = sg_check_open(&view, a->si, &o, run->sopts, open, out,
                                      run->stats, a->err);
    free(view.events);
    return r;
}

static ip_check_result internal(ip_error *err, const char *what)
{
    ip_fail(err, "ser/si check: internal error: %s", what);
    return IP_CHECK_ERROR;
}

/* Does `reader` read `key` from `writer` only by a choice (an ambiguous
 * read not deduced), not by a read whose writer is known? */
static bool chosen_read(const amb_ctx *a, uint32_t reader, uint32_t key,
                        uint32_t writer)
{
    const ip_trace *t = a->t;
    const ip_txn *x = &t->txns[reader];
    bool chosen = false;
    for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++) {
        const ip_event *ev = &t->events[e];
        if (ev->kind != IP_READ || ev->key != key)
            continue;
        uint32_t i = a->amb_of_event[e];
        if (i == IP_NONE ? ev->writer == writer
                         : a->deduced[i] && a->chosen[i] == writer)
            return false;
        chosen |= i != IP_NONE && a->chosen[i] == writer;
    }
    return chosen;
}

/* Hand the choice to the verdict.  A wr or rw edge of its cycles is
 * forced unless it rests on a chosen (not deduced) writer. */
static bool attach_choice(amb_ctx *a, ip_verdict *out)
{
    const ip_trace *t = a->t;
    out->writers = malloc(t->n_ambiguous * sizeof *out->writers);
    out->deduced = malloc(t->n_ambiguous);
    if (!out->writers || !out->deduced)
        return amb_oom(a);
    memcpy(out->writers, a->chosen, t->n_ambiguous * sizeof *a->chosen);
    memcpy(out->deduced, a->deduced, t->n_ambiguous);
    out->n_writers = t->n_ambiguous;
    for (uint32_t c = 0; c < out->n_cycles; c++)
        for (uint32_t i = 0; i < out->cycles[c].n_edges; i++) {
            ip_edge *e = &out->cycles[c].edges[i];
            if (e->kind == IP_EDGE_WR)
                e->forced = !chosen_read(a, e->to, e->key, e->from);
            else if (e->kind == IP_EDGE_RW)
                e->forced = !chosen_read(a, e->from, e->key, e->via);
        }
    return true;
}

/* The reads deduction left open, as the checker's search takes them. */
typedef struct open_reads {
    sg_open o;
    uint32_t *reader, *key, *first, *cand, *pick, *index;
} open_reads;

static bool collect_open(amb_ctx *a, open_reads *r)
{
    const ip_trace *t = a->t;
    size_t n = (size_t)t->n_ambiguous + 1, nc = 0;
    r->reader = malloc(n * sizeof *r->reader);
    r->key = malloc(n * sizeof *r->key);
    r->first = malloc(n * sizeof *r->first);
    r->pick = malloc(n * sizeof *r->pick);
    r->index = malloc(n * sizeof *r->index);
    r->cand = malloc(((size_t)t->amb_first[t->n_ambiguous] + 1) *
                     sizeof *r->cand);
    if (!r->reader || !r->key || !r->first || !r->pick || !r->index ||
        !r->cand)
        return amb_oom(a);
    uint32_t m = 0;
    for (uint32_t i = 0; i < t->n_ambiguous; i++) {
        if (a->chosen[i] != IP_NONE)
            continue;
        const ip_event *ev = &t->events[t->amb_event[i]];
        r->reader[m] = ev->txn;
        r->key[m] = ev->key;
        r->first[m] = (uint32_t)nc;
        r->pick[m] = 0;     /* kept when a violation needs no choice */
        r->index[m++] = i;
        memcpy(r->cand + nc, a->live + t->amb_first[i],
               a->n_live[i] * sizeof *r->cand);
        nc += a->n_live[i];
    }
    r->first[m] = (uint32_t)nc;
    r->o = (sg_open){ .n = m, .reader = r->reader, .key = r->key,
                      .first = r->first, .cand = r->cand, .pick = r->pick };
    return true;
}

static void free_open(open_reads *r)
{
    free(r->reader);
    free(r->key);
    free(r->first);
    free(r->cand);
    free(r->pick);
    free(r->index);
}

/* The checker's own search over the open reads' writers: the exact
 * answer, its picks into a->chosen (on a violation, the picks of the
 * witness).  An execution is checked once more with every writer fixed. */
static ip_check_result search_open(amb_run *run, ip_verdict *out)
{
    amb_ctx *a = run->a;
    open_reads r = {0};
    ip_check_result res = IP_CHECK_ERROR;
    if (collect_open(a, &r)) {
        res = check_view(run, &r.o, out);
        if (res == IP_CHECK_OK || res == IP_CHECK_VIOLATION)
            for (uint32_t q = 0; q < r.o.n; q++)
                a->chosen[r.index[q]] = r.cand[r.first[q] + r.pick[q]];
    }
    free_open(&r);
    if (res != IP_CHECK_OK)
        return res;
    ip_verdict_free(out);
    res = check_view(run, NULL, out);
    return res == IP_CHECK_VIOLATION
               ? internal(a->err, "the chosen writers have no execution")
               : res;
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
    if (!amb_init(&a) || !deduce(&a, !sopts || !sopts->no_pruning, &dead))
        goto out;
    if (dead != IP_NONE || a.cyclic) {
        /* a violation whatever the choice: the cycle under one choice */
        for (uint32_t i = 0; i < t->n_ambiguous; i++)
            if (a.chosen[i] == IP_NONE)
                a.chosen[i] = t->amb_writer[t->amb_first[i]];
        r = check_view(&run, NULL, out);
        if (r == IP_CHECK_OK)
            r = internal(err, "a read without possible writers has an "
                         "execution");
    } else {
        r = search_open(&run, out);
    }
    if ((r == IP_CHECK_OK || r == IP_CHECK_VIOLATION) &&
        !attach_choice(&a, out))
        r = IP_CHECK_ERROR;
    out->result = r;
out:
    amb_free(&a);
    return r;
}
