/*
 * strong_prune.c - fix writer orders whose alternative would close a cycle
 * with edges every valid choice has (veristrong's 1-width cycles, cobra's
 * constraint pruning).  An order "a before b" is blocked when one of its
 * implied edges x -> y has y reaching x already.  One order blocked fixes
 * the other; both blocked means every completion is cyclic.  Passes repeat
 * until nothing changes.
 *
 * Reachability, filled in reverse topological order, one of two ways:
 * - bitsets over the "targets" (the sources x of implied edges), in
 *   chunks of targets so memory stays bounded: O(edges * targets / 64)
 *   word operations a pass;
 * - session clocks: a session's committed transactions are a chain of
 *   points joined by so edges (si: start, commit, next start, ...), so
 *   the points of a session y reaches are all those from some position
 *   on; a row per point holds that first position per session, and y
 *   reaches x iff row(y)[session of x] <= position of x.  O(edges *
 *   sessions) a pass, in groups of sessions when memory is short: on the
 *   10^6-operation histories (125,000 targets, 50-100 sessions) 20-40
 *   times less work than the bitsets.
 * Points off every session (txn 0, aborted transactions) have no
 * incoming edge, and nothing else reaches them.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_graph.h"

#define MAX_PASSES 64
#define BITSET_BUDGET_WORDS (8u << 20)   /* 64 MiB of reachability bits */

typedef struct reach {
    const sg_ctx *c;
    uint32_t *tgt;            /* point -> target id, or IP_NONE */
    uint32_t n_tgt;
    uint64_t *bits;           /* n_points rows of `words` words */
    size_t cap_bits;
    uint32_t words, base;     /* chunk: target ids base .. base+64*words */
    uint32_t budget;          /* words of bits at most (BITSET_BUDGET_WORDS) */
    uint8_t *blocked;         /* parallel to c->ord: option (a,b) blocked */
    uint32_t *last_pos;       /* target id -> its point's topological index */
    uint32_t *scratch, max_rd; /* 3 * max_rd: per reader of a writer */
    /* several chunks: the writers whose orders have an edge leaving from
     * each chunk (the sources of (a, b)'s edges depend on a alone: a's
     * commit and the starts of a's readers), as (uk, i) pairs */
    uint32_t *by_chunk_first; /* per chunk + 1 */
    uint32_t (*by_chunk)[2];
    /* session clocks: per point its session (IP_NONE: none) and position
     * there; rows of `cols` entries for sessions col0 .. col0+cols */
    bool use_clocks;
    uint8_t reach_mode;       /* IP_REACH_* */
    uint32_t *chain, *cpos, n_chains;
    void *clk;                /* uint16_t entries when narrow, else uint32_t */
    bool narrow;              /* every position fits 16 bits (below 0xffff) */
    size_t cap_clk;           /* bytes */
    uint32_t col0, cols;
    uint32_t (*open_w)[2], n_open_w;   /* writers with an open order */
    /* the clock rows of key rows_uk's writers' start and commit points */
    size_t *row_start, *row_commit;
    uint32_t rows_uk;
} reach;

static void decide(sg_ctx *c, uint32_t uk, uint32_t a, uint32_t b)
{
    *sg_ord(c, uk, a, b) = 1;
    *sg_ord(c, uk, b, a) = -1;
}

static uint64_t undecided_pairs(const sg_ctx *c)
{
    uint64_t n = 0;
    for (uint32_t uk = 0; uk < c->n_ukeys; uk++) {
        uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
        for (uint32_t i = 0; i < m; i++) {
            const int8_t *row = sg_ord(c, uk, i, 0);
            uint32_t z = 0;   /* a plain count the compiler vectorises */
            for (uint32_t j = i + 1; j < m; j++)
                z += row[j] == 0;
            n += z;
        }
    }
    return n;
}

/* Whether writer i of uk has an open order (the diagonal entry, 0, does
 * not count). */
static bool has_open_order(const sg_ctx *c, uint32_t uk, uint32_t i)
{
    uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
    const int8_t *row = sg_ord(c, uk, i, 0);
    return memchr(row, 0, i) || memchr(row + i + 1, 0, m - i - 1);
}

static uint32_t writer(const sg_ctx *c, uint32_t uk, uint32_t i)
{
    return c->uk_w[c->uk_first[uk] + i];
}

static void mark_target(reach *r, uint32_t point)
{
    if (r->tgt[point] == IP_NONE)
        r->tgt[point] = r->n_tgt++;
}

