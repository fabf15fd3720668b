/*
 * search.h - one search problem and the loop that solves it (internal to
 * the predict module; predict.h describes the loop).
 *
 * A problem is a trace to encode with its encoder options.  The loop
 * solves, confirms each model on that trace, refutes what disqualifies it
 * and hands every confirmed candidate to the problem's accept function:
 * the exhaustive search keeps it as it is; a window lifts it to the cut
 * observed trace and confirms it again there (window.c).
 */
#ifndef ISOPREDICT_SEARCH_H
#define ISOPREDICT_SEARCH_H

#include "confirm.h"
#include "guard.h"
#include "learned.h"

typedef enum {
    ACCEPT_KEPT,              /* kept: block it and look for more */
    ACCEPT_KNOWN,             /* found before: block it, look for more */
    ACCEPT_REJECTED,          /* not a prediction after all: block it */
    ACCEPT_ENOUGH,            /* kept, and no more are wanted */
    ACCEPT_ERROR              /* err set */
} accept_result;

typedef struct problem {
    const ip_trace *tr;       /* what is encoded (borrowed) */
    ip_encode_opts eo;
    guard *g;
    double deadline;          /* this problem's own limit, 0 = none */
    /* Asked when that limit is reached (may be NULL): seconds more, or 0
     * to stop there (triage: the time the other windows will not need) */
    double (*more_time)(void *ctx);
    FILE *progress;           /* NULL: quiet */
    double start;             /* of the whole run, for progress lines */
    /* takes ownership of *p whatever it returns */
    accept_result (*accept)(void *ctx, ip_prediction *p);
    void *ctx;
    bool cover;               /* triage: after a prediction, forbid the
                                 changed reads of its class cycle with
                                 their writers (ip_cycle_changed_reads)
                                 instead of blocking its changed reads */
    /* triage windows (both may be NULL): share gets the cover of each
     * new instance (facts over tr) once it is forbidden; learn forbids,
     * before each solve, what other problems shared (covered.h): since its
     * last call, or all of it when `fresh` says enc is a new encoder */
    bool (*share)(void *ctx, const ip_fact *f, uint32_t n, ip_error *err);
    bool (*learn)(void *ctx, ip_encoder *enc, bool fresh, ip_error *err);
    /* triage's passes (may be NULL): every constraint the loop adds is
     * recorded here, and what an earlier pass recorded is replayed before
     * the first solve (learned.h) */
    learned *memo;
    /* Lazy weak isolation that may turn eager (triage's windows under
     * --weak-isolation auto): when model violations are most of a lazy
     * search's candidates, the search starts again with the model's axioms
     * in the formula, replaying what it learned (solve.c). */
    bool adapt_weak;          /* (after ADAPT_CALLS calls at least) */
    bool probed;              /* triage: its single-change probes were
                                 made (once, on its first encoder) */
    ip_predict_stats *stats;  /* counters are added to */
    ip_error *err;
} problem;

/* The calls an adaptive lazy search makes before it may turn eager. */
enum { ADAPT_CALLS = 24 };

/* NONE: the problem has no (more) prediction; FOUND: accept said
 * ENOUGH; UNKNOWN: its time, the guard or the solver stopped it. */
ip_predict_result solve_problem(problem *pb);

/* Add one problem's counters and search times (`from`, its pb->stats) to
 * the run's: every counter solve_problem counts, so that the exhaustive
 * search and the windows report the same ones.  Not `encode` (the callers
 * keep the last or the largest formula's) nor `seconds`. */
void stats_add(ip_predict_stats *to, const ip_predict_stats *from);

#endif
