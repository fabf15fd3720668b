/*
 * formats.h - the trace formats: detect a file's format, read it into a
 * trace, write a trace out.  Readers are clients of the trace model's
 * builder (trace.h); the fast JSON reader has a room of its own below this
 * one (json/json.h).  The model never includes this header.
 *
 *   format           read  write  file
 *   json             yes   yes    json/read_json.c (+ json_*.c), write_json.c
 *   isopredict-text  yes   yes    read_text.c, write_text.c
 *   plume            yes   yes    read_plume.c, write_plume.c
 *   awdit-test       yes   yes    read_awdit.c, write_awdit.c
 *   dbcop            yes   yes    read_dbcop.c, write_dbcop.c (a
 *                                 history.bincode file)
 *   cobra            yes   yes    read_cobra.c, write_cobra.c (a directory
 *                                 of *.log, one a session)
 *   elle             yes   yes    read_elle.c (+ edn.c), write_elle.c
 *   dot                    yes    write_dot.c
 *
 * The formats other than json cannot hold every trace: write_layout.c
 * decides, before anything is written, how a trace is laid out in one of
 * them (which transactions are written, the numbers keys and values are
 * written as) and what is lost on the way (ip_layout's notes).
 *
 * A new format is a reader (or writer) file here, its ip_format, its name
 * in format.c and, if it can be told by its bytes, a case in its sniffing.
 * Files are loaded by load.c; text readers share lines.h.
 *
 * Ownership: a reader returns a trace the caller owns (ip_trace_free);
 * the input buffer stays the caller's and is not kept.  ip_read_whole
 * returns a buffer the caller frees; ip_load's data is released by
 * ip_unload; ip_trace_to_cjson's tree by cJSON_Delete.  Writers only read
 * the trace.
 *
 * Errors: readers never abort the process.  They return NULL and fill an
 * ip_error with a message naming the file, the line, the byte offset or
 * the JSON path, and what is wrong; err->oom is set when an allocation
 * failed, so that callers tell a resource limit from bad input.  Writers
 * return false on an I/O error (or when out of memory).  No global state.
 */
#ifndef ISOPREDICT_FORMATS_H
#define ISOPREDICT_FORMATS_H

#include <stdio.h>

#include "json.h"
#include "trace.h"

typedef enum {
    IP_FMT_AUTO = 0,
    IP_FMT_JSON,
    IP_FMT_ISOPREDICT_TEXT,
    IP_FMT_PLUME,
    IP_FMT_AWDIT_TEST,
    IP_FMT_DBCOP,        /* dbcop's history.bincode */
    IP_FMT_COBRA,        /* a directory of Cobra client logs */
    IP_FMT_ELLE,         /* a Jepsen history in EDN, as Elle reads it */
    IP_FMT_DOT           /* write only */
} ip_format;

/* ---- detect ------------------------------------------------------------- */

/* "json", "isopredict-text", "plume", "awdit-test", "dbcop", "cobra",
 * "elle", "dot", "auto"; returns false for an unknown name. */
bool ip_format_parse(const char *name, ip_format *out);
const char *ip_format_name(ip_format f);

/* Pick a format for `path` from its extension, else from its first bytes. */
ip_format ip_format_detect(const char *path, const char *data, size_t len);

/* ---- read --------------------------------------------------------------- */

/* Read a trace from memory / a file.  `path` is used in messages. */
ip_trace *ip_read_buffer(const char *path, const char *data, size_t len,
                         ip_format fmt, ip_mode mode, ip_error *err);
ip_trace *ip_read_file(const char *path, ip_format fmt, ip_mode mode,
                       ip_error *err);

/* Individual readers (used by ip_read_buffer; ip_read_json is in
 * json/json.h, included above). */
ip_trace *ip_read_isopredict_text(const char *path, const char *data,
                                  size_t len, ip_mode mode, ip_error *err);
ip_trace *ip_read_plume(const char *path, const char *data, size_t len,
                        ip_mode mode, ip_error *err);
ip_trace *ip_read_awdit_test(const char *path, const char *data, size_t len,
                             ip_mode mode, ip_error *err);