/* The sources of the edges of every order "a before b" of a writer a with
 * an open order: a's commit and its readers' starts (whatever b is); the
 * writers with an open order in r->open_w. */
static void mark_targets(reach *r)
{
    const sg_ctx *c = r->c;
    r->n_open_w = 0;
    for (uint32_t uk = 0; uk < c->n_ukeys; uk++) {
        uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
        for (uint32_t i = 0; i < m; i++) {
            if (!has_open_order(c, uk, i))
                continue;
            r->open_w[r->n_open_w][0] = uk;
            r->open_w[r->n_open_w++][1] = i;
            uint32_t a = writer(c, uk, i), e = c->uk_ev[c->uk_first[uk] + i];
            mark_target(r, sg_commit(c, a));
            for (uint32_t k = c->rd_first[e]; k < c->rd_first[e + 1]; k++)
                mark_target(r, sg_start(c, c->rd[k]));
        }
    }
}

/* In-chunk bit of target `point`, or UINT32_MAX when outside the chunk. */
static uint32_t chunk_bit(const reach *r, uint32_t point)
{
    uint32_t id = r->tgt[point];
    return id >= r->base && id < r->base + 64u * r->words ? id - r->base
                                                           : UINT32_MAX;
}

static bool has_bit(const reach *r, uint32_t point, uint32_t bit)
{
    const uint64_t *row = r->bits + (size_t)point * r->words;
    return (row[bit / 64] >> (bit % 64)) & 1;
}

/* test_order for every open order (i, j) of writer i at once: the edges
 * of "a before b" leave from a's commit and a's readers' starts whatever
 * b is, so their in-chunk bits are found once; the order is blocked when
 * b's start (ww) or commit (rw, reader != b) already reaches one. */
static void test_writer_orders(reach *r, uint32_t uk, uint32_t i,
                               uint32_t *bits, uint32_t *readers)
{
    const sg_ctx *c = r->c;
    uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
    uint32_t a = writer(c, uk, i), wa = chunk_bit(r, sg_commit(c, a)), n = 0;
    uint32_t e = c->uk_ev[c->uk_first[uk] + i];
    for (uint32_t k = c->rd_first[e]; k < c->rd_first[e + 1]; k++) {
        uint32_t bit = chunk_bit(r, sg_start(c, c->rd[k]));
        if (bit != UINT32_MAX) {
            bits[n] = bit;
            readers[n++] = c->rd[k];
        }
    }
    if (wa == UINT32_MAX && n == 0)
        return;
    uint8_t *bl = &r->blocked[c->uk_ord[uk] + (uint64_t)i * m];
    for (uint32_t j = 0; j < m; j++) {
        if (j == i || bl[j] || *sg_ord(c, uk, i, j) != 0)
            continue;
        uint32_t b = writer(c, uk, j);
        bool blocked = wa != UINT32_MAX && has_bit(r, sg_start(c, b), wa);
        for (uint32_t k = 0; !blocked && k < n; k++)
            blocked = readers[k] != b && has_bit(r, sg_commit(c, b), bits[k]);
        bl[j] = blocked;
    }
}

static uint32_t chunk_of(const reach *r, uint32_t point)
{
    return r->tgt[point] / (64u * r->words);
}

/* The chunks that writer i of ukey uk has edge sources in, sorted and
 * distinct, into out (at most 1 + readers); their number. */
static uint32_t writer_chunks(const reach *r, uint32_t uk, uint32_t i,
                              uint32_t *out)
{
    const sg_ctx *c = r->c;
    uint32_t a = writer(c, uk, i), n = 0;
    if (r->tgt[sg_commit(c, a)] == IP_NONE)
        return 0;             /* no open order of a: none marked it */
    out[n++] = chunk_of(r, sg_commit(c, a));
    uint32_t e = c->uk_ev[c->uk_first[uk] + i];
    for (uint32_t k = c->rd_first[e]; k < c->rd_first[e + 1]; k++)
        if (r->tgt[sg_start(c, c->rd[k])] != IP_NONE)
            out[n++] = chunk_of(r, sg_start(c, c->rd[k]));
    ip_sort_ids(out, n);
    uint32_t d = 0;
    for (uint32_t k = 0; k < n; k++)
        if (!d || out[d - 1] != out[k])
            out[d++] = out[k];
    return d;
}

/* Per chunk, the (uk, i) whose orders need testing there; false when out
 * of memory (then every chunk tests every order). */
