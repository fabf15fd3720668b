/* fuzz_check.c - see fuzz_check.h. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_check.h"
#include "trace_equal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool broken(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return false;
}

static bool writes_dot(const ip_trace *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return false;
    ip_dot_edge e = {.from = t->n_txns - 1, .to = 0, .label = "x\"\\"};
    bool ok = ip_write_dot(t, &e, 1, f);
    ok = fclose(f) == 0 && ok && len > 0;
    free(buf);
    return ok;
}

/* JSON of t must read back (same mode) to an equal trace. */
static bool round_trips(const ip_trace *t, ip_mode mode, char *why, size_t n)
{
    size_t len;
    char *json = trace_json_text(t, &len);
    if (!json)
        return broken(why, n, "ip_write_json failed");
    ip_error err = {0};
    ip_trace *u = ip_read_json("rt.json", json, len, mode, &err);
    char diff[200] = "";
    bool ok = u && trace_equal(t, u, diff, sizeof diff);
    if (!u)
        broken(why, n, "own JSON output does not read back: %s", err.msg);
    else if (!ok)
        broken(why, n, "JSON round trip differs: %s", diff);
    ip_trace_free(u);
    free(json);
    return ok;
}

/* Where txn x is, names aside: its session's number among the sessions
 * that have transactions, and its index there (txn 0: 0, 0). */
static uint64_t place(const ip_trace *t, uint32_t x)
{
    if (x == IP_NONE || x == IP_INIT_TXN)
        return x == IP_NONE ? UINT64_MAX : 0;
    uint32_t s = t->txns[x].session, k = 0;
    for (uint32_t i = 0; i < s; i++)
        k += t->sessions[i].txn_count > 0;
    return (uint64_t)(k + 1) << 32 | t->txns[x].index;
}

/* The same history but for names (and empty sessions): transactions in
 * the same places with the same status and ops, reads of committed
 * transactions from writers in the same places; values the same but for
 * reads of the initial transaction (EDN writes them nil). */
static bool same_history(const ip_trace *a, const ip_trace *b, char *why,
                         size_t n)
{
    if (a->n_txns != b->n_txns || a->n_ops != b->n_ops)
        return broken(why, n, "EDN round trip: %u/%u txns, %u/%u ops",
                      a->n_txns, b->n_txns, a->n_ops, b->n_ops);
    for (uint32_t x = 1; x < a->n_txns; x++) {
        const ip_txn *p = &a->txns[x], *q = &b->txns[x];
        if (place(a, x) != place(b, x) || p->status != q->status ||
            p->op_count != q->op_count)
            return broken(why, n, "EDN round trip: txn %s", ip_txn_name(a, x));
        for (uint32_t i = p->op_first; i < p->op_first + p->op_count; i++) {
            const ip_op *o = &a->ops[i], *r = &b->ops[i];
            bool init = o->kind == IP_READ && o->from == IP_INIT_TXN;
            const char *v = ip_str(a, o->value), *w = ip_str(b, r->value);
            if (o->kind != r->kind ||
                strcmp(ip_key_name(a, o->key), ip_key_name(b, r->key)) ||
                (!init && (v ? !w || strcmp(v, w) : !!w && strcmp(w, "null"))) ||
                (ip_committed(a, x) && o->kind == IP_READ &&
                 place(a, o->from) != place(b, r->from)))
                return broken(why, n, "EDN round trip: op %u of txn %s",
                              i - p->op_first, ip_txn_name(a, x));
        }
    }
    return true;
}

/* EDN of t, when ip_elle_losses finds nothing lost, reads back (same mode)
 * to the same history but for names, and its EDN is a fixed point: read
 * and written again, it is the same text (the first trip renames). */
static bool elle_round_trips(const ip_trace *t, ip_mode mode, char *why,
                             size_t n)
{
    char loss[512];
    if (ip_elle_losses(t, loss, sizeof loss))
        return true;
    size_t len[3] = {0};
    char *edn[3] = {NULL};
    ip_trace *u[2] = {NULL};
    ip_error err = {0};
    bool ok = true;
    for (int i = 0; ok && i < 3; i++) {
        edn[i] = trace_elle_text(i ? u[i - 1] : t, &len[i]);
        if (!edn[i])
            ok = broken(why, n, "ip_write_elle failed (trip %d)", i);
        else if (i < 2 && !(u[i] = ip_read_elle("rt.edn", edn[i], len[i],
                                                mode, &err)))
            ok = broken(why, n, "own EDN does not read back (trip %d): %s",
                        i, err.msg);
    }
    if (ok && !same_history(t, u[0], why, n))
        ok = false;
    else if (ok && (len[1] != len[2] || memcmp(edn[1], edn[2], len[1])))
        ok = broken(why, n, "EDN written twice differs");
    for (int i = 0; i < 3; i++)
        free(edn[i]);
    ip_trace_free(u[0]);
    ip_trace_free(u[1]);
    return ok;
}

/* Cobra reads a directory of logs: the input's first byte says how many
 * (1 to 3), the rest is cut into that many equal logs. */
static ip_trace *read_cobra(const char *name, const char *data, size_t size,
                            ip_mode mode, ip_error *err)
{
    static const char *const names[] = { "T0.log", "T1.log", "T2.log" };
    uint32_t k = size ? 1 + (unsigned char)data[0] % 3 : 1;
    const char *part[3];
    size_t len[3], rest = size ? size - 1 : 0;
    for (uint32_t i = 0; i < k; i++) {
        part[i] = data + (size ? 1 : 0) + i * (rest / k);
        len[i] = i + 1 < k ? rest / k : rest - i * (rest / k);
    }
    return ip_read_cobra_logs(name, names, part, len, k, mode, err);
}

bool fuzz_check(const char *name, const char *data, size_t size,
                ip_format fmt, ip_mode mode, char *why, size_t n)
{
    ip_error err;
    memset(&err, 0, sizeof err);
    ip_trace *t = fmt == IP_FMT_COBRA
                      ? read_cobra(name, data, size, mode, &err)
                      : ip_read_buffer(name, data, size, fmt, mode, &err);
    if (!t) {
        if (!err.msg[0])
            return broken(why, n, "NULL trace without a message");
        if (!memchr(err.msg, '\0', sizeof err.msg))
            return broken(why, n, "unterminated message");
        return true;
    }
    ip_stats s;
    ip_trace_stats(t, &s);
    bool ok = true;
    if (s.committed + s.aborted != s.txns || s.reads + s.writes != s.ops)
        ok = broken(why, n, "inconsistent statistics");
    else if (!writes_dot(t))
        ok = broken(why, n, "ip_write_dot failed");
    else if (t->n_anomalies == 0)
        /* Anomalous reads are written with the writer the builder chose
         * and may then read back as consistent (by-name resolution checks
         * less than by-value resolution): reported, not asserted here. */
        ok = round_trips(t, mode, why, n) && elle_round_trips(t, mode, why, n);
    ip_trace_free(t);
    return ok;
}
