/*
 * json_fast.c - plain ops and plain transaction heads, read in one pass.
 *
 * Nearly every op of a real trace looks the same: "op", "key", "value"
 * and "from" in some order, strings without escapes, small integers.
 * jr_plain_op reads such an object straight from the bytes and hands it
 * to the builder; anything else - another member, a repeated one, an
 * escape, a list of candidates, a number cJSON would print differently,
 * anything wrong at all - leaves the cursor where it was and the general
 * reader (read_op in read_json.c) reads the object and says what is
 * wrong.  So this file decides nothing the general reader does not: it
 * only skips its bookkeeping (member lists, copies of every text).  The
 * same for the start of a transaction, up to its ops (jr_plain_txn_head).
 *
 * Objects of a file are nearly always laid out alike, so the layout
 * costs a few compares per object instead of a scan of every member and
 * every byte of whitespace: ops and heads in the layout `convert` writes
 * are matched as literals around their texts (canonical_members,
 * canonical_head); in any other layout, the shape of the last plain read,
 * write and head (their bytes outside the texts, jr_shape) is learnt and
 * the next ones matched against it (match_shape).  A shape is learnt only
 * from an object the plain path accepted, so matching it accepts nothing
 * that path would not.
 */
#include "json_reader.h"

#include <stdint.h>
#include <string.h>

/* A value's bytes: a string's content, or a number's or literal's text. */
typedef struct span {
    const char *s;
    size_t n;
    bool string;
} span;

/* The literal lit (a string constant) at p[*j], p[0, n): *j moved past it. */
#define TAKE(p, j, n, lit)                                                  \
    ((n) - *(j) >= sizeof(lit) - 1 && !memcmp((p) + *(j), lit,              \
                                               sizeof(lit) - 1) &&           \
     (*(j) += sizeof(lit) - 1, true))

static uint64_t load64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t load32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The bytes that end a plain string's scan: its closing quote, and those
 * that make it not plain (a backslash, a control byte). */
static bool stops_string(unsigned char c)
{
    return c == '"' || c == '\\' || c < 0x20;
}

/* The string at p[*i] (its opening quote) when it is plain: no escape, no
 * control byte, at most JR_PLAIN_MAX bytes. */
static bool plain_string(const char *p, size_t *i, size_t n, span *out)
{
    size_t j = *i + 1;
    size_t end = j + JR_PLAIN_MAX + 1 < n ? j + JR_PLAIN_MAX + 1 : n;
    while (j < end && !stops_string((unsigned char)p[j]))
        j++;
    if (j == end || p[j] != '"')
        return false;
    *out = (span){.s = p + *i + 1, .n = j - *i - 1, .string = true};
    *i = j + 1;
    return true;
}

static bool delimiter(char c)
{
    return c == ',' || c == '}' || js_is_ws(c);
}

/* A scalar value whose text the trace keeps verbatim: a plain string, an
 * integer cJSON prints as written, true, false or null. */
static bool plain_scalar(const char *p, size_t *i, size_t n, span *out)
{
    if (*i >= n)              /* the input ends after the member's name */
        return false;
    if (p[*i] == '"')
        return plain_string(p, i, n, out);
    size_t j = *i;
    if (p[j] == '-' || (p[j] >= '0' && p[j] <= '9')) {
        for (j++; j < n && p[j] >= '0' && p[j] <= '9'; j++)
            ;
        if (!jr_plain_integer(p + *i, p + j))
            return false;
    } else {
        for (; j < n && p[j] >= 'a' && p[j] <= 'z'; j++)
            ;
        size_t len = j - *i;
        if (!((len == 4 && (!memcmp(p + *i, "true", 4) ||
                            !memcmp(p + *i, "null", 4))) ||
              (len == 5 && !memcmp(p + *i, "false", 5))))
            return false;
    }
    if (j >= n || !delimiter(p[j]))
        return false;
    *out = (span){.s = p + *i, .n = j - *i, .string = false};
    *i = j;
    return true;
}

enum { M_OP, M_KEY, M_VALUE, M_FROM, N_MEMBERS };

/* The op member named at p[*j] (its opening quote), *j moved past the
 * closing quote; -1 for any other name.  Names are matched in place,
 * quotes included, without scanning them as strings first. */
static int member_at(const char *p, size_t *j, size_t n)
{
    const char *q = p + *j;
    size_t left = n - *j;
    int k = -1;
    size_t len = 0;
    if (left >= 4 && !memcmp(q, "\"op\"", 4))
        k = M_OP, len = 4;
    else if (left >= 5 && !memcmp(q, "\"key\"", 5))
        k = M_KEY, len = 5;
    else if (left >= 6 && !memcmp(q, "\"from\"", 6))
        k = M_FROM, len = 6;
    else if (left >= 7 && !memcmp(q, "\"value\"", 7))
        k = M_VALUE, len = 7;
    *j += len;
    return k;
}

