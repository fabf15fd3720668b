/*
 * write_plume.c - a trace in the plume format (read_plume.c): one
 * `OP(KEY,VALUE,SESSION,TXN)` line an op, transaction by transaction.
 *
 * What it holds: committed transactions in sessions (numbered from 0,
 * read back as "sN"), session order, program order, and each read's
 * writer through its value: every read is resolved by (key, value), 0
 * being every key's initial value.  Transactions are numbered from 1
 * across the trace (read back as "tN"); an aborted one's ops are written
 * with TXN -1.
 *
 * What it cannot hold (ip_layout_make notes it): several aborted
 * transactions of a session (the reader makes them one), transactions
 * without ops, sessions without transactions, tool fields, the trace's
 * names; keys and values that are not unsigned 64-bit integers, or values
 * that do not name each read's writer alone (both renumbered).  It refuses
 * ambiguous reads whose values would not keep their candidates.
 */
#include "formats.h"

#include <inttypes.h>

static bool put_op(const ip_layout *l, uint32_t i, FILE *out)
{
    const ip_trace *t = l->t;
    const ip_op *op = &t->ops[i];
    const ip_txn *x = &t->txns[op->txn];
    int r = fprintf(out, "%c(%" PRIu64 ",%" PRIu64 ",%u,",
                    op->kind == IP_READ ? 'r' : 'w', l->key_num[op->key],
                    l->op_value[i], l->sess_no[x->session]);
    if (r >= 0)
        r = x->status == IP_ABORTED
                ? fputs("-1)\n", out)
                : fprintf(out, "%u)\n", l->txn_gno[op->txn]);
    return r >= 0;
}

bool ip_write_plume(const ip_layout *l, FILE *out)
{
    return ip_layout_each_op(l, out, put_op);
}
