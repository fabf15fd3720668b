/*
 * json_feed.c - the JSON reader's declarations on their way to the builder
 * (see json_reader.h).
 *
 * Walking a large document and building its trace take about as long as
 * each other, so on a large input they run at once: the reader queues
 * each declaration as a command in a batch, and a second thread applies
 * the batches to the builder in order.  The builder is that thread's
 * alone until jr_feed_end.  The reader does not wait for handles: the
 * builder numbers sessions from 0 and transactions from 1 as they are
 * declared, and a declaration that fails stops everything anyway.
 *
 * Errors come out as a walk that called the builder directly gives them:
 * the builder fails on a command the reader had queued before anything
 * the reader itself refused, so its error, when there is one, is first.
 */
#include "json_reader.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Commands a batch holds and the bytes of texts it copies before it is
 * handed over (tool fields can be large), batches in the ring, and the
 * input size from which a second thread applies them (below it, one
 * batch, applied by the reader's thread when full). */
enum {
    FEED_CMDS = 2048, FEED_TEXT = 1 << 18, FEED_BATCHES = 4,
    FEED_THREAD_FROM = 1 << 20
};

typedef enum {
    CMD_SESSION, CMD_TXN, CMD_STATUS, CMD_OP, CMD_CANDIDATES, CMD_EXTRA
} cmd_kind;

/* A text of a command: in the input (which outlives the feed) or copied
 * into its batch's text, by offset since that moves as it grows. */
typedef union text_at {
    const char *p;
    size_t off;
} text_at;

typedef struct feed_cmd {
    uint8_t what;             /* cmd_kind */
    uint8_t kind;             /* op kind, status, or extra's ip_extra_at */
    uint8_t present, copied;  /* bit x: text x given / in the batch */
    uint32_t handle;          /* the session, txn or entity it is about */
    uint32_t arg;             /* a txn's session; candidates' count; an
                                 op's 1 for a read's "from": null */
    uint32_t len[3];
    text_at at[3];            /* candidates: key, value, the first id */
} feed_cmd;

typedef struct feed_batch {
    feed_cmd cmd[FEED_CMDS];
    uint32_t n;
    text_buf text;            /* copied texts, NUL-terminated */
} feed_batch;

struct jr_feed {
    ip_builder *b;
    ip_error err;             /* the builder's error, when it failed */
    feed_batch *batch;
    uint32_t n_batches;       /* FEED_BATCHES, or 1 without a thread */
    feed_batch *fill;         /* batch[submitted % n_batches], the reader's */
    const char **ids;         /* candidates of the command applied */
    uint32_t cap_ids;
    uint32_t next_session, next_txn;   /* handles the builder will give */
    bool threaded;
    pthread_t thread;
    pthread_mutex_t mu;       /* guards the four below */
    pthread_cond_t cv;
    uint64_t submitted, applied;   /* batches; the reader fills
                                      batch[submitted % n_batches] */
    bool failed, ending;
};

/* ---- applying --------------------------------------------------------- */

static const char *text_of(const feed_batch *bt, const feed_cmd *c, int x)
{
    if (!(c->present >> x & 1))
        return NULL;
    return c->copied >> x & 1 ? bt->text.p + c->at[x].off : c->at[x].p;
}

/* A handle the builder gave, checked against the one the reader used. */
static bool same_handle(jr_feed *f, uint32_t got, uint32_t want)
{
    if (got == want || got == IP_NONE)
        return got != IP_NONE;
    return ip_fail(&f->err, "internal error: the JSON reader's handle %u "
                   "is the builder's %u", want, got);
}

static bool apply_candidates(jr_feed *f, const feed_batch *bt,
                             const feed_cmd *c)
{
    if (c->arg > f->cap_ids) {
        const char **ids = realloc(f->ids, c->arg * sizeof *ids);
        if (!ids)
            return ip_oom(&f->err, "out of memory");
        f->ids = ids;
        f->cap_ids = c->arg;
    }
    const char *id = text_of(bt, c, 2);
    for (uint32_t i = 0; i < c->arg; i++, id += strlen(id) + 1)
        f->ids[i] = id;
    return ip_builder_read_candidates(f->b, c->handle, text_of(bt, c, 0),
                                      text_of(bt, c, 1), f->ids, c->arg, 0,
                                      &f->err);
}

static bool apply_one(jr_feed *f, const feed_batch *bt, const feed_cmd *c)
{
    ip_builder *b = f->b;
    const char *s0 = text_of(bt, c, 0);
    switch ((cmd_kind)c->what) {
    case CMD_SESSION:
        return same_handle(f, ip_builder_session(b, s0, &f->err), c->handle);
    case CMD_TXN:
        return same_handle(f, ip_builder_txn(b, c->arg, s0,
                                             (ip_status)c->kind, 0, &f->err),
                           c->handle);
    case CMD_STATUS:
        ip_builder_txn_status(b, c->handle, (ip_status)c->kind);
        return true;
    case CMD_OP:
        if (c->arg)               /* a read's "from": null */
            return ip_builder_read_no_writer(b, c->handle, s0, c->len[0],
                                             text_of(bt, c, 1), c->len[1], 0,
                                             &f->err);
        return ip_builder_op_len(b, c->handle, (ip_op_kind)c->kind, s0,
                                 c->len[0], text_of(bt, c, 1), c->len[1],
                                 text_of(bt, c, 2), c->len[2], 0, &f->err);
    case CMD_CANDIDATES:
        return apply_candidates(f, bt, c);
    case CMD_EXTRA:
        return ip_builder_extra(b, (ip_extra_at)c->kind, c->handle, s0,
                                &f->err);
    }
    return false;
}

static bool apply(jr_feed *f, const feed_batch *bt)
{
    for (uint32_t i = 0; i < bt->n; i++)
        if (!apply_one(f, bt, &bt->cmd[i]))
            return false;
    return true;
}

/* The second thread: batches in order until the reader ends; after a
 * failure the rest are only marked applied. */
static void *consume(void *arg)
{
    jr_feed *f = arg;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (f->applied == f->submitted && !f->ending)
            pthread_cond_wait(&f->cv, &f->mu);
        if (f->applied == f->submitted)
            break;
        const feed_batch *bt = &f->batch[f->applied % f->n_batches];
        bool skip = f->failed;
        pthread_mutex_unlock(&f->mu);
        bool ok = skip || apply(f, bt);
        pthread_mutex_lock(&f->mu);
        f->failed = f->failed || !ok;
        f->applied++;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* ---- queueing --------------------------------------------------------- */

/* Hand the batch being filled over and get an empty one; false when the
 * builder has failed (nothing more is worth queueing). */
static bool submit(jr_feed *f)
{
    if (!f->threaded) {
        f->failed = f->failed || !apply(f, f->fill);
        f->fill->n = 0;
        f->fill->text.n = 0;
        return !f->failed;
    }
    pthread_mutex_lock(&f->mu);
    f->submitted++;
    pthread_cond_broadcast(&f->cv);
    while (f->submitted - f->applied == f->n_batches && !f->failed)
        pthread_cond_wait(&f->cv, &f->mu);
    bool ok = !f->failed;
    pthread_mutex_unlock(&f->mu);
    if (ok) {
        f->fill = &f->batch[f->submitted % f->n_batches];
        f->fill->n = 0;
        f->fill->text.n = 0;
    }
    return ok;
}

/* A new command in the batch being filled, or NULL when the builder has
 * failed. */
static feed_cmd *new_cmd(json_reader *r, cmd_kind what, uint8_t kind,
                         uint32_t handle)
{
    jr_feed *f = r->feed;
    if ((f->fill->n == FEED_CMDS || f->fill->text.n >= FEED_TEXT) &&
        !submit(f))
        return NULL;
    feed_cmd *c = &f->fill->cmd[f->fill->n++];
    *c = (feed_cmd){.what = (uint8_t)what, .kind = kind, .handle = handle};
    return c;
}

/* s[0, len) and a NUL at the end of the batch's texts: *off its offset.
 * False when out of memory. */
static bool copy_text(json_reader *r, const char *s, size_t len, size_t *off)
{
    text_buf *t = &r->feed->fill->text;
    if (t->cap - t->n < len + 1) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->n < len + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p)
            return jr_oom(r);
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, len);
    t->p[t->n + len] = '\0';
    *off = t->n;
    t->n += len + 1;
    return true;
}

