/* order.c - a topological order of session order and the observed
 * write-read edges over the committed transactions (Kahn's algorithm),
 * for the predictor, the encoder's pruning and the ser/si checker's
 * ambiguous reads (their chosen writers). */
#include "trace.h"

#include <stdlib.h>

uint32_t ip_prev_committed(const ip_trace *t, uint32_t x)
{
    uint32_t first = t->sessions[t->txns[x].session].txn_first;
    while (x > first) {
        x--;
        if (ip_committed(t, x))
            return x;
    }
    return IP_NONE;
}

/* succ[first[x] .. first[x+1]) are x's successors: the transactions that
 * read from x (by chosen[i] for the ambiguous read i), and x's next
 * committed transaction in its session. */
static void fill_edges(const ip_trace *t, const uint32_t *chosen,
                       uint32_t *first, uint32_t *succ)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; chosen && i < t->n_ambiguous; i++) {
            uint32_t w = chosen[i], x = t->events[t->amb_event[i]].txn;
            if (w == IP_NONE || w == IP_INIT_TXN || !ip_committed(t, x))
                continue;
            if (pass == 0)
                first[w + 1]++;
            else
                succ[first[w]++] = x;
        }
        for (uint32_t x = 1; x < t->n_txns; x++) {
            if (!ip_committed(t, x))
                continue;
            const ip_txn *tx = &t->txns[x];
            for (uint32_t i = 0; i < tx->ev_count; i++) {
                const ip_event *ev = &t->events[tx->ev_first + i];
                if (ev->kind != IP_READ || ev->writer == IP_INIT_TXN ||
                    ev->writer == IP_NONE)
                    continue;
                if (pass == 0)
                    first[ev->writer + 1]++;
                else
                    succ[first[ev->writer]++] = x;
            }
            uint32_t p = ip_prev_committed(t, x);
            if (p != IP_NONE && pass == 0)
                first[p + 1]++;
            else if (p != IP_NONE)
                succ[first[p]++] = x;
        }
        if (pass == 0)
            for (uint32_t x = 0; x < t->n_txns; x++)
                first[x + 1] += first[x];
    }
    /* the second pass advanced first[x] to the end of x's list */
    for (uint32_t x = t->n_txns; x > 0; x--)
        first[x] = first[x - 1];
    first[0] = 0;
}

bool ip_so_wr_order(const ip_trace *t, uint32_t *order, uint32_t *n)
{
    return ip_so_wr_order_chosen(t, NULL, order, n);
}

bool ip_so_wr_order_chosen(const ip_trace *t, const uint32_t *chosen,
                           uint32_t *order, uint32_t *n)
{
    uint32_t m = t->n_txns;
    uint32_t *indeg = calloc(m + 1, sizeof *indeg);
    uint32_t *first = calloc(m + 2, sizeof *first);
    uint32_t *succ = malloc(sizeof *succ * (t->n_events + m + 1));
    bool ok = indeg && first && succ;
    *n = 0;
    if (ok) {
        fill_edges(t, chosen, first, succ);
        for (uint32_t x = 1; x < m; x++)
            for (uint32_t i = first[x]; i < first[x + 1]; i++)
                indeg[succ[i]]++;
        for (uint32_t x = 1; x < m; x++)
            if (ip_committed(t, x) && indeg[x] == 0)
                order[(*n)++] = x;
        for (uint32_t head = 0; head < *n; head++) {
            uint32_t x = order[head];
            for (uint32_t i = first[x]; i < first[x + 1]; i++)
                if (--indeg[succ[i]] == 0)
                    order[(*n)++] = succ[i];
        }
    }
    free(indeg);
    free(first);
    free(succ);
    return ok;
}
