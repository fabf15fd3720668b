/*
 * strong_choose.c - an exact search for the writers of ambiguous reads.
 *
 * One formula over integer points, as the operational readings of ser and
 * si (docs/SEMANTICS.md) have them: every committed transaction x has a
 * start B(x) and a commit E(x) (ser: one position, B = E), txn 0 commits
 * at 0 before every start, and
 *   so      E(a) < B(b) for consecutive transactions of a session;
 *   reads   a read by x of key k from c: E(c) < B(x), and every other
 *           writer w of k commits before c or after x starts:
 *           E(w) < E(c) or E(w) > B(x);
 *   si      two writers of one key are not concurrent:
 *           E(a) < B(b) or E(b) < B(a)   (ser: implied, positions);
 *   choice  an ambiguous read reads from one of its live candidates, a
 *           Boolean per candidate selecting that candidate's read clauses.
 * Instances that known reachability (so ∪ wr over fixed writers, which
 * the formula implies) already satisfies are left out.  Sat gives the
 * choice (checked afterwards by the usual checker); unsat means no choice
 * has an execution.  A formula beyond AMB_MAX_CLAUSES is not solved:
 * unknown, with err saying so.
 */
#include <stdlib.h>
#include <z3.h>

#include "strong_ambig.h"

typedef struct formula {
    amb_ctx *a;
    Z3_context z;
    Z3_solver sv;
    Z3_ast *start, *commit;   /* per txn; NULL for uncommitted */
    Z3_ast zero;
    uint64_t clauses;         /* asserted so far; stop beyond the limit */
} formula;

/* The formula grows with reads x writers; beyond this many clauses the
 * search gives up (unknown) rather than exhaust memory (~1 KB each). */
#define AMB_MAX_CLAUSES 50000u

static void assert_clause(formula *f, Z3_ast c)
{
    f->clauses++;
    Z3_solver_assert(f->z, f->sv, c);
}

static bool too_big(const formula *f)
{
    return f->clauses > AMB_MAX_CLAUSES;
}

static Z3_ast point(formula *f, bool commit, uint32_t x)
{
    if (x == IP_INIT_TXN)
        return f->zero;
    return commit || !f->a->si ? f->commit[x] : f->start[x];
}

static Z3_ast lt(formula *f, Z3_ast a, Z3_ast b)
{
    return Z3_mk_lt(f->z, a, b);
}

static Z3_ast or2(formula *f, Z3_ast a, Z3_ast b)
{
    Z3_ast ab[2] = {a, b};
    return Z3_mk_or(f->z, 2, ab);
}

static Z3_ast implies(formula *f, Z3_ast sel, Z3_ast a)
{
    return sel ? Z3_mk_implies(f->z, sel, a) : a;
}

static void make_points(formula *f)
{
    const ip_trace *t = f->a->t;
    Z3_sort is = Z3_mk_int_sort(f->z);
    f->zero = Z3_mk_int(f->z, 0, is);
    for (uint32_t x = 1; x < t->n_txns; x++) {
        if (!ip_committed(t, x))
            continue;
        f->commit[x] = Z3_mk_const(f->z, Z3_mk_int_symbol(f->z, (int)(2 * x)),
                                   is);
        f->start[x] = f->commit[x];
        if (f->a->si) {
            f->start[x] = Z3_mk_const(f->z,
                                      Z3_mk_int_symbol(f->z, (int)(2 * x - 1)),
                                      is);
            assert_clause(f, lt(f, f->start[x], f->commit[x]));
        }
        assert_clause(f, lt(f, f->zero, f->start[x]));
    }
}

static void assert_sessions(formula *f)
{
    const ip_trace *t = f->a->t;
    for (uint32_t x = 1; x < t->n_txns; x++) {
        uint32_t p = ip_committed(t, x) ? ip_prev_committed(t, x) : IP_NONE;
        if (p != IP_NONE)
            assert_clause(f, lt(f, point(f, true, p), point(f, false, x)));
    }
}

/* The clauses of "x reads key from c", under selector sel (NULL: always). */
static void assert_read(formula *f, Z3_ast sel, uint32_t x, uint32_t key,
                        uint32_t c)
{
    const amb_ctx *a = f->a;
    const ip_trace *t = a->t;
    /* never left out: known reachability rests on these very edges */
    assert_clause(f, implies(f, sel, lt(f, point(f, true, c),
                                        point(f, false, x))));
    for (uint32_t j = t->key_writer_first[key];
         j < t->key_writer_first[key + 1]; j++) {
        uint32_t w = t->key_writer[j];
        if (w == c || w == x || amb_reach(a, w, c) || amb_reach(a, x, w))
            continue;
        Z3_ast before = lt(f, point(f, true, w), point(f, true, c));
        Z3_ast after = lt(f, point(f, false, x), point(f, true, w));
        assert_clause(f, implies(f, sel, or2(f, before, after)));
    }
}

