/*
 * write_layout.c - how a trace is laid out in a format other than json
 * (ip_layout_make, formats.h), and what it loses there.  What each format
 * can hold is the table CAPS below, from the format's reader (the ground
 * truth) and said in words in each writer file's header.
 *
 * Number formats (plume, awdit-test, dbcop, cobra) spell keys and values
 * as 64-bit integers.  Keys that are all such integers are kept, else
 * every key is written as its index.  Values are kept when they are all
 * integers and, read back, name the same writers: in plume, awdit-test
 * and dbcop every read is resolved by its value (0 is every key's initial
 * value), so a read's (key, value) must match its writer's last write and
 * no other write; cobra names writers and only its ambiguous reads go by
 * value.  Otherwise every value is renumbered: the writes 1, 2, ... in op
 * order, a read the value of the write it reads (0 for the initial one),
 * which names each writer alone - but can no longer keep a read
 * ambiguous, so a trace with ambiguous reads is then refused.
 */
#include "lines.h"
#include "formats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { AB_NONE, AB_MERGED, AB_FLAGGED } aborted_way;

/* What a format can hold (see the writer files for the words). */
typedef struct caps {
    ip_format fmt;
    bool numbers;             /* keys and values are 64-bit integers */
    bool is_signed;           /* int64 (cobra), else uint64 */
    bool by_value;            /* every read is resolved by its value */
    bool init_zero;           /* 0 is every key's initial value */
    bool init_txn;            /* no initial state: a first txn writes it */
    uint8_t aborted;          /* aborted_way */
    bool empty_txns, empty_sessions;
} caps;

static const caps CAPS[] = {
    {IP_FMT_ISOPREDICT_TEXT, false, false, false, false, false, AB_NONE,
     false, false},
    {IP_FMT_PLUME, true, false, true, true, false, AB_MERGED, false, false},
    {IP_FMT_AWDIT_TEST, true, false, true, true, true, AB_NONE, false,
     false},
    {IP_FMT_DBCOP, true, false, true, true, false, AB_FLAGGED, true, true},
    {IP_FMT_COBRA, true, true, false, false, false, AB_NONE, true, false},
};

static const caps *caps_of(ip_format f)
{
    for (size_t i = 0; i < sizeof CAPS / sizeof *CAPS; i++)
        if (CAPS[i].fmt == f)
            return &CAPS[i];
    return NULL;
}

/* Add a note when count > 0. */
static void note(ip_layout *l, bool refuse, uint32_t count, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));
static void note(ip_layout *l, bool refuse, uint32_t count, const char *fmt,
                 ...)
{
    if (!count || l->n_notes == IP_MAX_WRITE_NOTES)
        return;
    ip_write_note *n = &l->notes[l->n_notes++];
    n->refuse = refuse;
    n->count = count;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text, sizeof n->text, fmt, ap);
    va_end(ap);
}

static const char *plural(uint32_t n)
{
    return n == 1 ? "" : "s";
}

static bool written(const ip_layout *l, uint32_t txn)
{
    return l->txn_no[txn] != 0;
}

/* ---- transactions and sessions ------------------------------------------ */

static bool txn_fits(const caps *c, const ip_txn *x)
{
    if (x->op_count == 0 && !c->empty_txns)
        return false;
    return x->status == IP_COMMITTED || c->aborted != AB_NONE;
}

