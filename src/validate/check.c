/* check.c - level names, the ip_check dispatcher and verdict lifetime. */
#include "validate.h"
#include "weak.h"
#include "strong.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    ip_level lvl;
} level_names[] = {
    {"rc", IP_LVL_RC},         {"read-committed", IP_LVL_RC},
    {"ra", IP_LVL_RA},         {"read-atomic", IP_LVL_RA},
    {"causal", IP_LVL_CAUSAL}, {"cc", IP_LVL_CAUSAL},
    {"si", IP_LVL_SI},         {"snapshot-isolation", IP_LVL_SI},
    {"ser", IP_LVL_SER},       {"serializable", IP_LVL_SER},
};

bool ip_level_parse(const char *name, ip_level *out)
{
    for (size_t i = 0; name && i < sizeof level_names / sizeof *level_names;
         i++)
        if (strcmp(name, level_names[i].name) == 0) {
            *out = level_names[i].lvl;
            return true;
        }
    return false;
}

const char *ip_level_name(ip_level lvl)
{
    switch (lvl) {
    case IP_LVL_RC: return "rc";
    case IP_LVL_RA: return "ra";
    case IP_LVL_CAUSAL: return "causal";
    case IP_LVL_SI: return "si";
    case IP_LVL_SER: return "ser";
    default: return "unknown";
    }
}

const char *ip_edge_kind_name(ip_edge_kind k)
{
    switch (k) {
    case IP_EDGE_SO: return "so";
    case IP_EDGE_WR: return "wr";
    case IP_EDGE_WW: return "ww";
    case IP_EDGE_RW: return "rw";
    case IP_EDGE_CO: return "co";
    }
    return "unknown";
}

static ip_check_result check_strong(const ip_trace *t, ip_level lvl,
                                    const ip_check_opts *opts, ip_verdict *out,
                                    ip_error *err)
{
    if (lvl == IP_LVL_SER)
        return ip_check_ser(t, opts, out, err);
    return ip_check_si(t, opts, out, err);
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

void ip_verdict_free(ip_verdict *v)
{
    if (!v)
        return;
    for (uint32_t i = 0; i < v->n_cycles; i++)
        free(v->cycles[i].edges);
    free(v->cycles);
    free(v->order);
    v->cycles = NULL;
    v->order = NULL;
    v->n_cycles = v->n_order = 0;
}
