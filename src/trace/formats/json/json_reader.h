/*
 * json_reader.h - the JSON trace reader's state and its token level, shared
 * by json_members.c (values, members, texts, tool fields), json_fast.c
 * (plain ops and transaction heads) and read_json.c (the document: trace,
 * sessions, transactions, ops).  Internal to src/trace.
 *
 * Texts handed out are offsets into r->text, valid until it is reset (at
 * each op); SIZE_MAX means failure, with r->err set, or r->syntax for bad
 * JSON at r->c.i.  Functions returning bool return false the same way.
 */
#ifndef ISOPREDICT_JSON_READER_H
#define ISOPREDICT_JSON_READER_H

#include "json_scan.h"
#include "json.h"

#include <stdint.h>

/* The fields of each level (TRACE_FORMAT.md): those the model reads, then
 * the tool fields it keeps without reading them.  Anything else is a typo
 * or data for "meta": an input error, except in lenient mode. */
typedef struct field_set {
    const char *const *model, *const *tool;
} field_set;

typedef enum {
    T_NONE, T_STRING, T_NUMBER, T_LITERAL, T_OBJECT, T_ARRAY
} tok_kind;

/* A value met in an object: its kind and bytes, to be looked at once the
 * object's other members are known (first occurrence of a name wins, as
 * with cJSON's lookups). */
typedef struct tok {
    tok_kind kind;
    bool streamed;            /* an array read in place (read_members) */
    size_t start, end;        /* the value's bytes [start, end) */
    js_string str;            /* T_STRING: its content */
} tok;

/* A growable text buffer; texts are handed out as offsets, since the
 * buffer moves when it grows. */
typedef struct text_buf {
    char *p;
    size_t n, cap;
} text_buf;

typedef struct member {
    js_string name;
    size_t start, end;        /* value bytes */
} member;

typedef struct member_list {
    member *m;
    uint32_t n, cap;
} member_list;

/* Levels of the document, for r->extras. */
enum { AT_TRACE, AT_SESSION, AT_TXN, AT_OP };

/* json_fast.c reads texts of at most JR_PLAIN_MAX bytes, and learns op
 * shapes whose pieces are at most JR_PIECE_MAX bytes. */
enum { JR_PLAIN_MAX = 64, JR_PIECE_MAX = 64 };

/* The shape of a plain object (json_fast.c): its bytes outside its texts
 * (an op's key, from and value; a transaction's id) - whitespace, names,
 * punctuation, and the one word that is part of the shape (an op's
 * "read" or "write", a transaction's status) - as the piece before each
 * text and the piece after the last.  Objects of the same shape are
 * matched against these bytes. */
typedef struct jr_shape {
    uint8_t n;                /* texts, 1-3 (no pieces: nothing learnt) */
    uint8_t member[3];        /* json_fast.c's member of each text */
    uint8_t scalars;          /* bit x: text x is any plain scalar */
    uint8_t len[4];           /* piece x precedes text x */
    uint8_t word_piece;       /* the piece holding the word, or > n */
    uint8_t word_at, word_len;
    char piece[4][JR_PIECE_MAX];
} jr_shape;

typedef struct jr_feed jr_feed;

typedef struct json_reader {
    const char *path;
    const char *data;
    js_cursor c;
    ip_builder *b;            /* the feed's from jr_feed_start to _end */
    jr_feed *feed;
    ip_mode mode;
    ip_error *err;
    bool syntax;              /* failed on bad JSON at c.i */
    text_buf text;            /* texts of the op at hand */
    member_list extras[4];    /* tool fields: trace, session, txn, op */
    size_t *cands;            /* text offsets of a read's candidates */
    uint32_t n_cands, cap_cands;
    uint32_t bad_cand;        /* index of the first bad candidate */
    jr_shape shapes[2];       /* of the last plain read and write */
    jr_shape head;            /* of the last plain transaction head */
    tok versions;             /* top-level "versions", read once the feed
                                 has declared every transaction */
} json_reader;

/* jr_classify's answers besides a model field's index. */
enum { TOOL = -1, UNKNOWN = -2, ERROR = -3 };

/* Set "out of memory" / mark bad JSON at r->c.i; both return false.
 * (jr_oom is here, not in json_members.c, so that json_feed.c, which
 * json_members.c calls, does not call back into it.) */
static inline bool jr_oom(json_reader *r)
{
    return ip_oom(r->err, "out of memory");
}
bool jr_bad_json(json_reader *r);
/* "file: where: what" into r->err; returns false. */
bool jr_type_error(json_reader *r, const char *where, const char *what);