/* The members of the plain object at p[*i] into m; false when it is not
 * plain (or not JSON). */
static bool plain_members(const char *p, size_t *i, size_t n,
                          span m[N_MEMBERS])
{
    size_t j = js_skip_ws(p, *i + 1, n);
    bool seen[N_MEMBERS] = {false};
    if (j < n && p[j] == '}')
        return false;             /* {}: the general reader's message */
    for (;;) {
        int k = j < n && p[j] == '"' ? member_at(p, &j, n) : -1;
        if (k < 0 || seen[k])
            return false;
        seen[k] = true;
        j = js_skip_ws(p, j, n);
        if (j >= n || p[j] != ':')
            return false;
        j = js_skip_ws(p, j + 1, n);
        if (j >= n || !plain_scalar(p, &j, n, &m[k]))
            return false;
        j = js_skip_ws(p, j, n);
        if (j < n && p[j] == '}')
            break;
        if (j >= n || p[j] != ',')
            return false;
        j = js_skip_ws(p, j + 1, n);
    }
    *i = j + 1;
    return true;
}

/* The layout `convert` writes, members in its order and no whitespace:
 * {"op":"read","key":K,"from":F,"value":V} (from and value optional) or
 * {"op":"write","key":K,"value":V} - matched as literals between the
 * texts, so that nearly every op of such a file costs a few compares. */
static bool canonical_members(const char *p, size_t *i, size_t n,
                              span m[N_MEMBERS])
{
    size_t j = *i;
    bool read = TAKE(p, &j, n, "{\"op\":\"read\",\"key\":");
    if (!read && !TAKE(p, &j, n, "{\"op\":\"write\",\"key\":"))
        return false;
    m[M_OP] = (span){.s = p + *i + 7, .n = read ? 4 : 5, .string = true};
    if (j >= n || p[j] != '"' || !plain_string(p, &j, n, &m[M_KEY]))
        return false;
    if (read && TAKE(p, &j, n, ",\"from\":") &&
        (j >= n || p[j] != '"' || !plain_string(p, &j, n, &m[M_FROM])))
        return false;
    if (TAKE(p, &j, n, ",\"value\":") && !plain_scalar(p, &j, n, &m[M_VALUE]))
        return false;
    if (j >= n || p[j] != '}')
        return false;
    *i = j + 1;
    return true;
}

/* a[0, len) == b[0, len), for the short pieces of a shape: in words (the
 * last one overlapping), where memcmp would be a call. */
