/* tv_build.c - the test notation of tv.h, fed to ip_builder. */
#include "tv.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        s[--n] = 0;
    return s;
}

static bool add_op(ip_builder *b, uint32_t txn, char *op, ip_error *err)
{
    char kind = op[0];
    char *key = trim(op + 1), *arg = strchr(key, ' '), *val = strchr(key, '=');
    if (val)
        *val++ = 0;
    if (arg && !val) {
        *arg++ = 0;
        arg = trim(arg);
    } else {
        arg = NULL;
    }
    if (kind == 'w')
        return ip_builder_op(b, txn, IP_WRITE, key, val, NULL, 0, err);
    return ip_builder_op(b, txn, IP_READ, key, val, arg, 0, err);
}

/* Known version orders after '#': "KEY: T1 T2 / KEY2: T3". */
static void add_versions(ip_builder *b, char *vo, char *const *names,
                         const uint32_t *handles, uint32_t n, ip_error *err)
{
    char *save_k = NULL;
    for (char *k = strtok_r(vo, "/", &save_k); k;
         k = strtok_r(NULL, "/", &save_k)) {
        char *colon = strchr(k, ':'), *save_w = NULL;
        *colon = 0;
        uint32_t hs[64], m = 0;
        for (char *w = strtok_r(colon + 1, " ", &save_w); w;
             w = strtok_r(NULL, " ", &save_w))
            for (uint32_t i = 0; i < n; i++)
                if (!strcmp(names[i], w))
                    hs[m++] = handles[i];
        if (!ip_builder_version_order(b, trim(k), hs, m, err))
            fprintf(stderr, "tv_build: %s\n", err->msg);
    }
}

/* Transactions are declared in a first pass so that reads may name
 * writers declared later. */
ip_trace *tv_build(const char *spec)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("spec", "init", IP_LENIENT);
    char *copy = strdup(spec), *save_s = NULL;
    char *vo = strchr(copy, '#');
    if (vo)
        *vo++ = 0;
    char *bodies[64], *names[64];
    uint32_t handles[64], n = 0, sess = 0;
    for (char *s = strtok_r(copy, "|", &save_s); s;
         s = strtok_r(NULL, "|", &save_s)) {
        char name[16];
        snprintf(name, sizeof name, "s%u", sess++);
        uint32_t si = ip_builder_session(b, name, &err);
        char *save_t = NULL;
        for (char *x = strtok_r(s, ";", &save_t); x;
             x = strtok_r(NULL, ";", &save_t)) {
            char *colon = strchr(x, ':');
            *colon = 0;
            char *tn = trim(x);
            bool aborted = tn[0] == '!';
            names[n] = tn + aborted;
            handles[n] = ip_builder_txn(b, si, tn + aborted,
                                        aborted ? IP_ABORTED : IP_COMMITTED,
                                        0, &err);
            bodies[n++] = colon + 1;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        char *save_o = NULL;
        for (char *op = strtok_r(bodies[i], ",", &save_o); op;
             op = strtok_r(NULL, ",", &save_o))
            if (!add_op(b, handles[i], trim(op), &err))
                fprintf(stderr, "tv_build: %s\n", err.msg);
    }
    if (vo)
        add_versions(b, vo, names, handles, n, &err);
    free(copy);
    ip_trace *t = ip_builder_finish(b, &err);
    if (!t)
        fprintf(stderr, "tv_build: %s: %s\n", spec, err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    return t;
}
