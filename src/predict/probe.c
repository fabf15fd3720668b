/*
 * probe.c - probes (probe.h): their boundaries, and the probes a formula
 * allows, one by one: single changes, then pairs made of the single
 * changes that failed.
 *
 * A probe is an ordinary candidate: legality, the model's checker and the
 * ser checker judge it, so nothing unsound comes in, and nothing is
 * refuted from a failed one (the solver may never propose it).  What
 * confirms is covered and counted as the solver's models are, so the
 * solver then looks only for what is left: instances that need other
 * changed reads, or fewer transactions than a probe keeps.  Which
 * instances come first changes, and with it which one-instance variant
 * classes a run reports (bench/predict/RESULTS.md, "Probes", "Pairs of
 * changed reads in one transaction").
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
    uint8_t *drop;            /* ... and those its history drops */
    uint8_t *need;            /* tight boundaries: what the cycle needs */
    uint32_t *path;           /* ... its transactions, then a stack */
    probe_change *repair;     /* ... reads of boundaries moved, to put back */
    uint32_t n_repair, cap_repair;
    /* probe_next: read event next_e, its writers w[0..n_w) (loaded), the
     * next of them to try */
    uint32_t next_e, next_w, n_w, cap;
    uint32_t *w;
    bool loaded;
    probe_change last;        /* the single change probe_next gave last */
    /* single changes that did not confirm (probe_failed), and
     * probe_next_pair's place among them: failed[pf] with the pe-th read
     * of its transaction, that read's writers w2[0..n_w2) from pw */
    probe_change *failed;
    uint32_t n_failed, cap_failed, pf, pe, pw, n_w2, cap2;
    uint32_t *w2;
    uint32_t pairs_made;      /* by probe_next_pair */
    uint32_t pg;              /* probe_next_group's place in failed[], */
    bool pg_snapshot;         /* and whether failed[pg]'s group was made
                                 (its snapshot is next) */
};

probe_set *probe_set_new(const ip_trace *t, const uint32_t *order, uint32_t n)
{
    probe_set *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->t = t;
    if (!(ps->out = malloc((size_t)t->n_txns + 1)) ||
        !(ps->drop = malloc((size_t)t->n_txns + 1)) ||
        !(ps->need = malloc((size_t)t->n_txns + 1)) ||
        !(ps->path = malloc(((size_t)t->n_txns + 1) * sizeof *ps->path)) ||
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
    free(ps->drop);
    free(ps->need);
    free(ps->path);
    free(ps->repair);
    free(ps->w);
    free(ps->w2);
    free(ps->failed);
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
 * the transactions beyond the boundaries.  False when some session
 * cannot be cut so, or x itself reads past one. */
static bool set_boundaries(const ip_trace *t, ip_assignment *a, uint8_t *out,
                           uint32_t x)
{
    uint32_t s = t->txns[x].session;
    const ip_session *se = &t->sessions[s];
    memset(out, 0, t->n_txns);
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
            moved = true;
        }
    }
    return true;
}

/* Append c to the growing array *a of *n (room for *cap); false when out
 * of memory. */
static bool push_change(probe_change **a, uint32_t *n, uint32_t *cap,
                        probe_change c)
{
    if (*n == *cap) {
        uint32_t more_cap = *cap ? 2 * *cap : 16;
        probe_change *more = realloc(*a, more_cap * sizeof *more);
        if (!more)
            return false;
        *a = more;
        *cap = more_cap;
    }
    (*a)[(*n)++] = c;
    return true;
}

/* ---- tight boundaries ------------------------------------------------- */