static void assert_reads(formula *f, Z3_ast *sel_of)
{
    const amb_ctx *a = f->a;
    const ip_trace *t = a->t;
    for (uint32_t e = 0; e < t->n_events && !too_big(f); e++) {
        const ip_event *ev = &t->events[e];
        if (ev->kind != IP_READ || !ip_committed(t, ev->txn))
            continue;
        uint32_t w = amb_writer_of(a, e);
        if (w != IP_NONE) {
            assert_read(f, NULL, ev->txn, ev->key, w);
            continue;
        }
        uint32_t i = a->amb_of_event[e], n = a->n_live[i];
        const uint32_t *c = a->live + t->amb_first[i];
        Z3_ast *sel = sel_of + t->amb_first[i];
        for (uint32_t j = 0; j < n; j++) {
            int name = (int)(2 * t->n_txns + t->amb_first[i] + j);
            sel[j] = Z3_mk_const(f->z, Z3_mk_int_symbol(f->z, name),
                                 Z3_mk_bool_sort(f->z));
            assert_read(f, sel[j], ev->txn, ev->key, c[j]);
        }
        assert_clause(f, Z3_mk_or(f->z, n, sel));
    }
}

static void assert_no_concurrent_writers(formula *f)
{
    const amb_ctx *a = f->a;
    const ip_trace *t = a->t;
    for (uint32_t k = 0; k < t->n_keys && !too_big(f); k++)
        for (uint32_t i = t->key_writer_first[k];
             i < t->key_writer_first[k + 1]; i++)
            for (uint32_t j = i + 1; j < t->key_writer_first[k + 1]; j++) {
                uint32_t u = t->key_writer[i], v = t->key_writer[j];
                if (u == IP_INIT_TXN || amb_reach(a, u, v) ||
                    amb_reach(a, v, u))
                    continue;
                assert_clause(f,
                                 or2(f, lt(f, point(f, true, u),
                                           point(f, false, v)),
                                     lt(f, point(f, true, v),
                                        point(f, false, u))));
            }
}

/* chosen[] of the open reads from the model: a selected candidate. */
static bool read_choice(formula *f, Z3_ast *sel_of)
{
    amb_ctx *a = f->a;
    const ip_trace *t = a->t;
    Z3_model m = Z3_solver_get_model(f->z, f->sv);
    if (!m)
        return false;
    Z3_model_inc_ref(f->z, m);
    bool ok = true;
    for (uint32_t i = 0; ok && i < t->n_ambiguous; i++) {
        if (a->chosen[i] != IP_NONE)
            continue;
        for (uint32_t j = 0; j < a->n_live[i]; j++) {
            Z3_ast v = NULL;
            if (Z3_model_eval(f->z, m, sel_of[t->amb_first[i] + j], true,
                              &v) &&
                Z3_get_bool_value(f->z, v) == Z3_L_TRUE) {
                a->chosen[i] = a->live[t->amb_first[i] + j];
                break;
            }
        }
        ok = a->chosen[i] != IP_NONE;
    }
    Z3_model_dec_ref(f->z, m);
    return ok;
}

ip_check_result amb_search(amb_ctx *a, unsigned timeout_ms)
{
    const ip_trace *t = a->t;
    formula f = {.a = a};
    f.start = calloc(t->n_txns, sizeof *f.start);
    f.commit = calloc(t->n_txns, sizeof *f.commit);
    Z3_ast *sel_of = calloc((size_t)t->amb_first[t->n_ambiguous] + 1,
                            sizeof *sel_of);
    ip_check_result r = IP_CHECK_ERROR;
    if ((uint64_t)2 * t->n_txns + t->amb_first[t->n_ambiguous] >= 1u << 30) {
        ip_fail(a->err, "ser/si check: too many ambiguous candidates to "
                "search");
        goto out;
    }
    if (!f.start || !f.commit || !sel_of) {
        ip_fail(a->err, "ser/si check: out of memory");
        goto out;
    }
    Z3_config cfg = Z3_mk_config();
    f.z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(f.z, NULL);
    f.sv = Z3_mk_simple_solver(f.z);
    Z3_solver_inc_ref(f.z, f.sv);
    if (timeout_ms) {
        Z3_params prm = Z3_mk_params(f.z);
        Z3_params_inc_ref(f.z, prm);
        Z3_params_set_uint(f.z, prm, Z3_mk_string_symbol(f.z, "timeout"),
                           timeout_ms);
        Z3_solver_set_params(f.z, f.sv, prm);
        Z3_params_dec_ref(f.z, prm);
    }
    make_points(&f);
    assert_sessions(&f);
    assert_reads(&f, sel_of);
    if (a->si)
        assert_no_concurrent_writers(&f);
    bool big = too_big(&f);
    Z3_lbool res = Z3_get_error_code(f.z) == Z3_OK && !big
                       ? Z3_solver_check(f.z, f.sv) : Z3_L_UNDEF;
    if (big)
        ip_fail(a->err, "the exact search over the writers of %u ambiguous "
                "reads needs more than %u clauses", t->n_ambiguous,
                AMB_MAX_CLAUSES);
    if (Z3_get_error_code(f.z) != Z3_OK)
        ip_fail(a->err, "ser/si check: Z3 failed: %s",
                Z3_get_error_msg(f.z, Z3_get_error_code(f.z)));
    else if (res == Z3_L_FALSE)
        r = IP_CHECK_VIOLATION;
    else if (res == Z3_L_UNDEF)
        r = IP_CHECK_UNKNOWN;
    else if (read_choice(&f, sel_of))
        r = IP_CHECK_OK;
    else
        ip_fail(a->err, "ser/si check: Z3 model evaluation failed");
    Z3_solver_dec_ref(f.z, f.sv);
    Z3_del_context(f.z);
out:
    free(f.start);
    free(f.commit);
    free(sel_of);
    return r;
}