/* Number the written transactions and sessions; note the others. */
static void choose_txns(ip_layout *l, const caps *c)
{
    const ip_trace *t = l->t;
    uint32_t gno = 0, aborted_out = 0, empty_out = 0, merged = 0,
             flagged = 0, sessions_out = 0, n_merged_into = 0;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *ss = &t->sessions[s];
        uint32_t no = 0, aborted_here = 0;
        for (uint32_t x = ss->txn_first; x < ss->txn_first + ss->txn_count;
             x++) {
            const ip_txn *tx = &t->txns[x];
            bool aborted = tx->status == IP_ABORTED;
            if (!txn_fits(c, tx)) {
                aborted_out += aborted;
                empty_out += !aborted;
                continue;
            }
            l->txn_no[x] = ++no;
            l->txn_gno[x] = aborted ? 0 : ++gno;
            aborted_here += aborted;
            flagged += aborted && c->aborted == AB_FLAGGED;
        }
        if (c->aborted == AB_MERGED && aborted_here > 1)
            merged += aborted_here, n_merged_into++;
        if (no || c->empty_sessions)
            l->sess_no[s] = l->n_written_sessions++;
        else
            sessions_out++;
    }
    const char *name = ip_format_name(c->fmt);
    note(l, false, aborted_out, "cannot hold aborted transactions: %u left "
         "out", aborted_out);
    note(l, false, merged, "holds a session's aborted transactions as one: "
         "%u aborted transactions merged into %u", merged, n_merged_into);
    note(l, false, flagged, "drops aborted transactions when read (%s "
         "itself ignores them): %u written as failed", name, flagged);
    note(l, false, empty_out, "cannot hold transactions without "
         "operations: %u left out", empty_out);
    note(l, false, sessions_out, "cannot hold sessions without a "
         "transaction it holds: %u left out", sessions_out);
}

/* Objects that carry tool fields (TRACE_FORMAT.md), none of which these
 * formats hold. */
static void note_tool_fields(ip_layout *l)
{
    const ip_trace *t = l->t;
    uint32_t n = t->extra != IP_NONE;
    for (uint32_t s = 0; s < t->n_sessions; s++)
        n += t->sessions[s].extra != IP_NONE;
    for (uint32_t x = 0; x < t->n_txns; x++)
        n += t->txns[x].extra != IP_NONE;
    for (uint32_t i = 0; i < t->n_ops; i++)
        n += ip_op_extra(t, i) != IP_NONE;
    note(l, false, n, "cannot hold tool fields (procedure, args, meta, "
         "...): left out of %u object%s", n, plural(n));
}

/* Keys whose version order the trace knows (list-append reads): none of
 * these formats has a place for it. */
static void note_versions(ip_layout *l)
{
    const ip_trace *t = l->t;
    uint32_t n = 0;
    for (uint32_t k = 0; ip_trace_has_versions(t) && k < t->n_keys; k++)
        n += t->key_order_first[k + 1] > t->key_order_first[k];
    note(l, false, n, "cannot hold a known version order (list-append "
         "reads): left out for %u key%s", n, plural(n));
}

/* ---- numbers ------------------------------------------------------------ */

/* The integer text spells as the number readers spell one
 * (ip_builder_op_num): decimal without leading zeros, '-' before a
 * negative one when is_signed; a value from 10^15 on in quotes. */
static bool parse_number(const char *text, bool is_signed, bool value,
                         uint64_t *out)
{
    const char *p = text;
    bool quoted = value && *p == '"';
    p += quoted;
    bool neg = is_signed && *p == '-';
    p += neg;
    const char *q = p, *e = p + strlen(p);
    uint64_t m;
    if (!ip_scan_u64(&q, e, &m) || (q - p > 1 && *p == '0') || (neg && !m))
        return false;
    if (quoted ? (q + 1 != e || *q != '"') : q != e)
        return false;
    if (value && quoted != (m >= IP_STRING_VALUES))
        return false;
    if (is_signed && m > (uint64_t)INT64_MAX + neg)
        return false;
    *out = neg ? (uint64_t)0 - m : m;
    return true;
}

static void number_keys(ip_layout *l, const caps *c)
{
    const ip_trace *t = l->t;
    uint32_t bad = 0, first_bad = IP_NONE;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        if (!parse_number(ip_key_name(t, k), c->is_signed, false,
                          &l->key_num[k]) && bad++ == 0)
            first_bad = k;
    }
    if (!bad)
        return;
    for (uint32_t k = 0; k < t->n_keys; k++)
        l->key_num[k] = k;
    note(l, false, bad, "cannot hold key names that are not %s 64-bit "
         "integers ('%.40s', ...: %u key%s): all %u keys renumbered 0 to %u",
         c->is_signed ? "signed" : "unsigned", ip_key_name(t, first_bad),
         bad, plural(bad), t->n_keys, t->n_keys - 1);
}