/* The boundaries above keep as much as they can, and fail where that
 * keeps too much: a session whose first transaction reads past a boundary
 * cannot be cut before it, or a cut's boundary drops what the cycle needs
 * (whatever happens after a boundary transaction goes).  On TPC-C rc
 * windows those were three in four of the instances only the solver then
 * found, each a solver call, all with one changed read on the class
 * cycle (bench/predict/RESULTS.md, "Covers of the folded state; tight
 * probes").  Tight boundaries
 * keep what a cycle of the change needs and drop the rest: every session
 * stops at its first transaction with a read after what the cycle needs
 * of it.  Nothing the cycle needs happens after such a boundary, since
 * what it needs is closed under so and wr.  A boundary that reads a
 * writer past another boundary reads that key's last writer the history
 * keeps instead (a boundary's reads may change: SEMANTICS.md); its
 * history is usually dropped anyway, as its writer happens after a
 * boundary too.  Only stale reads (a new writer before the reader in the
 * order) are made so: a newer writer's cycle runs through what happens
 * after the reader, which its boundary drops. */

static bool in_boundary(const ip_trace *t, const ip_assignment *a, uint32_t x)
{
    if (x == IP_INIT_TXN)
        return true;
    uint32_t b = a->boundary[t->txns[x].session];
    return ip_committed(t, x) && (b == IP_NONE || x <= b);
}

/* Mark x needed and push it on ps->path at *top. */
static void need_txn(probe_set *ps, uint32_t x, uint32_t *top)
{
    if (x != IP_INIT_TXN && x != IP_NONE && !ps->need[x]) {
        ps->need[x] = 1;
        ps->path[(*top)++] = x;
    }
}

/* need[]: the m transactions of ps->path and all that precede them in so
 * or that they read from (ps->a's writers). */
static void need_closure(probe_set *ps, uint32_t m)
{
    const ip_trace *t = ps->t;
    memset(ps->need, 0, t->n_txns);
    uint32_t top = 0;
    for (uint32_t i = 0; i < m; i++)
        need_txn(ps, ps->path[i], &top);
    while (top > 0) {
        uint32_t x = ps->path[--top];
        const ip_txn *tx = &t->txns[x];
        if (x > t->sessions[tx->session].txn_first)
            need_txn(ps, x - 1, &top);
        for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
            if (t->events[e].kind == IP_READ)
                need_txn(ps, ps->a.writer[e], &top);
    }
}

/* Session s's boundary: its first committed transaction with a read after
 * the last one needed (IP_NONE: it runs to its end). */
static uint32_t tight_boundary(const probe_set *ps, uint32_t s)
{
    const ip_trace *t = ps->t;
    const ip_session *se = &t->sessions[s];
    uint32_t x = se->txn_first + se->txn_count;
    while (x > se->txn_first && !ps->need[x - 1])
        x--;
    for (; x < se->txn_first + se->txn_count; x++)
        if (ip_committed(t, x) && ip_txn_has_read(t, x))
            return x;
    return IP_NONE;
}

/* Read e of boundary b reads from a writer past a boundary: move it to
 * the last writer of its key before that one, by place, that the
 * boundaries keep (not b).  False when out of memory or none. */
static bool repair_read(probe_set *ps, uint32_t b, uint32_t e)
{
    const ip_trace *t = ps->t;
    const dep_graph *g = &ps->g;
    uint32_t k = t->events[e].key, w = ps->a.writer[e], to = IP_NONE;
    for (uint32_t i = g->kw_first[k]; i < g->kw_first[k + 1]; i++) {
        uint32_t y = g->kw[i];
        if (g->pos[y] >= g->pos[w])
            break;
        if (y != b && in_boundary(t, &ps->a, y))
            to = y;
    }
    if (to == IP_NONE ||
        !push_change(&ps->repair, &ps->n_repair, &ps->cap_repair,
                     (probe_change){e, w}))
        return false;
    ps->a.writer[e] = to;
    return true;
}

/* Under causal and si a stale read's model violation lies in its
 * reader's causal past, which tight boundaries keep as the others do:
 * on tpcc 10x100 causal they took 5 % more instructions and found
 * nothing more.  Under ra, whose premise is one so or wr step, they cost
 * 7.8 % more there (more solver calls, not fewer); under rc, whose
 * premise lies inside the reader, 6 % less, with a fifth of the calls. */
