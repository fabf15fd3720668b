/*
 * judge.c - the weak checkers: co' = so u wr saturated by the level's axiom,
 * with the known version orders' ww edges (wk_add_versions), then judged
 * acyclic (witness: a topological order) or not (witness: one cycle per
 * SCC).  Read-consistency anomalies fail every level.
 */
#include "weak.h"

#include <stdlib.h>

/* For causal, co' is only defined once so u wr is acyclic: a so u wr cycle
 * is reported as it is (AWDIT section 3.4).  *sowr_acyclic says which. */
static bool saturate_cc(const ip_trace *t, wk_edges *g, uint32_t *order,
                        bool *sowr_acyclic)
{
    wk_csr c = {0};
    if (!wk_csr_build(&c, t->n_txns, g))
        return false;
    uint32_t n = wk_topo_order(t, g, &c, order);
    wk_csr_free(&c);
    if (n == IP_NONE)
        return false;         /* out of memory, not a cycle */
    if (n < ip_committed_count(t) + 1)
        return true;
    *sowr_acyclic = true;
    wk_clocks vc;
    if (!wk_clocks_build(&vc, t, order, n))
        return false;
    bool ok = wk_saturate_cc(t, &vc, g);
    wk_clocks_free(&vc);
    return ok;
}

static bool saturate(const ip_trace *t, ip_level lvl, wk_edges *g,
                     uint32_t *order, bool *sowr_acyclic)
{
    switch (lvl) {
    case IP_LVL_RC: return wk_saturate_rc(t, g);
    case IP_LVL_RA: return wk_saturate_ra(t, g);
    default: return saturate_cc(t, g, order, sowr_acyclic);
    }
}

/* Decide from the saturated g: order on success, cycles on failure.
 * Takes order (freed unless it becomes the witness); false when out of
 * memory. */
static bool judge(const ip_trace *t, const wk_edges *g, uint32_t *order,
                  bool sowr_acyclic, const ip_check_opts *opts,
                  ip_verdict *out)
{
    wk_csr c = {0};
    if (!wk_csr_build(&c, t->n_txns, g)) {
        free(order);
        return false;
    }
    uint32_t n = wk_topo_order(t, g, &c, order);
    bool ok = n != IP_NONE;   /* else out of memory, not a cycle */
    if (ok && n == ip_committed_count(t) + 1 && t->n_anomalies == 0) {
        out->result = IP_CHECK_OK;
        out->order = order;
        out->n_order = n;
        wk_csr_free(&c);
        return true;
    }
    free(order);
    if (ok) {
        out->result = IP_CHECK_VIOLATION;
        if (n < ip_committed_count(t) + 1)    /* else anomalies only */
            ok = wk_cycles(t, g, &c, sowr_acyclic,
                           opts ? opts->max_cycles : 0, out);
    }
    wk_csr_free(&c);
    return ok;
}

ip_check_result wk_check(const ip_trace *t, ip_level lvl,
                         const ip_check_opts *opts, ip_verdict *out,
                         ip_error *err)
{
    wk_edges g = {0};
    bool sowr_acyclic = false;
    uint32_t *order = malloc(((size_t)t->n_txns + 1) * sizeof *order);
    bool ok = order && wk_add_so_wr(t, &g) &&
              saturate(t, lvl, &g, order, &sowr_acyclic) &&
              wk_add_versions(t, &g);
    if (ok)
        ok = judge(t, &g, order, sowr_acyclic, opts, out);   /* takes order */
    else
        free(order);
    wk_edges_free(&g);
    if (!ok) {
        ip_oom(err, "out of memory while checking %s", ip_level_name(lvl));
        return out->result = IP_CHECK_ERROR;
    }
    return out->result;
}
