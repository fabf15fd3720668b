/*
 * lines.h - line cursor and small scanners shared by the text readers
 * (isopredict-text, plume, awdit-test, dbcop).  Internal to
 * src/trace/formats.
 *
 * The input is a buffer that need not be NUL-terminated and may hold any
 * bytes; every scanner takes an explicit end pointer and never reads past
 * it.  Lines end at '\n'; a trailing '\r' is dropped so that CRLF files
 * read like LF files.
 */
#ifndef ISOPREDICT_LINES_H
#define ISOPREDICT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ip_lines {
    const char *p, *end;      /* unread input */
    uint32_t no;              /* number of the line last returned */
} ip_lines;

static inline void ip_lines_init(ip_lines *l, const char *data, size_t len)
{
    l->p = data;
    l->end = data + len;
    l->no = 0;
}

/* Next line as [*s, *e) without its terminator; false at end of input. */
static inline bool ip_lines_next(ip_lines *l, const char **s, const char **e)
{
    if (l->p >= l->end)
        return false;
    const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
    const char *stop = nl ? nl : l->end;
    *s = l->p;
    *e = stop > l->p && stop[-1] == '\r' ? stop - 1 : stop;
    l->p = nl ? nl + 1 : l->end;
    l->no++;
    return true;
}

static inline bool ip_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline const char *ip_skip_spaces(const char *p, const char *e)
{
    while (p < e && ip_is_space(*p))
        p++;
    return p;
}

static inline const char *ip_trim_end(const char *s, const char *e)
{
    while (e > s && ip_is_space(e[-1]))
        e--;
    return e;
}

/* The next line that is not blank, without the spaces at either end, as
 * [*s, *e); *line is where the line starts, columns count from there.
 * False at the end of the input.  (The loop of the one-op-a-line readers,
 * plume and awdit-test.) */
static inline bool ip_lines_next_op(ip_lines *l, const char **line,
                                    const char **s, const char **e)
{
    while (ip_lines_next(l, line, e)) {
        *s = ip_skip_spaces(*line, *e);
        *e = ip_trim_end(*s, *e);
        if (*s != *e)
            return true;
    }
    return false;
}

/* Unsigned decimal at *pp: at least one digit, no sign; false on no digit
 * or overflow of uint64 (then *pp is left unchanged). */
static inline bool ip_scan_u64(const char **pp, const char *e, uint64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    if (p >= e || *p < '0' || *p > '9')
        return false;
    for (; p < e && *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *pp = p;
    *out = v;
    return true;
}

/* A printable excerpt of [s, e) for messages: at most 60 bytes, control
 * and non-ASCII bytes shown as '?', so that garbage input cannot garble
 * the terminal. */
static inline const char *ip_excerpt(const char *s, const char *e,
                                     char buf[64])
{
    size_t n = (size_t)(e - s);
    bool cut = n > 60;
    if (cut)
        n = 57;
    for (size_t i = 0; i < n; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    if (cut)
        memcpy(buf + n, "...", 3), n += 3;
    buf[n] = '\0';
    return buf;
}

#endif
