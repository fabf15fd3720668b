/* encoder.c - encoder life cycle, solving and reading models back. */
#include "enc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Z3 must never abort the process: errors are read back with
 * Z3_get_error_code after each phase. */
static void ignore_z3_error(Z3_context c, Z3_error_code code)
{
    (void)c;
    (void)code;
}

void ip_assignment_free(ip_assignment *a)
{
    if (!a)
        return;
    free(a->boundary);
    free(a->writer);
    a->boundary = NULL;
    a->writer = NULL;
}

bool ip_assignment_copy(const ip_trace *t, const ip_assignment *a,
                        ip_assignment *out)
{
    out->boundary = malloc(sizeof *out->boundary * (t->n_sessions + 1));
    out->writer = malloc(sizeof *out->writer * (t->n_events + 1));
    if (!out->boundary || !out->writer) {
        ip_assignment_free(out);
        return false;
    }
    memcpy(out->boundary, a->boundary, sizeof *out->boundary * t->n_sessions);
    memcpy(out->writer, a->writer, sizeof *out->writer * t->n_events);
    return true;
}

bool ip_assignment_observed(const ip_trace *t, ip_assignment *out)
{
    out->boundary = malloc(sizeof *out->boundary * (t->n_sessions + 1));
    out->writer = malloc(sizeof *out->writer * (t->n_events + 1));
    if (!out->boundary || !out->writer) {
        ip_assignment_free(out);
        return false;
    }
    for (uint32_t s = 0; s < t->n_sessions; s++)
        out->boundary[s] = IP_NONE;
    for (uint32_t e = 0; e < t->n_events; e++)
        out->writer[e] = t->events[e].kind == IP_READ ? t->events[e].writer
                                                      : IP_NONE;
    return true;
}

void ip_encoder_free(ip_encoder *e)
{
    if (!e)
        return;
    if (e->z) {
        if (e->s)
            Z3_solver_dec_ref(e->z, e->s);
        Z3_del_context(e->z);
    }
    if (e->call_init)
        pthread_mutex_destroy(&e->call);
    void *arrays[] = {
        e->rel, e->relv, e->cand_first, e->cand_txn, e->cx, e->obs_cand,
        e->alone,
        e->unit_first, e->unit_id, e->g, e->units_before, e->nw, e->tainted,
        e->inc,
        e->groups, e->gev, e->gcand, e->gwr_hist, e->gwr_bound, e->wr_first,
        e->wr_src, e->wr_h, e->wr_b, e->co, e->hb, e->pco, e->rank, e->fill,
    };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    enc_prune_free(&e->prune);
    enc_trail_free(&e->trail);
    free(e);
}

static bool open_solver(ip_encoder *e, ip_error *err)
{
    Z3_config cfg = Z3_mk_config();
    if (!cfg)
        return ip_fail(err, "encode: cannot create a Z3 configuration");
    e->z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    if (!e->z)
        return ip_fail(err, "encode: cannot create a Z3 context");
    Z3_set_error_handler(e->z, ignore_z3_error);
    /* The base formula is almost all propositional: the incremental SMT
     * kernel without preprocessing solves it several times faster than
     * the logic-specific tactics, whose preprocessing dominated the first
     * solve and which hand later solves to that kernel anyway.  The rank
     * formula is the exception: its integer ranks need the difference-
     * logic solver. */
    if (e->opts.encoding == IP_ENC_APPROX_RANK)
        e->s = Z3_mk_solver_for_logic(e->z,
                                      Z3_mk_string_symbol(e->z, "QF_IDL"));
    else
        e->s = Z3_mk_simple_solver(e->z);
    if (!e->s)
        return enc_z3_ok(e, err, "creating the solver") &&
               ip_fail(err, "encode: cannot create a Z3 solver");
    Z3_solver_inc_ref(e->z, e->s);
    e->t = Z3_mk_true(e->z);
    e->f = Z3_mk_false(e->z);
    return enc_z3_ok(e, err, "creating the solver");
}

