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
 *
 * Reads whose writer is chosen (c->open, ambiguous reads) join the same
 * loop: a Boolean per (read, candidate), at least one per read.  Under a
 * choice the read adds its wr edge and an rw edge to every writer its
 * candidate precedes; each such edge rests on the choice and, when that
 * order is an open pair, on the pair too, and a cycle through it excludes
 * both.  Pruning ran without these reads, which only leaves it weaker.
 */
#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "strong_graph.h"

#define MAX_CYCLES 4096   /* clauses gathered per graph test */

typedef struct open_pair { uint32_t uk, i, j; } open_pair;

/* A clause literal: an open pair's index, or CHOICE | a choice variable
 * (read i's candidate j is variable open->first[i] + j). */
#define CHOICE (1ull << 63)

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
    /* chosen writers: pick (in c->open) per read, the guess's picks,
     * per edge from choice_first on its choice variable and pair (or
     * UINT64_MAX), and what the orders need */
    uint32_t *guess_pick;
    uint32_t choice_first, *ce_var, n_ce, cap_ce;
    uint64_t *ce_pair;
    uint32_t *uk_of_key;      /* key -> its uk index, IP_NONE if chained */
    uint32_t *known_pos;      /* txn -> topological position at the start */
    uint64_t *pair_slot;      /* open addressing: ord offset -> pair index */
    uint64_t n_slots;
    Z3_ast *var;              /* pair k's Boolean, then the choices' */
    uint8_t *true_var;        /* per variable: true in the last model */
    uint8_t *asserted;        /* per open read: "some choice" asserted */
    double deadline;          /* ip_now() seconds, 0 = none */
    bool late;                /* a cycle search stopped at the deadline */
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

/* ---- chosen writers ------------------------------------------------------ */

static uint64_t slot_hash(uint64_t off, uint64_t mask)
{
    return (off * 0x9E3779B97F4A7C15ull >> 17) & mask;
}

/* Index every open pair by its offset in c->ord (entry i < j). */
static bool index_pairs(search *s)
{
    sg_ctx *c = s->c;
    uint64_t n = 1;
    while (n < 2 * s->n + 2)
        n *= 2;
    s->n_slots = n;
    s->pair_slot = malloc(n * sizeof *s->pair_slot);
    if (!s->pair_slot)
        return false;
    memset(s->pair_slot, 0xff, n * sizeof *s->pair_slot);
    for (uint64_t k = 0; k < s->n; k++) {
        const open_pair *p = &s->p[k];
        uint64_t off = (uint64_t)(sg_ord(c, p->uk, p->i, p->j) - c->ord);
        uint64_t h = slot_hash(off, n - 1);
        while (s->pair_slot[h] != UINT64_MAX)
            h = (h + 1) & (n - 1);
        s->pair_slot[h] = k;
    }
    return true;
}

/* The open pair of writers i < j of uk, or UINT64_MAX when decided. */
static uint64_t open_pair_at(const search *s, uint32_t uk, uint32_t i,
                             uint32_t j)
{
    const sg_ctx *c = s->c;
    uint64_t off = (uint64_t)(sg_ord(c, uk, i, j) - c->ord);
    for (uint64_t h = slot_hash(off, s->n_slots - 1);;
         h = (h + 1) & (s->n_slots - 1)) {
        uint64_t k = s->pair_slot[h];
        if (k == UINT64_MAX)
            return k;
        const open_pair *p = &s->p[k];
        if ((uint64_t)(sg_ord(c, p->uk, p->i, p->j) - c->ord) == off)
            return k;
    }
}

static bool push_choice_edge(search *s, sg_edge e, uint32_t var, uint64_t pair)
{
    if (s->n_ce == s->cap_ce) {
        uint32_t cap = s->cap_ce ? 2 * s->cap_ce : 256;
        uint32_t *v = realloc(s->ce_var, cap * sizeof *v);
        if (v)
            s->ce_var = v;
        uint64_t *p = realloc(s->ce_pair, cap * sizeof *p);
        if (p)
            s->ce_pair = p;
        if (!v || !p)
            return false;
        s->cap_ce = cap;
    }
    s->ce_var[s->n_ce] = var;
    s->ce_pair[s->n_ce++] = pair;
    return sg_push(&s->c->g, e);
}

