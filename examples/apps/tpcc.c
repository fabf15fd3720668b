/*
 * tpcc - a TPC-C-like order-entry workload: one warehouse, a few districts
 * with next-order-id counters, customers with balances, items and stock.
 * Mix (the procedure names recorded): new_order 45%, payment 43%,
 * order_status 6%, stock_level 6%; no delivery.
 * new_order reads many item and stock records and rolls back (as TPC-C
 * prescribes for 1% of orders; here 1 in 10) when an item id is unknown.
 *
 * Invariants: each district's next order id is one past its committed new
 * orders and no order id was handed out twice; warehouse, district and
 * customer year-to-date sums equal the committed payments; each item's
 * stock year-to-date and order count match the committed order lines.
 */
#include "kv.h"

#include <inttypes.h>
#include <string.h>

enum { DISTRICTS = 2, CUSTOMERS = 3, ITEMS = 40, MAX_ORDERS = 4096,
       MIN_LINES = 5, MAX_LINES = 12, FIELDS = 6 };

typedef struct tpcc {
    int64_t orders[DISTRICTS];
    uint8_t order_seen[DISTRICTS][MAX_ORDERS];
    int64_t duplicate_orders;
    int64_t paid_w, paid_d[DISTRICTS], paid_c[DISTRICTS][CUSTOMERS];
    int64_t item_qty[ITEMS], item_lines[ITEMS];
} tpcc;

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
    bool ok = set(st, 7, "w:tax", 0, 0) && set(st, 0, "w:ytd", 0, 0);
    for (unsigned f = 0; f < FIELDS; f++)
        ok = ok && set(st, f, "w:field%u", f, 0);
    for (unsigned d = 0; d < DISTRICTS; d++) {
        ok = ok && set(st, 3 + d, "d%u:tax", d, 0) &&
             set(st, 0, "d%u:ytd", d, 0) && set(st, 1, "d%u:next_o", d, 0);
        for (unsigned f = 0; f < FIELDS; f++)
            ok = ok && set(st, f, "d%u:field%u", d, f);
        for (unsigned c = 0; c < CUSTOMERS; c++) {
            char key[64];
            snprintf(key, sizeof key, "c%u.%u:discount", d, c);
            ok = ok && kv_store_set_initial(st, key, c % 3) &&
                 set(st, 0, "c%u.%u:balance", d, c) &&
                 set(st, 0, "c%u.%u:ytd", d, c);
            for (unsigned f = 0; f < FIELDS; f++) {
                snprintf(key, sizeof key, "c%u.%u:field%u", d, c, f);
                ok = ok && kv_store_set_initial(st, key, f);
            }
        }
    }
    for (unsigned i = 0; i < ITEMS; i++)
        ok = ok && set(st, 10 + i, "i%u:price", i, 0) &&
             set(st, i, "i%u:data", i, 0) && set(st, 50, "s%u:qty", i, 0) &&
             set(st, 0, "s%u:ytd", i, 0) && set(st, 0, "s%u:order_cnt", i, 0);
    return ok;
}

typedef struct line {
    uint32_t item, qty;
} line;

/* Returns false when the order rolls back (unknown item); true when it
 * ended, committed or aborted by the store. */
static bool new_order(kv_txn *tx, kv_rng *rng, tpcc *t)
{
    uint32_t d = kv_rng_below(rng, DISTRICTS), c = kv_rng_below(rng, CUSTOMERS);
    uint32_t n = MIN_LINES + kv_rng_below(rng, MAX_LINES - MIN_LINES + 1);
    bool rollback = kv_rng_below(rng, 10) == 0;
    line lines[MAX_LINES];
    kv_txn_procedure(tx, "new_order");
    kv_getf(tx, "w:tax");
    kv_getf(tx, "d%u:tax", d);
    int64_t o = kv_getf(tx, "d%u:next_o", d);
    kv_putf(tx, o + 1, "d%u:next_o", d);
    kv_getf(tx, "c%u.%u:discount", d, c);
    for (uint32_t l = 0; l < n; l++) {
        lines[l].item = rollback && l == n - 1 ? ITEMS
                                               : kv_rng_below(rng, ITEMS);
        lines[l].qty = 1 + kv_rng_below(rng, 10);
        if (kv_getf(tx, "i%u:price", lines[l].item) == KV_ABSENT)
            return false;
        kv_getf(tx, "i%u:data", lines[l].item);
        int64_t qty = kv_getf(tx, "s%u:qty", lines[l].item);
        qty -= lines[l].qty;
        kv_putf(tx, qty >= 10 ? qty : qty + 91, "s%u:qty", lines[l].item);
        int64_t ytd = kv_getf(tx, "s%u:ytd", lines[l].item);
        kv_putf(tx, ytd + lines[l].qty, "s%u:ytd", lines[l].item);
        int64_t cnt = kv_getf(tx, "s%u:order_cnt", lines[l].item);
        kv_putf(tx, cnt + 1, "s%u:order_cnt", lines[l].item);
    }
    kv_putf(tx, n, "o%u.%" PRId64 ":lines", d, o);
    kv_putf(tx, c, "o%u.%" PRId64 ":customer", d, o);
    kv_putf(tx, o, "c%u.%u:last_order", d, c);
    if (!kv_commit(tx))
        return true;                      /* ended, by the store */
    t->orders[d]++;
    if (o >= 0 && o < MAX_ORDERS) {
        t->duplicate_orders += t->order_seen[d][o];
        t->order_seen[d][o] = 1;
    }
    for (uint32_t l = 0; l < n; l++) {
        t->item_qty[lines[l].item] += lines[l].qty;
        t->item_lines[lines[l].item]++;
    }
    return true;
}

