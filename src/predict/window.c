/*
 * window.c - bounded search (window.h): the observed order, one problem
 * per window (the window's transactions alone, the state before it folded
 * into the initial transaction), each confirmed candidate confirmed again
 * for the observed trace - on the trace cut after the window, or under
 * triage on the window and its context (local.h) - and the worker
 * threads that solve the windows of a round (predict.h, "Search modes").
 */
#include "covered.h"
#include "found.h"
#include "local.h"
#include "smallest.h"
#include "window.h"
#include "extract_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the observed order ---------------------------------------------- */

bool run_observed_order(run_state *rs, bool *serializable)
{
    const ip_trace *t = rs->obs;
    rs->pos = malloc(sizeof *rs->pos * (t->n_txns + 1));
    rs->order = malloc(sizeof *rs->order * (t->n_txns + 1));
    if (!rs->pos || !rs->order)
        return ip_oom(rs->err, "prediction: out of memory");
    ip_check_opts co = {.timeout_ms = guard_check_ms(rs->g), .max_cycles = 1};
    ip_verdict v;
    ip_check_result r = ip_check(t, IP_LVL_SER, &co, &v, rs->err);
    if (r == IP_CHECK_ERROR)
        return false;
    *serializable = r == IP_CHECK_OK;
    rs->n_order = 0;
    if (*serializable) {
        for (uint32_t i = 0; i < v.n_order; i++)
            if (v.order[i] != IP_INIT_TXN && ip_committed(t, v.order[i]))
                rs->order[rs->n_order++] = v.order[i];
        rs->has_order = rs->n_order == ip_committed_count(t);
    }
    rs->serial_order = rs->has_order;
    ip_verdict_free(&v);
    if (!rs->has_order) {
        if (!ip_so_wr_order(t, rs->order, &rs->n_order))
            return ip_oom(rs->err, "prediction: out of memory");
        rs->has_order = rs->n_order == ip_committed_count(t);
    }
    for (uint32_t x = 0; x < t->n_txns; x++)
        rs->pos[x] = x == IP_INIT_TXN ? 0 : IP_NONE;
    for (uint32_t i = 0; rs->has_order && i < rs->n_order; i++)
        rs->pos[rs->order[i]] = i + 1;
    return true;
}

/* ---- one window ------------------------------------------------------- */

typedef struct lifted {
    ip_trace *cut;            /* observed trace cut after the window */
    uint32_t *cut_txn;        /* cut txn -> observed txn */
    uint32_t *cut_of;         /* observed txn -> cut txn or IP_NONE */
} lifted;

struct round_state;

typedef struct window {
    run_state *rs;
    struct round_state *rd;   /* the round it is a window of */
    uint32_t index;           /* in the round */
    uint32_t first, end;      /* order positions [first, end), 1-based */
    ip_trace *sub;            /* the window's own trace */
    uint32_t *sub_txn;        /* sub txn -> observed txn */
    uint32_t *sub_pos;        /* sub txn -> order position */
    lifted cut;               /* made at the first candidate, then shared
                                 by all: the cut is the window's, not the
                                 candidate's (cut.cut NULL until then) */
    window_local loc;         /* triage: made at the first candidate too */
    uint32_t n_local, n_cut;  /* confirmations on loc and on cut */
    uint32_t n_moved;         /* ... on loc by the window's witness */
    covered *shared;          /* triage: the round's instances, or NULL */
    covered_cursor shared_at; /* what of them it has learned */
    uint32_t *ev_of_op;       /* sub op -> sub event (made when learning) */
    uint32_t n_learned;
    double seconds;           /* its time when it started (0: no limit) */
    bool ran_on;              /* given its time again once already */
} window;

/* Observed event of event e of trace `t`, whose txns map to observed ones
 * through txn_map (ops of a txn are the same in both). */
static uint32_t observed_event(const run_state *rs, const ip_trace *t,
                               const uint32_t *txn_map, uint32_t e)
{
    uint32_t op = t->events[e].op;
    if (op == IP_NONE)
        return IP_NONE;
    uint32_t x = t->ops[op].txn;
    uint32_t ox = txn_map[x];
    return rs->ev_of_op[rs->obs->txns[ox].op_first +
                        (op - t->txns[x].op_first)];
}

static window_view view_of(const window *w)
{
    return (window_view){.rs = w->rs, .sub = w->sub, .sub_txn = w->sub_txn,
                         .first = w->first, .end = w->end};
}

static void lifted_free(lifted *l)
{
    ip_trace_free(l->cut);
    free(l->cut_txn);
    free(l->cut_of);
    *l = (lifted){0};
}

/* The cut's trace under a serial order: every read of a transaction
 * before the window's end reads a writer before it, so the trace is
 * derived from obs's arrays with the observed writers, numbered as a
 * slice numbers it (trace.h), without replaying the cut through the
 * builder (a fifth of making a representative at 80,000 transactions).
 * cut_txn: cut txn -> obs txn. */
static ip_trace *derive_cut(const ip_trace *t, const uint8_t *keep,
                            uint32_t **cut_txn, ip_error *err)
{
    ip_assignment a = {0};
    uint32_t *map = malloc(sizeof *map * ((size_t)t->n_txns + 1));
    ip_trace *cut = NULL;
    if (!map || !ip_assignment_observed(t, &a))
        ip_oom(err, "prediction: out of memory");
    else
        cut = ip_trace_derive(t, keep, a.writer, err);
    if (cut) {
        uint32_t n = 0;
        for (uint32_t x = 0; x < t->n_txns; x++)
            if (x == IP_INIT_TXN || (keep[x] && ip_committed(t, x)))
                map[n++] = x;
        *cut_txn = map;
        map = NULL;
    }
    ip_assignment_free(&a);
    free(map);
    return cut;
}

