/*
 * trace.h - the history model of isopredict: the trace, the builder that
 * makes one, and what is asked of a finished one (queries, the so u wr
 * order, sub-traces, whether it is a mini-transaction history,
 * statistics).  Reading and writing files is the
 * formats' room above (formats/formats.h), which feeds this builder; this
 * room never includes it.
 *
 * A trace is what a data store application did: sessions, each a sequence
 * of transactions, each a sequence of read and write operations on keys,
 * every read resolved to the transaction it read from.  Everything is kept
 * in flat arrays indexed by small integer ids:
 *
 *   - txn 0 is the initial transaction (IP_INIT_TXN).  It belongs to no
 *     session, precedes every transaction in session order and writes every
 *     key of the trace (one write event per key).
 *   - ops are the operations as the input listed them, grouped by
 *     transaction (ops of txn t are ops[txns[t].op_first .. + op_count]).
 *   - events are the operations the analysis sees (paper section 2.1):
 *     a read of a key the transaction wrote earlier is local and is no
 *     event; of several writes of a transaction to one key only the last is
 *     an event, placed where that last write is.  Events of txn t are
 *     events[txns[t].ev_first .. + ev_count], in program order; each carries
 *     its position in its session (SEMANTICS.md: positions numbered per
 *     session, in session order, program order inside a transaction).
 *     Aborted transactions keep their ops but have no events.
 *   - for every key, the committed transactions that write it (writer
 *     lists), and for every transaction its written keys, sorted, so that
 *     "does t write k" is a binary search and never a hash lookup.
 *
 * Names (session ids, transaction ids, keys) and values are interned
 * strings: an id indexes trace->strings.  A value is the JSON text of a
 * scalar ("50", "\"abc\"", "null") or IP_NONE when the input gave none.
 * Tool fields (TRACE_FORMAT.md: "workload", "schedule", "procedure",
 * "args", "meta", ...) are kept, never interpreted: the `extra` of the
 * trace, a session, a transaction or an op is the compact JSON text of an
 * object holding them in input order (as cJSON's unformatted print has
 * it: the JSON writer copies it as it is), or IP_NONE.
 *
 * Ownership: a trace owns all its memory; ip_trace_free releases it.  The
 * builder owns a trace under construction; ip_builder_finish hands it over.
 * Nothing here keeps global state; every function is re-entrant.
 *
 * Errors: the builder never aborts the process.  It returns NULL (or
 * false, IP_NONE) and fills an ip_error with a message naming the file, the
 * line or the JSON path the reader gave, and what is wrong.
 */
#ifndef ISOPREDICT_TRACE_H
#define ISOPREDICT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

#include "mem.h"

#define IP_NONE UINT32_MAX   /* absent id, value, writer, session */
#define IP_INIT_TXN 0u        /* the initial transaction's id */

/* ---- errors -------------------------------------------------------------- */

typedef struct ip_error {
    char msg[512];            /* "file:12: what is wrong" or "file: path: ..." */
    bool oom;                 /* the failure was an allocation failing */
} ip_error;

/* printf into err->msg; returns false so callers can `return ip_fail(...)`.
 * ip_oom is the same for an allocation that failed: it marks the error as
 * one (err->oom), which the command line answers with exit status 3,
 * never as an input error.  The kind is the function's, not the text's. */
