/*
 * legal.c - is an assignment a legal prediction of the observed run
 * (SEMANTICS.md, the boundary rules), and what does it keep?
 *
 * Independent of the encoder: the search checks every candidate with it
 * before reporting it, `verify` checks prediction files with it, and
 * extraction keeps what it says.  Linear in the trace: a relaxed check is
 * two passes over the in-boundary reads, a topological sort of so u wr
 * and a breadth-first walk from the boundary transactions.
 */
#include "predict.h"

#include <stdlib.h>
#include <string.h>

/* The read event e named in messages: "read of 'k' in 't'". */
#define READ_FMT "read of '%s' in '%s'"
#define READ_ARGS(obs, e) ip_key_name(obs, (obs)->events[e].key), \
                          ip_txn_name(obs, (obs)->events[e].txn)

void ip_legality_free(ip_legality *l)
{
    if (!l)
        return;
    free(l->kept);
    free(l->dropped);
    free(l->because);
    free(l->cycle);
    memset(l, 0, sizeof *l);
}

static bool alloc_legality(const ip_trace *obs, ip_legality *l)
{
    memset(l, 0, sizeof *l);
    size_t n = (size_t)obs->n_txns + 1;
    l->kept = calloc(n, 1);
    l->dropped = calloc(n, 1);
    l->because = malloc(n * sizeof *l->because);
    if (!l->kept || !l->dropped || !l->because)
        return false;
    for (uint32_t t = 0; t < obs->n_txns; t++)
        l->because[t] = (ip_hb_step){IP_NONE, IP_NONE, IP_NONE};
    return true;
}

/* Writer w of read event e is another committed transaction writing the
 * key (or the initial state).  The trace's own writer of a read event
 * always is: a read whose writer the trace reader could not resolve is
 * recorded as an anomaly, not as an event (test_extract.c checks it).
 * So only a changed writer is looked up: searching w's written keys for
 * every read of the run was a twentieth of a TPC-C triage. */
static bool writes_key(const ip_trace *obs, uint32_t w, uint32_t e,
                       ip_error *err)
{
    const ip_event *ev = &obs->events[e];
    if (w == ev->writer)
        return true;
    if (w >= obs->n_txns || w == ev->txn || !ip_committed(obs, w) ||
        ip_write_event(obs, w, ev->key) == IP_NONE)
        return ip_fail(err, READ_FMT " reads from a transaction that does "
                       "not commit a write of the key", READ_ARGS(obs, e));
    return true;
}

/* ---- strict ----------------------------------------------------------- */

static uint32_t strict_limit(const ip_trace *obs, const ip_assignment *a,
                             uint32_t s)
{
    uint32_t b = a->boundary[s];
    return b == IP_NONE ? UINT32_MAX : obs->events[b].pos;
}

/* *unfit set when what is wrong is a write past its session's boundary. */
static bool strict_read_ok(const ip_trace *obs, const ip_assignment *a,
                           uint32_t e, bool *unfit, ip_error *err)
{
    const ip_event *ev = &obs->events[e];
    uint32_t limit = strict_limit(obs, a, obs->txns[ev->txn].session);
    uint32_t w = a->writer[e];
    if (w == IP_NONE)
        return ip_fail(err, "kept " READ_FMT " has no writer",
                       READ_ARGS(obs, e));
    if (ev->pos < limit && w != ev->writer)
        return ip_fail(err, READ_FMT " precedes its session's boundary but "
                       "changed its writer", READ_ARGS(obs, e));
    if (!writes_key(obs, w, e, err))
        return false;
    if (w == IP_INIT_TXN)
        return true;
    uint32_t we = ip_write_event(obs, w, ev->key);
    if (obs->events[we].pos >= strict_limit(obs, a, obs->txns[w].session)) {
        *unfit = true;
        return ip_fail(err, READ_FMT " reads a write of '%s' that lies "
                       "after that session's boundary", READ_ARGS(obs, e),
                       ip_txn_name(obs, w));
    }
    return true;
}

