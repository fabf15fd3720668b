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
#include "idmap.h"
#include "formats.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cobra's reserved writer ids (uint64; beyond int, so not enumerators). */
#define ID_INIT UINT64_C(0xbebeebee)
#define ID_NULL UINT64_C(0xdeadbeef)
#define ID_UNIVERSAL UINT64_C(0xabddefee)

typedef struct cobra {
    const char *dir;
    char **names;             /* sorted *.log file names */
    uint32_t n_files;
    ip_builder *b;
    ip_idmap txns;            /* Cobra txn id -> builder handle */
    ip_error *err;
} cobra;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
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
                ok = ip_oom(c->err, "%s: out of memory", c->dir);
                break;
            }
            c->names = p;
        }
        if (!(c->names[c->n_files] = strdup(e->d_name)))
            ok = ip_oom(c->err, "%s: out of memory", c->dir);
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

static uint64_t be64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int k = 0; k < 8; k++)
        x = x << 8 | p[k];
    return x;
}

/* "t" and the id in hex, as the messages name transactions; without
 * printf, since there is one a transaction. */
static const char *txn_name(uint64_t id, char buf[24])
{
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[id & 15];
        id >>= 4;
    } while (id);
    buf[0] = 't';
    for (int i = 0; i < n; i++)
        buf[1 + i] = tmp[n - 1 - i];
    buf[n + 1] = '\0';
    return buf;
}

/* Payload fields of a record with opcode op, or 0 for an unknown one. */
static size_t fields_of(unsigned char op)
{
    return op == 'S' || op == 'C' ? 1 : op == 'W' ? 3 : op == 'R' ? 4 : 0;
}

/* First pass over one file: check its shape (S, then R/W, then C with the
 * same id) and declare its session and transactions in order, so that the
 * second pass can give every read its writer's handle. */
static bool declare_file(cobra *c, uint32_t f, const unsigned char *p,
                         size_t n)
{
    const char *name = c->names[f];
    uint32_t session = IP_NONE;
    bool open = false;
    uint64_t open_id = 0;
    size_t open_at = 0;
    for (size_t i = 0; i < n;) {
        unsigned char op = p[i];
        size_t fields = fields_of(op);
        if (!fields)
            return ip_fail(c->err, "%s/%s: byte %zu: unknown opcode 0x%02x "
                           "(S, W, R or C)", c->dir, name, i, op);
        if (n - i - 1 < 8 * fields)
            return ip_fail(c->err, "%s/%s: byte %zu: truncated %c record",
                           c->dir, name, i, op);
        if ((op == 'S') == open)
            return ip_fail(c->err, "%s/%s: byte %zu: %c record %s", c->dir,
                           name, i, op, open ? "inside a transaction"
                                             : "outside a transaction");
        uint64_t id = be64(p + i + 1);
        if (op == 'C' && id != open_id)
            return ip_fail(c->err, "%s/%s: byte %zu: commit of transaction "
                           "t%llx inside transaction t%llx", c->dir, name, i,
                           (unsigned long long)id,
                           (unsigned long long)open_id);
        if (op == 'C')
            open = false;
        if (op == 'S') {
            open = true;
            open_id = id;
            open_at = i;
            if (session == IP_NONE) {
                char sname[256];
                snprintf(sname, sizeof sname, "%.*s",
                         (int)(strlen(name) - 4), name);
                session = ip_builder_session(c->b, sname, c->err);
                if (session == IP_NONE)
                    return false;
            }
            if (ip_idmap_get(&c->txns, id) != IP_NONE)
                return ip_fail(c->err, "%s/%s: byte %zu: transaction t%llx "
                               "is logged twice", c->dir, name, i,
                               (unsigned long long)id);
            char tname[24];
            uint32_t h = ip_builder_txn(c->b, session, txn_name(id, tname),
                                        IP_COMMITTED, 0, c->err);
            if (h == IP_NONE)
                return false;
            if (!ip_idmap_put(&c->txns, id, h))
                return ip_oom(c->err, "%s: out of memory", c->dir);
        }
        i += 1 + 8 * fields;
    }
    if (open)
        return ip_fail(c->err, "%s/%s: byte %zu: transaction t%llx has no "
                       "commit record", c->dir, name, open_at,
                       (unsigned long long)open_id);
    return true;
}