static bool tight_helps(ip_level model)
{
    return model == IP_LVL_RC;
}

/* ps->a (changes c[0..n) applied) with tight boundaries, every session's
 * set; false when they cannot be had.  Either way the caller resets the
 * boundaries and puts the repairs back once the probe is made. */
static bool set_tight(probe_set *ps, const probe_change *c, uint32_t n)
{
    const ip_trace *t = ps->t;
    const dep_graph *g = &ps->g;
    uint32_t x = t->events[c[0].read].txn, s = t->txns[x].session;
    for (uint32_t i = 0; i < n; i++)
        if (g->pos[c[i].writer] == IP_NONE ||
            g->pos[c[i].writer] >= g->pos[x])
            return false;                 /* stale reads only */
    uint32_t m = dep_graph_cycle_txns(&ps->g, c, n, ps->path);
    if (m == 0)
        return false;
    need_closure(ps, m);
    const ip_session *sx = &t->sessions[s];
    for (uint32_t y = x + 1; y < sx->txn_first + sx->txn_count; y++)
        if (ps->need[y])
            return false;
    for (uint32_t u = 0; u < t->n_sessions; u++)
        ps->a.boundary[u] = u == s ? x : tight_boundary(ps, u);
    for (uint32_t u = 0; u < t->n_sessions; u++) {
        uint32_t b = ps->a.boundary[u];
        if (b == IP_NONE || u == s)
            continue;
        const ip_txn *tb = &t->txns[b];
        for (uint32_t e = tb->ev_first; e < tb->ev_first + tb->ev_count; e++)
            if (t->events[e].kind == IP_READ &&
                !in_boundary(t, &ps->a, ps->a.writer[e]) &&
                !repair_read(ps, b, e))
                return false;
    }
    return true;
}

/* ---- one probe -------------------------------------------------------- */

/* The transactions the current probe's history drops (its boundaries
 * set): beyond a boundary, or happening after one. */
static const uint8_t *dropped(probe_set *ps, const probe_change *c,
                              uint32_t n)
{
    memcpy(ps->drop, ps->out, ps->t->n_txns);
    dep_graph_drop_after(&ps->g, c, n, ps->a.boundary, ps->drop);
    return ps->drop;
}

probe_verdict probe_make(probe_set *ps, ip_level model, const probe_change *c,
                         uint32_t n, bool any, ip_assignment *out, bool *oom)
{
    const ip_trace *t = ps->t;
    *oom = false;
    memset(out, 0, sizeof *out);
    probe_verdict v = dep_graph_cycle(&ps->g, c, n, NULL);
    if (v != PROBE_TRY && !any)
        return v;
    for (uint32_t i = 0; i < n; i++)
        ps->a.writer[c[i].read] = c[i].writer;
    if (!set_boundaries(t, &ps->a, ps->out, t->events[c[0].read].txn)) {
        v = PROBE_UNFIT;
    } else if (v == PROBE_TRY) {
        const uint8_t *drop = dropped(ps, c, n);
        v = dep_graph_fit(&ps->g, model, c, n, ps->out, drop);
        if (v == PROBE_TRY)   /* the cycle may pass what the history drops */
            v = dep_graph_cycle(&ps->g, c, n, drop);
    }
    if ((v == PROBE_UNFIT || v == PROBE_CUT_NO_CYCLE) && n == 1 && !any &&
        tight_helps(model) && set_tight(ps, c, n))
        v = PROBE_TRY;
    if (v != PROBE_UNFIT && (v == PROBE_TRY || any) &&
        !ip_assignment_copy(t, &ps->a, out)) {
        *oom = true;
        v = PROBE_UNFIT;
    }
    for (uint32_t s = 0; s < t->n_sessions; s++)
        ps->a.boundary[s] = IP_NONE;
    while (ps->n_repair > 0) {
        const probe_change *r = &ps->repair[--ps->n_repair];
        ps->a.writer[r->read] = r->writer;
    }
    for (uint32_t i = 0; i < n; i++)
        ps->a.writer[c[i].read] = t->events[c[i].read].writer;
    return v;
}

