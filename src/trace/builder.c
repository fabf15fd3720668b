/*
 * builder.c - turning declared sessions, transactions and ops into a trace.
 *
 * Readers declare things in input order; ids are only fixed at the end so
 * that the transactions of a session get contiguous ids.  finish() is a
 * sequence of linear passes: number transactions, group ops by transaction
 * (counting sort), mark last writes, index writes by (key, value), resolve
 * every read, then derive events, writer lists and per-txn key sets.
 */
#include "builder.h"

#include <stdlib.h>
#include <string.h>

static uint32_t intern_len(ip_builder *b, const char *s, size_t n);

ip_builder *ip_builder_new(const char *file, const char *initial_name,
                           ip_mode mode)
{
    ip_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->file = strdup(file ? file : "<input>");
    b->mode = mode;
    if (!b->file || !ip_intern_init(&b->in)) {
        ip_builder_free(b);
        return NULL;
    }
    const char *init = initial_name ? initial_name : "init";
    b->initial_sid = intern_len(b, init, strlen(init));
    b->null_sid = intern_len(b, "null", 4);
    b->initial_value = b->null_sid;
    b->extra = IP_NONE;
    /* handle 0 is the initial transaction */
    if (b->initial_sid == IP_NONE || b->null_sid == IP_NONE ||
        !BLD_GROW(b->txns, b->n_txns, b->cap_txns) || !bld_sync_sid_maps(b)) {
        ip_builder_free(b);
        return NULL;
    }
    b->txns[0] = (pending_txn){.name = b->initial_sid, .session = IP_NONE,
                               .extra = IP_NONE, .last_op = IP_NONE};
    b->n_txns = 1;
    b->txn_of_sid[b->initial_sid] = IP_INIT_TXN;
    return b;
}

void ip_builder_free(ip_builder *b)
{
    if (!b)
        return;
    free(b->file);
    ip_intern_free(&b->in);
    free(b->txn_of_sid);
    free(b->session_of_sid);
    free(b->key_of_sid);
    free(b->sessions);
    free(b->txns);
    free(b->cands);
    free(b->orders);
    free(b->versions);
    free(b->ops);
    free(b->op_line);
    free(b->op_extra);
    free(b->key_sid);
    ip_idmap_free(&b->num_keys);
    ip_idmap_free(&b->num_values);
    ip_idmap_free(&b->num_names);
    ip_idmap_free(&b->num_texts);
    free(b);
}

/* Untouched capacity costs address space, not memory: reserving an upper
 * bound saves the copies (and page faults) of doubling a large array. */
static void reserve(void **arr, uint32_t n, uint32_t *cap, size_t elem,
                    uint64_t want)
{
    if (want <= *cap || want > UINT32_MAX / 2)
        return;
    void *p = ip_malloc_big((size_t)want * elem);
    if (!p)
        return;               /* a hint: the array grows as usual */
    if (n)
        memcpy(p, *arr, n * elem);
    free(*arr);
    *arr = p;
    *cap = (uint32_t)want;
}

void ip_builder_reserve(ip_builder *b, uint64_t n_ops, uint64_t n_txns)
{
    if (!b->op_line && !b->op_extra)   /* they would have to follow */
        reserve((void **)&b->ops, b->n_ops, &b->cap_ops, sizeof *b->ops,
                n_ops);
    reserve((void **)&b->txns, b->n_txns, &b->cap_txns, sizeof *b->txns,
            n_txns + 1);
}

void ip_builder_set_initial_value(ip_builder *b, const char *value)
{
    uint32_t sid = intern_len(b, value, strlen(value));
    if (sid != IP_NONE)
        b->initial_value = sid;
}