static ip_legal_result check_strict(const ip_trace *obs,
                                    const ip_assignment *a, ip_legality *l,
                                    ip_error *err)
{
    for (uint32_t s = 0; s < obs->n_sessions; s++) {
        uint32_t b = a->boundary[s];
        if (b != IP_NONE &&
            (b >= obs->n_events || obs->events[b].kind != IP_READ ||
             obs->events[b].txn == IP_INIT_TXN ||
             obs->txns[obs->events[b].txn].session != s))
            return ip_fail(err, "the boundary of session '%s' is not a read "
                           "of that session", ip_session_name(obs, s)),
                   IP_LEGAL_BROKEN;
    }
    for (uint32_t t = 1; t < obs->n_txns; t++) {
        const ip_txn *x = &obs->txns[t];
        uint32_t b = a->boundary[x->session];
        if (b != IP_NONE && t > obs->events[b].txn)
            continue;                     /* beyond the boundary */
        uint32_t limit = strict_limit(obs, a, x->session);
        bool unfit = false;
        for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++)
            if (obs->events[e].kind == IP_READ && obs->events[e].pos <= limit &&
                ip_committed(obs, t) &&
                !strict_read_ok(obs, a, e, &unfit, err))
                return unfit ? IP_LEGAL_UNFIT : IP_LEGAL_BROKEN;
        l->kept[t] = ip_committed(obs, t);
    }
    return IP_LEGAL_OK;
}

/* ---- relaxed ---------------------------------------------------------- */

/* The hb graph over the in-boundary committed transactions: so between
 * consecutive ones of a session, wr from each read's chosen writer.
 * Out-edges in CSR form (first[t] .. first[t + 1] into step[]). */
typedef struct hb_graph {
    uint8_t *inb;             /* committed and in boundary */
    uint32_t *first;          /* n_txns + 1 */
    ip_hb_step *step;
    uint32_t n_steps;
} hb_graph;

static void graph_free(hb_graph *g)
{
    free(g->inb);
    free(g->first);
    free(g->step);
}

static bool in_boundary(const ip_trace *obs, const ip_assignment *a,
                        uint32_t t)
{
    uint32_t b = a->boundary[obs->txns[t].session];
    return ip_committed(obs, t) && (b == IP_NONE || t <= b);
}

/* Every read of an in-boundary transaction: its writer obeys the rules.
 * Counts the wr steps into *n_wr; *unfit set when what is wrong is a
 * writer past its session's boundary. */
static bool relaxed_reads_ok(const ip_trace *obs, const ip_assignment *a,
                             const uint8_t *inb, uint32_t *n_wr, bool *unfit,
                             ip_error *err)
{
    *n_wr = 0;
    for (uint32_t t = 1; t < obs->n_txns; t++) {
        if (!inb[t])
            continue;
        const ip_txn *x = &obs->txns[t];
        bool boundary = a->boundary[x->session] == t;
        for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++) {
            if (obs->events[e].kind != IP_READ)
                continue;
            uint32_t w = a->writer[e];
            if (w == IP_NONE)
                return ip_fail(err, READ_FMT " is inside the boundary but "
                               "has no writer", READ_ARGS(obs, e));
            if (!boundary && w != obs->events[e].writer)
                return ip_fail(err, READ_FMT " precedes its session's "
                               "boundary transaction but changed its writer",
                               READ_ARGS(obs, e));
            if (!writes_key(obs, w, e, err))
                return false;
            if (w != IP_INIT_TXN && !inb[w]) {
                *unfit = true;
                return ip_fail(err, READ_FMT " reads from '%s', which lies "
                               "after its session's boundary",
                               READ_ARGS(obs, e), ip_txn_name(obs, w));
            }
            *n_wr += w != IP_INIT_TXN;
        }
    }
    return true;
}