/* Integer variables up to which the commit order is solved by Z3's dense
 * difference-logic solver (arith.solver 3).  Every arithmetic atom of
 * the eager formulas is co(a) < co(b) or st(a) < co(b) (weak.c, si.c),
 * which that solver decides on a matrix of all pairs: on windows (a few
 * dozen transactions) TPC-C triage runs 14-19 % faster than with the
 * default LP solver, si triage 30-48 % (bench/predict/RESULTS.md,
 * "Difference logic for the commit order").  The matrix is quadratic in
 * the variables, so a larger formula keeps the default. */
#define DENSE_DL_MAX_VARS 512

static uint32_t int_vars(const ip_encoder *e)
{
    return e->opts.model == IP_LVL_SI ? 2 * e->n_rel
                                      : e->opts.lazy_weak ? 0 : e->n_rel;
}

/* Add the parameters every check of this encoder has (beside the
 * timeout) to p. */
static void base_params(const ip_encoder *e, Z3_params p)
{
    if (e->st.dense_dl)
        Z3_params_set_uint(e->z, p, Z3_mk_string_symbol(e->z, "arith.solver"),
                           3);
}

/* Z3's SMT kernel rewrites every assertion at the first check after it
 * (propagating values, normal forms, flattening): on smallbank 100x1000
 * triage, a quarter of the whole run and most of each first check
 * (bench/predict/RESULTS.md, session nineteen).  Our formulas need none
 * of it: they are clauses over literals already, with arithmetic atoms
 * in the difference-logic form (lits.c).  Z3 4.8.12 skips it under the
 * hidden solver parameter `preprocess`, which Z3_solver_set_params
 * refuses once the solver exists.  But the solver Z3_mk_simple_solver
 * returns is made at its first use, from the parameters given before it,
 * and only then are their names checked: that first call makes the
 * kernel without preprocessing and fails on the unknown name, and the
 * calls after it use that kernel.  Where this does not hold (another Z3:
 * the second call fails too), the solver is made again with the
 * preprocessing, and stats.preprocessed says so. */
static bool without_preprocessing(const ip_encoder *e)
{
    return e->opts.encoding != IP_ENC_APPROX_RANK && !e->opts.z3_preprocess;
}

/* The parameters the solver starts with (base_params, and the switch
 * above when `hidden`), then a check of the empty formula: the kernel
 * configures itself at its first check, and without a logic it first
 * gathers statistics over every asserted formula in hash tables keyed by
 * AST id.  Ids of a formula built through the API are spread over
 * everything the context ever created; once they span more than such a
 * table's capacity they collide in long probe chains, and on TPC-C 3x64
 * that step alone took 6 of an 8 s first solve.  Configuring on the
 * empty formula skips it: the kernel installs the same theories either
 * way (the arithmetic one as the parameters say), so only the time
 * changes. */
static bool start_solver(ip_encoder *e, bool hidden)
{
    Z3_params p = Z3_mk_params(e->z);
    Z3_params_inc_ref(e->z, p);
    base_params(e, p);
    if (hidden)
        Z3_params_set_bool(e->z, p, Z3_mk_string_symbol(e->z, "preprocess"),
                           false);
    Z3_solver_set_params(e->z, e->s, p);
    Z3_params_dec_ref(e->z, p);
    if (hidden)
        Z3_solver_check(e->z, e->s);   /* fails on the name, see above */
    return Z3_solver_check(e->z, e->s) == Z3_L_TRUE &&
           Z3_get_error_code(e->z) == Z3_OK;
}

/* Once the relevant transactions are known (enc_index asserts nothing)
 * and before anything is asserted. */
static bool configure_solver(ip_encoder *e, ip_error *err)
{
    if (e->opts.encoding == IP_ENC_APPROX_RANK) {
        e->st.preprocessed = true;
        return true;
    }
    uint32_t vars = int_vars(e);
    e->st.dense_dl = !e->opts.lp_arith && vars > 0 &&
                     vars <= DENSE_DL_MAX_VARS;
    bool skip = without_preprocessing(e);
    if (skip && start_solver(e, true))
        return true;
    if (skip) {                       /* another Z3: a plain solver again */
        Z3_solver_dec_ref(e->z, e->s);
        e->s = Z3_mk_simple_solver(e->z);
        if (!e->s)
            return enc_z3_ok(e, err, "creating the solver") &&
                   ip_fail(err, "encode: cannot create a Z3 solver");
        Z3_solver_inc_ref(e->z, e->s);
    }
    e->st.preprocessed = true;
    if (!start_solver(e, false))
        return enc_z3_ok(e, err, "configuring the solver") &&
               ip_fail(err, "encode: the empty formula is not satisfiable");
    return true;
}

