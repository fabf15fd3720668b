/*
 * record.c - the store's log as an isopredict trace, through the trace
 * builder (so the recorded trace obeys exactly the checks every reader's
 * output obeys), plus the schedule and divergences as JSON.
 */
#include "store_internal.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>

static const char *value_text(kv_value v, char *buf, size_t len)
{
    if (v == KV_ABSENT)
        return NULL;
    snprintf(buf, len, "%" PRId64, v);
    return buf;
}

/* The transaction's tool fields, {"procedure":NAME}: built by cJSON so
 * that any name comes out as valid, compact JSON. */
bool kv_record_procedure(ip_builder *b, uint32_t h, const char *name,
                         ip_error *err)
{
    cJSON *o = cJSON_CreateObject();
    char *text = o && cJSON_AddStringToObject(o, "procedure", name)
                     ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    bool ok = text ? ip_builder_extra(b, IP_EXTRA_TXN, h, text, err)
                   : ip_oom(err, "out of memory");
    cJSON_free(text);
    return ok;
}

static bool add_txn(const kv_store *st, ip_builder *b, uint32_t t,
                    const uint32_t *session_ids, ip_error *err)
{
    const kv_txn *x = &st->txns[t];
    char name[48], from[48], val[32];
    kv_txn_name(x->session, x->index, name, sizeof name);
    uint32_t h = ip_builder_txn(b, session_ids[x->session], name,
                                x->status == TXN_ABORTED ? IP_ABORTED
                                                         : IP_COMMITTED,
                                0, err);
    if (h == IP_NONE || (x->procedure &&
                         !kv_record_procedure(b, h, x->procedure, err)))
        return false;
    for (uint32_t i = 0; i < x->op_count; i++) {
        const kv_op *op = &st->ops[x->op_first + i];
        const char *f = NULL;
        if (op->kind == IP_READ) {
            const kv_txn *w = &st->txns[op->from];
            f = "init";
            if (op->from != 0) {
                kv_txn_name(w->session, w->index, from, sizeof from);
                f = from;
            }
        }
        if (!ip_builder_op(b, h, op->kind, st->key_name[op->key],
                           value_text(op->value, val, sizeof val), f, 0, err))
            return false;
    }
    return true;
}

ip_trace *kv_store_trace(const kv_store *st, const char *label,
                         ip_error *err)
{
    ip_builder *b = ip_builder_new(label, "init", IP_STRICT);
    uint32_t *sids = malloc(st->n_sessions * sizeof *sids);
    if (!b || !sids) {
        ip_builder_free(b);
        free(sids);
        ip_oom(err, "%s: out of memory", label);
        return NULL;
    }
    bool ok = true;
    for (uint32_t s = 0; ok && s < st->n_sessions; s++) {
        char name[32];
        kv_session_name(s, name, sizeof name);
        ok = (sids[s] = ip_builder_session(b, name, err)) != IP_NONE;
    }
    for (uint32_t t = 1; ok && t < st->n_txns; t++)
        if (st->txns[t].status != TXN_OPEN)
            ok = add_txn(st, b, t, sids, err);
    free(sids);
    if (!ok) {
        ip_builder_free(b);
        return NULL;
    }
    return ip_builder_finish(b, err);
}

void *kv_store_schedule_json(const kv_store *st)
{
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t t = 1; arr && t < st->n_txns; t++) {
        char name[48];
        kv_txn_name(st->txns[t].session, st->txns[t].index, name, sizeof name);
        if (!ip_cjson_append(arr, cJSON_CreateString(name))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static const char *div_kind_name(uint8_t k)
{
    switch (k) {
    case DIV_OP_MISMATCH: return "op-mismatch";
    case DIV_WRITER_MISSING: return "writer-missing";
    case DIV_WRITER_INVALID: return "writer-invalid";
    case DIV_STATUS: return "status";
    case DIV_WRITE_CONFLICT: return "write-conflict";
    default: return "short-txn";
    }
}

/* One sentence a person can act on. */
static void div_reason(const kv_store *st, const kv_divergence *d,
                       char *buf, size_t len)
{
    const char *key = d->key == IP_NONE ? "" : st->key_name[d->key];
    const kv_txn *x = &st->txns[d->txn];
    char other[48];
    switch (d->kind) {
    case DIV_OP_MISMATCH:
        snprintf(buf, len, "the prediction has %s here, the replay "
                 "read '%s'", d->predicted, key);
        break;
    case DIV_WRITER_MISSING:
        snprintf(buf, len, "predicted writer %s has not committed a write "
                 "of '%s' in the replay", d->predicted, key);
        break;
    case DIV_WRITER_INVALID:
        snprintf(buf, len, "reading '%s' from %s would violate the model",
                 key, d->predicted);
        break;
    case DIV_STATUS:
        snprintf(buf, len, "the prediction has it %s, the replay %s it",
                 d->predicted,
                 x->status == TXN_ABORTED ? "aborted" : "committed");
        break;
    case DIV_WRITE_CONFLICT:
        kv_txn_name(st->txns[x->conflict_with].session,
                    st->txns[x->conflict_with].index, other, sizeof other);
        snprintf(buf, len, "the prediction has it %s, the replay's store "
                 "aborted it: %s wrote '%s' after its snapshot and "
                 "committed first (snapshot isolation, first committer "
                 "wins)", d->predicted, other, key);
        break;
    default:
        snprintf(buf, len, "the replay ended it after %u reads, the "
                 "prediction has %s", d->reads, d->predicted);
    }
}

static cJSON *div_json(const kv_store *st, const kv_divergence *d)
{
    char name[48], reason[400];
    const kv_txn *x = &st->txns[d->txn];
    cJSON *o = cJSON_CreateObject();
    kv_txn_name(x->session, x->index, name, sizeof name);
    div_reason(st, d, reason, sizeof reason);
    bool ok = o && cJSON_AddStringToObject(o, "txn", name) &&
              cJSON_AddNumberToObject(o, "op", d->op) &&
              cJSON_AddStringToObject(o, "kind", div_kind_name(d->kind)) &&
              cJSON_AddStringToObject(o, "reason", reason);
    if (ok && d->key != IP_NONE)
        ok = cJSON_AddStringToObject(o, "key", st->key_name[d->key]);
    if (ok && d->chosen != IP_NONE) {
        const kv_txn *w = &st->txns[d->chosen];
        if (d->chosen == 0)
            snprintf(name, sizeof name, "init");
        else
            kv_txn_name(w->session, w->index, name, sizeof name);
        ok = cJSON_AddStringToObject(o, "read_from", name);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

void *kv_store_divergences_json(const kv_store *st)
{
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && i < st->n_divs; i++) {
        if (!ip_cjson_append(arr, div_json(st, &st->divs[i]))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}
