/* extract_internal.h - helpers shared inside the predict module. */
#ifndef ISOPREDICT_EXTRACT_INTERNAL_H
#define ISOPREDICT_EXTRACT_INTERNAL_H

#include "trace.h"
#include "encode.h"

/* ev_of_op[o] = the event of observed op o, IP_NONE for local reads and
 * writes that are not their transaction's last to the key.  malloc'ed;
 * NULL on OOM. */
uint32_t *ip_events_of_ops(const ip_trace *obs);

#endif
