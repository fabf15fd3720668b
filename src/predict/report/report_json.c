/*
 * report_json.c - a prediction as the "prediction" object of a
 * predicted-history file (TRACE_FORMAT.md).  Names, never indices: the
 * file must make sense to someone holding only the file.
 */
#include "report.h"
#include "formats.h"
#include "predict.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *obs_session(const ip_trace *obs, uint32_t t)
{
    return ip_session_name(obs, obs->txns[t].session);
}

static cJSON *boundary_json(const ip_trace *obs, const ip_prediction *p,
                            ip_boundary kind, uint32_t s)
{
    cJSON *o = cJSON_CreateObject();
    uint32_t b = p->assignment.boundary[s];
    if (!o || !cJSON_AddStringToObject(o, "session",
                                       ip_session_name(obs, s)))
        goto fail;
    if (b == IP_NONE) {
        if (!cJSON_AddStringToObject(o, "kind", "end"))
            goto fail;
        return o;
    }
    uint32_t t = kind == IP_BOUNDARY_STRICT ? obs->events[b].txn : b;
    if (!cJSON_AddStringToObject(o, "kind", kind == IP_BOUNDARY_STRICT
                                                ? "read" : "transaction") ||
        !cJSON_AddStringToObject(o, "transaction", ip_txn_name(obs, t)))
        goto fail;
    if (kind == IP_BOUNDARY_STRICT) {
        uint32_t op = p->map.hist_op[obs->events[b].op];
        if (!cJSON_AddNumberToObject(o, "op", op) ||
            !cJSON_AddNumberToObject(
                o, "observed_op", obs->events[b].op - obs->txns[t].op_first) ||
            !cJSON_AddStringToObject(o, "key",
                                     ip_key_name(obs, obs->events[b].key)))
            goto fail;
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static cJSON *changed_json(const ip_trace *obs, const ip_changed_read *c)
{
    cJSON *o = cJSON_CreateObject();
    if (o && cJSON_AddStringToObject(o, "session", obs_session(obs, c->txn)) &&
        cJSON_AddStringToObject(o, "transaction", ip_txn_name(obs, c->txn)) &&
        cJSON_AddNumberToObject(o, "op", c->hist_op) &&
        cJSON_AddStringToObject(o, "key", ip_key_name(obs, c->key)) &&
        cJSON_AddStringToObject(o, "observed",
                                ip_txn_name(obs, c->observed)) &&
        cJSON_AddStringToObject(o, "predicted",
                                ip_txn_name(obs, c->predicted)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *edge_json(const ip_trace *h, const ip_edge *e)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "from", ip_txn_name(h, e->from)) ||
        !cJSON_AddStringToObject(o, "to", ip_txn_name(h, e->to)) ||
        !cJSON_AddStringToObject(o, "kind", ip_edge_kind_name(e->kind)) ||
        (e->key != IP_NONE &&
         !cJSON_AddStringToObject(o, "key", ip_key_name(h, e->key)))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool add_lists(cJSON *o, const ip_trace *obs, const ip_prediction *p,
                      ip_boundary kind)
{
    cJSON *bs = cJSON_AddArrayToObject(o, "boundaries");
    cJSON *cr = cJSON_AddArrayToObject(o, "changed_reads");
    cJSON *co = cJSON_AddArrayToObject(o, "commit_order");
    cJSON *cy = cJSON_AddArrayToObject(o, "cycle");
    if (!bs || !cr || !co || !cy)
        return false;
    for (uint32_t s = 0; s < p->n_sessions; s++)
        if (!ip_cjson_append(bs, boundary_json(obs, p, kind, s)))
            return false;
    for (uint32_t i = 0; i < p->n_changed; i++)
        if (!ip_cjson_append(cr, changed_json(obs, &p->changed[i])))
            return false;
    const ip_trace *h = p->history;
    for (uint32_t i = 0; i < p->model_verdict.n_order; i++)
        if (!ip_cjson_append(co, cJSON_CreateString(
                          ip_txn_name(h, p->model_verdict.order[i]))))
            return false;
    if (p->ser_verdict.n_cycles) {
        const ip_cycle *c = &p->ser_verdict.cycles[0];
        for (uint32_t i = 0; i < c->n_edges; i++)
            if (!ip_cjson_append(cy, edge_json(h, &c->edges[i])))
                return false;
        const char *name = ip_cycle_classic_name(c);
        if (name && !cJSON_AddStringToObject(o, "anomaly", name))
            return false;
    }
    return true;
}

/* ---- the witness (TRACE_FORMAT.md, "Prediction files") ---------------- */

/* "cut": per session of a window's cut run, its committed transactions. */
static bool add_cut(cJSON *w, const ip_trace *base)
{
    cJSON *cut = cJSON_AddArrayToObject(w, "cut");
    if (!cut)
        return false;
    for (uint32_t s = 0; s < base->n_sessions; s++) {
        const ip_session *se = &base->sessions[s];
        uint32_t n = 0;
        for (uint32_t t = se->txn_first; t < se->txn_first + se->txn_count;
             t++)
            n += ip_committed(base, t);
        /* in the array first: on failure the whole tree is freed */
        cJSON *o = cJSON_CreateObject();
        if (!ip_cjson_append(cut, o) ||
            !cJSON_AddStringToObject(o, "session", ip_session_name(base, s)) ||
            !cJSON_AddNumberToObject(o, "transactions", n))
            return false;
    }
    return true;
}

/* "reads": every read inside the boundary whose chosen writer is not the
 * observed one, kept or dropped; the others keep their observed writer. */
static bool add_chosen(cJSON *w, const ip_trace *obs, const ip_prediction *p)
{
    cJSON *arr = cJSON_AddArrayToObject(w, "reads");
    if (!arr)
        return false;
    for (uint32_t e = 0; e < obs->n_events; e++) {
        const ip_event *ev = &obs->events[e];
        uint32_t wr = ev->kind == IP_READ ? p->assignment.writer[e] : IP_NONE;
        if (wr == IP_NONE || wr == ev->writer || !ip_committed(obs, ev->txn))
            continue;
        cJSON *o = cJSON_CreateObject();
        if (!ip_cjson_append(arr, o) ||
            !cJSON_AddStringToObject(o, "transaction",
                                     ip_txn_name(obs, ev->txn)) ||
            !cJSON_AddNumberToObject(o, "op",
                                     ev->op - obs->txns[ev->txn].op_first) ||
            !cJSON_AddStringToObject(o, "key", ip_key_name(obs, ev->key)) ||
            !cJSON_AddStringToObject(o, "writer", ip_txn_name(obs, wr)))
            return false;
    }
    return true;
}

/* "dropped": each dropped transaction with the step by which it happens
 * after a boundary transaction or another dropped one (following "after"
 * leads to a boundary transaction). */
static bool add_dropped(cJSON *w, const ip_trace *obs, const ip_legality *l)
{
    cJSON *arr = cJSON_AddArrayToObject(w, "dropped");
    if (!arr)
        return false;
    for (uint32_t t = 1; t < obs->n_txns; t++) {
        if (!l->dropped[t])
            continue;
        const ip_hb_step *st = &l->because[t];
        cJSON *o = cJSON_CreateObject();
        bool wr = st->read != IP_NONE;
        if (!ip_cjson_append(arr, o) ||
            !cJSON_AddStringToObject(o, "transaction", ip_txn_name(obs, t)) ||
            !cJSON_AddStringToObject(o, "after", ip_txn_name(obs, st->from)) ||
            !cJSON_AddStringToObject(o, "by", wr ? "wr" : "so") ||
            (wr && !cJSON_AddStringToObject(
                       o, "key",
                       ip_key_name(obs, obs->events[st->read].key))))
            return false;
    }
    return true;
}

/* "witness": what makes p a legal prediction of its base run, for
 * `isopredict verify` to check without the formula. */
static bool add_witness(cJSON *j, const ip_trace *obs, const ip_prediction *p,
                        const ip_predict_opts *o)
{
    ip_legality l;
    ip_error err = {0};
    bool legal = ip_legality_check(obs, &p->assignment, o->boundary, &l,
                                   &err) == IP_LEGAL_OK;
    cJSON *w = legal ? cJSON_AddObjectToObject(j, "witness") : NULL;
    bool ok = w && (!p->base || add_cut(w, obs)) && add_chosen(w, obs, p) &&
              add_dropped(w, obs, &l);
    ip_legality_free(&l);
    return ok;
}

/* "class": the bug class of p (predict.h, "Triage"). */
static bool add_class(cJSON *j, const ip_prediction *p,
                      const ip_predict_opts *o)
{
    if (!p->history || p->ser_verdict.n_cycles == 0)
        return true;
    char *sig = p->class_signature ? strdup(p->class_signature)
                                   : ip_prediction_signature(p, o->key_family);
    cJSON *cls = sig ? cJSON_AddObjectToObject(j, "class") : NULL;
    bool ok = cls &&
              cJSON_AddStringToObject(cls, "anomaly",
                                      ip_signature_anomaly(sig)) &&
              cJSON_AddStringToObject(cls, "signature", sig);
    free(sig);
    return ok;
}

void *ip_prediction_info_cjson(const ip_trace *obs, const ip_prediction *p,
                               const ip_predict_opts *o,
                               const char *observed_path)
{
    obs = ip_prediction_base(obs, p);
    cJSON *j = cJSON_CreateObject();
    bool ok = j &&
        cJSON_AddStringToObject(j, "model", ip_level_name(o->model)) &&
        cJSON_AddStringToObject(j, "boundary", ip_boundary_name(o->boundary)) &&
        cJSON_AddStringToObject(j, "encoding", ip_encoding_name(o->encoding)) &&
        (!observed_path ||
         cJSON_AddStringToObject(j, "observed", observed_path)) &&
        add_lists(j, obs, p, o->boundary) && add_class(j, p, o) &&
        add_witness(j, obs, p, o);
    cJSON *conf = ok ? cJSON_AddObjectToObject(j, "confirmed") : NULL;
    ok = conf &&
         cJSON_AddStringToObject(conf, ip_level_name(o->model), "satisfied") &&
         cJSON_AddStringToObject(conf, "ser", "violated");
    if (ok && o->boundary == IP_BOUNDARY_RELAXED)
        ok = cJSON_AddStringToObject(j, "assumption", ip_relaxed_assumption);
    if (ok && p->base)        /* a window's: over the run cut after it */
        ok = cJSON_AddNumberToObject(j, "window", p->window) &&
             cJSON_AddNumberToObject(j, "observed_transactions",
                                     ip_committed_count(obs));
    if (ok)
        return j;
    cJSON_Delete(j);
    return NULL;
}

/* Tool fields of the observed trace that describe the observed run, not
 * a prediction of it: a prediction file leaves them out. */
static const char *const stale[] = { "prediction", "invariants", "replay" };

bool ip_prediction_write_json(const ip_trace *obs, const ip_prediction *p,
                              const ip_predict_opts *o,
                              const char *observed_path, FILE *out)
{
    cJSON *tail = cJSON_CreateObject();
    cJSON *info = ip_prediction_info_cjson(obs, p, o, observed_path);
    bool ok = ip_cjson_attach(tail, "prediction", info) &&
              ip_write_json_with(p->history, stale,
                                 sizeof stale / sizeof *stale, tail, out);
    cJSON_Delete(tail);
    return ok;
}
