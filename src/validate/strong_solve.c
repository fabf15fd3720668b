/*
 * strong_solve.c - the writer pairs pruning left open, decided by Z3.
 *
 * Encoding (difference logic): an integer rank per point, rank(x) <
 * rank(y) for every known edge x -> y, and per open pair a Boolean b with
 * b => the edges of "a before b", !b => those of "b before a".  Ranks make
 * every satisfying choice acyclic and, per key, transitive (a cycle among
 * writers would be a rank cycle), so models are exactly the valid
 * completions.  Only points on a known path between two endpoints of
 * conditional edges are encoded: no other point can lie on a new cycle.
 */
#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "strong_graph.h"

typedef struct open_pair { uint32_t uk, i, j; } open_pair;

typedef struct enc {
    sg_ctx *c;
    Z3_context z;
    Z3_ast *rank;             /* per point, NULL if not encoded */
    uint8_t *mark;            /* conflict point marks, then reach marks */
    Z3_ast *conj;             /* edges of the order being encoded */
    uint32_t n_conj, cap_conj;
    bool oom;
} enc;

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

static bool mark_ends(void *env, const sg_edge *e)
{
    enc *x = env;
    x->mark[e->from] |= 1;
    x->mark[e->to] |= 1;
    return true;
}

/* Points both reachable from and reaching a conflict point: bit 2 = from
 * (forward, in topological order), bit 4 = reaching (backward). */
static void mark_relevant(enc *x)
{
    const sg_graph *g = &x->c->g;
    for (uint32_t k = 0; k < g->n_points; k++) {
        uint32_t p = g->topo[k];
        if (x->mark[p] & 1)
            x->mark[p] |= 2;
        if (x->mark[p] & 2)
            for (uint32_t i = g->out_first[p]; i < g->out_first[p + 1]; i++)
                x->mark[g->edges[g->out_edge[i]].to] |= 2;
    }
    for (uint32_t k = g->n_points; k-- > 0;) {
        uint32_t p = g->topo[k];
        if (x->mark[p] & 1)
            x->mark[p] |= 4;
        if (x->mark[p] & 4)
            for (uint32_t i = g->in_first[p]; i < g->in_first[p + 1]; i++)
                x->mark[g->edges[g->in_edge[i]].from] |= 4;
    }
}

static Z3_ast rank_of(enc *x, uint32_t p)
{
    if (!x->rank[p]) {
        Z3_sort s = Z3_mk_int_sort(x->z);
        x->rank[p] = Z3_mk_const(x->z, Z3_mk_int_symbol(x->z, (int)p), s);
    }
    return x->rank[p];
}

static bool add_conj(void *env, const sg_edge *e)
{
    enc *x = env;
    if (x->n_conj == x->cap_conj) {
        uint32_t cap = x->cap_conj ? 2 * x->cap_conj : 16;
        Z3_ast *q = realloc(x->conj, cap * sizeof *q);
        if (!q) {
            x->oom = true;
            return false;
        }
        x->conj = q;
        x->cap_conj = cap;
    }
    x->conj[x->n_conj++] = Z3_mk_lt(x->z, rank_of(x, e->from),
                                    rank_of(x, e->to));
    return true;
}

/* The conjunction of the edges of "writer i before writer j". */
static Z3_ast order_formula(enc *x, const open_pair *p, bool i_first)
{
    const sg_ctx *c = x->c;
    uint32_t a = writer(c, p->uk, p->i), b = writer(c, p->uk, p->j);
    x->n_conj = 0;
    sg_option_edges(c, c->uk_key[p->uk], i_first ? a : b, i_first ? b : a, 0,
                    add_conj, x);
    return Z3_mk_and(x->z, x->n_conj, x->conj);
}

static void assert_known(enc *x, Z3_solver s)
{
    const sg_graph *g = &x->c->g;
    for (uint32_t e = 0; e < g->n_edges; e++) {
        uint32_t u = g->edges[e].from, v = g->edges[e].to;
        if ((x->mark[u] & 6) == 6 && (x->mark[v] & 6) == 6)
            Z3_solver_assert(x->z, s, Z3_mk_lt(x->z, rank_of(x, u),
                                               rank_of(x, v)));
    }
}

static Z3_ast pair_var(enc *x, uint64_t k)
{
    Z3_symbol sym = Z3_mk_int_symbol(x->z, (int)(x->c->g.n_points + k));
    return Z3_mk_const(x->z, sym, Z3_mk_bool_sort(x->z));
}

/* Add the edges the model chose (or, without a model, the topological
 * completion). */
