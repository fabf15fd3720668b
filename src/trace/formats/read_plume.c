/*
 * read_plume.c - reader of the plume text history format (Plume, PolySI,
 * AWDIT): one `OP(KEY,VALUE,SESSION,TXN)` record a line, OP `r` or `w`,
 * unsigned decimal KEY, VALUE, SESSION, signed decimal TXN; fields after
 * the fourth are ignored; blank lines are skipped.
 *
 * Mapping to the model:
 *   - session N is named "sN"; transaction N is named "tN" and joins the
 *     session of its first line; sessions and transactions are ordered by
 *     first appearance, ops by line order (a transaction's lines need not
 *     be contiguous);
 *   - TXN -1 marks an op of an aborted transaction.  All such lines of one
 *     session form ONE aborted transaction, "aborted@sN", placed in its
 *     session where the first of them appears: aborted writes are only
 *     kept to report reads of them, so one per session is enough and a
 *     file of many aborts does not multiply transactions;
 *   - keys and values keep their decimal text (leading zeros dropped;
 *     values from 10^15 on become JSON strings, see IP_STRING_VALUES), the
 *     initial value of every key is 0 (txn 0), and every read is resolved
 *     by the builder from (key, value).
 *
 * Histories reach millions of lines: the loop below parses by hand, looks
 * ids up in open-addressing maps and allocates nothing per line.
 */
#include "idmap.h"
#include "lines.h"
#include "formats.h"

#include <stdio.h>

typedef struct plume_line {
    uint8_t kind;             /* ip_op_kind */
    bool aborted;             /* TXN was -1 */
    uint64_t key, value, session, txn;
} plume_line;

/* Parse [p, e) (trimmed, non-empty); on failure *want says what was
 * expected at *at. */
static bool parse_record(const char *p, const char *e, plume_line *l,
                         const char **at, const char **want)
{
    const char *s = p;
    *want = "'r(' or 'w('";
    if (e - p < 2 || (p[0] != 'r' && p[0] != 'w') || p[1] != '(')
        goto fail;
    l->kind = p[0] == 'r' ? IP_READ : IP_WRITE;
    p += 2;
    uint64_t *field[3] = {&l->key, &l->value, &l->session};
    for (int i = 0; i < 3; i++) {
        *want = "an unsigned decimal number (at most 20 digits)";
        if (!ip_scan_u64(&p, e, field[i]))
            goto fail;
        *want = "','";
        if (p >= e || *p != ',')
            goto fail;
        p++;
    }
    l->aborted = p < e && *p == '-';
    if (l->aborted) {
        const char *minus = p++;
        *want = "'-1' (the only negative transaction id, for aborted ops)";
        if (!ip_scan_u64(&p, e, &l->txn) || l->txn != 1) {
            p = minus;
            goto fail;
        }
    } else {
        *want = "a decimal transaction id (at most 20 digits)";
        if (!ip_scan_u64(&p, e, &l->txn))
            goto fail;
    }
    *want = "')' or ','";
    if (p < e && *p == ',' && e[-1] == ')')
        return true;          /* extra fields: ignored */
    if (p < e && *p == ')' && p + 1 == e)
        return true;
    if (p < e && *p == ',')
        *want = "')' at the end of the line", p = e;
    else if (p < e && *p == ')')
        *want = "the end of the line", p++;
fail:
    *at = p > s ? p : s;
    return false;
}

typedef struct plume_reader {
    const char *path;
    ip_builder *b;
    ip_idmap sessions;        /* session number -> builder session */
    ip_idmap txns;            /* txn number -> builder handle */
    ip_idmap aborted;         /* session number -> its aborted txn */
    plume_line last;          /* the previous line's transaction ... */
    uint32_t last_txn;        /* ... and its handle, or IP_NONE */
    ip_error *err;
} plume_reader;

static bool oom(plume_reader *r)
{
    return ip_oom(r->err, "out of memory");
}

static uint32_t session_of(plume_reader *r, uint64_t n)
{
    uint32_t s = ip_idmap_get(&r->sessions, n);
    if (s != IP_NONE)
        return s;
    char name[24];
    name[0] = 's';
    ip_u64_text(n, name + 1);
    s = ip_builder_session(r->b, name, r->err);
    if (s != IP_NONE && !ip_idmap_put(&r->sessions, n, s))
        return oom(r), IP_NONE;
    return s;
}

/* The builder handle of the line's transaction, declared on first sight. */
static uint32_t txn_of(plume_reader *r, const plume_line *l, uint32_t line)
{
    /* a transaction's lines mostly come together: skip the lookup */
    if (r->last_txn != IP_NONE && l->aborted == r->last.aborted &&
        (l->aborted ? l->session == r->last.session : l->txn == r->last.txn))
        return r->last_txn;
    r->last = *l;
    r->last_txn = IP_NONE;
    ip_idmap *map = l->aborted ? &r->aborted : &r->txns;
    uint64_t id = l->aborted ? l->session : l->txn;
    uint32_t h = ip_idmap_get(map, id);
    if (h != IP_NONE)
        return r->last_txn = h;
    uint32_t s = session_of(r, l->session);
    if (s == IP_NONE)
        return IP_NONE;
    char name[40];
    if (l->aborted)
        snprintf(name, sizeof name, "aborted@s%llu",
                 (unsigned long long)l->session);
    else
        name[0] = 't', ip_u64_text(l->txn, name + 1);
    h = ip_builder_txn(r->b, s, name, l->aborted ? IP_ABORTED : IP_COMMITTED,
                       line, r->err);
    if (h != IP_NONE && !ip_idmap_put(map, id, h))
        return oom(r), IP_NONE;
    return r->last_txn = h;
}

static bool read_records(plume_reader *r, const char *data, size_t len)
{
    ip_lines in;
    const char *line, *s, *e;
    ip_lines_init(&in, data, len);
    while (ip_lines_next_op(&in, &line, &s, &e)) {
        plume_line l;
        const char *at, *want;
        if (!parse_record(s, e, &l, &at, &want)) {
            char ex[64];
            return ip_fail(r->err, "%s:%u: column %u: expected %s in '%s'",
                           r->path, in.no, (unsigned)(at - line) + 1, want,
                           ip_excerpt(s, e, ex));
        }
        uint32_t h = txn_of(r, &l, in.no);
        if (h == IP_NONE)
            return false;
        if (!ip_builder_op_num(r->b, h, (ip_op_kind)l.kind, l.key, l.value,
                               IP_NONE, in.no, r->err))
            return false;
    }
    return true;
}

ip_trace *ip_read_plume(const char *path, const char *data, size_t len,
                        ip_mode mode, ip_error *err)
{
    plume_reader r = {.path = path, .last_txn = IP_NONE, .err = err};
    r.b = ip_builder_new(path, "init", mode);
    if (!r.b) {
        ip_oom(err, "out of memory");
        return NULL;
    }
    ip_builder_set_initial_value(r.b, "0");
    ip_builder_reserve(r.b, len / 11, len / 11);   /* "r(0,0,0,0)\n" */
    bool ok = read_records(&r, data, len);
    ip_idmap_free(&r.sessions);
    ip_idmap_free(&r.txns);
    ip_idmap_free(&r.aborted);
    if (!ok) {
        ip_builder_free(r.b);
        return NULL;
    }
    return ip_builder_finish(r.b, err);
}
