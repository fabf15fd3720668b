/*
 * gen_formats.c - write one plume history (as bench/check/gen_causal.c
 * makes them: values unique per key, 0 the initial value, no aborts) in
 * the other input formats, for the reading benchmark:
 *
 *   OUT.txt    isopredict-text (reads name their writer: From(s, i))
 *   OUT.awdit  awdit-test (session and transaction separators; a first
 *              transaction writes the initial values the history reads)
 *   OUT.bincode dbcop (every event and transaction successful)
 *   OUT.cobra/ Cobra logs, one a session, reads naming writer txn and write
 *
 * JSON comes from `isopredict convert`.  usage: gen_formats IN.plume OUT
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct op {
    char kind;                /* 'r' or 'w' */
    uint64_t key, value;
    uint32_t txn;             /* index into txns */
} op;

typedef struct txn {
    uint64_t id;              /* plume txn number */
    uint32_t session, index;  /* session index, position in it */
    uint32_t first, n;        /* its ops in ops_by_txn */
} txn;

typedef struct hist {
    op *ops;
    uint32_t n_ops;
    txn *txns;
    uint32_t n_txns;
    uint32_t *by_txn;         /* op indices grouped by txn */
    uint32_t n_sessions;
    uint32_t *session_txns;   /* txn indices grouped by session */
    uint32_t *session_first;  /* n_sessions + 1 */
} hist;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("gen_formats: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

/* Dense index of plume number x in a table of size cap (open addressing
 * on x + 1, 0 empty); *n counts entries. */
static uint32_t dense(uint64_t *keys, uint32_t *vals, uint32_t cap,
                      uint64_t x, uint32_t *n)
{
    uint32_t i = (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
    while (keys[i] && keys[i] != x + 1)
        i = (i + 1) & (cap - 1);
    if (!keys[i]) {
        keys[i] = x + 1;
        vals[i] = (*n)++;
    }
    return vals[i];
}

static void load(hist *h, FILE *f)
{
    uint32_t cap_ops = 1 << 20, cap_tab = 1 << 22, n_sess = 0;
    uint64_t *tkeys = xcalloc(cap_tab, 8), *skeys = xcalloc(4096, 8);
    uint32_t *tvals = xcalloc(cap_tab, 4), *svals = xcalloc(4096, 4);
    uint32_t *sess_of = xcalloc(cap_tab, 4);
    uint64_t *tid = xcalloc(cap_tab, 8);
    h->ops = xcalloc(cap_ops, sizeof *h->ops);
    char line[256];
    unsigned long long k, v, s, t;
    char c;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%c(%llu,%llu,%llu,%llu)", &c, &k, &v, &s, &t) != 5)
            continue;
        if (h->n_ops == cap_ops) {
            cap_ops *= 2;
            h->ops = realloc(h->ops, cap_ops * sizeof *h->ops);
            if (!h->ops)
                exit(2);
        }
        uint32_t before = h->n_txns;
        uint32_t x = dense(tkeys, tvals, cap_tab, t, &h->n_txns);
        if (h->n_txns > before) {
            tid[x] = t;
            sess_of[x] = dense(skeys, svals, 4096, s, &n_sess);
        }
        h->ops[h->n_ops++] = (op){c, k, v, x};
    }
    h->n_sessions = n_sess;
    h->txns = xcalloc(h->n_txns, sizeof *h->txns);
    for (uint32_t x = 0; x < h->n_txns; x++)
        h->txns[x] = (txn){.id = tid[x], .session = sess_of[x]};
    for (uint32_t i = 0; i < h->n_ops; i++)
        h->txns[h->ops[i].txn].n++;
    uint32_t at = 0;
    for (uint32_t x = 0; x < h->n_txns; x++)
        h->txns[x].first = at, at += h->txns[x].n, h->txns[x].n = 0;
    h->by_txn = xcalloc(h->n_ops, 4);
    for (uint32_t i = 0; i < h->n_ops; i++) {
        txn *x = &h->txns[h->ops[i].txn];
        h->by_txn[x->first + x->n++] = i;
    }
    h->session_first = xcalloc(n_sess + 1, 4);
    for (uint32_t x = 0; x < h->n_txns; x++)
        h->txns[x].index = h->session_first[h->txns[x].session + 1]++;
    for (uint32_t s2 = 0; s2 < n_sess; s2++)
        h->session_first[s2 + 1] += h->session_first[s2];
    h->session_txns = xcalloc(h->n_txns, 4);
    for (uint32_t x = 0; x < h->n_txns; x++)
        h->session_txns[h->session_first[h->txns[x].session] +
                        h->txns[x].index] = x;
    free(tkeys), free(tvals), free(skeys), free(svals), free(sess_of);
    free(tid);
}

/* The txn that wrote (key, value) last, or UINT32_MAX for the initial
 * value: a table over the writes (values are unique per key). */
typedef struct writes {
    uint64_t *key, *value;
    uint32_t *txn, *wid, cap;
} writes;

static uint32_t wslot(const writes *w, uint64_t k, uint64_t v)
{
    uint64_t x = (k * 0x9E3779B97F4A7C15ull) ^ (v * 0xC2B2AE3D27D4EB4Full);
    uint32_t i = (uint32_t)(x >> 40) & (w->cap - 1);
    while (w->txn[i] != UINT32_MAX && (w->key[i] != k || w->value[i] != v))
        i = (i + 1) & (w->cap - 1);
    return i;
}

static void index_writes(const hist *h, writes *w)
{
    w->cap = 1;
    while (w->cap < 2 * h->n_ops + 2)
        w->cap *= 2;
    w->key = xcalloc(w->cap, 8);
    w->value = xcalloc(w->cap, 8);
    w->txn = xcalloc(w->cap, 4);
    w->wid = xcalloc(w->cap, 4);
    memset(w->txn, 0xff, (size_t)w->cap * 4);
    for (uint32_t i = 0; i < h->n_ops; i++)
        if (h->ops[i].kind == 'w') {
            uint32_t s = wslot(w, h->ops[i].key, h->ops[i].value);
            w->key[s] = h->ops[i].key;
            w->value[s] = h->ops[i].value;
            w->txn[s] = h->ops[i].txn;
            w->wid[s] = i + 1;
        }
}

static FILE *create(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "gen_formats: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    return f;
}

static void write_text(const hist *h, const writes *w, const char *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.txt", out);
    FILE *f = create(path);
    for (uint32_t i = 0; i < h->n_ops; i++) {
        const op *o = &h->ops[i];
        const txn *x = &h->txns[o->txn];
        if (o->kind == 'w') {
            fprintf(f, "WRITE KEY[%llu] Txn(%u, %u)\n",
                    (unsigned long long)o->key, x->session + 1, x->index);
            continue;
        }
        uint32_t s = wslot(w, o->key, o->value);
        uint32_t ws = 0, wi = 0;
        if (o->value != 0 && w->txn[s] != UINT32_MAX) {
            ws = h->txns[w->txn[s]].session + 1;
            wi = h->txns[w->txn[s]].index;
        }
        fprintf(f, "READ KEY[%llu] Txn(%u, %u) From(%u, %u)\n",
                (unsigned long long)o->key, x->session + 1, x->index, ws, wi);
    }
    fclose(f);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void write_awdit(const hist *h, const char *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.awdit", out);
    FILE *f = create(path);
    /* the format has no initial state: a first session writes value 0 of
     * every key the history reads it of */
    uint64_t *zero = xcalloc(1, sizeof *zero);
    uint32_t n_zero = 0, cap_zero = 1;
    for (uint32_t i = 0; i < h->n_ops; i++) {
        if (h->ops[i].kind != 'r' || h->ops[i].value != 0)
            continue;
        if (n_zero == cap_zero) {
            cap_zero *= 2;
            zero = realloc(zero, cap_zero * sizeof *zero);
            if (!zero)
                exit(2);
        }
        zero[n_zero++] = h->ops[i].key;
    }
    qsort(zero, n_zero, sizeof *zero, cmp_u64);
    for (uint32_t i = 0; i < n_zero; i++)
        if (i == 0 || zero[i] != zero[i - 1])
            fprintf(f, "w %llu 0\n", (unsigned long long)zero[i]);
    fputs("-----\n=====\n", f);
    free(zero);
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        for (uint32_t j = h->session_first[s]; j < h->session_first[s + 1];
             j++) {
            const txn *x = &h->txns[h->session_txns[j]];
            for (uint32_t i = x->first; i < x->first + x->n; i++) {
                const op *o = &h->ops[h->by_txn[i]];
                fprintf(f, "%c %llu %llu\n", o->kind,
                        (unsigned long long)o->key,
                        (unsigned long long)o->value);
            }
            fputs("-----\n", f);
        }
        fputs("=====\n", f);
    }
    fclose(f);
}

static void le64(FILE *f, uint64_t x)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(x >> (8 * i));
    fwrite(b, 1, 8, f);
}

