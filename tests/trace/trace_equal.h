/*
 * trace_equal.h - structural comparison of two traces for the format
 * tests: same names, sessions, transactions, ops, resolved writers, values
 * and events.  String ids may differ between traces, so names and values
 * are compared as text.  Source lines are not compared (JSON has none).
 */
#ifndef TRACE_EQUAL_H
#define TRACE_EQUAL_H

#include "formats.h"
#include "trace.h"

/* True when equal; otherwise false and a description of the first
 * difference in why (may be NULL). */
bool trace_equal(const ip_trace *a, const ip_trace *b, char *why, size_t n);

/* JSON text of t in a malloc'd string (NULL on failure). */
char *trace_json_text(const ip_trace *t, size_t *len);

/* EDN text of t (ip_write_elle) in a malloc'd string (NULL on failure). */
char *trace_elle_text(const ip_trace *t, size_t *len);

#endif
