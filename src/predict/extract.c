/*
 * extract.c - the predicted history of an assignment (see predict.h).
 *
 * Two steps: decide which observed transactions and ops the history keeps
 * (keep_strict, keep_relaxed), then make it with the chosen writers.  A
 * relaxed history keeps whole transactions, and the trace model derives
 * it from the observed arrays (ip_trace_derive); a strict one may keep
 * part of a boundary transaction, and its kept ops are replayed through
 * the trace builder.  Either way the history is checked like any input:
 * a writer the history does not keep is an error, not a silently wrong
 * trace.
 */
#include "predict.h"
#include "extract_internal.h"

#include <stdlib.h>
#include <string.h>

void ip_history_map_free(ip_history_map *m)
{
    if (!m)
        return;
    free(m->obs_txn);
    free(m->hist_txn);
    free(m->hist_op);
    memset(m, 0, sizeof *m);
}

/* ev_of_op[o] = the event of op o, IP_NONE for local reads and non-last
 * writes. */
uint32_t *ip_events_of_ops(const ip_trace *obs)
{
    uint32_t *ev = malloc(((size_t)obs->n_ops + 1) * sizeof *ev);
    if (!ev)
        return NULL;
    for (uint32_t o = 0; o < obs->n_ops; o++)
        ev[o] = IP_NONE;
    for (uint32_t e = 0; e < obs->n_events; e++)
        if (obs->events[e].op != IP_NONE)
            ev[obs->events[e].op] = e;
    return ev;
}

/* Position of the event that ends `session`'s prediction: the boundary
 * read's position, or UINT32_MAX for the session end. */
static uint32_t strict_limit(const ip_trace *obs, const ip_assignment *a,
                             uint32_t s)
{
    uint32_t b = a->boundary[s];
    return b == IP_NONE ? UINT32_MAX : obs->events[b].pos;
}

/* Is op o of the boundary transaction (strictly before the boundary read)
 * kept?  Writes and local reads of a key only when the transaction's last
 * write of that key precedes the boundary: the later write is dropped, and
 * with it every op that belongs to it. */
static bool strict_keeps_op(const ip_trace *obs, uint32_t o, uint32_t limit)
{
    const ip_op *op = &obs->ops[o];
    if (op->kind == IP_READ && !op->local)
        return true;
    uint32_t w = ip_write_event(obs, op->txn, op->key);
    return w != IP_NONE && obs->events[w].pos < limit;
}

static void keep_strict(const ip_trace *obs, const ip_assignment *a,
                        const uint32_t *ev_of_op, uint8_t *keep,
                        uint8_t *keep_txn)
{
    for (uint32_t s = 0; s < obs->n_sessions; s++) {
        const ip_session *ss = &obs->sessions[s];
        uint32_t limit = strict_limit(obs, a, s);
        uint32_t btxn = a->boundary[s] == IP_NONE
                            ? IP_NONE : obs->events[a->boundary[s]].txn;
        for (uint32_t t = ss->txn_first; t < ss->txn_first + ss->txn_count;
             t++) {
            const ip_txn *x = &obs->txns[t];
            if (btxn != IP_NONE && t > btxn)
                break;
            if (!ip_committed(obs, t))
                continue;
            keep_txn[t] = 1;
            for (uint32_t o = x->op_first; o < x->op_first + x->op_count;
                 o++) {
                if (t != btxn) {
                    keep[o] = 1;
                } else if (ev_of_op[o] == a->boundary[s]) {
                    keep[o] = 1;
                    break;
                } else {
                    keep[o] = strict_keeps_op(obs, o, limit);
                }
            }
        }
    }
}

/* Relaxed: whole transactions, those the legality check keeps. */
static void keep_kept(const ip_trace *obs, const ip_legality *l,
                      uint8_t *keep_txn)
{
    for (uint32_t t = 1; t < obs->n_txns; t++)
        keep_txn[t] = l->kept[t];
}

