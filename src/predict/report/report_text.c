/*
 * report_text.c - a prediction in words and as a Graphviz drawing.
 */
#include "report.h"
#include "formats.h"
#include "predict.h"

#include <stdlib.h>

static void print_boundaries(const ip_trace *obs, const ip_prediction *p,
                             const ip_predict_opts *o, FILE *out)
{
    fprintf(out, "  boundaries:");
    for (uint32_t s = 0; s < p->n_sessions; s++) {
        uint32_t b = p->assignment.boundary[s];
        const char *sn = ip_session_name(obs, s);
        if (b == IP_NONE)
            fprintf(out, "%s %s: end", s ? ";" : "", sn);
        else if (o->boundary == IP_BOUNDARY_STRICT)
            fprintf(out, "%s %s: read of %s in %s", s ? ";" : "", sn,
                    ip_key_name(obs, obs->events[b].key),
                    ip_txn_name(obs, obs->events[b].txn));
        else
            fprintf(out, "%s %s: transaction %s", s ? ";" : "", sn,
                    ip_txn_name(obs, b));
    }
    fputc('\n', out);
}

static void print_changed(const ip_trace *obs, const ip_prediction *p,
                          FILE *out)
{
    if (p->n_changed == 0) {
        fprintf(out, "  no read changed: the observed trace itself is "
                "valid and unserializable\n");
        return;
    }
    fprintf(out, "  changed reads:\n");
    for (uint32_t i = 0; i < p->n_changed; i++) {
        const ip_changed_read *c = &p->changed[i];
        uint32_t s = obs->txns[c->txn].session;
        fprintf(out, "    session %s, transaction %s, op %u: read of %s "
                "from %s -> from %s\n", ip_session_name(obs, s),
                ip_txn_name(obs, c->txn), c->hist_op,
                ip_key_name(obs, c->key), ip_txn_name(obs, c->observed),
                ip_txn_name(obs, c->predicted));
    }
}

/* How much of a long list a person reads: the commit order's first
 * transactions, the first dropped transactions with their reasons. */
enum { ORDER_SHOWN = 40, DROPPED_SHOWN = 8 };

/* Relaxed: the transactions the boundary drops, each with the step that
 * makes it happen after a boundary or dropped transaction. */
static void print_dropped(const ip_trace *obs, const ip_prediction *p,
                          FILE *out)
{
    ip_legality l;
    ip_error err = {0};
    if (ip_legality_check(obs, &p->assignment, IP_BOUNDARY_RELAXED, &l,
                          &err) == IP_LEGAL_OK) {
        uint32_t n = 0;
        for (uint32_t t = 1; t < obs->n_txns; t++) {
            if (!l.dropped[t])
                continue;
            const ip_hb_step *st = &l.because[t];
            if (n < DROPPED_SHOWN && st->read != IP_NONE)
                fprintf(out, "%s %s (reads %s from %s)", n ? "," : "  dropped:",
                        ip_txn_name(obs, t),
                        ip_key_name(obs, obs->events[st->read].key),
                        ip_txn_name(obs, st->from));
            else if (n < DROPPED_SHOWN)
                fprintf(out, "%s %s (after %s in its session)",
                        n ? "," : "  dropped:", ip_txn_name(obs, t),
                        ip_txn_name(obs, st->from));
            n++;
        }
        if (n > DROPPED_SHOWN)
            fprintf(out, " and %u more", n - DROPPED_SHOWN);
        if (n)
            fputc('\n', out);
    }
    ip_legality_free(&l);
}

void ip_prediction_print(const ip_trace *obs, const ip_prediction *p,
                         const ip_predict_opts *o, FILE *out)
{
    const ip_trace *h = p->history;
    obs = ip_prediction_base(obs, p);
    fprintf(out, "  %u of %u transactions kept; confirmed: %s satisfied, "
            "ser violated\n", h->n_txns - 1, obs->n_txns - 1,
            ip_level_name(o->model));
    if (p->base)
        fprintf(out, "  window %u: the observed run cut after its first %u "
                "transactions; only reads inside the window changed\n",
                p->window + 1, ip_committed_count(obs));
    print_changed(obs, p, out);
    print_boundaries(obs, p, o, out);
    if (o->boundary == IP_BOUNDARY_RELAXED)
        print_dropped(obs, p, out);
    if (p->ser_verdict.n_cycles) {
        char buf[1024];
        const ip_cycle *c = &p->ser_verdict.cycles[0];
        const char *name = ip_cycle_classic_name(c);
        ip_cycle_describe(h, c, buf, sizeof buf);
        fprintf(out, "  unserializable, cycle: %s%s%s%s\n", buf,
                name ? " (" : "", name ? name : "", name ? ")" : "");
        char *sig = ip_prediction_signature(p, o->key_family);
        if (sig)
            fprintf(out, "  bug class: %s\n", sig);
        free(sig);
    }
    fprintf(out, "  %s commit order:", ip_level_name(o->model));
    for (uint32_t i = 0; i < p->model_verdict.n_order && i < ORDER_SHOWN;
         i++)
        fprintf(out, " %s", ip_txn_name(h, p->model_verdict.order[i]));
    fprintf(out, "%s\n", p->model_verdict.n_order > ORDER_SHOWN ? " ..."
                                                             : "");
    if (o->boundary == IP_BOUNDARY_RELAXED)
        fprintf(out, "  note: %s\n", ip_relaxed_assumption);
}

enum { LABEL_LEN = 96 };

bool ip_prediction_write_dot(const ip_trace *obs, const ip_prediction *p,
                             FILE *out)
{
    obs = ip_prediction_base(obs, p);
    const ip_cycle *c = p->ser_verdict.n_cycles ? &p->ser_verdict.cycles[0]
                                                : NULL;
    size_t n = p->n_changed + (c ? c->n_edges : 0);
    ip_dot_edge *edges = calloc(n + 1, sizeof *edges);
    char (*labels)[LABEL_LEN] = calloc(n + 1, sizeof *labels);
    if (!edges || !labels) {
        free(edges);
        free(labels);
        return false;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < p->n_changed; i++, k++) {
        const ip_changed_read *ch = &p->changed[i];
        snprintf(labels[k], LABEL_LEN, "wr(%s) predicted, was %s",
                 ip_key_name(obs, ch->key), ip_txn_name(obs, ch->observed));
        edges[k] = (ip_dot_edge){.from = p->map.hist_txn[ch->predicted],
                                 .to = p->map.hist_txn[ch->txn],
                                 .label = labels[k], .color = "darkorange",
                                 .bold = true};
    }
    for (uint32_t i = 0; c && i < c->n_edges; i++, k++) {
        const ip_edge *e = &c->edges[i];
        if (e->key != IP_NONE)
            snprintf(labels[k], LABEL_LEN, "%s(%s)",
                     ip_edge_kind_name(e->kind),
                     ip_key_name(p->history, e->key));
        else
            snprintf(labels[k], LABEL_LEN, "%s", ip_edge_kind_name(e->kind));
        edges[k] = (ip_dot_edge){.from = e->from, .to = e->to,
                                 .label = labels[k], .color = "red",
                                 .bold = true,
                                 .dashed = e->kind == IP_EDGE_RW};
    }
    bool ok = ip_write_dot(p->history, edges, k, out);
    free(edges);
    free(labels);
    return ok;
}