/* Keep the sid-indexed lookup arrays as long as the string table. */
bool bld_sync_sid_maps(ip_builder *b)
{
    if (b->in.n <= b->sid_cap)
        return true;
    uint32_t cap = b->sid_cap ? b->sid_cap : 256;
    while (cap < b->in.n)
        cap *= 2;
    uint32_t *maps[3] = {b->txn_of_sid, b->session_of_sid, b->key_of_sid};
    for (int m = 0; m < 3; m++) {
        uint32_t *p = realloc(maps[m], (size_t)cap * sizeof *p);
        if (!p)
            return false;
        for (uint32_t i = b->sid_cap; i < cap; i++)
            p[i] = IP_NONE;
        maps[m] = p;
        if (m == 0) b->txn_of_sid = p;
        if (m == 1) b->session_of_sid = p;
        if (m == 2) b->key_of_sid = p;
    }
    b->sid_cap = cap;
    return true;
}

uint32_t bld_intern(ip_builder *b, const char *s)
{
    return intern_len(b, s, strlen(s));
}

static uint32_t oom(ip_error *err)
{
    ip_oom(err, "out of memory");
    return IP_NONE;
}

uint32_t ip_builder_session(ip_builder *b, const char *name, ip_error *err)
{
    if (!name || !*name)
        return ip_fail(err, "%s: sessions[%u].id: empty session id", b->file,
                       b->n_sessions), IP_NONE;
    uint32_t sid = bld_intern(b, name);
    if (sid == IP_NONE)
        return oom(err);
    if (b->session_of_sid[sid] != IP_NONE)
        return ip_fail(err, "%s: sessions[%u].id: duplicate session id '%s'",
                       b->file, b->n_sessions, name), IP_NONE;
    if (!BLD_GROW(b->sessions, b->n_sessions, b->cap_sessions))
        return oom(err);
    b->sessions[b->n_sessions] = (pending_session){.name = sid,
                                                   .extra = IP_NONE};
    b->session_of_sid[sid] = b->n_sessions;
    return b->n_sessions++;
}

/* Where a transaction is declared, for a message: ":line" or ":
 * sessions[S].transactions[T].id". */
static const char *txn_where(const ip_builder *b, uint32_t session,
                             uint32_t line, char where[64])
{
    if (line)
        snprintf(where, 64, "%u", line);
    else
        snprintf(where, 64, " sessions[%u].transactions[%u].id", session,
                 b->sessions[session].n_txns);
    return where;
}

uint32_t ip_builder_txn(ip_builder *b, uint32_t session, const char *name,
                        ip_status status, uint32_t line, ip_error *err)
{
    pending_session *s = &b->sessions[session];
    char where[64];
    if (!name || !*name)
        return ip_fail(err, "%s:%s: empty transaction id", b->file,
                       txn_where(b, session, line, where)), IP_NONE;
    uint32_t sid = bld_intern_name(b, name);
    if (sid == IP_NONE)
        return oom(err);
    if (sid == b->initial_sid)
        return ip_fail(err, "%s:%s: transaction '%s' is the initial "
                       "transaction and may not be declared", b->file,
                       txn_where(b, session, line, where), name), IP_NONE;
    if (b->txn_of_sid[sid] != IP_NONE)
        return ip_fail(err, "%s:%s: duplicate transaction id '%s'", b->file,
                       txn_where(b, session, line, where), name), IP_NONE;
    if (!BLD_GROW(b->txns, b->n_txns, b->cap_txns))
        return oom(err);
    b->txns[b->n_txns] = (pending_txn){
        .name = sid, .session = session, .index = s->n_txns,
        .status = (uint8_t)status, .line = line, .extra = IP_NONE,
        .last_op = IP_NONE};
    s->n_txns++;
    b->txn_of_sid[sid] = b->n_txns;
    return b->n_txns++;
}

void ip_builder_txn_status(ip_builder *b, uint32_t txn, ip_status status)
{
    b->txns[txn].status = (uint8_t)status;
}

/* The index of the key whose text sid is ksid, added when new. */
static uint32_t key_index(ip_builder *b, uint32_t ksid)
{
    if (b->key_of_sid[ksid] == IP_NONE) {
        if (!BLD_GROW(b->key_sid, b->n_keys, b->cap_keys))
            return IP_NONE;
        b->key_sid[b->n_keys] = ksid;
        b->key_of_sid[ksid] = b->n_keys++;
    }
    return b->key_of_sid[ksid];
}