/* After a generation phase: did a loop stop early? */
static bool phase_ok(ip_encoder *e, ip_error *err)
{
    if (e->oom)
        return ip_oom(err, "encode: out of memory while building the "
                       "formula");
    if (enc_halted(e))
        return ip_fail(err, "encode: stopped while building the formula");
    return true;
}

void ip_encode_set_globals(uint64_t memory_bytes)
{
    char mb[32];
    snprintf(mb, sizeof mb, "%llu",
             memory_bytes ? (unsigned long long)(memory_bytes >> 20) + 1
                          : 0ull);
    Z3_global_param_set("memory_max_size", mb);
    Z3_global_param_set("model.compact", "false");
}

void ip_encoder_interrupt(ip_encoder *enc)
{
    if (enc && enc->z)
        Z3_interrupt(enc->z);
}

void ip_encoder_interrupt_solve(ip_encoder *enc)
{
    if (!enc || !enc->call_init)
        return;
    pthread_mutex_lock(&enc->call);
    if (enc->solving) {
        Z3_interrupt(enc->z);
        enc->hit = true;
    }
    pthread_mutex_unlock(&enc->call);
}

/* Z3_solver_check, open to ip_encoder_interrupt_solve while it runs; a
 * check that returned a verdict as an interrupt was sent counts as
 * interrupted (the context is cancelled until the next check). */
static Z3_lbool check_interruptibly(ip_encoder *enc)
{
    pthread_mutex_lock(&enc->call);
    enc->solving = true;
    enc->hit = false;
    pthread_mutex_unlock(&enc->call);
    Z3_lbool r = Z3_solver_check(enc->z, enc->s);
    pthread_mutex_lock(&enc->call);
    enc->solving = false;
    bool hit = enc->hit;
    pthread_mutex_unlock(&enc->call);
    return hit ? Z3_L_UNDEF : r;
}

ip_encoder *ip_encoder_new(const ip_trace *obs, const ip_encode_opts *opts,
                           ip_error *err)
{
    if (!obs || !opts) {
        ip_fail(err, "encode: no trace or options");
        return NULL;
    }
    if (opts->model == IP_LVL_SER || opts->model >= IP_LVL_COUNT) {
        ip_fail(err, "encode: model must be rc, ra, causal or si, not %s",
                ip_level_name(opts->model));
        return NULL;
    }
    if (opts->model == IP_LVL_SI && opts->lazy_weak) {
        ip_fail(err, "encode: si has no lazy weak isolation");
        return NULL;
    }
    if (opts->boundary != IP_BOUNDARY_STRICT &&
        opts->boundary != IP_BOUNDARY_RELAXED) {
        ip_fail(err, "encode: unknown boundary %d", (int)opts->boundary);
        return NULL;
    }
    if (opts->encoding != IP_ENC_APPROX && opts->encoding != IP_ENC_EXACT &&
        opts->encoding != IP_ENC_APPROX_RANK) {
        ip_fail(err, "encode: unknown encoding %d", (int)opts->encoding);
        return NULL;
    }
    ip_encoder *e = calloc(1, sizeof *e);
    if (!e) {
        ip_oom(err, "encode: out of memory");
        return NULL;
    }
    double t0 = ip_now();
    e->tr = obs;
    e->opts = *opts;
    e->call_init = pthread_mutex_init(&e->call, NULL) == 0;
    bool ok = (e->call_init ||
               ip_fail(err, "encode: cannot create a mutex")) &&
              open_solver(e, err) && enc_index(e, err) &&
              configure_solver(e, err) &&
              enc_feasible(e, err) && phase_ok(e, err) &&
              enc_wr_pairs(e, err) && phase_ok(e, err) &&
              enc_weak(e, err) && phase_ok(e, err) &&
              (opts->encoding != IP_ENC_APPROX_RANK ||
               (enc_pco(e, err) && phase_ok(e, err)));
    if (!ok) {
        ip_encoder_free(e);
        return NULL;
    }
    e->st.txns = e->n_rel;
    e->st.gen_seconds = ip_now() - t0;
    return e;
}

