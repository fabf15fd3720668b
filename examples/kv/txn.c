/*
 * txn.c - begin, get, put, commit and abort; the choice of each read's
 * writer in observation and in replay; the procedure a transaction runs.
 */
#include "store_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Only a replay tracks happens-before (consistency.c): its matrix has a
 * bit per pair of transactions, which observation never needs. */
void kv_store_use_plan(kv_store *st, kv_plan *plan, kv_model model)
{
    st->plan = plan;
    st->model = model;
    if (plan && !st->hb &&
        !(st->hb = calloc((size_t)(st->max_txns + 1) * st->hb_words,
                          sizeof *st->hb)))
        kv_store_fail(st, "store: out of memory (the replay's "
                      "happens-before matrix)");
}

kv_txn *kv_begin(kv_store *st, uint32_t session)
{
    if (st->open || session >= st->n_sessions || st->n_txns > st->max_txns) {
        kv_store_fail(st, "store: cannot begin a transaction of session %u "
                      "(%s)", session + 1,
                      st->open ? "another is open" : "no room");
        return NULL;
    }
    kv_txn *tx = &st->txns[st->n_txns];
    *tx = (kv_txn){.st = st, .id = st->n_txns, .session = session,
                   .index = st->next_index[session], .status = TXN_OPEN,
                   .op_first = st->n_ops, .conflict_key = IP_NONE,
                   .conflict_with = IP_NONE};
    st->txn_of[(size_t)session * st->max_txns + tx->index] = tx->id;
    st->n_txns++;
    st->next_index[session]++;
    st->open = tx;
    if (st->plan)
        kv_cons_begin(st, tx);
    return tx;
}

static bool usable(kv_txn *tx)
{
    return tx && tx->st->open == tx && !tx->st->failed;
}

/* A divergence at op `op` of tx. */
static void diverge_at(kv_txn *tx, uint32_t op, kv_div_kind kind,
                       uint32_t key, uint32_t chosen, const char *predicted)
{
    kv_divergence d = {.kind = (uint8_t)kind, .txn = tx->id, .op = op,
                       .reads = tx->n_reads, .key = key, .chosen = chosen};
    snprintf(d.predicted, sizeof d.predicted, "%s", predicted ? predicted : "");
    kv_add_divergence(tx->st, &d);
}

/* A divergence at tx's next op. */
static void diverge(kv_txn *tx, kv_div_kind kind, uint32_t key,
                    uint32_t chosen, const char *predicted)
{
    diverge_at(tx, tx->op_count, kind, key, chosen, predicted);
}

/* The replay's read does not match the predicted one: report once per
 * txn, since every later read is then shifted against the prediction. */
static void misaligned(kv_txn *tx, const kv_plan_read *p, uint32_t key)
{
    if (tx->misaligned)
        return;
    tx->misaligned = 1;
    char what[64];
    snprintf(what, sizeof what, "a read of '%s'", p->key);
    diverge(tx, DIV_OP_MISMATCH, key, IP_NONE, what);
}

/* The store txn id of the predicted writer, IP_NONE if it has not run. */
static uint32_t replay_txn_of(const kv_store *st, const char *name)
{
    uint32_t s, i;
    if (!kv_parse_txn_name(name, &s, &i) || s >= st->n_sessions ||
        i >= st->max_txns)
        return IP_NONE;
    return st->txn_of[(size_t)s * st->max_txns + i];
}