bool ip_fail(ip_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool ip_oom(ip_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- model ---------------------------------------------------------------- */

typedef enum { IP_READ = 0, IP_WRITE = 1 } ip_op_kind;
typedef enum { IP_COMMITTED = 0, IP_ABORTED = 1 } ip_status;

typedef struct ip_op {
    uint8_t kind;             /* ip_op_kind */
    uint8_t local;            /* read: reads its own transaction's write */
    uint8_t last;             /* write: the txn's last write to this key */
    uint32_t key;             /* string id of the key */
    uint32_t value;           /* string id of the value text, or IP_NONE */
    uint32_t from;            /* read: writer txn (itself if local), or
                                 IP_NONE when unresolved (lenient mode) or
                                 ambiguous (see ip_trace.amb_*) */
    uint32_t txn;             /* owning transaction */
} ip_op;                      /* its line and tool fields: ip_op_line,
                                 ip_op_extra (rare, so kept aside) */

typedef struct ip_event {
    uint8_t kind;             /* ip_op_kind */
    uint32_t key;             /* string id of the key */
    uint32_t txn;             /* owning transaction */
    uint32_t writer;          /* read: writer txn (never the owner), or
                                 IP_NONE for an ambiguous read;
                                 write: IP_NONE */
    uint32_t op;              /* index into ops; IP_NONE for initial writes */
    uint32_t pos;             /* position in the session; 0 for txn 0 */
} ip_event;

typedef struct ip_txn {
    uint32_t name;            /* string id of the transaction id */
    uint32_t session;         /* session index, IP_NONE for txn 0 */
    uint32_t index;           /* index within its session */
    uint8_t status;           /* ip_status */
    uint32_t op_first, op_count;
    uint32_t ev_first, ev_count;
    uint32_t wkey_first, wkey_count; /* into wkeys/wkey_event: sorted keys */
    uint32_t extra;           /* tool fields (string id) or IP_NONE */
} ip_txn;

typedef struct ip_session {
    uint32_t name;            /* string id of the session id */
    uint32_t txn_first;       /* txns of a session are contiguous ids */
    uint32_t txn_count;
    uint32_t ev_count;        /* events (positions 0..ev_count-1) */
    uint32_t extra;           /* tool fields (string id) or IP_NONE */
} ip_session;

typedef struct ip_trace {
    /* interned strings; strings[i] is NUL-terminated.  They live in a
     * store (internal) that the traces derived from this one share
     * (ip_trace_derive): the last of them freed frees it. */
    char **strings;
    uint32_t n_strings;

    uint32_t initial_name;    /* string id of the initial txn's name */
    uint32_t extra;           /* top-level tool fields or IP_NONE */

    ip_session *sessions;  uint32_t n_sessions;
    ip_txn *txns;          uint32_t n_txns;     /* includes txn 0 */
    ip_op *ops;            uint32_t n_ops;
    ip_event *events;      uint32_t n_events;
    /* per op, parallel to ops: its source line (NULL when the input has
     * none: JSON, dbcop, Cobra) and its tool fields, a string id or
     * IP_NONE (NULL when no op has any); read them with ip_op_line and
     * ip_op_extra */
    uint32_t *op_line, *op_extra;

    /* keys: key_ids[k] is the string id of key k, k in [0, n_keys).  Key
     * indices, not string ids, are what ip_event.key and ip_op.key hold. */
    uint32_t *key_ids;     uint32_t n_keys;

    /* writers of key k (committed, including txn 0), ascending txn id:
     * key_writer[key_writer_first[k] .. key_writer_first[k+1]) */
    uint32_t *key_writer_first;   /* n_keys + 1 entries */
    uint32_t *key_writer;
    uint32_t *key_writer_event;   /* parallel: the write event index */

    /* Known version orders (optional: NULL unless the input gave one, as
     * Elle's list-append reads do; ip_builder_version_order).  For key k,
     * key_order[key_order_first[k] .. key_order_first[k+1]) are committed
     * writers of k other than txn 0, each once, in version order: the
     * versions right after txn 0's initial write, as far as the input
     * showed them.  The writers of k not listed come after the listed ones
     * in an unknown order (a list read shows every append installed
     * before it).  key_order_pos, parallel to key_writer, is each writer's
     * index in its key's order, IP_NONE when it is not listed (txn 0
     * included).  Read them with ip_version_cmp. */
    uint32_t *key_order_first;    /* n_keys + 1 entries, or NULL */
    uint32_t *key_order;
    uint32_t *key_order_pos;

    /* per txn sorted written keys and their write event indices */
    uint32_t *wkeys;
    uint32_t *wkey_event;
    uint32_t n_wkeys;

    /* Ambiguous reads: committed reads whose writer is one of several
     * transactions (their value matched the last writes of several, or the
     * input listed candidates).  The i-th, in op order, is op amb_op[i] and
     * event amb_event[i] (its writer IP_NONE); its candidates are
     * amb_writer[amb_first[i] .. amb_first[i+1]), ascending txn ids, each a
     * committed transaction other than the reader (txn 0 included) whose
     * last write of the key fits.  Only ip_check at ser and si decides
     * such traces; see ip_trace_unique. */
    uint32_t n_ambiguous;
    uint32_t *amb_op, *amb_event, *amb_first, *amb_writer;

    /* lenient mode only: read-consistency anomalies found while resolving
     * reads (see ip_anomaly); empty in strict mode, where they are errors */
    struct ip_anomaly *anomalies;
    uint32_t n_anomalies;

    struct ip_string_store *store; /* holds strings (intern.h) */
} ip_trace;

/* Op i's source line (0: none) and tool fields (string id or IP_NONE). */
static inline uint32_t ip_op_line(const ip_trace *t, uint32_t i)
{
    return t->op_line ? t->op_line[i] : 0;
}

static inline uint32_t ip_op_extra(const ip_trace *t, uint32_t i)
{
    return t->op_extra ? t->op_extra[i] : IP_NONE;
}

/* Read-consistency anomalies (AWDIT's axioms), recorded in lenient mode. */
typedef enum {
    IP_AN_THIN_AIR,        /* value matches no write / writer never wrote key */
    IP_AN_ABORTED_READ,    /* reads a write of an aborted transaction */
    IP_AN_FUTURE_READ,     /* reads its own transaction's later write */
    IP_AN_NOT_OWN_WRITE,   /* wrote the key earlier, read another's write */
    IP_AN_NOT_LATEST_WRITE, /* reads a write that is not the writer's last
                              (or, own txn, not its latest) to the key */
    IP_AN_INCOMPATIBLE_ORDER /* two reads of a key saw versions in orders
                                that no one version order extends (Elle's
                                list-append lists; ip_builder_incompatible_
                                order): a violation of every level */
} ip_anomaly_kind;

typedef struct ip_anomaly {
    uint8_t kind;          /* ip_anomaly_kind */
    uint32_t op;           /* the offending read */
    uint32_t writer;       /* txn it read from, IP_NONE if none matched */
    uint32_t other;        /* IP_AN_INCOMPATIBLE_ORDER only: the read whose
                              order op's contradicts (an op index) */
} ip_anomaly;

const char *ip_anomaly_name(ip_anomaly_kind kind);

/* ---- queries (all O(1) or O(log n), no allocation) ------------------------ */

static inline const char *ip_str(const ip_trace *t, uint32_t id)
{
    return id == IP_NONE ? NULL : t->strings[id];
}
static inline const char *ip_key_name(const ip_trace *t, uint32_t key)
{
    return t->strings[t->key_ids[key]];
}
static inline const char *ip_txn_name(const ip_trace *t, uint32_t txn)
{
    return t->strings[t->txns[txn].name];
}
static inline const char *ip_session_name(const ip_trace *t, uint32_t s)
{
    return t->strings[t->sessions[s].name];
}
static inline bool ip_committed(const ip_trace *t, uint32_t txn)
{
    return t->txns[txn].status == IP_COMMITTED;
}

/* The first index i in [lo, hi) with a[i] >= x (hi when none): a binary
 * search over a sorted range of ids. */
uint32_t ip_lower_bound(const uint32_t *a, uint32_t lo, uint32_t hi,
                        uint32_t x);

/* Sort n ids ascending in place. */
void ip_sort_ids(uint32_t *a, uint32_t n);

/* Write event of txn on key, or IP_NONE if txn does not write key. */
uint32_t ip_write_event(const ip_trace *t, uint32_t txn, uint32_t key);

/* The committed transaction before x in x's session, or IP_NONE. */
uint32_t ip_prev_committed(const ip_trace *t, uint32_t x);

/* so(a, b): a precedes b in session order (txn 0 precedes everything). */
bool ip_so(const ip_trace *t, uint32_t a, uint32_t b);

/* Does txn x have a read event (a read no write of its own answers)?
 * What a relaxed boundary transaction needs. */
bool ip_txn_has_read(const ip_trace *t, uint32_t x);

/* A topological order of session order and the observed write-read edges
 * over the committed transactions other than txn 0, into order (room for
 * n_txns entries); *n is its length, less than ip_committed_count when so
 * u wr has a cycle (the transactions on or after it are left out).  False
 * when out of memory.  Linear in transactions and events. */
bool ip_so_wr_order(const ip_trace *t, uint32_t *order, uint32_t *n);
/* The same with a writer for ambiguous reads: chosen[i] (or IP_NONE:
 * none yet) for the i-th (trace amb_* order); NULL as ip_so_wr_order. */
bool ip_so_wr_order_chosen(const ip_trace *t, const uint32_t *chosen,
                           uint32_t *order, uint32_t *n);

/* Monotonic seconds: the one clock of the project (durations, deadlines). */
double ip_now(void);

/* True when every read names one writer (no ambiguous reads).  Code that
 * follows event writers (the weak checkers, prediction, slicing) needs
 * this; callers refuse other traces with a message such as
 * ip_ambiguous_message's. */
static inline bool ip_trace_unique(const ip_trace *t)
{
    return t->n_ambiguous == 0;
}

/* The ambiguous read of op `op` (its index into amb_*), or IP_NONE. */
uint32_t ip_ambiguous_of_op(const ip_trace *t, uint32_t op);

/* Does read event e read from `writer`: its writer, or for an ambiguous
 * read one of its candidates? */
bool ip_read_may_see(const ip_trace *t, uint32_t e, uint32_t writer);

/* "N reads have several candidate writers (the first: ...)", naming the
 * first ambiguous read's transaction, key and candidates, into buf. */
void ip_ambiguous_message(const ip_trace *t, char *buf, size_t n);

/* Does the trace carry known version orders (key_order_*)? */
static inline bool ip_trace_has_versions(const ip_trace *t)
{
    return t->key_order_first != NULL;
}

/* Is a before b in key's known version order: 1 when it is, -1 when b is
 * before a, 0 when nothing is known (no order, a == b, or neither is a
 * listed writer nor txn 0).  Both should write key.  O(log writers). */
int ip_version_cmp(const ip_trace *t, uint32_t key, uint32_t a, uint32_t b);

/* Does an order of the committed transactions (pos[x]: x's place, every
 * committed writer placed) put each key's writers as its known version
 * order says?  True when the trace has none. */
bool ip_versions_respected(const ip_trace *t, const uint32_t *pos);

/* Number of committed transactions other than txn 0. */
uint32_t ip_committed_count(const ip_trace *t);

void ip_trace_free(ip_trace *t);

/* ---- builder -------------------------------------------------------------- */

/*
 * Readers feed a builder; ip_builder_finish interns, groups ops by
 * transaction (a counting sort: linear), resolves reads, checks the input
 * and derives events and key sets.  Sessions and transactions get ids in
 * the order they are first declared; ops keep the order they are added in
 * within their transaction.
 *
 * Locations: an op added with line > 0 is reported as "file:line"; with
 * line 0 as a JSON path built from the declaration order:
 * "sessions[S].transactions[T].ops[O]" (S, T, O counting as declared), so
 * JSON readers must declare in file order.
 */
typedef struct ip_builder ip_builder;

typedef enum {
    IP_STRICT = 0,   /* every read-consistency anomaly is an input error */
    IP_LENIENT = 1   /* anomalies are recorded in trace->anomalies */
} ip_mode;

ip_builder *ip_builder_new(const char *file, const char *initial_name,
                           ip_mode mode);
void ip_builder_free(ip_builder *b);

/* Declare a session; returns its index, or IP_NONE (error set) on a
 * duplicate or empty id. */
uint32_t ip_builder_session(ip_builder *b, const char *name, ip_error *err);

/* Declare a transaction at the end of a session; returns a handle (>= 1)
 * for ip_builder_op, or IP_NONE on a duplicate/empty id or a name equal to
 * the initial txn's.  `line` locates that error (0: JSON path).  Handles
 * are builder-local: final txn ids are assigned by ip_builder_finish so
 * that the txns of a session are contiguous. */
uint32_t ip_builder_txn(ip_builder *b, uint32_t session, const char *name,
                        ip_status status, uint32_t line, ip_error *err);

/* Change a declared transaction's status (JSON may give it after the
 * transaction's ops). */
void ip_builder_txn_status(ip_builder *b, uint32_t txn, ip_status status);

/* Add an op to a declared transaction.  `value` is JSON scalar text or
 * NULL.  For reads, `from` names the writer transaction (may be the initial
 * name, or the reading txn itself for a local read), or is NULL to resolve
 * by (key, value) against the committed writes' last values; a NULL value
 * with NULL from means the initial value (resolves to txn 0 when no
 * committed write has a null value). */
bool ip_builder_op(ip_builder *b, uint32_t txn, ip_op_kind kind,
                   const char *key, const char *value, const char *from,
                   uint32_t line, ip_error *err);

/* The same with texts given by length (no NUL needed): key[0, klen),
 * value[0, vlen) and from[0, flen), value and from NULL when absent. */
bool ip_builder_op_len(ip_builder *b, uint32_t txn, ip_op_kind kind,
                       const char *key, size_t klen, const char *value,
                       size_t vlen, const char *from, size_t flen,
                       uint32_t line, ip_error *err);

/* A read that names no writer (JSON "from": null; texts as for
 * ip_builder_op_len): it is not resolved by value.  An aborted
 * transaction's read keeps no writer; a committed transaction's is a
 * thin-air read (strict: an input error; lenient: an anomaly). */
bool ip_builder_read_no_writer(ip_builder *b, uint32_t txn, const char *key,
                               size_t klen, const char *value, size_t vlen,
                               uint32_t line, ip_error *err);

/* A read of one of several writers: from[0..n) name the candidate
 * transactions (n >= 1; one is the same as ip_builder_op's `from`).  Each
 * must be a committed transaction other than the reader (or the initial
 * name) whose last write of key matches value when both are given;
 * candidates that do not fit are input errors, duplicates are dropped. */
bool ip_builder_read_candidates(ip_builder *b, uint32_t txn, const char *key,
                                const char *value, const char *const *from,
                                uint32_t n, uint32_t line, ip_error *err);

/* Same, with the writer given as a handle already known (IP_NONE: resolve
 * by value).  Used by readers whose writer ids are numeric. */
bool ip_builder_op_from_id(ip_builder *b, uint32_t txn, ip_op_kind kind,
                           const char *key, const char *value,
                           uint32_t from_txn, uint32_t line, ip_error *err);

/* Ops by ids, for a caller that adds many ops over few texts (a
 * prediction's history is rebuilt from its observed trace for every
 * candidate): the builder's id of a key, of a value text and of a
 * transaction name (what ip_builder_op would intern; IP_NONE only when
 * out of memory, or for a NULL value), each valid for this builder only,
 * then ops from them.  ip_builder_op_ids(b, t, kind, k, v, f, err) is
 * ip_builder_op(b, t, kind, key, value, from, 0, err) for k, v, f the ids
 * of key, value and from (v, f IP_NONE for NULL).  False with err set
 * for an id this builder did not give. */
uint32_t ip_builder_key_id(ip_builder *b, const char *key);
uint32_t ip_builder_value_id(ip_builder *b, const char *value);
uint32_t ip_builder_name_id(ip_builder *b, const char *name);
bool ip_builder_op_ids(ip_builder *b, uint32_t txn, ip_op_kind kind,
                       uint32_t key, uint32_t value, uint32_t from,
                       ip_error *err);

/* Same, with key and value given as 64-bit integers (plume, awdit-test,
 * dbcop, Cobra): the key's text is its decimal, the value's its JSON
 * scalar text (from 10^15 on a JSON string: IP_STRING_VALUES).
 * A number seen before costs one probe, never formatting or interning
 * text.
 * Numbers are uint64 unless ip_builder_signed_numbers was called: then
 * int64 in two's complement (Cobra's hashes). */
bool ip_builder_op_num(ip_builder *b, uint32_t txn, ip_op_kind kind,
                       uint64_t key, uint64_t value, uint32_t from_txn,
                       uint32_t line, ip_error *err);
void ip_builder_signed_numbers(ip_builder *b);

/* Integer values from here on are kept as JSON strings (their decimal in
 * quotes), smaller ones as JSON numbers (ip_builder_op_num).  JSON readers
 * hold numbers as doubles: beyond 2^53 digits are lost, and from 10^15
 * cJSON prints them in exponent form ("1e+15"), so only strings survive a
 * trip through JSON unchanged. */
#define IP_STRING_VALUES UINT64_C(1000000000000000)

/* Decimal text of v into buf (at least 21 bytes), as ip_builder_op_num
 * spells a number; returns its length. */
static inline size_t ip_u64_text(uint64_t v, char *buf)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

/* Tool fields to keep with the trace (IP_EXTRA_TRACE, handle ignored), a
 * session (its index), a transaction (its handle) or the op last added to
 * a transaction (the transaction's handle): `json` is the compact text of
 * a JSON object as cJSON's unformatted print makes it (see above), or
 * NULL for none.  False (err set) when out of memory. */
typedef enum {
    IP_EXTRA_TRACE, IP_EXTRA_SESSION, IP_EXTRA_TXN, IP_EXTRA_OP
} ip_extra_at;
bool ip_builder_extra(ip_builder *b, ip_extra_at at, uint32_t handle,
                      const char *json, ip_error *err);

/* A known version order of key (its name): writers[0..n) are handles of
 * committed transactions that write it, each once, the first versions
 * after the initial one in order (see ip_trace.key_order_*: the writers
 * not listed follow them).  At most one order per key.  Finish reports a
 * handle that is not a committed writer of key, or a repeated one, as an
 * input error.  False (err set) when out of memory. */
bool ip_builder_version_order(ip_builder *b, const char *key,
                              const uint32_t *writers, uint32_t n,
                              ip_error *err);

/* The same with the writers named by their transaction ids (JSON's
 * "versions"), all declared before: a name that is no declared
 * transaction (or the initial one's) is an error here (err set). */
bool ip_builder_version_order_named(ip_builder *b, const char *key,
                                    const char *const *names, uint32_t n,
                                    ip_error *err);

/* Two reads whose versions of one key come in orders no version order
 * extends (Elle's list-append reads: neither list is a prefix of the
 * other): op `op` (its index among the ops added to transaction `txn`)
 * and op `other_op` of `other_txn`, both reads of one key by committed
 * transactions.  Finish reports it as it does the other anomalies (strict:
 * an input error naming both lines; lenient: IP_AN_INCOMPATIBLE_ORDER).
 * The model keeps one version order per key (ip_builder_version_order):
 * this is how a reader that saw several says that they contradict each
 * other.  False (err set) when out of memory. */
bool ip_builder_incompatible_order(ip_builder *b, uint32_t txn, uint32_t op,
                                   uint32_t other_txn, uint32_t other_op,
                                   ip_error *err);

/* The initial value of every key, as JSON scalar text ("null" unless set;
 * plume and awdit use "0").  A read resolved by value that matches it may
 * read from the initial transaction. */
void ip_builder_set_initial_value(ip_builder *b, const char *value);

/* A capacity hint from the input's size: room for up to n_ops ops and
 * n_txns transactions, taken from address space and only paid for as it
 * fills.  Nothing changes if it cannot be had; the arrays grow as usual. */
void ip_builder_reserve(ip_builder *b, uint64_t n_ops, uint64_t n_txns);

/* Finish: returns the trace (ownership to the caller) and frees the
 * builder, or NULL with err set (the builder is freed either way).
 * A value that matches the last writes of several committed transactions
 * makes an ambiguous read (trace->amb_*), as do listed candidates.
 * Errors: empty trace (no committed transaction), unknown `from`, a value
 * matching no write, and in strict mode every anomaly of a
 * committed read and a `from` naming a transaction that never writes the
 * key in any read.  Aborted transactions' reads are not analysed: their
 * other anomalies are neither errors nor records, and a named writer is
 * kept in ip_op.from.
 * From 2^16 ops the reads are resolved in two threads (one started here
 * and joined before it returns); the trace, its anomalies and the error
 * reported are those of a serial resolution. */
ip_trace *ip_builder_finish(ip_builder *b, ip_error *err);

/* ---- sub-traces ----------------------------------------------------------- */

/* The committed transactions x with keep[x] set (n_txns entries; txn 0 is
 * always there), in their sessions and order, each with all its ops.  A
 * read whose writer is not kept reads from the initial transaction (its
 * value kept): the state before the kept transactions is folded into the
 * initial one.  Sessions without a kept transaction are left out.  Ids
 * follow the trace's order; with map_txn, *map_txn (malloc'ed, n_txns of
 * the sub-trace entries) gives each sub-trace txn's id in t.  Known
 * version orders are not kept (sub-traces are executions to predict
 * from, whose version orders are theirs to choose).  NULL with
 * err set on OOM or when t has ambiguous reads. */
ip_trace *ip_trace_slice(const ip_trace *t, const uint8_t *keep,
                         uint32_t **map_txn, ip_error *err);

/* The same with flags (0: as ip_trace_slice).  IP_SLICE_DROP_READS: a
 * read whose writer is not kept is left out instead of folded, which
 * makes the sub-trace a part of t in the strict sense (every serial order
 * of t restricted to the kept transactions is one of it: what is
 * unserializable there is unserializable in t); the ops of a txn are
 * then a subsequence of its ops in t.  IP_SLICE_NO_TRACE_EXTRA: without
 * t's top-level tool fields (which may be large; sub-traces that are
 * only checked do not need them). */
enum { IP_SLICE_DROP_READS = 1, IP_SLICE_NO_TRACE_EXTRA = 2 };
ip_trace *ip_trace_slice_with(const ip_trace *t, const uint8_t *keep,
                              unsigned flags, uint32_t **map_txn,
                              ip_error *err);

/* A history of t (unique, without anomalies): the committed transactions
 * x with keep[x] set (n_txns entries; txn 0 is always there), each with
 * all its ops, numbered as ip_trace_slice numbers them; the read of event
 * e of a kept transaction reads from writer[e] (n_events entries: a kept
 * transaction that writes the key, or txn 0), seeing the value
 * ip_value_written gives where that is not its observed writer.  The
 * trace the builder would make of the same ops (keys numbered as the ops
 * first name them), made from t's arrays: it shares t's strings (counted:
 * either may be freed first), and takes time linear in what it keeps
 * plus t's transactions and keys.  NULL with err set when a writer is
 * not one the history can read from, nothing is kept, or out of memory
 * (err->oom). */
ip_trace *ip_trace_derive(const ip_trace *t, const uint8_t *keep,
                          const uint32_t *writer, ip_error *err);

/* The value a read of key from writer sees in t: the writer's last write,
 * or for txn 0 the value some read of the initial state saw; IP_NONE
 * when nothing tells. */
uint32_t ip_value_written(const ip_trace *t, uint32_t writer, uint32_t key);

/* ---- mini-transactions ----------------------------------------------------- */

/* A mini-transaction history (the MTC paper, Defs. 8-9; mini.c): every
 * committed transaction but txn 0 has one or two reads and at most two
 * writes, each write after a read of its key; every read names one writer
 * (the paper's unique values); no read-consistency anomaly, and no
 * transaction reads a key twice from different writers (the paper's
 * internal consistency).  ser and si are decided in linear time on such
 * histories.  Aborted transactions are not looked at. */
typedef enum {
    IP_MINI_YES = 0,
    IP_MINI_AMBIGUOUS,        /* some read has several candidate writers */
    IP_MINI_ANOMALIES,        /* read-consistency anomalies (lenient) */
    IP_MINI_NO_READ,          /* a transaction without reads */
    IP_MINI_READS,            /* more than two reads */
    IP_MINI_WRITES,           /* more than two writes */
    IP_MINI_BLIND_WRITE,      /* a write without an earlier read of its key */
    IP_MINI_REREAD            /* a key read twice from different writers */
} ip_mini_kind;

typedef struct ip_mini_why {
    uint8_t kind;             /* ip_mini_kind */
    uint32_t txn;             /* the first transaction at fault, or IP_NONE */
} ip_mini_why;

/* True iff t is a mini-transaction history; *why (may be NULL) says why
 * not.  Linear in ops and events, no allocation. */
bool ip_trace_mini(const ip_trace *t, ip_mini_why *why);
/* "a transaction has more than two reads", ... */
const char *ip_mini_reason(ip_mini_kind kind);

/* ---- statistics ----------------------------------------------------------- */

typedef struct ip_stats {
    uint32_t sessions, txns, committed, aborted, read_only;
    uint32_t ops, reads, writes, local_reads, events, read_events,
             write_events, keys, ambiguous_reads,
             conflict_keys,                  /* keys with >1 writer
                                                   besides txn 0 */
             mini_transactions;              /* 1: ip_trace_mini */
    ip_mini_why mini_why;                    /* why not, when 0 */
} ip_stats;

void ip_trace_stats(const ip_trace *t, ip_stats *out);

#endif