static bool keep_relaxed(const ip_trace *obs, const ip_assignment *a,
                         uint8_t *keep_txn, ip_error *err)
{
    ip_legality l;
    ip_error why = {0};
    ip_legal_result r = ip_legality_check(obs, a, IP_BOUNDARY_RELAXED, &l,
                                          &why);
    if (r == IP_LEGAL_OK)
        keep_kept(obs, &l, keep_txn);
    ip_legality_free(&l);
    if (r == IP_LEGAL_ERROR)
        return ip_oom(err, "prediction: out of memory");
    if (r != IP_LEGAL_OK)
        return ip_fail(err, "prediction: the assignment is not a legal "
                       "prediction: %s", why.msg);
    return true;
}

/* The builder's ids of the observed trace's keys, value texts and
 * transaction names, each looked up once per history instead of once per
 * op: slot id + 1, 0 not yet (calloc'ed, so an array over a whole cut's
 * strings costs only the pages a history touches). */
typedef struct id_cache {
    uint32_t *key;            /* n_keys */
    uint32_t *value;          /* n_strings */
    uint32_t *name;           /* n_txns */
} id_cache;

static void id_cache_free(id_cache *c)
{
    free(c->key);
    free(c->value);
    free(c->name);
}

static bool id_cache_init(id_cache *c, const ip_trace *obs)
{
    c->key = calloc((size_t)obs->n_keys + 1, sizeof *c->key);
    c->value = calloc((size_t)obs->n_strings + 1, sizeof *c->value);
    c->name = calloc((size_t)obs->n_txns + 1, sizeof *c->name);
    return c->key && c->value && c->name;
}

/* The builder's id of text, from its cache slot once it is there;
 * IP_NONE only when out of memory (the slot stays 0 then: IP_NONE + 1
 * wraps to it). */
static uint32_t cached(uint32_t *slot, ip_builder *b,
                       uint32_t (*id)(ip_builder *, const char *),
                       const char *text)
{
    if (*slot == 0)
        *slot = id(b, text) + 1;
    return *slot - 1;
}

/* Add kept op o to history txn `h`. */
static bool add_op(ip_builder *b, id_cache *c, const ip_trace *obs,
                   const ip_assignment *a, const uint32_t *ev_of_op,
                   uint32_t o, uint32_t h, ip_error *err)
{
    const ip_op *op = &obs->ops[o];
    uint32_t w = IP_NONE, value = op->value;
    if (op->kind == IP_READ) {
        uint32_t e = ev_of_op[o];
        w = op->local ? op->txn : e == IP_NONE ? IP_NONE : a->writer[e];
        if (w == IP_NONE || w >= obs->n_txns)
            return ip_fail(err, "prediction: read of '%s' in '%s' is kept "
                           "but the assignment gives it no writer",
                           ip_key_name(obs, op->key),
                           ip_txn_name(obs, op->txn));
        if (!op->local && w != op->from)
            value = ip_value_written(obs, w, op->key);
    }
    uint32_t k = cached(&c->key[op->key], b, ip_builder_key_id,
                        ip_key_name(obs, op->key));
    uint32_t v = value == IP_NONE ? IP_NONE
                                  : cached(&c->value[value], b,
                                           ip_builder_value_id,
                                           ip_str(obs, value));
    uint32_t f = w == IP_NONE ? IP_NONE
                              : cached(&c->name[w], b, ip_builder_name_id,
                                       ip_txn_name(obs, w));
    if (k == IP_NONE || (value != IP_NONE && v == IP_NONE) ||
        (w != IP_NONE && f == IP_NONE))
        return ip_oom(err, "prediction: out of memory");
    return ip_builder_op_ids(b, h, op->kind, k, v, f, err);
}