static bool index_writers(reach *r, uint32_t chunks)
{
    const sg_ctx *c = r->c;
    uint32_t max_rd = 0;
    uint64_t total = 0;
    for (uint32_t uk = 0; uk < c->n_ukeys; uk++)
        for (uint32_t i = c->uk_first[uk]; i < c->uk_first[uk + 1]; i++) {
            uint32_t e = c->uk_ev[i];
            uint32_t n = c->rd_first[e + 1] - c->rd_first[e];
            max_rd = n > max_rd ? n : max_rd;
            total += 1 + n;
        }
    uint32_t *tmp = malloc(sizeof *tmp * ((size_t)max_rd + 1));
    r->by_chunk_first = calloc((size_t)chunks + 2, sizeof *r->by_chunk_first);
    r->by_chunk = malloc(sizeof *r->by_chunk * (total ? total : 1));
    bool ok = tmp && r->by_chunk_first && r->by_chunk && total < UINT32_MAX;
    for (int fill = 0; ok && fill < 2; fill++) {
        if (fill)             /* counts to starts (shifted by one) */
            for (uint32_t k = 1; k <= chunks; k++)
                r->by_chunk_first[k] += r->by_chunk_first[k - 1];
        for (uint32_t uk = 0; uk < c->n_ukeys; uk++) {
            uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
            for (uint32_t i = 0; i < m; i++) {
                uint32_t n = writer_chunks(r, uk, i, tmp);
                for (uint32_t k = 0; k < n; k++) {
                    uint32_t *at = &r->by_chunk_first[tmp[k] + !fill];
                    if (fill) {
                        r->by_chunk[*at][0] = uk;
                        r->by_chunk[*at][1] = i;
                    }
                    (*at)++;
                }
            }
        }
    }
    free(tmp);
    if (!ok)
        return false;
    for (uint32_t k = chunks; k > 0; k--)   /* ends back to starts */
        r->by_chunk_first[k] = r->by_chunk_first[k - 1];
    r->by_chunk_first[0] = 0;
    return true;
}

/* The open orders of the writers indexed for the current chunk. */
static void test_chunk_orders(reach *r)
{
    uint32_t k = r->base / (64u * r->words);
    for (uint32_t x = r->by_chunk_first[k]; x < r->by_chunk_first[k + 1];
         x++)
        test_writer_orders(r, r->by_chunk[x][0], r->by_chunk[x][1],
                           r->scratch, r->scratch + r->max_rd);
}

/* Every writer's open orders (one chunk holds every target). */
static void test_all_orders(reach *r)
{
    for (uint32_t x = 0; x < r->n_open_w; x++)
        test_writer_orders(r, r->open_w[x][0], r->open_w[x][1], r->scratch,
                           r->scratch + r->max_rd);
}

/* Target ids follow the topological order, so a chunk's targets lie in
 * one stretch of it and no point after the last one reaches any: those
 * rows stay empty. */
static void number_targets(reach *r)
{
    const sg_graph *g = &r->c->g;
    uint32_t id = 0;
    for (uint32_t k = 0; k < g->n_points; k++)
        if (r->tgt[g->topo[k]] != IP_NONE) {
            r->tgt[g->topo[k]] = id;
            r->last_pos[id++] = k;
        }
}

static void fill_chunk(reach *r)
{
    const sg_graph *g = &r->c->g;
    uint32_t w = r->words, end = r->base + 64u * w;
    uint32_t last = r->last_pos[(end < r->n_tgt ? end : r->n_tgt) - 1];
    for (uint32_t k = g->n_points; k-- > last + 1;)
        memset(r->bits + (size_t)g->topo[k] * w, 0, w * sizeof(uint64_t));
    for (uint32_t k = last + 1; k-- > 0;) {
        uint32_t p = g->topo[k];
        uint64_t *row = r->bits + (size_t)p * w;
        memset(row, 0, w * sizeof *row);
        uint32_t id = r->tgt[p];
        if (id != IP_NONE && id >= r->base && id < r->base + 64u * w)
            row[(id - r->base) / 64] |= (uint64_t)1 << ((id - r->base) % 64);
        for (uint32_t i = g->out_first[p]; i < g->out_first[p + 1]; i++) {
            const uint64_t *q = r->bits + (size_t)g->edges[g->out_edge[i]].to * w;
            for (uint32_t x = 0; x < w; x++)
                row[x] |= q[x];
        }
    }
}

/* ---- session clocks ---- */