/* A side array of ops (op_line, op_extra) for cap_ops ops, its first
 * n_ops entries `none`. */
static uint32_t *new_side(const ip_builder *b, uint32_t none)
{
    uint32_t *a = ip_malloc_big((size_t)b->cap_ops * sizeof *a);
    for (uint32_t i = 0; a && i < b->n_ops; i++)
        a[i] = none;
    return a;
}

static bool grow_side(uint32_t **a, uint32_t cap)
{
    uint32_t *p = *a ? realloc(*a, (size_t)cap * sizeof *p) : NULL;
    if (p)
        *a = p;
    return !*a || p;
}

/* Room for one more op, in ops and the side arrays there are. */
static bool room_for_op(ip_builder *b)
{
    if (b->n_ops < b->cap_ops)
        return true;
    return ip_grow((void **)&b->ops, &b->cap_ops, sizeof *b->ops) &&
           grow_side(&b->op_line, b->cap_ops) &&
           grow_side(&b->op_extra, b->cap_ops);
}

static bool append_op(ip_builder *b, uint32_t txn, ip_op_kind kind,
                      uint32_t key, uint32_t vsid, bld_from from_kind,
                      uint32_t from, uint32_t line, ip_error *err)
{
    if (!room_for_op(b))
        return oom(err), false;
    if (line && !b->op_line && !(b->op_line = new_side(b, 0)))
        return oom(err), false;
    if (b->op_line)
        b->op_line[b->n_ops] = line;
    if (b->op_extra)
        b->op_extra[b->n_ops] = IP_NONE;
    if (kind != IP_READ || (from == IP_NONE && from_kind != BLD_FROM_NOBODY))
        from_kind = BLD_FROM_NONE, from = IP_NONE;
    b->txns[txn].last_op = b->n_ops;
    b->txns[txn].n_ops++;
    b->n_writes += kind == IP_WRITE;
    b->ops[b->n_ops++] = (ip_op){
        .kind = (uint8_t)kind, .local = (uint8_t)from_kind, .key = key,
        .value = vsid, .from = from, .txn = txn};
    return true;
}

/* The text of number n (see ip_builder_op_num) into buf: a key's decimal,
 * or a value's JSON scalar. */
static const char *number_text(const ip_builder *b, uint64_t n, bool value,
                               char buf[32])
{
    bool neg = b->signed_numbers && (int64_t)n < 0;
    uint64_t m = neg ? (uint64_t)0 - n : n;
    char *p = buf;
    if (value && m >= IP_STRING_VALUES)
        *p++ = '"';
    if (neg)
        *p++ = '-';
    p += ip_u64_text(m, p);
    if (value && m >= IP_STRING_VALUES)
        *p++ = '"';
    *p = '\0';
    return buf;
}

/* The key index (key) or value sid (!key) of number n, from the cache or
 * interned once; IP_NONE when out of memory. */
static uint32_t number_id(ip_builder *b, uint64_t n, bool key)
{
    ip_idmap *cache = key ? &b->num_keys : &b->num_values;
    uint32_t id = ip_idmap_get(cache, n);
    if (id != IP_NONE)
        return id;
    char text[32];
    id = bld_intern(b, number_text(b, n, !key, text));
    if (id != IP_NONE && key)
        id = key_index(b, id);
    if (id == IP_NONE || !ip_idmap_put(cache, n, id))
        return IP_NONE;
    return id;
}

/* Is s[0, len) the canonical decimal text (no sign, no leading zero, at
 * most 18 digits) of a number below `below`?  Then *n is the number: its
 * text is s. */
static bool decimal(const char *s, size_t len, uint64_t below, uint64_t *n)
{
    if (len == 0 || len > 18 || (s[0] == '0' && len > 1))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *n = v;
    return v < below;
}

/* Transaction names of generated traces are a common prefix and a count
 * ("t0", "t1", ...); a read names its writer by one.  Such names are
 * found by their number in a direct array instead of by hashing the text
 * into the string table, which is large and misses the cache.  The
 * prefix is that of the first such name (up to 7 bytes, not ending in a
 * digit); the number must be written canonically, so that each name has
 * one number.  False until a prefix is learnt. */
