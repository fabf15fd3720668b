/*
 * local.h - confirming a window's candidate on the window and a little
 * context instead of on the whole trace before it (internal to the
 * predict module; used by window.c under triage).
 *
 * A window's candidate is confirmed on the window's own trace first.  It
 * must then hold for the observed program, whose state before the window
 * was folded into the initial transaction: confirming it again on the
 * observed trace cut after the window costs time linear in the cut, for
 * every candidate (at 100,000 transactions that was all of a triage run).
 *
 * The local trace is the window's transactions and, before them, as
 * context: the transactions of the window just before it (as many as the
 * window has), the last transaction before the window of each of its
 * sessions, and the last writer before the window of each key it reads
 * or writes.  Reads of context transactions whose writer is not in it are
 * left out, not folded (ip_trace_slice_with, IP_SLICE_DROP_READS).
 * When the observed order is
 * serial, a candidate confirmed on the window's trace and unserializable
 * on the local one is a prediction of the cut (docs/SEMANTICS.md, "Local
 * confirmation"):
 * - legal and allowed by the model: the window's trace says so, and the
 *   cut only adds before the window transactions in a serial order that
 *   nothing in the window precedes;
 * - unserializable: the local history is a part of the cut's (fewer
 *   transactions, fewer reads), and any serial order of the cut's history
 *   restricted to it would be one of it.
 * The converse does not hold: when the local history is serializable, the
 * context left something out, and the caller confirms on the cut.
 *
 * Errors: false with err set when out of memory.
 */
#ifndef ISOPREDICT_LOCAL_H
#define ISOPREDICT_LOCAL_H

#include "state.h"

typedef struct window_local {
    ip_trace *tr;             /* the local trace, NULL until made */
    uint32_t *txn;            /* local txn -> observed txn (increasing) */
    uint32_t *of_sub;         /* window trace txn -> local txn */
    uint32_t context;         /* local txns before the window */
    bool unusable;            /* made, but a window read's writer is not
                                 in it (the order was not serial): use
                                 the cut */
} window_local;

/* The window of positions [first, end) in rs's observed order, whose own
 * trace is sub (sub_txn: its txn -> observed txn). */
typedef struct window_view {
    const run_state *rs;
    const ip_trace *sub;
    const uint32_t *sub_txn;
    uint32_t first, end;
} window_view;

/* The last writer of key (observed key id) before the window, as an
 * observed txn id (txn 0 when none). */
uint32_t local_writer_before(const window_view *v, uint32_t key);

/* Covers shared between windows (window.c, covered.h) name writers by
 * observed ids.  The state a window folds into its txn 0 is, key by key,
 * the key's last writer before the window when the observed order is
 * serial (rs->serial_order: a window read whose writer lies before the
 * window then reads exactly that one; the lifts below read txn 0 so
 * too).  Without a serial order txn 0 names no one writer. */

/* The window's txn of observed txn x, or IP_NONE. */
uint32_t local_sub_txn(const window_view *v, uint32_t x);

/* The observed txn that window txn b stands for as the writer of
 * observed read event r; IP_NONE when none can be named (txn 0 of a
 * window after the first, without a serial order). */
uint32_t local_observed_writer(const window_view *v, uint32_t r, uint32_t b);

/* The window's txn standing for observed writer x of observed read event
 * r: x's own, or txn 0 when x is the state the window folds for r's key;
 * IP_NONE when neither. */
uint32_t local_window_writer(const window_view *v, uint32_t r, uint32_t x);

bool local_make(window_local *l, const window_view *v, ip_error *err);
void local_free(window_local *l);

/* A trace that holds the window's transactions and, for each key, its
 * last writer before the window (the local trace, or the observed trace
 * cut after the window): of_obs(ctx, x) is its id of observed txn x. */
typedef struct lift_target {
    const ip_trace *to;
    uint32_t (*of_obs)(const void *ctx, uint32_t x);
    const void *ctx;
} lift_target;

/* The window trace's assignment a over trace t->to, into *out (malloc'ed
 * arrays; the caller frees them with ip_assignment_free): the window's
 * boundaries and chosen writers, every other read its own writer. */
bool local_lift_to(const window_view *v, const lift_target *t,
                   const ip_assignment *a, ip_assignment *out, ip_error *err);

/* The same over the local trace. */
bool local_lift(const window_local *l, const window_view *v,
                const ip_assignment *a, ip_assignment *out, ip_error *err);

/* The kept transactions of the prediction over the cut that a local
 * prediction with history_txns kept transactions stands for: the whole
 * order before the window, and what the window keeps. */
uint32_t local_cut_txns(const window_local *l, const window_view *v,
                        uint32_t history_txns);

#endif