/* Session and position of every point on a session's chain. */
static bool number_chains(reach *r)
{
    const sg_ctx *c = r->c;
    const ip_trace *t = c->t;
    uint32_t n = c->g.n_points;
    r->chain = malloc((size_t)(n ? n : 1) * sizeof *r->chain);
    r->cpos = malloc((size_t)(n ? n : 1) * sizeof *r->cpos);
    if (!r->chain || !r->cpos)
        return false;
    for (uint32_t p = 0; p < n; p++)
        r->chain[p] = r->cpos[p] = IP_NONE;
    r->n_chains = t->n_sessions;
    r->narrow = true;
    for (uint32_t x = 1; x < t->n_txns; x++) {
        if (!ip_committed(t, x))
            continue;
        uint32_t prev = ip_prev_committed(t, x);
        uint32_t at = prev == IP_NONE ? 0 : r->cpos[sg_commit(c, prev)] + 1;
        r->chain[sg_start(c, x)] = r->chain[sg_commit(c, x)] =
            t->txns[x].session;
        r->cpos[sg_start(c, x)] = at;
        r->cpos[sg_commit(c, x)] = at + c->si;
        r->narrow = r->narrow && at + c->si < UINT16_MAX;
    }
    return true;
}

/* The rows in reverse topological order: each the minimum of its
 * successors' rows, and its own position in its own session.  In 16 bits
 * where positions fit (half the memory, twice the entries a vector
 * instruction takes); UINT16_MAX / UINT32_MAX: no point of that session. */
#define FILL_CLOCKS(NAME, T, NONE)                                            \
    static void NAME(reach *r)                                               \
    {                                                                         \
        const sg_graph *g = &r->c->g;                                        \
        uint32_t w = r->cols;                                                 \
        T *clk = r->clk;                                                      \
        for (uint32_t k = g->n_points; k-- > 0;) {                           \
            uint32_t p = g->topo[k];                                          \
            T *row = clk + (size_t)p * w;                                     \
            for (uint32_t x = 0; x < w; x++)                                  \
                row[x] = NONE;                                                \
            for (uint32_t i = g->out_first[p]; i < g->out_first[p + 1];      \
                 i++) {                                                       \
                const T *q = clk + (size_t)g->edges[g->out_edge[i]].to * w;  \
                for (uint32_t x = 0; x < w; x++)                              \
                    row[x] = q[x] < row[x] ? q[x] : row[x];                   \
            }                                                                 \
            if (r->chain[p] != IP_NONE && r->chain[p] - r->col0 < w)          \
                row[r->chain[p] - r->col0] = (T)r->cpos[p];                   \
        }                                                                     \
    }
FILL_CLOCKS(fill_clocks16, uint16_t, UINT16_MAX)
FILL_CLOCKS(fill_clocks32, uint32_t, UINT32_MAX)

static uint32_t clock_at(const reach *r, size_t at)
{
    return r->narrow ? ((const uint16_t *)r->clk)[at]
                     : ((const uint32_t *)r->clk)[at];
}

/* test_writer_orders with clocks: the sources of a's orders whose session
 * lies in the current group (as column and position: blocked when b's row
 * there is at most the position), then each open order (i, j). */
static void test_writer_clocks(reach *r, uint32_t uk, uint32_t i,
                               uint32_t *scratch)
{
    const sg_ctx *c = r->c;
    uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk], n = 0;
    uint32_t *col = scratch, *pos = scratch + r->max_rd;
    uint32_t *readers = scratch + 2 * r->max_rd;
    uint32_t ca = sg_commit(c, writer(c, uk, i)), sa = r->chain[ca];
    bool wa = sa != IP_NONE && sa - r->col0 < r->cols;
    uint32_t e = c->uk_ev[c->uk_first[uk] + i];
    for (uint32_t k = c->rd_first[e]; k < c->rd_first[e + 1]; k++) {
        uint32_t x = sg_start(c, c->rd[k]), sx = r->chain[x];
        if (sx != IP_NONE && sx - r->col0 < r->cols) {
            col[n] = sx - r->col0;
            pos[n] = r->cpos[x];
            readers[n++] = c->rd[k];
        }
    }
    if (!wa && n == 0)
        return;
    uint8_t *bl = &r->blocked[c->uk_ord[uk] + (uint64_t)i * m];
    const int8_t *ord = sg_ord(c, uk, i, 0);
    const uint32_t *w = c->uk_w + c->uk_first[uk];
    if (r->rows_uk != uk) {   /* open_w lists a key's writers together */
        r->rows_uk = uk;
        for (uint32_t j = 0; j < m; j++) {
            r->row_start[j] = (size_t)sg_start(c, w[j]) * r->cols;
            r->row_commit[j] = (size_t)sg_commit(c, w[j]) * r->cols;
        }
    }
    size_t wcol = wa ? sa - r->col0 : 0;
    uint32_t wpos = r->cpos[ca];
    for (uint32_t j = 0; j < m; j++) {
        if (j == i || bl[j] || ord[j] != 0)
            continue;
        bool blocked = wa && clock_at(r, r->row_start[j] + wcol) <= wpos;
        for (uint32_t k = 0; !blocked && k < n; k++)
            blocked = readers[k] != w[j] &&
                      clock_at(r, r->row_commit[j] + col[k]) <= pos[k];
        bl[j] = blocked;
    }
}

