/* slice.c - sub-traces: some committed transactions of a trace, with the
 * state before them folded into the initial transaction (trace.h). */
#include "trace.h"

#include <stdlib.h>

/* Declare the kept sessions and transactions in the trace's order, so
 * that the sub-trace's ids follow it; handle[x] = builder handle of txn
 * x or IP_NONE. */
static bool declare(ip_builder *b, const ip_trace *t, const uint8_t *keep,
                    uint32_t *handle, ip_error *err)
{
    for (uint32_t x = 0; x < t->n_txns; x++)
        handle[x] = IP_NONE;
    handle[IP_INIT_TXN] = IP_INIT_TXN;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        uint32_t sid = IP_NONE;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            if (!keep[x] || !ip_committed(t, x))
                continue;
            if (sid == IP_NONE &&
                ((sid = ip_builder_session(b, ip_session_name(t, s), err)) ==
                     IP_NONE ||
                 !ip_builder_extra(b, IP_EXTRA_SESSION, sid,
                                   ip_str(t, se->extra), err)))
                return false;
            handle[x] = ip_builder_txn(b, sid, ip_txn_name(t, x),
                                       IP_COMMITTED, 0, err);
            if (handle[x] == IP_NONE ||
                !ip_builder_extra(b, IP_EXTRA_TXN, handle[x],
                                  ip_str(t, t->txns[x].extra), err))
                return false;
        }
    }
    return true;
}

static bool add_ops(ip_builder *b, const ip_trace *t, const uint32_t *handle,
                    bool drop, ip_error *err)
{
    for (uint32_t x = 1; x < t->n_txns; x++) {
        if (handle[x] == IP_NONE)
            continue;
        const ip_txn *tx = &t->txns[x];
        for (uint32_t o = tx->op_first; o < tx->op_first + tx->op_count; o++) {
            const ip_op *op = &t->ops[o];
            uint32_t from = IP_NONE;
            if (drop && op->kind == IP_READ && op->from != IP_NONE &&
                handle[op->from] == IP_NONE)
                continue;
            if (op->kind == IP_READ && op->from != IP_NONE)
                from = handle[op->from] == IP_NONE ? IP_INIT_TXN
                                                   : handle[op->from];
            if (!ip_builder_op_from_id(b, handle[x], op->kind,
                                       ip_key_name(t, op->key),
                                       ip_str(t, op->value), from, 0, err) ||
                !ip_builder_extra(b, IP_EXTRA_OP, handle[x],
                                  ip_str(t, ip_op_extra(t, o)), err))
                return false;
        }
    }
    return true;
}

ip_trace *ip_trace_slice_with(const ip_trace *t, const uint8_t *keep,
                              unsigned flags, uint32_t **map_txn,
                              ip_error *err)
{
    bool drop = flags & IP_SLICE_DROP_READS;
    const char *extra = flags & IP_SLICE_NO_TRACE_EXTRA ? NULL
                                                        : ip_str(t, t->extra);
    if (map_txn)
        *map_txn = NULL;
    if (!ip_trace_unique(t)) {
        ip_fail(err, "slice: the trace has ambiguous reads");
        return NULL;
    }
    uint32_t *handle = malloc(sizeof *handle * ((size_t)t->n_txns + 1));
    ip_builder *b = handle ? ip_builder_new("(slice)", ip_str(t, t->initial_name),
                                            IP_STRICT)
                           : NULL;
    if (!b) {
        free(handle);
        ip_oom(err, "slice: out of memory");
        return NULL;
    }
    ip_trace *sub = NULL;
    if (ip_builder_extra(b, IP_EXTRA_TRACE, 0, extra, err) &&
        declare(b, t, keep, handle, err) && add_ops(b, t, handle, drop, err))
        sub = ip_builder_finish(b, err);
    else
        ip_builder_free(b);
    if (sub && map_txn) {
        /* ids follow declaration order: sessions, then their txns */
        uint32_t *map = malloc(sizeof *map * ((size_t)sub->n_txns + 1));
        uint32_t n = 1;
        if (map) {
            map[0] = IP_INIT_TXN;
            for (uint32_t x = 1; x < t->n_txns && n <= sub->n_txns; x++)
                if (handle[x] != IP_NONE)
                    map[n++] = x;
        }
        if (!map || n != sub->n_txns) {
            free(map);
            ip_trace_free(sub);
            sub = NULL;
            ip_oom(err, "slice: out of memory");
        } else {
            *map_txn = map;
        }
    }
    free(handle);
    return sub;
}

ip_trace *ip_trace_slice(const ip_trace *t, const uint8_t *keep,
                         uint32_t **map_txn, ip_error *err)
{
    return ip_trace_slice_with(t, keep, 0, map_txn, err);
}
