/*
 * store_internal.h - the store's flat arrays, shared by its source files.
 *
 * Ids: keys are indices into the key arrays; transactions are indices into
 * txns in execution order (txn 0 is the initial state).  Because the store
 * runs one transaction at a time, execution order is the commit order, so a
 * transaction's id is its commit position and "u commits before t" is
 * simply u < t.
 */
#ifndef ISOPREDICT_KV_STORE_INTERNAL_H
#define ISOPREDICT_KV_STORE_INTERNAL_H

#include "kv.h"

enum { TXN_OPEN = 0, TXN_COMMITTED = 1, TXN_ABORTED = 2 };

typedef struct kv_op {
    uint32_t txn, key, from;   /* from: writer txn of a read */
    kv_value value;
    uint8_t kind;              /* IP_READ / IP_WRITE */
    uint8_t local;             /* read of the txn's own write */
} kv_op;

/* Committed writers of one key in commit order (txn 0 excluded). */
typedef struct kv_versions {
    uint32_t *txn;
    kv_value *value;
    uint32_t n, cap;
} kv_versions;

struct kv_txn {
    kv_store *st;
    uint32_t id, session, index;
    uint8_t status;
    uint8_t misaligned;        /* replay: a read differed from the plan */
    uint32_t op_first, op_count;
    uint32_t n_reads;          /* non-local reads so far */
    uint32_t *wkeys;           /* distinct written keys (at commit) */
    uint32_t n_wkeys;
    const char *procedure;     /* the application's name, NULL if none */
    /* si replay: the first write (op index in the txn, key) of a key that
     * a concurrent transaction (committed after every start point left)
     * wrote, and that writer; conflict_with IP_NONE if none.  Such a txn
     * aborts at commit (first committer wins), as on a real si store. */
    uint32_t conflict_op, conflict_key, conflict_with;
    /* --store postgres: the attempt this txn is (pg.h); st is NULL then
     * and every operation goes to pg_txn.c */
    struct kv_pg_txn *pg;
};

typedef enum {
    DIV_OP_MISMATCH,      /* the replay read another key than predicted */
    DIV_WRITER_MISSING,   /* predicted writer did not (yet) write the key */
    DIV_WRITER_INVALID,   /* reading it would violate the model */
    DIV_STATUS,           /* committed/aborted differs from the prediction */
    DIV_SHORT_TXN,        /* fewer reads than the prediction */
    DIV_WRITE_CONFLICT    /* predicted committed, aborted by the store:
                             si first committer wins (kv_txn.conflict_*) */
} kv_div_kind;

typedef struct kv_divergence {
    uint8_t kind;              /* kv_div_kind */
    uint32_t txn, op;          /* op index within the txn */
    uint32_t reads;            /* short txn: reads the replay issued */
    uint32_t key;              /* IP_NONE when not about a key */
    uint32_t chosen;           /* writer read instead, IP_NONE */
    char predicted[64];        /* predicted writer / op, "" if none */
} kv_divergence;

struct kv_store {
    uint32_t n_sessions, max_txns;

    /* keys: open-addressing table name -> key id, and per-key arrays */
    char **key_name;
    kv_value *key_initial;
    kv_versions *versions;
    uint32_t *wmax, *rmin, *bmax;   /* per-key scratch of the open txn */
    uint32_t snap_lo, snap_hi;      /* si: the open txn's start point */
    uint32_t n_keys, cap_keys;
    uint32_t *slots;                /* key ids, IP_NONE = empty */
    uint32_t n_slots;

    kv_txn *txns;                   /* max_txns + 1 entries */
    uint32_t n_txns;
    uint32_t *txn_of;               /* [session * max_txns + index] */
    uint32_t *last_committed;       /* per session, 0 = none */
    uint32_t *next_index;           /* per session */
    uint64_t *hb;                   /* row t: txns that happen before t */
    uint32_t hb_words;
    kv_txn *open;

    kv_op *ops;
    uint32_t n_ops, cap_ops;

    kv_plan *plan;
    kv_model model;
    kv_divergence *divs;
    uint32_t n_divs, cap_divs;

    bool failed;
    kv_error err;
};

/* store.c */
uint32_t kv_key_id(kv_store *st, const char *key);    /* adds if new */
uint32_t kv_key_find(const kv_store *st, const char *key);
bool kv_store_fail(kv_store *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool kv_push_op(kv_store *st, const kv_op *op);
void kv_add_divergence(kv_store *st, const kv_divergence *d);
bool kv_grow(void **arr, uint32_t *cap, size_t elem, uint32_t need);

static inline uint64_t *kv_hb_row(const kv_store *st, uint32_t t)
{
    return st->hb + (size_t)t * st->hb_words;
}
static inline bool kv_bit(const uint64_t *row, uint32_t i)
{
    return row[i / 64] >> (i % 64) & 1u;
}
static inline void kv_set_bit(uint64_t *row, uint32_t i)
{
    row[i / 64] |= (uint64_t)1 << (i % 64);
}

/* record.c: the txn's {"procedure":NAME} tool field */
bool kv_record_procedure(ip_builder *b, uint32_t h, const char *name,
                         ip_error *err);

/* pg_txn.c: the operations of a txn on PostgreSQL (pg.h) */
struct kv_pg_txn;
kv_value kv_pg_get(struct kv_pg_txn *t, const char *key);
void kv_pg_put(struct kv_pg_txn *t, const char *key, kv_value v);
bool kv_pg_commit(struct kv_pg_txn *t);
void kv_pg_abort(struct kv_pg_txn *t);
void kv_pg_procedure(struct kv_pg_txn *t, const char *name);

/* consistency.c: the model bookkeeping of the open transaction */
void kv_cons_begin(kv_store *st, kv_txn *tx);
bool kv_cons_allows(const kv_store *st, const kv_txn *tx, uint32_t key,
                    uint32_t writer);
void kv_cons_read(kv_store *st, kv_txn *tx, uint32_t key, uint32_t writer);
/* The open txn writes key (si: its start follows the key's last commit,
 * or, when no start point is left for that, it conflicts: tx->conflict_*). */
void kv_cons_write(kv_store *st, kv_txn *tx, uint32_t key);
/* The latest committed writer of key the model allows (txn 0 at worst). */
uint32_t kv_cons_latest_allowed(const kv_store *st, const kv_txn *tx,
                                uint32_t key);
/* Last value txn wrote to key, or KV_ABSENT. */
kv_value kv_written_value(const kv_store *st, uint32_t txn, uint32_t key);
bool kv_txn_writes(const kv_store *st, uint32_t txn, uint32_t key);

/* plan.c: what the prediction says about the nth non-local read of txn
 * (s, i).  Reads are matched by their rank among the transaction's
 * non-local reads: a strict prediction truncates its boundary transaction
 * and drops some of its writes, but keeps every read before the boundary. */
typedef struct kv_plan_read {
    bool txn_known;       /* the prediction includes the txn */
    bool beyond;          /* past the predicted reads of the txn */
    const char *key;
    const char *from;     /* predicted writer name, NULL if none */
    bool from_initial;
} kv_plan_read;
void kv_plan_read_at(const kv_plan *p, uint32_t session, uint32_t index,
                     uint32_t nth, kv_plan_read *out);
/* Predicted status and number of non-local reads of txn (s, i); false if
 * the prediction does not include it. */
bool kv_plan_txn(const kv_plan *p, uint32_t session, uint32_t index,
                 bool *committed, uint32_t *reads);

#endif
