/*
 * strong_check.c - the ser/si checker's phases in order: known graph,
 * chained keys, pruning, solver; then the witness.  The entry points are
 * strong_entry.c; histories with ambiguous reads come here through
 * strong_ambig.c, one choice of writers at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_check.h"

void sg_ctx_free(sg_ctx *c)
{
    sg_graph_free(&c->g);
    free(c->rd_first);
    free(c->rd);
    free(c->rd_wev);
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
    sg_status st = sg_prune(c, sopts);
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

void sg_frame_begin(sg_frame *f, bool si, const ip_strong_opts **sopts,
                    ip_verdict *out, ip_strong_stats **stats, ip_error **err)
{
    f->t0 = ip_now();
    f->no_opts = (ip_strong_opts){ false, false, false, 0, IP_REACH_AUTO };
    if (!*stats)
        *stats = &f->stats;
    if (!*sopts)
        *sopts = &f->no_opts;
    if (!*err)
        *err = &f->err;
    memset(*stats, 0, sizeof **stats);
    memset(out, 0, sizeof *out);
    (*err)->msg[0] = '\0';
    out->level = si ? IP_LVL_SI : IP_LVL_SER;
}

ip_check_result sg_frame_end(const sg_frame *f, bool si, ip_check_result res,
                             ip_verdict *out)
{
    out->level = si ? IP_LVL_SI : IP_LVL_SER;
    /* no half-made witnesses */
    if (res != IP_CHECK_OK && res != IP_CHECK_VIOLATION)
        ip_verdict_free(out);
    out->result = res;
    out->seconds = ip_now() - f->t0;
    return res;
}

ip_check_result sg_check_open(const ip_trace *view, bool si,
                              const ip_check_opts *opts,
                              const ip_strong_opts *sopts, const sg_open *open,
                              ip_verdict *out, ip_strong_stats *stats,
                              ip_error *err)
{
    sg_frame f;
    sg_frame_begin(&f, si, &sopts, out, &stats, &err);
    ip_check_result res = IP_CHECK_VIOLATION;
    if (view->n_anomalies > 0) {
        out->n_anomalies = view->n_anomalies;
    } else {
        sg_ctx c = { .t = view, .si = si, .stats = stats, .err = err,
                     .open = open };
        res = decide(&c, opts, sopts);
        if (res == IP_CHECK_OK && !sg_order_witness(&c, out))
            res = IP_CHECK_ERROR;
        if (res == IP_CHECK_VIOLATION && !sg_cycle_witness(&c, out))
            res = IP_CHECK_ERROR;
        sg_ctx_free(&c);
    }
    return sg_frame_end(&f, si, res, out);
}
