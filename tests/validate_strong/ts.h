/*
 * ts.h - helpers of the ser/si checker tests: brute-force reference
 * checkers and independent witness checks.  The tests build their
 * histories with tv_build (tests/validate/tv.h), the one trace notation
 * of the C tests.
 */
#ifndef TS_H
#define TS_H

#include "formats.h"
#include "strong.h"
#include "validate.h"

/* Under AddressSanitizer a Z3 context costs about 60 ms instead of 5 (each
 * one a fresh 8.5 MB mapping from the sanitizer's allocator), and the
 * random tests check each history through several: there they take the
 * first TS_SHARE-th of their histories (memory errors show there as in
 * all of them) and scale what they expect to have seen. */
#ifdef __SANITIZE_ADDRESS__
enum { TS_SHARE = 3 };
#else
enum { TS_SHARE = 1 };
#endif

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