static bool build_graph(const ip_trace *obs, const ip_assignment *a,
                        hb_graph *g, bool *unfit, ip_error *err)
{
    uint32_t n = obs->n_txns, n_wr;
    memset(g, 0, sizeof *g);
    g->inb = calloc((size_t)n + 1, 1);
    if (!g->inb)
        return ip_oom(err, "out of memory");
    for (uint32_t t = 1; t < n; t++)
        g->inb[t] = in_boundary(obs, a, t);
    if (!relaxed_reads_ok(obs, a, g->inb, &n_wr, unfit, err))
        return false;
    g->first = calloc((size_t)n + 2, sizeof *g->first);
    g->step = malloc(((size_t)n_wr + n + 1) * sizeof *g->step);
    if (!g->first || !g->step)
        return ip_oom(err, "out of memory");
    /* count, then place (a counting sort by source) */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t s = 0; s < obs->n_sessions; s++) {
            const ip_session *se = &obs->sessions[s];
            uint32_t prev = IP_NONE;
            for (uint32_t t = se->txn_first;
                 t < se->txn_first + se->txn_count; t++) {
                if (!g->inb[t])
                    continue;
                if (prev != IP_NONE) {
                    if (pass == 0)
                        g->first[prev + 1]++;
                    else
                        g->step[g->first[prev]++] =
                            (ip_hb_step){prev, t, IP_NONE};
                }
                prev = t;
                const ip_txn *x = &obs->txns[t];
                for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count;
                     e++) {
                    uint32_t w = obs->events[e].kind == IP_READ
                                     ? a->writer[e] : IP_INIT_TXN;
                    if (w == IP_INIT_TXN)
                        continue;
                    if (pass == 0)
                        g->first[w + 1]++;
                    else
                        g->step[g->first[w]++] = (ip_hb_step){w, t, e};
                }
            }
        }
        if (pass == 0)
            for (uint32_t t = 0; t < n; t++)
                g->first[t + 1] += g->first[t];
        else                              /* first[] moved one row on */
            for (uint32_t t = n; t > 0; t--)
                g->first[t] = g->first[t - 1];
    }
    g->first[0] = 0;
    g->n_steps = g->first[n];
    return true;
}

/* An hb cycle among the transactions a topological sort left over (each
 * has a left-over predecessor): walk predecessors until one repeats. */
static bool find_cycle(const ip_trace *obs, const hb_graph *g,
                       const uint32_t *indeg, ip_legality *l)
{
    uint32_t n = obs->n_txns;
    /* the predecessor step of each left-over transaction */
    ip_hb_step *pred = malloc(((size_t)n + 1) * sizeof *pred);
    uint32_t *seen = malloc(((size_t)n + 1) * sizeof *seen);
    if (!pred || !seen) {
        free(pred);
        free(seen);
        return false;
    }
    uint32_t start = IP_NONE;
    for (uint32_t t = 0; t < n; t++) {
        pred[t].from = IP_NONE;
        seen[t] = IP_NONE;
    }
    for (uint32_t i = 0; i < g->n_steps; i++) {
        const ip_hb_step *s = &g->step[i];
        if (indeg[s->from] && indeg[s->to] && pred[s->to].from == IP_NONE) {
            pred[s->to] = *s;
            start = s->to;
        }
    }
    uint32_t t = start, k = 0;
    while (seen[t] == IP_NONE) {
        seen[t] = k++;
        t = pred[t].from;
    }
    /* t starts the cycle: collect it forwards */
    uint32_t len = k - seen[t];
    l->cycle = malloc(((size_t)len + 1) * sizeof *l->cycle);
    if (l->cycle) {
        uint32_t u = t;
        for (uint32_t i = len; i > 0; i--) {
            l->cycle[i - 1] = pred[u];
            u = pred[u].from;
        }
        l->n_cycle = len;
    }
    free(pred);
    free(seen);
    return l->cycle != NULL;
}

/* Kahn's sort of the hb graph; false with *cyclic when some transactions
 * are left (then l->cycle holds one cycle). */
static bool acyclic(const ip_trace *obs, const hb_graph *g, ip_legality *l,
                    bool *cyclic)
{
    uint32_t n = obs->n_txns;
    uint32_t *indeg = calloc((size_t)n + 1, sizeof *indeg);
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    *cyclic = false;
    if (!indeg || !queue) {
        free(indeg);
        free(queue);
        return false;
    }
    for (uint32_t i = 0; i < g->n_steps; i++)
        indeg[g->step[i].to]++;
    uint32_t head = 0, tail = 0, left = 0;
    for (uint32_t t = 1; t < n; t++) {
        left += g->inb[t];
        if (g->inb[t] && !indeg[t])
            queue[tail++] = t;
    }
    while (head < tail) {
        uint32_t u = queue[head++];
        left--;
        for (uint32_t i = g->first[u]; i < g->first[u + 1]; i++)
            if (--indeg[g->step[i].to] == 0)
                queue[tail++] = g->step[i].to;
    }
    bool ok = true;
    if (left) {
        *cyclic = true;
        ok = find_cycle(obs, g, indeg, l);
    }
    free(indeg);
    free(queue);
    return ok;
}

