/* json.c - the verdict as a cJSON tree (names, not ids, so that it reads
 * on its own next to the trace). */
#include "validate.h"

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

static cJSON *anomaly_json(const ip_trace *t, const ip_anomaly *a)
{
    const ip_op *op = &t->ops[a->op];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", ip_anomaly_name(a->kind));
    cJSON_AddStringToObject(o, "txn", ip_txn_name(t, op->txn));
    cJSON_AddStringToObject(o, "key", ip_key_name(t, op->key));
    cJSON_AddNumberToObject(o, "op", a->op - t->txns[op->txn].op_first);
    if (op->line)
        cJSON_AddNumberToObject(o, "line", op->line);
    if (a->writer != IP_NONE)
        cJSON_AddStringToObject(o, "writer", ip_txn_name(t, a->writer));
    else
        cJSON_AddNullToObject(o, "writer");
    return o;
}

static cJSON *edge_json(const ip_trace *t, const ip_edge *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "from", ip_txn_name(t, e->from));
    cJSON_AddStringToObject(o, "to", ip_txn_name(t, e->to));
    cJSON_AddStringToObject(o, "kind", ip_edge_kind_name(e->kind));
    if (e->key != IP_NONE)
        cJSON_AddStringToObject(o, "key", ip_key_name(t, e->key));
    if (e->via != IP_NONE)
        cJSON_AddStringToObject(o, "via", ip_txn_name(t, e->via));
    if (e->kind == IP_EDGE_WW)
        cJSON_AddBoolToObject(o, "forced", e->forced);
    return o;
}

void *ip_verdict_to_cjson(const ip_trace *t, const ip_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "level", ip_level_name(v->level));
    cJSON_AddStringToObject(o, "result", result_name(v->result));
    cJSON_AddNumberToObject(o, "transactions", ip_committed_count(t));
    cJSON_AddNumberToObject(o, "seconds", v->seconds);
    cJSON *an = cJSON_AddArrayToObject(o, "anomalies");
    for (uint32_t i = 0; i < t->n_anomalies; i++)
        cJSON_AddItemToArray(an, anomaly_json(t, &t->anomalies[i]));
    if (v->order) {
        cJSON *ord = cJSON_AddArrayToObject(o, "order");
        for (uint32_t i = 0; i < v->n_order; i++)
            cJSON_AddItemToArray(ord, cJSON_CreateString(
                                          ip_txn_name(t, v->order[i])));
    }
    cJSON *cy = cJSON_AddArrayToObject(o, "cycles");
    for (uint32_t i = 0; i < v->n_cycles; i++) {
        cJSON *c = cJSON_CreateArray();
        for (uint32_t j = 0; j < v->cycles[i].n_edges; j++)
            cJSON_AddItemToArray(c, edge_json(t, &v->cycles[i].edges[j]));
        cJSON_AddItemToArray(cy, c);
    }
    return o;
}