/* ---- the probes a formula allows ------------------------------------- */

/* Read event e's writers the formula allows into *buf (capacity *cap,
 * grown as needed), their number into *n; false when out of memory. */
static bool choices_into(const ip_encoder *enc, uint32_t e, uint32_t **buf,
                         uint32_t *cap, uint32_t *n)
{
    *n = ip_encoder_choices(enc, e, *buf, *cap);
    if (*n > *cap) {
        uint32_t *more = realloc(*buf, (size_t)*n * sizeof **buf);
        if (!more)
            return false;
        *buf = more;
        *cap = *n;
        *n = ip_encoder_choices(enc, e, *buf, *cap);
    }
    return true;
}

/* Does enc's formula allow change c (its read's writers loaded into
 * *buf)?  *oom when out of memory. */
static bool in_choices(const ip_encoder *enc, probe_change c, uint32_t **buf,
                       uint32_t *cap, uint32_t *n, bool *oom)
{
    if (!choices_into(enc, c.read, buf, cap, n))
        return !(*oom = true);
    for (uint32_t i = 0; i < *n; i++)
        if ((*buf)[i] == c.writer)
            return true;
    return false;
}

/* Read event e's writers the formula allows into ps->w; false when out
 * of memory. */
static bool load_choices(probe_set *ps, const ip_encoder *enc, uint32_t e)
{
    ps->next_w = 0;
    return choices_into(enc, e, &ps->w, &ps->cap, &ps->n_w);
}

static bool probed_read(const ip_trace *t, uint32_t e)
{
    const ip_event *ev = &t->events[e];
    return ev->kind == IP_READ && ev->txn != IP_INIT_TXN &&
           ip_committed(t, ev->txn);
}

/* Keep single change c for the pairs; false when out of memory. */
static bool note_failed(probe_set *ps, probe_change c)
{
    return push_change(&ps->failed, &ps->n_failed, &ps->cap_failed, c);
}

bool probe_failed(probe_set *ps)
{
    return note_failed(ps, ps->last);
}

probe_change probe_last(const probe_set *ps)
{
    return ps->last;
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
            probe_change c = {e, w};
            if (w == t->events[e].writer)
                continue;
            probe_verdict v = probe_make(ps, model, &c, 1, false, out, oom);
            if (v == PROBE_TRY) {
                ps->last = c;
                return true;
            }
            /* (one serializable only without what its history drops
             * fails as its confirmation did before the graph knew: its
             * transaction's other reads may repair it) */
            if (!*oom && (v == PROBE_NOT_MODEL || v == PROBE_UNFIT ||
                          v == PROBE_CUT_NO_CYCLE))
                *oom = !note_failed(ps, c);
            if (*oom)
                return false;
        }
    }
    return false;
}

/* ---- two reads of one transaction ------------------------------------ */

/* The k-th read event of txn x that is probed, or IP_NONE. */
static uint32_t nth_read(const ip_trace *t, uint32_t x, uint32_t k)
{
    const ip_txn *tx = &t->txns[x];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
        if (probed_read(t, e) && k-- == 0)
            return e;
    return IP_NONE;
}

/* Was change c a failed single before failed[i]?  (Then the pair of the
 * two was tried from there.)  failed[] ascends by read: probe_next walks
 * the reads in order. */
static bool failed_before(const probe_set *ps, probe_change c, uint32_t i)
{
    for (uint32_t j = i; j-- > 0 && ps->failed[j].read >= c.read;)
        if (ps->failed[j].read == c.read && ps->failed[j].writer == c.writer)
            return true;
    return false;
}

/* Does enc's formula still allow change c (no cover has taken it since)?
 * Pairs come after the singles, so ps->w is free.  *oom when out of
 * memory. */
