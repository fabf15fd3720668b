/*
 * json_scan.h - a cursor over JSON text (RFC 8259) that checks and skips
 * tokens without allocating: whitespace, strings, numbers, literals and
 * whole values, nesting limited as cJSON limits it.  The one definition
 * of JSON syntax in the project: ip_json_syntax_ok is a skip of one value,
 * and the trace reader (read_json.c) walks documents with it.  Internal
 * to src/trace.
 *
 * On failure a function returns false with s->i at the first byte that
 * cannot belong to JSON (s->n at the end of the input).
 */
#ifndef ISOPREDICT_JSON_SCAN_H
#define ISOPREDICT_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

enum { JS_MAX_DEPTH = 1000 };  /* cJSON's CJSON_NESTING_LIMIT */

typedef struct js_cursor {
    const char *p;
    size_t n, i;
    unsigned depth;           /* containers open around the cursor */
} js_cursor;

/* A string token: [start, end) is its content between the quotes. */
typedef struct js_string {
    size_t start, end;
    bool escaped;             /* holds a backslash: content is not text */
} js_string;

static inline bool js_is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* The first offset from i on in p[0, n) that is not whitespace. */
static inline size_t js_skip_ws(const char *p, size_t i, size_t n)
{
    while (i < n && js_is_ws(p[i]))
        i++;
    return i;
}

static inline void js_ws(js_cursor *s)
{
    s->i = js_skip_ws(s->p, s->i, s->n);
}

static inline bool js_at(const js_cursor *s, char c)
{
    return s->i < s->n && s->p[s->i] == c;
}

/* The string at the cursor (which is at its opening quote). */
bool js_scan_string(js_cursor *s, js_string *out);
bool js_scan_number(js_cursor *s);
/* Any one value at the cursor, nested containers included. */
bool js_skip_value(js_cursor *s);

#endif
