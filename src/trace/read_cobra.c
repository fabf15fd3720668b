/*
 * read_cobra.c - Cobra's client logs (../shared/DBCOP_COBRA_FORMATS.md): a
 * history is a directory whose *.log files are its sessions (in name
 * order), each a flat sequence of records - an opcode byte and big-endian
 * int64 fields: S txn | W write_id key value | R writer_txn writer_write
 * key value | C txn.  Only committed transactions are logged.  A read
 * names its writer's transaction, or INIT / NULL for the initial value, or
 * UNIVERSAL when it did not record it: then it is resolved by (key, value).
 * Errors name the file and the byte offset of the record at fault.
 */
#include "lines.h"
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    ID_INIT = 0xbebeebee,
    ID_NULL = 0xdeadbeef,
    ID_UNIVERSAL = 0xabddefee,
};

typedef struct rec {
    char op;                  /* 'S', 'W', 'R', 'C' */
    int64_t f[4];
    uint32_t file;
    size_t at;                /* byte offset in its file */
} rec;

typedef struct cobra {
    const char *dir;
    char **names;             /* sorted *.log file names */
    uint32_t n_files;
    rec *recs;
    uint32_t n_recs, cap_recs;
    int64_t *txn_ids;         /* sorted ids of the logged transactions */
    size_t n_txn_ids;
    ip_error *err;
} cobra;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool is_log(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".log");
}

static bool list_logs(cobra *c)
{
    DIR *d = opendir(c->dir);
    if (!d)
        return ip_fail(c->err, "%s: cannot open the directory: %s", c->dir,
                       strerror(errno));
    uint32_t cap = 0;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (!is_log(e->d_name))
            continue;
        if (c->n_files == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = realloc(c->names, cap * sizeof *p);
            if (!p) {
                ok = ip_fail(c->err, "%s: out of memory", c->dir);
                break;
            }
            c->names = p;
        }
        if (!(c->names[c->n_files] = strdup(e->d_name)))
            ok = ip_fail(c->err, "%s: out of memory", c->dir);
        else
            c->n_files++;
    }
    closedir(d);
    if (ok && c->n_files == 0)
        ok = ip_fail(c->err, "%s: no *.log files: not a Cobra history",
                     c->dir);
    if (ok)
        qsort(c->names, c->n_files, sizeof *c->names, cmp_name);
    return ok;
}

static int64_t be64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int k = 0; k < 8; k++)
        x = x << 8 | p[k];
    return (int64_t)x;
}

/* The records of one file, checked for shape: S, then R/W, then C with
 * the same id. */
static bool parse_file(cobra *c, uint32_t f, const unsigned char *p, size_t n)
{
    const char *name = c->names[f];
    bool open = false;
    int64_t open_id = 0;
    size_t open_at = 0;
    for (size_t i = 0; i < n;) {
        char op = (char)p[i];
        size_t fields = op == 'S' || op == 'C' ? 1 : op == 'W' ? 3
                      : op == 'R' ? 4 : 0;
        if (!fields)
            return ip_fail(c->err, "%s/%s: byte %zu: unknown opcode 0x%02x "
                           "(S, W, R or C)", c->dir, name, i, p[i]);
        if (n - i - 1 < 8 * fields)
            return ip_fail(c->err, "%s/%s: byte %zu: truncated %c record",
                           c->dir, name, i, op);
        if ((op == 'S') == open)
            return ip_fail(c->err, "%s/%s: byte %zu: %c record %s", c->dir,
                           name, i, op, open ? "inside a transaction"
                                             : "outside a transaction");
        rec r = { .op = op, .file = f, .at = i };
        for (size_t k = 0; k < fields; k++)
            r.f[k] = be64(p + i + 1 + 8 * k);
        if (op == 'C' && r.f[0] != open_id)
            return ip_fail(c->err, "%s/%s: byte %zu: commit of transaction "
                           "t%llx inside transaction t%llx", c->dir, name, i,
                           (unsigned long long)r.f[0],
                           (unsigned long long)open_id);
        if (op == 'S') {
            open = true;
            open_id = r.f[0];
            open_at = i;
        } else if (op == 'C') {
            open = false;
        }
        if (c->n_recs == UINT32_MAX ||
            (c->n_recs == c->cap_recs &&
             !ip_grow((void **)&c->recs, &c->cap_recs, sizeof *c->recs)))
            return ip_fail(c->err, "%s: out of memory", c->dir);
        c->recs[c->n_recs++] = r;
        i += 1 + 8 * fields;
    }
    if (open)
        return ip_fail(c->err, "%s/%s: byte %zu: transaction t%llx has no "
                       "commit record", c->dir, name, open_at,
                       (unsigned long long)open_id);
    return true;
}

/* Load every log and parse it; data[f] / len[f] keep the contents. */
static bool read_files(cobra *c, char **data, size_t *len)
{
    for (uint32_t f = 0; f < c->n_files; f++) {
        size_t dl = strlen(c->dir), nl = strlen(c->names[f]);
        char *path = malloc(dl + nl + 2);
        if (!path)
            return ip_fail(c->err, "%s: out of memory", c->dir);
        memcpy(path, c->dir, dl);
        path[dl] = '/';
        memcpy(path + dl + 1, c->names[f], nl + 1);
        data[f] = ip_read_whole(path, &len[f], c->err);
        free(path);
        if (!data[f])
            return false;
    }
    return true;
}

