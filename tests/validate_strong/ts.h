/*
 * ts.h - helpers of the ser/si checker tests: building traces from short
 * specs, brute-force reference checkers, and independent witness checks.
 */
#ifndef TS_H
#define TS_H

#include "formats.h"
#include "strong.h"
#include "validate.h"

/* One transaction a string: "SESSION TXN op op ..." with ops "wKEY" or
 * "rKEY:FROM" (FROM a txn name, "init", or the txn itself for a local
 * read); a TXN ending in '!' is aborted.  NULL-terminated list. */
ip_trace *ts_build(const char *const *spec);

/* Brute force (<= 7 transactions): ser by enumerating serial orders; ser
 * and si by enumerating every write order and testing the dependency
 * graphs.  *ser_graph receives the graph-based ser answer. */
bool ts_bf_ser_orders(const ip_trace *t);
bool ts_bf_graph(const ip_trace *t, bool *ser_graph, bool *si);
/* Feasible only when the product of writer-order counts is small. */
bool ts_bf_feasible(const ip_trace *t);

/* Independent witness checks. */
bool ts_serial_ok(const ip_trace *t, const uint32_t *order, uint32_t n);
bool ts_si_commit_order_ok(const ip_trace *t, const uint32_t *order,
                           uint32_t n);
bool ts_cycle_ok(const ip_trace *t, bool si, const ip_cycle *c);

#endif
