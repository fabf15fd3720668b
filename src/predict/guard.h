/*
 * guard.h - the limits of one prediction run (internal to the predict
 * module): time, memory and interruption, in every phase.
 *
 * A watchdog thread polls every 10 ms.  At the deadline, when the
 * process's resident memory reaches the budget, or when the caller's
 * interrupt flag is raised, it raises the stop flag (which the encoder's
 * generation loops and the search loops check) and interrupts the Z3
 * calls of every registered encoder.  An encoder may have a deadline of
 * its own (a window's time): past it, its solves are interrupted at
 * every poll, and the run goes on.  (Z3's own per-call timeout wakes a
 * timer thread for every call: a sixth of the CPU time of a triage whose
 * windows make thousands of short calls, bench/predict/RESULTS.md.)
 * Cooperative stopping normally ends
 * the run within milliseconds.  A run still going 0.8 s after the stop,
 * or whose memory passes 1.25 times the budget, is the caller's to end:
 * the guard calls its overrun function once (the command line prints one
 * line naming the limit and exits with status 3 - never the kernel's OOM
 * killer, never a hang).  The guard itself never ends the process.
 *
 * guard_done raises the stop flag without a limit (enough predictions were
 * found): workers stop, the run reports what it has.
 *
 * Ownership: guard_start returns a guard owned by the caller
 * (guard_finish joins the thread and frees it).  Registered encoders are
 * borrowed and must be unregistered before they are freed.
 */
#ifndef ISOPREDICT_GUARD_H
#define ISOPREDICT_GUARD_H

#include <stdatomic.h>
#include <stdio.h>
#include "encode.h"
#include "predict.h"

typedef enum {
    GUARD_RUNNING = 0,
    GUARD_DONE,               /* stopped by guard_done: not a limit */
    GUARD_TIME,
    GUARD_MEMORY,
    GUARD_INTERRUPT
} guard_reason;

typedef struct guard guard;

/* deadline: monotonic seconds (ip_now), 0 = none; max_memory: bytes of
 * resident memory, 0 = none; interrupt: raised by the caller (SIGINT),
 * may be NULL; overrun (and its ctx): ip_predict_opts.overrun, may be
 * NULL. */
guard *guard_start(double deadline, uint64_t max_memory,
                   const atomic_bool *interrupt,
                   void (*overrun)(void *ctx, ip_stop why), void *ctx,
                   ip_error *err);
void guard_finish(guard *g);

const atomic_bool *guard_flag(const guard *g);
bool guard_stopped(const guard *g);
guard_reason guard_why(const guard *g);
void guard_done(guard *g);
/* Highest resident memory seen, bytes. */
uint64_t guard_peak(const guard *g);
/* What guard_left says without a deadline: seconds beyond any limit
 * (guard_ms makes it IP_MAX_TIMEOUT_MS). */
#define GUARD_NO_DEADLINE 1e9
/* Seconds left before the deadline (GUARD_NO_DEADLINE without one). */
double guard_left(const guard *g);
/* The same as a checker's timeout_ms: 0 without a deadline, else at
 * least 1 (a checker given 0 would run unbounded). */
unsigned guard_check_ms(const guard *g);

/* `seconds` of time left as a timeout in milliseconds for Z3 or a checker:
 * at least 1 (0 would mean none), at most what an unsigned holds. */
unsigned guard_ms(double seconds);

/* false when the registry is full (more than 64 live encoders). */
bool guard_register(guard *g, ip_encoder *e);
void guard_unregister(guard *g, ip_encoder *e);
/* Registered encoder e's own deadline (ip_now seconds; 0 = none): its
 * solves are interrupted from then on, within a poll (10 ms). */
void guard_set_until(guard *g, ip_encoder *e, double until);

/* The limit a reason is (IP_STOP_NONE for running or done). */
ip_stop guard_stop_of(guard_reason r);

#endif