static void write_dbcop(const hist *h, const char *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.bincode", out);
    FILE *f = create(path);
    uint64_t header[5] = {0, h->n_sessions, 0, h->n_txns, h->n_ops};
    for (int i = 0; i < 5; i++)
        le64(f, header[i]);
    const char *strings[3] = {"gen_formats", "start", "end"};
    for (int i = 0; i < 3; i++) {
        le64(f, strlen(strings[i]));
        fputs(strings[i], f);
    }
    le64(f, h->n_sessions);
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        le64(f, h->session_first[s + 1] - h->session_first[s]);
        for (uint32_t j = h->session_first[s]; j < h->session_first[s + 1];
             j++) {
            const txn *x = &h->txns[h->session_txns[j]];
            le64(f, x->n);
            for (uint32_t i = x->first; i < x->first + x->n; i++) {
                const op *o = &h->ops[h->by_txn[i]];
                fputc(o->kind == 'w', f);
                le64(f, o->key);
                le64(f, o->value);
                fputc(1, f);
            }
            fputc(1, f);
        }
    }
    fclose(f);
}

static void be64(FILE *f, uint64_t x)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(x >> (56 - 8 * i));
    fwrite(b, 1, 8, f);
}

static void write_cobra(const hist *h, const writes *w, const char *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.cobra", out);
    if (mkdir(path, 0777) && errno != EEXIST) {
        fprintf(stderr, "gen_formats: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        char file[4200];
        snprintf(file, sizeof file, "%s/T%03u.log", path, s);
        FILE *f = create(file);
        for (uint32_t j = h->session_first[s]; j < h->session_first[s + 1];
             j++) {
            uint32_t xi = h->session_txns[j];
            const txn *x = &h->txns[xi];
            fputc('S', f), be64(f, x->id + 1);
            for (uint32_t i = x->first; i < x->first + x->n; i++) {
                const op *o = &h->ops[h->by_txn[i]];
                if (o->kind == 'w') {
                    fputc('W', f), be64(f, h->by_txn[i] + 1);
                    be64(f, o->key), be64(f, o->value);
                    continue;
                }
                uint32_t ws = wslot(w, o->key, o->value);
                uint64_t wt = 0xbebeebee, wid = 0xbebeebee;
                if (o->value != 0 && w->txn[ws] != UINT32_MAX)
                    wt = h->txns[w->txn[ws]].id + 1, wid = w->wid[ws];
                fputc('R', f), be64(f, wt), be64(f, wid);
                be64(f, o->key), be64(f, o->value);
            }
            fputc('C', f), be64(f, x->id + 1);
        }
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: gen_formats IN.plume OUT\n", stderr);
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "gen_formats: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    hist h = {0};
    load(&h, in);
    fclose(in);
    writes w;
    index_writes(&h, &w);
    write_text(&h, &w, argv[2]);
    write_awdit(&h, argv[2]);
    write_dbcop(&h, argv[2]);
    write_cobra(&h, &w, argv[2]);
    return 0;
}