static inline bool same_bytes(const char *a, const char *b, size_t len)
{
    if (len > 16) {
        for (size_t i = 0; len - i > 16; i += 16)
            if (load64(a + i) != load64(b + i) ||
                load64(a + i + 8) != load64(b + i + 8))
                return false;
        a += len - 16, b += len - 16;
        return load64(a) == load64(b) && load64(a + 8) == load64(b + 8);
    }
    if (len >= 8)
        return load64(a) == load64(b) &&
               load64(a + len - 8) == load64(b + len - 8);
    if (len >= 4)
        return load32(a) == load32(b) &&
               load32(a + len - 4) == load32(b + len - 4);
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* The piece of `len` bytes at p[*j]: *j moved past it. */
static bool take_piece(const char *p, size_t *j, size_t n, const char *piece,
                       size_t len)
{
    if (n - *j < len || !same_bytes(p + *j, piece, len))
        return false;
    *j += len;
    return true;
}

/* The object at p[*i] when it has shape sh, byte for byte outside its
 * texts: the texts into t (scalars as plain_scalar reads them, the others
 * plain strings), the word into *word; *i after the last piece. */
static bool match_shape(const jr_shape *sh, const char *p, size_t *i,
                        size_t n, span t[3], span *word)
{
    size_t j = *i;
    if (sh->len[0] == 0)
        return false;             /* nothing learnt */
    for (int x = 0;; x++) {
        size_t at = j;
        if (!take_piece(p, &j, n, sh->piece[x], sh->len[x]))
            return false;
        if (x == sh->word_piece)
            *word = (span){.s = p + at + sh->word_at, .n = sh->word_len,
                           .string = true};
        if (x == sh->n)
            break;
        if (j >= n || (sh->scalars >> x & 1
                           ? !plain_scalar(p, &j, n, &t[x])
                           : p[j] != '"' || !plain_string(p, &j, n, &t[x])))
            return false;
    }
    *i = j;
    return true;
}

/* Where a text starts and ends in the input (quotes included). */
static const char *text_start(const span *v)
{
    return v->s - v->string;
}

static const char *text_end(const span *v)
{
    return v->s + v->n + v->string;
}

/* The pieces of the object p[start, end) whose texts are t[0, n), in the
 * order met, and where the string word (if any) is in them, into sh
 * (members and scalars are the caller's); false when a piece is too
 * long. */
static bool cut_pieces(jr_shape *sh, const char *p, size_t start,
                       size_t end, const span *t, uint8_t n,
                       const span *word)
{
    sh->n = n;
    sh->word_piece = UINT8_MAX;
    const char *from = p + start;
    for (uint8_t x = 0; x <= n; x++) {
        const char *to = x < n ? text_start(&t[x]) : p + end;
        if (to - from > JR_PIECE_MAX)
            return false;
        sh->len[x] = (uint8_t)(to - from);
        memcpy(sh->piece[x], from, sh->len[x]);
        if (word && word->s >= from && word->s < to) {
            sh->word_piece = x;
            sh->word_at = (uint8_t)(word->s - from);
            sh->word_len = (uint8_t)word->n;
        }
        if (x < n)
            from = text_end(&t[x]);
    }
    return true;
}

/* The op at p[*i] when it has shape sh: its members into m. */
static bool shaped_members(const jr_shape *sh, const char *p, size_t *i,
                           size_t n, span m[N_MEMBERS])
{
    span t[3];
    if (!match_shape(sh, p, i, n, t, &m[M_OP]))
        return false;
    for (int x = 0; x < sh->n; x++)
        m[sh->member[x]] = t[x];
    return true;
}

/* Learn the shape of the plain op p[start, end) whose members are m. */
static void learn_op_shape(jr_shape *sh, const char *p, size_t start,
                           size_t end, const span m[N_MEMBERS])
{
    jr_shape new = {0};
    uint8_t *member = new.member, n = 0;
    for (uint8_t k = M_KEY; k < N_MEMBERS; k++)
        if (m[k].s)
            member[n++] = k;
    for (uint8_t x = 1; x < n; x++)          /* in the order met */
        for (uint8_t y = x; y > 0 && m[member[y - 1]].s > m[member[y]].s;
             y--) {
            uint8_t k = member[y];
            member[y] = member[y - 1];
            member[y - 1] = k;
        }
    span t[3];
    for (uint8_t x = 0; x < n; x++) {
        t[x] = m[member[x]];
        new.scalars |= (uint8_t)((member[x] == M_VALUE) << x);
    }
    if (cut_pieces(&new, p, start, end, t, n, &m[M_OP]))
        *sh = new;
}

/* The op at p[*i] in convert's layout or one of the shapes learnt: its
 * members into m.  Each try starts afresh: a failed one may have filled
 * some members. */
static bool known_layout(const json_reader *r, const char *p, size_t *i,
                         size_t n, span m[N_MEMBERS])
{
    if (canonical_members(p, i, n, m))
        return true;
    for (int s = 0; s < 2; s++) {
        memset(m, 0, N_MEMBERS * sizeof *m);
        if (shaped_members(&r->shapes[s], p, i, n, m))
            return true;
    }
    memset(m, 0, N_MEMBERS * sizeof *m);
    return false;
}

int jr_plain_op(json_reader *r, uint32_t txn)
{
    const char *p = r->c.p;
    size_t i = r->c.i, n = r->c.n;
    span m[N_MEMBERS] = {{0}};
    if (i >= n || p[i] != '{')
        return 0;
    bool fresh = !known_layout(r, p, &i, n, m);
    if (fresh && !plain_members(p, &i, n, m))
        return 0;
    const span *op = &m[M_OP], *key = &m[M_KEY], *from = &m[M_FROM];
    bool is_read = op->string && op->n == 4 && !memcmp(op->s, "read", 4);
    bool is_write = op->string && op->n == 5 && !memcmp(op->s, "write", 5);
    /* what the general reader would refuse, it refuses itself */
    if ((!is_read && !is_write) || !key->string || key->n == 0 ||
        (from->s && (is_write || !from->string || from->n == 0)))
        return 0;
    if (fresh)
        learn_op_shape(&r->shapes[is_write], p, r->c.i, i, m);
    r->c.i = i;
    /* the texts the general reader makes, in place: a plain string value
     * keeps its quotes, which are around it in the input */
    const span *value = &m[M_VALUE];
    jr_op_texts t = {.key = key->s, .klen = key->n,
                     .value = value->s ? value->s - value->string : NULL,
                     .vlen = value->n + 2 * (size_t)value->string,
                     .from = from->s, .flen = from->n};
    return jr_feed_op(r, txn, is_read ? IP_READ : IP_WRITE, &t, true) ? 1
                                                                     : -1;
}

/* `"word"` then `:` at p[*i] (whitespace around skipped): *i after it.
 * The name is compared in place: a name with an escape or another word
 * is not this one. */
static bool member_named(const char *p, size_t *i, size_t n, const char *word)
{
    size_t j = js_skip_ws(p, *i, n), len = strlen(word);
    if (n - j < len + 3 || p[j] != '"' || memcmp(p + j + 1, word, len) ||
        p[j + 1 + len] != '"')
        return false;
    j = js_skip_ws(p, j + len + 2, n);
    if (j >= n || p[j] != ':')
        return false;
    *i = js_skip_ws(p, j + 1, n);
    return true;
}

/* The plain string value at p[*i] as a js_string, then a comma. */
static bool string_then_comma(const char *p, size_t *i, size_t n,
                              js_string *out)
{
    span v;
    size_t j = *i;
    if (j >= n || p[j] != '"' || !plain_string(p, &j, n, &v))
        return false;
    *out = (js_string){.start = *i + 1, .end = j - 1, .escaped = false};
    j = js_skip_ws(p, j, n);
    if (j >= n || p[j] != ',')
        return false;
    *i = j + 1;
    return true;
}

/* The head in the layout `convert` writes, {"id":ID,"status":"committed",
 * "ops":[ (or "aborted"), matched as literals around the id. */
static bool canonical_head(const char *p, size_t i, size_t n, size_t *at,
                           js_string *id, js_string *status)
{
    span name;
    if (!TAKE(p, &i, n, "{\"id\":") || i >= n || p[i] != '"')
        return false;
    size_t open = i;
    if (!plain_string(p, &i, n, &name) || name.n == 0 ||
        !TAKE(p, &i, n, ",\"status\":"))
        return false;
    size_t st = i + 1;
    if (!TAKE(p, &i, n, "\"committed\",\"ops\":[") &&
        !TAKE(p, &i, n, "\"aborted\",\"ops\":["))
        return false;
    *id = (js_string){.start = open + 1, .end = open + 1 + name.n};
    *status = (js_string){.start = st, .end = i - 9};  /* before ",\"ops\":[" */
    *at = i - 1;
    return true;
}

/* The head in the layout of a head met before (r->head), or any, as
 * member_named reads it; the layout learnt. */
static bool shaped_head(json_reader *r, size_t *at, js_string *id,
                        js_string *status)
{
    const char *p = r->c.p;
    size_t n = r->c.n, i = r->c.i;
    span t[3], word = {0};
    if (!match_shape(&r->head, p, &i, n, t, &word) || t[0].n == 0)
        return false;
    *id = (js_string){.start = (size_t)(t[0].s - p)};
    id->end = id->start + t[0].n;
    *status = (js_string){.start = SIZE_MAX};
    if (word.s)
        *status = (js_string){.start = (size_t)(word.s - p),
                              .end = (size_t)(word.s - p) + word.n};
    *at = i - 1;
    return true;
}

bool jr_plain_txn_head(json_reader *r, size_t *at, js_string *id,
                       js_string *status)
{
    const char *p = r->c.p;
    size_t n = r->c.n, i = r->c.i;
    if (i >= n || p[i] != '{')
        return false;
    if (canonical_head(p, i, n, at, id, status) ||
        shaped_head(r, at, id, status))
        return true;
    i++;
    if (!member_named(p, &i, n, "id") || !string_then_comma(p, &i, n, id) ||
        id->end == id->start)
        return false;
    size_t j = i;
    *status = (js_string){.start = SIZE_MAX};
    if (member_named(p, &j, n, "status")) {
        if (!string_then_comma(p, &j, n, status))
            return false;
        size_t len = status->end - status->start;
        const char *v = p + status->start;
        if (!(len == 9 && !memcmp(v, "committed", 9)) &&
            !(len == 7 && !memcmp(v, "aborted", 7)))
            return false;
        i = j;
    }
    if (!member_named(p, &i, n, "ops") || i >= n || p[i] != '[')
        return false;
    *at = i;
    span t = {.s = p + id->start, .n = id->end - id->start, .string = true};
    span word = {0};
    if (status->start != SIZE_MAX)
        word = (span){.s = p + status->start,
                      .n = status->end - status->start, .string = true};
    jr_shape new = {0};
    if (cut_pieces(&new, p, r->c.i, i + 1, &t, 1, word.s ? &word : NULL))
        r->head = new;
    return true;
}
