/*
 * strong_solve.c - the writer pairs pruning left open.
 *
 * First the cheap guess: order every open pair as the current topological
 * order does.  ww edges then all point forward; only rw edges can close a
 * cycle, and for serializable histories the guess usually stands.
 *
 * Otherwise lazy search (counterexample-guided): Z3 chooses one Boolean
 * per open pair ("first writer before second"); the chosen orders' edges
 * are added to the known graph and tested for a cycle; a cycle's
 * conditional edges come from some pairs, and the clause "not all of
 * these choices" excludes it.  Sat with an acyclic graph: valid.  Unsat:
 * every choice contains an excluded cycle, so none is valid.  Each answer
 * is checked on the graph itself, never taken on trust.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <z3.h>

#include "strong_graph.h"

typedef struct open_pair { uint32_t uk, i, j; } open_pair;

typedef struct search {
    sg_ctx *c;
    open_pair *p;
    uint64_t n;
    uint8_t *first;           /* per pair: 1 if writer i goes first */
    uint32_t known;           /* edges of the known graph */
    uint32_t *edge_first;     /* per pair: first of its edges; n+1 entries */
    uint64_t *cyc_pairs;      /* pairs on the last cycle (none yet: 0) */
    uint32_t n_cyc;
} search;

static uint32_t writer(const sg_ctx *c, uint32_t uk, uint32_t i)
{
    return c->uk_w[c->uk_first[uk] + i];
}

static open_pair *collect_open(const sg_ctx *c, uint64_t *n_out)
{
    uint64_t n = 0, cap = 64;
    open_pair *p = malloc(cap * sizeof *p);
    for (uint32_t uk = 0; p && uk < c->n_ukeys; uk++) {
        uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
        for (uint32_t i = 0; p && i < m; i++)
            for (uint32_t j = i + 1; j < m; j++) {
                if (*sg_ord(c, uk, i, j) != 0)
                    continue;
                if (n == cap) {
                    open_pair *q = realloc(p, 2 * cap * sizeof *q);
                    if (!q) {
                        free(p);
                        return NULL;
                    }
                    p = q;
                    cap *= 2;
                }
                p[n++] = (open_pair){ uk, i, j };
            }
    }
    *n_out = n;
    return p;
}

static bool add_pair_order(sg_ctx *c, const open_pair *p, bool i_first)
{
    uint32_t a = writer(c, p->uk, p->i), b = writer(c, p->uk, p->j);
    *sg_ord(c, p->uk, p->i, p->j) = i_first ? 1 : -1;
    *sg_ord(c, p->uk, p->j, p->i) = i_first ? -1 : 1;
    return sg_add_option(c, c->uk_key[p->uk], i_first ? a : b,
                         i_first ? b : a, 0);
}