/* find_blocked with clocks, a group of sessions at a time. */
static bool find_blocked_clocks(reach *r)
{
    const sg_ctx *c = r->c;
    uint32_t n = c->g.n_points;
    uint64_t fit = (uint64_t)r->budget * (r->narrow ? 4 : 2) / (n ? n : 1);
    r->cols = r->n_chains < fit ? r->n_chains : (uint32_t)fit;
    if (r->cols == 0)
        r->cols = 1;
    size_t need = (size_t)n * r->cols;
    need *= r->narrow ? sizeof(uint16_t) : sizeof(uint32_t);
    if (need > r->cap_clk) {
        free(r->clk);
        r->clk = malloc(need ? need : 1);
        if (!r->clk)
            return false;
        r->cap_clk = need;
    }
    for (r->col0 = 0; r->col0 < r->n_chains; r->col0 += r->cols) {
        r->rows_uk = IP_NONE;
        if (r->narrow)
            fill_clocks16(r);
        else
            fill_clocks32(r);
        for (uint32_t x = 0; x < r->n_open_w; x++)
            test_writer_clocks(r, r->open_w[x][0], r->open_w[x][1],
                               r->scratch);
    }
    return true;
}

/* Fill r->blocked for every open order against the current graph. */
static bool find_blocked(reach *r)
{
    const sg_ctx *c = r->c;
    uint32_t n = c->g.n_points;
    for (uint32_t p = 0; p < n; p++)
        r->tgt[p] = IP_NONE;
    r->n_tgt = 0;
    mark_targets(r);
    memset(r->blocked, 0, c->uk_ord[c->n_ukeys]);
    /* clocks when a row of them (32 bits a session) is no longer than a
     * row of target bits */
    r->use_clocks = r->reach_mode == IP_REACH_CLOCKS ||
                    (r->reach_mode == IP_REACH_AUTO &&
                     (uint64_t)r->n_chains * 32 <= r->n_tgt);
    if (r->use_clocks)
        return find_blocked_clocks(r);
    number_targets(r);
    uint32_t need = (r->n_tgt + 63) / 64, fit = r->budget / n;
    r->words = need < fit ? need : fit;
    if (r->words == 0)
        r->words = 1;
    size_t need_words = (size_t)n * r->words;
    if (need_words > r->cap_bits) {   /* reused: fresh pages cost faults */
        free(r->bits);
        r->bits = malloc(need_words * sizeof *r->bits);
        if (!r->bits)
            return false;
        r->cap_bits = need_words;
    }
    uint32_t chunks = (r->n_tgt + 64u * r->words - 1) / (64u * r->words);
    bool indexed = chunks > 1 && index_writers(r, chunks);
    for (r->base = 0; r->base < r->n_tgt; r->base += 64u * r->words) {
        fill_chunk(r);
        if (indexed)
            test_chunk_orders(r);
        else
            test_all_orders(r);
    }
    free(r->by_chunk_first);
    free(r->by_chunk);
    r->by_chunk_first = NULL;
    r->by_chunk = NULL;
    return true;
}

/* Apply one pass's findings.  Returns the number of orders fixed, or
 * UINT64_MAX when a pair has both orders blocked (that order's edges are
 * then added, closing a cycle). */
