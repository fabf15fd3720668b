/*
 * covered.c - the instances found so far, shared by a round's windows
 * (covered.h).  Flat arrays behind one mutex; readers copy what is new
 * to them.
 */
#include "covered.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

struct covered {
    pthread_mutex_t lock;
    covered_fact *fact;       /* instance after instance */
    uint32_t n_facts, cap_facts;
    uint32_t *start;          /* instance i: facts [start[i], start[i+1]) */
    uint32_t *owner;          /* instance i was found by window owner[i] */
    uint32_t n_inst, cap_start, cap_owner;
};

covered *covered_new(void)
{
    covered *cv = calloc(1, sizeof *cv);
    if (!cv)
        return NULL;
    cv->cap_start = 16;
    cv->start = malloc(cv->cap_start * sizeof *cv->start);
    if (!cv->start || pthread_mutex_init(&cv->lock, NULL) != 0) {
        free(cv->start);
        free(cv);
        return NULL;
    }
    cv->start[0] = 0;
    return cv;
}

void covered_free(covered *cv)
{
    if (!cv)
        return;
    pthread_mutex_destroy(&cv->lock);
    free(cv->fact);
    free(cv->start);
    free(cv->owner);
    free(cv);
}

bool covered_add(covered *cv, uint32_t owner, const covered_fact *f,
                 uint32_t n)
{
    if (n == 0)
        return true;
    pthread_mutex_lock(&cv->lock);
    bool ok = true;
    while (ok && cv->n_facts + n > cv->cap_facts)
        ok = ip_grow((void **)&cv->fact, &cv->cap_facts, sizeof *cv->fact);
    while (ok && cv->n_inst + 2 > cv->cap_start)
        ok = ip_grow((void **)&cv->start, &cv->cap_start, sizeof *cv->start);
    while (ok && cv->n_inst + 1 > cv->cap_owner)
        ok = ip_grow((void **)&cv->owner, &cv->cap_owner, sizeof *cv->owner);
    if (ok) {
        memcpy(cv->fact + cv->n_facts, f, n * sizeof *f);
        cv->n_facts += n;
        cv->owner[cv->n_inst] = owner;
        cv->start[++cv->n_inst] = cv->n_facts;
    }
    pthread_mutex_unlock(&cv->lock);
    return ok;
}

bool covered_since(covered *cv, uint32_t self, uint32_t *next,
                   covered_fact **f, uint32_t **start, uint32_t *n_inst)
{
    *f = NULL;
    *start = NULL;
    *n_inst = 0;
    pthread_mutex_lock(&cv->lock);
    uint32_t from = *next, to = cv->n_inst;
    bool ok = true;
    if (from < to) {
        uint32_t f0 = cv->start[from], nf = cv->start[to] - f0;
        *f = malloc(((size_t)nf + 1) * sizeof **f);
        *start = malloc(((size_t)(to - from) + 1) * sizeof **start);
        ok = *f && *start;
        uint32_t k = 0, m = 0;
        if (ok)
            (*start)[0] = 0;
        for (uint32_t i = from; ok && i < to; i++) {
            if (cv->owner[i] == self)
                continue;
            uint32_t len = cv->start[i + 1] - cv->start[i];
            memcpy(*f + k, cv->fact + cv->start[i], len * sizeof **f);
            k += len;
            (*start)[++m] = k;
        }
        if (ok) {
            *n_inst = m;
            *next = to;
        }
    }
    pthread_mutex_unlock(&cv->lock);
    if (!ok) {
        free(*f);
        free(*start);
        *f = NULL;
        *start = NULL;
    }
    return ok;
}