static bool still_allowed(probe_set *ps, const ip_encoder *enc,
                          probe_change c, bool *oom)
{
    ps->loaded = false;
    return in_choices(enc, c, &ps->w, &ps->cap, &ps->n_w, oom);
}

bool probe_next_pair(probe_set *ps, const ip_encoder *enc, ip_level model,
                     uint32_t budget, ip_assignment *out, bool *oom)
{
    const ip_trace *t = ps->t;
    *oom = false;
    for (; ps->pf < ps->n_failed; ps->pf++, ps->pe = ps->pw = 0) {
        probe_change c1 = ps->failed[ps->pf];
        if (!still_allowed(ps, enc, c1, oom)) {
            if (*oom)
                return false;
            continue;
        }
        uint32_t x = t->events[c1.read].txn;
        for (uint32_t e2; (e2 = nth_read(t, x, ps->pe)) != IP_NONE;
             ps->pe++, ps->pw = 0) {
            if (e2 == c1.read)
                continue;
            if (!choices_into(enc, e2, &ps->w2, &ps->cap2, &ps->n_w2))
                return !(*oom = true);
            while (ps->pw < ps->n_w2) {
                probe_change c[2] = {c1, {e2, ps->w2[ps->pw++]}};
                if (c[1].writer == t->events[e2].writer ||
                    failed_before(ps, c[1], ps->pf))
                    continue;
                if (ps->pairs_made == budget) {
                    ps->pw--;         /* this pair is next, should it go on */
                    return false;
                }
                ps->pairs_made++;
                if (probe_make(ps, model, c, 2, false, out, oom) ==
                    PROBE_TRY)
                    return true;
                if (*oom)
                    return false;
            }
        }
    }
    return false;
}

/* ---- a transaction that does not see a writer ------------------------ */

/* Is change c allowed by enc's formula?  Uses ps->w2. */
static bool allows(probe_set *ps, const ip_encoder *enc, probe_change c,
                   bool *oom)
{
    return in_choices(enc, c, &ps->w2, &ps->cap2, &ps->n_w2, oom);
}

/* The last writer of key k at or before place p in the graph's order,
 * or IP_NONE (kw is by place; writers out of the order, IP_NONE, come
 * last). */
static uint32_t writer_as_of(const dep_graph *g, uint32_t k, uint32_t p)
{
    uint32_t last = IP_NONE;
    for (uint32_t i = g->kw_first[k];
         i < g->kw_first[k + 1] && g->pos[g->kw[i]] <= p; i++)
        last = g->kw[i];
    return last;
}

/* The writer of key k just before w in the graph's order, or IP_NONE. */
static uint32_t writer_before(const dep_graph *g, uint32_t k, uint32_t w)
{
    uint32_t p = g->pos[w];
    return p == IP_NONE || p == 0 ? IP_NONE : writer_as_of(g, k, p - 1);
}

/* The writer read e of c1's transaction takes when c1 is widened, or
 * IP_NONE where e keeps its own.  Its group: a read of c1's observed
 * writer W reads c1's writer instead where that writer wrote the key too,
 * else the key's writer before W - the transaction sees a row whole and
 * does not see W at all, as read atomic and causal want.  Its snapshot:
 * every read takes its key's last writer at or before the place of c1's
 * writer w, so the transaction sees the run as of w (a stale snapshot,
 * which causal and read atomic allow where its own past is older). */
static uint32_t widened_writer(const probe_set *ps, probe_change c1,
                               uint32_t e, bool snapshot)
{
    const ip_trace *t = ps->t;
    const ip_event *ev = &t->events[e];
    uint32_t w = t->events[c1.read].writer;
    if (!probed_read(t, e) || ev->writer == ev->txn)
        return IP_NONE;
    if (snapshot) {
        uint32_t x = writer_as_of(&ps->g, ev->key, ps->g.pos[c1.writer]);
        return x == ev->writer ? IP_NONE : x;
    }
    if (ev->writer != w)
        return IP_NONE;
    return ip_write_event(t, c1.writer, ev->key) != IP_NONE
               ? c1.writer
               : writer_before(&ps->g, ev->key, w);
}

