/*
 * violation.c - a weak-isolation violation of a candidate's history as
 * facts about the observed trace (encode.h, ip_fact), for the lazy
 * weak-isolation loop: every history with these facts has the same cycle,
 * so forbidding them is sound.
 */
#include "confirm.h"
#include "extract_internal.h"

#include <stdlib.h>

typedef struct facts {
    ip_fact *f;
    uint32_t n, cap;
    const ip_trace *obs, *h;
    const ip_prediction *p;
    const uint32_t *ev_of_op;   /* of obs */
} facts;

static bool push(facts *fs, uint8_t kind, uint32_t a, uint32_t b)
{
    if (fs->n == fs->cap &&
        !ip_grow((void **)&fs->f, &fs->cap, sizeof *fs->f))
        return false;
    fs->f[fs->n++] = (ip_fact){.kind = kind, .a = a, .b = b};
    return true;
}

/* The observed event of history event e. */
static uint32_t obs_event(const facts *fs, uint32_t e)
{
    const ip_trace *h = fs->h, *obs = fs->obs;
    uint32_t op = h->events[e].op, hx = h->ops[op].txn;
    uint32_t idx = op - h->txns[hx].op_first;
    const ip_txn *x = &obs->txns[fs->p->map.obs_txn[hx]];
    for (uint32_t o = x->op_first; o < x->op_first + x->op_count; o++)
        if (fs->p->map.hist_op[o] == idx)
            return fs->ev_of_op[o];
    return IP_NONE;
}

/* First read event of h's txn `reader` from `writer` (on `key` unless
 * IP_NONE) at or after event `from`. */
static uint32_t find_read(const ip_trace *h, uint32_t reader, uint32_t writer,
                          uint32_t key, uint32_t from)
{
    const ip_txn *x = &h->txns[reader];
    for (uint32_t e = from > x->ev_first ? from : x->ev_first;
         e < x->ev_first + x->ev_count; e++)
        if (h->events[e].kind == IP_READ && h->events[e].writer == writer &&
            (key == IP_NONE || h->events[e].key == key))
            return e;
    return IP_NONE;
}

/* "history read event e reads from its writer" */
static bool push_read(facts *fs, uint32_t e)
{
    uint32_t v = obs_event(fs, e);
    return v != IP_NONE &&
           push(fs, IP_FACT_READS, v,
                fs->p->map.obs_txn[fs->h->events[e].writer]);
}

/* The previous transaction of x in its session, or IP_NONE. */
static uint32_t so_pred(const ip_trace *h, uint32_t x)
{
    return h->txns[x].index ? x - 1 : IP_NONE;
}

/* Facts of a path of so and wr edges from a to b in h (a backward search
 * from b, then the path walked from a). */
static bool push_path(facts *fs, uint32_t a, uint32_t b)
{
    const ip_trace *h = fs->h;
    uint32_t *next = malloc(sizeof *next * (h->n_txns + 1));
    uint32_t *via = malloc(sizeof *via * (h->n_txns + 1));  /* event or
                                                              IP_NONE: so */
    uint32_t *stack = malloc(sizeof *stack * (h->n_txns + 1));
    bool ok = next && via && stack;
    for (uint32_t x = 0; ok && x < h->n_txns; x++)
        next[x] = IP_NONE;
    uint32_t n = 0;
    if (ok) {
        next[b] = b;
        stack[n++] = b;
    }
    while (ok && n && next[a] == IP_NONE) {
        uint32_t v = stack[--n];
        uint32_t p = so_pred(h, v);
        if (p != IP_NONE && next[p] == IP_NONE) {
            next[p] = v;
            via[p] = IP_NONE;
            stack[n++] = p;
        }
        const ip_txn *x = &h->txns[v];
        for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++) {
            uint32_t w = h->events[e].writer;
            if (h->events[e].kind != IP_READ || w == IP_INIT_TXN ||
                next[w] != IP_NONE)
                continue;
            next[w] = v;
            via[w] = e;
            stack[n++] = w;
        }
    }
    ok = ok && next[a] != IP_NONE;
    for (uint32_t v = a; ok && v != b; v = next[v])
        ok = via[v] == IP_NONE
                 ? push(fs, IP_FACT_PRESENT, fs->p->map.obs_txn[next[v]], 0)
                 : push_read(fs, via[v]);
    free(next);
    free(via);
    free(stack);
    return ok;
}

/* Facts of one so or wr edge from a to b in h (read atomic's premise). */
static bool push_step(facts *fs, uint32_t a, uint32_t b)
{
    const ip_trace *h = fs->h;
    if (ip_so(h, a, b))
        return push(fs, IP_FACT_PRESENT, fs->p->map.obs_txn[b], 0);
    uint32_t r = find_read(h, b, a, IP_NONE, 0);
    return r != IP_NONE && push_read(fs, r);
}

/* A co edge: the axiom instance that orders from before to. */
static bool push_co(facts *fs, ip_level model, const ip_edge *e)
{
    const ip_trace *h = fs->h;
    uint32_t t1 = e->from, t2 = e->to, t3 = e->via;
    uint32_t first = 0;
    if (model == IP_LVL_RC) {         /* t3 reads from t1, later k from t2 */
        uint32_t r = find_read(h, t3, t1, IP_NONE, 0);
        if (r == IP_NONE || !push_read(fs, r))
            return false;
        first = r + 1;
    }
    uint32_t alpha = find_read(h, t3, t2, e->key, first);
    uint32_t v = alpha == IP_NONE ? IP_NONE : obs_event(fs, alpha);
    if (v == IP_NONE || !push_read(fs, alpha) ||
        !push(fs, IP_FACT_WRITES, fs->p->map.obs_txn[t1],
              fs->obs->events[v].key))
        return false;
    if (model == IP_LVL_RA)
        return push_step(fs, t1, t3);
    return model == IP_LVL_RC || push_path(fs, t1, t3);
}

bool ip_violation_facts(const ip_trace *obs, const ip_prediction *p,
                        ip_level model, const ip_cycle *c, ip_fact **out,
                        uint32_t *n, ip_error *err)
{
    facts fs = {.obs = obs, .h = p->history, .p = p,
                .ev_of_op = ip_events_of_ops(obs)};
    bool ok = fs.ev_of_op != NULL;
    for (uint32_t i = 0; ok && i < c->n_edges; i++) {
        const ip_edge *e = &c->edges[i];
        switch ((ip_edge_kind)e->kind) {
        case IP_EDGE_SO:
            ok = push(&fs, IP_FACT_PRESENT, p->map.obs_txn[e->to], 0);
            break;
        case IP_EDGE_WR: {
            uint32_t r = find_read(fs.h, e->to, e->from, e->key, 0);
            ok = r != IP_NONE && push_read(&fs, r);
            break;
        }
        case IP_EDGE_CO:
            ok = push_co(&fs, model, e);
            break;
        case IP_EDGE_WW:
        case IP_EDGE_RW:
            ok = false;       /* not in a weak model's cycle */
            break;
        }
    }
    free((void *)fs.ev_of_op);
    if (!ok) {
        free(fs.f);
        return ip_fail(err, "prediction: cannot state the %s violation of a "
                       "candidate as facts of the observed trace",
                       ip_level_name(model));
    }
    *out = fs.f;
    *n = fs.n;
    return true;
}
