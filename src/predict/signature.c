/*
 * signature.c - what a bug class is (predict.h, "Triage"): key families,
 * the labels of a cycle's transactions and the cycle rotated to a
 * canonical start, after its anomaly name (verdict.h names it).
 */
#include "predict.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct ip_key_family {
    regex_t re;
};

ip_key_family *ip_key_family_new(const char *regex, ip_error *err)
{
    ip_key_family *kf = malloc(sizeof *kf);
    if (!kf) {
        ip_oom(err, "key family: out of memory");
        return NULL;
    }
    int rc = regcomp(&kf->re, regex, REG_EXTENDED);
    if (rc != 0) {
        char why[200];
        regerror(rc, &kf->re, why, sizeof why);
        ip_fail(err, "--key-family: bad regular expression '%s': %s", regex,
                why);
        free(kf);
        return NULL;
    }
    return kf;
}

void ip_key_family_free(ip_key_family *kf)
{
    if (!kf)
        return;
    regfree(&kf->re);
    free(kf);
}

/* The default rule: every run of digits becomes one '*'. */
static void digits_to_star(const char *key, char *buf, size_t n)
{
    size_t len = 0;
    for (const char *c = key; *c && len + 1 < n; c++) {
        if (isdigit((unsigned char)*c)) {
            buf[len++] = '*';
            while (isdigit((unsigned char)c[1]))
                c++;
        } else {
            buf[len++] = *c;
        }
    }
    buf[len] = '\0';
}

void ip_key_family_of(const ip_key_family *kf, const char *key, char *buf,
                      size_t n)
{
    if (n == 0)
        return;
    if (!kf) {
        digits_to_star(key, buf, n);
        return;
    }
    regmatch_t m[2];
    if (regexec(&kf->re, key, 2, m, 0) != 0) {
        snprintf(buf, n, "%s", key);          /* its own family */
        return;
    }
    regmatch_t *g = m[1].rm_so >= 0 ? &m[1] : &m[0];
    int len = (int)(g->rm_eo - g->rm_so);
    snprintf(buf, n, "%.*s", len, key + g->rm_so);
}

/* A growing string; `failed` once an allocation failed. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int w = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)w < room) {
            b->len += (size_t)w;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 128;
        while (cap - b->len <= (size_t)w)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static char *sb_take(sbuf *b)
{
    if (b->failed || !b->s) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

/* The "procedure" tool field of txn x into *name (malloc'ed), NULL when
 * it has none; false when out of memory (the field text is JSON we wrote,
 * so a parse that fails ran out of memory). */
static bool procedure_of(const ip_trace *t, uint32_t x, char **name)
{
    *name = NULL;
    const char *extra = ip_str(t, t->txns[x].extra);
    if (!extra)
        return true;
    cJSON *j = cJSON_Parse(extra);
    if (!j)
        return false;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "procedure");
    bool ok = true;
    if (cJSON_IsString(p) && p->valuestring[0])
        ok = (*name = strdup(p->valuestring)) != NULL;
    cJSON_Delete(j);
    return ok;
}

/* Txn x's operations as "[r fam w fam ...]", a repeat of the previous
 * (kind, family) left out: what a transaction without a procedure does. */
static void shape_of(const ip_trace *t, uint32_t x, const ip_key_family *kf,
                     sbuf *b)
{
    char prev[256] = "", cur[256];
    const ip_txn *tx = &t->txns[x];
    sb_printf(b, "[");
    bool first = true;
    for (uint32_t o = tx->op_first; o < tx->op_first + tx->op_count; o++) {
        const ip_op *op = &t->ops[o];
        char fam[240];
        ip_key_family_of(kf, ip_key_name(t, op->key), fam, sizeof fam);
        snprintf(cur, sizeof cur, "%c %s", op->kind == IP_READ ? 'r' : 'w',
                 fam);
        if (!strcmp(cur, prev))
            continue;
        sb_printf(b, "%s%s", first ? "" : " ", cur);
        memcpy(prev, cur, sizeof prev);
        first = false;
    }
    sb_printf(b, "]");
}

char *ip_txn_label(const ip_trace *t, uint32_t x, const ip_key_family *kf)
{
    if (x == IP_INIT_TXN)
        return strdup("init");
    char *proc;
    if (!procedure_of(t, x, &proc) || proc)
        return proc;
    sbuf b = {0};
    shape_of(t, x, kf, &b);
    return sb_take(&b);
}

/* One step of a cycle: the label of the edge's source and the edge. */
typedef struct step {
    char *node, *edge;
} step;

/* Compare the rotations of `st` starting at a and at b. */
static int cmp_rotation(const step *st, uint32_t n, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i < n; i++) {
        const step *x = &st[(a + i) % n], *y = &st[(b + i) % n];
        int c = strcmp(x->node, y->node);
        if (!c)
            c = strcmp(x->edge, y->edge);
        if (c)
            return c;
    }
    return 0;
}