static bool make_cut(const window *w, lifted *l, ip_error *err)
{
    const ip_trace *t = w->rs->obs;
    uint8_t *keep = calloc(t->n_txns + 1, 1);
    if (!keep)
        return ip_oom(err, "prediction: out of memory");
    for (uint32_t i = 0; i < w->end - 1; i++)
        keep[w->rs->order[i]] = 1;
    l->cut = w->rs->serial_order ? derive_cut(t, keep, &l->cut_txn, err)
                                 : ip_trace_slice(t, keep, &l->cut_txn, err);
    free(keep);
    if (!l->cut)
        return false;
    l->cut_of = malloc(sizeof *l->cut_of * (t->n_txns + 1));
    if (!l->cut_of) {
        lifted_free(l);       /* never half a cut */
        return ip_oom(err, "prediction: out of memory");
    }
    for (uint32_t x = 0; x < t->n_txns; x++)
        l->cut_of[x] = IP_NONE;
    for (uint32_t x = 0; x < l->cut->n_txns; x++)
        l->cut_of[l->cut_txn[x]] = x;
    return true;
}

static uint32_t cut_of_obs(const void *ctx, uint32_t x)
{
    return ((const lifted *)ctx)->cut_of[x];
}

/* The window's assignment over the cut trace: reads before the window
 * keep their writers, the window's reads take the chosen ones (the
 * folded initial state is the last write before the window). */
static bool lift_assignment(const window *w, const lifted *l,
                            const ip_assignment *a, ip_assignment *out,
                            ip_error *err)
{
    window_view v = view_of(w);
    lift_target t = {.to = l->cut, .of_obs = cut_of_obs, .ctx = l};
    return local_lift_to(&v, &t, a, out, err);
}

/* How a window's candidate is confirmed on trace tr (the cut or the
 * local trace). */
static confirm_ctx confirm_ctx_over(const window *w, const ip_trace *tr,
                                    bool ser_known, ip_error *err)
{
    const run_state *rs = w->rs;
    return (confirm_ctx){.obs = tr, .model = rs->opts->model,
                         .boundary = rs->opts->boundary,
                         .encoding = IP_ENC_EXACT,
                         .check_timeout_ms = guard_check_ms(rs->g),
                         .ser_known = ser_known, .err = err};
}

/* Candidate p of the window, lifted to trace tr as *a (taken), confirmed
 * there into *q. */
static confirm_outcome confirm_over(const window *w, const ip_trace *tr,
                                    bool ser_known, const ip_prediction *p,
                                    ip_assignment *a, ip_prediction *q,
                                    ip_error *err)
{
    confirm_ctx c = confirm_ctx_over(w, tr, ser_known, err);
    ip_pco pco;
    confirm_outcome o = ip_confirm(&c, a, q, &pco);
    ip_pco_free(&pco);
    q->window = w->index;
    q->iteration = p->iteration;
    return o;
}

/* The window's candidate p confirmed again on the cut, into *q (filled
 * as far as the checks went; the caller clears it). */
static confirm_outcome confirm_on_cut(window *w, const ip_prediction *p,
                                      bool ser_known, ip_prediction *q,
                                      ip_error *err)
{
    ip_assignment a = {0};
    memset(q, 0, sizeof *q);
    if ((!w->cut.cut && !make_cut(w, &w->cut, err)) ||
        !lift_assignment(w, &w->cut, &p->assignment, &a, err)) {
        ip_assignment_free(&a);
        return CONFIRM_ERROR;
    }
    confirm_outcome o = confirm_over(w, w->cut.cut, ser_known, p, &a, q,
                                     err);
    w->n_cut += o == CONFIRM_OK;
    return o;
}

static bool local_witness(window *w, const ip_prediction *p,
                          ip_prediction *q, bool *oom);

/* The same on the window's local trace (local.h); SERIALIZABLE also when
 * that trace cannot stand for the cut (the order is not serial).  p was
 * confirmed on the window's trace, and its witness cycle is tried on the
 * local history first: when it is one of it (it avoids the state folded
 * before the window), that history is unserializable without a check of
 * its own (the ser check was about a third of confirming locally on TPC-C
 * windows). */
static confirm_outcome confirm_locally(window *w, const ip_prediction *p,
                                       ip_prediction *q, ip_error *err)
{
    run_state *rs = w->rs;
    window_view v = view_of(w);
    ip_assignment a = {0};
    memset(q, 0, sizeof *q);
    if (!rs->serial_order)
        return CONFIRM_SERIALIZABLE;
    if (!w->loc.tr && !local_make(&w->loc, &v, err))
        return CONFIRM_ERROR;
    if (w->loc.unusable)
        return CONFIRM_SERIALIZABLE;
    if (!local_lift(&w->loc, &v, &p->assignment, &a, err)) {
        ip_assignment_free(&a);
        return CONFIRM_ERROR;
    }
    bool hint = p->ser_verdict.result == IP_CHECK_VIOLATION &&
                p->ser_verdict.n_cycles > 0;
    confirm_outcome o = confirm_over(w, w->loc.tr, hint, p, &a, q, err);
    bool oom = false;
    if (o == CONFIRM_OK && hint && !local_witness(w, p, q, &oom)) {
        confirm_ctx c = confirm_ctx_over(w, w->loc.tr, false, err);
        o = oom ? (ip_oom(err, "prediction: out of memory"), CONFIRM_ERROR)
                : ip_confirm_ser(&c, q);
    }
    w->n_local += o == CONFIRM_OK;
    return o;
}

