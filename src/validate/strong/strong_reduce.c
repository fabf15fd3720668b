/*
 * strong_reduce.c - keep only the covering pairs of each key's decided
 * writer order.  Pruning decides pairs in every combination, and the edges
 * of "a before b" are implied whenever a before c before b is decided too:
 * the ww edge through c, and each rw edge r -> b through r -> c (or r = c)
 * and c's ww path to b.  Dropping them keeps reachability and shrinks a
 * key's edges from O(m^2) pairs to about O(m).
 *
 * Needs an indexed acyclic graph: decided orders then agree with the
 * topological order, so reachable sets fill in reverse topological order.
 * Bitsets: O(m^3 / 64) per key of m writers.
 */
#include <stdlib.h>
#include <string.h>

#include "strong_graph.h"

typedef struct pos_idx { uint32_t pos, idx; } pos_idx;

static int cmp_pos(const void *a, const void *b)
{
    const pos_idx *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static uint32_t writer(const sg_ctx *c, uint32_t uk, uint32_t i)
{
    return c->uk_w[c->uk_first[uk] + i];
}

/* Add the covering pairs of key uk; scratch sized for m writers. */
static bool reduce_key(sg_ctx *c, uint32_t uk, pos_idx *order,
                       uint64_t *reach, uint64_t *below)
{
    uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk], words = (m + 63) / 64;
    for (uint32_t i = 0; i < m; i++)
        order[i] = (pos_idx){ c->g.topo_pos[sg_commit(c, writer(c, uk, i))], i };
    qsort(order, m, sizeof *order, cmp_pos);
    for (uint32_t k = m; k-- > 0;) {
        uint32_t a = order[k].idx;
        uint64_t *ra = reach + (size_t)a * words;
        memset(below, 0, words * sizeof *below);
        for (uint32_t b = 0; b < m; b++)
            if (*sg_ord(c, uk, a, b) == 1)
                for (uint32_t x = 0; x < words; x++)
                    below[x] |= reach[(size_t)b * words + x];
        memcpy(ra, below, words * sizeof *ra);
        for (uint32_t b = 0; b < m; b++) {
            if (*sg_ord(c, uk, a, b) != 1)
                continue;
            ra[b / 64] |= (uint64_t)1 << (b % 64);
            if (!((below[b / 64] >> (b % 64)) & 1) &&
                !sg_add_option(c, c->uk_key[uk], writer(c, uk, a),
                               writer(c, uk, b), 1))
                return false;
        }
    }
    return true;
}

bool sg_rebuild_decided(sg_ctx *c)
{
    uint32_t max_m = 0;
    for (uint32_t uk = 0; uk < c->n_ukeys; uk++) {
        uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
        max_m = m > max_m ? m : max_m;
    }
    size_t words = (max_m + 63) / 64;
    pos_idx *order = malloc((max_m ? max_m : 1) * sizeof *order);
    uint64_t *reach = malloc((max_m ? max_m : 1) * (words ? words : 1) *
                             sizeof *reach);
    uint64_t *below = malloc((words ? words : 1) * sizeof *below);
    bool ok = order && reach && below;
    c->g.n_edges = c->fixed_edges;
    for (uint32_t uk = 0; ok && uk < c->n_ukeys; uk++)
        ok = reduce_key(c, uk, order, reach, below);
    free(order);
    free(reach);
    free(below);
    return ok || sg_oom(c);
}
