/*
 * keyset.h - each transaction's written keys and each key's writers,
 * derived from a trace's events (internal to the trace model: finish.c
 * for the builder's traces, derive.c for derived histories).
 *
 * The caller has filled the events and room for the key sets (wkeys,
 * wkey_event, key_writer, key_writer_event: one entry per write event),
 * and key_writer_first zeroed; `slot` is scratch of n_keys entries.
 */
#ifndef ISOPREDICT_KEYSET_H
#define ISOPREDICT_KEYSET_H

#include "trace.h"

/* Transaction x's written keys, from its events just derived: sorted,
 * with their events at t->n_wkeys on, and counted per key (in
 * key_writer_first[k + 1]) for the writer lists. */
void ip_keyset_add(ip_trace *t, ip_txn *x, uint32_t *slot);

/* Each key's writers in transaction order, once every transaction's key
 * set is added. */
void ip_keyset_writer_lists(ip_trace *t, uint32_t *slot);

#endif