/* The edges of read i reading candidate j under the current orders. */
static bool add_choice_edges(search *s, uint32_t i, uint32_t j)
{
    sg_ctx *c = s->c;
    const sg_open *o = c->open;
    uint32_t var = o->first[i] + j, r = o->reader[i], key = o->key[i];
    uint32_t w = o->cand[var];
    sg_edge wr = { sg_commit(c, w), sg_start(c, r), key, IP_NONE,
                   IP_EDGE_WR, 0 };
    if (!push_choice_edge(s, wr, var, UINT64_MAX))
        return false;
    sg_edge rw = { sg_start(c, r), 0, key, w, IP_EDGE_RW, 0 };
    uint32_t uk = s->uk_of_key[key], wi = 0;
    uint32_t first = uk == IP_NONE ? 0 : c->uk_first[uk];
    uint32_t m = uk == IP_NONE ? 0 : c->uk_first[uk + 1] - first;
    while (wi < m && c->uk_w[first + wi] != w)
        wi++;
    /* chained, or w a listed writer of a known version order (every
     * writer left to the search follows it): the known order */
    if (uk == IP_NONE || wi == m) {
        const ip_trace *t = c->t;
        for (uint32_t q = t->key_writer_first[key];
             q < t->key_writer_first[key + 1]; q++) {
            uint32_t b = t->key_writer[q];
            if (b == w || b == r || b == IP_INIT_TXN ||
                (w != IP_INIT_TXN && s->known_pos[b] < s->known_pos[w]))
                continue;
            rw.to = sg_commit(c, b);
            if (!push_choice_edge(s, rw, var, UINT64_MAX))
                return false;
        }
        return true;
    }
    for (uint32_t bi = 0; bi < m; bi++) {
        uint32_t b = c->uk_w[first + bi];
        if (b == w || b == r || b == IP_INIT_TXN ||
            (w != IP_INIT_TXN && (wi == m || *sg_ord(c, uk, wi, bi) != 1)))
            continue;
        uint64_t pair = w == IP_INIT_TXN || wi == m
                            ? UINT64_MAX
                            : open_pair_at(s, uk, wi < bi ? wi : bi,
                                           wi < bi ? bi : wi);
        rw.to = sg_commit(c, b);
        if (!push_choice_edge(s, rw, var, pair))
            return false;
    }
    return true;
}

/* Every open read's edges under its current pick. */
static bool add_choices(search *s)
{
    const sg_open *o = s->c->open;
    s->choice_first = s->c->g.n_edges;
    s->n_ce = 0;
    for (uint32_t i = 0; o && i < o->n; i++)
        if (!add_choice_edges(s, i, o->pick[i]))
            return false;
    return true;
}

/* What the choices need: the uk of each key, the known positions, the
 * pair index, and a guess (the candidate latest before the reader). */
static bool init_choices(search *s)
{
    sg_ctx *c = s->c;
    const ip_trace *t = c->t;
    const sg_open *o = c->open;
    s->uk_of_key = malloc(((size_t)t->n_keys + 1) * sizeof *s->uk_of_key);
    s->known_pos = malloc(((size_t)t->n_txns + 1) * sizeof *s->known_pos);
    s->guess_pick = malloc(((size_t)o->n + 1) * sizeof *s->guess_pick);
    if (!s->uk_of_key || !s->known_pos || !s->guess_pick || !index_pairs(s))
        return false;
    memset(s->uk_of_key, 0xff, (size_t)t->n_keys * sizeof *s->uk_of_key);
    for (uint32_t u = 0; u < c->n_ukeys; u++)
        s->uk_of_key[c->uk_key[u]] = u;
    for (uint32_t x = 0; x < t->n_txns; x++)
        s->known_pos[x] = ip_committed(t, x)
                              ? c->g.topo_pos[sg_commit(c, x)] : UINT32_MAX;
    for (uint32_t i = 0; i < o->n; i++) {
        uint32_t pr = c->g.topo_pos[sg_start(c, o->reader[i])];
        uint32_t best = IP_NONE, low = 0;
        for (uint32_t j = 0; j < o->first[i + 1] - o->first[i]; j++) {
            uint32_t pw = s->known_pos[o->cand[o->first[i] + j]];
            if (pw < pr && (best == IP_NONE ||
                            pw > s->known_pos[o->cand[o->first[i] + best]]))
                best = j;
            if (pw < s->known_pos[o->cand[o->first[i] + low]])
                low = j;
        }
        s->guess_pick[i] = o->pick[i] = best != IP_NONE ? best : low;
    }
    return true;
}

/* Record a cycle's pairs as a clause. */
static bool add_clause(void *env, const uint32_t *edges, uint32_t len)
{
    search *s = env;
    if (s->deadline && s->n_cl && ip_now() >= s->deadline) {
        s->late = true;      /* the clauses so far stand; the loop stops */
        return false;
    }
    uint32_t at = s->cl_first[s->n_cl];
    if (at + 2 * len > s->cap_pair) {
        uint32_t cap = 2 * (at + 2 * len);
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
        uint64_t lit[2] = { UINT64_MAX, UINT64_MAX };
        if (edges[i] < s->choice_first) {
            lit[0] = pair_of_edge(s, edges[i]);
        } else {
            uint32_t ce = edges[i] - s->choice_first;
            lit[0] = CHOICE | s->ce_var[ce];
            lit[1] = s->ce_pair[ce];
        }
        for (int l = 0; l < 2; l++) {
            bool dup = lit[l] == UINT64_MAX;
            for (uint32_t q = 0; q < n; q++)
                dup = dup || s->cl_pair[at + q] == lit[l];
            if (!dup)
                s->cl_pair[at + n++] = lit[l];
        }
    }
    s->cl_first[++s->n_cl] = at + n;
    return true;
}

