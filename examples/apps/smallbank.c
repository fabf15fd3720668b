/*
 * smallbank - the SmallBank mix over checking and savings accounts:
 * balance, deposit_checking, transact_savings, amalgamate, write_check and
 * send_payment.  Every transaction first looks its customers up by name.
 *
 * Aborts: transact_savings that would overdraw savings, send_payment with
 * too little in checking.  Invariants: the bank's total money equals the
 * initial total plus what committed transactions paid in or out (transfers
 * move money, lost updates create or destroy it), and no savings account
 * is negative.
 */
#include "kv.h"

#include <inttypes.h>

enum { CUSTOMERS = 4, INITIAL = 100 };

typedef struct smallbank {
    int64_t paid_in;          /* sum of committed net deposits */
} smallbank;

static bool setup(kv_store *st, const kv_workload *w, void *ctx)
{
    (void)w;
    (void)ctx;
    bool ok = true;
    for (unsigned c = 0; c < CUSTOMERS; c++) {
        char key[32];
        snprintf(key, sizeof key, "acct:%u", c);
        ok = ok && kv_store_set_initial(st, key, c);
        snprintf(key, sizeof key, "chk:%u", c);
        ok = ok && kv_store_set_initial(st, key, INITIAL);
        snprintf(key, sizeof key, "sav:%u", c);
        ok = ok && kv_store_set_initial(st, key, INITIAL);
    }
    return ok;
}

/* Procedure names, indexed by the kind run() draws. */
static const char *const PROCEDURES[6] = {
    "balance", "deposit_checking", "transact_savings", "amalgamate",
    "write_check", "send_payment"
};

static uint32_t other_customer(kv_rng *rng, uint32_t c)
{
    return (c + 1 + kv_rng_below(rng, CUSTOMERS - 1)) % CUSTOMERS;
}

/* Returns the net money paid into the bank, or INT64_MIN after abort. */
static int64_t run(kv_txn *tx, kv_rng *rng)
{
    uint32_t c = kv_rng_below(rng, CUSTOMERS), kind = kv_rng_below(rng, 6);
    uint32_t d = other_customer(rng, c);
    int64_t v = 1 + kv_rng_below(rng, 60);
    kv_txn_procedure(tx, PROCEDURES[kind]);
    kv_getf(tx, "acct:%u", c);
    if (kind == 3 || kind == 5)
        kv_getf(tx, "acct:%u", d);
    int64_t chk = kv_getf(tx, "chk:%u", c), sav, chk2;
    switch (kind) {
    case 0:                                     /* balance */
        kv_getf(tx, "sav:%u", c);
        return 0;
    case 1:                                     /* deposit_checking */
        kv_putf(tx, chk + v, "chk:%u", c);
        return v;
    case 2:                                     /* transact_savings */
        v -= 40;
        sav = kv_getf(tx, "sav:%u", c);
        if (sav + v < 0)
            return INT64_MIN;
        kv_putf(tx, sav + v, "sav:%u", c);
        return v;
    case 3:                                     /* amalgamate c into d */
        sav = kv_getf(tx, "sav:%u", c);
        chk2 = kv_getf(tx, "chk:%u", d);
        kv_putf(tx, 0, "chk:%u", c);
        kv_putf(tx, 0, "sav:%u", c);
        kv_putf(tx, chk2 + chk + sav, "chk:%u", d);
        return 0;
    case 4:                                     /* write_check */
        sav = kv_getf(tx, "sav:%u", c);
        if (chk + sav < v)
            v += 1;                             /* overdraft penalty */
        kv_putf(tx, chk - v, "chk:%u", c);
        return -v;
    default:                                    /* send_payment c -> d */
        if (chk < v)
            return INT64_MIN;
        kv_putf(tx, chk - v, "chk:%u", c);
        chk2 = kv_getf(tx, "chk:%u", d);
        kv_putf(tx, chk2 + v, "chk:%u", d);
        return 0;
    }
}

static void txn(kv_txn *tx, uint32_t session, uint32_t index, kv_rng *rng,
                void *ctx)
{
    (void)session;
    (void)index;
    int64_t paid = run(tx, rng);
    if (paid == INT64_MIN) {
        kv_abort(tx);
        return;
    }
    if (kv_commit(tx))
        ((smallbank *)ctx)->paid_in += paid;
}

static void check(const kv_store *st, const kv_workload *w, const void *ctx,
                  kv_report *rep)
{
    (void)w;
    int64_t total = 0;
    for (unsigned c = 0; c < CUSTOMERS; c++) {
        char key[32];
        snprintf(key, sizeof key, "chk:%u", c);
        total += kv_final(st, key);
        snprintf(key, sizeof key, "sav:%u", c);
        int64_t sav = kv_final(st, key);
        total += sav;
        kv_report_check(rep, sav >= 0, "%s is negative: %" PRId64, key, sav);
    }
    int64_t expect = 2 * CUSTOMERS * INITIAL + ((const smallbank *)ctx)->paid_in;
    kv_report_check(rep, total == expect, "the bank holds %" PRId64 ", but "
                    "initial money plus committed payments is %" PRId64,
                    total, expect);
}

static const kv_app SMALLBANK = {"smallbank", sizeof(smallbank), setup, txn,
                                 check};

int main(int argc, char **argv)
{
    return kv_main(&SMALLBANK, argc, argv);
}
