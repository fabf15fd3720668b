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
        ok = round_trips(t, mode, why, n);
    ip_trace_free(t);
    return ok;
}