/* dropped = the in-boundary transactions hb-after a boundary transaction:
 * a breadth-first walk from the boundary transactions; because[] keeps the
 * step that reached each. */
static bool mark_dropped(const ip_trace *obs, const ip_assignment *a,
                         const hb_graph *g, ip_legality *l)
{
    uint32_t *queue = malloc(((size_t)obs->n_txns + 1) * sizeof *queue);
    if (!queue)
        return false;
    uint32_t head = 0, tail = 0;
    for (uint32_t s = 0; s < obs->n_sessions; s++)
        if (a->boundary[s] != IP_NONE)
            queue[tail++] = a->boundary[s];
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t i = g->first[u]; i < g->first[u + 1]; i++) {
            uint32_t x = g->step[i].to;
            if (l->dropped[x])
                continue;
            l->dropped[x] = 1;
            l->because[x] = g->step[i];
            if (a->boundary[obs->txns[x].session] != x)
                queue[tail++] = x;    /* a boundary txn is queued already */
        }
    }
    free(queue);
    return true;
}

static ip_legal_result check_relaxed(const ip_trace *obs,
                                     const ip_assignment *a, ip_legality *l,
                                     ip_error *err)
{
    for (uint32_t s = 0; s < obs->n_sessions; s++) {
        uint32_t b = a->boundary[s];
        if (b != IP_NONE &&
            (b == IP_INIT_TXN || b >= obs->n_txns ||
             obs->txns[b].session != s || !ip_committed(obs, b) ||
             !ip_txn_has_read(obs, b)))
            return ip_fail(err, "the boundary of session '%s' is not a "
                           "committed transaction of it with a read",
                           ip_session_name(obs, s)), IP_LEGAL_BROKEN;
    }
    hb_graph g;
    ip_error why = {0};
    bool unfit = false;
    if (!build_graph(obs, a, &g, &unfit, &why)) {
        graph_free(&g);
        *err = why;
        return why.oom ? IP_LEGAL_ERROR
                       : unfit ? IP_LEGAL_UNFIT : IP_LEGAL_BROKEN;
    }
    bool cyclic;
    ip_legal_result r = IP_LEGAL_OK;
    if (!acyclic(obs, &g, l, &cyclic) ||
        (!cyclic && !mark_dropped(obs, a, &g, l))) {
        r = IP_LEGAL_ERROR;
        ip_oom(err, "out of memory");
    } else if (cyclic) {
        const ip_hb_step *c = &l->cycle[0];
        r = IP_LEGAL_HB_CYCLE;
        ip_fail(err, "happens-before is cyclic inside the boundary "
                "(%u steps, one from '%s' to '%s')", l->n_cycle,
                ip_txn_name(obs, c->from), ip_txn_name(obs, c->to));
    } else {
        for (uint32_t t = 1; t < obs->n_txns; t++)
            l->kept[t] = g.inb[t] && !l->dropped[t];
    }
    graph_free(&g);
    return r;
}

ip_legal_result ip_legality_check(const ip_trace *obs, const ip_assignment *a,
                                  ip_boundary kind, ip_legality *out,
                                  ip_error *err)
{
    if (!alloc_legality(obs, out)) {
        ip_legality_free(out);
        ip_oom(err, "out of memory");
        return IP_LEGAL_ERROR;
    }
    return kind == IP_BOUNDARY_STRICT ? check_strict(obs, a, out, err)
                                      : check_relaxed(obs, a, out, err);
}

uint32_t ip_legality_chain(const ip_legality *l, uint32_t t,
                           ip_hb_step *out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t x = t; n < cap && l->dropped[x]; x = l->because[x].from)
        out[n++] = l->because[x];
    for (uint32_t i = 0; i < n / 2; i++) {
        ip_hb_step tmp = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = tmp;
    }
    return n;
}
