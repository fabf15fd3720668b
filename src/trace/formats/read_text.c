/*
 * read_text.c - reader of the isopredict-text format, the traces of the
 * original IsoPredict artifact.  One operation a line:
 *
 *   WRITE KEY[k] Txn(s, i)
 *   READ KEY[k] Txn(s, i) From(s', j)
 *   INSERT[d] to Set[S] Txn(s, i)              a write of key "Set(S:d)"
 *   DELETE[d] from Set[S] Txn(s, i)            a write of key "Set(S:d)"
 *   CONTAINS[d] in Set[S] From(s', j) Txn(s, i)  a read of key "Set(S:d)"
 *
 * Txn(s, i) is the i-th transaction of session s; its name is "s, i" and
 * its session's name is "s".  Session 0 holds only the initial transaction
 * "0, 0": its WRITE lines merely list initial writes (txn 0 writes every
 * key anyway) and files may leave them out.  Transactions of a session are
 * ordered by their first line, ops by line order; a read may name a writer
 * that appears later in the file, since the builder resolves names at the
 * end.  Blank lines are ignored, anything else is an error at file:line.
 */
#include "idmap.h"
#include "lines.h"
#include "formats.h"

#include <stdlib.h>
#include <string.h>

#define INIT_NAME "0, 0"

typedef struct txn_ref {
    uint64_t s, i;
} txn_ref;

typedef struct text_line {
    uint8_t kind;             /* ip_op_kind */
    txn_ref owner, from;
    const char *key, *key_end;    /* KEY[k] or the set element d */
    const char *set, *set_end;    /* set name S, NULL for plain keys */
} text_line;

/* A cursor over one line; on a mismatch `want` says what was expected,
 * quoted in the message when `literal`. */
typedef struct cursor {
    const char *p, *e;
    const char *want;
    bool literal;
} cursor;

static bool expect(cursor *c, const char *lit)
{
    size_t n = strlen(lit);
    c->p = ip_skip_spaces(c->p, c->e);
    if ((size_t)(c->e - c->p) >= n && memcmp(c->p, lit, n) == 0) {
        c->p += n;
        return true;
    }
    c->want = lit;
    c->literal = true;
    return false;
}

/* The non-empty text up to the next ']', which is consumed. */
static bool bracketed(cursor *c, const char **s, const char **e)
{
    const char *close = memchr(c->p, ']', (size_t)(c->e - c->p));
    if (!close || close == c->p) {
        c->want = close ? "a name before ']'" : "']'";
        return false;
    }
    /* names become JSON strings and C strings: no NUL or control bytes */
    for (const char *q = c->p; q < close; q++) {
        if ((unsigned char)*q < 0x20 || *q == 0x7f) {
            c->p = q;
            c->want = "a printable name (found a control byte)";
            return false;
        }
    }
    *s = c->p;
    *e = close;
    c->p = close + 1;
    return true;
}

static bool number(cursor *c, uint64_t *out)
{
    c->p = ip_skip_spaces(c->p, c->e);
    if (ip_scan_u64(&c->p, c->e, out))
        return true;
    c->want = "an unsigned decimal number (at most 20 digits)";
    return false;
}

/* "Txn(" or "From(" followed by "s, i)" */
static bool txn_ref_at(cursor *c, const char *open, txn_ref *r)
{
    return expect(c, open) && number(c, &r->s) && expect(c, ",") &&
           number(c, &r->i) && expect(c, ")");
}

static bool keyword(cursor *c, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(c->e - c->p) >= n && memcmp(c->p, word, n) == 0;
}

/* Parse one non-blank line into *l; false with c->want set. */
static bool parse_line(cursor *c, text_line *l)
{
    l->set = l->set_end = NULL;
    c->p = ip_skip_spaces(c->p, c->e);
    if (keyword(c, "WRITE") || keyword(c, "READ")) {
        l->kind = keyword(c, "READ") ? IP_READ : IP_WRITE;
        c->p += l->kind == IP_READ ? 4 : 5;
        if (!expect(c, "KEY[") || !bracketed(c, &l->key, &l->key_end) ||
            !txn_ref_at(c, "Txn(", &l->owner))
            return false;
        if (l->kind == IP_READ && !txn_ref_at(c, "From(", &l->from))
            return false;
    } else if (keyword(c, "INSERT") || keyword(c, "DELETE")) {
        bool insert = keyword(c, "INSERT");
        l->kind = IP_WRITE;
        c->p += 6;
        if (!expect(c, "[") || !bracketed(c, &l->key, &l->key_end) ||
            !expect(c, insert ? "to" : "from") || !expect(c, "Set[") ||
            !bracketed(c, &l->set, &l->set_end) ||
            !txn_ref_at(c, "Txn(", &l->owner))
            return false;
    } else if (keyword(c, "CONTAINS")) {
        l->kind = IP_READ;
        c->p += 8;
        if (!expect(c, "[") || !bracketed(c, &l->key, &l->key_end) ||
            !expect(c, "in") || !expect(c, "Set[") ||
            !bracketed(c, &l->set, &l->set_end) ||
            !txn_ref_at(c, "From(", &l->from) ||
            !txn_ref_at(c, "Txn(", &l->owner))
            return false;
    } else {
        c->want = "WRITE, READ, INSERT, DELETE or CONTAINS";
        return false;
    }
    c->p = ip_skip_spaces(c->p, c->e);
    if (c->p != c->e) {
        c->want = "the end of the line";
        return false;
    }
    return true;
}