static uint32_t predicted_writer(kv_txn *tx, uint32_t key, const char *kname)
{
    kv_store *st = tx->st;
    kv_plan_read p;
    kv_plan_read_at(st->plan, tx->session, tx->index, tx->n_reads, &p);
    if (!p.txn_known || p.beyond)
        return kv_cons_latest_allowed(st, tx, key);
    if (strcmp(p.key, kname) != 0) {
        misaligned(tx, &p, key);
        return kv_cons_latest_allowed(st, tx, key);
    }
    uint32_t w = p.from_initial ? 0 : p.from ? replay_txn_of(st, p.from)
                                             : IP_NONE;
    bool exists = w == 0 ||
                  (w != IP_NONE && w < st->n_txns &&
                   st->txns[w].status == TXN_COMMITTED &&
                   kv_txn_writes(st, w, key));
    if (exists && kv_cons_allows(st, tx, key, w))
        return w;
    uint32_t chosen = kv_cons_latest_allowed(st, tx, key);
    diverge(tx, exists ? DIV_WRITER_INVALID : DIV_WRITER_MISSING, key, chosen,
            p.from ? p.from : "(none)");
    return chosen;
}

static bool own_write(const kv_txn *tx, uint32_t key, kv_value *v)
{
    const kv_store *st = tx->st;
    for (uint32_t i = tx->op_count; i-- > 0;) {
        const kv_op *op = &st->ops[tx->op_first + i];
        if (op->kind == IP_WRITE && op->key == key) {
            *v = op->value;
            return true;
        }
    }
    return false;
}

kv_value kv_get(kv_txn *tx, const char *key)
{
    if (tx && tx->pg)
        return kv_pg_get(tx->pg, key);
    if (!usable(tx)) {
        if (tx)
            kv_store_fail(tx->st, "store: get outside a transaction");
        return KV_ABSENT;
    }
    kv_store *st = tx->st;
    uint32_t k = kv_key_id(st, key);
    if (k == IP_NONE) {
        kv_store_fail(st, "store: out of memory");
        return KV_ABSENT;
    }
    kv_op op = {.txn = tx->id, .key = k, .kind = IP_READ};
    if (own_write(tx, k, &op.value)) {
        op.local = 1;
        op.from = tx->id;
    } else {
        const kv_versions *v = &st->versions[k];
        op.from = st->plan ? predicted_writer(tx, k, key)
                           : v->n ? v->txn[v->n - 1] : 0;
        op.value = op.from == 0 ? st->key_initial[k]
                                : kv_written_value(st, op.from, k);
        if (st->plan)
            kv_cons_read(st, tx, k, op.from);
        tx->n_reads++;
    }
    if (kv_push_op(st, &op))
        tx->op_count++;
    return op.value;
}

void kv_put(kv_txn *tx, const char *key, kv_value v)
{
    if (tx && tx->pg) {
        kv_pg_put(tx->pg, key, v);
        return;
    }
    if (!usable(tx)) {
        if (tx)
            kv_store_fail(tx->st, "store: put outside a transaction");
        return;
    }
    kv_store *st = tx->st;
    uint32_t k = kv_key_id(st, key);
    if (k == IP_NONE) {
        kv_store_fail(st, "store: out of memory");
        return;
    }
    kv_op op = {.txn = tx->id, .key = k, .value = v, .kind = IP_WRITE,
                .from = IP_NONE};
    if (st->plan)
        kv_cons_write(st, tx, k);
    if (kv_push_op(st, &op))
        tx->op_count++;
}