static bool numbered_name(const ip_builder *b, const char *s, size_t len,
                          uint64_t *n)
{
    size_t p = 0;
    while (p < len && b->name_prefix[p] && s[p] == b->name_prefix[p])
        p++;
    return p > 0 && !b->name_prefix[p] &&
           decimal(s + p, len - p, UINT64_MAX / 2, n);
}

/* Take the prefix of s when s is prefix + number; false when not. */
static bool learn_name_prefix(ip_builder *b, const char *s, size_t len)
{
    size_t p = 0;
    while (p < len && (s[p] < '0' || s[p] > '9'))
        p++;
    if (p == 0 || p >= sizeof b->name_prefix || p == len)
        return false;
    for (size_t i = p; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    memcpy(b->name_prefix, s, p);
    b->name_prefix[p] = '\0';
    return true;
}

/* Every text takes one way to its sid, so that it has one sid: the
 * canonical decimals by their number (num_texts), names of the learnt
 * prefix by theirs (num_names), only the rest by hashing.  Most strings of
 * a large trace are numbers or numbered names; they never enter the hash
 * table, whose growth and cache misses were most of interning's cost.
 * IP_NONE when out of memory. */
static uint32_t intern_len(ip_builder *b, const char *s, size_t n)
{
    uint64_t v;
    ip_idmap *by_number = decimal(s, n, UINT64_MAX / 2, &v) ? &b->num_texts
                          : numbered_name(b, s, n, &v) ? &b->num_names
                                                       : NULL;
    uint32_t sid = by_number ? ip_idmap_get(by_number, v)
                             : ip_intern_add(&b->in, s, n);
    if (by_number && sid == IP_NONE) {
        sid = ip_intern_append(&b->in, s, n);
        if (sid != IP_NONE && !ip_idmap_put(by_number, v, sid))
            sid = IP_NONE;
    }
    if (sid == IP_NONE || !bld_sync_sid_maps(b))
        return IP_NONE;
    return sid;
}

/* The prefix is learnt from the first name that has one (not at the
 * start: the initial name and other texts may come before any name).
 * Texts hashed before then that are numbered names take the number way
 * from now on: they are entered in num_names under their sids. */
static uint32_t intern_name_len(ip_builder *b, const char *s, size_t len)
{
    if (!b->name_prefix[0] && learn_name_prefix(b, s, len)) {
        for (uint32_t sid = 0; sid < b->in.n; sid++) {
            const char *t = b->in.strings[sid];
            uint64_t v;
            if (numbered_name(b, t, strlen(t), &v) &&
                !ip_idmap_put(&b->num_names, v, sid))
                return IP_NONE;
        }
    }
    return intern_len(b, s, len);
}

uint32_t bld_intern_name(ip_builder *b, const char *s)
{
    return intern_name_len(b, s, strlen(s));
}

/* The key index of key[0, klen) (NULL: ""); IP_NONE when out of memory.
 * Decimal keys and values (plume and dbcop histories converted to JSON,
 * text format keys) take the number caches: the same ids as their text,
 * without hashing it. */
static uint32_t key_id_len(ip_builder *b, const char *key, size_t klen)
{
    if (!key)
        key = "", klen = 0;
    uint64_t n;
    if (decimal(key, klen, UINT64_MAX / 2, &n))
        return number_id(b, n, true);
    uint32_t ksid = intern_len(b, key, klen);
    return ksid == IP_NONE ? IP_NONE : key_index(b, ksid);
}

/* The sid of value text value[0, vlen); IP_NONE when out of memory. */
static uint32_t value_id_len(ip_builder *b, const char *value, size_t vlen)
{
    uint64_t n;
    return decimal(value, vlen, IP_STRING_VALUES, &n) ? number_id(b, n, false)
                                                      : intern_len(b, value,
                                                                   vlen);
}

/* key[0, klen) (NULL: "") and value[0, vlen) (NULL: none) as ids, then
 * the op. */
static bool add_op(ip_builder *b, uint32_t txn, ip_op_kind kind,
                   const char *key, size_t klen, const char *value,
                   size_t vlen, bld_from from_kind, uint32_t from,
                   uint32_t line, ip_error *err)
{
    uint32_t k = key_id_len(b, key, klen), vsid = IP_NONE;
    if (value)
        vsid = value_id_len(b, value, vlen);
    if (k == IP_NONE || (value && vsid == IP_NONE))
        return oom(err), false;
    return append_op(b, txn, kind, k, vsid, from_kind, from, line, err);
}

/* strlen, 0 for NULL */
static size_t len_of(const char *s)
{
    return s ? strlen(s) : 0;
}

bool ip_builder_op(ip_builder *b, uint32_t txn, ip_op_kind kind,
                   const char *key, const char *value, const char *from,
                   uint32_t line, ip_error *err)
{
    return ip_builder_op_len(b, txn, kind, key, len_of(key), value,
                             len_of(value), from, len_of(from), line, err);
}

bool ip_builder_op_len(ip_builder *b, uint32_t txn, ip_op_kind kind,
                       const char *key, size_t klen, const char *value,
                       size_t vlen, const char *from, size_t flen,
                       uint32_t line, ip_error *err)
{
    uint32_t from_sid = IP_NONE;
    if (kind == IP_READ && from &&
        (from_sid = intern_name_len(b, from, flen)) == IP_NONE)
        return oom(err), false;
    return add_op(b, txn, kind, key, klen, value, vlen, BLD_FROM_SID,
                  from_sid, line, err);
}

bool ip_builder_read_no_writer(ip_builder *b, uint32_t txn, const char *key,
                               size_t klen, const char *value, size_t vlen,
                               uint32_t line, ip_error *err)
{
    return add_op(b, txn, IP_READ, key, klen, value, vlen, BLD_FROM_NOBODY,
                  IP_NONE, line, err);
}

bool ip_builder_read_candidates(ip_builder *b, uint32_t txn, const char *key,
                                const char *value, const char *const *from,
                                uint32_t n, uint32_t line, ip_error *err)
{
    if (n <= 1)
        return ip_builder_op(b, txn, IP_READ, key, value, n ? from[0] : NULL,
                             line, err);
    uint32_t at = b->n_cands;
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t sid = i == 0 ? n : bld_intern(b, from[i - 1]);
        if (sid == IP_NONE || !BLD_GROW(b->cands, b->n_cands, b->cap_cands))
            return oom(err), false;
        b->cands[b->n_cands++] = sid;
    }
    return add_op(b, txn, IP_READ, key, len_of(key), value, len_of(value),
                  BLD_FROM_LIST, at, line, err);
}