static uint64_t apply_blocked(sg_ctx *c, const reach *r, bool *ok)
{
    uint64_t fixed = 0;
    for (uint32_t uk = 0; uk < c->n_ukeys; uk++) {
        uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
        const uint8_t *bl = r->blocked + c->uk_ord[uk];
        /* the writers' write events: no lookup per order added */
        const uint32_t *ev = c->uk_ev + c->uk_first[uk];
        for (uint32_t i = 0; i < m; i++) {
            const int8_t *row = sg_ord(c, uk, i, 0);
            for (uint32_t j = i + 1; j < m; j++) {
                if (row[j] != 0)
                    continue;
                bool ij = bl[(uint64_t)i * m + j], ji = bl[(uint64_t)j * m + i];
                uint32_t a = writer(c, uk, i), b = writer(c, uk, j);
                if (ij && ji) {
                    decide(c, uk, i, j);
                    *ok = sg_add_option_at(c, ev[i], b, 0);
                    return UINT64_MAX;
                }
                if (!ij && !ji)
                    continue;
                if (ij)
                    decide(c, uk, j, i);
                else
                    decide(c, uk, i, j);
                if (!(*ok = sg_add_option_at(c, ij ? ev[j] : ev[i],
                                             ij ? a : b, 1)))
                    return 0;
                fixed++;
            }
        }
    }
    return fixed;
}

sg_status sg_prune(sg_ctx *c, const ip_strong_opts *sopts)
{
    bool no_pruning = sopts->no_pruning;
    reach r = { .c = c, .reach_mode = sopts->reach,
                .budget = sopts->bitset_words ? sopts->bitset_words
                                              : BITSET_BUDGET_WORDS };
    sg_status st = SG_FAIL;
    bool dirty = false;
    r.tgt = malloc((size_t)(c->g.n_points ? c->g.n_points : 1) * sizeof *r.tgt);
    r.blocked = malloc(c->uk_ord[c->n_ukeys] ? c->uk_ord[c->n_ukeys] : 1);
    r.last_pos = malloc((size_t)(c->g.n_points ? c->g.n_points : 1) *
                        sizeof *r.last_pos);
    for (uint32_t e = 0; e < c->t->n_events; e++)
        if (c->rd_first[e + 1] - c->rd_first[e] > r.max_rd)
            r.max_rd = c->rd_first[e + 1] - c->rd_first[e];
    r.scratch = malloc((3 * (size_t)r.max_rd + 3) * sizeof *r.scratch);
    r.open_w = malloc(((size_t)c->uk_first[c->n_ukeys] + 1) * sizeof *r.open_w);
    uint32_t max_m = 0;
    for (uint32_t uk = 0; uk < c->n_ukeys; uk++)
        if (c->uk_first[uk + 1] - c->uk_first[uk] > max_m)
            max_m = c->uk_first[uk + 1] - c->uk_first[uk];
    r.row_start = malloc(((size_t)max_m + 1) * sizeof *r.row_start);
    r.row_commit = malloc(((size_t)max_m + 1) * sizeof *r.row_commit);
    if (!r.tgt || !r.blocked || !r.last_pos || !r.scratch || !r.open_w ||
        !r.row_start || !r.row_commit ||
        !number_chains(&r))
        goto out;
    for (;;) {
        if (!sg_index(&c->g))
            goto out;
        if (!c->g.acyclic) {
            st = SG_CONFLICT;
            break;
        }
        if (dirty) {   /* drop implied edges while reachability is known */
            dirty = false;
            if (!sg_rebuild_decided(c) || !sg_index(&c->g))
                goto out;
        }
        uint64_t open = undecided_pairs(c);
        c->stats->pairs_solver = open;
        if (open == 0) {
            st = SG_DONE;
            break;
        }
        if (no_pruning || c->stats->prune_passes >= MAX_PASSES) {
            st = SG_OPEN;
            break;
        }
        c->stats->prune_passes++;
        if (!find_blocked(&r))
            goto out;
        bool ok = true;
        uint64_t fixed = apply_blocked(c, &r, &ok);
        if (!ok)
            goto out;
        if (fixed == UINT64_MAX) {
            if (!sg_index(&c->g))
                goto out;
            st = SG_CONFLICT;
            if (c->g.acyclic) {   /* both orders blocked yet no cycle */
                ip_fail(c->err, "ser/si check: internal error: pruning "
                                "conflict without a cycle");
                st = SG_FAIL;
            }
            break;
        }
        c->stats->pairs_pruned += fixed;
        if (fixed == 0) {
            st = SG_OPEN;
            break;
        }
        dirty = true;
    }
out:
    if (st == SG_FAIL && c->err->msg[0] == '\0')
        sg_oom(c);
    free(r.tgt);
    free(r.blocked);
    free(r.last_pos);
    free(r.scratch);
    free(r.bits);
    free(r.chain);
    free(r.cpos);
    free(r.open_w);
    free(r.row_start);
    free(r.row_commit);
    free(r.clk);
    return st;
}
