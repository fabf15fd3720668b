/* names.c - option names and defaults of the prediction driver. */
#include "predict.h"

#include <string.h>

const char ip_relaxed_assumption[] =
    "relaxed boundary: assumes each boundary transaction issues the same "
    "operations after its changed reads as it did in the observed run";

void ip_predict_opts_default(ip_predict_opts *o)
{
    *o = (ip_predict_opts){.model = IP_LVL_CAUSAL,
                           .boundary = IP_BOUNDARY_RELAXED,
                           .encoding = IP_ENC_APPROX,
                           .timeout_ms = 600u * 1000u,
                           .max_predictions = 1,
                           .progress = NULL,
                           .search = IP_SEARCH_AUTO};
}

const char *ip_boundary_name(ip_boundary b)
{
    return b == IP_BOUNDARY_STRICT ? "strict" : "relaxed";
}

bool ip_boundary_parse(const char *s, ip_boundary *out)
{
    if (!strcmp(s, "strict"))
        *out = IP_BOUNDARY_STRICT;
    else if (!strcmp(s, "relaxed"))
        *out = IP_BOUNDARY_RELAXED;
    else
        return false;
    return true;
}

const char *ip_encoding_name(ip_encoding e)
{
    return e == IP_ENC_EXACT ? "exact"
         : e == IP_ENC_APPROX_RANK ? "approx-rank" : "approx";
}

bool ip_encoding_parse(const char *s, ip_encoding *out)
{
    if (!strcmp(s, "approx") || !strcmp(s, "approximate"))
        *out = IP_ENC_APPROX;
    else if (!strcmp(s, "exact") || !strcmp(s, "precise"))
        *out = IP_ENC_EXACT;
    else if (!strcmp(s, "approx-rank"))
        *out = IP_ENC_APPROX_RANK;
    else
        return false;
    return true;
}

/* Index of s in names[0, n), or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

bool ip_search_mode_parse(const char *s, ip_search_mode *out)
{
    static const char *const names[] = {
        [IP_SEARCH_AUTO] = "auto", [IP_SEARCH_EXHAUSTIVE] = "exhaustive",
        [IP_SEARCH_BOUNDED] = "bounded"};
    int i = name_index(names, 3, s);
    if (i >= 0)
        *out = (ip_search_mode)i;
    return i >= 0;
}

bool ip_weak_mode_parse(const char *s, ip_weak_mode *out)
{
    static const char *const names[] = {
        [IP_WEAK_AUTO] = "auto", [IP_WEAK_EAGER] = "eager",
        [IP_WEAK_LAZY] = "lazy"};
    int i = name_index(names, 3, s);
    if (i >= 0)
        *out = (ip_weak_mode)i;
    return i >= 0;
}

const char *ip_stop_name(ip_stop s)
{
    switch (s) {
    case IP_STOP_TIME: return "time limit";
    case IP_STOP_MEMORY: return "memory limit";
    case IP_STOP_INTERRUPT: return "interrupted";
    case IP_STOP_NONE: break;
    }
    return NULL;
}