/* Text x of c: s[0, len), copied unless it stays in the input; NULL s
 * for none.  False when out of memory. */
static bool put_text(json_reader *r, feed_cmd *c, int x, const char *s,
                     size_t len, bool stays)
{
    if (!s)
        return true;
    text_at at = {.p = s};
    if (!stays) {
        if (!copy_text(r, s, len, &at.off))
            return false;
        c->copied |= (uint8_t)(1u << x);
    }
    c->present |= (uint8_t)(1u << x);
    c->len[x] = (uint32_t)len;
    c->at[x] = at;
    return true;
}

static bool put_string(json_reader *r, feed_cmd *c, int x, const char *s)
{
    return put_text(r, c, x, s, s ? strlen(s) : 0, false);
}

/* Take back the command just begun, whose texts could not be had:
 * false. */
static bool drop_cmd(json_reader *r)
{
    r->feed->fill->n--;
    return false;
}

/* ---- the reader's side ------------------------------------------------ */

bool jr_feed_start(json_reader *r)
{
    jr_feed *f = calloc(1, sizeof *f);
    bool large = r->c.n >= FEED_THREAD_FROM;
    if (f) {
        f->n_batches = large ? FEED_BATCHES : 1;
        f->batch = calloc(f->n_batches, sizeof *f->batch);
    }
    if (!f || !f->batch || pthread_mutex_init(&f->mu, NULL) != 0) {
        free(f ? f->batch : NULL);
        free(f);
        return jr_oom(r);
    }
    if (pthread_cond_init(&f->cv, NULL) != 0) {
        pthread_mutex_destroy(&f->mu);
        free(f->batch);
        free(f);
        return jr_oom(r);
    }
    f->b = r->b;
    f->fill = f->batch;
    f->next_txn = 1;
    /* without a second thread, the one batch is applied when full */
    f->threaded = large &&
                  pthread_create(&f->thread, NULL, consume, f) == 0;
    r->feed = f;
    return true;
}

