/*
 * covered.h - the instances a round's windows have found so far, shared
 * between them (internal to the predict module; triage only).
 *
 * Windows overlap by half, so an instance whose transactions lie in the
 * overlap is found by both windows: a solver call and a confirmation
 * each time, then counted once.  Each window publishes the cover of every
 * new instance it finds (the reads of its class cycle with their
 * writers, ip_cycle_changed_reads) over observed ids, and before each
 * solve forbids the covers published by the others that its formula can
 * state: a model with them holds an instance already reported, which is
 * what the window's own cover already assumes (docs/SEMANTICS.md,
 * "Triage").  A cover's reads lie in its owner's window, so a window
 * reads only the covers of the windows that overlap it: kept per owner,
 * what it reads does not grow with the run (on smallbank 100x1000 reading
 * every window's took a tenth of a round).
 *
 * Thread-safe.  Facts are copied in and out; nothing is borrowed.  Memory:
 * two words per fact, a few facts per instance (it grows with the
 * instances found, as the class table's fingerprints do), and a few words
 * per window.
 */
#ifndef ISOPREDICT_COVERED_H
#define ISOPREDICT_COVERED_H

#include <stdbool.h>
#include <stdint.h>

typedef struct covered covered;

/* Observed read event `read` reads from observed txn `writer`. */
typedef struct covered_fact {
    uint32_t read, writer;
} covered_fact;

/* How far apart two overlapping windows can be: windows of w
 * transactions start w/2 apart, so (w - 1) / (w / 2) <= 2. */
enum { COVERED_MAX_REACH = 2 };

/* NULL when out of memory.  windows: owners are window indices below it;
 * reach (at most COVERED_MAX_REACH): windows i and j overlap when
 * |i - j| <= reach. */
covered *covered_new(uint32_t windows, uint32_t reach);
void covered_free(covered *cv);

/* Publish one instance of n facts found by `owner` (a window index).
 * False when out of memory. */
bool covered_add(covered *cv, uint32_t owner, const covered_fact *f,
                 uint32_t n);

/* Where a window is in each overlapping window's list (all zero: at the
 * start of every list). */
typedef struct covered_cursor {
    uint32_t next[2 * COVERED_MAX_REACH + 1];
} covered_cursor;

/* The instances the windows overlapping `self` (not itself) published
 * since *cur, copied: *n_inst instances, instance i's facts are (*f)[k]
 * for k in [(*start)[i], (*start)[i + 1]).  *cur advances past all of
 * them.  Both arrays are malloc'ed (the caller frees them; NULL when
 * there are none).  False when out of memory (then *cur is unchanged). */
bool covered_since(covered *cv, uint32_t self, covered_cursor *cur,
                   covered_fact **f, uint32_t **start, uint32_t *n_inst);

#endif
