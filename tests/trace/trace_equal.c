/* trace_equal.c - see trace_equal.h. */
#define _POSIX_C_SOURCE 200809L
#include "trace_equal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool differ(char *why, size_t n, const char *fmt, ...)
{
    if (why && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const char *txn_or_none(const ip_trace *t, uint32_t x)
{
    return x == IP_NONE ? NULL : ip_txn_name(t, x);
}

static bool txns_equal(const ip_trace *a, const ip_trace *b, char *why,
                       size_t n)
{
    if (a->n_sessions != b->n_sessions || a->n_txns != b->n_txns)
        return differ(why, n, "sizes: %u/%u sessions, %u/%u txns",
                      a->n_sessions, b->n_sessions, a->n_txns, b->n_txns);
    for (uint32_t s = 0; s < a->n_sessions; s++) {
        const ip_session *x = &a->sessions[s], *y = &b->sessions[s];
        if (!same_str(ip_str(a, x->name), ip_str(b, y->name)) ||
            x->txn_first != y->txn_first || x->txn_count != y->txn_count ||
            x->ev_count != y->ev_count)
            return differ(why, n, "session %u", s);
    }
    for (uint32_t i = 0; i < a->n_txns; i++) {
        const ip_txn *x = &a->txns[i], *y = &b->txns[i];
        if (!same_str(ip_txn_name(a, i), ip_txn_name(b, i)) ||
            x->session != y->session || x->index != y->index ||
            x->status != y->status || x->op_first != y->op_first ||
            x->op_count != y->op_count || x->ev_first != y->ev_first ||
            x->ev_count != y->ev_count)
            return differ(why, n, "txn %u (%s)", i, ip_txn_name(a, i));
    }
    return true;
}

static bool ops_equal(const ip_trace *a, const ip_trace *b, char *why,
                      size_t n)
{
    if (a->n_ops != b->n_ops)
        return differ(why, n, "%u/%u ops", a->n_ops, b->n_ops);
    for (uint32_t i = 0; i < a->n_ops; i++) {
        const ip_op *x = &a->ops[i], *y = &b->ops[i];
        if (x->kind != y->kind || x->local != y->local ||
            x->last != y->last || x->txn != y->txn ||
            !same_str(ip_key_name(a, x->key), ip_key_name(b, y->key)) ||
            !same_str(ip_str(a, x->value), ip_str(b, y->value)) ||
            !same_str(txn_or_none(a, x->from), txn_or_none(b, y->from)))
            return differ(why, n, "op %u (txn %s, key %s)", i,
                          ip_txn_name(a, x->txn), ip_key_name(a, x->key));
    }
    return true;
}

/* Txn 0 writes every key once, in key-id order; key ids follow the
 * order of first appearance in the input, which JSON's grouping by
 * session may change, so its events are compared as a set of keys. */
static bool init_events_equal(const ip_trace *a, const ip_trace *b)
{
    const ip_txn *x = &a->txns[IP_INIT_TXN], *y = &b->txns[IP_INIT_TXN];
    if (x->ev_count != y->ev_count)
        return false;
    for (uint32_t i = x->ev_first; i < x->ev_first + x->ev_count; i++) {
        const char *k = ip_key_name(a, a->events[i].key);
        bool found = false;
        for (uint32_t j = y->ev_first; !found && j < y->ev_first + y->ev_count;
             j++)
            found = strcmp(k, ip_key_name(b, b->events[j].key)) == 0;
        if (!found)
            return false;
    }
    return true;
}

static bool events_equal(const ip_trace *a, const ip_trace *b, char *why,
                         size_t n)
{
    if (a->n_events != b->n_events || a->n_keys != b->n_keys)
        return differ(why, n, "%u/%u events, %u/%u keys", a->n_events,
                      b->n_events, a->n_keys, b->n_keys);
    if (!init_events_equal(a, b))
        return differ(why, n, "initial writes");
    for (uint32_t i = 0; i < a->n_events; i++) {
        const ip_event *x = &a->events[i], *y = &b->events[i];
        if (x->txn == IP_INIT_TXN && y->txn == IP_INIT_TXN)
            continue;
        if (x->kind != y->kind || x->txn != y->txn ||
            x->writer != y->writer || x->op != y->op || x->pos != y->pos ||
            !same_str(ip_key_name(a, x->key), ip_key_name(b, y->key)))
            return differ(why, n, "event %u", i);
    }
    return true;
}

bool trace_equal(const ip_trace *a, const ip_trace *b, char *why, size_t n)
{
    if (!same_str(ip_str(a, a->initial_name), ip_str(b, b->initial_name)))
        return differ(why, n, "initial transaction names");
    if (a->n_anomalies != b->n_anomalies)
        return differ(why, n, "%u/%u anomalies", a->n_anomalies,
                      b->n_anomalies);
    return txns_equal(a, b, why, n) && ops_equal(a, b, why, n) &&
           events_equal(a, b, why, n);
}

/* What writer w writes of t, in a malloc'd string. */
static char *written(const ip_trace *t, bool (*w)(const ip_trace *, FILE *),
                     size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    bool ok = w(t, f);
    if (fclose(f) != 0 || !ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *trace_json_text(const ip_trace *t, size_t *len)
{
    return written(t, ip_write_json, len);
}

char *trace_elle_text(const ip_trace *t, size_t *len)
{
    return written(t, ip_write_elle, len);
}
