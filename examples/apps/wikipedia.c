/*
 * wikipedia - mostly read-only page views with occasional edits and
 * watchlist changes.  Mix (with the procedure names recorded): anonymous
 * view 55% (anonymous_view), logged-in view 28% (logged_in_view),
 * watch/unwatch 5% (toggle_watch), edit 12% (edit).  Page 0 is
 * protected: an edit of it by a user who is not a sysop aborts.
 *
 * Invariants: each page's latest revision is one past its committed edits
 * and no revision was created twice; each user's edit count equals that
 * user's committed edits; each page's length is the length of its latest
 * revision.
 */
#include "kv.h"

#include <inttypes.h>

enum { PAGES = 5, USERS = 3, MAX_REVS = 1024, FIELDS = 3 };

typedef struct wiki {
    int64_t edits[PAGES], user_edits[USERS];
    uint8_t rev_seen[PAGES][MAX_REVS];
    int64_t duplicate_revs;
} wiki;

static bool set(kv_store *st, kv_value v, const char *fmt, unsigned a,
                unsigned b)
{
    char key[64];
    snprintf(key, sizeof key, fmt, a, b);
    return kv_store_set_initial(st, key, v);
}

static bool setup(kv_store *st, const kv_workload *w, void *ctx)
{
    (void)w;
    (void)ctx;
    bool ok = true;
    for (unsigned p = 0; p < PAGES; p++)
        ok = ok && set(st, 1, "page%u:latest", p, 0) &&
             set(st, 100 + p, "page%u:len", p, 0) &&
             set(st, p == 0, "page%u:protected", p, 0) &&
             set(st, 100 + p, "rev%u.%u:len", p, 1) &&
             set(st, USERS, "rev%u.%u:user", p, 1);
    for (unsigned u = 0; u < USERS; u++) {
        ok = ok && set(st, 0, "user%u:edits", u, 0) &&
             set(st, u == 0, "user%u:sysop", u, 0) &&
             set(st, 0, "user%u:touched", u, 0);
        for (unsigned f = 0; f < FIELDS; f++)
            ok = ok && set(st, f, "user%u:field%u", u, f);
    }
    return ok;
}

static void read_page(kv_txn *tx, uint32_t p)
{
    kv_getf(tx, "page%u:protected", p);
    int64_t r = kv_getf(tx, "page%u:latest", p);
    kv_getf(tx, "page%u:len", p);
    kv_getf(tx, "rev%u.%" PRId64 ":len", p, r);
    kv_getf(tx, "rev%u.%" PRId64 ":user", p, r);
}

static void read_user(kv_txn *tx, uint32_t u)
{
    for (unsigned f = 0; f < FIELDS; f++)
        kv_getf(tx, "user%u:field%u", u, f);
    kv_getf(tx, "user%u:sysop", u);
    kv_getf(tx, "user%u:touched", u);
}

static void view(kv_txn *tx, kv_rng *rng, bool logged_in)
{
    uint32_t p = kv_rng_below(rng, PAGES), u = kv_rng_below(rng, USERS);
    kv_txn_procedure(tx, logged_in ? "logged_in_view" : "anonymous_view");
    if (logged_in) {
        read_user(tx, u);
        for (unsigned q = 0; q < PAGES; q++)
            kv_getf(tx, "watch%u.%u", u, q);
    }
    read_page(tx, p);
    kv_commit(tx);
}

static void watch(kv_txn *tx, kv_rng *rng, int64_t stamp)
{
    uint32_t p = kv_rng_below(rng, PAGES), u = kv_rng_below(rng, USERS);
    kv_txn_procedure(tx, "toggle_watch");
    read_user(tx, u);
    int64_t on = kv_getf(tx, "watch%u.%u", u, p);
    kv_putf(tx, on == 1 ? 0 : 1, "watch%u.%u", u, p);
    kv_putf(tx, stamp, "user%u:touched", u);
    kv_commit(tx);
}

static void edit(kv_txn *tx, kv_rng *rng, int64_t stamp, wiki *w)
{
    uint32_t p = kv_rng_below(rng, PAGES), u = kv_rng_below(rng, USERS);
    int64_t len = 50 + kv_rng_below(rng, 200);
    kv_txn_procedure(tx, "edit");
    read_user(tx, u);
    if (kv_getf(tx, "page%u:protected", p) == 1 &&
        kv_getf(tx, "user%u:sysop", u) != 1) {
        kv_abort(tx);
        return;
    }
    int64_t r = kv_getf(tx, "page%u:latest", p);
    kv_getf(tx, "rev%u.%" PRId64 ":len", p, r);
    kv_putf(tx, len, "rev%u.%" PRId64 ":len", p, r + 1);
    kv_putf(tx, u, "rev%u.%" PRId64 ":user", p, r + 1);
    kv_putf(tx, r + 1, "page%u:latest", p);
    kv_putf(tx, len, "page%u:len", p);
    kv_putf(tx, kv_getf(tx, "user%u:edits", u) + 1, "user%u:edits", u);
    kv_putf(tx, stamp, "user%u:touched", u);
    if (!kv_commit(tx))
        return;
    w->edits[p]++;
    w->user_edits[u]++;
    if (r + 1 >= 0 && r + 1 < MAX_REVS) {
        w->duplicate_revs += w->rev_seen[p][r + 1];
        w->rev_seen[p][r + 1] = 1;
    }
}

static void txn(kv_txn *tx, uint32_t session, uint32_t index, kv_rng *rng,
                void *ctx)
{
    int64_t stamp = (int64_t)(session + 1) * 100000 + index;
    uint32_t pick = kv_rng_below(rng, 100);
    if (pick < 55)
        view(tx, rng, false);
    else if (pick < 83)
        view(tx, rng, true);
    else if (pick < 88)
        watch(tx, rng, stamp);
    else
        edit(tx, rng, stamp, ctx);
}

static kv_value final(const kv_store *st, const char *fmt, unsigned a,
                      int64_t b)
{
    char key[64];
    snprintf(key, sizeof key, fmt, a, b);
    return kv_final(st, key);
}

static void check(const kv_store *st, const kv_workload *work,
                  const void *ctx, kv_report *rep)
{
    (void)work;
    const wiki *w = ctx;
    for (unsigned p = 0; p < PAGES; p++) {
        int64_t r = final(st, "page%u:latest", p, 0);
        kv_report_check(rep, r == 1 + w->edits[p], "page%u:latest is %" PRId64
                        ", but %" PRId64 " edits committed", p, r,
                        w->edits[p]);
        int64_t len = final(st, "page%u:len", p, 0);
        int64_t rlen = final(st, "rev%u.%" PRId64 ":len", p, r);
        kv_report_check(rep, len == rlen, "page%u:len is %" PRId64 ", but its "
                        "latest revision %" PRId64 " has length %" PRId64, p,
                        len, r, rlen);
    }
    for (unsigned u = 0; u < USERS; u++) {
        int64_t e = final(st, "user%u:edits", u, 0);
        kv_report_check(rep, e == w->user_edits[u], "user%u:edits is %" PRId64
                        ", but %" PRId64 " of the user's edits committed", u, e,
                        w->user_edits[u]);
    }
    kv_report_check(rep, w->duplicate_revs == 0, "%" PRId64 " edits created "
                    "a revision that already existed", w->duplicate_revs);
}

static const kv_app WIKIPEDIA = {"wikipedia", sizeof(wiki), setup, txn,
                                 check};

int main(int argc, char **argv)
{
    return kv_main(&WIKIPEDIA, argc, argv);
}