/* The literal lit at *p: moved past it. */
static bool take(const char **p, const char *e, const char *lit, size_t n)
{
    if ((size_t)(e - *p) < n || memcmp(*p, lit, n))
        return false;
    *p += n;
    return true;
}

/* "s, i)" at *p (after "Txn(" or "From("). */
static bool plain_ref(const char **p, const char *e, txn_ref *r)
{
    return ip_scan_u64(p, e, &r->s) && take(p, e, ", ", 2) &&
           ip_scan_u64(p, e, &r->i) && take(p, e, ")", 1);
}

/* Nearly every line is "READ KEY[k] Txn(s, i) From(s', j)" or "WRITE
 * KEY[k] Txn(s, i)" with single spaces: such a line is read here in one
 * pass.  Anything else - other spacing, sets, anything wrong - is left to
 * parse_line, which reads it the same way and words every error. */
static bool plain_line(const char *p, const char *e, text_line *l)
{
    bool read = take(&p, e, "READ KEY[", 9);
    if (!read && !take(&p, e, "WRITE KEY[", 10))
        return false;
    *l = (text_line){.kind = read ? IP_READ : IP_WRITE};
    cursor c = {.p = p, .e = e};
    if (!bracketed(&c, &l->key, &l->key_end))
        return false;
    p = c.p;
    return take(&p, e, " Txn(", 5) && plain_ref(&p, e, &l->owner) &&
           (!read || (take(&p, e, " From(", 6) &&
                      plain_ref(&p, e, &l->from))) &&
           p == e;
}

/* Reader state: the builder, a session map and reusable name buffers.
 * Transactions are found by number within their session: i counts up
 * from 0 or 1 in each session, so every session's map is a direct array
 * (one map keyed by (s, i) together would hash, and miss the cache). */
typedef struct text_reader {
    const char *path;
    ip_builder *b;
    ip_idmap sessions;        /* session number -> builder session */
    ip_idmap *txns;           /* per builder session: i -> builder handle */
    uint32_t n_txn_maps;
    txn_ref last;             /* the previous line's owner ... */
    uint32_t last_h;          /* ... and its handle, or IP_NONE */
    char *key;                /* key text of the current line */
    size_t key_cap;
    ip_error *err;
} text_reader;

static void txn_name(txn_ref r, char buf[48])
{
    size_t n = ip_u64_text(r.s, buf);
    buf[n++] = ',';
    buf[n++] = ' ';
    ip_u64_text(r.i, buf + n);
}

static bool key_text(text_reader *r, const text_line *l)
{
    size_t klen = (size_t)(l->key_end - l->key);
    size_t slen = l->set ? (size_t)(l->set_end - l->set) : 0;
    size_t need = klen + slen + 8;
    if (need > r->key_cap) {
        char *k = realloc(r->key, need);
        if (!k)
            return ip_oom(r->err, "out of memory");
        r->key = k;
        r->key_cap = need;
    }
    if (!l->set) {
        memcpy(r->key, l->key, klen);
        r->key[klen] = '\0';
    } else {
        /* "Set(S:d)": one key per (set, element) pair */
        char *p = r->key;
        memcpy(p, "Set(", 4), p += 4;
        memcpy(p, l->set, slen), p += slen;
        *p++ = ':';
        memcpy(p, l->key, klen), p += klen;
        memcpy(p, ")", 2);
    }
    return true;
}

/* The handle of a declared transaction, or IP_NONE. */
static uint32_t known_txn(const text_reader *r, txn_ref t)
{
    if (t.s == 0 && t.i == 0)
        return IP_INIT_TXN;
    uint32_t s = ip_idmap_get(&r->sessions, t.s);
    return s == IP_NONE ? IP_NONE : ip_idmap_get(&r->txns[s], t.i);
}

