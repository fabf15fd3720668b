/*
 * format.c - format names, format detection and the reading entry points
 * (ip_read_buffer, ip_read_file) that dispatch to the readers.  Files are
 * loaded by load.c.
 */
#include "formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    ip_format fmt;
    const char *name;
} FORMATS[] = {
    {IP_FMT_AUTO, "auto"},
    {IP_FMT_JSON, "json"},
    {IP_FMT_ISOPREDICT_TEXT, "isopredict-text"},
    {IP_FMT_PLUME, "plume"},
    {IP_FMT_AWDIT_TEST, "awdit-test"},
    {IP_FMT_DBCOP, "dbcop"},
    {IP_FMT_COBRA, "cobra"},
    {IP_FMT_ELLE, "elle"},
    {IP_FMT_DOT, "dot"},
};

#define N_FORMATS (sizeof FORMATS / sizeof FORMATS[0])

bool ip_format_parse(const char *name, ip_format *out)
{
    for (size_t i = 0; name && i < N_FORMATS; i++) {
        if (strcmp(name, FORMATS[i].name) == 0) {
            *out = FORMATS[i].fmt;
            return true;
        }
    }
    return false;
}

const char *ip_format_name(ip_format f)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (FORMATS[i].fmt == f)
            return FORMATS[i].name;
    return "unknown";
}

static bool has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    return n >= m && strcmp(path + n - m, suffix) == 0;
}

static bool starts(const char *p, const char *e, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(e - p) >= n && memcmp(p, lit, n) == 0;
}

static const char *skip_blank(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' ||
                     *p == ','))
        p++;
    return p;
}

/* EDN (a Jepsen history): ';' comments first, or a map whose first key
 * is a keyword ('{' then ':'), or a vector of such maps. */
static bool looks_edn(const char *p, const char *e)
{
    while (p < e && *p == ';') {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        p = skip_blank(nl ? nl : e, e);
    }
    if (p < e && *p == '[')
        p = skip_blank(p + 1, e);
    if (p == e || *p != '{')
        return false;
    p = skip_blank(p + 1, e);
    return p < e && *p == ':';
}

/* The format the first non-blank bytes look like, or IP_FMT_AUTO. */
static ip_format sniff(const char *data, size_t len)
{
    const char *p = data, *e = data + len;
    if (starts(p, e, "\xEF\xBB\xBF"))      /* UTF-8 byte order mark */
        p += 3;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    if (starts(p, e, ";") || looks_edn(p, e))
        return IP_FMT_ELLE;
    if (starts(p, e, "{"))
        return IP_FMT_JSON;
    static const char *const text[] = {"WRITE KEY[", "READ KEY[", "INSERT[",
                                       "DELETE[", "CONTAINS["};
    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        if (starts(p, e, text[i]))
            return IP_FMT_ISOPREDICT_TEXT;
    if (starts(p, e, "r(") || starts(p, e, "w("))
        return IP_FMT_PLUME;
    if (starts(p, e, "r ") || starts(p, e, "w ") || starts(p, e, "r\t") ||
        starts(p, e, "w\t") || starts(p, e, "-") || starts(p, e, "="))
        return IP_FMT_AWDIT_TEST;
    return IP_FMT_AUTO;
}

ip_format ip_format_detect(const char *path, const char *data, size_t len)
{
    /* .txt is shared by isopredict-text and awdit-test: sniff those */
    if (path && has_suffix(path, ".json"))
        return IP_FMT_JSON;
    if (path && has_suffix(path, ".plume"))
        return IP_FMT_PLUME;
    if (path && has_suffix(path, ".bincode"))
        return IP_FMT_DBCOP;
    if (path && has_suffix(path, ".edn"))
        return IP_FMT_ELLE;
    return sniff(data, len);
}

static ip_trace *undetected(const char *path, const char *data, size_t len,
                            ip_error *err)
{
    const char *p = data, *e = data + len;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    if (p == e)
        ip_fail(err, "%s: empty input: no trace", path);
    else if (has_suffix(path, ".xz") || has_suffix(path, ".gz") ||
             has_suffix(path, ".zst"))
        ip_fail(err, "%s: compressed input is not supported; decompress it "
                "first (e.g. xz -dk)", path);
    else
        ip_fail(err, "%s: cannot tell the trace format from the name or the "
                "first bytes; give --format json, isopredict-text, plume, "
                "awdit-test, dbcop or elle (cobra reads a directory)", path);
    return NULL;
}

ip_trace *ip_read_buffer(const char *path, const char *data, size_t len,
                         ip_format fmt, ip_mode mode, ip_error *err)
{
    if (!path)
        path = "<input>";
    if (fmt == IP_FMT_AUTO)
        fmt = ip_format_detect(path, data, len);
    switch (fmt) {
    case IP_FMT_JSON:
        return ip_read_json(path, data, len, mode, err);
    case IP_FMT_ISOPREDICT_TEXT:
        return ip_read_isopredict_text(path, data, len, mode, err);
    case IP_FMT_PLUME:
        return ip_read_plume(path, data, len, mode, err);
    case IP_FMT_AWDIT_TEST:
        return ip_read_awdit_test(path, data, len, mode, err);
    case IP_FMT_DBCOP:
        return ip_read_dbcop(path, data, len, mode, err);
    case IP_FMT_ELLE:
        return ip_read_elle(path, data, len, mode, err);
    case IP_FMT_COBRA:
        ip_fail(err, "%s: a Cobra history is a directory of *.log files, "
                "not a file", path);
        return NULL;
    case IP_FMT_DOT:
        ip_fail(err, "%s: dot is an output format; it cannot be read", path);
        return NULL;
    case IP_FMT_AUTO:
        break;
    }
    return undetected(path, data, len, err);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dbcop keeps each history in a directory of its own, as
 * DIR/history.bincode: that file, when it exists. */
static char *dbcop_file_in(const char *dir)
{
    static const char name[] = "/history.bincode";
    size_t n = strlen(dir);
    char *p = malloc(n + sizeof name);
    if (!p)
        return NULL;
    memcpy(p, dir, n);
    memcpy(p + n, name, sizeof name);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
        return p;
    free(p);
    return NULL;
}

ip_trace *ip_read_file(const char *path, ip_format fmt, ip_mode mode,
                       ip_error *err)
{
    if (is_dir(path) && (fmt == IP_FMT_AUTO || fmt == IP_FMT_DBCOP)) {
        char *file = dbcop_file_in(path);
        if (file) {
            ip_trace *t = ip_read_file(file, IP_FMT_DBCOP, mode, err);
            free(file);
            return t;
        }
    }
    if (is_dir(path) && (fmt == IP_FMT_AUTO || fmt == IP_FMT_COBRA))
        return ip_read_cobra(path, mode, err);
    ip_loaded f;
    if (!ip_load(path, &f, err))
        return NULL;
    ip_trace *t = ip_read_buffer(strcmp(path, "-") ? path : "<stdin>", f.data,
                                 f.len, fmt, mode, err);
    ip_unload(&f);
    return t;
}
