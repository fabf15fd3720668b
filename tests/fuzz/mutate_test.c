/*
 * mutate_test.c - deterministic mutation fuzzing of the readers, run by
 * CTest.  Seeds in every input format are mutated by byte flips,
 * insertions of format tokens, deletions, duplications and truncations
 * (a seeded PRNG, so a failure reproduces), and each mutant goes through
 * fuzz_check with auto-detection and with its own reader, strict and
 * lenient.  The crash regressions in regress/ are replayed first.
 *
 * usage: mutate_test FUZZ_DIR CORPUS_DIR [ITERATIONS [SEED]]
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_check.h"
#include "trace_equal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r)              /* splitmix64 */
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t below(rng *r, size_t n)
{
    return n ? (size_t)(next(r) % n) : 0;
}

static const char *const TOKENS[] = {
    "\n", " ", ",", "(", ")", "[", "]", "{", "}", "\"", ":", "-1", "0",
    "18446744073709551616", "99999999999999999999999", "w(", "r(",
    "w(1,0,0,0)\n", "r(1,0,5,-1)\n", "-----\n", "=====\n", "r 0 0\n",
    "w 0 0\n", "Txn(0, 0)", "Txn(1, 0)", "From(0, 0)", "From(1, 1)",
    "WRITE KEY[x] ", "READ KEY[", "INSERT[", "] to Set[", "CONTAINS[",
    "\"from\":\"init\",", "\"from\":\"t1\",", "\"status\":\"aborted\",",
    "\"value\":1,", "\"value\":null,", "\"op\":\"read\",", "\"id\":\"t1\",",
    "{\"op\":\"write\",\"key\":\"a\"},", "\\u0000", "\r\n", "\t",
    ":type :ok", ":type :invoke", ":type :fail", ":type :info", ":process 1",
    ":f :txn", "[:r :x nil]", "[:w :x 1]", "[:append 1 2]", "[:r 1 [2 1]]",
    "nil", "#{", "#_", "#tag ", "; c\n", "\\n", "\\u00e9",
};
#define N_TOKENS (sizeof TOKENS / sizeof *TOKENS)

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void insert(buf *b, size_t at, const char *s, size_t n)
{
    if (b->len + n > b->cap)
        n = b->cap - b->len;
    memmove(b->p + at + n, b->p + at, b->len - at);
    memcpy(b->p + at, s, n);
    b->len += n;
}

static void mutate_once(buf *b, rng *r)
{
    size_t at = below(r, b->len + 1);
    switch (below(r, 6)) {
    case 0:                                   /* flip a bit */
        if (b->len)
            b->p[below(r, b->len)] ^= (char)(1u << below(r, 8));
        break;
    case 1: {                                 /* insert a format token */
        const char *tok = TOKENS[below(r, N_TOKENS)];
        insert(b, at, tok, strlen(tok));
        break;
    }
    case 2: {                                 /* delete a short range */
        size_t n = below(r, 16) + 1;
        if (at + n > b->len)
            n = b->len - at;
        memmove(b->p + at, b->p + at + n, b->len - at - n);
        b->len -= n;
        break;
    }
    case 3:                                   /* truncate */
        b->len = at;
        break;
    case 4: {                                 /* duplicate a range */
        size_t from = below(r, b->len + 1), n = below(r, 64);
        if (from + n > b->len)
            n = b->len - from;
        char tmp[64];
        memcpy(tmp, b->p + from, n);
        insert(b, at, tmp, n);
        break;
    }
    default:                                  /* random byte */
        if (b->len)
            b->p[below(r, b->len)] = (char)next(r);
        break;
    }
}

/* Check one input with detection and with its reader, both modes; the
 * exact-size copy lets ASan see any read past the end. */
static int check_all(const char *name, const char *data, size_t len,
                     ip_format own)
{
    static const ip_mode modes[] = {IP_STRICT, IP_LENIENT};
    int fails = 0;
    char *exact = malloc(len ? len : 1);
    if (!exact)
        return 1;
    memcpy(exact, data, len);
    for (int m = 0; m < 2; m++) {
        for (int f = 0; f < 2; f++) {
            char why[600];
            ip_format fmt = f ? own : IP_FMT_AUTO;
            if (!fuzz_check(name, exact, len, fmt, modes[m], why,
                            sizeof why)) {
                fprintf(stderr, "FAIL %s (format %s, %s): %s\n", name,
                        ip_format_name(fmt), m ? "lenient" : "strict", why);
                fails++;
            }
        }
    }
    free(exact);
    return fails;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *p = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 4096 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *q = realloc(p, cap);
            if (!q)
                break;
            p = q;
        }
        got = fread(p + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return p;
}

