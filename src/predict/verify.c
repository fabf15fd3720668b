/*
 * verify.c - is a prediction file a legal prediction of the observed run,
 * valid under its model and unserializable?  (predict.h, "verify")
 *
 * Only the file and the observed trace are used, never the formula: the
 * witness gives an assignment over the observed run (cut after the window
 * for a bounded search), the legality check decides the boundary rules and
 * what the history keeps, and that history must be the file's, op for op.
 * Then the exact checkers judge it.  Linear in the trace except for the
 * name lookups (sorting the names once) and the checkers.
 */
#include "predict.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------ */

typedef struct name_ix {
    const char *name;
    uint32_t id;
} name_ix;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const name_ix *)a)->name, ((const name_ix *)b)->name);
}

/* Transactions (txn 0 included) and sessions of a trace by name. */
typedef struct names {
    name_ix *txn, *sess;
    uint32_t n_txn, n_sess;
} names;

static bool names_build(const ip_trace *t, names *n)
{
    n->n_txn = t->n_txns;
    n->n_sess = t->n_sessions;
    n->txn = malloc(((size_t)t->n_txns + 1) * sizeof *n->txn);
    n->sess = malloc(((size_t)t->n_sessions + 1) * sizeof *n->sess);
    if (!n->txn || !n->sess)
        return false;
    for (uint32_t x = 0; x < t->n_txns; x++)
        n->txn[x] = (name_ix){ip_txn_name(t, x), x};
    for (uint32_t s = 0; s < t->n_sessions; s++)
        n->sess[s] = (name_ix){ip_session_name(t, s), s};
    qsort(n->txn, n->n_txn, sizeof *n->txn, cmp_name);
    qsort(n->sess, n->n_sess, sizeof *n->sess, cmp_name);
    return true;
}

static void names_free(names *n)
{
    free(n->txn);
    free(n->sess);
}

static uint32_t find(const name_ix *ix, uint32_t n, const char *name)
{
    if (!name)
        return IP_NONE;
    name_ix key = {name, 0};
    const name_ix *hit = bsearch(&key, ix, n, sizeof *ix, cmp_name);
    return hit ? hit->id : IP_NONE;
}

/* ---- the verification ------------------------------------------------- */

typedef struct verifier {
    const ip_trace *obs, *pred;
    const cJSON *info, *witness;
    ip_level model;
    ip_boundary kind;
    const ip_trace *base;     /* obs, or the cut run (owned in cut) */
    ip_trace *cut;
    names nb;                 /* of base */
    ip_assignment a;
    ip_legality legal;
    ip_trace *expected;       /* the history the witness gives */
    ip_history_map map;
    ip_error *why;
} verifier;

/* A broken rule: the message, IP_VERIFY_ILLEGAL. */
static ip_verify_result illegal(verifier *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ip_verify_result illegal(verifier *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why->msg, sizeof v->why->msg, fmt, ap);
    va_end(ap);
    v->why->oom = false;
    return IP_VERIFY_ILLEGAL;
}

static ip_verify_result oom(verifier *v)
{
    ip_oom(v->why, "verify: out of memory");
    return IP_VERIFY_ERROR;
}

static const char *str_of(const cJSON *o, const char *name)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));
}

/* A non-negative integer member, or -1. */
static double num_of(const cJSON *o, const char *name)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(n) || n->valuedouble < 0 ||
        n->valuedouble != (double)(uint32_t)n->valuedouble)
        return -1;
    return n->valuedouble;
}

static ip_verify_result read_header(verifier *v)
{
    const char *m = str_of(v->info, "model"), *b = str_of(v->info, "boundary");
    if (!m || !ip_level_parse(m, &v->model) ||
        (v->model != IP_LVL_RC && v->model != IP_LVL_RA &&
         v->model != IP_LVL_CAUSAL && v->model != IP_LVL_SI))
        return ip_fail(v->why, "prediction.model: missing or not one of rc, "
                       "ra, causal, si"), IP_VERIFY_ERROR;
    if (!b || !ip_boundary_parse(b, &v->kind))
        return ip_fail(v->why, "prediction.boundary: missing or not strict "
                       "or relaxed"), IP_VERIFY_ERROR;
    v->witness = cJSON_GetObjectItemCaseSensitive(v->info, "witness");
    if (!cJSON_IsObject(v->witness))
        return ip_fail(v->why, "prediction.witness: missing (the file was "
                       "written by an isopredict without witnesses: predict "
                       "again)"), IP_VERIFY_ERROR;
    return IP_VERIFY_LEGAL;
}