/* Failed single c1 widened to its transaction (its group, or its
 * snapshot: widened_writer), the changes enc's formula allows, into
 * c[0..max) in read order; the number (0: more than max, or for a
 * snapshot c1's writer not before its reader). */
static uint32_t widened(probe_set *ps, const ip_encoder *enc, probe_change c1,
                        bool snapshot, uint32_t max, probe_change *c,
                        bool *oom)
{
    const ip_trace *t = ps->t;
    const uint32_t *pos = ps->g.pos;
    uint32_t r = t->events[c1.read].txn, n = 0;
    if (snapshot && (pos[c1.writer] == IP_NONE || pos[r] == IP_NONE ||
                     pos[c1.writer] >= pos[r]))
        return 0;
    const ip_txn *tx = &t->txns[r];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++) {
        probe_change ce = {e, c1.writer};
        if (e != c1.read &&
            ((ce.writer = widened_writer(ps, c1, e, snapshot)) == IP_NONE ||
             !allows(ps, enc, ce, oom))) {
            if (*oom)
                return 0;
            continue;
        }
        if (n == max)
            return 0;
        c[n++] = ce;
    }
    return n;
}

/* Did a failed single before failed[i], of the same transaction and
 * writer, make failed[i]'s snapshot already? */
static bool snapshot_before(const probe_set *ps, uint32_t i)
{
    const ip_trace *t = ps->t;
    probe_change c1 = ps->failed[i];
    uint32_t r = t->events[c1.read].txn;
    for (uint32_t j = i; j-- > 0 && t->events[ps->failed[j].read].txn == r;)
        if (ps->failed[j].writer == c1.writer)
            return true;
    return false;
}

static bool same_changes(const probe_change *a, uint32_t na,
                         const probe_change *b, uint32_t nb)
{
    return na == nb && !memcmp(a, b, na * sizeof *a);
}

/* Did a failed single before failed[i] make group c[0..n) already?  One
 * of its reads before c1's, with c1's writer, failed as a single. */
static bool made_before(const probe_set *ps, const probe_change *c,
                        uint32_t n, probe_change c1, uint32_t i)
{
    for (uint32_t j = 0; j < n && c[j].read != c1.read; j++)
        if (c[j].writer == c1.writer && failed_before(ps, c[j], i))
            return true;
    return false;
}

bool probe_next_group(probe_set *ps, const ip_encoder *enc, ip_level model,
                      uint32_t max, ip_assignment *out, bool *oom)
{
    *oom = false;
    if (max == 0 || max > PROBE_MAX_CHANGES)
        max = PROBE_MAX_CHANGES;
    while (ps->pg < ps->n_failed) {
        uint32_t i = ps->pg;
        bool snapshot = ps->pg_snapshot;
        ps->pg += snapshot;
        ps->pg_snapshot = !snapshot;
        probe_change c1 = ps->failed[i], c[PROBE_MAX_CHANGES],
                     grp[PROBE_MAX_CHANGES];
        if (!allows(ps, enc, c1, oom)) {
            if (*oom)
                return false;
            ps->pg = i + 1;
            ps->pg_snapshot = false;
            continue;
        }
        uint32_t n = widened(ps, enc, c1, false, max, grp, oom), ng = n;
        memcpy(c, grp, n * sizeof *c);
        if (!*oom && snapshot)
            n = widened(ps, enc, c1, true, max, c, oom);
        if (*oom)
            return false;
        if (n < 2 ||
            (snapshot ? snapshot_before(ps, i) ||
                            same_changes(c, n, grp, ng)
                      : made_before(ps, c, n, c1, i)))
            continue;
        if (probe_make(ps, model, c, n, false, out, oom) == PROBE_TRY)
            return true;
        if (*oom)
            return false;
    }
    return false;
}