kv_value kv_getf(kv_txn *tx, const char *fmt, ...)
{
    char key[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    return kv_get(tx, key);
}

void kv_putf(kv_txn *tx, kv_value v, const char *fmt, ...)
{
    char key[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    kv_put(tx, key, v);
}

/* Replay: does the outcome match the prediction?  A commit the store
 * refused (`refused`) is reported at the conflicting write (the writer
 * it lost to is in the txn); an abort the application chose is not,
 * even after a conflicting write. */
static void check_outcome(kv_txn *tx, bool refused)
{
    kv_store *st = tx->st;
    bool committed;
    uint32_t reads;
    if (!st->plan ||
        !kv_plan_txn(st->plan, tx->session, tx->index, &committed, &reads))
        return;
    if (committed && refused)
        diverge_at(tx, tx->conflict_op, DIV_WRITE_CONFLICT, tx->conflict_key,
                   IP_NONE, "committed");
    else if (committed != (tx->status == TXN_COMMITTED))
        diverge(tx, DIV_STATUS, IP_NONE, IP_NONE,
                committed ? "committed" : "aborted");
    else if (tx->n_reads < reads && !tx->misaligned) {
        char what[64];
        snprintf(what, sizeof what, "%u reads", reads);
        diverge(tx, DIV_SHORT_TXN, IP_NONE, IP_NONE, what);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Install the txn's last write of each key as the key's newest version. */
static bool install_writes(kv_txn *tx)
{
    kv_store *st = tx->st;
    uint32_t n = 0;
    for (uint32_t i = 0; i < tx->op_count; i++)
        n += st->ops[tx->op_first + i].kind == IP_WRITE;
    if (n == 0)
        return true;
    tx->wkeys = malloc(n * sizeof *tx->wkeys);
    if (!tx->wkeys)
        return kv_store_fail(st, "store: out of memory");
    for (uint32_t i = 0; i < tx->op_count; i++)
        if (st->ops[tx->op_first + i].kind == IP_WRITE)
            tx->wkeys[tx->n_wkeys++] = st->ops[tx->op_first + i].key;
    qsort(tx->wkeys, tx->n_wkeys, sizeof *tx->wkeys, cmp_u32);
    uint32_t d = 0;
    for (uint32_t i = 0; i < tx->n_wkeys; i++)
        if (d == 0 || tx->wkeys[d - 1] != tx->wkeys[i])
            tx->wkeys[d++] = tx->wkeys[i];
    tx->n_wkeys = d;
    for (uint32_t i = 0; i < d; i++) {
        kv_versions *v = &st->versions[tx->wkeys[i]];
        uint32_t cap = v->cap;
        if (!kv_grow((void **)&v->txn, &cap, sizeof *v->txn, v->n + 1) ||
            !kv_grow((void **)&v->value, &v->cap, sizeof *v->value, v->n + 1))
            return kv_store_fail(st, "store: out of memory");
        v->txn[v->n] = tx->id;
        v->value[v->n++] = kv_written_value(st, tx->id, tx->wkeys[i]);
    }
    return true;
}

/* End the open txn as aborted (by the store: `refused`): its writes are
 * never installed, and its session's next txn starts after the session's
 * last committed one. */
static void end_aborted(kv_txn *tx, bool refused)
{
    tx->status = TXN_ABORTED;
    tx->st->open = NULL;
    check_outcome(tx, refused);
}

bool kv_commit(kv_txn *tx)
{
    if (tx && tx->pg)
        return kv_pg_commit(tx->pg);
    if (!usable(tx)) {
        if (tx)
            kv_store_fail(tx->st, "store: commit outside a transaction");
        return false;
    }
    /* si replay, first committer wins: a concurrent writer of a key this
     * txn wrote committed first (kv_cons_write) */
    if (tx->conflict_with != IP_NONE) {
        end_aborted(tx, true);
        return false;
    }
    kv_store *st = tx->st;
    tx->status = TXN_COMMITTED;
    install_writes(tx);
    st->last_committed[tx->session] = tx->id;
    st->open = NULL;
    check_outcome(tx, false);
    return true;
}

void kv_abort(kv_txn *tx)
{
    if (tx && tx->pg) {
        kv_pg_abort(tx->pg);
        return;
    }
    if (!usable(tx)) {
        if (tx)
            kv_store_fail(tx->st, "store: abort outside a transaction");
        return;
    }
    end_aborted(tx, false);
}

void kv_txn_procedure(kv_txn *tx, const char *name)
{
    if (tx && tx->pg) {
        kv_pg_procedure(tx->pg, name);
        return;
    }
    if (!usable(tx)) {
        if (tx)
            kv_store_fail(tx->st, "store: procedure outside a transaction");
        return;
    }
    tx->procedure = name;
}
