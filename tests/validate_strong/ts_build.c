/* ts_build.c - traces from one-line transaction specs (see ts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts.h"

#define MAXS 64

typedef struct names {
    char name[MAXS][32];
    uint32_t id[MAXS];
    uint32_t n;
} names;

static uint32_t session_of(ip_builder *b, names *s, const char *name,
                           ip_error *err)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (strcmp(s->name[i], name) == 0)
            return s->id[i];
    if (s->n == MAXS)
        return IP_NONE;
    snprintf(s->name[s->n], sizeof s->name[0], "%s", name);
    s->id[s->n] = ip_builder_session(b, name, err);
    return s->id[s->n++];
}

static bool add_op(ip_builder *b, uint32_t txn, const char *tok,
                   ip_error *err)
{
    char key[64], from[64];
    if (tok[0] == 'w')
        return ip_builder_op(b, txn, IP_WRITE, tok + 1, NULL, NULL, 0, err);
    const char *colon = strchr(tok, ':');
    if (tok[0] != 'r' || !colon || (size_t)(colon - tok) > sizeof key)
        return ip_fail(err, "bad op '%s'", tok);
    snprintf(key, sizeof key, "%.*s", (int)(colon - tok - 1), tok + 1);
    snprintf(from, sizeof from, "%s", colon + 1);
    return ip_builder_op(b, txn, IP_READ, key, NULL, from, 0, err);
}

static bool add_txn(ip_builder *b, names *s, const char *line, ip_error *err)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", line);
    char *sess = strtok_r(buf, " ", &save), *name = strtok_r(NULL, " ", &save);
    if (!sess || !name)
        return ip_fail(err, "bad spec '%s'", line);
    size_t len = strlen(name);
    bool aborted = name[len - 1] == '!';
    if (aborted)
        name[len - 1] = '\0';
    uint32_t sid = session_of(b, s, sess, err);
    if (sid == IP_NONE)
        return false;
    uint32_t txn = ip_builder_txn(b, sid, name,
                                  aborted ? IP_ABORTED : IP_COMMITTED, 0, err);
    if (txn == IP_NONE)
        return false;
    for (char *tok; (tok = strtok_r(NULL, " ", &save));)
        if (!add_op(b, txn, tok, err))
            return false;
    return true;
}

ip_trace *ts_build(const char *const *spec)
{
    ip_error err = {0};
    names *s = calloc(1, sizeof *s);
    ip_builder *b = ip_builder_new("test", "init", IP_STRICT);
    bool ok = s && b;
    for (size_t i = 0; ok && spec[i]; i++)
        ok = add_txn(b, s, spec[i], &err);
    free(s);
    if (!ok) {
        fprintf(stderr, "ts_build: %s\n", err.msg);
        ip_builder_free(b);
        return NULL;
    }
    ip_trace *t = ip_builder_finish(b, &err);
    if (!t)
        fprintf(stderr, "ts_build: %s\n", err.msg);
    return t;
}
