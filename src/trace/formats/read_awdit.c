/*
 * read_awdit.c - reader of AWDIT's human-friendly test format:
 *
 *   r KEY VALUE / w KEY VALUE   one op a line (unsigned decimals)
 *   -----                       (any run of '-') ends a transaction
 *   =====                       (any run of '=') ends a session
 *
 * Blank lines are skipped.  Session number S (counting sessions that hold
 * an op, from 0) is named "sS", its transaction I "tS.I"; empty
 * transactions and sessions (two separators in a row) are not created.
 * There is no implicit initial state in this format: the first session's
 * first transaction writes the initial values, so for us it is an ordinary
 * transaction and txn 0 exists but nobody reads from it (the initial value
 * stays null, which no read of this format carries).  Reads are resolved
 * by the builder from (key, value).  Values from 10^15 on become JSON strings
 * (see IP_STRING_VALUES in lines.h).
 */
#include "lines.h"
#include "formats.h"

#include <stdio.h>

typedef struct awdit_reader {
    const char *path;
    ip_builder *b;
    uint32_t session;         /* current session, IP_NONE between sessions */
    uint32_t txn;             /* current txn handle, IP_NONE between txns */
    uint32_t n_sessions, n_txns;  /* created so far / in current session */
    ip_error *err;
} awdit_reader;

static bool all_of(const char *s, const char *e, char c)
{
    for (; s < e; s++)
        if (*s != c)
            return false;
    return true;
}

/* "r K V" / "w K V"; on failure *at and *want locate the problem. */
static bool parse_op(const char *p, const char *e, uint8_t *kind,
                     uint64_t *key, uint64_t *value, const char **at,
                     const char **want)
{
    *at = p;
    *want = "'r', 'w', a line of '-' or a line of '='";
    if ((*p != 'r' && *p != 'w') || p + 1 >= e || !ip_is_space(p[1]))
        return false;
    *kind = *p == 'r' ? IP_READ : IP_WRITE;
    p = ip_skip_spaces(p + 1, e);
    *want = "an unsigned decimal key (at most 20 digits)";
    *at = p;
    if (!ip_scan_u64(&p, e, key))
        return false;
    *want = "a space";
    *at = p;
    if (p >= e || !ip_is_space(*p))
        return false;
    p = ip_skip_spaces(p, e);
    *want = "an unsigned decimal value (at most 20 digits)";
    *at = p;
    if (!ip_scan_u64(&p, e, value))
        return false;
    *want = "the end of the line";
    *at = p;
    return p == e;
}

static bool add_op(awdit_reader *r, uint8_t kind, uint64_t key,
                   uint64_t value, uint32_t line)
{
    char name[48];
    if (r->session == IP_NONE) {
        snprintf(name, sizeof name, "s%u", r->n_sessions);
        r->session = ip_builder_session(r->b, name, r->err);
        if (r->session == IP_NONE)
            return false;
        r->n_sessions++;
        r->n_txns = 0;
    }
    if (r->txn == IP_NONE) {
        snprintf(name, sizeof name, "t%u.%u", r->n_sessions - 1, r->n_txns);
        r->txn = ip_builder_txn(r->b, r->session, name, IP_COMMITTED, line,
                                r->err);
        if (r->txn == IP_NONE)
            return false;
        r->n_txns++;
    }
    return ip_builder_op_num(r->b, r->txn, (ip_op_kind)kind, key, value,
                             IP_NONE, line, r->err);
}

static bool read_lines(awdit_reader *r, const char *data, size_t len)
{
    ip_lines in;
    const char *line, *s, *e;
    ip_lines_init(&in, data, len);
    while (ip_lines_next_op(&in, &line, &s, &e)) {
        if (all_of(s, e, '-') || all_of(s, e, '=')) {
            r->txn = IP_NONE;
            if (*s == '=')
                r->session = IP_NONE;
            continue;
        }
        uint8_t kind;
        uint64_t key, value;
        const char *at, *want;
        if (!parse_op(s, e, &kind, &key, &value, &at, &want)) {
            char ex[64];
            return ip_fail(r->err, "%s:%u: column %u: expected %s in '%s'",
                           r->path, in.no, (unsigned)(at - line) + 1, want,
                           ip_excerpt(s, e, ex));
        }
        if (!add_op(r, kind, key, value, in.no))
            return false;
    }
    return true;
}

ip_trace *ip_read_awdit_test(const char *path, const char *data, size_t len,
                             ip_mode mode, ip_error *err)
{
    awdit_reader r = {.path = path, .session = IP_NONE, .txn = IP_NONE,
                      .err = err};
    r.b = ip_builder_new(path, "init", mode);
    if (!r.b) {
        ip_oom(err, "out of memory");
        return NULL;
    }
    ip_builder_reserve(r.b, len / 6, len / 6);     /* "r 0 0\n" */
    if (!read_lines(&r, data, len)) {
        ip_builder_free(r.b);
        return NULL;
    }
    return ip_builder_finish(r.b, err);
}
