/*
 * gen_mt.c - seeded generator of mini-transaction histories (the MTC
 * paper's workload shapes) in the JSON trace format, for benchmarking
 * `isopredict check --level ser|si` on its mini-transaction path.
 *
 * Every transaction is a mini-transaction: one or two reads, at most two
 * writes, each write after a read of its key.  The mix: read-modify-write
 * of two keys (40%), of one key (30%), read two keys and write one of them
 * (20%), read one or two keys only (10%).  Keys are drawn with a skew (a
 * quarter of the draws from every key, the rest from a hot sixteenth);
 * values are unique per key (a counter), and every read names its writer.
 *
 * The store, by MODEL:
 *   ser   transactions run one after the other: serializable (and si).
 *   si    snapshot isolation: each transaction reads the state as of a
 *         random number (up to LAG) of transactions ago and commits unless
 *         a transaction committed since its snapshot wrote a key it writes
 *         (first committer wins; the loser is left out).  Satisfies si;
 *         write skews make it violate ser.
 *   lost  the same snapshots without the write check: every transaction
 *         commits, so concurrent read-modify-writes lose updates; violates
 *         si and ser.
 * Transactions go to sessions at random; a session's transactions are
 * listed in the order they ran, and each one's snapshot includes the
 * session's earlier transactions.
 *
 * KEYS (default OPS/10) keys; fewer make more conflicts.
 *
 * usage: gen_mt OPS SESSIONS SEED [ser|si|lost [KEYS]] > history.json
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define LAG 8                  /* the oldest snapshot, in transactions */

/* One op: a read names its writer (txn id + 1; 0 is the initial txn) and
 * the value it saw; a write its value. */
typedef struct op { uint8_t write; uint32_t key, txn, value; } op;

typedef struct txn {
    op ops[4];
    uint8_t n_ops;
    uint32_t session;
} txn;

/* A key's versions, newest last: the writer (txn id + 1, 0 for the initial
 * one), its value, and when it committed (in commits so far). */
typedef struct version { uint32_t txn, value, at; } version;

typedef struct key_state {
    version *v;
    uint32_t n, cap;
} key_state;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("gen_mt: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static void push_version(key_state *k, version v)
{
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 4;
        k->v = realloc(k->v, k->cap * sizeof *k->v);
        if (!k->v) {
            fputs("gen_mt: out of memory\n", stderr);
            exit(2);
        }
    }
    k->v[k->n++] = v;
}

/* The version of a key visible to a snapshot taken after `at` commits. */
static version visible(const key_state *k, uint32_t at)
{
    for (uint32_t i = k->n; i-- > 0;)
        if (k->v[i].at <= at)
            return k->v[i];
    return (version){0, 0, 0};
}

static uint32_t pick_key(rng *r, uint32_t n_keys)
{
    return next(r, 4) ? next(r, n_keys / 16 + 1) : next(r, n_keys);
}

/* The shape: keys[0..n_read) are read, keys[0..n_write) then written. */
static void shape(rng *r, uint32_t n_keys, uint32_t *keys, uint32_t *n_read,
                  uint32_t *n_write)
{
    keys[0] = pick_key(r, n_keys);
    do
        keys[1] = pick_key(r, n_keys);
    while (keys[1] == keys[0]);
    uint32_t d = next(r, 10);
    if (d < 4) {               /* read-modify-write of two keys */
        *n_read = 2;
        *n_write = 2;
    } else if (d < 7) {        /* read-modify-write of one key */
        *n_read = 1;
        *n_write = 1;
    } else if (d < 9) {        /* read two, write one (write skew's shape) */
        *n_read = 2;
        *n_write = 1;
    } else {                   /* read only */
        *n_read = 1 + next(r, 2);
        *n_write = 0;
    }
}

typedef struct world {
    key_state *keys;
    uint32_t n_keys, commits;
    txn *txns;
    uint32_t n_txns;
} world;

/* Run one transaction on a snapshot taken after `snap` commits; false
 * when first-committer-wins aborts it. */
