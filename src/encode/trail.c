/* trail.c - the values a model is read by, taken off the solver's trail.
 *
 * A model is read through a few hundred literals (the boundary's g and
 * the candidates' cx), but Z3_solver_get_model builds a value for every
 * constant and term of the formula: about a millisecond per solve on a
 * window's formula, a quarter of the solver's time on smallbank 10x100
 * under si (bench/predict/RESULTS.md, "Models read off the trail").
 * After a satisfiable check the SMT kernel's trail holds every assigned
 * literal - with relevancy 0 (encoder.c) every Boolean of the formula -
 * so the values are copied from it into a flat array indexed by AST id.
 * A literal missing from it is read from a model after all (encoder.c),
 * so the trail makes reading faster, never different; where that is the
 * rule rather than the exception the encoder stops reading the trail.
 */
#include "enc_internal.h"

#include <stdlib.h>
#include <string.h>

/* Ids beyond this span (a formula of millions of terms, read a few
 * times) are not worth the array: such encoders read models. */
#define TRAIL_MAX_SPAN (1u << 22)

void enc_trail_free(enc_trail *tr)
{
    free(tr->code);
    free(tr->stamp);
    free(tr->val);
    free(tr->held);
    *tr = (enc_trail){0};
}

/* A literal the solver assigns (not folded to true or false). */
static bool solver_decides(const ip_encoder *e, Z3_ast a)
{
    return !lit_is_true(e, a) && !lit_is_false(e, a);
}

/* The literals models are read by, i < n_read_lits(e). */
static uint32_t n_read_lits(const ip_encoder *e)
{
    return e->unit_first[e->tr->n_sessions] + e->n_cand;
}

static Z3_ast read_lit(const ip_encoder *e, uint32_t i)
{
    uint32_t n_g = e->unit_first[e->tr->n_sessions];
    return i < n_g ? e->g[i] : e->cx[i - n_g];
}

/* Each literal and its negation, as the trail names them, in the table:
 * a trail entry is then decoded by its AST id alone.  The trail writes a
 * false literal x as (not x), hash-consed: the node Z3_mk_not makes here
 * (the same node each time; the context keeps it alive) is the one the
 * trail holds.  False when too wide or out of memory. */
static bool make_table(ip_encoder *e, enc_trail *tr)
{
    uint32_t n = n_read_lits(e);
    unsigned lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        Z3_ast a = read_lit(e, i);
        if (!solver_decides(e, a))
            continue;
        Z3_ast neg = Z3_mk_not(e->z, a);
        if (!neg)
            return false;
        unsigned ids[2] = {Z3_get_ast_id(e->z, a), Z3_get_ast_id(e->z, neg)};
        for (int k = 0; k < 2; k++) {
            lo = ids[k] < lo ? ids[k] : lo;
            hi = ids[k] > hi ? ids[k] : hi;
        }
    }
    if (Z3_get_error_code(e->z) != Z3_OK || lo > hi ||
        hi - lo >= TRAIL_MAX_SPAN)
        return false;
    tr->lo = lo;
    tr->span = hi - lo + 1;
    tr->code = calloc(tr->span, sizeof *tr->code);
    tr->stamp = calloc(tr->span, sizeof *tr->stamp);
    tr->val = malloc(tr->span);
    if (!tr->code || !tr->stamp || !tr->val)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        Z3_ast a = read_lit(e, i), neg;
        if (!solver_decides(e, a))
            continue;
        if (!(neg = Z3_mk_not(e->z, a)))
            return false;
        unsigned pos = Z3_get_ast_id(e->z, a) - lo;
        tr->code[pos] = (pos + 1) << 1 | 1;
        tr->code[Z3_get_ast_id(e->z, neg) - lo] = (pos + 1) << 1;
    }
    return Z3_get_error_code(e->z) == Z3_OK;
}

/* The table and arrays; off when they cannot be had (models are read
 * then). */
static void trail_open(ip_encoder *e, enc_trail *tr)
{
    /* The rank formula's solver preprocesses (QF_IDL tactics): its trail
     * is over the rewritten formula. */
    tr->off = e->opts.encoding == IP_ENC_APPROX_RANK;
    if (!tr->off && !make_table(e, tr)) {
        enc_trail_free(tr);
        tr->off = true;
    }
}