/* Plain search keeps q, which owns its base: the window's cut goes to
 * it (the next candidate makes another). */
static accept_result keep_lifted(window *w, ip_prediction *q, ip_error *err)
{
    uint64_t *sig = NULL;
    uint32_t n_sig = 0;
    bool ok = run_signature(w->rs, w->cut.cut, w->cut.cut_txn, q, &sig,
                            &n_sig);
    q->base = w->cut.cut;
    w->cut.cut = NULL;
    lifted_free(&w->cut);
    if (!ok) {
        ip_prediction_clear(q);
        ip_oom(err, "prediction: out of memory");
        return ACCEPT_ERROR;
    }
    return run_keep(w->rs, q, sig, n_sig, w->index);
}

/* A candidate the local trace confirmed that the cut does not (outcome
 * o): true when that says nothing (a checker's time ran out), else
 * false with err set. */
static bool disagree(const window *w, confirm_outcome o, ip_error *err)
{
    if (o == CONFIRM_ERROR || o == CONFIRM_UNKNOWN)
        return o == CONFIRM_UNKNOWN;  /* ERROR: err is set already */
    return ip_fail(err, "window %u: a candidate confirmed on the window and "
                   "its context is not confirmed on the trace before it "
                   "(local confirmation disagrees with the cut)", w->index);
}

/* History txn h of local prediction `part` as a txn of cut prediction
 * c's history (IP_NONE: not there). */
static uint32_t cut_txn_of(const window *w, const ip_prediction *part,
                           const ip_prediction *c, uint32_t h)
{
    if (h == IP_NONE)
        return IP_NONE;
    uint32_t cx = w->cut.cut_of[w->loc.txn[part->map.obs_txn[h]]];
    return cx == IP_NONE ? IP_NONE : c->map.hist_txn[cx];
}

/* The key named like key k of `part`'s history among the events of txns
 * a and b of history h (an edge's key is read or written by one of its
 * ends); IP_NONE when neither has it. */
static uint32_t key_of(const ip_trace *h, uint32_t a, uint32_t b,
                       const ip_trace *part_h, uint32_t k)
{
    const char *name = ip_key_name(part_h, k);
    uint32_t ends[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        const ip_txn *x = &h->txns[ends[i]];
        for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++)
            if (!strcmp(ip_key_name(h, h->events[e].key), name))
                return h->events[e].key;
    }
    return IP_NONE;
}

/* History txn h of window prediction p (over the window's own trace) as
 * a txn of local prediction q's history (IP_NONE: not there, or txn 0,
 * which stands for the state folded before the window). */
static uint32_t local_txn_of(const window *w, const ip_prediction *p,
                             const ip_prediction *q, uint32_t h)
{
    if (h == IP_NONE || p->map.obs_txn[h] == IP_INIT_TXN)
        return IP_NONE;
    uint32_t lx = w->loc.of_sub[p->map.obs_txn[h]];
    return lx == IP_NONE ? IP_NONE : q->map.hist_txn[lx];
}

typedef uint32_t (*txn_mover)(const window *w, const ip_prediction *from,
                              const ip_prediction *to, uint32_t h);

/* to's ser verdict: the witness cycle of `from`, whose history is a part
 * of to's, moved to to's history by mv and checked to be a cycle of it.
 * False when it is not (to's ser verdict is then cleared). */
static bool moved_witness_with(const window *w, const ip_prediction *from,
                               ip_prediction *to, txn_mover mv, bool *oom)
{
    const ip_cycle *lc = &from->ser_verdict.cycles[0];
    ip_cycle *cy = malloc(sizeof *cy);
    ip_edge *e = malloc(sizeof *e * ((size_t)lc->n_edges + 1));
    *oom = !cy || !e;
    if (*oom) {
        free(cy);
        free(e);
        return false;
    }
    bool ok = true;
    for (uint32_t i = 0; ok && i < lc->n_edges; i++) {
        const ip_edge *l = &lc->edges[i];
        e[i] = *l;
        e[i].from = mv(w, from, to, l->from);
        e[i].to = mv(w, from, to, l->to);
        e[i].via = mv(w, from, to, l->via);
        ok = e[i].from != IP_NONE && e[i].to != IP_NONE &&
             (l->via == IP_NONE || e[i].via != IP_NONE);
        if (ok && l->key != IP_NONE)
            e[i].key = key_of(to->history, e[i].from, e[i].to,
                              from->history, l->key);
    }
    *cy = (ip_cycle){.edges = e, .n_edges = lc->n_edges};
    to->ser_verdict = (ip_verdict){.level = IP_LVL_SER,
                                   .result = IP_CHECK_VIOLATION,
                                   .cycles = cy, .n_cycles = 1};
    ok = ok && ip_cycle_is_valid(to->history, IP_LVL_SER, cy, oom);
    if (!ok) {
        ip_verdict_free(&to->ser_verdict);
        memset(&to->ser_verdict, 0, sizeof to->ser_verdict);
    }
    return ok;
}

/* q's ser verdict: the witness of window prediction p, when it is a cycle
 * of local prediction q's history. */
static bool local_witness(window *w, const ip_prediction *p,
                          ip_prediction *q, bool *oom)
{
    bool moved = moved_witness_with(w, p, q, local_txn_of, oom);
    w->n_moved += moved;
    return moved;
}

/* c's ser verdict: the witness cycle of local prediction `part`, which is
 * unserializable (and so, being a part of it, is c's history), moved to
 * c's history and checked to be a cycle of it.  False when it is not. */