/* Where one model's values come from: the trail, and a Z3 model built
 * only when a literal is not on it. */
typedef struct model_src {
    bool trail;               /* enc_trail_read succeeded */
    Z3_model m;               /* NULL until needed */
    bool no_model;            /* Z3 gave none when asked */
} model_src;

static bool model_true(ip_encoder *e, model_src *src, Z3_ast a)
{
    if (lit_is_true(e, a))
        return true;
    if (lit_is_false(e, a))
        return false;
    int v = src->trail ? enc_trail_value(e, a) : -1;
    if (v >= 0)
        return v;
    if (src->no_model)
        return false;
    if (!src->m) {
        src->m = Z3_solver_get_model(e->z, e->s);
        if (!src->m) {
            src->no_model = true;
            return false;
        }
        Z3_model_inc_ref(e->z, src->m);
        e->st.model_reads++;
        if (src->trail)
            enc_trail_missed(e);
    }
    Z3_ast out = NULL;
    if (!Z3_model_eval(e->z, src->m, a, true, &out) || !out)
        return false;
    return Z3_get_bool_value(e->z, out) == Z3_L_TRUE;
}

/* The first unit of session s that the boundary is not after (g is
 * monotone: true up to the boundary unit, false from it on), or the
 * session's unit count for the session end. */