/* dbcop's binary history (bincode); values resolve reads, 0 is initial. */
ip_trace *ip_read_dbcop(const char *path, const char *data, size_t len,
                        ip_mode mode, ip_error *err);
/* A Cobra history: the directory `dir`, each *.log file a session. */
ip_trace *ip_read_cobra(const char *dir, ip_mode mode, ip_error *err);
/* The same from logs in memory: n files, names[] sorted (each ending in
 * ".log"), data[f] holding len[f] bytes; `dir` names the history in
 * messages. */
ip_trace *ip_read_cobra_logs(const char *dir, const char *const *names,
                             const char *const *data, const size_t *len,
                             uint32_t n, ip_mode mode, ip_error *err);

/* A Jepsen history (EDN): operation maps, one a line or in a vector, of
 * Elle's rw-register or list-append transactions; TRACE_FORMAT.md says
 * how it maps to the model.  Nemesis and other non-:txn ops are skipped,
 * :info transactions nobody observed left out (counted in the trace's
 * "meta").  Errors name file:line:column. */
ip_trace *ip_read_elle(const char *path, const char *data, size_t len,
                       ip_mode mode, ip_error *err);

/* The whole file at `path` ("-": standard input) in a malloc'ed buffer,
 * NUL-terminated (not counted in *len); NULL with err set ("cannot open",
 * "cannot read", or out of memory). */
char *ip_read_whole(const char *path, size_t *len, ip_error *err);

/* The same for reading a trace: a large regular file is mapped instead
 * (read-only; not NUL-terminated), anything else read as ip_read_whole
 * does.  ip_unload releases it either way. */
typedef struct ip_loaded {
    char *data;
    size_t len;
    bool mapped;
} ip_loaded;
bool ip_load(const char *path, ip_loaded *f, ip_error *err);
void ip_unload(ip_loaded *f);

/* ---- write -------------------------------------------------------------- */

/* JSON output reads back to the same trace (ids, order, values,
 * writers); reads carry an explicit "from".  Return false on I/O error. */
bool ip_write_json(const ip_trace *t, FILE *out);

/* A cJSON tree of the trace (for callers that add a "prediction" object
 * before printing).  Returns a cJSON* as void* to keep cJSON out of this
 * header; the caller frees it with cJSON_Delete, before it frees t: the
 * tree's strings of keys, ids and statuses are t's own, borrowed. */
void *ip_trace_to_cjson(const ip_trace *t);

/* ip_write_json, written as it goes (no tree), leaving out the
 * top-level tool fields named in drop (n_drop names) and adding after
 * everything else the members of tail (a cJSON object as void *, or NULL)
 * printed compact: how a prediction file is written.  Prints what
 * ip_trace_to_cjson's tree with those changes would print.  False on an
 * I/O error or when out of memory (the output is then incomplete). */
bool ip_write_json_with(const ip_trace *t, const char *const *drop,
                        size_t n_drop, const void *tail, FILE *out);

/* Graphviz DOT of a history: sessions as clusters, so and wr edges.  The
 * optional extra edges are drawn on top (ww, rw, cycles, changed reads). */
typedef struct ip_dot_edge {
    uint32_t from, to;        /* txn ids */
    const char *label;        /* e.g. "ww(x)"; NULL for none */
    const char *color;        /* Graphviz color; NULL for black */
    bool bold, dashed;
} ip_dot_edge;

bool ip_write_dot(const ip_trace *t, const ip_dot_edge *extra, size_t n_extra,
                  FILE *out);

/* ---- write the other formats --------------------------------------------
 * A trace laid out for isopredict-text, plume, awdit-test, dbcop or cobra
 * (ip_layout_make).  Each writer file's header says what its format can
 * and cannot hold; ip_layout_make checks it and says what is lost in
 * notes, one per kind of loss, with a count:
 *   - a note with `refuse` set means that the file would read back as a
 *     different history (an ambiguous read that the format cannot keep
 *     ambiguous, a key name the format cannot spell): do not write it;
 *   - the others are losses the history survives - aborted transactions,
 *     tool fields, names renumbered - and are to be shown to the user.
 * What the reader of the format reads back from the file has the same
 * committed transactions, sessions, session order, ops and writers as
 * the trace, less what the notes name.  Names of sessions and
 * transactions are the format's own (numbers), never the trace's. */
