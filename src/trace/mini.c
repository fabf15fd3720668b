/*
 * mini.c - is a trace a mini-transaction history (ip_trace_mini)?
 *
 * The MTC paper (Defs. 8-9) calls a transaction a mini-transaction when it
 * has one or two reads and at most two writes, each write preceded by a
 * read of its key, and a history a mini-transaction history when every
 * transaction but the initial one is one and writes have unique values.
 * The unique values are there to make each read's writer known; a trace
 * names each read's writer, so here that premise is "no ambiguous read".
 * The paper also assumes internal consistency, which in a trace is: no
 * read-consistency anomaly, and a transaction that reads a key twice
 * before writing it reads one writer both times.  Aborted transactions
 * are not part of the history and are not looked at.
 */
#include "trace.h"

const char *ip_mini_reason(ip_mini_kind kind)
{
    switch (kind) {
    case IP_MINI_YES: return "every transaction is a mini-transaction";
    case IP_MINI_AMBIGUOUS: return "a read has several candidate writers";
    case IP_MINI_ANOMALIES: return "the trace has read-consistency anomalies";
    case IP_MINI_NO_READ: return "a transaction has no read";
    case IP_MINI_READS: return "a transaction has more than two reads";
    case IP_MINI_WRITES: return "a transaction has more than two writes";
    case IP_MINI_BLIND_WRITE:
        return "a transaction writes a key it has not read before";
    case IP_MINI_REREAD:
        return "a transaction reads a key twice from different writers";
    }
    return "unknown reason";
}

/* Is op i preceded in its transaction by a read of its key? */
static bool read_before(const ip_trace *t, uint32_t first, uint32_t i)
{
    for (uint32_t j = first; j < i; j++)
        if (t->ops[j].kind == IP_READ && t->ops[j].key == t->ops[i].key)
            return true;
    return false;
}

/* The ops of one transaction against Def. 8. */
static ip_mini_kind shape_of(const ip_trace *t, const ip_txn *x)
{
    uint32_t reads = 0, writes = 0, end = x->op_first + x->op_count;
    for (uint32_t i = x->op_first; i < end; i++) {
        if (t->ops[i].kind == IP_READ) {
            reads++;
        } else {
            writes++;
            if (!read_before(t, x->op_first, i))
                return IP_MINI_BLIND_WRITE;
        }
        if (reads > 2)
            return IP_MINI_READS;
        if (writes > 2)
            return IP_MINI_WRITES;
    }
    return reads ? IP_MINI_YES : IP_MINI_NO_READ;
}

/* Two read events of one key (at most two reads: at most one pair) must
 * name one writer. */
static bool reads_agree(const ip_trace *t, const ip_txn *x)
{
    const ip_event *ev = t->events + x->ev_first;
    for (uint32_t i = 0; i < x->ev_count; i++)
        for (uint32_t j = i + 1; j < x->ev_count; j++)
            if (ev[i].kind == IP_READ && ev[j].kind == IP_READ &&
                ev[i].key == ev[j].key && ev[i].writer != ev[j].writer)
                return false;
    return true;
}

bool ip_trace_mini(const ip_trace *t, ip_mini_why *why)
{
    ip_mini_why w = { IP_MINI_YES, IP_NONE };
    if (t->n_ambiguous)
        w.kind = IP_MINI_AMBIGUOUS;
    else if (t->n_anomalies)
        w.kind = IP_MINI_ANOMALIES;
    for (uint32_t x = 1; w.kind == IP_MINI_YES && x < t->n_txns; x++) {
        const ip_txn *tx = &t->txns[x];
        if (tx->status != IP_COMMITTED)
            continue;
        w.kind = shape_of(t, tx);
        if (w.kind == IP_MINI_YES && !reads_agree(t, tx))
            w.kind = IP_MINI_REREAD;
        if (w.kind != IP_MINI_YES)
            w.txn = x;
    }
    if (why)
        *why = w;
    return w.kind == IP_MINI_YES;
}
