/*
 * tv.h - helpers of the validate tests: a compact history notation, an
 * independent model of so/wr/hb built from the trace, a brute-force
 * checker over total commit orders (Biswas & Enea axioms), and witness
 * re-derivation.
 *
 * Notation (the one trace notation of the C tests: tests/validate_strong
 * uses it too): sessions separated by '|' and named s0, s1, ... in order,
 * transactions by ';', each "NAME: op, op"; a NAME starting with '!' is
 * aborted.  Ops: "w K", "w K=V", "r K FROM" (writer named; "init" for
 * the initial txn, the txn itself for a read of its own write), "r K=V"
 * (writer resolved by value).  Read-consistency anomalies are recorded
 * (a lenient build), not refused.  After '#', known version orders
 * (ip_builder_version_order): "x: T1 T2 / y: T3", keys separated by '/'.
 * The model below reads them from the trace's key_order_* arrays itself:
 * every order must place each key's listed writers in their order and
 * the other writers after them.
 */
#ifndef TV_H
#define TV_H

#include "formats.h"
#include "validate.h"

ip_trace *tv_build(const char *spec);

/* Does the history (committed txns) satisfy lvl?  By enumerating every
 * total order; only for tiny histories (<= 8 committed txns). */
bool tv_brute(const ip_trace *t, ip_level lvl);

/* Does `order` (all committed txns, txn 0 first) witness lvl? */
bool tv_order_ok(const ip_trace *t, ip_level lvl, const uint32_t *order,
                 uint32_t n);

/* Re-derive one witness edge from the model (not from validate's code). */
bool tv_edge_ok(const ip_trace *t, ip_level lvl, const ip_edge *e);

/* Run ip_check and assert (CUnit) the expected result and that every
 * witness holds: the order by tv_order_ok, every cycle by
 * ip_cycle_is_valid and by tv_edge_ok.  Returns the result. */
ip_check_result tv_expect(const ip_trace *t, ip_level lvl,
                          ip_check_result expect);

#endif