static bool apply_model(enc *x, Z3_model m, const open_pair *p, uint64_t n)
{
    sg_ctx *c = x->c;
    for (uint64_t k = 0; k < n; k++) {
        Z3_ast v = NULL;
        if (!Z3_model_eval(x->z, m, pair_var(x, k), true, &v))
            return ip_fail(c->err, "ser/si check: Z3 model evaluation failed");
        bool i_first = Z3_get_bool_value(x->z, v) == Z3_L_TRUE;
        uint32_t a = writer(c, p[k].uk, p[k].i), b = writer(c, p[k].uk, p[k].j);
        *sg_ord(c, p[k].uk, p[k].i, p[k].j) = i_first ? 1 : -1;
        *sg_ord(c, p[k].uk, p[k].j, p[k].i) = i_first ? -1 : 1;
        if (!sg_add_option(c, c->uk_key[p[k].uk], i_first ? a : b,
                           i_first ? b : a, 0))
            return false;
    }
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
        bool a_first = c->g.topo_pos[sg_commit(c, a)] <
                       c->g.topo_pos[sg_commit(c, b)];
        *sg_ord(c, p[k].uk, p[k].i, p[k].j) = a_first ? 1 : -1;
        *sg_ord(c, p[k].uk, p[k].j, p[k].i) = a_first ? -1 : 1;
        ok = sg_add_option(c, c->uk_key[p[k].uk], a_first ? a : b,
                           a_first ? b : a, 0);
    }
    free(p);
    return ok;
}

static ip_check_result run(enc *x, const open_pair *p, uint64_t n,
                           unsigned timeout_ms)
{
    sg_ctx *c = x->c;
    Z3_context z = x->z;
    Z3_solver s = Z3_mk_solver_for_logic(z, Z3_mk_string_symbol(z, "QF_IDL"));
    Z3_solver_inc_ref(z, s);
    Z3_params prm = Z3_mk_params(z);
    Z3_params_inc_ref(z, prm);
    if (timeout_ms)
        Z3_params_set_uint(z, prm, Z3_mk_string_symbol(z, "timeout"),
                           timeout_ms);
    Z3_solver_set_params(z, s, prm);
    assert_known(x, s);
    for (uint64_t k = 0; k < n && !x->oom; k++) {
        Z3_ast b = pair_var(x, k);
        Z3_ast yes = order_formula(x, &p[k], true);
        Z3_ast no = order_formula(x, &p[k], false);
        Z3_solver_assert(z, s, Z3_mk_implies(z, b, yes));
        Z3_solver_assert(z, s, Z3_mk_implies(z, Z3_mk_not(z, b), no));
    }
    ip_check_result res = IP_CHECK_ERROR;
    if (x->oom) {
        sg_oom(c);
        goto out;
    }
    c->stats->solver_calls++;
    Z3_lbool r = Z3_solver_check(z, s);
    if (Z3_get_error_code(z) != Z3_OK) {
        ip_fail(c->err, "ser/si check: Z3 failed: %s",
                Z3_get_error_msg(z, Z3_get_error_code(z)));
    } else if (r == Z3_L_UNDEF) {
        res = IP_CHECK_UNKNOWN;
    } else if (r == Z3_L_TRUE) {
        Z3_model m = Z3_solver_get_model(z, s);
        Z3_model_inc_ref(z, m);
        if (apply_model(x, m, p, n))
            res = IP_CHECK_OK;
        Z3_model_dec_ref(z, m);
    } else if (sg_complete_by_topo(c)) {
        res = IP_CHECK_VIOLATION;
    }
out:
    Z3_params_dec_ref(z, prm);
    Z3_solver_dec_ref(z, s);
    return res;
}

ip_check_result sg_solve(sg_ctx *c, unsigned timeout_ms)
{
    uint64_t n = 0;
    uint32_t np = c->g.n_points;
    enc x = { .c = c };
    open_pair *p = collect_open(c, &n);
    x.rank = calloc(np ? np : 1, sizeof *x.rank);
    x.mark = calloc(np ? np : 1, 1);
    ip_check_result res = IP_CHECK_ERROR;
    if (!p || !x.rank || !x.mark) {
        sg_oom(c);
        goto out;
    }
    for (uint64_t k = 0; k < n; k++) {
        const sg_ctx *cc = c;
        sg_option_edges(cc, c->uk_key[p[k].uk], writer(c, p[k].uk, p[k].i),
                        writer(c, p[k].uk, p[k].j), 0, mark_ends, &x);
        sg_option_edges(cc, c->uk_key[p[k].uk], writer(c, p[k].uk, p[k].j),
                        writer(c, p[k].uk, p[k].i), 0, mark_ends, &x);
    }
    mark_relevant(&x);
    Z3_config cfg = Z3_mk_config();
    x.z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(x.z, NULL);
    res = run(&x, p, n, timeout_ms);
    Z3_del_context(x.z);
    if (res == IP_CHECK_OK || res == IP_CHECK_VIOLATION) {
        if (!sg_index(&c->g)) {
            res = IP_CHECK_ERROR;
            sg_oom(c);
        } else if (c->g.acyclic != (res == IP_CHECK_OK)) {
            res = IP_CHECK_ERROR;
            ip_fail(c->err, "ser/si check: internal error: solver answer "
                            "contradicted by the completed graph");
        }
    }
out:
    free(p);
    free(x.rank);
    free(x.mark);
    free(x.conj);
    return res;
}