/* A (key, value) pair of a written write: the key's index (its numbers
 * are one a key), the value's number. */
typedef struct kv {
    uint64_t key, value;
} kv;

static int cmp_kv(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

typedef struct kv_index {
    kv *w;
    uint32_t n;
    bool init_zero;           /* the initial value 0 counts as a write */
    const uint8_t *init_key;  /* awdit-test: of these keys only, or NULL */
} kv_index;

/* The writes of (key, value), the initial one included. */
static uint32_t kv_count(const kv_index *ix, uint64_t key, uint64_t value)
{
    uint32_t lo = 0, hi = ix->n;
    kv want = {key, value};
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cmp_kv(&ix->w[mid], &want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t n = 0;
    while (lo + n < ix->n && !cmp_kv(&ix->w[lo + n], &want))
        n++;
    return n + (ix->init_zero && value == 0 &&
                (!ix->init_key || ix->init_key[key]));
}

/* The op of committed txn w's last write of key, or IP_NONE. */
static uint32_t last_write_op(const ip_trace *t, uint32_t w, uint32_t key)
{
    uint32_t ev = ip_write_event(t, w, key);
    return ev == IP_NONE ? IP_NONE : t->events[ev].op;
}

/* Does committed read op i, with the values kept, read back from the
 * writer (or candidates) it has? */
static bool read_keeps(const ip_layout *l, const caps *c, const kv_index *ix,
                       uint32_t i)
{
    const ip_trace *t = l->t;
    const ip_op *op = &t->ops[i];
    if (op->local)
        return true;
    uint64_t k = op->key, v = l->op_value[i];
    uint32_t amb = op->from == IP_NONE ? ip_ambiguous_of_op(t, i) : IP_NONE;
    if (op->from == IP_NONE && amb == IP_NONE)
        return kv_count(ix, k, v) == 0;       /* stays without a writer */
    uint32_t first = amb == IP_NONE ? 0 : t->amb_first[amb];
    uint32_t end = amb == IP_NONE ? 1 : t->amb_first[amb + 1];
    for (uint32_t j = first; j < end; j++) {
        uint32_t w = amb == IP_NONE ? op->from : t->amb_writer[j];
        if (w == IP_INIT_TXN) {
            if (c->init_zero ? v != 0 : amb != IP_NONE)
                return false;
            continue;
        }
        uint32_t wop = last_write_op(t, w, op->key);
        if (wop == IP_NONE || !written(l, w) || l->op_value[wop] != v)
            return false;
    }
    if (amb == IP_NONE && !c->by_value)
        return true;                          /* cobra names the writer */
    return kv_count(ix, k, v) == end - first;
}

/* Parse every written op's value; the number of ops whose value is not
 * an integer of the format. */
static uint32_t parse_values(ip_layout *l, const caps *c)
{
    const ip_trace *t = l->t;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const ip_op *op = &t->ops[i];
        if (written(l, op->txn) &&
            (op->value == IP_NONE ||
             !parse_number(ip_str(t, op->value), c->is_signed, true,
                           &l->op_value[i])))
            bad++;
    }
    return bad;
}

/* The committed written reads that would read back from another writer
 * with the values kept; UINT32_MAX when out of memory. */
static uint32_t misread(ip_layout *l, const caps *c)
{
    const ip_trace *t = l->t;
    kv_index ix = {malloc((t->n_ops + 1) * sizeof *ix.w), 0, c->init_zero,
                   l->init_key};
    if (!ix.w)
        return UINT32_MAX;
    for (uint32_t i = 0; i < t->n_ops; i++)
        if (t->ops[i].kind == IP_WRITE && written(l, t->ops[i].txn))
            ix.w[ix.n++] = (kv){t->ops[i].key, l->op_value[i]};
    qsort(ix.w, ix.n, sizeof *ix.w, cmp_kv);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const ip_op *op = &t->ops[i];
        if (op->kind == IP_READ && written(l, op->txn) &&
            ip_committed(t, op->txn) && !read_keeps(l, c, &ix, i))
            bad++;
    }
    free(ix.w);
    return bad;
}

