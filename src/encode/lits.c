/* lits.c - Boolean literal helpers that fold constants, and clause output. */
#include "enc_internal.h"


bool lit_is_true(const ip_encoder *e, Z3_ast a) { return a == e->t; }
bool lit_is_false(const ip_encoder *e, Z3_ast a) { return !a || a == e->f; }

/* The operator of term a (Z3_OP_UNINTERPRETED for a variable). */
static Z3_decl_kind op_of(const ip_encoder *e, Z3_ast a)
{
    if (Z3_get_ast_kind(e->z, a) != Z3_APP_AST)
        return Z3_OP_UNINTERPRETED;
    return Z3_get_decl_kind(e->z, Z3_get_app_decl(e->z, Z3_to_app(e->z, a)));
}

static Z3_ast arg_of(const ip_encoder *e, Z3_ast a, uint32_t i)
{
    return Z3_get_app_arg(e->z, Z3_to_app(e->z, a), i);
}

/* Z3 does not simplify what it is given (encoder.c, "preprocessing"), so
 * a double negation is folded here. */
Z3_ast lit_not(ip_encoder *e, Z3_ast a)
{
    if (lit_is_true(e, a))
        return e->f;
    if (lit_is_false(e, a))
        return e->t;
    if (op_of(e, a) == Z3_OP_NOT)
        return arg_of(e, a, 0);
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
enum { JUNCTION_MAX = 8, JUNCTION_FLAT_MAX = 32 };

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
    /* a junction of the same kind among them is spliced in (Z3 would
     * otherwise give it a Boolean of its own: encoder.c) */
    Z3_ast flat[JUNCTION_FLAT_MAX];
    uint32_t nf = 0;
    Z3_decl_kind same = is_and ? Z3_OP_AND : Z3_OP_OR;
    for (uint32_t i = 0; i < k; i++) {
        unsigned m = op_of(e, keep[i]) == same
                         ? Z3_get_app_num_args(e->z, Z3_to_app(e->z, keep[i]))
                         : 0;
        if (m && nf + m + (k - i - 1) <= JUNCTION_FLAT_MAX)
            for (unsigned j = 0; j < m; j++)
                flat[nf++] = arg_of(e, keep[i], j);
        else
            flat[nf++] = keep[i];
    }
    return is_and ? Z3_mk_and(e->z, nf, flat) : Z3_mk_or(e->z, nf, flat);
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

/* Built as a - b <= -1: the only form of an atom Z3's difference-logic
 * solver takes in without the preprocessing that would rewrite a < b into
 * it (encoder.c); the LP solver takes it too. */
Z3_ast lit_lt(ip_encoder *e, Z3_ast a, Z3_ast b)
{
    if (!b)
        return e->f;
    if (!a)
        return e->t;
    Z3_sort is = Z3_mk_int_sort(e->z);
    Z3_ast minus_b[2] = { Z3_mk_int(e->z, -1, is), b };
    Z3_ast diff[2] = { a, Z3_mk_mul(e->z, 2, minus_b) };
    return Z3_mk_le(e->z, Z3_mk_add(e->z, 2, diff), Z3_mk_int(e->z, -1, is));
}

void enc_assert(ip_encoder *e, Z3_ast a)
{
    if (lit_is_true(e, a))
        return;
    Z3_solver_assert(e->z, e->s, a);
    e->st.literals += 1;
}

/* The literals a clause's disjunct a stands for, appended to out[*k..]:
 * an or-term's disjuncts and a negated and-term's negated conjuncts,
 * recursively, else a itself.  Without Z3's preprocessing (encoder.c) a
 * junction inside a clause would be a Boolean of its own, with clauses
 * defining it, that the search decides like any other.  False when more
 * than `cap` would be needed. */
static bool spread(ip_encoder *e, Z3_ast a, Z3_ast *out, uint32_t cap,
                   uint32_t *k)
{
    Z3_decl_kind op = op_of(e, a);
    bool negated = false;
    Z3_ast j = a;
    if (op == Z3_OP_NOT) {
        j = arg_of(e, a, 0);
        negated = op_of(e, j) == Z3_OP_AND;
    }
    if (op == Z3_OP_OR || negated) {
        unsigned n = Z3_get_app_num_args(e->z, Z3_to_app(e->z, j));
        for (unsigned i = 0; i < n; i++) {
            Z3_ast x = arg_of(e, j, i);
            if (!spread(e, negated ? lit_not(e, x) : x, out, cap, k))
                return false;
        }
        return true;
    }
    if (*k == cap)
        return false;
    out[(*k)++] = a;
    return true;
}

/* The most literals one clause is spread into; a wider one is asserted
 * as given. */
enum { CLAUSE_MAX = 64 };

void enc_clause(ip_encoder *e, Z3_ast *lits, uint32_t n)
{
    Z3_ast flat[CLAUSE_MAX];
    uint32_t nf = 0, k = 0;
    bool spread_all = true;
    for (uint32_t i = 0; i < n; i++) {
        if (lit_is_true(e, lits[i]))
            return;
        if (spread_all && !lit_is_false(e, lits[i]))
            spread_all = spread(e, lits[i], flat, CLAUSE_MAX, &nf);
    }
    if (spread_all) {
        lits = flat;
        n = nf;
    }
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

