/*
 * strong_entry.c - the entry points of the ser and si checkers (strong.h): a
 * mini-transaction history goes to its linear-time checker (strong_mt.c), a
 * history whose reads each name one writer to the general checker
 * (strong_check.c), one with ambiguous reads to the search over their
 * writers (strong_ambig.c), which calls the checker for each choice.
 */
#include "strong_ambig.h"

ip_check_result ip_check_strong(const ip_trace *t, bool si,
                                const ip_check_opts *opts,
                                const ip_strong_opts *sopts, ip_verdict *out,
                                ip_strong_stats *stats, ip_error *err)
{
    if (!(opts && opts->general) && !sopts && ip_trace_mini(t, NULL))
        return sg_check_mini(t, si, out, stats, err);
    if (t->n_anomalies > 0 || ip_trace_unique(t))
        return sg_check_open(t, si, opts, sopts, NULL, out, stats, err);
    sg_frame f;
    sg_frame_begin(&f, si, &sopts, out, &stats, &err);
    ip_check_result res = sg_check_ambiguous(t, si, opts, sopts, out, stats,
                                             err);
    return sg_frame_end(&f, si, res, out);
}

ip_check_result ip_check_ser(const ip_trace *t, const ip_check_opts *opts,
                             ip_verdict *out, ip_error *err)
{
    return ip_check_strong(t, false, opts, NULL, out, NULL, err);
}

ip_check_result ip_check_si(const ip_trace *t, const ip_check_opts *opts,
                            ip_verdict *out, ip_error *err)
{
    return ip_check_strong(t, true, opts, NULL, out, NULL, err);
}