static bool moved_witness(const window *w, const ip_prediction *part,
                          ip_prediction *c, bool *oom)
{
    return moved_witness_with(w, part, c, cut_txn_of, oom);
}

/* Making a representative on the cut takes time linear in the cut, and
 * nothing interrupts it: making the cut, confirming and writing took 5-8
 * us per transaction from 20,000 to 80,000 (smallbank 100x1000, two
 * jobs, Release; 0.54 s at 80,705), so 20 us leaves a margin for slower
 * machines.  With less time left than twice that, the class keeps the
 * representative it has, or has none, rather than the run overrunning
 * its limit.  (It was 0.1 ms, measured before the files were streamed
 * and the causal checker skipped equal clocks: the last 16 s of a run
 * made no representative for a class found at 80,000.) */
#define REP_SECONDS_PER_TXN 2e-5

/* Class cls wants a representative of the size that local prediction
 * `part` stands for: make it on the cut and hand it over.  The cut's
 * history is not checked for ser again (at 100,000 transactions that
 * check alone could take longer than the run): `part` is a part of it
 * and unserializable, and its witness cycle is one of the cut's. */
static bool represent_from_cut(window *w, const ip_prediction *p,
                               uint32_t cls, const ip_prediction *part,
                               ip_error *err)
{
    run_state *rs = w->rs;
    if (guard_left(rs->g) < 2 * REP_SECONDS_PER_TXN * w->end)
        return true;                      /* keeps what it has, or none */
    ip_prediction c;
    confirm_outcome o = confirm_on_cut(w, p, true, &c, err);
    bool ok, oom = false;
    if (o == CONFIRM_OK && moved_witness(w, part, &c, &oom)) {
        c.base = w->cut.cut;              /* borrowed for the sink */
        c.seconds = part->seconds;
        ok = ip_triage_represent(rs->opts->triage, cls, rs->obs, &c, part,
                                 err);
        c.base = NULL;
    } else if (oom) {
        ok = ip_oom(err, "prediction: out of memory");
    } else {
        ok = disagree(w, o == CONFIRM_OK ? CONFIRM_BUG : o, err);
    }
    ip_prediction_clear(&c);
    return ok;
}

/* Triage on the cut: every candidate confirmed and classified there. */
static accept_result classify_on_cut(window *w, const ip_prediction *p,
                                     ip_error *err)
{
    ip_prediction q;
    confirm_outcome o = confirm_on_cut(w, p, false, &q, err);
    accept_result r = o == CONFIRM_OK ? ACCEPT_KEPT
                    : o == CONFIRM_ERROR ? ACCEPT_ERROR : ACCEPT_REJECTED;
    if (o == CONFIRM_OK) {
        q.base = w->cut.cut;              /* borrowed for the classifying */
        r = run_classify(w->rs, &q, w->cut.cut_txn, err);
        q.base = NULL;
    }
    ip_prediction_clear(&q);
    return r;
}

static confirm_outcome confirm_part(void *ctx, const ip_prediction *a,
                                    ip_prediction *q, ip_error *err)
{
    return confirm_locally(ctx, a, q, err);
}

/* The cut transactions a local prediction stands for. */
static uint32_t part_size(void *ctx, const ip_prediction *q)
{
    window *w = ctx;
    window_view v = view_of(w);
    return local_cut_txns(&w->loc, &v, q->history->n_txns - 1);
}

/* Class cls wants a representative of the size local prediction q (of
 * window prediction p) stands for: made from the smallest part found
 * from them. */
static bool represent(window *w, const ip_prediction *p, ip_prediction *q,
                      uint32_t cls, ip_error *err)
{
    smallest_ctx c = {.tr = w->sub, .tg = w->rs->opts->triage, .cls = cls,
                      .confirm = confirm_part, .size = part_size,
                      .q_base = w->loc.tr, .ctx = w};
    ip_prediction pm, qm;
    int s = smallest_part(&c, p, q, &pm, &qm, err);
    if (s <= 0)
        return s == 0 && represent_from_cut(w, p, cls, q, err);
    qm.base = w->loc.tr;
    bool ok = represent_from_cut(w, &pm, cls, &qm, err);
    qm.base = NULL;
    ip_prediction_clear(&pm);
    ip_prediction_clear(&qm);
    return ok;
}

/* Triage: confirmed and classified on the local trace, the cut only for
 * a representative (or when the local trace cannot say). */
static accept_result classify_locally(window *w, const ip_prediction *p,
                                      ip_error *err)
{
    run_state *rs = w->rs;
    ip_prediction q;
    ip_error why = {0};
    confirm_outcome o = confirm_locally(w, p, &q, &why);
    if (o != CONFIRM_OK) {
        ip_prediction_clear(&q);
        if (o == CONFIRM_ERROR)
            return *err = why, ACCEPT_ERROR;
        return classify_on_cut(w, p, err);    /* context too small */
    }
    accept_result r = ACCEPT_KEPT;
    if (rs->opts->cross_check) {
        ip_prediction c;
        confirm_outcome oc = confirm_on_cut(w, p, false, &c, err);
        if (oc != CONFIRM_OK && !disagree(w, oc, err))
            r = ACCEPT_ERROR;
        ip_prediction_clear(&c);
    }
    window_view v = view_of(w);
    uint32_t cls;
    bool want = false;
    q.base = w->loc.tr;                   /* borrowed for the classifying */
    if (r != ACCEPT_ERROR)
        r = run_classify_part(rs, &q, w->loc.txn,
                              local_cut_txns(&w->loc, &v,
                                             q.history->n_txns - 1),
                              &cls, &want, err);
    if (r != ACCEPT_ERROR && want && !represent(w, p, &q, cls, err))
        r = ACCEPT_ERROR;
    q.base = NULL;
    ip_prediction_clear(&q);
    return r;
}

