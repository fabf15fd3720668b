/*
 * write_dbcop.c - a trace as dbcop's history.bincode (read_dbcop.c,
 * ../shared/DBCOP_COBRA_FORMATS.md): Rust bincode 1.x of dbcop's History,
 * little-endian u64 integers and lengths, u8 flags.  The header's five
 * numbers, informational for readers, are written as 0 (id), the
 * sessions, the keys, the transactions and the ops written; its strings
 * as "isopredict", "" and "" (no start and end times).
 *
 * What it holds: sessions (read back as "sS"), also empty ones, their
 * transactions in session order (read back as "sS.T"), also empty ones,
 * ops in program order, and each read's writer through its value (reads
 * are resolved by (key, value), 0 being every key's initial value).
 * Aborted transactions are written with their success flag 0, as dbcop
 * records them; readers, ours and dbcop's, drop them (noted).
 *
 * What it cannot hold (ip_layout_make notes it): tool fields, the trace's
 * names; keys and values that are not unsigned 64-bit integers, or values
 * that do not name each read's writer alone (both renumbered).  It
 * refuses ambiguous reads whose values would not keep their candidates.
 *
 * The file is binary: written to a file named *.bincode (or
 * DIR/history.bincode) it is recognised when read; on standard output it
 * needs --format dbcop.
 */
#include "formats.h"

#include <string.h>

static bool put_u64(uint64_t v, FILE *out)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fwrite(b, 1, 8, out) == 8;
}

static bool put_u8(unsigned v, FILE *out)
{
    return fputc((int)v, out) != EOF;
}

static bool put_string(const char *s, FILE *out)
{
    size_t n = strlen(s);
    return put_u64(n, out) && fwrite(s, 1, n, out) == n;
}

static bool put_txn(const ip_layout *l, uint32_t x, FILE *out)
{
    const ip_trace *t = l->t;
    const ip_txn *tx = &t->txns[x];
    bool ok = put_u64(tx->op_count, out);
    for (uint32_t i = tx->op_first; ok && i < tx->op_first + tx->op_count;
         i++)
        ok = put_u8(t->ops[i].kind == IP_WRITE, out) &&
             put_u64(l->key_num[t->ops[i].key], out) &&
             put_u64(l->op_value[i], out) && put_u8(1, out);
    return ok && put_u8(tx->status == IP_COMMITTED, out);
}

static bool put_session(const ip_layout *l, uint32_t s, FILE *out)
{
    const ip_session *ss = &l->t->sessions[s];
    uint32_t n = 0;
    for (uint32_t x = ss->txn_first; x < ss->txn_first + ss->txn_count; x++)
        n += l->txn_no[x] != 0;
    bool ok = put_u64(n, out);
    for (uint32_t x = ss->txn_first;
         ok && x < ss->txn_first + ss->txn_count; x++)
        ok = !l->txn_no[x] || put_txn(l, x, out);
    return ok;
}

bool ip_write_dbcop(const ip_layout *l, FILE *out)
{
    const ip_trace *t = l->t;
    uint64_t n_txns = 0, n_ops = 0;
    for (uint32_t x = 1; x < t->n_txns; x++)
        if (l->txn_no[x])
            n_txns++, n_ops += t->txns[x].op_count;
    bool ok = put_u64(0, out) && put_u64(l->n_written_sessions, out) &&
              put_u64(t->n_keys, out) && put_u64(n_txns, out) &&
              put_u64(n_ops, out) && put_string("isopredict", out) &&
              put_string("", out) && put_string("", out) &&
              put_u64(l->n_written_sessions, out);
    for (uint32_t s = 0; ok && s < t->n_sessions; s++)
        ok = l->sess_no[s] == IP_NONE || put_session(l, s, out);
    return ok;
}