/* Every logged transaction id, sorted; a duplicate is an error. */
static bool index_txns(cobra *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_recs; i++)
        n += c->recs[i].op == 'S';
    c->txn_ids = malloc((n + 1) * sizeof *c->txn_ids);
    if (!c->txn_ids)
        return ip_fail(c->err, "%s: out of memory", c->dir);
    for (size_t i = 0; i < c->n_recs; i++)
        if (c->recs[i].op == 'S')
            c->txn_ids[c->n_txn_ids++] = c->recs[i].f[0];
    qsort(c->txn_ids, c->n_txn_ids, sizeof *c->txn_ids, cmp_i64);
    for (size_t i = 1; i < c->n_txn_ids; i++)
        if (c->txn_ids[i] == c->txn_ids[i - 1])
            return ip_fail(c->err, "%s: transaction t%llx is logged twice",
                           c->dir, (unsigned long long)c->txn_ids[i]);
    return true;
}

static bool logged(const cobra *c, int64_t id)
{
    return bsearch(&id, c->txn_ids, c->n_txn_ids, sizeof *c->txn_ids,
                   cmp_i64) != NULL;
}

static void txn_name(int64_t id, char buf[24])
{
    snprintf(buf, 24, "t%llx", (unsigned long long)id);
}

/* The JSON scalar text of a value: ip_value_text for its magnitude. */
static const char *value_text(int64_t v, char buf[26])
{
    if (v >= 0)
        return ip_value_text((uint64_t)v, buf);
    uint64_t m = (uint64_t)0 - (uint64_t)v;
    char tmp[24];
    ip_value_text(m, tmp);
    if (tmp[0] == '"')
        snprintf(buf, 26, "\"-%s", tmp + 1);
    else
        snprintf(buf, 26, "-%s", tmp);
    return buf;
}

static bool build(cobra *c, ip_builder *b)
{
    uint32_t session = IP_NONE, txn = IP_NONE, file = UINT32_MAX;
    for (size_t i = 0; i < c->n_recs; i++) {
        const rec *r = &c->recs[i];
        char name[24], key[24], value[26];
        if (r->file != file) {
            file = r->file;
            char sname[256];
            snprintf(sname, sizeof sname, "%.*s",
                     (int)(strlen(c->names[file]) - 4), c->names[file]);
            if ((session = ip_builder_session(b, sname, c->err)) == IP_NONE)
                return false;
        }
        switch (r->op) {
        case 'S':
            txn_name(r->f[0], name);
            txn = ip_builder_txn(b, session, name, IP_COMMITTED, 0, c->err);
            if (txn == IP_NONE)
                return false;
            break;
        case 'W':
            snprintf(key, sizeof key, "%lld", (long long)r->f[1]);
            if (!ip_builder_op(b, txn, IP_WRITE, key,
                               value_text(r->f[2], value), NULL, 0, c->err))
                return false;
            break;
        case 'R': {
            int64_t w = r->f[0];
            const char *from = NULL;
            if (w == ID_INIT || w == ID_NULL) {
                from = "init";
            } else if (w != ID_UNIVERSAL) {
                if (!logged(c, w))
                    return ip_fail(c->err, "%s/%s: byte %zu: the read names "
                                   "writer transaction t%llx, which is in no "
                                   "log of the history", c->dir,
                                   c->names[r->file], r->at,
                                   (unsigned long long)w);
                txn_name(w, name);
                from = name;
            }
            snprintf(key, sizeof key, "%lld", (long long)r->f[2]);
            if (!ip_builder_op(b, txn, IP_READ, key,
                               value_text(r->f[3], value), from, 0, c->err))
                return false;
            break;
        }
        default:
            break;
        }
    }
    return true;
}

static void cobra_free(cobra *c, bool own_names)
{
    for (uint32_t f = 0; own_names && f < c->n_files; f++)
        free(c->names[f]);
    if (own_names)
        free(c->names);
    free(c->recs);
    free(c->txn_ids);
}

/* Parse the logs (already in memory, names sorted), then build. */
static ip_trace *read_logs(cobra *c, const char *const *data,
                           const size_t *len, ip_mode mode)
{
    for (uint32_t f = 0; f < c->n_files; f++)
        if (!parse_file(c, f, (const unsigned char *)data[f], len[f]))
            return NULL;
    if (!index_txns(c))
        return NULL;
    ip_builder *b = ip_builder_new(c->dir, "init", mode);
    if (!b) {
        ip_fail(c->err, "%s: out of memory", c->dir);
        return NULL;
    }
    if (!build(c, b)) {
        ip_builder_free(b);
        return NULL;
    }
    return ip_builder_finish(b, c->err);
}

ip_trace *ip_read_cobra_logs(const char *dir, const char *const *names,
                             const char *const *data, const size_t *len,
                             uint32_t n, ip_mode mode, ip_error *err)
{
    cobra c = { .dir = dir, .names = (char **)names, .n_files = n,
                .err = err };
    ip_trace *t = n ? read_logs(&c, data, len, mode)
                    : (ip_fail(err, "%s: no *.log files: not a Cobra "
                               "history", dir), NULL);
    cobra_free(&c, false);
    return t;
}

ip_trace *ip_read_cobra(const char *dir, ip_mode mode, ip_error *err)
{
    cobra c = { .dir = dir, .err = err };
    ip_trace *t = NULL;
    char **data = NULL;
    size_t *len = NULL;
    if (list_logs(&c)) {
        data = calloc(c.n_files, sizeof *data);
        len = calloc(c.n_files, sizeof *len);
        if (!data || !len)
            ip_fail(err, "%s: out of memory", dir);
        else if (read_files(&c, data, len))
            t = read_logs(&c, (const char *const *)data, len, mode);
    }
    for (uint32_t f = 0; data && f < c.n_files; f++)
        free(data[f]);
    free(data);
    free(len);
    cobra_free(&c, true);
    return t;
}
