/*
 * json_members.c - the token level of the JSON reader (json_reader.h):
 * values taken whole, objects and arrays entered member by member, member
 * names matched against a level's fields (with a "did you mean" for a
 * typo), tool fields kept as cJSON prints them, and the texts the trace
 * keeps - verbatim where cJSON would print them so, through cJSON
 * otherwise.
 */
#include "json_reader.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Edit distance of two short names, capped: only "close or not" counts. */
static unsigned distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    unsigned d[32][32];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins)
                                : (del < ins ? del : ins);
        }
    return d[la][lb];
}

/* The known name nearest to `name`, if it is a plausible typo of it. */
static const char *nearest(const field_set *fs, const char *name)
{
    const char *best = NULL;
    unsigned bd = 3;
    const char *const *lists[2] = { fs->model, fs->tool };
    for (int l = 0; l < 2; l++)
        for (const char *const *n = lists[l]; *n; n++) {
            unsigned d = distance(name, *n);
            if (d < bd && d < strlen(*n)) {
                bd = d;
                best = *n;
            }
        }
    return best;
}

static bool unknown_field(json_reader *r, const field_set *fs,
                          const char *where, const char *name)
{
    const char *near = nearest(fs, name);
    const char *sep = where[0] ? "." : "";
    if (near)
        return ip_fail(r->err, "%s: %s%s%s: unknown field; did you mean "
                       "\"%s\"?", r->path, where, sep, name, near);
    char known[160] = "";
    const char *const *lists[2] = { fs->model, fs->tool };
    for (int l = 0; l < 2; l++)
        for (const char *const *n = lists[l]; *n; n++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s%s",
                     used ? ", " : "", *n);
        }
    return ip_fail(r->err, "%s: %s%s%s: unknown field (known here: %s; data "
                   "for other tools goes in \"meta\")", r->path, where, sep,
                   name, known);
}

bool jr_bad_json(json_reader *r)
{
    r->syntax = true;
    return false;
}

/* Append n bytes to the text buffer; their offset, or SIZE_MAX when out
 * of memory. */
static size_t add_bytes(json_reader *r, const char *s, size_t n)
{
    text_buf *t = &r->text;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->n + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p)
            return SIZE_MAX;
        t->p = p;
        t->cap = cap;
    }
    size_t at = t->n;
    memcpy(t->p + at, s, n);
    t->n += n;
    return at;
}

/* The same, as a NUL-terminated text. */
size_t jr_put_text(json_reader *r, const char *s, size_t n)
{
    size_t at = add_bytes(r, s, n);
    if (at != SIZE_MAX)
        r->text.p[r->text.n++] = '\0';  /* add_bytes left room for it */
    return at;
}

/* Bytes [start, end) parsed alone by cJSON: escaped strings and unusual
 * numbers go this way, so that their text is exactly what cJSON makes of
 * them (cJSON prints the values the trace keeps). */
static cJSON *parse_alone(const json_reader *r, size_t start, size_t end)
{
    return cJSON_ParseWithLength(r->data + start, end - start);
}

/* The content of a string token as text (escapes decoded); offset into
 * r->text, or SIZE_MAX (r->err or r->syntax set). */
size_t jr_string_text(json_reader *r, const js_string *s)
{
    if (!s->escaped) {
        size_t at = jr_put_text(r, r->data + s->start, s->end - s->start);
        return at == SIZE_MAX ? (jr_oom(r), at) : at;
    }
    cJSON *v = parse_alone(r, s->start - 1, s->end + 1);
    size_t at = SIZE_MAX;
    if (!v && ip_json_syntax_ok(r->data + s->start - 1,
                                s->end - s->start + 2, NULL))
        jr_oom(r);
    else if (!v)                  /* a \u escape cJSON cannot decode */
        r->c.i = s->start - 1, jr_bad_json(r);
    else if ((at = jr_put_text(r, v->valuestring, strlen(v->valuestring))) ==
             SIZE_MAX)
        jr_oom(r);
    cJSON_Delete(v);
    return at;
}

