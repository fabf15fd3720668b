/* trace.c - queries over a finished trace, errors, the clock and freeing
 * a trace (the memory helpers are in mem.c). */
#include "trace.h"
#include "intern.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool ip_fail(ip_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->oom = false;
    }
    return false;
}

bool ip_oom(ip_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->oom = true;
    }
    return false;
}

const char *ip_anomaly_name(ip_anomaly_kind kind)
{
    switch (kind) {
    case IP_AN_THIN_AIR: return "thin-air read";
    case IP_AN_ABORTED_READ: return "aborted read";
    case IP_AN_FUTURE_READ: return "future read";
    case IP_AN_NOT_OWN_WRITE: return "not own write";
    case IP_AN_NOT_LATEST_WRITE: return "not latest write";
    case IP_AN_INCOMPATIBLE_ORDER: return "incompatible order";
    }
    return "unknown anomaly";
}

uint32_t ip_lower_bound(const uint32_t *a, uint32_t lo, uint32_t hi,
                        uint32_t x)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Mostly a handful (a transaction's keys or writers, a cycle's
 * transactions), sorted once per transaction of every history checked:
 * insertion sort beats qsort's calls through a pointer there.  Longer
 * lists are often sorted already (the initial transaction's keys, in
 * every history built), which one scan finds. */
void ip_sort_ids(uint32_t *a, uint32_t n)
{
    uint32_t i = 1;
    while (i < n && a[i - 1] <= a[i])
        i++;
    if (i >= n)
        return;
    if (n > 32) {
        qsort(a, n, sizeof *a, cmp_id);
        return;
    }
    for (; i < n; i++) {
        uint32_t x = a[i], j = i;
        for (; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

uint32_t ip_write_event(const ip_trace *t, uint32_t txn, uint32_t key)
{
    const ip_txn *x = &t->txns[txn];
    /* a transaction that writes every key (the initial one, as a window's
     * folded state does): its sorted keys are 0, 1, ..., so key k is the
     * k-th - no search, on the path of every read from txn 0 */
    if (x->wkey_count == t->n_keys)
        return key < t->n_keys ? t->wkey_event[x->wkey_first + key] : IP_NONE;
    uint32_t lo = ip_lower_bound(t->wkeys, x->wkey_first,
                                 x->wkey_first + x->wkey_count, key);
    if (lo < x->wkey_first + x->wkey_count && t->wkeys[lo] == key)
        return t->wkey_event[lo];
    return IP_NONE;
}

bool ip_so(const ip_trace *t, uint32_t a, uint32_t b)
{
    if (a == b || b == IP_INIT_TXN)
        return false;
    if (a == IP_INIT_TXN)
        return true;
    return t->txns[a].session == t->txns[b].session && a < b;
}

bool ip_txn_has_read(const ip_trace *t, uint32_t x)
{
    const ip_txn *tx = &t->txns[x];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
        if (t->events[e].kind == IP_READ)
            return true;
    return false;
}

uint32_t ip_committed_count(const ip_trace *t)
{
    uint32_t n = 0;
    for (uint32_t i = 1; i < t->n_txns; i++)
        n += t->txns[i].status == IP_COMMITTED;
    return n;
}

void ip_trace_free(ip_trace *t)
{
    if (!t)
        return;
    ip_string_store_release(t->store);
    free(t->sessions);
    free(t->txns);
    free(t->ops);
    free(t->op_line);
    free(t->op_extra);
    free(t->events);
    free(t->key_ids);
    free(t->key_writer_first);
    free(t->key_writer);
    free(t->key_writer_event);
    free(t->key_order_first);
    free(t->key_order);
    free(t->key_order_pos);
    free(t->wkeys);
    free(t->wkey_event);
    free(t->anomalies);
    free(t->amb_op);
    free(t->amb_event);
    free(t->amb_first);
    free(t->amb_writer);
    free(t);
}

/* x's rank in key's known version order: 0 for txn 0, 1 + its index for
 * a listed writer, UINT32_MAX for any other writer. */
static uint32_t version_rank(const ip_trace *t, uint32_t key, uint32_t x)
{
    if (x == IP_INIT_TXN)
        return 0;
    uint32_t lo = t->key_writer_first[key], hi = t->key_writer_first[key + 1];
    uint32_t i = ip_lower_bound(t->key_writer, lo, hi, x);
    if (i == hi || t->key_writer[i] != x || t->key_order_pos[i] == IP_NONE)
        return UINT32_MAX;
    return t->key_order_pos[i] + 1;
}

int ip_version_cmp(const ip_trace *t, uint32_t key, uint32_t a, uint32_t b)
{
    if (!ip_trace_has_versions(t) || a == b || key >= t->n_keys)
        return 0;
    uint32_t ra = version_rank(t, key, a), rb = version_rank(t, key, b);
    return ra == rb ? 0 : ra < rb ? 1 : -1;
}

bool ip_versions_respected(const ip_trace *t, const uint32_t *pos)
{
    if (!ip_trace_has_versions(t))
        return true;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        uint32_t first = t->key_order_first[k], end = t->key_order_first[k + 1];
        if (first == end)
            continue;
        for (uint32_t i = first + 1; i < end; i++)
            if (pos[t->key_order[i - 1]] > pos[t->key_order[i]])
                return false;
        uint32_t last = pos[t->key_order[end - 1]];
        for (uint32_t i = t->key_writer_first[k];
             i < t->key_writer_first[k + 1]; i++)
            if (t->key_writer[i] != IP_INIT_TXN &&
                t->key_order_pos[i] == IP_NONE && pos[t->key_writer[i]] < last)
                return false;
    }
    return true;
}

uint32_t ip_ambiguous_of_op(const ip_trace *t, uint32_t op)
{
    uint32_t i = ip_lower_bound(t->amb_op, 0, t->n_ambiguous, op);
    return i < t->n_ambiguous && t->amb_op[i] == op ? i : IP_NONE;
}

bool ip_read_may_see(const ip_trace *t, uint32_t e, uint32_t writer)
{
    if (t->events[e].writer != IP_NONE)
        return t->events[e].writer == writer;
    uint32_t i = ip_lower_bound(t->amb_event, 0, t->n_ambiguous, e);
    if (i == t->n_ambiguous || t->amb_event[i] != e)
        return false;
    uint32_t end = t->amb_first[i + 1];
    uint32_t j = ip_lower_bound(t->amb_writer, t->amb_first[i], end, writer);
    return j < end && t->amb_writer[j] == writer;
}

void ip_ambiguous_message(const ip_trace *t, char *buf, size_t n)
{
    if (!t->n_ambiguous) {
        snprintf(buf, n, "every read names one writer");
        return;
    }
    const ip_op *op = &t->ops[t->amb_op[0]];
    uint32_t c = t->amb_first[0], m = t->amb_first[1] - c;
    snprintf(buf, n, "%u read%s ha%s several candidate writers (the first: "
             "'%s' reads key '%s' from one of %u transactions, '%s', '%s'%s)",
             t->n_ambiguous, t->n_ambiguous == 1 ? "" : "s",
             t->n_ambiguous == 1 ? "s" : "ve", ip_txn_name(t, op->txn),
             ip_key_name(t, op->key), m, ip_txn_name(t, t->amb_writer[c]),
             ip_txn_name(t, t->amb_writer[c + 1]), m > 2 ? ", ..." : "");
}

double ip_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
