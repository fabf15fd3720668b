/*
 * strong_check.c - the ser/si checker's phases in order: known graph,
 * chained keys, pruning, solver; then the witness.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_ambig.h"
#include "strong_graph.h"

static void free_ctx(sg_ctx *c)
{
    sg_graph_free(&c->g);
    free(c->rd_first);
    free(c->rd);
    free(c->rf_first);
    free(c->rf);
    free(c->uk_key);
    free(c->uk_first);
    free(c->uk_w);
    free(c->uk_ev);
    free(c->uk_ord);
    free(c->ord);
}

/* Decide with the graph built so far; the graph is indexed on return. */
static ip_check_result decide(sg_ctx *c, const ip_check_opts *opts,
                              const ip_strong_opts *sopts)
{
    double t0 = ip_now();
    if (!sg_build_known(c))
        return IP_CHECK_ERROR;
    if (!sg_index(&c->g)) {
        sg_oom(c);
        return IP_CHECK_ERROR;
    }
    if (!c->g.acyclic)
        return IP_CHECK_VIOLATION;       /* so ∪ wr alone is cyclic */
    if (!sg_chain_keys(c, sopts->no_chains))
        return IP_CHECK_ERROR;
    double t1 = ip_now();
    c->stats->sec_known = t1 - t0;
    sg_status st = sg_prune(c, sopts->no_pruning, sopts->bitset_words);
    double t2 = ip_now();
    c->stats->sec_prune = t2 - t1;
    if (st == SG_DONE && c->open && c->open->n)
        st = SG_OPEN;               /* the chosen reads are still to come */
    if (st != SG_OPEN)
        return st == SG_CONFLICT ? IP_CHECK_VIOLATION
               : st == SG_DONE   ? IP_CHECK_OK
                                 : IP_CHECK_ERROR;
    ip_check_result res = sg_solve(c, opts ? opts->timeout_ms : 0,
                                   sopts->no_guess);
    c->stats->sec_solve = ip_now() - t2;
    return res;
}

/* ip_check_strong, with `open` reads whose writer the search chooses
 * (NULL: none). */
static ip_check_result run(const ip_trace *t, bool si,
                           const ip_check_opts *opts,
                           const ip_strong_opts *sopts, const sg_open *open,
                           ip_verdict *out, ip_strong_stats *stats,
                           ip_error *err)
{
    double t0 = ip_now();
    ip_strong_stats local_stats;
    ip_strong_opts no_opts = { false, false, false, 0 };
    ip_error local_err;
    if (!stats)
        stats = &local_stats;
    if (!sopts)
        sopts = &no_opts;
    if (!err)
        err = &local_err;
    memset(stats, 0, sizeof *stats);
    memset(out, 0, sizeof *out);
    err->msg[0] = '\0';
    out->level = si ? IP_LVL_SI : IP_LVL_SER;
    ip_check_result res = IP_CHECK_VIOLATION;
    if (t->n_anomalies > 0) {
        out->n_anomalies = t->n_anomalies;
    } else if (!open && !ip_trace_unique(t)) {
        res = sg_check_ambiguous(t, si, opts, sopts, out, stats, err);
        out->level = si ? IP_LVL_SI : IP_LVL_SER;
    } else {
        sg_ctx c = { .t = t, .si = si, .stats = stats, .err = err,
                     .open = open };
        res = decide(&c, opts, sopts);
        if (res == IP_CHECK_OK && !sg_order_witness(&c, out))
            res = IP_CHECK_ERROR;
        if (res == IP_CHECK_VIOLATION && !sg_cycle_witness(&c, out))
            res = IP_CHECK_ERROR;
        free_ctx(&c);
    }
    /* no half-made witnesses */
    if (res != IP_CHECK_OK && res != IP_CHECK_VIOLATION)
        ip_verdict_free(out);
    out->result = res;
    out->seconds = ip_now() - t0;
    return res;
}

ip_check_result ip_check_strong(const ip_trace *t, bool si,
                                const ip_check_opts *opts,
                                const ip_strong_opts *sopts, ip_verdict *out,
                                ip_strong_stats *stats, ip_error *err)
{
    return run(t, si, opts, sopts, NULL, out, stats, err);
}

ip_check_result sg_check_open(const ip_trace *view, bool si,
                              const ip_check_opts *opts,
                              const ip_strong_opts *sopts, const sg_open *open,
                              ip_verdict *out, ip_strong_stats *stats,
                              ip_error *err)
{
    return run(view, si, opts, sopts, open, out, stats, err);
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
