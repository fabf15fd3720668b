/*
 * plan.c - a predicted history as a replay plan.
 *
 * The trace part is read by the project's JSON reader (leniently: a
 * prediction is judged by the checkers, not here); the "prediction" and
 * "workload" objects, which the trace model does not hold, are read with
 * cJSON from the same text.
 */
#include "store_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct kv_plan {
    ip_trace *trace;
    kv_model model;
    uint32_t n_sessions, max_index;  /* pred[s * max_index + i] */
    uint32_t *pred;                  /* trace txn id or IP_NONE */
    uint32_t *steps;                 /* pairs (session, index) */
    uint32_t *read_first;            /* per trace txn: its non-local reads */
    uint32_t *read_ops;              /* are read_ops[read_first[x] ..]  */
    uint32_t n_steps;
    bool has_workload;
    uint32_t w_sessions, w_txns;
    uint64_t w_seed;
};

static bool plan_fail(kv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool plan_fail(kv_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return false;
}

static char *slurp(const char *path, size_t *len, kv_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        plan_fail(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        plan_fail(err, "%s: cannot read the file", path);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static bool parse_model(const cJSON *pred, const char *path, kv_model *out,
                        kv_error *err)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(pred, "model");
    const char *s = cJSON_GetStringValue(m);
    if (!s)
        return plan_fail(err, "%s: prediction.model: missing or not a string",
                         path);
    if (!strcmp(s, "causal") || !strcmp(s, "cc"))
        *out = KV_MODEL_CAUSAL;
    else if (!strcmp(s, "rc") || !strcmp(s, "read-committed"))
        *out = KV_MODEL_RC;
    else if (!strcmp(s, "ra") || !strcmp(s, "read-atomic"))
        *out = KV_MODEL_RA;
    else if (!strcmp(s, "si") || !strcmp(s, "snapshot-isolation"))
        *out = KV_MODEL_SI;
    else
        return plan_fail(err, "%s: prediction.model: '%s' is not causal, "
                         "rc, ra or si", path, s);
    return true;
}

static bool json_u64(const cJSON *obj, const char *name, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9e15)
        return false;
    *out = (uint64_t)v->valuedouble;
    return true;
}

static void parse_workload(kv_plan *p, const cJSON *root)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "workload");
    uint64_t s, t, seed;
    if (!cJSON_IsObject(w) || !json_u64(w, "sessions", &s) ||
        !json_u64(w, "txns", &t) || !json_u64(w, "seed", &seed) ||
        s > UINT32_MAX || t > UINT32_MAX)
        return;
    p->has_workload = true;
    p->w_sessions = (uint32_t)s;
    p->w_txns = (uint32_t)t;
    p->w_seed = seed;
}

/* Map every predicted transaction to (session, index) by its name. */
static bool map_txns(kv_plan *p, const char *path, kv_error *err)
{
    const ip_trace *t = p->trace;
    uint32_t s, i;
    p->max_index = 1;
    for (uint32_t x = 1; x < t->n_txns; x++) {
        if (!kv_parse_txn_name(ip_txn_name(t, x), &s, &i))
            return plan_fail(err, "%s: transaction '%s' is not named like "
                             "this application's transactions (s<k>.<i>)",
                             path, ip_txn_name(t, x));
        if (s >= p->n_sessions)
            return plan_fail(err, "%s: transaction '%s' belongs to session "
                             "%u, but the workload has %u sessions", path,
                             ip_txn_name(t, x), s + 1, p->n_sessions);
        if (i + 1 > p->max_index)
            p->max_index = i + 1;
    }
    size_t n = (size_t)p->n_sessions * p->max_index;
    p->pred = malloc(n * sizeof *p->pred);
    p->steps = malloc(2 * n * sizeof *p->steps);
    if (!p->pred || !p->steps)
        return plan_fail(err, "%s: out of memory", path);
    memset(p->pred, 0xff, n * sizeof *p->pred);
    p->read_first = malloc(((size_t)t->n_txns + 1) * sizeof *p->read_first);
    p->read_ops = malloc(((size_t)t->n_ops + 1) * sizeof *p->read_ops);
    if (!p->read_first || !p->read_ops)
        return plan_fail(err, "%s: out of memory", path);
    uint32_t r = 0;
    for (uint32_t x = 0; x < t->n_txns; x++) {
        p->read_first[x] = r;
        for (uint32_t o = 0; o < t->txns[x].op_count; o++) {
            const ip_op *op = &t->ops[t->txns[x].op_first + o];
            if (op->kind == IP_READ && !op->local)
                p->read_ops[r++] = t->txns[x].op_first + o;
        }
    }
    p->read_first[t->n_txns] = r;
    for (uint32_t x = 1; x < t->n_txns; x++) {
        kv_parse_txn_name(ip_txn_name(t, x), &s, &i);
        p->pred[(size_t)s * p->max_index + i] = x;
    }
    return true;
}

/* Run session s up to index i (earlier txns first). */
static void run_up_to(kv_plan *p, uint32_t *next, uint32_t s, uint32_t i)
{
    for (; next[s] <= i; next[s]++) {
        p->steps[2 * p->n_steps] = s;
        p->steps[2 * p->n_steps + 1] = next[s];
        p->n_steps++;
    }
}

