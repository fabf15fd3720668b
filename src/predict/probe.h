/*
 * probe.h - probes: the observed run with one read, or a few reads of
 * one transaction, changed (internal to the predict module; triage).
 *
 * A probe is the observed run with a read changed to another writer of
 * its key: the reader's transaction is its session's boundary (relaxed),
 * every other session runs to the end unless it reads past a boundary,
 * when it is cut just before that (probe.c).  Most instances of a run's
 * bug classes need one changed read (a lost update: a read-modify-write
 * that reads the version its neighbour read), and confirming a probe
 * costs a tenth of a solver check, so triage tries them before a
 * problem's first check (solve.c).  A single change that fails is often
 * half of an instance: the reader now mixes two snapshots, and changing
 * other reads of its transaction as well repairs it.  Three repairs come
 * next: the reads of the transaction that read the same writer all move
 * off it (a row read whole: TPC-C's stock row), the whole transaction
 * reads an older snapshot, then pairs of reads.
 *
 * Some probes are known to fail from the observed dependency graph alone
 * (probe_graph.h), without a history built or a checker run; they are
 * never tried.
 *
 * A probe_set borrows its trace; it owns everything else.  Not
 * thread-safe (one per problem).
 */
#ifndef ISOPREDICT_PROBE_H
#define ISOPREDICT_PROBE_H

#include "probe_graph.h"
#include "encode.h"

typedef struct probe_set probe_set;

/* NULL when out of memory. */
probe_set *probe_set_new(const ip_trace *t, const uint32_t *order, uint32_t n);
void probe_set_free(probe_set *ps);

/* The probe of changes c[0..n) (n <= PROBE_MAX_CHANGES, reads of one
 * transaction) under `model`: its verdict, and its assignment into *out
 * (the caller frees it) when the verdict is PROBE_TRY or, with `any`,
 * whenever boundaries fit (tests).  *oom set (and PROBE_UNFIT returned)
 * when out of memory. */
probe_verdict probe_make(probe_set *ps, ip_level model, const probe_change *c,
                         uint32_t n, bool any, ip_assignment *out, bool *oom);

/* The next probe under `model` that enc's formula allows (a read it may
 * change, a writer it may take: ip_encoder_choices) and the graph does
 * not rule out, in read order, into *out (the caller frees it); false
 * when there is none left (or, with *oom set, out of memory). */
bool probe_next(probe_set *ps, const ip_encoder *enc, ip_level model,
                ip_assignment *out, bool *oom);

/* The single probe probe_next gave last did not confirm: keep it for the
 * pairs.  False when out of memory. */
bool probe_failed(probe_set *ps);

/* The change of the single probe probe_next gave last.  Its assignment
 * may change other reads too: where the boundaries that keep all they
 * can do not fit the change or drop its cycle, a probe keeps only what
 * the cycle needs (tight boundaries, rc; probe.c), and a boundary of another
 * session that reads past a boundary reads its key's last writer kept
 * instead. */
probe_change probe_last(const probe_set *ps);

/* Two changed reads of one transaction: each single change that failed
 * (the graph found it rejected by the model or without boundaries, or
 * the checkers did not confirm it) with each other read of its
 * transaction and each other writer the formula allows that read - the
 * other change often repairs what failed (a read of the same snapshot).
 * False also once `budget` pairs were made in all (probe_make, whatever
 * the graph said: a TPC-C window has thousands). */
bool probe_next_pair(probe_set *ps, const ip_encoder *enc, ip_level model,
                     uint32_t budget, ip_assignment *out, bool *oom);

/* Each single change that failed, widened to its transaction twice
 * (at most max changes each; 0: PROBE_MAX_CHANGES).  Its group: the
 * reads that read the same writer W move to the new writer where it
 * wrote the key, else to the key's writer before W - the transaction
 * sees a row whole and misses W altogether.  Its snapshot, when the new
 * writer w precedes the reader: every read takes its key's last writer
 * as of w - the transaction reads the run as it stood at w. */
bool probe_next_group(probe_set *ps, const ip_encoder *enc, ip_level model,
                      uint32_t max, ip_assignment *out, bool *oom);

/* Probes are made where a formula is a window's or a small trace's: each
 * is linear in the trace. */
enum { PROBE_MAX_TXNS = 1024 };

#endif