static uint32_t boundary_unit(ip_encoder *e, model_src *m, uint32_t s)
{
    uint32_t lo = e->unit_first[s], hi = e->unit_first[s + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (model_true(e, m, e->g[mid]))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The writer that kept read v reads: strict reads other than the
 * boundary read keep the observed one, so only that read needs the
 * model. */
static uint32_t model_writer(ip_encoder *e, model_src *m, uint32_t v,
                             bool is_boundary)
{
    const ip_trace *t = e->tr;
    bool strict = e->opts.boundary == IP_BOUNDARY_STRICT;
    uint32_t first = e->cand_first[v], n = e->cand_first[v + 1] - first;
    if (n == 1 || (strict && !is_boundary))
        return t->events[v].writer;
    uint32_t w = IP_NONE;
    for (uint32_t c = first; c < first + n; c++)
        if (model_true(e, m, e->cx[c]))
            w = e->cand_txn[c];
    return w;
}

static bool read_model(ip_encoder *e, model_src *m, ip_assignment *out,
                       ip_error *err)
{
    const ip_trace *t = e->tr;
    out->boundary = malloc(sizeof *out->boundary * (t->n_sessions + 1));
    out->writer = malloc(sizeof *out->writer * (t->n_events + 1));
    if (!out->boundary || !out->writer) {
        ip_assignment_free(out);
        return ip_oom(err, "encode: out of memory");
    }
    bool strict = e->opts.boundary == IP_BOUNDARY_STRICT;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        uint32_t u = boundary_unit(e, m, s);
        out->boundary[s] = u < e->unit_first[s + 1] ? e->unit_id[u] : IP_NONE;
    }
    for (uint32_t v = 0; v < t->n_events; v++) {
        out->writer[v] = IP_NONE;
        if (t->events[v].kind != IP_READ)
            continue;
        uint32_t s = t->txns[t->events[v].txn].session;
        uint32_t b = out->boundary[s];
        /* relaxed: every read inside the boundary, also of a transaction
         * the history drops - its writers say why it is dropped */
        uint32_t x = t->events[v].txn;
        bool inside = strict ? b == IP_NONE ||
                                   e->units_before[v] <= e->units_before[b]
                             : model_true(e, m, enc_in_boundary(e, x));
        if (inside)
            out->writer[v] = model_writer(e, m, v, v == b);
    }
    return enc_z3_ok(e, err, "reading the model");
}

/* The last model's assignment into *out, off the trail where it has
 * the literals. */
static bool read_assignment(ip_encoder *e, bool trail, ip_assignment *out,
                            ip_error *err)
{
    model_src src = {.trail = trail};
    bool ok = read_model(e, &src, out, err);
    if (src.m)
        Z3_model_dec_ref(e->z, src.m);
    if (ok && src.no_model) {
        ip_assignment_free(out);
        ok = enc_z3_ok(e, err, "getting the model") &&
             ip_fail(err, "encode: Z3 gave no model");
    }
    return ok;
}

/* opts.check_trail: the assignment read off the trail, a, read again
 * through a Z3 model. */
static bool same_through_model(ip_encoder *e, ip_assignment *a,
                               ip_error *err)
{
    ip_assignment m = {0};
    if (!read_assignment(e, false, &m, err)) {
        ip_assignment_free(a);
        return false;
    }
    const ip_trace *t = e->tr;
    bool same = !memcmp(a->boundary, m.boundary,
                        t->n_sessions * sizeof *a->boundary) &&
                !memcmp(a->writer, m.writer, t->n_events * sizeof *a->writer);
    ip_assignment_free(&m);
    if (same)
        return true;
    ip_assignment_free(a);
    return ip_fail(err, "encode: the trail and the model disagree");
}

/* The solver's parameters for a check with this timeout, set only when
 * they change: each Z3_solver_set_params call re-configures the kernel
 * (about 1 % of a TPC-C triage, where every call has the same ones). */
static void set_params(ip_encoder *enc, unsigned timeout_ms)
{
    if (enc->params_set && enc->params_ms == timeout_ms)
        return;
    Z3_params p = Z3_mk_params(enc->z);
    Z3_params_inc_ref(enc->z, p);
    Z3_params_set_uint(enc->z, p, Z3_mk_string_symbol(enc->z, "timeout"),
                       timeout_ms);
    base_params(enc, p);
    /* Relevancy tracking costs more than it saves on these clause sets
     * (about half of each incremental solve); without it every Boolean
     * is assigned in a model, which is what lets trail.c read models off
     * the trail.  Deciding every Boolean false first (phase_selection 0)
     * instead of reusing the last model's phases makes each solve after a
     * refutation about a quarter faster on the paper-sized TPC-C shape
     * (bench/predict/RESULTS.md): the last model is exactly what was just
     * refuted. */
    if (enc->opts.encoding != IP_ENC_APPROX_RANK) {
        Z3_params_set_uint(enc->z, p, Z3_mk_string_symbol(enc->z, "relevancy"),
                           0);
        Z3_params_set_uint(enc->z, p,
                           Z3_mk_string_symbol(enc->z, "phase_selection"), 0);
    }
    Z3_solver_set_params(enc->z, enc->s, p);
    Z3_params_dec_ref(enc->z, p);
    enc->params_set = true;
    enc->params_ms = timeout_ms;
}

ip_solve_result ip_encoder_solve(ip_encoder *enc, unsigned timeout_ms,
                                 ip_assignment *out, ip_error *err)
{
    if (!enc || !out) {
        ip_fail(err, "encode: solve: no encoder or output");
        return IP_SOLVE_ERROR;
    }
    out->boundary = NULL;
    out->writer = NULL;
    set_params(enc, timeout_ms ? timeout_ms : UINT32_MAX);
    double t0 = ip_now();
    Z3_lbool r = check_interruptibly(enc);
    double took = ip_now() - t0;
    if (!enc->checked)
        enc->st.first_solve_seconds = took;
    enc->checked = true;
    enc->st.solve_seconds += took;
    if (!enc_z3_ok(enc, err, "solving"))
        return IP_SOLVE_ERROR;
    if (r == Z3_L_FALSE)
        return IP_SOLVE_UNSAT;
    if (r == Z3_L_UNDEF)
        return IP_SOLVE_UNKNOWN;
    bool ok = read_assignment(enc, enc_trail_read(enc), out, err);
    if (ok && enc->opts.check_trail)
        ok = same_through_model(enc, out, err);
    return ok ? IP_SOLVE_SAT : IP_SOLVE_ERROR;
}

void ip_encoder_stats(const ip_encoder *enc, ip_encode_stats *out)
{
    if (enc && out)
        *out = enc->st;
}

void ip_encode_z3_version(char *buf, size_t n)
{
    unsigned major, minor, build, rev;
    Z3_get_version(&major, &minor, &build, &rev);
    snprintf(buf, n, "%u.%u.%u.%u", major, minor, build, rev);
}
