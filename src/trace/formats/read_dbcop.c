/*
 * read_dbcop.c - dbcop's history.bincode (../shared/DBCOP_COBRA_FORMATS.md):
 * Rust bincode 1.x of dbcop's History.  Little-endian u64 integers and
 * lengths, u8 flags; a header of five numbers and three strings, then the
 * sessions, each a vector of transactions, each a vector of events followed
 * by its success flag.  Failed events and aborted transactions did not
 * happen and are dropped; a read names no writer, only the value it read
 * (0 is every key's initial value), so reads are resolved by value.
 * Errors name the byte offset of the record at fault.
 */
#include "lines.h"
#include "formats.h"

#include <stdio.h>

typedef struct bin {
    const unsigned char *p;
    size_t n, i;
    const char *path;
    ip_error *err;
} bin;

static bool truncated(bin *b, const char *what)
{
    return ip_fail(b->err, "%s: byte %zu: truncated %s (the file ends after "
                   "%zu bytes)", b->path, b->i, what, b->n);
}

static bool u64(bin *b, uint64_t *v, const char *what)
{
    if (b->n - b->i < 8)
        return truncated(b, what);
    uint64_t x = 0;
    for (int k = 7; k >= 0; k--)
        x = x << 8 | b->p[b->i + (size_t)k];
    b->i += 8;
    *v = x;
    return true;
}

static bool u8(bin *b, unsigned *v, const char *what)
{
    if (b->i >= b->n)
        return truncated(b, what);
    *v = b->p[b->i++];
    return true;
}

/* A vector or string length: at most what the rest of the file can hold
 * at `size` bytes an element, so a corrupt count fails here and is never
 * used to size anything. */
static bool count(bin *b, uint64_t *n, size_t size, const char *what)
{
    size_t at = b->i;
    if (!u64(b, n, what))
        return false;
    if (*n > (b->n - b->i) / size)
        return ip_fail(b->err, "%s: byte %zu: %s count %llu is more than the "
                       "rest of the file can hold", b->path, at, what,
                       (unsigned long long)*n);
    return true;
}

static bool skip_string(bin *b, const char *what)
{
    uint64_t n;
    if (!count(b, &n, 1, what))
        return false;
    b->i += (size_t)n;
    return true;
}

typedef struct dbcop_reader {
    bin b;
    ip_builder *bd;
    uint32_t n_txns;
} dbcop_reader;

static bool read_event(dbcop_reader *r, uint32_t txn, bool keep)
{
    unsigned is_write = 0, ok = 0;
    uint64_t key = 0, value = 0;  /* set by u64 when it returns true;
                                     -O3 cannot see it */
    size_t at = r->b.i;
    if (!u8(&r->b, &is_write, "event") || !u64(&r->b, &key, "event key") ||
        !u64(&r->b, &value, "event value") || !u8(&r->b, &ok, "event flag"))
        return false;
    if (is_write > 1)
        return ip_fail(r->b.err, "%s: byte %zu: event kind %u (0 read, 1 "
                       "write)", r->b.path, at, is_write);
    if (!keep || !ok)
        return true;              /* did not happen */
    return ip_builder_op_num(r->bd, txn, is_write ? IP_WRITE : IP_READ, key,
                             value, IP_NONE, 0, r->b.err);
}

/* One transaction: its events, then its success flag.  The flag comes
 * last, so events are scanned once to find it and added on a second
 * pass only when it committed. */
static bool read_txn(dbcop_reader *r, uint32_t session, uint64_t s_idx,
                     uint64_t t_idx)
{
    uint64_t n;
    if (!count(&r->b, &n, 18, "events"))
        return false;
    size_t first = r->b.i;
    size_t flag_at = first + (size_t)n * 18;
    if (flag_at >= r->b.n)
        return truncated(&r->b, "transaction");
    bool committed = r->b.p[flag_at] != 0;
    uint32_t txn = IP_NONE;
    if (committed) {
        char name[48];        /* "sS.T", without printf: one a txn */
        name[0] = 's';
        size_t at = 1 + ip_u64_text(s_idx, name + 1);
        name[at] = '.';
        ip_u64_text(t_idx, name + at + 1);
        txn = ip_builder_txn(r->bd, session, name, IP_COMMITTED, 0, r->b.err);
        if (txn == IP_NONE)
            return false;
        r->n_txns++;
    }
    for (uint64_t e = 0; e < n; e++)
        if (!read_event(r, txn, committed))
            return false;
    r->b.i++;                     /* the success flag */
    return true;
}

ip_trace *ip_read_dbcop(const char *path, const char *data, size_t len,
                        ip_mode mode, ip_error *err)
{
    dbcop_reader r = { .b = { (const unsigned char *)data, len, 0, path,
                              err } };
    uint64_t header, n_sessions;
    for (int i = 0; i < 5; i++)
        if (!u64(&r.b, &header, "header"))
            return NULL;
    if (!skip_string(&r.b, "info") || !skip_string(&r.b, "start time") ||
        !skip_string(&r.b, "end time") ||
        !count(&r.b, &n_sessions, 8, "sessions"))
        return NULL;
    r.bd = ip_builder_new(path, "init", mode);
    if (!r.bd) {
        ip_oom(err, "%s: out of memory", path);
        return NULL;
    }
    ip_builder_set_initial_value(r.bd, "0");
    ip_builder_reserve(r.bd, len / 18, len / 9);  /* smallest event, txn */
    bool ok = true;
    for (uint64_t s = 0; ok && s < n_sessions; s++) {
        char name[24];
        snprintf(name, sizeof name, "s%llu", (unsigned long long)s);
        uint32_t sid = ip_builder_session(r.bd, name, err);
        uint64_t n_txns;
        ok = sid != IP_NONE && count(&r.b, &n_txns, 9, "transactions");
        for (uint64_t t = 0; ok && t < n_txns; t++)
            ok = read_txn(&r, sid, s, t);
    }
    if (ok && r.b.i != len)
        ok = ip_fail(err, "%s: byte %zu: %zu bytes after the last session",
                     path, r.b.i, len - r.b.i);
    if (!ok) {
        ip_builder_free(r.bd);
        return NULL;
    }
    return ip_builder_finish(r.bd, err);
}