/* Replace the conditional edges by those of s->first and test the graph.
 * Returns false (c->err set) when out of memory or on an internal
 * inconsistency; *acyclic tells the outcome, and the
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
    if (!add_choices(s))
        return sg_oom(c);
    if (!sg_index(&c->g))
        return sg_oom(c);
    *acyclic = c->g.acyclic;
    s->n_cl = 0;
    if (*acyclic)
        return true;
    s->late = false;
    int found = sg_many_cycles(&c->g, s->known, MAX_CYCLES, add_clause, s);
    if (found > 0 || (found == SG_CYCLES_STOPPED && s->late))
        return true;
    if (found == SG_CYCLES_OOM || found == SG_CYCLES_STOPPED)
        return sg_oom(c);   /* add_clause fails only when out of memory */
    /* the known edges were acyclic when the search began, and a cyclic
     * graph has a cycle: neither is a resource limit */
    return ip_fail(c->err, "ser/si check: internal error: %s",
                   found == 0 ? "no cycle found in a cyclic graph"
                              : "a cycle of known edges only");
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

/* The Boolean of pair k, or of choice k - n: named by its index.  The
 * context keeps every AST alive (no scopes are popped), so each is made
 * once, when the search starts. */
static bool make_vars(search *s, Z3_context z)
{
    const sg_open *o = s->c->open;
    uint64_t n = s->n + (o ? o->first[o->n] : 0);
    s->var = malloc((n ? n : 1) * sizeof *s->var);
    if (!s->var)
        return false;
    Z3_sort b = Z3_mk_bool_sort(z);
    for (uint64_t k = 0; k < n; k++)
        s->var[k] = Z3_mk_const(z, Z3_mk_int_symbol(z, (int)k), b);
    return true;
}

static Z3_ast pair_var(const search *s, uint64_t k)
{
    return s->var[k];
}

/* Choice variables are numbered after the pairs. */
static Z3_ast choice_var(const search *s, uint32_t v)
{
    return s->var[s->n + v];
}

/* The open read whose candidate is choice variable v. */
static uint32_t read_of_choice(const sg_open *o, uint32_t v)
{
    uint32_t lo = 0, hi = o->n;   /* first[lo] <= v < first[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->first[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Read i reads from one of its candidates: asserted when a clause first
 * names one of its choices.  Until then the read keeps its guessed pick,
 * which no clause constrains; the solver and its models (read back every
 * round) then hold only the reads some cycle went through, a fraction of
 * them on the Figure 13 histories. */
static bool assert_some_choice(search *s, Z3_context z, Z3_solver sv,
                               uint32_t i)
{
    const sg_open *o = s->c->open;
    if (s->asserted[i])
        return true;
    s->asserted[i] = 1;
    uint32_t n = o->first[i + 1] - o->first[i];
    Z3_ast *lits = malloc((n ? n : 1) * sizeof *lits);
    if (!lits)
        return false;
    for (uint32_t j = 0; j < n; j++)
        lits[j] = choice_var(s, o->first[i] + j);
    Z3_solver_assert(z, sv, Z3_mk_or(z, n, lits));
    free(lits);
    return true;
}

/* Exclude the cycles of the last test: on each, some pair must choose the
 * other order. */
static bool exclude_cycles(search *s, Z3_context z, Z3_solver sv)
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
            if (k & CHOICE) {
                uint32_t v = (uint32_t)k;
                if (!assert_some_choice(s, z, sv,
                                        read_of_choice(s->c->open, v))) {
                    free(lits);
                    return false;
                }
                lits[i] = Z3_mk_not(z, choice_var(s, v));
                continue;
            }
            Z3_ast v = pair_var(s, k);
            lits[i] = s->dev[k] ? Z3_mk_not(z, v) : v;
        }
        Z3_solver_assert(z, sv, Z3_mk_or(z, n, lits));
    }
    free(lits);
    return true;
}

/* The model's true variables into s->true_var (all false first): one
 * pass over what the model assigns rather than an evaluation per
 * variable, which cost half as much as the solver itself on the Figure
 * 13 histories.  A variable the model leaves out is free: false will do. */