static bool alloc_map(ip_history_map *m, const ip_trace *obs)
{
    m->obs_txn = malloc(((size_t)obs->n_txns + 1) * sizeof *m->obs_txn);
    m->hist_txn = malloc(((size_t)obs->n_txns + 1) * sizeof *m->hist_txn);
    m->hist_op = malloc(((size_t)obs->n_ops + 1) * sizeof *m->hist_op);
    if (!m->obs_txn || !m->hist_txn || !m->hist_op)
        return false;
    for (uint32_t t = 0; t < obs->n_txns; t++)
        m->hist_txn[t] = IP_NONE;
    for (uint32_t o = 0; o < obs->n_ops; o++)
        m->hist_op[o] = IP_NONE;
    m->obs_txn[0] = IP_INIT_TXN;
    m->hist_txn[0] = IP_INIT_TXN;
    m->n_hist_txns = 1;
    return true;
}

static bool session_has_kept(const ip_trace *obs, uint32_t s,
                             const uint8_t *keep_txn)
{
    const ip_session *ss = &obs->sessions[s];
    for (uint32_t t = ss->txn_first; t < ss->txn_first + ss->txn_count; t++)
        if (keep_txn[t])
            return true;
    return false;
}

/* Declare the kept sessions, transactions and ops in observed order, so
 * that history txn ids follow declaration order (map->obs_txn). */
static bool replay(ip_builder *b, id_cache *c, const ip_trace *obs,
                   const ip_assignment *a, const uint32_t *ev_of_op,
                   const uint8_t *keep, const uint8_t *keep_txn,
                   ip_history_map *m, ip_error *err)
{
    for (uint32_t s = 0; s < obs->n_sessions; s++) {
        if (!session_has_kept(obs, s, keep_txn))
            continue;
        const ip_session *ss = &obs->sessions[s];
        uint32_t hs = ip_builder_session(b, ip_str(obs, ss->name), err);
        if (hs == IP_NONE ||
            !ip_builder_extra(b, IP_EXTRA_SESSION, hs, ip_str(obs, ss->extra),
                              err))
            return false;
        for (uint32_t t = ss->txn_first; t < ss->txn_first + ss->txn_count;
             t++) {
            const ip_txn *x = &obs->txns[t];
            if (!keep_txn[t])
                continue;
            uint32_t h = ip_builder_txn(b, hs, ip_txn_name(obs, t),
                                        IP_COMMITTED, 0, err);
            if (h == IP_NONE ||
                !ip_builder_extra(b, IP_EXTRA_TXN, h, ip_str(obs, x->extra),
                                  err))
                return false;
            m->hist_txn[t] = m->n_hist_txns;
            m->obs_txn[m->n_hist_txns++] = t;
            uint32_t idx = 0;
            for (uint32_t o = x->op_first; o < x->op_first + x->op_count; o++) {
                if (!keep[o])
                    continue;
                if (!add_op(b, c, obs, a, ev_of_op, o, h, err) ||
                    !ip_builder_extra(b, IP_EXTRA_OP, h,
                                      ip_str(obs, ip_op_extra(obs, o)), err))
                    return false;
                m->hist_op[o] = idx++;
            }
        }
    }
    return true;
}

/* The builder numbers txns in declaration order; make sure of it, since
 * every index the report prints depends on it. */
static bool map_matches(const ip_trace *h, const ip_trace *obs,
                        const ip_history_map *m, ip_error *err)
{
    if (h->n_txns != m->n_hist_txns)
        return ip_fail(err, "prediction: history has %u transactions, "
                       "expected %u", h->n_txns, m->n_hist_txns);
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (strcmp(ip_txn_name(h, t), ip_txn_name(obs, m->obs_txn[t])))
            return ip_fail(err, "prediction: history transaction %u is "
                           "'%s', expected '%s'", t, ip_txn_name(h, t),
                           ip_txn_name(obs, m->obs_txn[t]));
    return true;
}