/* The value read op i reads when values are renumbered (writes already
 * numbered); *next is the next unused value. */
static uint64_t renumbered_read(const ip_layout *l, uint32_t i, uint64_t *next)
{
    const ip_trace *t = l->t;
    const ip_op *op = &t->ops[i];
    uint32_t w = op->local ? op->txn : op->from;
    if (w == IP_INIT_TXN)
        return 0;
    if (w != IP_NONE && written(l, w)) {
        /* the writer's latest write of the key: before the read in its own
         * transaction, its last one in another */
        const ip_txn *x = &t->txns[w];
        uint32_t end = w == op->txn ? i : x->op_first + x->op_count;
        for (uint32_t j = end; j-- > x->op_first;)
            if (t->ops[j].kind == IP_WRITE && t->ops[j].key == op->key)
                return l->op_value[j];
    }
    return (*next)++;             /* no writer: a value nobody wrote */
}

static void renumber_values(ip_layout *l)
{
    const ip_trace *t = l->t;
    uint64_t next = 1;
    for (uint32_t i = 0; i < t->n_ops; i++)
        l->op_value[i] =
            t->ops[i].kind == IP_WRITE && written(l, t->ops[i].txn) ? next++
                                                                     : 0;
    for (uint32_t i = 0; i < t->n_ops; i++)
        if (t->ops[i].kind == IP_READ && written(l, t->ops[i].txn))
            l->op_value[i] = renumbered_read(l, i, &next);
}

static bool number_values(ip_layout *l, const caps *c, ip_error *err)
{
    const ip_trace *t = l->t;
    uint32_t not_int = parse_values(l, c), bad = 0;
    if (!not_int && (bad = misread(l, c)) == UINT32_MAX)
        return ip_oom(err, "out of memory");
    if (!not_int && !bad)
        return true;
    renumber_values(l);
    if (not_int)
        note(l, false, not_int, "cannot hold values that are not %s 64-bit "
             "integers (the values of %u op%s): all values renumbered (writes "
             "1, 2, ... in order; a read the value of the write it reads)",
             c->is_signed ? "signed" : "unsigned", not_int,
             plural(not_int));
    else if (!c->by_value)
        note(l, false, bad, "needs a read's value to be its writer's, and the "
             "values of %u read%s do not (--lenient): all values renumbered",
             bad, plural(bad));
    else
        note(l, false, bad, "resolves reads by value, and these values do "
             "not name the writers of %u read%s alone: all values renumbered "
             "(writes 1, 2, ... in order; a read the value of the write it "
             "reads)", bad, plural(bad));
    note(l, true, t->n_ambiguous, "cannot keep the trace's %u ambiguous "
         "reads ambiguous: its values do not name their candidate writers "
         "alone", t->n_ambiguous);
    return true;
}

/* awdit-test: the keys whose initial value a written read reads. */
static void initial_keys(ip_layout *l)
{
    const ip_trace *t = l->t;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const ip_op *op = &t->ops[i];
        if (op->kind != IP_READ || op->local || !written(l, op->txn) ||
            !ip_committed(t, op->txn))
            continue;
        bool init = op->from == IP_INIT_TXN;
        uint32_t amb = op->from == IP_NONE ? ip_ambiguous_of_op(t, i)
                                           : IP_NONE;
        if (amb != IP_NONE)
            init = t->amb_writer[t->amb_first[amb]] == IP_INIT_TXN;
        if (init && !l->init_key[op->key]) {
            l->init_key[op->key] = 1;
            l->n_init_keys++;
        }
    }
    note(l, false, l->n_init_keys, "has no initial state: the initial "
         "values of %u key%s are written by a transaction of their own, "
         "first in the file, which reads back as an ordinary transaction "
         "(t0.0)", l->n_init_keys, plural(l->n_init_keys));
}

/* ---- isopredict-text ---------------------------------------------------- */