/* accept for a window: the candidate confirmed on the window's own trace
 * must be confirmed again for the observed trace. */
static accept_result window_accept(void *ctx, ip_prediction *p)
{
    window *w = ctx;
    run_state *rs = w->rs;
    ip_error err = {0};
    accept_result r;
    if (rs->opts->triage) {
        r = classify_locally(w, p, &err);
    } else {
        ip_prediction q;
        confirm_outcome o = confirm_on_cut(w, p, false, &q, &err);
        if (o == CONFIRM_OK) {
            r = keep_lifted(w, &q, &err);
        } else {
            /* not a prediction of the observed program after all (the
             * folded state hid a constraint): the window goes on */
            r = o == CONFIRM_ERROR ? ACCEPT_ERROR : ACCEPT_REJECTED;
            ip_prediction_clear(&q);
        }
    }
    if (r == ACCEPT_ERROR) {
        pthread_mutex_lock(&rs->lock);
        if (rs->failure == IP_PREDICT_NONE) {
            rs->failure = IP_PREDICT_ERROR;
            *rs->err = err;
        }
        pthread_mutex_unlock(&rs->lock);
    }
    ip_prediction_clear(p);
    return r;
}

/* ---- covers shared between windows (covered.h) ------------------------ */

/* problem.share: publish a new instance's cover over observed ids. */
static bool share_cover(void *ctx, const ip_fact *f, uint32_t n,
                        ip_error *err)
{
    window *w = ctx;
    window_view v = view_of(w);
    covered_fact *o = malloc(((size_t)n + 1) * sizeof *o);
    if (!o)
        return ip_oom(err, "prediction: out of memory");
    bool stated = true;
    for (uint32_t i = 0; i < n && stated; i++) {
        uint32_t r = observed_event(w->rs, w->sub, w->sub_txn, f[i].a);
        uint32_t x = f[i].kind == IP_FACT_READS && r != IP_NONE
                         ? local_observed_writer(&v, r, f[i].b) : IP_NONE;
        o[i] = (covered_fact){.read = r, .writer = x};
        stated = x != IP_NONE;
    }
    bool ok = !stated || covered_add(w->shared, w->index, o, n) ||
              ip_oom(err, "prediction: out of memory");
    free(o);
    return ok;
}

/* Fact f over observed ids as a READS fact of the window's trace; false
 * when the window does not hold it. */
static bool window_fact(const window *w, const covered_fact *f, ip_fact *out)
{
    const ip_trace *obs = w->rs->obs, *sub = w->sub;
    uint32_t op = obs->events[f->read].op;
    if (op == IP_NONE)
        return false;
    window_view v = view_of(w);
    uint32_t ox = obs->ops[op].txn, x = local_sub_txn(&v, ox);
    if (x == IP_NONE || x == IP_INIT_TXN)
        return false;
    uint32_t b = local_window_writer(&v, f->read, f->writer);
    if (b == IP_NONE)
        return false;
    uint32_t e = w->ev_of_op[sub->txns[x].op_first +
                             (op - obs->txns[ox].op_first)];
    *out = (ip_fact){.kind = IP_FACT_READS, .a = e, .b = b};
    return e != IP_NONE;
}

static bool make_ev_of_op(window *w)
{
    const ip_trace *t = w->sub;
    w->ev_of_op = malloc(((size_t)t->n_ops + 1) * sizeof *w->ev_of_op);
    if (!w->ev_of_op)
        return false;
    for (uint32_t o = 0; o < t->n_ops; o++)
        w->ev_of_op[o] = IP_NONE;
    for (uint32_t e = 0; e < t->n_events; e++)
        if (t->events[e].op != IP_NONE)
            w->ev_of_op[t->events[e].op] = e;
    return true;
}

/* problem.learn: forbid the covers other windows published since the last
 * call, those whose facts all hold in this window's formula. */
static bool learn_covers(void *ctx, ip_encoder *enc, bool fresh,
                         ip_error *err)
{
    window *w = ctx;
    if (fresh)
        w->shared_at = (covered_cursor){{0}};
    covered_fact *f;
    uint32_t *start, n;
    if ((!w->ev_of_op && !make_ev_of_op(w)) ||
        !covered_since(w->shared, w->index, &w->shared_at, &f, &start,
                       &n))
        return ip_oom(err, "prediction: out of memory");
    ip_fact *g = NULL;
    bool ok = true;
    if (n > 0 && !(g = malloc((size_t)start[n] * sizeof *g)))
        ok = ip_oom(err, "prediction: out of memory");
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t k = 0, m = start[i + 1] - start[i];
        while (k < m && window_fact(w, &f[start[i] + k], &g[k]) &&
               ip_encoder_can_state(enc, &g[k]))
            k++;
        if (k == m) {
            ok = ip_encoder_forbid(enc, g, m, err);
            w->n_learned++;
        }
    }
    free(g);
    free(f);
    free(start);
    return ok;
}

