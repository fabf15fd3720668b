/*
 * write_awdit.c - a trace in AWDIT's test format (read_awdit.c): `r K V`
 * and `w K V` lines, a line of '-' after each transaction, a line of '='
 * after each session.
 *
 * What it holds: committed transactions in sessions, session order,
 * program order, and each read's writer through its value (reads are
 * resolved by (key, value)).  The format has no initial state: as AWDIT's
 * own files do, the initial values read (0) are written by a transaction
 * of their own, first in the file, in a session of its own; the reader
 * takes it for an ordinary transaction ("t0.0"), which the layout notes.
 * Sessions are read back as "sS", transactions as "tS.I".
 *
 * What it cannot hold (ip_layout_make notes it): aborted transactions,
 * transactions without ops, sessions without transactions, tool fields,
 * the trace's names; keys and values that are not unsigned 64-bit
 * integers, or values that do not name each read's writer alone (both
 * renumbered).  It refuses ambiguous reads whose values would not keep
 * their candidates.
 */
#include "formats.h"

#include <inttypes.h>

static bool put_initial(const ip_layout *l, FILE *out)
{
    bool ok = true;
    for (uint32_t k = 0; ok && k < l->t->n_keys; k++)
        if (l->init_key[k])
            ok = fprintf(out, "w %" PRIu64 " 0\n", l->key_num[k]) >= 0;
    return ok && fputs("-----\n=====\n", out) >= 0;
}

static bool put_txn(const ip_layout *l, uint32_t x, FILE *out)
{
    const ip_trace *t = l->t;
    const ip_txn *tx = &t->txns[x];
    bool ok = true;
    for (uint32_t i = tx->op_first; ok && i < tx->op_first + tx->op_count;
         i++)
        ok = fprintf(out, "%c %" PRIu64 " %" PRIu64 "\n",
                     t->ops[i].kind == IP_READ ? 'r' : 'w',
                     l->key_num[t->ops[i].key], l->op_value[i]) >= 0;
    return ok && fputs("-----\n", out) >= 0;
}

bool ip_write_awdit(const ip_layout *l, FILE *out)
{
    const ip_trace *t = l->t;
    bool ok = l->n_init_keys == 0 || put_initial(l, out);
    for (uint32_t s = 0; ok && s < t->n_sessions; s++) {
        const ip_session *ss = &t->sessions[s];
        if (l->sess_no[s] == IP_NONE)
            continue;
        for (uint32_t x = ss->txn_first;
             ok && x < ss->txn_first + ss->txn_count; x++)
            ok = !l->txn_no[x] || put_txn(l, x, out);
        ok = ok && fputs("=====\n", out) >= 0;
    }
    return ok;
}
