/*
 * derive.c - a history of whole transactions of a trace, with the writers
 * its reads take, made straight from the trace's arrays (trace.h,
 * ip_trace_derive).
 *
 * The builder would intern every name and value again, and resolve every
 * read by name: for the thousands of candidate histories a triage run
 * confirms that was about a sixth of its time.  Here the strings are the
 * parent's (shared, counted), each read's writer is given, and the rest -
 * numbering, events, key sets, writer lists - follows the builder's rules,
 * so that the trace is the one the builder would make (test_extract.c
 * compares them).
 */
#include "trace.h"
#include "intern.h"
#include "keyset.h"

#include <stdlib.h>
#include <string.h>

/* The value a read of `key` from `writer` sees: the writer's last write,
 * or for the initial transaction the value some read of the initial
 * state saw (IP_NONE when none did). */
uint32_t ip_value_written(const ip_trace *t, uint32_t writer, uint32_t key)
{
    if (writer != IP_INIT_TXN) {
        uint32_t e = ip_write_event(t, writer, key);
        return e == IP_NONE ? IP_NONE : t->ops[t->events[e].op].value;
    }
    for (uint32_t o = 0; o < t->n_ops; o++) {
        const ip_op *op = &t->ops[o];
        if (op->kind == IP_READ && op->key == key && op->from == IP_INIT_TXN &&
            op->value != IP_NONE)
            return op->value;
    }
    return IP_NONE;
}

typedef struct deriver {
    const ip_trace *t;        /* the parent */
    const uint8_t *keep;
    const uint32_t *writer;   /* per parent event */
    ip_trace *h;              /* the history */
    uint32_t *txn_of;         /* parent txn -> history txn, or IP_NONE */
    uint32_t *key_of;         /* parent key -> history key, or IP_NONE */
    uint32_t *slot;           /* per history key: its write event (scratch) */
    ip_error *err;
} deriver;

static bool kept(const deriver *d, uint32_t x)
{
    return x != IP_INIT_TXN && d->keep[x] && ip_committed(d->t, x);
}

/* Count what the history holds and number its transactions and keys
 * (keys in the order the ops first name them, as the builder does). */
static void count(deriver *d)
{
    const ip_trace *t = d->t;
    ip_trace *h = d->h;
    h->n_txns = 1;
    for (uint32_t k = 0; k < t->n_keys; k++)
        d->key_of[k] = IP_NONE;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        bool any = false;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            d->txn_of[x] = IP_NONE;
            if (!kept(d, x))
                continue;
            any = true;
            d->txn_of[x] = h->n_txns++;
            const ip_txn *tx = &t->txns[x];
            h->n_ops += tx->op_count;
            for (uint32_t o = tx->op_first; o < tx->op_first + tx->op_count;
                 o++)
                if (d->key_of[t->ops[o].key] == IP_NONE)
                    d->key_of[t->ops[o].key] = h->n_keys++;
        }
        h->n_sessions += any;
    }
    d->txn_of[IP_INIT_TXN] = IP_INIT_TXN;
}

static bool alloc_arrays(deriver *d)
{
    const ip_trace *t = d->t;
    ip_trace *h = d->h;
    size_t n_ev = (size_t)h->n_keys + h->n_ops + 1;
    h->sessions = calloc(h->n_sessions + 1, sizeof *h->sessions);
    h->txns = calloc(h->n_txns, sizeof *h->txns);
    h->ops = malloc((h->n_ops + 1) * sizeof *h->ops);
    h->events = malloc(n_ev * sizeof *h->events);
    h->key_ids = malloc((h->n_keys + 1) * sizeof *h->key_ids);
    h->key_writer_first = calloc(h->n_keys + 1, sizeof *h->key_writer_first);
    h->key_writer = malloc(n_ev * sizeof *h->key_writer);
    h->key_writer_event = malloc(n_ev * sizeof *h->key_writer_event);
    h->wkeys = malloc(n_ev * sizeof *h->wkeys);
    h->wkey_event = malloc(n_ev * sizeof *h->wkey_event);
    d->slot = malloc((h->n_keys + 1) * sizeof *d->slot);
    if (t->op_extra)
        h->op_extra = malloc((h->n_ops + 1) * sizeof *h->op_extra);
    return h->sessions && h->txns && h->ops && h->events && h->key_ids &&
           h->key_writer_first && h->key_writer && h->key_writer_event &&
           h->wkeys && h->wkey_event && d->slot &&
           (!t->op_extra || h->op_extra);
}

/* The writer read op o (parent event e) takes, a parent txn; IP_NONE
 * with err set when the history cannot have it. */
static uint32_t read_from(deriver *d, uint32_t o, uint32_t e)
{
    const ip_trace *t = d->t;
    const ip_op *op = &t->ops[o];
    uint32_t w = op->local ? op->txn : d->writer[e];
    if (w == IP_NONE || w >= t->n_txns) {
        ip_fail(d->err, "history: read of '%s' in '%s' is kept but has no "
                "writer", ip_key_name(t, op->key), ip_txn_name(t, op->txn));
        return IP_NONE;
    }
    if (op->local || w == IP_INIT_TXN)
        return w;
    /* (the observed writer writes the key: t says so) */
    const char *why = !kept(d, w) ? "the history does not keep"
                    : w == op->txn ? "is its own transaction"
                    : w != op->from && ip_write_event(t, w, op->key) == IP_NONE
                        ? "never writes it" : NULL;
    if (why) {
        ip_fail(d->err, "history: read of '%s' in '%s' reads from '%s', "
                "which %s", ip_key_name(t, op->key), ip_txn_name(t, op->txn),
                ip_txn_name(t, w), why);
        return IP_NONE;
    }
    return w;
}