/* The observed run cut after the window: per session, its first
 * "transactions" committed transactions.  The cut must be a run: every
 * read's writer in it. */
static ip_verify_result make_cut(verifier *v, const cJSON *cut)
{
    const ip_trace *obs = v->obs;
    names no = {0};
    uint8_t *keep = calloc((size_t)obs->n_txns + 1, 1);
    if (!keep || !names_build(obs, &no)) {
        free(keep);
        names_free(&no);
        return oom(v);
    }
    ip_verify_result r = IP_VERIFY_LEGAL;
    const cJSON *c;
    cJSON_ArrayForEach(c, cut) {
        const char *sn = str_of(c, "session");
        double n = num_of(c, "transactions");
        uint32_t s = find(no.sess, no.n_sess, sn);
        if (!sn || n < 0) {
            r = IP_VERIFY_ERROR;
            ip_fail(v->why, "prediction.witness.cut: each entry needs "
                    "\"session\" and \"transactions\"");
            break;
        }
        if (s == IP_NONE) {
            r = illegal(v, "the cut names session '%s', which the observed "
                        "run does not have", sn);
            break;
        }
        const ip_session *se = &obs->sessions[s];
        uint32_t left = (uint32_t)n;
        for (uint32_t t = se->txn_first;
             left && t < se->txn_first + se->txn_count; t++)
            if (ip_committed(obs, t)) {
                keep[t] = 1;
                left--;
            }
        if (left) {
            r = illegal(v, "the cut keeps %u transactions of session '%s', "
                        "which commits fewer", (uint32_t)n, sn);
            break;
        }
    }
    names_free(&no);
    for (uint32_t e = 0; r == IP_VERIFY_LEGAL && e < obs->n_events; e++) {
        const ip_event *ev = &obs->events[e];
        if (ev->kind == IP_READ && keep[ev->txn] && ev->writer != IP_NONE &&
            ev->writer != IP_INIT_TXN && !keep[ev->writer])
            r = illegal(v, "the cut is not a run: '%s' is in it and reads "
                        "from '%s', which is not", ip_txn_name(obs, ev->txn),
                        ip_txn_name(obs, ev->writer));
    }
    if (r == IP_VERIFY_LEGAL) {
        ip_error err = {0};
        v->cut = ip_trace_slice(obs, keep, NULL, &err);
        if (!v->cut) {
            *v->why = err;
            r = err.oom ? IP_VERIFY_ERROR : illegal(v, "cut: %s", err.msg);
        }
    }
    free(keep);
    return r;
}

/* The read event of op `op` (index in the txn) of base txn t, or IP_NONE. */
static uint32_t read_event(const ip_trace *t, uint32_t x, double op)
{
    if (op < 0 || op >= t->txns[x].op_count)
        return IP_NONE;
    uint32_t o = t->txns[x].op_first + (uint32_t)op;
    const ip_txn *tx = &t->txns[x];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
        if (t->events[e].op == o)
            return t->events[e].kind == IP_READ ? e : IP_NONE;
    return IP_NONE;
}

static ip_verify_result read_boundaries(verifier *v)
{
    const ip_trace *b = v->base;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(v->info, "boundaries");
    if (!cJSON_IsArray(arr))
        return ip_fail(v->why, "prediction.boundaries: missing"),
               IP_VERIFY_ERROR;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        const char *sn = str_of(o, "session"), *k = str_of(o, "kind");
        if (!sn || !k)
            return ip_fail(v->why, "prediction.boundaries: each entry needs "
                           "\"session\" and \"kind\""), IP_VERIFY_ERROR;
        uint32_t s = find(v->nb.sess, v->nb.n_sess, sn);
        if (s == IP_NONE)
            return illegal(v, "a boundary names session '%s', which the "
                           "observed run does not have", sn);
        if (!strcmp(k, "end"))
            continue;
        const char *tn = str_of(o, "transaction");
        uint32_t x = find(v->nb.txn, v->nb.n_txn, tn);
        if (x == IP_NONE || x == IP_INIT_TXN || b->txns[x].session != s)
            return illegal(v, "the boundary of session '%s' names '%s', "
                           "which is not a transaction of that session", sn,
                           tn ? tn : "(none)");
        if (v->kind == IP_BOUNDARY_RELAXED) {
            v->a.boundary[s] = x;
            continue;
        }
        uint32_t e = read_event(b, x, num_of(o, "observed_op"));
        if (e == IP_NONE)
            return illegal(v, "the boundary of session '%s' is not a read of "
                           "'%s' (observed_op)", sn, tn);
        v->a.boundary[s] = e;
    }
    return IP_VERIFY_LEGAL;
}