/* n bytes of s as a NUL-terminated text in r->text: its offset. */
size_t jr_put_text(json_reader *r, const char *s, size_t n);
/* The content of a string token as text (escapes decoded); offset into
 * r->text, or SIZE_MAX (r->err or r->syntax set). */
size_t jr_string_text(json_reader *r, const js_string *s);
/* The JSON text of a scalar as the trace keeps it (cJSON's unformatted
 * print: strings keep their quotes, so a value round-trips with its
 * type); offset into r->text, or SIZE_MAX. */
size_t jr_scalar_text(json_reader *r, const tok *v);
/* Is the number at [s, e) one that cJSON prints as it is written: an
 * integer of at most 15 digits, not -0? */
bool jr_plain_integer(const char *s, const char *e);
/* The value at the cursor, checked and skipped, as a tok. */
bool jr_take_value(json_reader *r, tok *v);
/* Open the object at the cursor; false (not an object) leaves it there. */
bool jr_open_object(json_reader *r);
/* The next member's name, the cursor left at its value: 1; the object's
 * end (consumed): 0; bad JSON: -1.  *first tracks the comma rule. */
int jr_next_member(json_reader *r, bool *first, js_string *name);
/* Open the array at the cursor for jr_next_element. */
bool jr_open_array(json_reader *r);
/* The next element, cursor at it: 1; the end (consumed): 0; bad: -1. */
int jr_next_element(json_reader *r, bool *first);
/* Classify a member of an object of field set fs: its index among the
 * model's fields (>= 0), TOOL (kept in r->extras), UNKNOWN, or ERROR. */
int jr_classify(json_reader *r, const field_set *fs, const js_string *n,
                size_t *unknown_at);
/* The error for the first unknown member (strict mode only). */
bool jr_unknown_member(json_reader *r, const field_set *fs,
                       const char *where, size_t name_at);
/* Keep the tool fields collected at `level` with entity at/handle, as the
 * compact JSON object cJSON prints (their bytes parsed by cJSON once). */
bool jr_keep_extras(json_reader *r, int level, ip_extra_at at,
                    uint32_t handle);
/* Collect a tool field's value at `level`. */
bool jr_add_extra(json_reader *r, int level, const js_string *name);

/* json_feed.c: declarations on their way to the builder, applied in
 * order (by a second thread on a large input) between jr_feed_start,
 * once r->b exists, and jr_feed_end.  Handles are those the builder will
 * give.  Texts are copied unless `in_input` says they stay in r->data.
 * False / IP_NONE when out of memory (r->err set) or when the builder has
 * failed: then jr_feed_end gives its error. */
typedef struct jr_op_texts {
    const char *key, *value, *from;      /* value, from: NULL when absent */
    size_t klen, vlen, flen;
    bool no_writer;                      /* a read's "from": null */
} jr_op_texts;

bool jr_feed_start(json_reader *r);
uint32_t jr_feed_session(json_reader *r, const char *name);
uint32_t jr_feed_txn(json_reader *r, uint32_t session, const char *name,
                     size_t len, ip_status status);
bool jr_feed_status(json_reader *r, uint32_t txn, ip_status status);
bool jr_feed_op(json_reader *r, uint32_t txn, ip_op_kind kind,
                const jr_op_texts *t, bool in_input);
bool jr_feed_candidates(json_reader *r, uint32_t txn, const char *key,
                        const char *value, const char *const *ids,
                        uint32_t n);
bool jr_feed_extra(json_reader *r, ip_extra_at at, uint32_t handle,
                   const char *json);
/* Apply what is queued, wait for it, and give the outcome: `ok` (the
 * reader's) unless the builder failed, whose error then replaces the
 * reader's in r->err (it came first in the input). */
bool jr_feed_end(json_reader *r, bool ok);
void jr_feed_free(json_reader *r);

/* json_fast.c: the op object at the cursor, when it is plain (only op,
 * key, value and from; plain strings and integers; nothing the general
 * reader would refuse), queued for txn: 1, cursor after it; not plain: 0,
 * cursor unmoved, for the general reader; -1 when the feed refused it
 * (see jr_feed_op). */
int jr_plain_op(json_reader *r, uint32_t txn);
/* Is the transaction object at the cursor's start plain: `{"id": ID,
 * "status": STATUS, "ops": [` (status optional; ID non-empty, plain;
 * STATUS "committed" or "aborted"; any whitespace)?  Then *at is the
 * offset of its ops' '[' and id, status (start SIZE_MAX when absent) the
 * strings; the cursor is not moved.  A head in another layout than
 * convert's teaches r->head its shape. */
bool jr_plain_txn_head(json_reader *r, size_t *at, js_string *id,
                       js_string *status);

#endif