/* Second pass over a file declared well formed: its reads and writes. */
static bool add_ops(cobra *c, uint32_t f, const unsigned char *p, size_t n)
{
    uint32_t txn = IP_NONE;
    for (size_t i = 0; i < n; i += 1 + 8 * fields_of(p[i])) {
        const unsigned char *q = p + i + 1;
        if (p[i] == 'S') {
            txn = ip_idmap_get(&c->txns, be64(q));
        } else if (p[i] == 'W') {
            if (!ip_builder_op_num(c->b, txn, IP_WRITE, be64(q + 8),
                                   be64(q + 16), IP_NONE, 0, c->err))
                return false;
        } else if (p[i] == 'R') {
            uint64_t w = be64(q);
            uint32_t from = IP_NONE;  /* UNIVERSAL: resolve by value */
            if (w == ID_INIT || w == ID_NULL) {
                from = IP_INIT_TXN;
            } else if (w != ID_UNIVERSAL &&
                       (from = ip_idmap_get(&c->txns, w)) == IP_NONE) {
                return ip_fail(c->err, "%s/%s: byte %zu: the read names "
                               "writer transaction t%llx, which is in no log "
                               "of the history", c->dir, c->names[f], i,
                               (unsigned long long)w);
            }
            if (!ip_builder_op_num(c->b, txn, IP_READ, be64(q + 16),
                                   be64(q + 24), from, 0, c->err))
                return false;
        }
    }
    return true;
}

/* Load every log into files[f]. */
static bool read_files(cobra *c, ip_loaded *files)
{
    for (uint32_t f = 0; f < c->n_files; f++) {
        size_t dl = strlen(c->dir), nl = strlen(c->names[f]);
        char *path = malloc(dl + nl + 2);
        if (!path)
            return ip_oom(c->err, "%s: out of memory", c->dir);
        memcpy(path, c->dir, dl);
        path[dl] = '/';
        memcpy(path + dl + 1, c->names[f], nl + 1);
        bool ok = ip_load(path, &files[f], c->err);
        free(path);
        if (!ok)
            return false;
    }
    return true;
}

static void cobra_free(cobra *c, bool own_names)
{
    for (uint32_t f = 0; own_names && f < c->n_files; f++)
        free(c->names[f]);
    if (own_names)
        free(c->names);
    ip_idmap_free(&c->txns);
}

/* Build the trace from the logs (in memory, names sorted). */
static ip_trace *read_logs(cobra *c, const char *const *data,
                           const size_t *len, ip_mode mode)
{
    c->b = ip_builder_new(c->dir, "init", mode);
    if (!c->b) {
        ip_oom(c->err, "%s: out of memory", c->dir);
        return NULL;
    }
    ip_builder_signed_numbers(c->b);
    size_t total = 0;
    for (uint32_t f = 0; f < c->n_files; f++)
        total += len[f];
    ip_builder_reserve(c->b, total / 25, total / 18);  /* W; S and C */
    bool ok = true;
    for (uint32_t f = 0; ok && f < c->n_files; f++)
        ok = declare_file(c, f, (const unsigned char *)data[f], len[f]);
    for (uint32_t f = 0; ok && f < c->n_files; f++)
        ok = add_ops(c, f, (const unsigned char *)data[f], len[f]);
    if (!ok) {
        ip_builder_free(c->b);
        return NULL;
    }
    return ip_builder_finish(c->b, c->err);
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
    ip_loaded *files = NULL;
    const char **data = NULL;
    size_t *len = NULL;
    if (list_logs(&c)) {
        files = calloc(c.n_files, sizeof *files);
        data = calloc(c.n_files, sizeof *data);
        len = calloc(c.n_files, sizeof *len);
        if (!files || !data || !len) {
            ip_oom(err, "%s: out of memory", dir);
        } else if (read_files(&c, files)) {
            for (uint32_t f = 0; f < c.n_files; f++)
                data[f] = files[f].data, len[f] = files[f].len;
            t = read_logs(&c, data, len, mode);
        }
    }
    for (uint32_t f = 0; files && f < c.n_files; f++)
        ip_unload(&files[f]);
    free(files);
    free(data);
    free(len);
    cobra_free(&c, true);
    return t;
}