/* The pair that added edge e (edges of pairs are appended in pair order). */
static uint64_t pair_of_edge(const search *s, uint32_t e)
{
    uint64_t lo = 0, hi = s->n;   /* edge_first[lo] <= e < edge_first[hi] */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->edge_first[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Replace the conditional edges by those of s->first and test the graph.
 * Returns false when out of memory; *acyclic tells the outcome, and on a
 * cycle s->cyc_pairs lists the pairs whose choices it uses. */
static bool try_choice(search *s, bool *acyclic)
{
    sg_ctx *c = s->c;
    c->g.n_edges = s->known;
    for (uint64_t k = 0; k < s->n; k++) {
        s->edge_first[k] = c->g.n_edges;
        if (!add_pair_order(c, &s->p[k], s->first[k]))
            return false;
    }
    s->edge_first[s->n] = c->g.n_edges;
    if (!sg_index(&c->g))
        return sg_oom(c);
    *acyclic = c->g.acyclic;
    if (*acyclic)
        return true;
    uint32_t len = 0;
    uint32_t *cyc = sg_find_cycle(&c->g, &len);
    if (!cyc)
        return sg_oom(c);
    s->n_cyc = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (cyc[i] < s->known)
            continue;
        uint64_t k = pair_of_edge(s, cyc[i]);
        bool dup = false;
        for (uint32_t q = 0; q < s->n_cyc; q++)
            dup = dup || s->cyc_pairs[q] == k;
        if (!dup)
            s->cyc_pairs[s->n_cyc++] = k;
    }
    free(cyc);
    return true;
}

bool sg_complete_by_topo(sg_ctx *c)
{
    uint64_t n;
    open_pair *p = collect_open(c, &n);
    if (!p)
        return sg_oom(c);
    bool ok = true;
    for (uint64_t k = 0; ok && k < n; k++) {
        uint32_t a = writer(c, p[k].uk, p[k].i), b = writer(c, p[k].uk, p[k].j);
        ok = add_pair_order(c, &p[k], c->g.topo_pos[sg_commit(c, a)] <
                                          c->g.topo_pos[sg_commit(c, b)]);
    }
    free(p);
    return ok;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static Z3_ast pair_var(Z3_context z, uint64_t k)
{
    return Z3_mk_const(z, Z3_mk_int_symbol(z, (int)k), Z3_mk_bool_sort(z));
}

/* Exclude the last cycle: some pair on it must choose the other order. */
static bool exclude_cycle(const search *s, Z3_context z, Z3_solver sv)
{
    Z3_ast *lits = malloc((s->n_cyc ? s->n_cyc : 1) * sizeof *lits);
    if (!lits)
        return false;
    for (uint32_t q = 0; q < s->n_cyc; q++) {
        Z3_ast v = pair_var(z, s->cyc_pairs[q]);
        lits[q] = s->first[s->cyc_pairs[q]] ? Z3_mk_not(z, v) : v;
    }
    Z3_solver_assert(z, sv, Z3_mk_or(z, s->n_cyc, lits));
    free(lits);
    return true;
}

static bool read_model(search *s, Z3_context z, Z3_solver sv)
{
    Z3_model m = Z3_solver_get_model(z, sv);
    if (!m)
        return false;
    Z3_model_inc_ref(z, m);
    bool ok = true;
    for (uint64_t k = 0; ok && k < s->n; k++) {
        Z3_ast v = NULL;
        ok = Z3_model_eval(z, m, pair_var(z, k), true, &v);
        s->first[k] = ok && Z3_get_bool_value(z, v) == Z3_L_TRUE;
    }
    Z3_model_dec_ref(z, m);
    return ok;
}

/* The lazy loop; the graph holds the last tried choice's edges. */
static ip_check_result lazy(search *s, Z3_context z, unsigned timeout_ms)
{
    sg_ctx *c = s->c;
    double deadline = now_ms() + timeout_ms;
    Z3_solver sv = Z3_mk_solver(z);
    Z3_solver_inc_ref(z, sv);
    Z3_params prm = Z3_mk_params(z);
    Z3_params_inc_ref(z, prm);
    ip_check_result res = IP_CHECK_ERROR;
    c->stats->solver_calls = 0;
    for (;;) {
        if (s->n_cyc > 0 && !exclude_cycle(s, z, sv)) {
            sg_oom(c);
            break;
        }
        double left = deadline - now_ms();
        if (timeout_ms && left < 1) {
            res = IP_CHECK_UNKNOWN;
            break;
        }
        if (timeout_ms) {
            Z3_params_set_uint(z, prm, Z3_mk_string_symbol(z, "timeout"),
                               (unsigned)left);
            Z3_solver_set_params(z, sv, prm);
        }
        c->stats->solver_calls++;
        Z3_lbool r = Z3_solver_check(z, sv);
        if (Z3_get_error_code(z) != Z3_OK) {
            ip_fail(c->err, "ser/si check: Z3 failed: %s",
                    Z3_get_error_msg(z, Z3_get_error_code(z)));
            break;
        }
        if (r != Z3_L_TRUE) {
            res = r == Z3_L_FALSE ? IP_CHECK_VIOLATION : IP_CHECK_UNKNOWN;
            break;
        }
        bool acyclic = false;
        if (!read_model(s, z, sv)) {
            ip_fail(c->err, "ser/si check: Z3 model evaluation failed");
            break;
        }
        if (!try_choice(s, &acyclic))
            break;
        if (acyclic) {
            res = IP_CHECK_OK;
            break;
        }
    }
    Z3_params_dec_ref(z, prm);
    Z3_solver_dec_ref(z, sv);
    return res;
}

/* Unsat: show a cycle under the topological completion of the known
 * graph (every completion has one). */
static bool violation_witness(search *s)
{
    sg_ctx *c = s->c;
    c->g.n_edges = s->known;
    for (uint64_t k = 0; k < s->n; k++) {
        *sg_ord(c, s->p[k].uk, s->p[k].i, s->p[k].j) = 0;
        *sg_ord(c, s->p[k].uk, s->p[k].j, s->p[k].i) = 0;
    }
    if (!sg_index(&c->g))
        return sg_oom(c);
    if (!sg_complete_by_topo(c))
        return false;
    if (!sg_index(&c->g))
        return sg_oom(c);
    if (c->g.acyclic)
        return ip_fail(c->err, "ser/si check: internal error: solver found "
                               "no valid order, the completion has no cycle");
    return true;
}

ip_check_result sg_solve(sg_ctx *c, unsigned timeout_ms, bool no_guess)
{
    search s = { .c = c, .known = c->g.n_edges };
    s.p = collect_open(c, &s.n);
    s.first = malloc(s.n ? s.n : 1);
    s.edge_first = malloc((s.n + 1) * sizeof *s.edge_first);
    s.cyc_pairs = malloc((s.n ? s.n : 1) * sizeof *s.cyc_pairs);
    ip_check_result res = IP_CHECK_ERROR;
    if (!s.p || !s.first || !s.edge_first || !s.cyc_pairs) {
        sg_oom(c);
        goto out;
    }
    for (uint64_t k = 0; k < s.n; k++) {
        uint32_t a = writer(c, s.p[k].uk, s.p[k].i);
        uint32_t b = writer(c, s.p[k].uk, s.p[k].j);
        s.first[k] = c->g.topo_pos[sg_commit(c, a)] <
                     c->g.topo_pos[sg_commit(c, b)];
    }
    bool acyclic = false;
    if (!no_guess && !try_choice(&s, &acyclic))
        goto out;
    if (acyclic) {
        res = IP_CHECK_OK;
        goto out;
    }
    Z3_config cfg = Z3_mk_config();
    Z3_context z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(z, NULL);
    res = lazy(&s, z, timeout_ms);
    Z3_del_context(z);
    if (res == IP_CHECK_VIOLATION && !violation_witness(&s))
        res = IP_CHECK_ERROR;
out:
    free(s.p);
    free(s.first);
    free(s.edge_first);
    free(s.cyc_pairs);
    return res;
}
