/* print.c - the human-readable verdict: one summary line, then each
 * read-consistency anomaly and each witness cycle edge by edge, each
 * with its anomaly name (verdict.h). */
#include "validate.h"

static const char *result_word(ip_check_result r)
{
    switch (r) {
    case IP_CHECK_OK: return "satisfies";
    case IP_CHECK_VIOLATION: return "violates";
    case IP_CHECK_UNKNOWN: return "could not decide";
    default: return "failed to check";
    }
}

static void print_anomaly(const ip_trace *t, const ip_anomaly *a, FILE *out)
{
    const ip_op *op = &t->ops[a->op];
    fprintf(out, "  %s: %s reads %s (op %u", ip_anomaly_name(a->kind),
            ip_txn_name(t, op->txn), ip_key_name(t, op->key),
            a->op - t->txns[op->txn].op_first);
    if (ip_op_line(t, a->op))
        fprintf(out, ", line %u", ip_op_line(t, a->op));
    if (a->writer != IP_NONE)
        fprintf(out, ") from %s", ip_txn_name(t, a->writer));
    else
        fprintf(out, ") from no write");
    if (a->kind == IP_AN_INCOMPATIBLE_ORDER) {
        const ip_op *o = &t->ops[a->other];
        fprintf(out, ", in an order that contradicts %s's read (op %u",
                ip_txn_name(t, o->txn), a->other - t->txns[o->txn].op_first);
        if (ip_op_line(t, a->other))
            fprintf(out, ", line %u", ip_op_line(t, a->other));
        fputc(')', out);
    }
    fprintf(out, " [%s]\n", ip_read_anomaly_adya(t, a));
}

/* Why the inferred edge t2 -> t1 holds, in the words of the axiom. */
static const char *co_reason(ip_level lvl)
{
    switch (lvl) {
    case IP_LVL_RC: return "after reading from";
    case IP_LVL_RA: return "and reads from or follows in session";
    default: return "and happens after";
    }
}

/* choices: the verdict rests on chosen writers of ambiguous reads, and a
 * wr or rw edge that is not forced is one of them. */
static void print_edge(const ip_trace *t, ip_level lvl, const ip_edge *e,
                       bool choices, FILE *out)
{
    const char *chosen = choices && !e->forced ? " (one of its candidates)"
                                               : "";
    const char *from = ip_txn_name(t, e->from), *to = ip_txn_name(t, e->to);
    switch ((ip_edge_kind)e->kind) {
    case IP_EDGE_SO:
        fprintf(out, "    %s -so-> %s: same session, in this order\n", from,
                to);
        break;
    case IP_EDGE_WR:
        fprintf(out, "    %s -wr(%s)-> %s: %s reads %s from %s%s\n", from,
                ip_key_name(t, e->key), to, to, ip_key_name(t, e->key), from,
                chosen);
        break;
    case IP_EDGE_WW:
        fprintf(out, "    %s -ww(%s)-> %s: both write %s%s\n", from,
                ip_key_name(t, e->key), to, ip_key_name(t, e->key),
                ip_version_cmp(t, e->key, e->from, e->to) > 0
                    ? " (the known version order)"
                    : e->forced ? " (order forced)" : "");
        break;
    case IP_EDGE_RW:
        fprintf(out, "    %s -rw(%s)-> %s: %s reads %s from %s%s, "
                "overwritten by %s\n", from, ip_key_name(t, e->key), to, from,
                ip_key_name(t, e->key), ip_txn_name(t, e->via), chosen, to);
        break;
    case IP_EDGE_CO:
        fprintf(out, "    %s -co(%s)-> %s: %s reads %s from %s %s %s, "
                "which writes %s too\n", from, ip_key_name(t, e->key), to,
                ip_txn_name(t, e->via), ip_key_name(t, e->key), to,
                co_reason(lvl), from, ip_key_name(t, e->key));
        break;
    }
}

/* Ambiguous reads: how many writers follow from the history, and what the
 * rest mean for the witness. */
static void print_writers(const ip_verdict *v, FILE *out)
{
    uint32_t deduced = 0;
    for (uint32_t i = 0; i < v->n_writers; i++)
        deduced += v->deduced[i];
    fprintf(out, "%u ambiguous read%s: %u writer%s deduced, %u chosen (%s)\n",
            v->n_writers, v->n_writers == 1 ? "" : "s", deduced,
            deduced == 1 ? "" : "s", v->n_writers - deduced,
            v->result == IP_CHECK_OK
                ? "an execution exists with them; --json lists them"
                : "every choice has a cycle; the one below is under them");
}

void ip_verdict_print(const ip_trace *t, const ip_verdict *v, FILE *out)
{
    fprintf(out, "%s %s (%u transactions, checked in %.0f ms)\n",
            result_word(v->result), ip_level_name(v->level),
            ip_committed_count(t), v->seconds * 1e3);
    if (v->n_writers)
        print_writers(v, out);
    if (t->n_anomalies)
        fprintf(out, "%u read-consistency anomal%s:\n", t->n_anomalies,
                t->n_anomalies == 1 ? "y" : "ies");
    for (uint32_t i = 0; i < t->n_anomalies; i++)
        print_anomaly(t, &t->anomalies[i], out);
    for (uint32_t i = 0; i < v->n_cycles; i++) {
        const ip_cycle *c = &v->cycles[i];
        uint32_t inferred = 0;
        for (uint32_t j = 0; j < c->n_edges; j++)
            inferred += c->edges[j].kind == IP_EDGE_CO;
        fprintf(out, "cycle %u: %s (%u edges, %u inferred):\n", i + 1,
                ip_cycle_anomaly_name(t, v->level, c), c->n_edges, inferred);
        for (uint32_t j = 0; j < c->n_edges; j++)
            print_edge(t, v->level, &c->edges[j], v->n_writers > 0, out);
    }
}