uint32_t jr_feed_session(json_reader *r, const char *name)
{
    feed_cmd *c = new_cmd(r, CMD_SESSION, 0, r->feed->next_session);
    if (!c)
        return IP_NONE;
    if (!put_string(r, c, 0, name))
        return drop_cmd(r), IP_NONE;
    return r->feed->next_session++;
}

uint32_t jr_feed_txn(json_reader *r, uint32_t session, const char *name,
                     size_t len, ip_status status)
{
    feed_cmd *c = new_cmd(r, CMD_TXN, (uint8_t)status, r->feed->next_txn);
    if (!c)
        return IP_NONE;
    if (!put_text(r, c, 0, name, len, false))
        return drop_cmd(r), IP_NONE;
    c->arg = session;
    return r->feed->next_txn++;
}

bool jr_feed_status(json_reader *r, uint32_t txn, ip_status status)
{
    return new_cmd(r, CMD_STATUS, (uint8_t)status, txn) != NULL;
}

bool jr_feed_op(json_reader *r, uint32_t txn, ip_op_kind kind,
                const jr_op_texts *t, bool in_input)
{
    feed_cmd *c = new_cmd(r, CMD_OP, (uint8_t)kind, txn);
    if (!c)
        return false;
    c->arg = t->no_writer;
    return (put_text(r, c, 0, t->key, t->klen, in_input) &&
            put_text(r, c, 1, t->value, t->vlen, in_input) &&
            put_text(r, c, 2, t->from, t->flen, in_input)) || drop_cmd(r);
}

bool jr_feed_candidates(json_reader *r, uint32_t txn, const char *key,
                        const char *value, const char *const *ids, uint32_t n)
{
    feed_cmd *c = new_cmd(r, CMD_CANDIDATES, 0, txn);
    if (!c)
        return false;
    if (!put_string(r, c, 0, key) || !put_string(r, c, 1, value))
        return drop_cmd(r);
    c->arg = n;
    /* the ids one after another, each NUL-terminated: c's third text is
     * the first, and the others follow it */
    c->present |= 4;
    c->copied |= 4;
    for (uint32_t i = 0; i < n; i++) {
        size_t off;
        if (!copy_text(r, ids[i], strlen(ids[i]), &off))
            return drop_cmd(r);
        if (i == 0)
            c->at[2].off = off;
    }
    return true;
}

bool jr_feed_extra(json_reader *r, ip_extra_at at, uint32_t handle,
                   const char *json)
{
    feed_cmd *c = new_cmd(r, CMD_EXTRA, (uint8_t)at, handle);
    return c && (put_string(r, c, 0, json) || drop_cmd(r));
}

/* Let the second thread finish what was submitted, and join it. */
static void stop(jr_feed *f)
{
    if (!f->threaded)
        return;
    pthread_mutex_lock(&f->mu);
    f->ending = true;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->thread, NULL);
    f->threaded = false;
}

bool jr_feed_end(json_reader *r, bool ok)
{
    jr_feed *f = r->feed;
    if (!f)
        return ok;
    /* the rest is applied even after the reader failed: a builder error
     * in it comes before the reader's in the input */
    if (f->fill->n)
        submit(f);
    stop(f);
    if (!f->failed)
        return ok;
    *r->err = f->err;
    r->syntax = false;
    return false;
}

void jr_feed_free(json_reader *r)
{
    jr_feed *f = r->feed;
    if (!f)
        return;
    stop(f);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    for (uint32_t i = 0; i < f->n_batches; i++)
        free(f->batch[i].text.p);
    free(f->batch);
    free(f->ids);
    free(f);
    r->feed = NULL;
}
