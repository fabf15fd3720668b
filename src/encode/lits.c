/* lits.c - Boolean literal helpers that fold constants, and clause output. */
#include "enc_internal.h"


bool lit_is_true(const ip_encoder *e, Z3_ast a) { return a == e->t; }
bool lit_is_false(const ip_encoder *e, Z3_ast a) { return !a || a == e->f; }

Z3_ast lit_not(ip_encoder *e, Z3_ast a)
{
    if (lit_is_true(e, a))
        return e->f;
    if (lit_is_false(e, a))
        return e->t;
    return Z3_mk_not(e->z, a);
}

Z3_ast lit_and2(ip_encoder *e, Z3_ast a, Z3_ast b)
{
    Z3_ast v[2] = { a, b };
    return lit_and(e, v, 2);
}

Z3_ast lit_or2(ip_encoder *e, Z3_ast a, Z3_ast b)
{
    Z3_ast v[2] = { a, b };
    return lit_or(e, v, 2);
}

/* The literals one junction term takes at most (the callers pass 2-8). */
enum { JUNCTION_MAX = 8 };

/* AND (is_and) or OR of n literals: the dominating constant wins, the
 * neutral one is dropped.  More than JUNCTION_MAX are joined a block at a
 * time, so that no n overruns the buffer. */
static Z3_ast junction(ip_encoder *e, Z3_ast *a, uint32_t n, bool is_and)
{
    if (n > JUNCTION_MAX) {
        Z3_ast two[2] = {junction(e, a, JUNCTION_MAX, is_and),
                         junction(e, a + JUNCTION_MAX, n - JUNCTION_MAX,
                                  is_and)};
        return junction(e, two, 2, is_and);
    }
    Z3_ast dominant = is_and ? e->f : e->t, neutral = is_and ? e->t : e->f;
    Z3_ast keep[JUNCTION_MAX];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        Z3_ast x = a[i] ? a[i] : e->f;
        if (x == dominant)
            return dominant;
        if (x != neutral)
            keep[k++] = x;
    }
    if (k == 0)
        return neutral;
    if (k == 1)
        return keep[0];
    return is_and ? Z3_mk_and(e->z, k, keep) : Z3_mk_or(e->z, k, keep);
}

Z3_ast lit_and(ip_encoder *e, Z3_ast *a, uint32_t n)
{
    return junction(e, a, n, true);
}

Z3_ast lit_or(ip_encoder *e, Z3_ast *a, uint32_t n)
{
    return junction(e, a, n, false);
}

/* Variables are named by a number of their encoder's: a string symbol is
 * interned in a table Z3 shares between threads, under a lock (3 % of a
 * smallbank triage run, bench/predict/RESULTS.md, "Probes"). */
static Z3_symbol next_symbol(ip_encoder *e)
{
    return Z3_mk_int_symbol(e->z, (int)e->n_symbols++);
}

Z3_ast lit_var(ip_encoder *e)
{
    return Z3_mk_const(e->z, next_symbol(e), Z3_mk_bool_sort(e->z));
}

Z3_ast lit_int(ip_encoder *e)
{
    return Z3_mk_const(e->z, next_symbol(e), Z3_mk_int_sort(e->z));
}

Z3_ast lit_lt(ip_encoder *e, Z3_ast a, Z3_ast b)
{
    if (!b)
        return e->f;
    if (!a)
        return e->t;
    return Z3_mk_lt(e->z, a, b);
}

void enc_assert(ip_encoder *e, Z3_ast a)
{
    if (lit_is_true(e, a))
        return;
    Z3_solver_assert(e->z, e->s, a);
    e->st.literals += 1;
}

void enc_clause(ip_encoder *e, Z3_ast *lits, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (lit_is_true(e, lits[i]))
            return;
        if (!lit_is_false(e, lits[i]))
            lits[k++] = lits[i];
    }
    e->st.literals += k ? k : 1;
    if (k == 0)
        Z3_solver_assert(e->z, e->s, e->f);
    else if (k == 1)
        Z3_solver_assert(e->z, e->s, lits[0]);
    else
        Z3_solver_assert(e->z, e->s, Z3_mk_or(e->z, k, lits));
}

Z3_ast lit_or_def(ip_encoder *e, Z3_ast *terms, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t m = 0; m < n; m++) {
        if (lit_is_true(e, terms[m]))
            return e->t;
        if (!lit_is_false(e, terms[m]))
            terms[k++] = terms[m];
    }
    if (k == 0)
        return e->f;
    if (k == 1)
        return terms[0];
    Z3_ast v = lit_var(e);
    enc_assert(e, Z3_mk_eq(e->z, v, Z3_mk_or(e->z, k, terms)));
    e->st.literals += k;
    return v;
}

bool enc_z3_ok(ip_encoder *e, ip_error *err, const char *what)
{
    Z3_error_code c = Z3_get_error_code(e->z);
    if (c == Z3_OK)
        return true;
    return ip_fail(err, "encode: Z3 error while %s: %s", what,
                   Z3_get_error_msg(e->z, c));
}

