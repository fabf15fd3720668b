/*
 * conform.c - does an assignment obey the boundary rules of SEMANTICS.md?
 *
 * An independent check of the encoder's models: the driver refuses to
 * report a prediction whose assignment breaks a rule, and the tests use it
 * to re-check every prediction.
 */
#include "predict.h"
#include "extract_internal.h"

#include <stdlib.h>

static const char *sess_name(const ip_trace *obs, uint32_t s)
{
    return ip_session_name(obs, s);
}

/* The read event e named in messages: "read of 'k' in 't'". */
#define READ_FMT "read of '%s' in '%s'"
#define READ_ARGS(obs, e) ip_key_name(obs, (obs)->events[e].key), \
                          ip_txn_name(obs, (obs)->events[e].txn)

static bool boundary_is_read_of(const ip_trace *obs, uint32_t b, uint32_t s,
                                ip_error *err)
{
    if (b == IP_NONE)
        return true;
    if (b >= obs->n_events || obs->events[b].kind != IP_READ ||
        obs->txns[obs->events[b].txn].session != s)
        return ip_fail(err, "assignment: boundary of session '%s' is not a "
                       "read event of that session", sess_name(obs, s));
    return true;
}

static uint32_t limit_of(const ip_trace *obs, const ip_assignment *a,
                         uint32_t s)
{
    uint32_t b = a->boundary[s];
    return b == IP_NONE ? UINT32_MAX : obs->events[b].pos;
}

/* Writer w of read event e is another committed transaction writing the
 * key. */
static bool writes_key(const ip_trace *obs, uint32_t w, uint32_t e,
                       ip_error *err)
{
    const ip_event *ev = &obs->events[e];
    if (w >= obs->n_txns || w == ev->txn ||
        ip_write_event(obs, w, ev->key) == IP_NONE)
        return ip_fail(err, "assignment: " READ_FMT " reads from a "
                       "transaction that does not write the key",
                       READ_ARGS(obs, e));
    return true;
}

static bool strict_read_ok(const ip_trace *obs, const ip_assignment *a,
                           uint32_t e, ip_error *err)
{
    const ip_event *ev = &obs->events[e];
    uint32_t s = obs->txns[ev->txn].session;
    uint32_t limit = limit_of(obs, a, s);
    if (ev->pos > limit)
        return true;                      /* dropped */
    uint32_t w = a->writer[e];
    if (w == IP_NONE)
        return ip_fail(err, "assignment: kept " READ_FMT " has no writer",
                       READ_ARGS(obs, e));
    if (ev->pos < limit && w != ev->writer)
        return ip_fail(err, "assignment: " READ_FMT " precedes its "
                       "session's boundary but changed its writer",
                       READ_ARGS(obs, e));
    if (!writes_key(obs, w, e, err))
        return false;
    if (w == IP_INIT_TXN)
        return true;
    uint32_t we = ip_write_event(obs, w, ev->key);
    if (obs->events[we].pos >= limit_of(obs, a, obs->txns[w].session))
        return ip_fail(err, "assignment: " READ_FMT " reads a write of "
                       "'%s' that lies after that session's boundary",
                       READ_ARGS(obs, e), ip_txn_name(obs, w));
    return true;
}

static bool conforms_strict(const ip_trace *obs, const ip_assignment *a,
                            ip_error *err)
{
    for (uint32_t s = 0; s < obs->n_sessions; s++)
        if (!boundary_is_read_of(obs, a->boundary[s], s, err))
            return false;
    for (uint32_t e = 0; e < obs->n_events; e++)
        if (obs->events[e].kind == IP_READ && obs->events[e].txn != 0 &&
            !strict_read_ok(obs, a, e, err))
            return false;
    return true;
}

static bool has_read_event(const ip_trace *obs, uint32_t t)
{
    const ip_txn *x = &obs->txns[t];
    for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++)
        if (obs->events[e].kind == IP_READ)
            return true;
    return false;
}

static bool boundary_is_txn_of(const ip_trace *obs, uint32_t b, uint32_t s,
                               ip_error *err)
{
    if (b == IP_NONE)
        return true;
    if (b == 0 || b >= obs->n_txns || obs->txns[b].session != s ||
        !ip_committed(obs, b) || !has_read_event(obs, b))
        return ip_fail(err, "assignment: boundary of session '%s' is not a "
                       "committed transaction of it with a read",
                       sess_name(obs, s));
    return true;
}