/* Kept transaction x of the parent as history txn id, with its ops and
 * events (positions go on from its session's). */
static bool add_txn(deriver *d, uint32_t x, uint32_t id, uint32_t session,
                    uint32_t index)
{
    const ip_trace *t = d->t;
    ip_trace *h = d->h;
    const ip_txn *tx = &t->txns[x];
    ip_txn *hx = &h->txns[id];
    ip_session *hs = &h->sessions[session];
    *hx = (ip_txn){.name = tx->name, .session = session, .index = index,
                   .status = IP_COMMITTED, .op_first = h->n_ops,
                   .op_count = tx->op_count, .ev_first = h->n_events,
                   .extra = tx->extra};
    uint32_t e = tx->ev_first;  /* the parent's event of the op at hand */
    for (uint32_t o = tx->op_first; o < tx->op_first + tx->op_count; o++) {
        ip_op op = t->ops[o];
        bool is_event = op.kind == IP_WRITE ? op.last : !op.local;
        op.key = d->key_of[op.key];
        op.txn = id;
        if (op.kind == IP_READ) {
            uint32_t w = read_from(d, o, e);
            if (w == IP_NONE)
                return false;
            if (!op.local && w != t->ops[o].from)
                op.value = ip_value_written(t, w, t->ops[o].key);
            op.from = d->txn_of[w];
        }
        if (h->op_extra)
            h->op_extra[h->n_ops] = t->op_extra[o];
        h->ops[h->n_ops++] = op;
        if (!is_event)
            continue;
        h->events[h->n_events++] = (ip_event){
            .kind = op.kind, .key = op.key, .txn = id,
            .writer = op.kind == IP_READ ? op.from : IP_NONE,
            .op = h->n_ops - 1, .pos = hs->ev_count++};
        e++;
    }
    hx->ev_count = h->n_events - hx->ev_first;
    ip_keyset_add(h, hx, d->slot);
    return true;
}

/* Sessions, transactions, ops and events in the parent's order. */
static bool fill(deriver *d)
{
    const ip_trace *t = d->t;
    ip_trace *h = d->h;
    for (uint32_t k = 0; k < t->n_keys; k++)
        if (d->key_of[k] != IP_NONE)
            h->key_ids[d->key_of[k]] = t->key_ids[k];
    h->n_ops = 0;
    h->txns[0] = (ip_txn){.name = t->initial_name, .session = IP_NONE,
                          .extra = IP_NONE};
    for (uint32_t k = 0; k < h->n_keys; k++)
        h->events[k] = (ip_event){.kind = IP_WRITE, .key = k, .txn = 0,
                                  .writer = IP_NONE, .op = IP_NONE};
    h->n_events = h->txns[0].ev_count = h->n_keys;
    ip_keyset_add(h, &h->txns[0], d->slot);
    uint32_t n_s = 0;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        uint32_t index = 0;
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            if (d->txn_of[x] == IP_NONE)
                continue;
            if (index == 0)
                h->sessions[n_s++] = (ip_session){
                    .name = se->name, .txn_first = d->txn_of[x],
                    .extra = se->extra};
            h->sessions[n_s - 1].txn_count++;
            if (!add_txn(d, x, d->txn_of[x], n_s - 1, index++))
                return false;
        }
    }
    return true;
}

ip_trace *ip_trace_derive(const ip_trace *t, const uint8_t *keep,
                          const uint32_t *writer, ip_error *err)
{
    if (!ip_trace_unique(t) || t->n_anomalies) {
        ip_fail(err, "history: the trace has %s", t->n_anomalies
                ? "read-consistency anomalies" : "ambiguous reads");
        return NULL;
    }
    deriver d = {.t = t, .keep = keep, .writer = writer, .err = err,
                 .h = calloc(1, sizeof *d.h),
                 .txn_of = malloc(((size_t)t->n_txns + 1) * sizeof *d.txn_of),
                 .key_of = malloc(((size_t)t->n_keys + 1) * sizeof *d.key_of)};
    bool ok = d.h && d.txn_of && d.key_of;
    if (ok)
        count(&d);
    if (!ok || (d.h->n_txns > 1 && !alloc_arrays(&d))) {
        ok = ip_oom(err, "history: out of memory");
    } else if (d.h->n_txns == 1) {
        ok = ip_fail(err, "history: empty trace: no committed transaction");
    } else {
        d.h->store = ip_string_store_hold(t->store);
        d.h->strings = t->strings;
        d.h->n_strings = t->n_strings;
        d.h->initial_name = t->initial_name;
        d.h->extra = t->extra;
        ok = fill(&d);
        if (ok)
            ip_keyset_writer_lists(d.h, d.slot);
    }
    free(d.txn_of);
    free(d.key_of);
    free(d.slot);
    if (!ok) {
        ip_trace_free(d.h);
        return NULL;
    }
    return d.h;
}