bool jr_plain_integer(const char *s, const char *e)
{
    if (s < e && *s == '-')
        s++;
    if (e - s < 1 || e - s > 15 || (*s == '0' && e - s > 1))
        return false;
    if (*s == '0' && s[-1] == '-')
        return false;
    for (; s < e; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The JSON text of a scalar as the trace keeps it (cJSON's unformatted
 * print: strings keep their quotes, so a value round-trips with its
 * type); offset into r->text, or SIZE_MAX. */
size_t jr_scalar_text(json_reader *r, const tok *v)
{
    const char *s = r->data + v->start, *e = r->data + v->end;
    bool verbatim = v->kind == T_LITERAL ||
                    (v->kind == T_STRING && !v->str.escaped) ||
                    (v->kind == T_NUMBER && jr_plain_integer(s, e));
    if (verbatim) {
        size_t at = jr_put_text(r, s, (size_t)(e - s));
        return at == SIZE_MAX ? (jr_oom(r), at) : at;
    }
    cJSON *item = parse_alone(r, v->start, v->end);
    char *text = item ? cJSON_PrintUnformatted(item) : NULL;
    size_t at = text ? jr_put_text(r, text, strlen(text)) : SIZE_MAX;
    if (at == SIZE_MAX && (!item || ip_json_syntax_ok(s, (size_t)(e - s),
                                                      NULL)))
        jr_oom(r);
    else if (at == SIZE_MAX)
        r->c.i = v->start, jr_bad_json(r);
    cJSON_free(text);
    cJSON_Delete(item);
    return at;
}

/* The value at the cursor, checked and skipped, as a tok. */
bool jr_take_value(json_reader *r, tok *v)
{
    js_cursor *c = &r->c;
    v->start = c->i;
    v->kind = T_NONE;
    if (c->i < c->n) {
        switch (c->p[c->i]) {
        case '"':
            v->kind = T_STRING;
            if (!js_scan_string(c, &v->str))
                return jr_bad_json(r);
            v->end = c->i;
            return true;
        case '{': v->kind = T_OBJECT; break;
        case '[': v->kind = T_ARRAY; break;
        case 't': case 'f': case 'n': v->kind = T_LITERAL; break;
        default: v->kind = T_NUMBER; break;
        }
    }
    if (!js_skip_value(c))
        return jr_bad_json(r);
    v->end = c->i;
    return true;
}

/* ---- objects ---------------------------------------------------------- */

/* Open the object at the cursor; false (not an object) leaves it there. */
bool jr_open_object(json_reader *r)
{
    if (!js_at(&r->c, '{'))
        return false;
    r->c.i++;
    return true;
}

/* Step to the next item of the container at hand: 0 at its `close`
 * (consumed), 1 at the item (after the comma, for all but the first),
 * -1 on bad JSON. */
static int next_item(json_reader *r, bool *first, char close)
{
    js_cursor *c = &r->c;
    js_ws(c);
    if (js_at(c, close)) {
        c->i++;
        return 0;
    }
    if (!*first) {
        if (!js_at(c, ','))
            return jr_bad_json(r), -1;
        c->i++;
        js_ws(c);
    }
    *first = false;
    return 1;
}

/* The next member's name, the cursor left at its value: 1; the object's
 * end (consumed): 0; bad JSON: -1.  *first tracks the comma rule. */
int jr_next_member(json_reader *r, bool *first, js_string *name)
{
    js_cursor *c = &r->c;
    int k = next_item(r, first, '}');
    if (k <= 0)
        return k;
    if (!js_at(c, '"') || !js_scan_string(c, name))
        return jr_bad_json(r), -1;
    js_ws(c);
    if (!js_at(c, ':'))
        return jr_bad_json(r), -1;
    c->i++;
    js_ws(c);
    return 1;
}

/* Open the array at the cursor for jr_next_element. */
bool jr_open_array(json_reader *r)
{
    if (!js_at(&r->c, '['))
        return false;
    r->c.i++;
    return true;
}

/* The next element, cursor at it: 1; the end (consumed): 0; bad: -1. */
int jr_next_element(json_reader *r, bool *first)
{
    return next_item(r, first, ']');
}

/* The member's name as text: its bytes when plain, else decoded into a
 * buffer the caller frees (*owned). */
static const char *name_text(json_reader *r, const js_string *n, char **owned,
                             char small[64])
{
    *owned = NULL;
    size_t len = n->end - n->start;
    if (!n->escaped && len < 64) {
        memcpy(small, r->data + n->start, len);
        small[len] = '\0';
        return small;
    }
    size_t mark = r->text.n;
    size_t at = jr_string_text(r, n);
    if (at == SIZE_MAX)
        return NULL;
    *owned = strdup(r->text.p + at);
    r->text.n = mark;
    if (!*owned)
        jr_oom(r);
    return *owned;
}

/* Which name of `names` the member has, or -1. */
static int name_index(json_reader *r, const js_string *n,
                      const char *const *names)
{
    size_t len = n->end - n->start;
    const char *s = r->data + n->start;
    char small[64], *owned = NULL;
    if (n->escaped && !(s = name_text(r, n, &owned, small)))
        return -2;
    if (n->escaped)
        len = strlen(s);
    int found = -1;
    for (int i = 0; names[i] && found < 0; i++) {
        const char *a = names[i];     /* inline: this runs for each member */
        size_t k = 0;
        while (k < len && a[k] == s[k])
            k++;
        if (k == len && a[k] == '\0')
            found = i;
    }
    free(owned);
    return found;
}

/* Classify a member of an object of field set fs: its index among the
 * model's fields (>= 0), TOOL (kept in r->extras), UNKNOWN, or ERROR. */
int jr_classify(json_reader *r, const field_set *fs, const js_string *n,
                size_t *unknown_at)
{
    int m = name_index(r, n, fs->model);
    if (m >= 0)
        return m;
    if (m == -2)
        return ERROR;
    int t = name_index(r, n, fs->tool);
    if (t == -2)
        return ERROR;
    if (t >= 0)
        return TOOL;
    if (*unknown_at == SIZE_MAX)
        *unknown_at = n->start;
    return UNKNOWN;
}

/* The error for the first unknown member (strict mode only). */
bool jr_unknown_member(json_reader *r, const field_set *fs,
                       const char *where, size_t name_at)
{
    js_cursor c = {r->data, r->c.n, name_at - 1, 0};
    js_string n;
    js_scan_string(&c, &n);
    char small[64], *owned;
    const char *name = name_text(r, &n, &owned, small);
    bool ok = name && unknown_field(r, fs, where, name);
    free(owned);
    return ok;
}

/* Keep the tool fields collected at `level` with entity at/handle, as the
 * compact JSON object cJSON prints (their bytes parsed by cJSON once). */
bool jr_keep_extras(json_reader *r, int level, ip_extra_at at,
                    uint32_t handle)
{
    member_list *l = &r->extras[level];
    if (l->n == 0)
        return true;
    size_t mark = r->text.n;
    bool ok = true;
    for (uint32_t i = 0; i < l->n && ok; i++) {
        const member *m = &l->m[i];
        ok = add_bytes(r, i ? ",\"" : "{\"", 2) != SIZE_MAX &&
             add_bytes(r, r->data + m->name.start,
                       m->name.end - m->name.start) != SIZE_MAX &&
             add_bytes(r, "\":", 2) != SIZE_MAX &&
             add_bytes(r, r->data + m->start, m->end - m->start) != SIZE_MAX;
    }
    l->n = 0;
    if (!ok || add_bytes(r, "}", 1) == SIZE_MAX)
        return jr_oom(r);
    cJSON *obj = cJSON_ParseWithLength(r->text.p + mark, r->text.n - mark);
    char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;
    r->text.n = mark;
    ok = text ? jr_feed_extra(r, at, handle, text) : jr_oom(r);
    cJSON_free(text);
    cJSON_Delete(obj);
    return ok;
}

/* Collect a tool field's value at `level`. */
bool jr_add_extra(json_reader *r, int level, const js_string *name)
{
    member_list *l = &r->extras[level];
    tok v;
    if (!jr_take_value(r, &v))
        return false;
    if (l->n == l->cap && !ip_grow((void **)&l->m, &l->cap, sizeof *l->m))
        return jr_oom(r);
    l->m[l->n++] = (member){*name, v.start, v.end};
    return true;
}

bool jr_type_error(json_reader *r, const char *where, const char *what)
{
    return ip_fail(r->err, "%s: %s: %s", r->path, where, what);
}