bool ip_builder_op_from_id(ip_builder *b, uint32_t txn, ip_op_kind kind,
                           const char *key, const char *value,
                           uint32_t from_txn, uint32_t line, ip_error *err)
{
    return add_op(b, txn, kind, key, len_of(key), value, len_of(value),
                  BLD_FROM_HANDLE, from_txn, line, err);
}

uint32_t ip_builder_key_id(ip_builder *b, const char *key)
{
    return key_id_len(b, key, len_of(key));
}

uint32_t ip_builder_value_id(ip_builder *b, const char *value)
{
    return value ? value_id_len(b, value, strlen(value)) : IP_NONE;
}

uint32_t ip_builder_name_id(ip_builder *b, const char *name)
{
    return intern_name_len(b, name, strlen(name));
}

bool ip_builder_op_ids(ip_builder *b, uint32_t txn, ip_op_kind kind,
                       uint32_t key, uint32_t value, uint32_t from,
                       ip_error *err)
{
    if (key >= b->n_keys || (value != IP_NONE && value >= b->in.n) ||
        (from != IP_NONE && from >= b->in.n))
        return ip_fail(err, "%s: op with an id this builder did not give",
                       b->file);
    return append_op(b, txn, kind, key, value, BLD_FROM_SID,
                     kind == IP_READ ? from : IP_NONE, 0, err);
}