static void payment(kv_txn *tx, kv_rng *rng, tpcc *t)
{
    uint32_t d = kv_rng_below(rng, DISTRICTS), c = kv_rng_below(rng, CUSTOMERS);
    int64_t h = 1 + kv_rng_below(rng, 100);
    kv_txn_procedure(tx, "payment");
    for (unsigned f = 0; f < FIELDS; f++) {
        kv_getf(tx, "w:field%u", f);
        kv_getf(tx, "d%u:field%u", d, f);
        kv_getf(tx, "c%u.%u:field%u", d, c, f);
    }
    kv_putf(tx, kv_getf(tx, "w:ytd") + h, "w:ytd");
    kv_putf(tx, kv_getf(tx, "d%u:ytd", d) + h, "d%u:ytd", d);
    kv_putf(tx, kv_getf(tx, "c%u.%u:balance", d, c) - h, "c%u.%u:balance",
            d, c);
    kv_putf(tx, kv_getf(tx, "c%u.%u:ytd", d, c) + h, "c%u.%u:ytd", d, c);
    if (!kv_commit(tx))
        return;
    t->paid_w += h;
    t->paid_d[d] += h;
    t->paid_c[d][c] += h;
}

static void order_status(kv_txn *tx, kv_rng *rng)
{
    uint32_t d = kv_rng_below(rng, DISTRICTS), c = kv_rng_below(rng, CUSTOMERS);
    kv_txn_procedure(tx, "order_status");
    for (unsigned f = 0; f < FIELDS; f++)
        kv_getf(tx, "c%u.%u:field%u", d, c, f);
    kv_getf(tx, "c%u.%u:balance", d, c);
    int64_t o = kv_getf(tx, "c%u.%u:last_order", d, c);
    if (o != KV_ABSENT) {
        kv_getf(tx, "o%u.%" PRId64 ":lines", d, o);
        kv_getf(tx, "o%u.%" PRId64 ":customer", d, o);
    }
    kv_commit(tx);
}

static void stock_level(kv_txn *tx, kv_rng *rng)
{
    uint32_t d = kv_rng_below(rng, DISTRICTS);
    kv_txn_procedure(tx, "stock_level");
    int64_t next = kv_getf(tx, "d%u:next_o", d);
    for (int64_t o = next - 5; o < next; o++)
        if (o >= 1)
            kv_getf(tx, "o%u.%" PRId64 ":lines", d, o);
    for (unsigned i = 0; i < ITEMS; i++)
        kv_getf(tx, "s%u:qty", i);
    kv_commit(tx);
}

static void txn(kv_txn *tx, uint32_t session, uint32_t index, kv_rng *rng,
                void *ctx)
{
    (void)session;
    (void)index;
    uint32_t pick = kv_rng_below(rng, 100);
    if (pick < 45) {
        if (!new_order(tx, rng, ctx))
            kv_abort(tx);
    } else if (pick < 88) {
        payment(tx, rng, ctx);
    } else if (pick < 94) {
        order_status(tx, rng);
    } else {
        stock_level(tx, rng);
    }
}

static kv_value final(const kv_store *st, const char *fmt, unsigned a,
                      unsigned b)
{
    char key[64];
    snprintf(key, sizeof key, fmt, a, b);
    return kv_final(st, key);
}

static void check(const kv_store *st, const kv_workload *w, const void *ctx,
                  kv_report *rep)
{
    (void)w;
    const tpcc *t = ctx;
    int64_t v;
    for (unsigned d = 0; d < DISTRICTS; d++) {
        v = final(st, "d%u:next_o", d, 0);
        kv_report_check(rep, v == 1 + t->orders[d], "d%u:next_o is %" PRId64
                        ", but %" PRId64 " new orders committed", d, v,
                        t->orders[d]);
        v = final(st, "d%u:ytd", d, 0);
        kv_report_check(rep, v == t->paid_d[d], "d%u:ytd is %" PRId64 ", but "
                        "payments total %" PRId64, d, v, t->paid_d[d]);
        for (unsigned c = 0; c < CUSTOMERS; c++) {
            v = final(st, "c%u.%u:balance", d, c);
            kv_report_check(rep, v == -t->paid_c[d][c], "c%u.%u:balance is %"
                            PRId64 ", but payments total %" PRId64, d, c, v,
                            t->paid_c[d][c]);
        }
    }
    kv_report_check(rep, t->duplicate_orders == 0, "%" PRId64 " new orders "
                    "reused an order id", t->duplicate_orders);
    v = final(st, "w:ytd", 0, 0);
    kv_report_check(rep, v == t->paid_w, "w:ytd is %" PRId64 ", but payments "
                    "total %" PRId64, v, t->paid_w);
    for (unsigned i = 0; i < ITEMS; i++) {
        v = final(st, "s%u:ytd", i, 0);
        kv_report_check(rep, v == t->item_qty[i], "s%u:ytd is %" PRId64
                        ", but order lines total %" PRId64, i, v,
                        t->item_qty[i]);
        v = final(st, "s%u:order_cnt", i, 0);
        kv_report_check(rep, v == t->item_lines[i], "s%u:order_cnt is %"
                        PRId64 ", but %" PRId64 " order lines committed", i, v,
                        t->item_lines[i]);
    }
}

static const kv_app TPCC = {"tpcc", sizeof(tpcc), setup, txn, check};

int main(int argc, char **argv)
{
    return kv_main(&TPCC, argc, argv);
}
