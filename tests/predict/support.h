/*
 * support.h - helpers of the predict tests: loading traces, re-checking a
 * prediction independently of the driver, and a brute-force oracle that
 * enumerates assignments without the encoder.
 */
#ifndef ISOPREDICT_TEST_PREDICT_SUPPORT_H
#define ISOPREDICT_TEST_PREDICT_SUPPORT_H

#include "predict.h"

#include <CUnit/CUnit.h>

/* Under AddressSanitizer a Z3 context costs about 60 ms instead of 5 (each
 * gets a fresh 8.5 MB mapping from the sanitizer's allocator), and our
 * code runs several times slower: the heaviest suites run a share of
 * their cases there, chosen so that the cases still meet every model and
 * boundary (memory errors show on a share as on all), and all of them in
 * the normal build. */
#ifdef __SANITIZE_ADDRESS__
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

ip_trace *load_trace(const char *dir, const char *name);
ip_trace *parse_json(const char *text);

/* Transaction `name` of t (a CUnit failure, and 0, when there is none). */
uint32_t txn_id(const ip_trace *t, const char *name);
/* The read event of `key` in transaction `txn` (a failure, and 0, when
 * there is none). */
uint32_t read_event(const ip_trace *t, const char *txn, const char *key);

/* ip_legality_check(...) == IP_LEGAL_OK, the rest freed. */
bool legal_ok(const ip_trace *obs, const ip_assignment *a, ip_boundary kind,
              ip_error *err);

/* Re-check p from scratch: the checkers (model OK, ser VIOLATION, cycle
 * valid), the boundary rules, the changed reads, that the history is a
 * sub-history of obs, and that its JSON file reads back and checks the
 * same.  Failures are CUnit assertions; returns true iff all held. */
bool recheck_prediction(const ip_trace *obs, const ip_prediction *p,
                        const ip_predict_opts *o);

/* Exhaustive search of assignments of a small trace: 1 if some assignment
 * conforms and gives a model-valid, unserializable history, 0 if none,
 * -1 when the trace is too big to enumerate. */
int brute_force_sat(const ip_trace *obs, ip_level model, ip_boundary kind);

/* The number of distinct sets of changed reads (which reads changed, not
 * their new writers) among all predictions (-1: too big). */
int brute_force_count(const ip_trace *obs, ip_level model, ip_boundary kind);
/* The same, counting only histories whose pco (computed naively in the
 * test) has a cycle: what the approximate encodings must find. */
int brute_force_count_pco(const ip_trace *obs, ip_level model,
                          ip_boundary kind);

/* Every prediction of the enumeration above (valid under the model,
 * unserializable): its history h, map m and assignment a, borrowed for
 * the call.  Returns the number of distinct changed-read sets (-1: too
 * big). */
typedef void (*brute_hit)(void *ctx, const ip_trace *h,
                          const ip_history_map *m, const ip_assignment *a);
int brute_force_each(const ip_trace *obs, ip_level model, ip_boundary kind,
                     brute_hit hit, void *ctx);

/* Run the driver and compare with `expect_sat`; every prediction is
 * re-checked.  Returns the number of predictions.  _with takes all the
 * options (bounded searches). */
uint32_t expect_prediction_with(const ip_trace *obs, const char *what,
                                const ip_predict_opts *o, bool expect_sat);
uint32_t expect_prediction(const ip_trace *obs, const char *what,
                           ip_level model, ip_boundary kind,
                           ip_encoding enc, unsigned max_predictions,
                           bool expect_sat);

/* Enumerate with exact, approx and approx-rank (up to 50 predictions
 * each, every one re-checked) and assert that exact finds `all` sets of
 * changed reads and both approximate encodings `cyclic` (the brute-force
 * counts); so must exact and approx with lazy weak isolation, and the
 * bounded search with one window covering the trace
 * (approx without a staleness bound, exact with one larger than any
 * key's writers).  `what` names the trace in messages. */
void expect_enumeration(const ip_trace *obs, const char *what, ip_level model,
                        ip_boundary kind, int all, int cyclic);

#endif
