/*
 * bank - deposits and withdrawals on a few shared accounts.
 *
 * Procedures: deposit and withdraw; a withdrawal aborts when the balance
 * it reads is too small.  Invariants: each final balance equals the
 * initial balance plus the committed deposits minus the committed
 * withdrawals (a lost update breaks it), and no balance is negative.
 */
#include "kv.h"

#include <inttypes.h>

enum { ACCOUNTS = 2, INITIAL = 100 };

typedef struct bank {
    int64_t deposited[ACCOUNTS], withdrawn[ACCOUNTS];
} bank;

static bool setup(kv_store *st, const kv_workload *w, void *ctx)
{
    (void)w;
    (void)ctx;
    bool ok = true;
    for (unsigned a = 0; a < ACCOUNTS; a++) {
        char key[32];
        snprintf(key, sizeof key, "bal:%u", a);
        ok = ok && kv_store_set_initial(st, key, INITIAL);
    }
    return ok;
}

static void txn(kv_txn *tx, uint32_t session, uint32_t index, kv_rng *rng,
                void *ctx)
{
    (void)session;
    (void)index;
    bank *b = ctx;
    uint32_t a = kv_rng_below(rng, ACCOUNTS);
    bool deposit = kv_rng_below(rng, 2) == 0;
    int64_t amount = deposit ? 10 + kv_rng_below(rng, 50)
                             : 30 + kv_rng_below(rng, 100);
    kv_txn_procedure(tx, deposit ? "deposit" : "withdraw");
    int64_t bal = kv_getf(tx, "bal:%u", a);
    if (!deposit && bal < amount) {
        kv_abort(tx);
        return;
    }
    kv_putf(tx, deposit ? bal + amount : bal - amount, "bal:%u", a);
    if (!kv_commit(tx))
        return;
    if (deposit)
        b->deposited[a] += amount;
    else
        b->withdrawn[a] += amount;
}

static void check(const kv_store *st, const kv_workload *w, const void *ctx,
                  kv_report *rep)
{
    (void)w;
    const bank *b = ctx;
    for (unsigned a = 0; a < ACCOUNTS; a++) {
        char key[32];
        snprintf(key, sizeof key, "bal:%u", a);
        int64_t fin = kv_final(st, key);
        int64_t expect = INITIAL + b->deposited[a] - b->withdrawn[a];
        kv_report_check(rep, fin == expect, "%s is %" PRId64 ", but %d + "
                        "deposits %" PRId64 " - withdrawals %" PRId64
                        " = %" PRId64, key, fin, INITIAL, b->deposited[a],
                        b->withdrawn[a], expect);
        kv_report_check(rep, fin >= 0, "%s is negative: %" PRId64, key, fin);
    }
}

static const kv_app BANK = {"bank", sizeof(bank), setup, txn, check};

int main(int argc, char **argv)
{
    return kv_main(&BANK, argc, argv);
}