static bool window_open(window *w, ip_error *err)
{
    const run_state *rs = w->rs;
    uint8_t *keep = calloc(rs->obs->n_txns + 1, 1);
    if (!keep)
        return ip_oom(err, "prediction: out of memory");
    for (uint32_t i = w->first; i < w->end; i++)
        keep[rs->order[i - 1]] = 1;
    w->sub = ip_trace_slice_with(rs->obs, keep, IP_SLICE_NO_TRACE_EXTRA,
                                 &w->sub_txn, err);
    free(keep);
    if (!w->sub)
        return false;
    w->sub_pos = malloc(sizeof *w->sub_pos * (w->sub->n_txns + 1));
    if (!w->sub_pos)
        return ip_oom(err, "prediction: out of memory");
    for (uint32_t x = 0; x < w->sub->n_txns; x++)
        w->sub_pos[x] = rs->pos[w->sub_txn[x]];
    return true;
}

static void window_close(window *w)
{
    lifted_free(&w->cut);
    local_free(&w->loc);
    ip_trace_free(w->sub);
    free(w->sub_txn);
    free(w->sub_pos);
    free(w->ev_of_op);
}

/* ---- a round: the windows of this shard, on worker threads ---------------- */

typedef struct round_state {
    run_state *rs;
    covered *shared;          /* triage: the instances found this round */
    learned **memo;           /* triage's passes: per window, what its
                                 earlier passes learned (learned.h) */
    uint32_t size, stride, count, staleness, changes;
    double window_seconds;    /* triage: a window's share of the pass */
    unsigned jobs;            /* threads of this pass */
    uint32_t *todo, n_todo;   /* the windows of this pass */
    atomic_uint next;         /* next index into todo */
    uint32_t *again, n_again; /* gave up in this pass, under rs->lock */
    double done_seconds;      /* windows searched to the end this round, */
    uint32_t done_count;      /* how long they took (under rs->lock) */
    bool retrying;            /* a pass over windows that gave up */
    ip_search_round *out;     /* done / gave_up, under rs->lock */
    double last_line;         /* progress: when, and how far it said */
    uint32_t last_done, last_gave_up;
} round_state;

static bool mine(const run_state *rs, uint32_t j)
{
    const ip_predict_opts *o = rs->opts;
    return o->shards < 2 || j % o->shards == o->shard;
}

/* One progress line: live (rewritten in place) on a terminal, at most
 * five a second; plain lines at most one a second, the final one only
 * when it says something new. */
static void round_progress(round_state *rd, bool final)
{
    const run_state *rs = rd->rs;
    FILE *f = rs->opts->progress;
    bool live = rs->opts->progress_live;
    double now = ip_now();
    bool same = rd->out->done == rd->last_done &&
                rd->out->gave_up == rd->last_gave_up;
    if (!f || (!final && now - rd->last_line < (live ? 0.2 : 1.0)) ||
        (final && !live && same && rd->last_line))
        return;
    rd->last_line = now;
    rd->last_done = rd->out->done;
    rd->last_gave_up = rd->out->gave_up;
    char found[80], changes[32] = "", short_of[48] = "";
    run_found_words(rs, found, sizeof found);
    if (rd->changes)
        snprintf(changes, sizeof changes, ", changes %u", rd->changes);
    if (rd->out->gave_up)
        snprintf(short_of, sizeof short_of, " (%u ran out of time)",
                 rd->out->gave_up);
    fprintf(f, "%sisopredict: [%7.2fs] window %u, staleness %u%s: %u/%u "
            "windows searched%s, %s%s", live ? "\r" : "",
            now - rs->start, rd->size, rd->staleness, changes,
            rd->out->done, rd->out->windows, short_of, found,
            live ? "\033[K" : "\n");
    if (final && live)
        fputc('\n', f);
    fflush(f);
}

/* Whether a window starts lazy.  Adaptive windows (solve.c) learn from
 * each other too: once at least four have turned eager and four times as
 * many turned as stayed lazy, the trace is of the kind where lazy loses
 * (TPC-C: every window turns), and the rest start eager rather than pay
 * the first calls of a lazy search each. */
static bool starts_lazy(run_state *rs, const learned *memo)
{
    if (!rs->lazy_windows || learned_eager(memo))
        return false;
    if (!rs->adapt_windows)
        return true;
    pthread_mutex_lock(&rs->lock);
    bool lazy = rs->windows_turned < 4 ||
                rs->windows_turned < 4 * (uint64_t)rs->windows_kept;
    pthread_mutex_unlock(&rs->lock);
    return lazy;
}

/* The mean time of the windows searched to the end so far this round, 0
 * while none is. */
static double mean_done(const round_state *rd)
{
    run_state *rs = rd->rs;
    pthread_mutex_lock(&rs->lock);
    double mean = rd->done_count ? rd->done_seconds / rd->done_count : 0;
    pthread_mutex_unlock(&rs->lock);
    return mean;
}

/* A window is not stopped before it has had this many times the mean of
 * those searched to the end.  Stopping one loses what it spent (its
 * formula and the solver's learning; a later pass, if there is time,
 * resumes from what it learned), which pays only against windows far
 * above the mean: on tpcc 10x100 rc, whose windows take 0.34 s on
 * average and 0.76 at most, a 10 s limit stopped 8-10 of them at about
 * twice their 0.3 s share, and 3.5 of the run's 20 thread-seconds went to
 * windows that gave up (bench/predict/RESULTS.md). */
#define RUN_ON_MEANS 4.0

/* The time of the i-th window of a pass: its share, or more when the
 * windows before it left time over (finished early), spread over it,
 * those after it and those still running - so that a pass whose windows
 * fit the time as a whole does not stop the ones above the mean and
 * resume them later, which costs a new formula and the solver's own
 * learning each time - and at least RUN_ON_MEANS times the mean. */
