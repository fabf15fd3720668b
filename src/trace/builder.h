/*
 * builder.h - internal state of ip_builder, shared by builder.c (declaring)
 * and finish.c (resolving and deriving).  Not part of the public contract.
 */
#ifndef ISOPREDICT_BUILDER_H
#define ISOPREDICT_BUILDER_H

#include "idmap.h"
#include "intern.h"
#include "trace.h"

typedef struct pending_op {
    uint8_t kind;
    uint8_t listed;           /* from_sid indexes cands: candidate writers */
    uint32_t key;             /* key index */
    uint32_t value;           /* sid or IP_NONE */
    uint32_t from_sid;        /* writer named by string, or IP_NONE; with
                                 listed, cands[from_sid] is the number of
                                 candidates and their sids follow */
    uint32_t from_txn;        /* writer given as a handle, or IP_NONE */
    uint32_t txn;             /* handle */
    uint32_t line;
    uint32_t index;           /* position within its transaction */
    uint32_t extra;           /* tool fields (sid) or IP_NONE */
} pending_op;

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
    pending_op *ops;
    uint32_t n_ops, cap_ops;
    uint32_t *cands;          /* candidate lists of listed reads */
    uint32_t n_cands, cap_cands;
    uint32_t *key_sid;        /* key index -> sid */
    uint32_t n_keys, cap_keys;
    bool signed_numbers;      /* ip_builder_op_num's numbers are int64 */
    ip_idmap num_keys;        /* number -> key index */
    ip_idmap num_values;      /* number -> value sid */
};

/* Room for one more element in arr (n used of cap); false when out of
 * memory. */
#define BLD_GROW(arr, n, cap)                                                   \
    ((n) < (cap) || ip_grow((void **)&(arr), &(cap), sizeof *(arr)))
/* Keep the sid-indexed lookup arrays as long as the string table. */
bool bld_sync_sid_maps(ip_builder *b);
/* The sid of s, added when new; IP_NONE when out of memory. */
uint32_t bld_intern(ip_builder *b, const char *s);
/* Where op is, for a message: "file:line" or a JSON path, then .field. */
void bld_locate(const ip_builder *b, const pending_op *op, const char *field,
                char *buf, size_t n);

#endif