static bool make_steps(kv_plan *p, const cJSON *pred, const char *path,
                       kv_error *err)
{
    const cJSON *co = cJSON_GetObjectItemCaseSensitive(pred, "commit_order");
    if (!cJSON_IsArray(co))
        return plan_fail(err, "%s: prediction.commit_order: missing or not "
                         "an array", path);
    uint32_t *next = calloc(p->n_sessions, sizeof *next);
    if (!next)
        return plan_fail(err, "%s: out of memory", path);
    const char *init = ip_str(p->trace, p->trace->initial_name);
    uint32_t n = 0, s, i;
    bool ok = true;
    for (const cJSON *e = co->child; ok && e; e = e->next, n++) {
        const char *name = cJSON_GetStringValue(e);
        if (name && !strcmp(name, init))
            continue;
        if (!name || !kv_parse_txn_name(name, &s, &i) ||
            s >= p->n_sessions || i >= p->max_index ||
            p->pred[(size_t)s * p->max_index + i] == IP_NONE)
            ok = plan_fail(err, "%s: prediction.commit_order[%u]: not a "
                           "transaction of the predicted history", path, n);
        else if (i < next[s])
            ok = plan_fail(err, "%s: prediction.commit_order[%u]: '%s' "
                           "comes after a later transaction of its session",
                           path, n, name);
        else
            run_up_to(p, next, s, i);
    }
    /* predicted transactions the order left out (aborted ones) */
    for (s = 0; ok && s < p->n_sessions; s++)
        for (i = p->max_index; i-- > 0;)
            if (p->pred[(size_t)s * p->max_index + i] != IP_NONE) {
                run_up_to(p, next, s, i);
                break;
            }
    free(next);
    return ok;
}

kv_plan *kv_plan_load(const char *path, uint32_t sessions, kv_error *err)
{
    size_t len;
    char *text = slurp(path, &len, err);
    if (!text)
        return NULL;
    kv_plan *p = calloc(1, sizeof *p);
    cJSON *root = cJSON_ParseWithLength(text, len);
    ip_error ierr = {0};
    bool ok = p != NULL;
    if (!ok)
        plan_fail(err, "%s: out of memory", path);
    if (ok && !(p->trace = ip_read_buffer(path, text, len, IP_FMT_JSON,
                                          IP_LENIENT, &ierr)))
        ok = plan_fail(err, "%s", ierr.msg);
    const cJSON *pred = cJSON_GetObjectItemCaseSensitive(root, "prediction");
    if (ok && !cJSON_IsObject(pred))
        ok = plan_fail(err, "%s: prediction: missing (not a predicted "
                       "history)", path);
    if (ok) {
        parse_workload(p, root);
        p->n_sessions = sessions ? sessions : p->w_sessions;
        if (p->n_sessions == 0)
            ok = plan_fail(err, "%s: no \"workload\" object; give "
                           "--sessions, --txns and --seed", path);
    }
    if (ok) {
        ok = parse_model(pred, path, &p->model, err) &&
             map_txns(p, path, err) && make_steps(p, pred, path, err);
    }
    cJSON_Delete(root);
    free(text);
    if (!ok) {
        kv_plan_free(p);
        return NULL;
    }
    return p;
}

void kv_plan_free(kv_plan *p)
{
    if (!p)
        return;
    ip_trace_free(p->trace);
    free(p->pred);
    free(p->steps);
    free(p->read_first);
    free(p->read_ops);
    free(p);
}

kv_model kv_plan_model(const kv_plan *p) { return p->model; }
uint32_t kv_plan_steps(const kv_plan *p) { return p->n_steps; }

void kv_plan_step(const kv_plan *p, uint32_t i, uint32_t *session,
                  uint32_t *index)
{
    *session = p->steps[2 * i];
    *index = p->steps[2 * i + 1];
}

bool kv_plan_workload(const kv_plan *p, uint32_t *sessions, uint32_t *txns,
                      uint64_t *seed)
{
    if (!p->has_workload)
        return false;
    *sessions = p->w_sessions;
    *txns = p->w_txns;
    *seed = p->w_seed;
    return true;
}

static uint32_t pred_txn(const kv_plan *p, uint32_t s, uint32_t i)
{
    if (s >= p->n_sessions || i >= p->max_index)
        return IP_NONE;
    return p->pred[(size_t)s * p->max_index + i];
}

void kv_plan_read_at(const kv_plan *p, uint32_t session, uint32_t index,
                     uint32_t nth, kv_plan_read *out)
{
    *out = (kv_plan_read){0};
    uint32_t x = pred_txn(p, session, index);
    if (x == IP_NONE)
        return;
    out->txn_known = true;
    const ip_trace *t = p->trace;
    if (nth >= p->read_first[x + 1] - p->read_first[x]) {
        out->beyond = true;
        return;
    }
    const ip_op *o = &t->ops[p->read_ops[p->read_first[x] + nth]];
    out->key = ip_key_name(t, o->key);
    if (o->from != IP_NONE) {
        out->from = ip_txn_name(t, o->from);
        out->from_initial = o->from == IP_INIT_TXN;
    }
}

bool kv_plan_txn(const kv_plan *p, uint32_t session, uint32_t index,
                 bool *committed, uint32_t *reads)
{
    uint32_t x = pred_txn(p, session, index);
    if (x == IP_NONE)
        return false;
    *committed = ip_committed(p->trace, x);
    *reads = p->read_first[x + 1] - p->read_first[x];
    return true;
}
