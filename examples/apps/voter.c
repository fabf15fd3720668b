/*
 * voter - a phone-in contest: each transaction is one call that votes for
 * a contestant (procedure vote), accepted only while the caller's phone
 * number has fewer than LIMIT votes (the paper's Algorithm 3).  All calls
 * of a run come from the same phone, so a serial run has exactly one
 * writing transaction.
 *
 * Invariants: the phone's vote count never exceeds LIMIT, at most LIMIT
 * calls were accepted, and the contestants' tallies add up to the accepted
 * calls.
 */
#include "kv.h"

#include <inttypes.h>

enum { CONTESTANTS = 6, AREAS = 4, LIMIT = 1 };

typedef struct voter {
    uint32_t phone;           /* the caller of every transaction */
    int64_t accepted;
} voter;

static uint32_t phone_of(const kv_workload *w)
{
    return (uint32_t)(w->seed % 1000);
}

static bool setup(kv_store *st, const kv_workload *w, void *ctx)
{
    voter *v = ctx;
    v->phone = phone_of(w);
    char key[48];
    bool ok = true;
    for (unsigned c = 0; c < CONTESTANTS; c++) {
        snprintf(key, sizeof key, "contestant:%u", c);
        ok = ok && kv_store_set_initial(st, key, 1);
        snprintf(key, sizeof key, "tally:%u", c);
        ok = ok && kv_store_set_initial(st, key, 0);
    }
    for (unsigned a = 0; a < AREAS; a++) {
        snprintf(key, sizeof key, "area:%u", a);
        ok = ok && kv_store_set_initial(st, key, 10 + a);
    }
    snprintf(key, sizeof key, "votes:%u", phone_of(w));
    return ok && kv_store_set_initial(st, key, 0);
}

static void txn(kv_txn *tx, uint32_t session, uint32_t index, kv_rng *rng,
                void *ctx)
{
    (void)session;
    (void)index;
    voter *v = ctx;
    uint32_t contestant = kv_rng_below(rng, CONTESTANTS);
    kv_txn_procedure(tx, "vote");       /* accepted or rejected alike */
    kv_getf(tx, "contestant:%u", contestant);
    kv_getf(tx, "area:%u", kv_rng_below(rng, AREAS));
    int64_t votes = kv_getf(tx, "votes:%u", v->phone);
    if (votes >= LIMIT) {
        kv_commit(tx);                    /* call rejected: read-only */
        return;
    }
    kv_putf(tx, votes + 1, "votes:%u", v->phone);
    int64_t tally = kv_getf(tx, "tally:%u", contestant);
    kv_putf(tx, tally + 1, "tally:%u", contestant);
    if (kv_commit(tx))
        v->accepted++;
}

static void check(const kv_store *st, const kv_workload *w, const void *ctx,
                  kv_report *rep)
{
    (void)w;
    const voter *v = ctx;
    char key[48];
    snprintf(key, sizeof key, "votes:%u", v->phone);
    int64_t votes = kv_final(st, key), tallies = 0;
    kv_report_check(rep, votes <= LIMIT, "%s is %" PRId64 ", over the limit "
                    "%d", key, votes, LIMIT);
    kv_report_check(rep, v->accepted <= LIMIT, "%" PRId64 " calls from phone "
                    "%u were accepted, over the limit %d", v->accepted,
                    v->phone, LIMIT);
    for (unsigned c = 0; c < CONTESTANTS; c++) {
        snprintf(key, sizeof key, "tally:%u", c);
        tallies += kv_final(st, key);
    }
    kv_report_check(rep, tallies == v->accepted, "the tallies add up to %"
                    PRId64 ", but %" PRId64 " calls were accepted", tallies,
                    v->accepted);
}

static const kv_app VOTER = {"voter", sizeof(voter), setup, txn, check};

int main(int argc, char **argv)
{
    return kv_main(&VOTER, argc, argv);
}