/* The builder session of session number s, declared on first sight. */
static uint32_t session_handle(text_reader *r, uint64_t s)
{
    uint32_t h = ip_idmap_get(&r->sessions, s);
    if (h != IP_NONE)
        return h;
    char sname[24];
    ip_u64_text(s, sname);
    h = ip_builder_session(r->b, sname, r->err);
    if (h == IP_NONE)
        return IP_NONE;
    if (h >= r->n_txn_maps) {
        uint32_t n = r->n_txn_maps ? 2 * r->n_txn_maps : 16;
        ip_idmap *m = realloc(r->txns, n * sizeof *m);
        if (!m)
            return ip_oom(r->err, "out of memory"), IP_NONE;
        for (uint32_t i = r->n_txn_maps; i < n; i++)
            m[i] = (ip_idmap){0};
        r->txns = m;
        r->n_txn_maps = n;
    }
    if (!ip_idmap_put(&r->sessions, s, h))
        return ip_oom(r->err, "out of memory"), IP_NONE;
    return h;
}

/* The builder handle of the owner, declaring session and txn on first
 * sight. */
static uint32_t owner_handle(text_reader *r, txn_ref o, uint32_t line)
{
    if (r->last_h != IP_NONE && o.s == r->last.s && o.i == r->last.i)
        return r->last_h;     /* a transaction's lines mostly come together */
    uint32_t h = known_txn(r, o);
    if (h != IP_NONE) {
        r->last = o;
        return r->last_h = h;
    }
    char name[48];
    txn_name(o, name);
    uint32_t s = session_handle(r, o.s);
    if (s == IP_NONE)
        return IP_NONE;
    h = ip_builder_txn(r->b, s, name, IP_COMMITTED, line, r->err);
    if (h != IP_NONE && !ip_idmap_put(&r->txns[s], o.i, h))
        return ip_oom(r->err, "out of memory"), IP_NONE;
    r->last = o;
    return r->last_h = h;
}

static bool add_line(text_reader *r, const text_line *l, uint32_t line)
{
    if (l->owner.s == 0 && l->owner.i == 0) {
        if (l->kind == IP_READ)
            return ip_fail(r->err, "%s:%u: the initial transaction "
                           "Txn(0, 0) cannot read", r->path, line);
        return true;          /* an initial write: implicit in txn 0 */
    }
    if (l->owner.s == 0)
        return ip_fail(r->err, "%s:%u: session 0 holds only the initial "
                       "transaction Txn(0, 0)", r->path, line);
    uint32_t h = owner_handle(r, l->owner, line);
    if (h == IP_NONE || !key_text(r, l))
        return false;
    /* a writer seen before by its handle, else by name (it may come
     * later in the file) */
    uint32_t w = l->kind == IP_READ ? known_txn(r, l->from) : IP_NONE;
    if (l->kind != IP_READ || w != IP_NONE)
        return ip_builder_op_from_id(r->b, h, (ip_op_kind)l->kind, r->key,
                                     NULL, w, line, r->err);
    char from[48];
    txn_name(l->from, from);
    return ip_builder_op(r->b, h, IP_READ, r->key, NULL, from, line, r->err);
}

static bool read_lines(text_reader *r, const char *data, size_t len)
{
    ip_lines in;
    const char *s, *e;
    ip_lines_init(&in, data, len);
    while (ip_lines_next(&in, &s, &e)) {
        if (ip_skip_spaces(s, e) == e)
            continue;
        cursor c = {.p = s, .e = e};
        text_line l;
        if (!plain_line(s, e, &l) && !parse_line(&c, &l)) {
            char ex[64];
            const char *q = c.literal ? "'" : "";
            return ip_fail(r->err, "%s:%u: column %u: expected %s%s%s in "
                           "'%s'", r->path, in.no, (unsigned)(c.p - s) + 1,
                           q, c.want, q, ip_excerpt(s, e, ex));
        }
        if (!add_line(r, &l, in.no))
            return false;
    }
    return true;
}

ip_trace *ip_read_isopredict_text(const char *path, const char *data,
                                  size_t len, ip_mode mode, ip_error *err)
{
    text_reader r = {.path = path, .last_h = IP_NONE, .err = err};
    r.b = ip_builder_new(path, INIT_NAME, mode);
    if (!r.b) {
        ip_oom(err, "out of memory");
        return NULL;
    }
    ip_builder_reserve(r.b, len / 20, len / 20);  /* "WRITE KEY[k] Txn(1,1)" */
    bool ok = read_lines(&r, data, len);
    ip_idmap_free(&r.sessions);
    for (uint32_t i = 0; i < r.n_txn_maps; i++)
        ip_idmap_free(&r.txns[i]);
    free(r.txns);
    free(r.key);
    if (!ok) {
        ip_builder_free(r.b);
        return NULL;
    }
    return ip_builder_finish(r.b, err);
}