static bool model_true_vars(search *s, Z3_context z, Z3_model m, uint64_t n)
{
    memset(s->true_var, 0, n ? n : 1);
    unsigned nc = Z3_model_get_num_consts(z, m);
    for (unsigned i = 0; i < nc; i++) {
        Z3_func_decl d = Z3_model_get_const_decl(z, m, i);
        Z3_symbol name = d ? Z3_get_decl_name(z, d) : NULL;
        if (!name || Z3_get_symbol_kind(z, name) != Z3_INT_SYMBOL)
            continue;         /* not one of ours */
        int k = Z3_get_symbol_int(z, name);
        Z3_ast v = Z3_model_get_const_interp(z, m, d);
        if (k >= 0 && (uint64_t)k < n && v)
            s->true_var[k] = Z3_get_bool_value(z, v) == Z3_L_TRUE;
    }
    return Z3_get_error_code(z) == Z3_OK;
}

static bool read_model(search *s, Z3_context z, Z3_solver sv)
{
    const sg_open *o = s->c->open;
    Z3_model m = Z3_solver_get_model(z, sv);
    if (!m)
        return false;
    Z3_model_inc_ref(z, m);
    bool ok = model_true_vars(s, z, m, s->n + (o ? o->first[o->n] : 0));
    Z3_model_dec_ref(z, m);
    for (uint64_t k = 0; ok && k < s->n; k++) {
        s->dev[k] = s->true_var[k];
        s->first[k] = s->guess[k] ^ s->dev[k];
    }
    for (uint32_t i = 0; ok && o && i < o->n; i++) {
        if (!s->asserted[i])
            continue;         /* no clause names it: the guess stands */
        uint32_t n = o->first[i + 1] - o->first[i], j = 0;
        while (j < n && !s->true_var[s->n + o->first[i] + j])
            j++;
        ok = j < n;           /* the model satisfies "some choice" */
        if (ok)
            o->pick[i] = j;
    }
    return ok;
}

/* The lazy loop; the graph holds the last tried choice's edges. */
static ip_check_result lazy(search *s, Z3_context z, unsigned timeout_ms)
{
    sg_ctx *c = s->c;
    double deadline = 1000.0 * s->deadline;   /* from the search's start */
    /* The clauses are pure propositional CNF, added a round at a time:
     * Z3's incremental SAT solver (the QF_FD logic) answers the rounds of
     * the Figure 13 histories about ten times faster than the SMT kernel
     * of Z3_mk_simple_solver. */
    Z3_solver sv = Z3_mk_solver_for_logic(z, Z3_mk_string_symbol(z, "QF_FD"));
    if (!sv)
        sv = Z3_mk_simple_solver(z);
    Z3_solver_inc_ref(z, sv);
    Z3_params prm = Z3_mk_params(z);
    Z3_params_inc_ref(z, prm);
    ip_check_result res = IP_CHECK_ERROR;
    c->stats->solver_calls = 0;
    const sg_open *o = c->open;
    s->true_var = malloc(s->n + (o ? o->first[o->n] : 0) + 1);
    s->asserted = calloc(o ? o->n + 1 : 1, 1);
    bool have = s->true_var && s->asserted && make_vars(s, z);
    for (bool ok = have || sg_oom(c); ok;) {
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
    const sg_open *o = c->open;
    for (uint32_t i = 0; o && i < o->n; i++)
        o->pick[i] = s->guess_pick[i];
    if (!add_choices(s) || !sg_index(&c->g))
        return sg_oom(c);
    if (c->g.acyclic)
        return ip_fail(c->err, "ser/si check: internal error: solver found "
                               "no valid order, the completion has no cycle");
    return true;
}

ip_check_result sg_solve(sg_ctx *c, unsigned timeout_ms, bool no_guess)
{
    search s = { .c = c, .known = c->g.n_edges, .choice_first = UINT32_MAX,
                 .deadline = timeout_ms ? ip_now() + timeout_ms / 1000.0 : 0 };
    s.p = collect_open(c, &s.n);
    s.first = malloc(s.n ? s.n : 1);
    s.edge_first = malloc((s.n + 1) * sizeof *s.edge_first);
    s.guess = malloc(s.n ? s.n : 1);
    s.dev = calloc(s.n ? s.n : 1, 1);
    s.cl_first = calloc(MAX_CYCLES + 1, sizeof *s.cl_first);
    ip_check_result res = IP_CHECK_ERROR;
    if (!s.p || !s.first || !s.edge_first || !s.guess || !s.dev ||
        !s.cl_first || (c->open && !init_choices(&s))) {
        sg_oom(c);
        goto out;
    }
    if (s.n + (c->open ? c->open->first[c->open->n] : 0) >= (1u << 30)) {
        ip_fail(c->err, "ser/si check: too many open choices for the solver");
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
    free(s.guess_pick);
    free(s.ce_var);
    free(s.ce_pair);
    free(s.uk_of_key);
    free(s.known_pos);
    free(s.pair_slot);
    free(s.var);
    free(s.true_var);
    free(s.asserted);
    return res;
}