static bool make_steps(const ip_trace *h, const ip_cycle *c,
                       const ip_key_family *kf, step *st)
{
    for (uint32_t i = 0; i < c->n_edges; i++) {
        const ip_edge *e = &c->edges[i];
        st[i].node = ip_txn_label(h, e->from, kf);
        sbuf b = {0};
        if (e->key != IP_NONE) {
            char fam[240];
            ip_key_family_of(kf, ip_key_name(h, e->key), fam, sizeof fam);
            sb_printf(&b, "%s(%s)", ip_edge_kind_name(e->kind), fam);
        } else {
            sb_printf(&b, "%s", ip_edge_kind_name(e->kind));
        }
        st[i].edge = sb_take(&b);
        if (!st[i].node || !st[i].edge)
            return false;
    }
    return true;
}

static char *signature_of(const ip_trace *h, const ip_cycle *c,
                          const ip_key_family *kf)
{
    uint32_t n = c->n_edges;
    step *st = calloc(n, sizeof *st);
    if (!st)
        return NULL;
    char *out = NULL;
    if (make_steps(h, c, kf, st)) {
        uint32_t best = 0;
        for (uint32_t r = 1; r < n; r++)
            if (cmp_rotation(st, n, r, best) < 0)
                best = r;
        sbuf b = {0};
        sb_printf(&b, "%s: %s", ip_cycle_anomaly_name(h, IP_LVL_SER, c), st[best].node);
        for (uint32_t i = 0; i < n; i++)
            sb_printf(&b, " -%s-> %s", st[(best + i) % n].edge,
                      st[(best + i + 1) % n].node);
        out = sb_take(&b);
    }
    for (uint32_t i = 0; i < n; i++) {
        free(st[i].node);
        free(st[i].edge);
    }
    free(st);
    return out;
}

/* ---- the cycle a class is named by --------------------------------------- */

/* A direct edge a -> b that every version order has: so, or wr (b reads
 * a key from a).  Its kind into *e; false when there is none. */
static bool direct_edge(const ip_trace *h, uint32_t a, uint32_t b, ip_edge *e)
{
    if (a == b || a == IP_INIT_TXN || b == IP_INIT_TXN)
        return false;
    const ip_txn *x = &h->txns[a], *y = &h->txns[b];
    if (x->session == y->session && x->index < y->index) {
        *e = (ip_edge){.from = a, .to = b, .kind = IP_EDGE_SO,
                       .key = IP_NONE, .via = IP_NONE};
        return true;
    }
    for (uint32_t v = y->ev_first; v < y->ev_first + y->ev_count; v++)
        if (h->events[v].kind == IP_READ && h->events[v].writer == a) {
            *e = (ip_edge){.from = a, .to = b, .kind = IP_EDGE_WR,
                           .key = h->events[v].key, .via = IP_NONE};
            return true;
        }
    return false;
}

/* One shortcut: the direct edge that skips the most transactions of the
 * cycle e[0..*n), applied in place (tmp: room for *n edges); false when
 * there is none. */
static bool shortcut(const ip_trace *h, ip_edge *e, uint32_t *n,
                     ip_edge *tmp)
{
    uint32_t m = *n, best_i = 0, best_d = 0;
    ip_edge best = {0}, cand;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t d = 2; d < m; d++) {
            uint32_t j = (i + d) % m;
            if (d > best_d && direct_edge(h, e[i].from, e[j].from, &cand)) {
                best = cand;
                best_i = i;
                best_d = d;
            }
        }
    if (!best_d)
        return false;
    /* the new cycle: best, then the edges from the skipped-to node on */
    uint32_t k = 0;
    tmp[k++] = best;
    for (uint32_t s = 0; s < m - best_d; s++)
        tmp[k++] = e[(best_i + best_d + s) % m];
    memcpy(e, tmp, k * sizeof *e);
    *n = k;
    return true;
}

bool ip_cycle_shorten(const ip_trace *h, const ip_cycle *c, ip_cycle *out)
{
    size_t room = (size_t)c->n_edges + 1;
    out->n_edges = 0;
    out->edges = malloc(room * sizeof *out->edges);
    ip_edge *tmp = malloc(room * sizeof *tmp);
    if (!out->edges || !tmp) {
        free(out->edges);
        free(tmp);
        out->edges = NULL;
        return false;
    }
    memcpy(out->edges, c->edges, c->n_edges * sizeof *c->edges);
    out->n_edges = c->n_edges;
    while (out->n_edges > 2 && shortcut(h, out->edges, &out->n_edges, tmp))
        ;
    free(tmp);
    return true;
}

char *ip_cycle_signature(const ip_trace *h, const ip_cycle *c,
                         const ip_key_family *kf)
{
    if (!c || c->n_edges == 0)
        return strdup("no cycle");
    ip_cycle s;
    if (!ip_cycle_shorten(h, c, &s))
        return NULL;
    char *sig = signature_of(h, &s, kf);
    free(s.edges);
    return sig;
}

const char *ip_signature_anomaly(const char *signature)
{
    static const char *const names[] = {"lost update", "write skew", "G0",
                                        "G1c", "G-single", "G2-item"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t n = strlen(names[i]);
        if (!strncmp(signature, names[i], n) && signature[n] == ':')
            return names[i];
    }
    return "cycle";
}
