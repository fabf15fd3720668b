/* intern.c - the string table of a trace under construction: each
 * distinct string stored once in an arena, found again by an open-
 * addressing hash table (ids are the order strings first came in). */
#include "intern.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

enum { ARENA_BLOCK = 1 << 16 };

static uint32_t hash_bytes(const char *s, size_t len)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static char *arena_copy(ip_intern *in, const char *s, size_t len)
{
    ip_arena_block *b = in->arena;
    if (!b || b->size - b->used < len + 1) {
        size_t size = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;
        ip_arena_block *nb = malloc(sizeof *nb + size);
        if (!nb)
            return NULL;
        nb->next = b;
        nb->used = 0;
        nb->size = size;
        in->arena = b = nb;
    }
    char *p = b->data + b->used;
    memcpy(p, s, len);
    p[len] = '\0';
    b->used += len + 1;
    return p;
}

int ip_intern_init(ip_intern *in)
{
    memset(in, 0, sizeof *in);
    in->n_slots = 1024;
    in->slots = calloc(in->n_slots, sizeof *in->slots);
    return in->slots != NULL;
}

static uint32_t *find_slot(const ip_intern *in, const char *s, size_t len)
{
    uint32_t mask = in->n_slots - 1;
    for (uint32_t i = hash_bytes(s, len) & mask;; i = (i + 1) & mask) {
        uint32_t id = in->slots[i];
        if (id == 0)
            return &in->slots[i];
        const char *t = in->strings[id - 1];
        if (strncmp(t, s, len) == 0 && t[len] == '\0')
            return &in->slots[i];
    }
}

static int grow_slots(ip_intern *in)
{
    uint32_t n = in->n_slots * 2;
    uint32_t *slots = ip_malloc_big(n * sizeof *slots);
    if (!slots)
        return 0;
    memset(slots, 0, n * sizeof *slots);
    free(in->slots);
    in->slots = slots;
    in->n_slots = n;
    for (uint32_t id = 0; id < in->n; id++) {
        const char *s = in->strings[id];
        *find_slot(in, s, strlen(s)) = id + 1;
    }
    return 1;
}

uint32_t ip_intern_find(const ip_intern *in, const char *s, size_t len)
{
    uint32_t id = *find_slot(in, s, len);
    return id ? id - 1 : IP_NONE;
}

uint32_t ip_intern_add(ip_intern *in, const char *s, size_t len)
{
    uint32_t *slot = find_slot(in, s, len);
    if (*slot)
        return *slot - 1;
    if (in->n == in->cap) {
        uint32_t cap = in->cap ? in->cap * 2 : 256;
        char **strings = realloc(in->strings, cap * sizeof *strings);
        if (!strings)
            return IP_NONE;
        in->strings = strings;
        in->cap = cap;
    }
    char *copy = arena_copy(in, s, len);
    if (!copy)
        return IP_NONE;
    in->strings[in->n] = copy;
    *slot = ++in->n;
    if (in->n * 2 > in->n_slots && !grow_slots(in))
        return IP_NONE;
    return in->n - 1;
}

void ip_arena_free(ip_arena_block *a)
{
    while (a) {
        ip_arena_block *next = a->next;
        free(a);
        a = next;
    }
}

void ip_intern_free(ip_intern *in)
{
    free(in->strings);
    free(in->slots);
    ip_arena_free(in->arena);
    memset(in, 0, sizeof *in);
}