static double window_time(const round_state *rd, uint32_t i)
{
    if (rd->window_seconds <= 0)
        return 0;
    uint32_t waiting = rd->n_todo - i + rd->jobs - 1;
    double t = 0.9 * guard_left(rd->rs->g) * rd->jobs / waiting;
    double least = RUN_ON_MEANS * mean_done(rd);
    if (least < rd->window_seconds)
        least = rd->window_seconds;
    return t > least ? t : least;
}

/* more_time of a triage window at the end of its time: what the run can
 * spare - the thread-seconds left, less what the windows not yet started
 * in this pass will need at the mean of those searched to the end so far
 * (the window's share while none is) - spread over the threads.  So a
 * window above the mean runs on, where it would otherwise stop and, in a
 * later pass, build its formula again (if its own limit cut a solver
 * call, it builds it again now: solve.c, LOOP_FRESH).  When the rest
 * would not fit, it still gets its own time once more (within the time
 * left): a window that gives up loses what it spent but what it learned,
 * so near the limit each one that gave up left the next ones less, and
 * whole rounds collapsed - tpcc causal at --timeout 10 searched 37, 0
 * and 0 of its 59 windows in three runs, and 45, 24 and 26 with this
 * second chance (bench/predict/RESULTS.md). */
static double window_more_time(void *ctx)
{
    window *w = ctx;
    const round_state *rd = w->rd;
    run_state *rs = w->rs;
    uint32_t next = atomic_load(&rd->next);
    uint32_t waiting = next < rd->n_todo ? rd->n_todo - next : 0;
    double mean = mean_done(rd);
    if (mean <= 0)
        mean = rd->window_seconds;
    double spare = 0.9 * guard_left(rs->g) * rd->jobs - waiting * mean;
    if (spare > 0)
        return spare / rd->jobs;
    if (w->ran_on || w->seconds >= guard_left(rs->g))
        return 0;
    w->ran_on = true;
    return w->seconds;
}

static void solve_window(round_state *rd, uint32_t j, double seconds)
{
    run_state *rs = rd->rs;
    window w = {.rs = rs, .rd = rd, .index = j, .first = 1 + j * rd->stride,
                .shared = rd->shared};
    double began = ip_now();
    w.end = w.first + rd->size > rs->n_order + 1 ? rs->n_order + 1
                                                  : w.first + rd->size;
    ip_error err = {0};
    ip_predict_stats st = {0};
    ip_predict_result r = IP_PREDICT_ERROR;
    bool pb_lazy = false;     /* the window started lazy */
    if (window_open(&w, &err)) {
        problem pb = {.tr = w.sub, .g = rs->g,
                      .start = rs->start, .accept = window_accept, .ctx = &w,
                      .cover = rs->opts->triage != NULL, .stats = &st,
                      .err = &err};
        if (rd->shared) {
            pb.share = share_cover;
            pb.learn = learn_covers;
        }
        if (rd->memo && !rd->memo[j] && !(rd->memo[j] = learned_new()))
            ip_oom(&err, "prediction: out of memory");
        else if (rd->memo)
            pb.memo = rd->memo[j];
        pb.eo = (ip_encode_opts){.model = rs->opts->model,
                                 .boundary = rs->opts->boundary,
                                 .encoding = rs->opts->encoding,
                                 .staleness = rd->staleness,
                                 .max_changes = rd->changes,
                                 .order_pos = w.sub_pos,
                                 .lazy_weak = starts_lazy(rs, pb.memo)};
        pb.adapt_weak = rs->adapt_windows;
        pb_lazy = pb.eo.lazy_weak && pb.adapt_weak;
        if (seconds > 0) {
            w.seconds = seconds;
            pb.deadline = ip_now() + seconds;
            pb.more_time = window_more_time;
        }
        if (!rd->memo || pb.memo)
            r = solve_problem(&pb);
    }
    window_close(&w);
    if (rd->memo && r != IP_PREDICT_UNKNOWN) {
        learned_free(rd->memo[j]);       /* searched: no later pass */
        rd->memo[j] = NULL;
    }
    pthread_mutex_lock(&rs->lock);
    stats_add(rs->stats, &st);
    if (pb_lazy && st.eager_switches)
        rs->windows_turned++;
    else if (pb_lazy && (r == IP_PREDICT_NONE || r == IP_PREDICT_FOUND ||
                         st.solver_calls >= ADAPT_CALLS))
        rs->windows_kept++;   /* it could have turned, and did not */
    rs->stats->confirmed_locally += w.n_local;
    rs->stats->confirmed_on_cut += w.n_cut;
    rs->stats->witnesses_moved += w.n_moved;
    rs->stats->covers_learned += w.n_learned;
    if (st.encode.literals > rs->stats->encode.literals)
        rs->stats->encode = st.encode;
    bool gave_up = r == IP_PREDICT_UNKNOWN && !guard_stopped(rs->g);
    if (r == IP_PREDICT_NONE || r == IP_PREDICT_FOUND) {
        rd->done_seconds += ip_now() - began;
        rd->done_count++;
        rd->out->done++;
        rd->out->gave_up -= rd->retrying;
    } else if (gave_up) {
        rd->out->gave_up += !rd->retrying;
        rd->again[rd->n_again++] = j;
    } else if ((r == IP_PREDICT_ERROR || r == IP_PREDICT_UNCONFIRMED) &&
             rs->failure == IP_PREDICT_NONE) {
        rs->failure = r;
        *rs->err = err;
    }
    round_progress(rd, false);
    pthread_mutex_unlock(&rs->lock);
    if (r == IP_PREDICT_ERROR || r == IP_PREDICT_UNCONFIRMED)
        guard_done(rs->g);
}

