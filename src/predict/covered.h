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
 * "Triage").
 *
 * Thread-safe.  Facts are copied in and out; nothing is borrowed.  Memory:
 * two words per fact, a few facts per instance (it grows with the
 * instances found, as the class table's fingerprints do).
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

/* NULL when out of memory. */
covered *covered_new(void);
void covered_free(covered *cv);

/* Publish one instance of n facts found by `owner` (a window index).
 * False when out of memory. */
bool covered_add(covered *cv, uint32_t owner, const covered_fact *f,
                 uint32_t n);

/* The instances others than `self` published from index *next on,
 * copied: *n_inst instances, instance i's facts are (*f)[k] for k in
 * [(*start)[i], (*start)[i + 1]).  *next advances past all published.
 * Both arrays are malloc'ed (the caller frees them; NULL when there are
 * none).  False when out of memory (then *next is unchanged). */
bool covered_since(covered *cv, uint32_t self, uint32_t *next,
                   covered_fact **f, uint32_t **start, uint32_t *n_inst);

#endif
