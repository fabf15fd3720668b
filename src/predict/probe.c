/*
 * probe.c - single-change probes (probe.h): their boundaries, and the
 * probes a formula allows, one by one.
 *
 * A probe is an ordinary candidate: legality, the model's checker and the
 * ser checker judge it, so nothing unsound comes in, and nothing is
 * refuted from a failed one (the solver may never propose it).  What
 * confirms is covered and counted as the solver's models are, so the
 * solver then looks only for what is left: instances that need two or
 * more changed reads, or fewer transactions than a probe keeps.  Which
 * instances come first changes, and with it which one-instance variant
 * classes a run reports (bench/predict/RESULTS.md, "Probes").
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

struct probe_set {
    const ip_trace *t;
    dep_graph g;
    ip_assignment a;          /* the observed run, changed and put back
                                 probe by probe */
    uint8_t *out;             /* the current probe's txns beyond boundaries */
    /* probe_next: read event next_e, its writers w[0..n_w) (loaded), the
     * next of them to try */
    uint32_t next_e, next_w, n_w, cap;
    uint32_t *w;
    bool loaded;
};

probe_set *probe_set_new(const ip_trace *t, const uint32_t *order, uint32_t n)
{
    probe_set *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->t = t;
    if (!(ps->out = malloc((size_t)t->n_txns + 1)) ||
        !dep_graph_build(&ps->g, t, order, n) ||
        !ip_assignment_observed(t, &ps->a)) {
        probe_set_free(ps);
        return NULL;
    }
    return ps;
}

void probe_set_free(probe_set *ps)
{
    if (!ps)
        return;
    dep_graph_free(&ps->g);
    ip_assignment_free(&ps->a);
    free(ps->out);
    free(ps->w);
    free(ps);
}

/* ---- boundaries ------------------------------------------------------- */

/* The first transaction of session s inside a's boundary that reads from
 * a transaction beyond one (out[]), or IP_NONE. */
static uint32_t first_stranded(const ip_trace *t, const ip_assignment *a,
                               const uint8_t *out, uint32_t s)
{
    const ip_session *se = &t->sessions[s];
    for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
         x++) {
        if (out[x])
            return IP_NONE;
        const ip_txn *tx = &t->txns[x];
        for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count;
             e++) {
            uint32_t w = t->events[e].kind == IP_READ ? a->writer[e]
                                                      : IP_NONE;
            if (w != IP_NONE && w != IP_INIT_TXN && out[w])
                return x;
        }
    }
    return IP_NONE;
}

/* Session s's boundary set to its last committed transaction before x
 * that reads something, and the transactions after it marked out[];
 * false when there is none (the session cannot stop before x). */
static bool cut_before(const ip_trace *t, ip_assignment *a, uint8_t *out,
                       uint32_t s, uint32_t x)
{
    const ip_session *se = &t->sessions[s];
    uint32_t b = x;
    while (b > se->txn_first &&
           !(ip_committed(t, b - 1) && ip_txn_has_read(t, b - 1)))
        b--;
    if (b == se->txn_first)
        return false;
    a->boundary[s] = b - 1;
    for (uint32_t y = b; y < se->txn_first + se->txn_count; y++)
        out[y] = 1;
    return true;
}

/* a (the observed run) with the boundary of its session at x, and the
 * other sessions cut where they would read past a boundary; out[] marks
 * the transactions beyond the boundaries, *cut whether another session
 * was cut.  False when some session cannot be cut so, or x itself reads
 * past one. */
static bool set_boundaries(const ip_trace *t, ip_assignment *a, uint8_t *out,
                           uint32_t x, bool *cut)
{
    uint32_t s = t->txns[x].session;
    const ip_session *se = &t->sessions[s];
    memset(out, 0, t->n_txns);
    *cut = false;
    a->boundary[s] = x;
    for (uint32_t y = x + 1; y < se->txn_first + se->txn_count; y++)
        out[y] = 1;
    for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t u = 0; u < t->n_sessions; u++) {
            uint32_t y = first_stranded(t, a, out, u);
            if (y == IP_NONE)
                continue;
            if (y == x || u == s || !cut_before(t, a, out, u, y))
                return false;
            moved = *cut = true;
        }
    }
    return true;
}

static void reset(const ip_trace *t, ip_assignment *a, uint32_t read)
{
    for (uint32_t s = 0; s < t->n_sessions; s++)
        a->boundary[s] = IP_NONE;
    a->writer[read] = t->events[read].writer;
}

/* ---- one probe -------------------------------------------------------- */

probe_verdict probe_make(probe_set *ps, ip_level model, uint32_t e,
                         uint32_t w, bool any, ip_assignment *out, bool *oom)
{
    const ip_trace *t = ps->t;
    *oom = false;
    memset(out, 0, sizeof *out);
    probe_verdict v = dep_graph_cycle(&ps->g, e, w);
    if (v != PROBE_TRY && !any)
        return v;
    bool cut;
    ps->a.writer[e] = w;
    if (!set_boundaries(t, &ps->a, ps->out, t->events[e].txn, &cut)) {
        reset(t, &ps->a, e);
        return PROBE_UNFIT;
    }
    if (v == PROBE_TRY)
        v = dep_graph_fit(&ps->g, model, e, w, ps->out, cut);
    if ((v == PROBE_TRY || any) && !ip_assignment_copy(t, &ps->a, out)) {
        *oom = true;
        v = PROBE_UNFIT;
    }
    reset(t, &ps->a, e);
    return v;
}

/* ---- the probes a formula allows ------------------------------------- */

/* Read event e's writers the formula allows into ps->w; false when out
 * of memory. */
static bool load_choices(probe_set *ps, const ip_encoder *enc, uint32_t e)
{
    uint32_t n = ip_encoder_choices(enc, e, ps->w, ps->cap);
    if (n > ps->cap) {
        uint32_t *more = realloc(ps->w, (size_t)n * sizeof *ps->w);
        if (!more)
            return false;
        ps->w = more;
        ps->cap = n;
        n = ip_encoder_choices(enc, e, ps->w, ps->cap);
    }
    ps->n_w = n;
    ps->next_w = 0;
    return true;
}

static bool probed_read(const ip_trace *t, uint32_t e)
{
    const ip_event *ev = &t->events[e];
    return ev->kind == IP_READ && ev->txn != IP_INIT_TXN &&
           ip_committed(t, ev->txn);
}

bool probe_next(probe_set *ps, const ip_encoder *enc, ip_level model,
                ip_assignment *out, bool *oom)
{
    const ip_trace *t = ps->t;
    *oom = false;
    for (; ps->next_e < t->n_events; ps->next_e++, ps->loaded = false) {
        uint32_t e = ps->next_e;
        if (!probed_read(t, e))
            continue;
        if (!ps->loaded && !(ps->loaded = load_choices(ps, enc, e)))
            return !(*oom = true);
        while (ps->next_w < ps->n_w) {
            uint32_t w = ps->w[ps->next_w++];
            if (w != t->events[e].writer &&
                probe_make(ps, model, e, w, false, out, oom) == PROBE_TRY)
                return true;
            if (*oom)
                return false;
        }
    }
    return false;
}