static bool relaxed_read_ok(const ip_trace *obs, const ip_assignment *a,
                            uint32_t e, ip_error *err)
{
    const ip_event *ev = &obs->events[e];
    uint32_t s = obs->txns[ev->txn].session;
    uint32_t w = a->writer[e];
    if (w == IP_NONE)
        return ip_fail(err, "assignment: kept " READ_FMT " has no writer",
                       READ_ARGS(obs, e));
    if (a->boundary[s] != ev->txn) {
        if (w != ev->writer)
            return ip_fail(err, "assignment: " READ_FMT " precedes its "
                           "session's boundary transaction but changed its "
                           "writer", READ_ARGS(obs, e));
        return true;
    }
    if (!writes_key(obs, w, e, err))
        return false;
    if (w != IP_INIT_TXN && !ip_relaxed_in_boundary(obs, a, w))
        return ip_fail(err, "assignment: " READ_FMT " reads from '%s', "
                       "which lies after its session's boundary",
                       READ_ARGS(obs, e), ip_txn_name(obs, w));
    return true;
}

/* A transaction dropped because of a read without a writer must be able
 * to happen after a boundary transaction: its so-predecessor is a boundary
 * or dropped transaction, or one of its reads' keys is written by one.
 * (The writer the encoder chose is not known; this is the check we can
 * make without it.) */
static bool drop_justified(const ip_trace *obs, const ip_assignment *a,
                           const uint8_t *after, uint32_t t)
{
    const ip_txn *x = &obs->txns[t];
    uint32_t s = x->session;
    if (x->index > 0 && (after[t - 1] || a->boundary[s] == t - 1))
        return true;
    for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++) {
        const ip_event *ev = &obs->events[e];
        if (ev->kind != IP_READ)
            continue;
        for (uint32_t i = obs->key_writer_first[ev->key];
             i < obs->key_writer_first[ev->key + 1]; i++) {
            uint32_t w = obs->key_writer[i];
            if (w != t && w != IP_INIT_TXN &&
                ip_relaxed_in_boundary(obs, a, w) &&
                (after[w] || a->boundary[obs->txns[w].session] == w))
                return true;
        }
    }
    return false;
}

static bool has_unassigned_read(const ip_trace *obs, const ip_assignment *a,
                                uint32_t t)
{
    const ip_txn *x = &obs->txns[t];
    for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++)
        if (obs->events[e].kind == IP_READ && a->writer[e] == IP_NONE)
            return true;
    return false;
}

static bool conforms_relaxed(const ip_trace *obs, const ip_assignment *a,
                             ip_error *err)
{
    for (uint32_t s = 0; s < obs->n_sessions; s++)
        if (!boundary_is_txn_of(obs, a->boundary[s], s, err))
            return false;
    uint8_t *after = calloc((size_t)obs->n_txns + 1, 1);
    if (!after)
        return ip_fail(err, "assignment: out of memory");
    ip_mark_happens_after(obs, a, after);
    bool ok = true;
    for (uint32_t t = 1; ok && t < obs->n_txns; t++) {
        if (!ip_committed(obs, t) || !ip_relaxed_in_boundary(obs, a, t))
            continue;                     /* not in the history */
        if (after[t]) {
            if (has_unassigned_read(obs, a, t) &&
                !drop_justified(obs, a, after, t))
                ok = ip_fail(err, "assignment: transaction '%s' is left "
                             "out of the history, but nothing it could "
                             "happen after is a boundary transaction",
                             ip_txn_name(obs, t));
            continue;
        }
        const ip_txn *x = &obs->txns[t];
        for (uint32_t e = x->ev_first; ok && e < x->ev_first + x->ev_count;
             e++)
            if (obs->events[e].kind == IP_READ)
                ok = relaxed_read_ok(obs, a, e, err);
    }
    free(after);
    return ok;
}

bool ip_assignment_conforms(const ip_trace *obs, const ip_assignment *a,
                            ip_boundary kind, ip_error *err)
{
    return kind == IP_BOUNDARY_STRICT ? conforms_strict(obs, a, err)
                                      : conforms_relaxed(obs, a, err);
}