/* Observed writers, then the witness's other choices. */
static ip_verify_result read_writers(verifier *v)
{
    const ip_trace *b = v->base;
    for (uint32_t e = 0; e < b->n_events; e++)
        v->a.writer[e] = b->events[e].kind == IP_READ ? b->events[e].writer
                                                      : IP_NONE;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(v->witness, "reads");
    if (!cJSON_IsArray(arr))
        return ip_fail(v->why, "prediction.witness.reads: missing"),
               IP_VERIFY_ERROR;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        const char *tn = str_of(o, "transaction"), *wn = str_of(o, "writer");
        if (!tn || !wn || num_of(o, "op") < 0)
            return ip_fail(v->why, "prediction.witness.reads: each entry "
                           "needs \"transaction\", \"op\" and \"writer\""),
                   IP_VERIFY_ERROR;
        uint32_t x = find(v->nb.txn, v->nb.n_txn, tn);
        uint32_t w = find(v->nb.txn, v->nb.n_txn, wn);
        uint32_t e = x == IP_NONE || x == IP_INIT_TXN
                         ? IP_NONE : read_event(b, x, num_of(o, "op"));
        if (e == IP_NONE)
            return illegal(v, "the witness gives a writer to op %g of '%s', "
                           "which is not a read of the observed run",
                           num_of(o, "op"), tn);
        if (w == IP_NONE)
            return illegal(v, "the witness names writer '%s', which the "
                           "observed run does not have", wn);
        v->a.writer[e] = w;
    }
    return IP_VERIFY_LEGAL;
}

/* The file's "dropped" list: exactly the dropped transactions, each
 * "after" a boundary transaction or a dropped one by a real step. */
static ip_verify_result check_dropped(verifier *v)
{
    const ip_trace *b = v->base;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(v->witness, "dropped");
    if (!cJSON_IsArray(arr))
        return ip_fail(v->why, "prediction.witness.dropped: missing"),
               IP_VERIFY_ERROR;
    uint32_t listed = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        const char *tn = str_of(o, "transaction"), *an = str_of(o, "after"),
                   *by = str_of(o, "by");
        uint32_t x = find(v->nb.txn, v->nb.n_txn, tn);
        uint32_t u = find(v->nb.txn, v->nb.n_txn, an);
        if (!tn || !an || !by)
            return ip_fail(v->why, "prediction.witness.dropped: each entry "
                           "needs \"transaction\", \"after\" and \"by\""),
                   IP_VERIFY_ERROR;
        if (x == IP_NONE || !v->legal.dropped[x])
            return illegal(v, "the witness says '%s' is dropped, but it "
                           "does not happen after a boundary transaction",
                           tn);
        bool from_ok = u != IP_NONE && u != IP_INIT_TXN &&
                       (v->legal.dropped[u] ||
                        v->a.boundary[b->txns[u].session] == u);
        bool step = false;
        if (from_ok && !strcmp(by, "so"))
            step = b->txns[u].session == b->txns[x].session && u < x;
        else if (from_ok && !strcmp(by, "wr")) {
            const ip_txn *tx = &b->txns[x];
            for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count;
                 e++)
                step |= b->events[e].kind == IP_READ && v->a.writer[e] == u;
        }
        if (!step)
            return illegal(v, "the witness drops '%s' after '%s' by %s, "
                           "which is not a happens-before step from a "
                           "boundary or dropped transaction", tn, an, by);
        listed++;
    }
    uint32_t n = 0, first = IP_NONE;
    for (uint32_t t = 1; t < b->n_txns; t++)
        if (v->legal.dropped[t]) {
            n++;
            first = first == IP_NONE ? t : first;
        }
    if (listed != n)
        return illegal(v, "the witness lists %u dropped transactions; %u "
                       "happen after a boundary transaction (the first: "
                       "'%s')", listed, n,
                       first == IP_NONE ? "none" : ip_txn_name(b, first));
    return IP_VERIFY_LEGAL;
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Op i of txn x of the expected history against op j of txn y of the
 * file's. */