static ip_trace *build(const ip_trace *obs, const ip_assignment *a,
                       const uint32_t *ev_of_op, const uint8_t *keep,
                       const uint8_t *keep_txn, ip_history_map *m,
                       ip_error *err)
{
    ip_builder *b = ip_builder_new("prediction", ip_str(obs, obs->initial_name),
                                   IP_STRICT);
    id_cache c;
    if (!id_cache_init(&c, obs) || !b) {
        id_cache_free(&c);
        ip_builder_free(b);
        ip_oom(err, "prediction: out of memory");
        return NULL;
    }
    bool ok = ip_builder_extra(b, IP_EXTRA_TRACE, 0, ip_str(obs, obs->extra),
                               err) &&
              replay(b, &c, obs, a, ev_of_op, keep, keep_txn, m, err);
    id_cache_free(&c);
    if (!ok) {
        ip_builder_free(b);
        return NULL;
    }
    ip_trace *h = ip_builder_finish(b, err);
    if (h && !map_matches(h, obs, m, err)) {
        ip_trace_free(h);
        return NULL;
    }
    return h;
}

/* Relaxed: whole transactions, so the trace model derives the history
 * from obs's arrays (ip_trace_derive), which numbers the kept committed
 * transactions in id order, as the map does here. */
static ip_trace *derive(const ip_trace *obs, const ip_assignment *a,
                        const uint8_t *keep_txn, ip_history_map *m,
                        ip_error *err)
{
    ip_trace *h = ip_trace_derive(obs, keep_txn, a->writer, err);
    if (!h)
        return NULL;
    for (uint32_t t = 1; t < obs->n_txns; t++) {
        if (!keep_txn[t] || !ip_committed(obs, t))
            continue;
        const ip_txn *x = &obs->txns[t];
        m->hist_txn[t] = m->n_hist_txns;
        m->obs_txn[m->n_hist_txns++] = t;
        for (uint32_t i = 0; i < x->op_count; i++)
            m->hist_op[x->op_first + i] = i;
    }
    return h;
}

/* The history; `known` (relaxed only) is the assignment's legality,
 * checked already, or NULL. */
static ip_trace *history_of(const ip_trace *obs, const ip_assignment *a,
                            ip_boundary kind, const ip_legality *known,
                            ip_history_map *map, ip_error *err)
{
    ip_history_map local;
    ip_history_map *m = map ? map : &local;
    memset(m, 0, sizeof *m);
    bool strict = kind == IP_BOUNDARY_STRICT;
    uint32_t *ev_of_op = strict ? ip_events_of_ops(obs) : NULL;
    uint8_t *keep = strict ? calloc((size_t)obs->n_ops + 1, 1) : NULL;
    uint8_t *keep_txn = calloc((size_t)obs->n_txns + 1, 1);
    ip_trace *h = NULL;
    bool ok = (!strict || (ev_of_op && keep)) && keep_txn && alloc_map(m, obs);
    if (!ok)
        ip_oom(err, "prediction: out of memory");
    else if (strict)
        keep_strict(obs, a, ev_of_op, keep, keep_txn);
    else if (known)
        keep_kept(obs, known, keep_txn);
    else
        ok = keep_relaxed(obs, a, keep_txn, err);
    bool empty = true;
    for (uint32_t t = 1; ok && empty && t < obs->n_txns; t++)
        empty = !keep_txn[t];
    if (ok && empty)
        ip_fail(err, "prediction: the assignment keeps no transaction");
    else if (ok && strict)
        h = build(obs, a, ev_of_op, keep, keep_txn, m, err);
    else if (ok)
        h = derive(obs, a, keep_txn, m, err);
    free(ev_of_op);
    free(keep);
    free(keep_txn);
    if (!h || !map)
        ip_history_map_free(m);
    if (map && ok && empty)
        map->empty = true;
    return h;
}

ip_trace *ip_history_from_assignment(const ip_trace *obs,
                                     const ip_assignment *a, ip_boundary kind,
                                     ip_history_map *map, ip_error *err)
{
    return history_of(obs, a, kind, NULL, map, err);
}

ip_trace *ip_history_from_legal(const ip_trace *obs, const ip_assignment *a,
                                ip_boundary kind, const ip_legality *l,
                                ip_history_map *map, ip_error *err)
{
    return history_of(obs, a, kind, kind == IP_BOUNDARY_RELAXED ? l : NULL,
                      map, err);
}