/* Record the trail entry of AST id `id`: one of the table's literals or
 * its negation, or another. */
static void note(enc_trail *tr, unsigned id)
{
    unsigned i = id - tr->lo;         /* wraps below lo */
    if (i < tr->span && tr->code[i]) {
        uint32_t p = (tr->code[i] >> 1) - 1;
        tr->stamp[p] = tr->epoch;
        tr->val[p] = tr->code[i] & 1;
    }
}

/* The trail names a false literal x by the node (not x), which Z3 makes
 * when the trail is asked for and deletes with the vector unless
 * something else holds it: deleting them (and the vector's references)
 * was a quarter of reading a trail, which took about 2 ms a solve on TPC-C
 * windows, a tenth of a triage run (bench/predict/RESULTS.md, "Covers of
 * the folded state; tight probes").  So each entry is held once it is
 * seen - Z3_mk_not of its argument returns the very node, and in this
 * context (not reference-counted) whatever the API returns lives as long
 * as the context - and later trails find their nodes made.  What is held
 * is one node per literal of the formula, once.  False when out of
 * memory. */
static bool hold(ip_encoder *e, enc_trail *tr, Z3_ast a, unsigned id)
{
    if (id < tr->cap_held && tr->held[id])
        return true;
    if (id >= tr->cap_held) {
        unsigned cap = tr->cap_held ? tr->cap_held : 1024;
        while (cap <= id)
            cap *= 2;
        uint8_t *more = realloc(tr->held, cap);
        if (!more)
            return false;
        memset(more + tr->cap_held, 0, cap - tr->cap_held);
        tr->held = more;
        tr->cap_held = cap;
    }
    tr->held[id] = 1;
    Z3_context z = e->z;
    if (Z3_get_ast_kind(z, a) == Z3_APP_AST) {
        Z3_app app = Z3_to_app(z, a);
        if (Z3_get_decl_kind(z, Z3_get_app_decl(z, app)) == Z3_OP_NOT)
            Z3_mk_not(z, Z3_get_app_arg(z, app, 0));
    }
    return true;
}

bool enc_trail_read(ip_encoder *e)
{
    enc_trail *tr = &e->trail;
    if (!tr->stamp && !tr->off)           /* the first read */
        trail_open(e, tr);
    if (tr->off)
        return false;
    Z3_ast_vector v = Z3_solver_get_trail(e->z, e->s);
    if (!v || Z3_get_error_code(e->z) != Z3_OK) {
        tr->off = true;       /* this solver has none: models from now on */
        return false;
    }
    Z3_ast_vector_inc_ref(e->z, v);
    tr->reads++;
    if (++tr->epoch == 0) {   /* wrapped: no stale stamp may match */
        memset(tr->stamp, 0, tr->span * sizeof *tr->stamp);
        tr->epoch = 1;
    }
    unsigned n = Z3_ast_vector_size(e->z, v);
    bool held = true;
    for (unsigned i = 0; i < n; i++) {
        Z3_ast a = Z3_ast_vector_get(e->z, v, i);
        unsigned id = Z3_get_ast_id(e->z, a);
        note(tr, id);
        held = held && hold(e, tr, a, id);
    }
    Z3_ast_vector_dec_ref(e->z, v);
    if (!held)                /* reading stays right, only slower */
        tr->off = true;
    return Z3_get_error_code(e->z) == Z3_OK;
}

int enc_trail_value(const ip_encoder *e, Z3_ast a)
{
    const enc_trail *tr = &e->trail;
    unsigned i = Z3_get_ast_id(e->z, a) - tr->lo;
    if (tr->off || i >= tr->span || tr->stamp[i] != tr->epoch)
        return -1;
    return tr->val[i];
}

/* On strict formulas nearly every solve misses literals on the trail
 * (in the tests 866 of 870; presumably Z3's preprocessing rewrites them
 * away - not traced), so their solves build a model anyway: after a few
 * such solves, stop reading the trail. */
void enc_trail_missed(ip_encoder *e)
{
    enc_trail *tr = &e->trail;
    tr->missed++;
    if (tr->reads >= 8 && 2 * tr->missed >= tr->reads)
        tr->off = true;
}