typedef struct ip_write_note {
    bool refuse;              /* the file would mean something else */
    uint32_t count;           /* how many of what the text names */
    char text[200];           /* "cannot hold aborted transactions: 3
                                 left out" (after the format's name) */
} ip_write_note;

enum { IP_MAX_WRITE_NOTES = 10 };

typedef struct ip_layout {
    const ip_trace *t;        /* borrowed; outlives the layout */
    ip_format fmt;
    /* per txn: 0 when not written, else its number in its session from 1
     * (txn_no) and, committed, among all committed ones written from 1
     * (txn_gno; 0 for an aborted one); txn 0 is never written (0) */
    uint32_t *txn_no, *txn_gno;
    /* per session: its number among the written sessions from 0, or
     * IP_NONE when not written; n_written_sessions of them */
    uint32_t *sess_no;
    uint32_t n_written_sessions;
    /* number formats: per key and per op the number written (cobra's
     * are int64 in two's complement); NULL for isopredict-text */
    uint64_t *key_num, *op_value;
    /* awdit-test: keys whose initial value is read (init_key[k] set), to
     * be written by a first transaction of its own; n_init_keys of them */
    uint8_t *init_key;
    uint32_t n_init_keys;
    ip_write_note notes[IP_MAX_WRITE_NOTES];
    uint32_t n_notes;
} ip_layout;

/* Lay t out for fmt (one of the five above); false with err set when out
 * of memory or fmt is not one of them.  The layout borrows t. */
bool ip_layout_make(ip_layout *l, const ip_trace *t, ip_format fmt,
                    ip_error *err);
void ip_layout_free(ip_layout *l);
/* The first note that refuses, or NULL. */
const ip_write_note *ip_layout_refusal(const ip_layout *l);
/* put(l, op, out) for every op of every written transaction, in
 * transaction order (the line formats: one op a line); false at the
 * first false. */
bool ip_layout_each_op(const ip_layout *l, FILE *out,
                       bool (*put)(const ip_layout *l, uint32_t op,
                                   FILE *out));

/* The writers: a layout made for their format, not refused.  False on an
 * I/O error. */
bool ip_write_text(const ip_layout *l, FILE *out);
bool ip_write_plume(const ip_layout *l, FILE *out);
bool ip_write_awdit(const ip_layout *l, FILE *out);
bool ip_write_dbcop(const ip_layout *l, FILE *out);
/* Cobra: one log a written session.  ip_cobra_log_name gives written
 * session number n's file name ("s07.log": zero-padded so that name order
 * is session order, as the reader sorts them) into buf (32 bytes);
 * ip_write_cobra_log writes trace session s (sess_no[s] != IP_NONE). */
void ip_cobra_log_name(const ip_layout *l, uint32_t n, char buf[32]);
bool ip_write_cobra_log(const ip_layout *l, uint32_t s, FILE *out);
/* A Jepsen rw-register history in EDN (Elle's format): for every
 * transaction, in session order, an :invoke and its :ok (committed) or
 * :fail (aborted) completion; each session a :process (its index), every
 * op an :index, keys and values as EDN scalars.  A read is written with
 * the value its writer wrote (nil for the initial transaction), so that a
 * reader resolving by value finds it again when values are unique per
 * key; ip_elle_losses says where they are not. */
bool ip_write_elle(const ip_trace *t, FILE *out);

/* What an EDN history of t cannot say, as a sentence into buf (empty
 * when nothing): reads whose writer another write of the same (key,
 * value) would hide, reads of a null value, ambiguous reads, read
 * anomalies, aborted transactions' reads of the initial state (which
 * read back as unknown).  Returns how many reads are concerned, or
 * UINT32_MAX when out of memory (buf says so). */
uint32_t ip_elle_losses(const ip_trace *t, char *buf, size_t n);

#endif