static void text_notes(ip_layout *l)
{
    const ip_trace *t = l->t;
    uint32_t bad_keys = 0, first = IP_NONE, values = 0, no_writer = 0;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        const char *s = ip_key_name(t, k);
        bool bad = !*s || strchr(s, ']') != NULL;
        for (; *s; s++)
            bad = bad || (unsigned char)*s < 0x20 || *s == 0x7f;
        if (bad && bad_keys++ == 0)
            first = k;
    }
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const ip_op *op = &t->ops[i];
        if (!written(l, op->txn))
            continue;
        values += op->value != IP_NONE;
        /* no writer, or one not written (an aborted one, --lenient) */
        uint32_t w = op->local ? op->txn : op->from;
        no_writer += op->kind == IP_READ &&
                     (w == IP_NONE ? ip_ambiguous_of_op(t, i) == IP_NONE
                                   : w != IP_INIT_TXN && !written(l, w));
    }
    note(l, true, bad_keys, "cannot spell key names that are empty or hold "
         "']' or a control byte ('%.40s', ...: %u key%s)",
         first == IP_NONE ? "" : ip_key_name(t, first), bad_keys,
         plural(bad_keys));
    note(l, true, t->n_ambiguous, "names one writer a read: the trace's %u "
         "ambiguous reads cannot be written", t->n_ambiguous);
    note(l, false, values, "cannot hold values: %u left out", values);
    note(l, false, no_writer, "cannot hold reads without a writer it "
         "holds (kept by --lenient): %u left out", no_writer);
}

/* ---- entry points ------------------------------------------------------- */

void ip_layout_free(ip_layout *l)
{
    free(l->txn_no);
    free(l->txn_gno);
    free(l->sess_no);
    free(l->key_num);
    free(l->op_value);
    free(l->init_key);
    *l = (ip_layout){0};
}

static bool layout_alloc(ip_layout *l, const caps *c)
{
    const ip_trace *t = l->t;
    l->txn_no = calloc(t->n_txns, sizeof *l->txn_no);
    l->txn_gno = calloc(t->n_txns, sizeof *l->txn_gno);
    l->sess_no = malloc((t->n_sessions + 1) * sizeof *l->sess_no);
    bool ok = l->txn_no && l->txn_gno && l->sess_no;
    if (ok && c->numbers) {
        l->key_num = calloc(t->n_keys + 1, sizeof *l->key_num);
        l->op_value = calloc(t->n_ops + 1, sizeof *l->op_value);
        ok = l->key_num && l->op_value;
    }
    if (ok && c->init_txn)
        ok = (l->init_key = calloc(t->n_keys + 1, 1)) != NULL;
    for (uint32_t s = 0; ok && s < t->n_sessions; s++)
        l->sess_no[s] = IP_NONE;
    return ok;
}

bool ip_layout_make(ip_layout *l, const ip_trace *t, ip_format fmt,
                    ip_error *err)
{
    *l = (ip_layout){.t = t, .fmt = fmt};
    const caps *c = caps_of(fmt);
    if (!c)
        return ip_fail(err, "the %s writer takes no layout",
                       ip_format_name(fmt));
    if (!layout_alloc(l, c)) {
        ip_layout_free(l);
        return ip_oom(err, "out of memory");
    }
    choose_txns(l, c);
    note_tool_fields(l);
    note_versions(l);
    if (!c->numbers) {
        text_notes(l);
        return true;
    }
    if (c->init_txn)
        initial_keys(l);
    number_keys(l, c);
    if (!number_values(l, c, err)) {
        ip_layout_free(l);
        return false;
    }
    return true;
}

const ip_write_note *ip_layout_refusal(const ip_layout *l)
{
    for (uint32_t i = 0; i < l->n_notes; i++)
        if (l->notes[i].refuse)
            return &l->notes[i];
    return NULL;
}

bool ip_layout_each_op(const ip_layout *l, FILE *out,
                       bool (*put)(const ip_layout *l, uint32_t op,
                                   FILE *out))
{
    const ip_trace *t = l->t;
    bool ok = true;
    for (uint32_t x = 1; ok && x < t->n_txns; x++) {
        const ip_txn *tx = &t->txns[x];
        for (uint32_t i = 0; ok && l->txn_no[x] && i < tx->op_count; i++)
            ok = put(l, tx->op_first + i, out);
    }
    return ok;
}
