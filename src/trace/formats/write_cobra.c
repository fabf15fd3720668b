/*
 * write_cobra.c - a trace as Cobra client logs (read_cobra.c,
 * ../shared/DBCOP_COBRA_FORMATS.md): a directory of *.log files, one a
 * session, each a sequence of records of an opcode byte and big-endian
 * int64 fields: S txn | W write_id key value | R writer_txn writer_write
 * key value | C txn.  The caller makes the directory and a file per
 * session (ip_cobra_log_name, ip_write_cobra_log); the logs are named
 * s0.log, s1.log, ... zero-padded to one width, so that the reader, which
 * sorts the names, finds the sessions in order (and names them s0, ...).
 *
 * What it holds: committed transactions in sessions, also empty ones,
 * session order, program order, and each read's writer by name: the
 * writer's transaction id (its number across the trace, from 1) and its
 * last write of the key (write ids are op numbers, from 1), INIT for the
 * initial value; an ambiguous read names no writer (UNIVERSAL) and is
 * resolved by value among its candidates, as in Cobra's own logs of that
 * kind.  Read back, transaction N is named "tN" in hex.
 *
 * What it cannot hold (ip_layout_make notes it): aborted transactions
 * (Cobra logs only committed ones), sessions without transactions, tool
 * fields, the trace's names; keys and values that are not signed 64-bit
 * integers (renumbered).  It refuses ambiguous reads whose values would
 * not keep their candidates.  Transaction and write ids stay below 2^32,
 * under Cobra's reserved ids as long as a trace has fewer than 2.8e9 ops.
 */
#include "formats.h"

#include <stdio.h>

/* Cobra's reserved writer ids. */
static const uint64_t ID_INIT = UINT64_C(0xbebeebee);
static const uint64_t ID_UNIVERSAL = UINT64_C(0xabddefee);

static bool put_record(char op, const uint64_t *f, int n, FILE *out)
{
    unsigned char b[1 + 4 * 8];
    b[0] = (unsigned char)op;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            b[1 + 8 * i + k] = (unsigned char)(f[i] >> (56 - 8 * k));
    size_t len = 1 + 8 * (size_t)n;
    return fwrite(b, 1, len, out) == len;
}

/* The op number (write id) of txn w's latest write of key before op
 * `before` (its last one: the end of w's ops). */
static uint64_t write_id(const ip_trace *t, uint32_t w, uint32_t key,
                         uint32_t before)
{
    const ip_txn *x = &t->txns[w];
    for (uint32_t j = before; j-- > x->op_first;)
        if (t->ops[j].kind == IP_WRITE && t->ops[j].key == key)
            return j + 1;
    return ID_UNIVERSAL;          /* none (lenient): say nothing */
}

static bool put_read(const ip_layout *l, uint32_t i, FILE *out)
{
    const ip_trace *t = l->t;
    const ip_op *op = &t->ops[i];
    uint32_t w = op->local ? op->txn : op->from;
    uint64_t f[4] = {ID_UNIVERSAL, ID_UNIVERSAL, l->key_num[op->key],
                     l->op_value[i]};
    if (w == IP_INIT_TXN) {
        f[0] = f[1] = ID_INIT;
    } else if (w != IP_NONE && l->txn_gno[w]) {
        /* (a writer not written, aborted, --lenient: UNIVERSAL) */
        const ip_txn *x = &t->txns[w];
        f[0] = l->txn_gno[w];
        f[1] = write_id(t, w, op->key,
                        w == op->txn ? i : x->op_first + x->op_count);
    }
    return put_record('R', f, 4, out);
}

static bool put_txn(const ip_layout *l, uint32_t x, FILE *out)
{
    const ip_trace *t = l->t;
    const ip_txn *tx = &t->txns[x];
    uint64_t id = l->txn_gno[x];
    bool ok = put_record('S', &id, 1, out);
    for (uint32_t i = tx->op_first; ok && i < tx->op_first + tx->op_count;
         i++) {
        const ip_op *op = &t->ops[i];
        uint64_t f[3] = {(uint64_t)i + 1, l->key_num[op->key],
                         l->op_value[i]};
        ok = op->kind == IP_READ ? put_read(l, i, out)
                                 : put_record('W', f, 3, out);
    }
    return ok && put_record('C', &id, 1, out);
}

void ip_cobra_log_name(const ip_layout *l, uint32_t n, char buf[32])
{
    int width = 1;
    for (uint32_t m = l->n_written_sessions; m >= 10; m /= 10)
        width++;
    snprintf(buf, 32, "s%0*u.log", width, n);
}

bool ip_write_cobra_log(const ip_layout *l, uint32_t s, FILE *out)
{
    const ip_session *ss = &l->t->sessions[s];
    bool ok = true;
    for (uint32_t x = ss->txn_first;
         ok && x < ss->txn_first + ss->txn_count; x++)
        ok = !l->txn_no[x] || put_txn(l, x, out);
    return ok;
}
