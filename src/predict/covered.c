/*
 * covered.c - the instances found so far, shared by a round's windows
 * (covered.h).  One list of instances per window behind one mutex;
 * readers copy what is new to them from the lists of the windows that
 * overlap theirs.
 */
#include "covered.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

typedef struct owner_list {
    covered_fact *fact;       /* instance after instance */
    uint32_t n_facts, cap_facts;
    uint32_t *start;          /* instance i: facts [start[i], start[i+1]) */
    uint32_t n_inst, cap_start;
} owner_list;

struct covered {
    pthread_mutex_t lock;
    owner_list *list;         /* one per window */
    uint32_t windows, reach;
};

covered *covered_new(uint32_t windows, uint32_t reach)
{
    covered *cv = calloc(1, sizeof *cv);
    if (!cv)
        return NULL;
    cv->windows = windows;
    cv->reach = reach < COVERED_MAX_REACH ? reach : COVERED_MAX_REACH;
    cv->list = calloc((size_t)windows + 1, sizeof *cv->list);
    if (!cv->list || pthread_mutex_init(&cv->lock, NULL) != 0) {
        free(cv->list);
        free(cv);
        return NULL;
    }
    return cv;
}

void covered_free(covered *cv)
{
    if (!cv)
        return;
    pthread_mutex_destroy(&cv->lock);
    for (uint32_t w = 0; w < cv->windows; w++) {
        free(cv->list[w].fact);
        free(cv->list[w].start);
    }
    free(cv->list);
    free(cv);
}

bool covered_add(covered *cv, uint32_t owner, const covered_fact *f,
                 uint32_t n)
{
    if (n == 0 || owner >= cv->windows)
        return true;              /* nobody could read it */
    pthread_mutex_lock(&cv->lock);
    owner_list *l = &cv->list[owner];
    bool ok = true;
    while (ok && l->n_facts + n > l->cap_facts)
        ok = ip_grow((void **)&l->fact, &l->cap_facts, sizeof *l->fact);
    while (ok && l->n_inst + 2 > l->cap_start)
        ok = ip_grow((void **)&l->start, &l->cap_start, sizeof *l->start);
    if (ok) {
        memcpy(l->fact + l->n_facts, f, n * sizeof *f);
        l->start[0] = 0;
        l->n_facts += n;
        l->start[++l->n_inst] = l->n_facts;
    }
    pthread_mutex_unlock(&cv->lock);
    return ok;
}

/* The windows overlapping self: [*lo, *hi). */
static void overlapping(const covered *cv, uint32_t self, uint32_t *lo,
                        uint32_t *hi)
{
    *lo = self > cv->reach ? self - cv->reach : 0;
    *hi = self + cv->reach + 1 < cv->windows ? self + cv->reach + 1
                                              : cv->windows;
}

bool covered_since(covered *cv, uint32_t self, covered_cursor *cur,
                   covered_fact **f, uint32_t **start, uint32_t *n_inst)
{
    *f = NULL;
    *start = NULL;
    *n_inst = 0;
    uint32_t lo, hi, nf = 0, ni = 0;
    pthread_mutex_lock(&cv->lock);
    overlapping(cv, self, &lo, &hi);
    for (uint32_t o = lo; o < hi; o++) {
        const owner_list *l = &cv->list[o];
        uint32_t from = cur->next[o + COVERED_MAX_REACH - self];
        if (o != self && from < l->n_inst) {
            nf += l->start[l->n_inst] - l->start[from];
            ni += l->n_inst - from;
        }
    }
    bool ok = true;
    if (ni > 0) {
        *f = malloc(((size_t)nf + 1) * sizeof **f);
        *start = malloc(((size_t)ni + 1) * sizeof **start);
        ok = *f && *start;
    }
    uint32_t k = 0, m = 0;
    if (ok && ni > 0)
        (*start)[0] = 0;
    for (uint32_t o = lo; ok && ni > 0 && o < hi; o++) {
        const owner_list *l = &cv->list[o];
        uint32_t *next = &cur->next[o + COVERED_MAX_REACH - self];
        if (o == self || *next >= l->n_inst)
            continue;
        for (uint32_t i = *next; i < l->n_inst; i++) {
            uint32_t len = l->start[i + 1] - l->start[i];
            memcpy(*f + k, l->fact + l->start[i], len * sizeof **f);
            k += len;
            (*start)[++m] = k;
        }
        *next = l->n_inst;
    }
    if (ok)
        *n_inst = m;
    pthread_mutex_unlock(&cv->lock);
    if (!ok) {
        free(*f);
        free(*start);
        *f = NULL;
        *start = NULL;
    }
    return ok;
}
