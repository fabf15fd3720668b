/*
 * stats.c - size and shape of a trace (ip_trace_stats).
 *
 * Transactions, events and their kinds count the transactions of the
 * sessions only: txn 0 and its one initial write per key are left out, so
 * that the numbers describe what the application did.
 */
#include "trace.h"

#include <string.h>

static void count_txns(const ip_trace *t, ip_stats *s)
{
    for (uint32_t i = 1; i < t->n_txns; i++) {
        const ip_txn *x = &t->txns[i];
        s->txns++;
        if (x->status == IP_ABORTED) {
            s->aborted++;
            continue;
        }
        s->committed++;
        s->read_only += x->wkey_count == 0;
    }
}

static void count_ops(const ip_trace *t, ip_stats *s)
{
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const ip_op *o = &t->ops[i];
        s->ops++;
        if (o->kind == IP_READ) {
            s->reads++;
            s->local_reads += o->local != 0;
        } else {
            s->writes++;
        }
    }
}

static void count_events(const ip_trace *t, ip_stats *s)
{
    for (uint32_t i = 0; i < t->n_events; i++) {
        const ip_event *e = &t->events[i];
        if (e->txn == IP_INIT_TXN)
            continue;
        s->events++;
        if (e->kind == IP_READ)
            s->read_events++;
        else
            s->write_events++;
    }
}

/* Keys with more than one committed writer besides txn 0. */
static uint32_t count_conflict_keys(const ip_trace *t)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        uint32_t w = t->key_writer_first[k + 1] - t->key_writer_first[k];
        /* writer lists are ascending, so txn 0 comes first when present */
        if (w && t->key_writer[t->key_writer_first[k]] == IP_INIT_TXN)
            w--;
        n += w > 1;
    }
    return n;
}

void ip_trace_stats(const ip_trace *t, ip_stats *out)
{
    memset(out, 0, sizeof *out);
    out->sessions = t->n_sessions;
    out->keys = t->n_keys;
    count_txns(t, out);
    count_ops(t, out);
    count_events(t, out);
    out->ambiguous_reads = t->n_ambiguous;
    out->conflict_keys = count_conflict_keys(t);
    out->mini_transactions = ip_trace_mini(t, &out->mini_why);
}