static int fuzz_seed(const char *name, const char *seed, size_t len,
                     ip_format own, unsigned iters, uint64_t s)
{
    rng r = {s};
    buf b = {.cap = 2 * len + 1024};
    b.p = malloc(b.cap);
    int fails = check_all(name, seed, len, own);
    for (unsigned i = 0; b.p && i < iters && fails < 10; i++) {
        memcpy(b.p, seed, len);
        b.len = len;
        for (size_t k = below(&r, 4) + 1; k > 0; k--)
            mutate_once(&b, &r);
        char label[512];
        snprintf(label, sizeof label, "%s#%u", name, i);
        int f = check_all(label, b.p, b.len, own);
        if (f) {
            fprintf(stderr, "  mutant %u of %s (seed %llu), %zu bytes:\n",
                    i, name, (unsigned long long)s, b.len);
            fwrite(b.p, 1, b.len, stderr);
            fputc('\n', stderr);
        }
        fails += f;
    }
    free(b.p);
    return fails;
}

static int replay_regressions(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int fails = 0, n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
            (int)sizeof path)
            continue;
        size_t len;
        char *data = slurp(path, &len);
        if (!data)
            continue;
        /* a name starting with a format's name ("cobra-...") is replayed
         * in that format too; libFuzzer inputs start with the harness's
         * selector byte: replay both the raw file and the input the
         * harness saw */
        char prefix[32] = "";
        ip_format own = IP_FMT_AUTO;
        size_t plen = strcspn(e->d_name, "-.");
        if (plen < sizeof prefix)
            memcpy(prefix, e->d_name, plen), prefix[plen] = '\0';
        if (!ip_format_parse(prefix, &own))
            own = IP_FMT_AUTO;
        fails += check_all(path, data, len, own);
        if (len)
            fails += check_all(path, data + 1, len - 1, own);
        free(data);
        n++;
    }
    closedir(d);
    printf("replayed %d regression input(s)\n", n);
    return fails;
}

typedef struct seed_file {
    const char *dir, *path;
    ip_format fmt;
} seed_file;

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FUZZ_DIR CORPUS_DIR [ITERS [SEED]]\n",
                argv[0]);
        return 2;
    }
    unsigned iters = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 2500;
    uint64_t s = argc > 4 ? strtoull(argv[4], NULL, 10) : 20240521;
    const char *fz = argv[1], *corpus = argv[2];
    const seed_file seeds[] = {
        {corpus, "awdit-tests/causal/long-fork.txt", IP_FMT_AWDIT_TEST},
        {corpus, "awdit-tests/read-atomic/generated/l10e100sqrt.txt",
         IP_FMT_AWDIT_TEST},
        {corpus, "isopredict-microbenchmark/simple_causal_2s5t.txt",
         IP_FMT_ISOPREDICT_TEXT},
        {corpus, "isopredict-microbenchmark/always_serial_3s4t.txt",
         IP_FMT_ISOPREDICT_TEXT},
        {fz, "seeds/small.plume", IP_FMT_PLUME},
        {fz, "seeds/small.json", IP_FMT_JSON},
        {fz, "seeds/small.bincode", IP_FMT_DBCOP},
        {fz, "seeds/small.cobra", IP_FMT_COBRA},
        {fz, "seeds/small.edn", IP_FMT_ELLE},
        {corpus, "elle/si-without-g-single.edn", IP_FMT_ELLE},
    };
    char path[4096];
    snprintf(path, sizeof path, "%s/regress", fz);
    int fails = replay_regressions(path);
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        snprintf(path, sizeof path, "%s/%s", seeds[i].dir, seeds[i].path);
        size_t len;
        char *data = slurp(path, &len);
        if (!data) {
            fprintf(stderr, "cannot read seed %s\n", path);
            return 1;
        }
        fails += fuzz_seed(path, data, len, seeds[i].fmt, iters, s + i);
        /* the same history as JSON, as our writer prints it */
        ip_error err = {0};
        ip_trace *t = ip_read_buffer(path, data, len, seeds[i].fmt,
                                     IP_LENIENT, &err);
        size_t jlen;
        char *json = t ? trace_json_text(t, &jlen) : NULL;
        if (json) {
            strcat(path, ".as.json");
            fails += fuzz_seed(path, json, jlen, IP_FMT_JSON, iters / 2,
                               s + 100 + i);
        }
        free(json);
        ip_trace_free(t);
        free(data);
    }
    printf("%s\n", fails ? "FAILED" : "no failures");
    return fails ? 1 : 0;
}
