/*
 * class_cycle.c - the cycle a bug class is named by (predict.h,
 * "Triage"): the shortest dependency cycle of a predicted history through
 * a transaction of the checker's witness, with the history's weak commit
 * order as version order.
 *
 * The serializability checker returns some cycle; which one depends on
 * its search, and a history often has several (a lost update and a longer
 * cycle through the same changed read).  Naming a bug by the shortest
 * makes one bug one class.  With a version order fixed, the dependency
 * graph is explicit: so, wr, ww between consecutive writers of a key, rw
 * from a reader to the writer after the one it read.  A breadth-first
 * search from each witness transaction finds the shortest cycle back to
 * it; session order counts as one step however far it reaches (so is
 * transitive), which each search pays for once per session.
 */
#include "predict.h"

#include <stdlib.h>
#include <string.h>

typedef struct dsg {
    const ip_trace *h;
    uint32_t n;               /* history txns */
    uint32_t *first;          /* n + 1: edges of x are adj[first[x]..] */
    ip_edge *adj;
} dsg;

typedef struct key_order {
    uint32_t *first;          /* n_keys + 1 */
    uint32_t *txn;            /* writers of each key by commit position */
} key_order;

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* Writers of every key (txn 0 left out) in commit order: sorted as
 * (position << 32 | txn), a window's history holding thousands of
 * writers of a key. */
static bool order_writers(const ip_trace *h, const uint32_t *pos,
                          key_order *ko)
{
    size_t all = h->key_writer_first[h->n_keys];
    uint64_t *by_pos = malloc((all + 1) * sizeof *by_pos);
    ko->first = calloc((size_t)h->n_keys + 1, sizeof *ko->first);
    ko->txn = malloc((all + 1) * sizeof *ko->txn);
    if (!by_pos || !ko->first || !ko->txn) {
        free(by_pos);
        return false;
    }
    uint32_t k = 0;
    for (uint32_t key = 0; key < h->n_keys; key++) {
        ko->first[key] = k;
        for (uint32_t q = h->key_writer_first[key];
             q < h->key_writer_first[key + 1]; q++) {
            uint32_t x = h->key_writer[q];
            if (x != IP_INIT_TXN && pos[x] != IP_NONE)
                by_pos[k++] = (uint64_t)pos[x] << 32 | x;
        }
        qsort(by_pos + ko->first[key], k - ko->first[key], sizeof *by_pos,
              cmp_u64);
    }
    ko->first[h->n_keys] = k;
    for (uint32_t q = 0; q < k; q++)
        ko->txn[q] = (uint32_t)by_pos[q];
    free(by_pos);
    return true;
}

/* The writer of `key` after w in commit order (IP_NONE: none; w txn 0:
 * the first). */
