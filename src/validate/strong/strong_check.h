/*
 * strong_check.h - the ser/si checker on one graph (strong_check.c), and
 * the frame every check runs in.  Used by the entry points
 * (strong_entry.c), by the search over ambiguous reads (strong_ambig.c),
 * which checks one choice of writers at a time, and by the checker of
 * mini-transaction histories (strong_mt.c); strong_check.c calls none.
 */
#ifndef ISOPREDICT_STRONG_CHECK_H
#define ISOPREDICT_STRONG_CHECK_H

#include "strong_graph.h"

/* The checker on `view`, whose reads all name a writer except the `open`
 * ones (NULL: none), whose writers its search chooses (picks in
 * open->pick).  NULL opts, sopts, stats and err take defaults. */
ip_check_result sg_check_open(const ip_trace *view, bool si,
                              const ip_check_opts *opts,
                              const ip_strong_opts *sopts, const sg_open *open,
                              ip_verdict *out, ip_strong_stats *stats,
                              ip_error *err);

/* The frame of a check: sg_frame_begin gives NULL sopts, stats and err
 * the frame's defaults, clears *out and the stats and starts the clock;
 * sg_frame_end sets the verdict's level, result and time, frees the
 * witnesses of a result other than OK and VIOLATION, and returns res. */
typedef struct sg_frame {
    double t0;
    ip_strong_stats stats;
    ip_strong_opts no_opts;
    ip_error err;
} sg_frame;

void sg_frame_begin(sg_frame *f, bool si, const ip_strong_opts **sopts,
                    ip_verdict *out, ip_strong_stats **stats, ip_error **err);
ip_check_result sg_frame_end(const sg_frame *f, bool si, ip_check_result res,
                             ip_verdict *out);

/* Free what a check put in c (the graph, indexes, write orders). */
void sg_ctx_free(sg_ctx *c);

#endif
