/* json.c - the verdict as a cJSON tree (names, not ids, so that it reads
 * on its own next to the trace), with the anomaly names of verdict.h. */
#include "validate.h"
#include "json.h"

#include <cjson/cJSON.h>

static const char *result_name(ip_check_result r)
{
    switch (r) {
    case IP_CHECK_OK: return "satisfied";
    case IP_CHECK_VIOLATION: return "violated";
    case IP_CHECK_UNKNOWN: return "unknown";
    default: return "error";
    }
}

/* obj, or NULL (freeing it) when building it failed somewhere. */
static cJSON *whole(cJSON *obj, bool ok)
{
    if (ok)
        return obj;
    cJSON_Delete(obj);
    return NULL;
}

/* An incompatible order's other read: "other": {"txn", "op", "line"}. */
static bool other_json(const ip_trace *t, const ip_anomaly *a, cJSON *o)
{
    const ip_op *op = &t->ops[a->other];
    cJSON *x = cJSON_AddObjectToObject(o, "other");
    return x && cJSON_AddStringToObject(x, "txn", ip_txn_name(t, op->txn)) &&
           cJSON_AddNumberToObject(x, "op",
                                   a->other - t->txns[op->txn].op_first) &&
           (!ip_op_line(t, a->other) ||
            cJSON_AddNumberToObject(x, "line", ip_op_line(t, a->other)));
}

static cJSON *anomaly_json(const ip_trace *t, const ip_anomaly *a)
{
    const ip_op *op = &t->ops[a->op];
    cJSON *o = cJSON_CreateObject();
    bool ok = o &&
              cJSON_AddStringToObject(o, "kind", ip_anomaly_name(a->kind)) &&
              cJSON_AddStringToObject(o, "anomaly",
                                      ip_read_anomaly_adya(t, a)) &&
              cJSON_AddStringToObject(o, "txn", ip_txn_name(t, op->txn)) &&
              cJSON_AddStringToObject(o, "key", ip_key_name(t, op->key)) &&
              cJSON_AddNumberToObject(o, "op",
                                      a->op - t->txns[op->txn].op_first) &&
              (!ip_op_line(t, a->op) ||
               cJSON_AddNumberToObject(o, "line", ip_op_line(t, a->op))) &&
              (a->writer != IP_NONE
                   ? cJSON_AddStringToObject(o, "writer",
                                             ip_txn_name(t, a->writer)) != NULL
                   : cJSON_AddNullToObject(o, "writer") != NULL) &&
              (a->kind != IP_AN_INCOMPATIBLE_ORDER || other_json(t, a, o));
    return whole(o, ok);
}

/* choices: the verdict rests on chosen writers of ambiguous reads; a wr
 * or rw edge on one says "forced": false. */
static cJSON *edge_json(const ip_trace *t, const ip_edge *e, bool choices)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o &&
              cJSON_AddStringToObject(o, "from", ip_txn_name(t, e->from)) &&
              cJSON_AddStringToObject(o, "to", ip_txn_name(t, e->to)) &&
              cJSON_AddStringToObject(o, "kind",
                                      ip_edge_kind_name(e->kind)) &&
              (e->key == IP_NONE ||
               cJSON_AddStringToObject(o, "key", ip_key_name(t, e->key))) &&
              (e->via == IP_NONE ||
               cJSON_AddStringToObject(o, "via", ip_txn_name(t, e->via))) &&
              (e->kind != IP_EDGE_WW ||
               cJSON_AddBoolToObject(o, "forced", e->forced)) &&
              (!choices || (e->kind != IP_EDGE_WR && e->kind != IP_EDGE_RW) ||
               e->forced || cJSON_AddBoolToObject(o, "forced", false));
    return whole(o, ok);
}

/* The writer each ambiguous read has in the witness. */
static cJSON *writers_json(const ip_trace *t, const ip_verdict *v)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (uint32_t i = 0; ok && i < v->n_writers; i++) {
        const ip_op *op = &t->ops[t->amb_op[i]];
        cJSON *o = cJSON_CreateObject();
        ok = o &&
             cJSON_AddStringToObject(o, "reader", ip_txn_name(t, op->txn)) &&
             cJSON_AddStringToObject(o, "key", ip_key_name(t, op->key)) &&
             cJSON_AddStringToObject(o, "from",
                                     ip_txn_name(t, v->writers[i])) &&
             cJSON_AddBoolToObject(o, "deduced", v->deduced[i]);
        ok = ip_cjson_append(a, whole(o, ok)) && ok;
    }
    return whole(a, ok);
}

static cJSON *cycle_json(const ip_trace *t, const ip_cycle *c, bool choices)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (uint32_t j = 0; ok && j < c->n_edges; j++)
        ok = ip_cjson_append(a, edge_json(t, &c->edges[j], choices));
    return whole(a, ok);
}

void *ip_verdict_to_cjson(const ip_trace *t, const ip_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o &&
              cJSON_AddStringToObject(o, "level", ip_level_name(v->level)) &&
              cJSON_AddStringToObject(o, "result", result_name(v->result)) &&
              cJSON_AddNumberToObject(o, "transactions",
                                      ip_committed_count(t)) &&
              cJSON_AddNumberToObject(o, "seconds", v->seconds);
    const char *name = ip_verdict_anomaly(t, v);
    ok = ok && (!name || cJSON_AddStringToObject(o, "anomaly", name));
    cJSON *an = ok ? cJSON_AddArrayToObject(o, "anomalies") : NULL;
    ok = an != NULL;
    for (uint32_t i = 0; ok && i < t->n_anomalies; i++)
        ok = ip_cjson_append(an, anomaly_json(t, &t->anomalies[i]));
    if (ok && v->order) {
        cJSON *ord = cJSON_AddArrayToObject(o, "order");
        ok = ord != NULL;
        for (uint32_t i = 0; ok && i < v->n_order; i++)
            ok = ip_cjson_append(ord, cJSON_CreateString(
                                          ip_txn_name(t, v->order[i])));
    }
    if (ok && v->n_writers)
        ok = ip_cjson_attach(o, "writers", writers_json(t, v));
    cJSON *cy = ok ? cJSON_AddArrayToObject(o, "cycles") : NULL;
    ok = cy != NULL;
    for (uint32_t i = 0; ok && i < v->n_cycles; i++)
        ok = ip_cjson_append(cy, cycle_json(t, &v->cycles[i],
                                            v->n_writers > 0));
    /* parallel to "cycles" (arrays of edges, kept as they were) */
    cJSON *names = ok && v->n_cycles
                       ? cJSON_AddArrayToObject(o, "cycle_anomalies")
                       : NULL;
    ok = ok && (!v->n_cycles || names);
    for (uint32_t i = 0; ok && i < v->n_cycles; i++)
        ok = ip_cjson_append(names, cJSON_CreateString(ip_cycle_anomaly_name(
                                        t, v->level, &v->cycles[i])));
    return whole(o, ok);
}