static bool run(world *w, rng *r, uint32_t snap, bool check_writes,
                uint32_t session)
{
    uint32_t keys[2], n_read, n_write;
    shape(r, w->n_keys, keys, &n_read, &n_write);
    if (check_writes)
        for (uint32_t i = 0; i < n_write; i++) {
            const key_state *k = &w->keys[keys[i]];
            if (k->n && k->v[k->n - 1].at > snap)
                return false;
        }
    txn *t = &w->txns[w->n_txns];
    uint32_t id = w->n_txns + 1;
    t->n_ops = 0;
    t->session = session;
    for (uint32_t i = 0; i < n_read; i++) {
        version v = visible(&w->keys[keys[i]], snap);
        t->ops[t->n_ops++] = (op){0, keys[i], v.txn, v.value};
    }
    w->commits++;
    for (uint32_t i = 0; i < n_write; i++) {
        key_state *k = &w->keys[keys[i]];
        uint32_t value = k->n ? k->v[k->n - 1].value + 1 : 1;
        t->ops[t->n_ops++] = (op){1, keys[i], id, value};
        push_version(k, (version){id, value, w->commits});
    }
    w->n_txns++;
    return true;
}

static void print_op(const op *o)
{
    if (o->write) {
        printf("   {\"op\":\"write\",\"key\":\"k%u\",\"value\":%u}", o->key,
               o->value);
    } else if (o->txn == 0) {
        printf("   {\"op\":\"read\",\"key\":\"k%u\",\"from\":\"init\"}",
               o->key);
    } else {
        printf("   {\"op\":\"read\",\"key\":\"k%u\",\"from\":\"t%u\","
               "\"value\":%u}", o->key, o->txn - 1, o->value);
    }
}

/* Session by session, each transaction in the order it ran. */
static void print_history(const world *w, uint32_t sessions)
{
    printf("{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":[");
    for (uint32_t s = 0; s < sessions; s++) {
        printf("%s\n {\"id\":\"s%u\",\"transactions\":[", s ? "," : "", s);
        bool first = true;
        for (uint32_t i = 0; i < w->n_txns; i++) {
            const txn *t = &w->txns[i];
            if (t->session != s)
                continue;
            printf("%s\n  {\"id\":\"t%u\",\"ops\":[", first ? "" : ",", i);
            first = false;
            for (uint32_t j = 0; j < t->n_ops; j++) {
                printf(j ? ",\n" : "\n");
                print_op(&t->ops[j]);
            }
            printf("]}");
        }
        printf("]}");
    }
    printf("]}\n");
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        fputs("usage: gen_mt OPS SESSIONS SEED [ser|si|lost [KEYS]]\n",
              stderr);
        return 2;
    }
    uint64_t ops = strtoull(argv[1], NULL, 10);
    uint32_t sessions = (uint32_t)strtoul(argv[2], NULL, 10);
    rng r = {strtoull(argv[3], NULL, 10) * 2654435761u + 1};
    const char *model = argc >= 5 ? argv[4] : "ser";
    uint64_t keys = argc == 6 ? strtoull(argv[5], NULL, 10) : ops / 10;
    bool concurrent = strcmp(model, "ser") != 0;
    bool check_writes = strcmp(model, "si") == 0;
    if (ops == 0 || sessions == 0 || keys > UINT32_MAX ||
        (concurrent && !check_writes && strcmp(model, "lost") != 0)) {
        fputs("usage: gen_mt OPS SESSIONS SEED [ser|si|lost [KEYS]]\n",
              stderr);
        return 2;
    }
    world w = {.n_keys = (uint32_t)(keys > 16 ? keys : 16)};
    w.keys = xcalloc(w.n_keys, sizeof *w.keys);
    /* a transaction has at most 4 ops and at least 1 */
    w.txns = xcalloc((size_t)ops, sizeof *w.txns);
    /* per session: commits when its last transaction committed, which
     * its next snapshot must include (a session sees its own writes) */
    uint32_t *seen = xcalloc(sessions, sizeof *seen);
    uint64_t done = 0;
    while (done < ops) {
        uint32_t s = next(&r, sessions);
        uint32_t lag = concurrent ? next(&r, LAG + 1) : 0;
        uint32_t snap = w.commits > lag ? w.commits - lag : 0;
        if (snap < seen[s])
            snap = seen[s];
        if (run(&w, &r, snap, check_writes, s)) {
            done += w.txns[w.n_txns - 1].n_ops;
            seen[s] = w.commits;
        }
    }
    free(seen);
    print_history(&w, sessions);
    for (uint32_t k = 0; k < w.n_keys; k++)
        free(w.keys[k].v);
    free(w.keys);
    free(w.txns);
    return fflush(stdout) == 0 ? 0 : 2;
}