static uint32_t next_writer(const key_order *ko, const uint32_t *pos,
                            uint32_t key, uint32_t w)
{
    uint32_t lo = ko->first[key], hi = ko->first[key + 1];
    if (w == IP_INIT_TXN)
        return lo < hi ? ko->txn[lo] : IP_NONE;
    while (lo < hi) {             /* first writer with position > w's */
        uint32_t mid = lo + (hi - lo) / 2;
        if (pos[ko->txn[mid]] <= pos[w])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ko->first[key + 1] ? ko->txn[lo] : IP_NONE;
}

/* Calls add(edge) for every wr, ww and rw edge of the graph. */
typedef struct builder {
    dsg *g;
    bool counting;
} builder;

static void put(builder *b, ip_edge e)
{
    if (e.from == e.to || e.from == IP_INIT_TXN)
        return;
    if (b->counting)
        b->g->first[e.from + 1]++;
    else
        b->g->adj[b->g->first[e.from]++] = e;
}

static void edges(builder *b, const key_order *ko, const uint32_t *pos)
{
    const ip_trace *h = b->g->h;
    for (uint32_t v = 0; v < h->n_events; v++) {
        const ip_event *ev = &h->events[v];
        if (ev->kind != IP_READ || ev->txn == IP_INIT_TXN ||
            ev->writer == IP_NONE)
            continue;
        put(b, (ip_edge){.from = ev->writer, .to = ev->txn,
                         .kind = IP_EDGE_WR, .key = ev->key, .via = IP_NONE});
        /* the writer after the one read, the reader's own write aside:
         * a read-modify-write that missed another's write has its rw
         * edge to it, which is what makes a lost update two rw edges */
        uint32_t w = next_writer(ko, pos, ev->key, ev->writer);
        if (w == ev->txn)
            w = next_writer(ko, pos, ev->key, w);
        if (w != IP_NONE)
            put(b, (ip_edge){.from = ev->txn, .to = w, .kind = IP_EDGE_RW,
                             .key = ev->key, .via = ev->writer});
    }
    for (uint32_t key = 0; key < h->n_keys; key++)
        for (uint32_t q = ko->first[key]; q + 1 < ko->first[key + 1]; q++)
            put(b, (ip_edge){.from = ko->txn[q], .to = ko->txn[q + 1],
                             .kind = IP_EDGE_WW, .key = key, .via = IP_NONE});
}

static bool build(dsg *g, const key_order *ko, const uint32_t *pos)
{
    g->first = calloc((size_t)g->n + 2, sizeof *g->first);
    if (!g->first)
        return false;
    builder b = {.g = g, .counting = true};
    edges(&b, ko, pos);
    for (uint32_t x = 0; x < g->n; x++)
        g->first[x + 1] += g->first[x];
    g->adj = malloc(((size_t)g->first[g->n] + 1) * sizeof *g->adj);
    if (!g->adj)
        return false;
    b.counting = false;
    edges(&b, ko, pos);               /* first[x] moves to x's end */
    for (uint32_t x = g->n; x > 0; x--)
        g->first[x] = g->first[x - 1];
    g->first[0] = 0;
    return true;
}

/* Search state, allocated once for all sources. */
typedef struct bfs {
    uint32_t *dist, *queue, *so_done;
    ip_edge *via;             /* the edge that reached each txn */
} bfs;

/* Enqueue e's target, reached by e, at distance d, unless seen. */
static void reach(bfs *s, uint32_t *tail, ip_edge e, uint32_t d)
{
    if (s->dist[e.to] != IP_NONE)
        return;
    s->dist[e.to] = d;
    s->via[e.to] = e;
    s->queue[(*tail)++] = e.to;
}

/* The shortest cycle through src of at most `limit` edges into out
 * (edges, room for limit); its length, or 0 when none is that short. */
static uint32_t shortest_through(const dsg *g, bfs *s, uint32_t src,
                                 uint32_t limit, ip_edge *out)
{
    const ip_trace *h = g->h;
    for (uint32_t x = 0; x < g->n; x++)
        s->dist[x] = IP_NONE;
    for (uint32_t se = 0; se < h->n_sessions; se++)
        s->so_done[se] = h->sessions[se].txn_count;
    uint32_t head = 0, tail = 0;
    s->dist[src] = 0;
    s->queue[tail++] = src;
    ip_edge last = {0};
    bool found = false;
    while (head < tail && !found) {
        uint32_t x = s->queue[head++], d = s->dist[x];
        if (d + 1 > limit)
            break;
        for (uint32_t i = g->first[x]; i < g->first[x + 1] && !found; i++) {
            if (g->adj[i].to == src) {
                last = g->adj[i];
                found = true;
            } else {
                reach(s, &tail, g->adj[i], d + 1);
            }
        }
        /* session order: every later transaction of x's session */
        uint32_t se = h->txns[x].session, idx = h->txns[x].index;
        for (uint32_t j = idx + 1; !found && j < s->so_done[se]; j++) {
            uint32_t y = h->sessions[se].txn_first + j;
            ip_edge e = {.from = x, .to = y, .kind = IP_EDGE_SO,
                         .key = IP_NONE, .via = IP_NONE};
            if (y == src) {
                last = e;
                found = true;
            } else {
                reach(s, &tail, e, d + 1);
            }
        }
        if (!found && idx + 1 < s->so_done[se])
            s->so_done[se] = idx + 1;
    }
    if (!found)
        return 0;
    uint32_t len = s->dist[last.from] + 1, k = len;
    out[--k] = last;
    for (uint32_t x = last.from; x != src; x = s->via[x].from)
        out[--k] = s->via[x];
    return len;
}

static void bfs_free(bfs *s)
{
    free(s->dist);
    free(s->queue);
    free(s->so_done);
    free(s->via);
}

/* Commit positions of the history's txns from `order` (IP_NONE: not in
 * it). */
static uint32_t *positions(const ip_trace *h, const uint32_t *order,
                           uint32_t n_order)
{
    uint32_t *pos = malloc(((size_t)h->n_txns + 1) * sizeof *pos);
    if (!pos)
        return NULL;
    for (uint32_t x = 0; x < h->n_txns; x++)
        pos[x] = IP_NONE;
    for (uint32_t i = 0; i < n_order; i++)
        if (order[i] < h->n_txns)
            pos[order[i]] = i;
    return pos;
}

/* The search proper; out->edges holds the shortened witness on entry. */
static bool search(const ip_trace *h, const uint32_t *pos,
                   const ip_cycle *witness, ip_cycle *out)
{
    dsg g = {.h = h, .n = h->n_txns};
    key_order ko = {0};
    bfs s = {0};
    uint32_t limit = out->n_edges;
    ip_edge *path = malloc(((size_t)limit + 1) * sizeof *path);
    s.dist = malloc(((size_t)g.n + 1) * sizeof *s.dist);
    s.queue = malloc(((size_t)g.n + 1) * sizeof *s.queue);
    s.via = malloc(((size_t)g.n + 1) * sizeof *s.via);
    s.so_done = malloc(((size_t)h->n_sessions + 1) * sizeof *s.so_done);
    bool ok = path && s.dist && s.queue && s.via && s.so_done &&
              order_writers(h, pos, &ko) && build(&g, &ko, pos);
    for (uint32_t i = 0; ok && i < witness->n_edges && limit > 2; i++) {
        uint32_t src = witness->edges[i].from;
        if (src == IP_INIT_TXN || pos[src] == IP_NONE)
            continue;
        uint32_t len = shortest_through(&g, &s, src, limit - 1, path);
        if (len) {
            memcpy(out->edges, path, len * sizeof *path);
            out->n_edges = limit = len;
        }
    }
    free(path);
    bfs_free(&s);
    free(ko.first);
    free(ko.txn);
    free(g.first);
    free(g.adj);
    return ok;
}

bool ip_class_cycle(const ip_trace *h, const uint32_t *order,
                    uint32_t n_order, const ip_cycle *witness, ip_cycle *out)
{
    if (!ip_cycle_shorten(h, witness, out))
        return false;
    if (!order || out->n_edges <= 2)
        return true;
    uint32_t *pos = positions(h, order, n_order);
    bool ok = pos && search(h, pos, witness, out);
    free(pos);
    if (!ok) {
        free(out->edges);
        out->edges = NULL;
        out->n_edges = 0;
    }
    return ok;
}

char *ip_prediction_signature(const ip_prediction *p,
                              const ip_key_family *kf)
{
    if (!p->history || p->ser_verdict.n_cycles == 0)
        return NULL;
    ip_cycle c;
    if (!ip_prediction_class_cycle(p, &c))
        return NULL;
    char *sig = ip_cycle_signature(p->history, &c, kf);
    free(c.edges);
    return sig;
}

bool ip_prediction_class_cycle(const ip_prediction *p, ip_cycle *out)
{
    return ip_class_cycle(p->history, p->model_verdict.order,
                          p->model_verdict.n_order, &p->ser_verdict.cycles[0],
                          out);
}