void ip_builder_signed_numbers(ip_builder *b)
{
    b->signed_numbers = true;
}

bool ip_builder_op_num(ip_builder *b, uint32_t txn, ip_op_kind kind,
                       uint64_t key, uint64_t value, uint32_t from_txn,
                       uint32_t line, ip_error *err)
{
    uint32_t k = number_id(b, key, true), v = number_id(b, value, false);
    if (k == IP_NONE || v == IP_NONE)
        return oom(err), false;
    return append_op(b, txn, kind, k, v, BLD_FROM_HANDLE, from_txn, line,
                     err);
}

/* "file:12" or "file: sessions[0].transactions[1].ops[2].field" */
void bld_locate(const ip_builder *b, const ip_trace *t, uint32_t i,
                const char *field, char *buf, size_t n)
{
    const ip_txn *x = &t->txns[t->ops[i].txn];
    if (ip_op_line(t, i))
        snprintf(buf, n, "%s:%u", b->file, ip_op_line(t, i));
    else
        snprintf(buf, n, "%s: sessions[%u].transactions[%u].ops[%u]%s%s",
                 b->file, x->session, x->index, i - x->op_first,
                 field ? "." : "", field ? field : "");
}

bool ip_builder_incompatible_order(ip_builder *b, uint32_t txn, uint32_t op,
                                   uint32_t other_txn, uint32_t other_op,
                                   ip_error *err)
{
    const uint32_t q[4] = {txn, op, other_txn, other_op};
    for (int i = 0; i < 4; i++)
        if (!BLD_GROW(b->orders, b->n_orders, b->cap_orders))
            return oom(err), false;
        else
            b->orders[b->n_orders++] = q[i];
    return true;
}

bool ip_builder_version_order(ip_builder *b, const char *key,
                              const uint32_t *writers, uint32_t n,
                              ip_error *err)
{
    uint32_t sid = bld_intern(b, key);
    if (sid == IP_NONE)
        return oom(err), false;
    for (uint32_t i = 0; i < n + 2; i++)
        if (!BLD_GROW(b->versions, b->n_versions, b->cap_versions))
            return oom(err), false;
        else
            b->versions[b->n_versions++] = i == 0 ? sid
                                           : i == 1 ? n : writers[i - 2];
    return true;
}

bool ip_builder_version_order_named(ip_builder *b, const char *key,
                                    const char *const *names, uint32_t n,
                                    ip_error *err)
{
    uint32_t *hs = malloc((n ? n : 1) * sizeof *hs);
    if (!hs)
        return oom(err), false;
    bool ok = true;
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t sid = bld_intern(b, names[i]);
        if (sid == IP_NONE) {
            free(hs);
            return oom(err), false;
        }
        hs[i] = b->txn_of_sid[sid];
        if (hs[i] == IP_NONE || hs[i] == IP_INIT_TXN)
            ok = ip_fail(err, "%s: the version order of key '%s' names "
                         "'%s', which is no declared transaction", b->file,
                         key, names[i]);
    }
    ok = ok && ip_builder_version_order(b, key, hs, n, err);
    free(hs);
    return ok;
}

bool ip_builder_extra(ip_builder *b, ip_extra_at at, uint32_t handle,
                      const char *json, ip_error *err)
{
    uint32_t sid = IP_NONE;
    if (json && (sid = bld_intern(b, json)) == IP_NONE)
        return oom(err), false;
    switch (at) {
    case IP_EXTRA_TRACE:
        b->extra = sid;
        break;
    case IP_EXTRA_SESSION:
        b->sessions[handle].extra = sid;
        break;
    case IP_EXTRA_TXN:
        b->txns[handle].extra = sid;
        break;
    case IP_EXTRA_OP:
        if (b->txns[handle].last_op == IP_NONE ||
            (sid == IP_NONE && !b->op_extra))
            break;
        if (!b->op_extra && !(b->op_extra = new_side(b, IP_NONE)))
            return oom(err), false;
        b->op_extra[b->txns[handle].last_op] = sid;
        break;
    }
    return true;
}