static bool same_op(const ip_trace *h, uint32_t i, const ip_trace *f,
                    uint32_t j)
{
    const ip_op *p = &h->ops[i], *q = &f->ops[j];
    const char *pw = p->kind == IP_READ && p->from != IP_NONE
                         ? ip_txn_name(h, p->from) : NULL;
    const char *qw = q->kind == IP_READ && q->from != IP_NONE
                         ? ip_txn_name(f, q->from) : NULL;
    return p->kind == q->kind && p->local == q->local &&
           same_str(ip_key_name(h, p->key), ip_key_name(f, q->key)) &&
           same_str(pw, qw) &&
           (p->kind == IP_READ || same_str(ip_str(h, p->value),
                                           ip_str(f, q->value)));
}

/* The file's history is the one the witness gives, session by session,
 * transaction by transaction, op by op. */
static ip_verify_result same_history(verifier *v)
{
    const ip_trace *h = v->expected, *f = v->pred;
    names nf;
    if (!names_build(f, &nf)) {
        names_free(&nf);
        return oom(v);
    }
    ip_verify_result r = IP_VERIFY_LEGAL;
    if (f->n_txns != h->n_txns)
        r = illegal(v, "the history has %u transactions; the witness keeps "
                    "%u", f->n_txns - 1, h->n_txns - 1);
    for (uint32_t s = 0; r == IP_VERIFY_LEGAL && s < h->n_sessions; s++) {
        const ip_session *hs = &h->sessions[s];
        uint32_t fs = find(nf.sess, nf.n_sess, ip_session_name(h, s));
        if (fs == IP_NONE) {
            r = illegal(v, "the history lacks session '%s'",
                        ip_session_name(h, s));
            break;
        }
        const ip_session *se = &f->sessions[fs];
        if (se->txn_count != hs->txn_count) {
            r = illegal(v, "session '%s' keeps %u transactions in the "
                        "history; the witness keeps %u",
                        ip_session_name(h, s), se->txn_count, hs->txn_count);
            break;
        }
        for (uint32_t k = 0; r == IP_VERIFY_LEGAL && k < hs->txn_count; k++) {
            uint32_t x = hs->txn_first + k, y = se->txn_first + k;
            const ip_txn *hx = &h->txns[x], *fy = &f->txns[y];
            if (strcmp(ip_txn_name(h, x), ip_txn_name(f, y)) ||
                !ip_committed(f, y)) {
                r = illegal(v, "the history has '%s' where the witness keeps "
                            "'%s'", ip_txn_name(f, y), ip_txn_name(h, x));
                break;
            }
            bool same = hx->op_count == fy->op_count;
            uint32_t i = 0;
            for (; same && i < hx->op_count; i++)
                same = same_op(h, hx->op_first + i, f, fy->op_first + i);
            if (!same)
                r = illegal(v, "transaction '%s' differs from what the "
                            "witness gives (op %u)", ip_txn_name(h, x),
                            i ? i - 1 : 0);
        }
    }
    names_free(&nf);
    return r;
}

/* Valid under the model, violating ser: the exact checkers. */
static ip_verify_result judge(verifier *v, unsigned timeout_ms)
{
    ip_check_opts co = {.timeout_ms = timeout_ms, .max_cycles = 1};
    ip_verdict vm = {0}, vs = {0};
    ip_error err = {0};
    ip_check_result rm = ip_check(v->expected, v->model, &co, &vm, &err);
    ip_check_result rs = rm == IP_CHECK_OK
        ? ip_check(v->expected, IP_LVL_SER, &co, &vs, &err) : IP_CHECK_OK;
    ip_verify_result r = IP_VERIFY_LEGAL;
    if (rm == IP_CHECK_ERROR || rs == IP_CHECK_ERROR) {
        *v->why = err;
        r = IP_VERIFY_ERROR;
    } else if (rm == IP_CHECK_UNKNOWN || rs == IP_CHECK_UNKNOWN) {
        ip_fail(v->why, "a checker ran out of time");
        r = IP_VERIFY_UNKNOWN;
    } else if (rm == IP_CHECK_VIOLATION) {
        char buf[400] = "";
        if (vm.n_cycles)
            ip_cycle_describe(v->expected, &vm.cycles[0], buf, sizeof buf);
        r = illegal(v, "the history is not valid under %s%s%s",
                    ip_level_name(v->model), *buf ? ": " : "", buf);
    } else if (rs == IP_CHECK_OK) {
        r = illegal(v, "the history is serializable");
    }
    ip_verdict_free(&vm);
    ip_verdict_free(&vs);
    return r;
}

