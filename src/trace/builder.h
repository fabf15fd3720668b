/*
 * builder.h - internal state of ip_builder, shared by builder.c (declaring)
 * and finish.c (resolving and deriving).  Not part of the public contract.
 */
#ifndef ISOPREDICT_BUILDER_H
#define ISOPREDICT_BUILDER_H

#include "idmap.h"
#include "intern.h"
#include "trace.h"

/* Until finish, ops are kept in the trace's own ip_op layout, in the
 * order they were added, with three fields meaning something else: `txn`
 * is the builder handle, `local` says what `from` holds (a bld_from), and
 * `last` is 0.  Input that lists each transaction's ops together, its
 * sessions one after another (JSON, dbcop, Cobra, awdit-test), is then
 * already the trace's op array: finish renames in place, nothing moves. */
typedef enum {
    BLD_FROM_NONE = 0,        /* resolve by (key, value) */
    BLD_FROM_HANDLE = 1,      /* from: the writer's handle */
    BLD_FROM_SID = 2,         /* from: sid of the writer's name */
    BLD_FROM_LIST = 3,        /* from: index into cands (candidates) */
    BLD_FROM_NOBODY = 4       /* no writer, not resolved by value (JSON
                                 "from": null); from is IP_NONE */
} bld_from;

typedef struct pending_txn {
    uint32_t name, session, index, line, n_ops;
    uint32_t extra, last_op;  /* tool fields; its last op added or IP_NONE */
    uint8_t status;
} pending_txn;

typedef struct pending_session {
    uint32_t name, n_txns, extra;
} pending_session;

struct ip_builder {
    char *file;
    ip_mode mode;
    ip_intern in;
    uint32_t initial_sid, null_sid, initial_value, extra;
    uint32_t *txn_of_sid, *session_of_sid, *key_of_sid;
    uint32_t sid_cap;
    pending_session *sessions;
    uint32_t n_sessions, cap_sessions;
    pending_txn *txns;        /* handle 0 is the initial transaction */
    uint32_t n_txns, cap_txns;
    ip_op *ops;               /* see bld_from */
    uint32_t *op_line, *op_extra;   /* parallel to ops (cap_ops long);
                                       NULL until an op has one */
    uint32_t n_ops, cap_ops, n_writes;
    uint32_t *cands;          /* candidate lists of listed reads */
    uint32_t n_cands, cap_cands;
    uint32_t *key_sid;        /* key index -> sid */
    uint32_t n_keys, cap_keys;
    uint32_t *orders;         /* incompatible orders: (txn, op, other txn,
                                 other op) quadruples, see
                                 ip_builder_incompatible_order */
    uint32_t n_orders, cap_orders;
    uint32_t *versions;       /* known version orders, one record a key:
                                 key sid, n, then n writer handles (see
                                 ip_builder_version_order) */
    uint32_t n_versions, cap_versions;
    bool signed_numbers;      /* ip_builder_op_num's numbers are int64 */
    ip_idmap num_keys;        /* number -> key index */
    ip_idmap num_values;      /* number -> value sid */
    ip_idmap num_names;       /* n -> sid of name_prefix + decimal n */
    ip_idmap num_texts;       /* n -> sid of the decimal text of n */
    char name_prefix[8];      /* NUL-terminated; "" until the first */
};

/* Room for one more element in arr (n used of cap); false when out of
 * memory. */
#define BLD_GROW(arr, n, cap)                                                   \
    ((n) < (cap) || ip_grow((void **)&(arr), &(cap), sizeof *(arr)))
/* Keep the sid-indexed lookup arrays as long as the string table. */
bool bld_sync_sid_maps(ip_builder *b);
/* The sid of s, added when new; IP_NONE when out of memory.  Decimal
 * texts and names of the learnt prefix are found by their number. */
uint32_t bld_intern(ip_builder *b, const char *s);
/* The same for a transaction name, which may teach the prefix of
 * numbered names ("t" of "t17"); the same sids as bld_intern. */
uint32_t bld_intern_name(ip_builder *b, const char *s);
/* Where final op i of trace t is, for a message: "file:line" or a JSON
 * path, then .field. */
void bld_locate(const ip_builder *b, const ip_trace *t, uint32_t i,
                const char *field, char *buf, size_t n);

#endif