static void *worker(void *arg)
{
    round_state *rd = arg;
    for (;;) {
        uint32_t i = atomic_fetch_add(&rd->next, 1);
        if (i >= rd->n_todo || guard_stopped(rd->rs->g))
            break;
        solve_window(rd, rd->todo[i], window_time(rd, i));
    }
    return NULL;
}

static unsigned job_count(const ip_predict_opts *o)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned n = o->jobs ? o->jobs : cores > 0 ? (unsigned)cores : 1;
    return n > IP_MAX_JOBS ? IP_MAX_JOBS : n;
}

/* Triage's time share of a window: the time left spread over the
 * windows of the round (a window that needs more gives up, so that
 * every part of the run is looked at), at least a quarter second; 0 (no
 * share) without a time limit. */
enum { MIN_SHARE_MS = 250 };
static double fair_share(const run_state *rs, uint32_t windows, unsigned jobs)
{
    if (!rs->opts->timeout_ms || !windows)
        return 0;
    if (jobs > windows)
        jobs = windows;
    double share = 0.9 * guard_left(rs->g) * jobs / windows;
    return share < MIN_SHARE_MS / 1000.0 ? MIN_SHARE_MS / 1000.0 : share;
}

/* One pass over rd->todo on `jobs` threads (the caller's among them). */
static void run_pass(round_state *rd, unsigned jobs)
{
    atomic_store(&rd->next, 0);
    rd->n_again = 0;
    if (jobs > rd->n_todo)
        jobs = rd->n_todo ? rd->n_todo : 1;
    rd->jobs = jobs;
    pthread_t th[IP_MAX_JOBS];
    unsigned started = 0;
    for (unsigned i = 1; i < jobs; i++)
        started += pthread_create(&th[started], NULL, worker, rd) == 0;
    worker(rd);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

/* Triage: after a pass, the windows that gave up get the time left,
 * shared among them, as long as that is more than they had: a run with
 * a limit spends all of it on the windows not yet searched to the end
 * (the first pass leaves time over when most windows finish early). */
static bool another_pass(round_state *rd, unsigned jobs)
{
    const run_state *rs = rd->rs;
    if (!rd->n_again || guard_stopped(rs->g) ||
        rs->failure != IP_PREDICT_NONE)
        return false;
    double share = fair_share(rs, rd->n_again, jobs);
    /* a window resumes where it gave up (learned.h): any share moves it
     * on; without that only a longer one could */
    if (share <= 0 || (!rd->memo && share < 1.5 * rd->window_seconds))
        return false;
    uint32_t *t = rd->todo;
    rd->todo = rd->again;
    rd->n_todo = rd->n_again;
    rd->again = t;
    rd->window_seconds = share;
    rd->retrying = true;
    return true;
}

ip_predict_result run_round(run_state *rs, const ip_search_round *b,
                            double window_seconds, ip_search_round *out)
{
    uint32_t size = b->window;
    round_state rd = {.rs = rs, .staleness = b->staleness,
                      .changes = b->changes,
                      .window_seconds = window_seconds, .out = out};
    rd.size = size == 0 || size > rs->n_order ? rs->n_order : size;
    rd.stride = rd.size / 2 ? rd.size / 2 : 1;
    rd.count = rd.size >= rs->n_order
                   ? 1 : (rs->n_order - rd.size + rd.stride - 1) / rd.stride + 1;
    memset(out, 0, sizeof *out);
    out->window = size == 0 || size >= rs->n_order ? 0 : rd.size;
    out->staleness = b->staleness;
    out->changes = b->changes;
    rd.todo = malloc(sizeof *rd.todo * rd.count);
    rd.again = malloc(sizeof *rd.again * rd.count);
    bool share = rs->opts->triage && rd.count > 1 &&
                 !rs->opts->unshared_covers;
    if (share)
        rd.shared = covered_new(rd.count, (rd.size - 1) / rd.stride);
    bool memo = window_seconds < 0;      /* passes: windows resume */
    if (memo)
        rd.memo = calloc(rd.count, sizeof *rd.memo);
    if (!rd.todo || !rd.again || (share && !rd.shared) ||
        (memo && !rd.memo)) {
        free(rd.todo);
        free(rd.again);
        free(rd.memo);
        covered_free(rd.shared);
        ip_oom(rs->err, "prediction: out of memory");
        return IP_PREDICT_ERROR;
    }
    for (uint32_t j = 0; j < rd.count; j++)
        if (mine(rs, j))
            rd.todo[rd.n_todo++] = j;
    out->windows = rd.n_todo;
    unsigned jobs = job_count(rs->opts);
    if (window_seconds < 0)
        rd.window_seconds = fair_share(rs, out->windows, jobs);
    run_pass(&rd, jobs);
    while (window_seconds < 0 && another_pass(&rd, jobs))
        run_pass(&rd, jobs);
    free(rd.todo);
    free(rd.again);
    covered_free(rd.shared);
    for (uint32_t j = 0; rd.memo && j < rd.count; j++)
        learned_free(rd.memo[j]);
    free(rd.memo);
    pthread_mutex_lock(&rs->lock);
    round_progress(&rd, true);
    ip_predict_result f = rs->failure;
    pthread_mutex_unlock(&rs->lock);
    if (f != IP_PREDICT_NONE)
        return f;
    if (rs->n_kept >= rs->want)
        return IP_PREDICT_FOUND;
    return guard_stopped(rs->g) ? IP_PREDICT_UNKNOWN : IP_PREDICT_NONE;
}