static ip_verify_result run(verifier *v, unsigned timeout_ms)
{
    ip_verify_result r = read_header(v);
    if (r != IP_VERIFY_LEGAL)
        return r;
    const cJSON *cut = cJSON_GetObjectItemCaseSensitive(v->witness, "cut");
    if (cut && !cJSON_IsArray(cut))
        return ip_fail(v->why, "prediction.witness.cut: not an array"),
               IP_VERIFY_ERROR;
    if (cut && (r = make_cut(v, cut)) != IP_VERIFY_LEGAL)
        return r;
    v->base = v->cut ? v->cut : v->obs;
    const ip_trace *b = v->base;
    v->a.boundary = malloc(((size_t)b->n_sessions + 1) * sizeof *v->a.boundary);
    v->a.writer = malloc(((size_t)b->n_events + 1) * sizeof *v->a.writer);
    if (!v->a.boundary || !v->a.writer || !names_build(b, &v->nb))
        return oom(v);
    for (uint32_t s = 0; s < b->n_sessions; s++)
        v->a.boundary[s] = IP_NONE;
    if ((r = read_boundaries(v)) != IP_VERIFY_LEGAL ||
        (r = read_writers(v)) != IP_VERIFY_LEGAL)
        return r;
    ip_error err = {0};
    switch (ip_legality_check(b, &v->a, v->kind, &v->legal, &err)) {
    case IP_LEGAL_OK:
        break;
    case IP_LEGAL_ERROR:
        return oom(v);
    case IP_LEGAL_HB_CYCLE:
    case IP_LEGAL_BROKEN:
    case IP_LEGAL_UNFIT:
        return illegal(v, "%s", err.msg);
    }
    if ((r = check_dropped(v)) != IP_VERIFY_LEGAL)
        return r;
    v->expected = ip_history_from_assignment(b, &v->a, v->kind, &v->map,
                                             &err);
    if (!v->expected)
        return err.oom ? oom(v) : illegal(v, "%s", err.msg);
    if ((r = same_history(v)) != IP_VERIFY_LEGAL)
        return r;
    return judge(v, timeout_ms);
}

ip_verify_result ip_verify_prediction(const ip_trace *obs,
                                      const ip_trace *pred,
                                      unsigned timeout_ms,
                                      ip_verify_info *info, ip_error *why)
{
    memset(info, 0, sizeof *info);
    const char *extra = ip_str(pred, pred->extra);
    cJSON *root = extra ? cJSON_Parse(extra) : NULL;
    const cJSON *pi = cJSON_GetObjectItemCaseSensitive(root, "prediction");
    if (!cJSON_IsObject(pi)) {
        cJSON_Delete(root);
        ip_fail(why, "no \"prediction\" object: not a prediction file (make "
                "one with 'isopredict predict')");
        return IP_VERIFY_ERROR;
    }
    verifier v = {.obs = obs, .pred = pred, .info = pi, .why = why};
    ip_verify_result r = run(&v, timeout_ms);
    info->model = v.model;
    info->boundary = v.kind;
    if (v.expected) {
        info->kept = v.expected->n_txns - 1;
        for (uint32_t t = 1; t < v.base->n_txns; t++)
            info->dropped += v.legal.dropped ? v.legal.dropped[t] : 0;
        for (uint32_t e = 0; e < v.base->n_events; e++) {
            const ip_event *ev = &v.base->events[e];
            info->changed += ev->kind == IP_READ &&
                             v.map.hist_txn[ev->txn] != IP_NONE &&
                             v.map.hist_op[ev->op] != IP_NONE &&
                             v.a.writer[e] != ev->writer;
        }
    }
    ip_history_map_free(&v.map);
    ip_trace_free(v.expected);
    ip_legality_free(&v.legal);
    ip_assignment_free(&v.a);
    names_free(&v.nb);
    ip_trace_free(v.cut);
    cJSON_Delete(root);
    return r;
}
