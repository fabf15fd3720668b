/* check.c - the ip_check dispatcher: weak/ or strong/. */
#include "validate.h"
#include "weak.h"
#include "strong.h"

#include <stdlib.h>
#include <string.h>

static ip_check_result check_strong(const ip_trace *t, ip_level lvl,
                                    const ip_check_opts *opts, ip_verdict *out,
                                    ip_error *err)
{
    if (lvl == IP_LVL_SER)
        return ip_check_ser(t, opts, out, err);
    return ip_check_si(t, opts, out, err);
}

/* The weak checkers follow each read's one writer; deciding a choice of
 * writers there is a search they do not do. */
static ip_check_result unsupported(const ip_trace *t, ip_level lvl,
                                   ip_error *err)
{
    char why[600];
    ip_ambiguous_message(t, why, sizeof why);
    ip_fail(err, "%s; checking %s needs every read to name its writer "
            "(ser and si decide such histories)", why, ip_level_name(lvl));
    return IP_CHECK_UNSUPPORTED;
}

ip_check_result ip_check(const ip_trace *t, ip_level lvl,
                         const ip_check_opts *opts, ip_verdict *out,
                         ip_error *err)
{
    double start = ip_now();
    *out = (ip_verdict){.level = lvl, .n_anomalies = t->n_anomalies};
    ip_check_result r = IP_CHECK_ERROR;
    if (lvl == IP_LVL_SER || lvl == IP_LVL_SI)
        r = check_strong(t, lvl, opts, out, err);
    else if (lvl < IP_LVL_COUNT && !ip_trace_unique(t))
        r = unsupported(t, lvl, err);
    else if (lvl < IP_LVL_COUNT)
        r = wk_check(t, lvl, opts, out, err);
    else
        ip_fail(err, "unknown isolation level %d", (int)lvl);
    if (r == IP_CHECK_OK && t->n_anomalies) {
        /* read consistency is part of every level */
        free(out->order);
        out->order = NULL;
        out->n_order = 0;
        r = IP_CHECK_VIOLATION;
    }
    out->level = lvl;
    out->result = r;
    out->n_anomalies = t->n_anomalies;
    out->seconds = ip_now() - start;
    return r;
}
