/* keyset.c - key sets and writer lists (keyset.h). */
#include "keyset.h"

#include <string.h>

void ip_keyset_add(ip_trace *t, ip_txn *x, uint32_t *slot)
{
    uint32_t w = t->n_wkeys;
    x->wkey_first = w;
    for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++)
        if (t->events[e].kind == IP_WRITE) {
            t->wkeys[w++] = t->events[e].key;
            slot[t->events[e].key] = e;
            t->key_writer_first[t->events[e].key + 1]++;
        }
    x->wkey_count = w - x->wkey_first;
    ip_sort_ids(t->wkeys + x->wkey_first, x->wkey_count);
    for (uint32_t i = x->wkey_first; i < w; i++)
        t->wkey_event[i] = slot[t->wkeys[i]];
    t->n_wkeys = w;
}

/* Prefetch the writer list entry of the written key this far ahead
 * (about: the writers before it may move it on). */
enum { AHEAD = 16 };

void ip_keyset_writer_lists(ip_trace *t, uint32_t *slot)
{
    for (uint32_t k = 0; k < t->n_keys; k++)
        t->key_writer_first[k + 1] += t->key_writer_first[k];
    memcpy(slot, t->key_writer_first, t->n_keys * sizeof *slot);
    for (uint32_t id = 0; id < t->n_txns; id++) {
        const ip_txn *x = &t->txns[id];
        for (uint32_t i = x->wkey_first; i < x->wkey_first + x->wkey_count;
             i++) {
            if (i + AHEAD < t->n_wkeys)
                __builtin_prefetch(&t->key_writer[slot[t->wkeys[i + AHEAD]]],
                                   1);
            uint32_t at = slot[t->wkeys[i]]++;
            t->key_writer[at] = id;
            t->key_writer_event[at] = t->wkey_event[i];
        }
    }
}
