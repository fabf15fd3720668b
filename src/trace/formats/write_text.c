/*
 * write_text.c - a trace in the isopredict-text format (read_text.c):
 *
 *   WRITE KEY[k] Txn(s, i)
 *   READ KEY[k] Txn(s, i) From(s', j)
 *
 * What it holds: committed transactions in sessions, session order,
 * program order, and the writer of every read (its own transaction for
 * a local read; Txn(0, 0), the initial transaction, for the initial
 * value).  Sessions are numbered from 1 and transactions from 1 within
 * their session; the reader names them "s" and "s, i".
 *
 * What it cannot hold (ip_layout_make notes them): values, aborted
 * transactions, transactions without ops and sessions without
 * transactions, reads without a writer (kept by --lenient), tool fields
 * and the trace's own names.  It refuses ambiguous reads (a read names
 * one writer) and key names holding ']' or a control byte (they cannot
 * be spelled between brackets).  Key names of sets ("Set(S:d)") are
 * written as plain keys, which read back as the same keys.
 */
#include "formats.h"

/* "Txn(s, i)" / "From(s, i)" of transaction x. */
static bool put_ref(const ip_layout *l, const char *what, uint32_t x,
                    FILE *out)
{
    if (x == IP_INIT_TXN)
        return fprintf(out, " %s(0, 0)", what) >= 0;
    uint32_t s = l->sess_no[l->t->txns[x].session];
    return fprintf(out, " %s(%u, %u)", what, s + 1, l->txn_no[x]) >= 0;
}

static bool put_op(const ip_layout *l, uint32_t i, FILE *out)
{
    const ip_trace *t = l->t;
    const ip_op *op = &t->ops[i];
    uint32_t from = op->local ? op->txn : op->from;
    if (op->kind == IP_READ &&
        (from == IP_NONE || (from != IP_INIT_TXN && !l->txn_no[from])))
        return true;              /* no writer written: noted by the layout */
    return fprintf(out, "%s KEY[%s]", op->kind == IP_READ ? "READ" : "WRITE",
                   ip_key_name(t, op->key)) >= 0 &&
           put_ref(l, "Txn", op->txn, out) &&
           (op->kind != IP_READ || put_ref(l, "From", from, out)) &&
           fputc('\n', out) != EOF;
}

bool ip_write_text(const ip_layout *l, FILE *out)
{
    return ip_layout_each_op(l, out, put_op);
}
