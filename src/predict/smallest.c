/*
 * smallest.c - a class representative with fewer changed reads
 * (smallest.h).
 */
#include "smallest.h"

#include <stdlib.h>
#include <string.h>

/* p's assignment with read e back on its observed writer, in a holder;
 * false when out of memory. */
static bool reverted(const ip_trace *t, const ip_prediction *p, uint32_t e,
                     ip_prediction *out)
{
    memset(out, 0, sizeof *out);
    if (!ip_assignment_copy(t, &p->assignment, &out->assignment))
        return false;
    out->assignment.writer[e] = t->events[e].writer;
    out->iteration = p->iteration;
    return true;
}

/* Is the holder tp, confirmed into *tq, a part of class c->cls no larger
 * than `size`?  *oom on a resource failure. */
static bool keeps(const smallest_ctx *c, ip_prediction *tp, ip_prediction *tq,
                  uint32_t size, bool *oom)
{
    ip_error why = {0};
    confirm_outcome o = c->confirm(c->ctx, tp, tq, &why);
    *oom = o == CONFIRM_ERROR && why.oom;
    if (o != CONFIRM_OK)
        return false;
    tq->base = c->q_base;
    bool same = ip_triage_is_class(c->tg, c->cls, tq, oom) &&
                c->size(c->ctx, tq) <= size;
    tq->base = NULL;
    return same;
}

int smallest_part(const smallest_ctx *c, const ip_prediction *p,
                  const ip_prediction *q, ip_prediction *pm,
                  ip_prediction *qm, ip_error *err)
{
    uint32_t size = c->size(c->ctx, q), changed = q->n_changed;
    const ip_prediction *best = p;
    memset(pm, 0, sizeof *pm);
    memset(qm, 0, sizeof *qm);
    for (bool again = true; again;) {
        again = false;
        for (uint32_t i = 0; i < p->n_changed && changed > 1; i++) {
            uint32_t e = p->changed[i].event;
            if (best->assignment.writer[e] == c->tr->events[e].writer)
                continue;                     /* back already */
            ip_prediction tp, tq = {0};
            bool oom = !reverted(c->tr, best, e, &tp), keep = false;
            if (!oom)
                keep = keeps(c, &tp, &tq, size, &oom);
            if (!keep) {
                ip_prediction_clear(&tp);
                ip_prediction_clear(&tq);
                if (oom)
                    return ip_oom(err, "prediction: out of memory"), -1;
                continue;
            }
            if (best != p) {
                ip_prediction_clear(pm);
                ip_prediction_clear(qm);
            }
            tq.seconds = q->seconds;
            tq.window = q->window;
            tq.iteration = q->iteration;
            tp.n_changed = changed = tq.n_changed;
            *pm = tp;
            *qm = tq;
            best = pm;
            again = true;
        }
    }
    return best != p;
}
