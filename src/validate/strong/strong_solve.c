/*
 * strong_solve.c - the writer pairs pruning left open.
 *
 * First the cheap guess: order every open pair as the current topological
 * order does.  ww edges then all point forward; only rw edges can close a
 * cycle, and for serializable histories the guess usually stands.
 *
 * Otherwise lazy search (counterexample-guided): Z3 chooses one Boolean
 * per open pair, "deviate from the guess" (false is the SAT solver's
 * default phase, so unconstrained pairs keep the guess); the chosen
 * orders' edges are added to the known graph and tested; every cycle found
 * (up to MAX_CYCLES a round) uses conditional edges of some pairs, and the
 * clause "not all of these choices" excludes it.  Sat with an acyclic
 * graph: valid.  Unsat: every choice contains an excluded cycle, so none
 * is valid.  Each answer is checked on the graph itself.
 */
#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "strong_graph.h"

#define MAX_CYCLES 4096   /* clauses gathered per graph test */

typedef struct open_pair { uint32_t uk, i, j; } open_pair;

typedef struct search {
    sg_ctx *c;
    open_pair *p;
    uint64_t n;
    uint8_t *first;           /* per pair: 1 if writer i goes first */
    uint8_t *guess, *dev;     /* first = guess xor dev */
    uint32_t known;           /* edges of the known graph */
    uint32_t *edge_first;     /* per pair: first of its edges; n+1 entries */
    /* clauses from the last test: pairs of clause q are
     * cl_pair[cl_first[q] .. cl_first[q+1]) */
    uint64_t *cl_pair;
    uint32_t *cl_first, n_cl, cap_pair;
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

/* Record a cycle's pairs as a clause. */
static bool add_clause(void *env, const uint32_t *edges, uint32_t len)
{
    search *s = env;
    uint32_t at = s->cl_first[s->n_cl];
    if (at + len > s->cap_pair) {
        uint32_t cap = 2 * (at + len);
        uint64_t *q = realloc(s->cl_pair, cap * sizeof *q);
        if (!q)
            return false;
        s->cl_pair = q;
        s->cap_pair = cap;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (edges[i] < s->known)
            continue;
        uint64_t k = pair_of_edge(s, edges[i]);
        bool dup = false;
        for (uint32_t q = 0; q < n; q++)
            dup = dup || s->cl_pair[at + q] == k;
        if (!dup)
            s->cl_pair[at + n++] = k;
    }
    s->cl_first[++s->n_cl] = at + n;
    return true;
}

/* Replace the conditional edges by those of s->first and test the graph.
 * Returns false when out of memory; *acyclic tells the outcome, and the
 * cycles found are left as clauses. */
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
    s->n_cl = 0;
    if (*acyclic)
        return true;
    if (sg_many_cycles(&c->g, s->known, MAX_CYCLES, add_clause, s) <= 0)
        return sg_oom(c);
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

static Z3_ast pair_var(Z3_context z, uint64_t k)
{
    return Z3_mk_const(z, Z3_mk_int_symbol(z, (int)k), Z3_mk_bool_sort(z));
}

/* Exclude the cycles of the last test: on each, some pair must choose the
 * other order. */
static bool exclude_cycles(const search *s, Z3_context z, Z3_solver sv)
{
    Z3_ast *lits = NULL;
    for (uint32_t q = 0; q < s->n_cl; q++) {
        uint32_t n = s->cl_first[q + 1] - s->cl_first[q];
        Z3_ast *l = realloc(lits, (n ? n : 1) * sizeof *l);
        if (!l) {
            free(lits);
            return false;
        }
        lits = l;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t k = s->cl_pair[s->cl_first[q] + i];
            Z3_ast v = pair_var(z, k);
            lits[i] = s->dev[k] ? Z3_mk_not(z, v) : v;
        }
        Z3_solver_assert(z, sv, Z3_mk_or(z, n, lits));
    }
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
        s->dev[k] = ok && Z3_get_bool_value(z, v) == Z3_L_TRUE;
        s->first[k] = s->guess[k] ^ s->dev[k];
    }
    Z3_model_dec_ref(z, m);
    return ok;
}

/* The lazy loop; the graph holds the last tried choice's edges. */
static ip_check_result lazy(search *s, Z3_context z, unsigned timeout_ms)
{
    sg_ctx *c = s->c;
    double deadline = 1000.0 * ip_now() + timeout_ms;
    Z3_solver sv = Z3_mk_solver(z);
    Z3_solver_inc_ref(z, sv);
    Z3_params prm = Z3_mk_params(z);
    Z3_params_inc_ref(z, prm);
    ip_check_result res = IP_CHECK_ERROR;
    c->stats->solver_calls = 0;
    for (;;) {
        if (!exclude_cycles(s, z, sv)) {
            sg_oom(c);
            break;
        }
        double left = deadline - 1000.0 * ip_now();
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
    s.guess = malloc(s.n ? s.n : 1);
    s.dev = calloc(s.n ? s.n : 1, 1);
    s.cl_first = calloc(MAX_CYCLES + 1, sizeof *s.cl_first);
    ip_check_result res = IP_CHECK_ERROR;
    if (!s.p || !s.first || !s.edge_first || !s.guess || !s.dev ||
        !s.cl_first) {
        sg_oom(c);
        goto out;
    }
    for (uint64_t k = 0; k < s.n; k++) {
        uint32_t a = writer(c, s.p[k].uk, s.p[k].i);
        uint32_t b = writer(c, s.p[k].uk, s.p[k].j);
        s.guess[k] = c->g.topo_pos[sg_commit(c, a)] <
                     c->g.topo_pos[sg_commit(c, b)];
        s.first[k] = s.guess[k];
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
    free(s.guess);
    free(s.dev);
    free(s.cl_pair);
    free(s.cl_first);
    return res;
}
