/* intern.c - the string table of a trace under construction: each
 * distinct string stored once in an arena, found again by an open-
 * addressing hash table (ids are the order strings first came in).
 *
 * A slot keeps the string's hash and its first eight bytes beside its id:
 * most strings of a trace (keys, values, transaction ids) are that short,
 * and are then found without reading the string itself - one cache line
 * a lookup, where following the id to the string costs two more misses.
 *
 * Strings the caller finds by other means (the builder: numbers and
 * numbered names, by their number) are appended without a slot: at a
 * million of them, the table's growth and its misses were most of what
 * interning cost. */
#include "intern.h"
#include "mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_BLOCK = 1 << 16 };

#define LONG_BIT 0x80000000u  /* in a slot's hash: longer than 8 bytes */

static uint32_t hash_bytes(const char *s, size_t len)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return len > 8 ? h | LONG_BIT : h & ~LONG_BIT;
}

/* The first eight bytes, zero-padded (strings hold no NUL). */
static uint64_t prefix_of(const char *s, size_t len)
{
    uint64_t p = 0;
    memcpy(&p, s, len < 8 ? len : 8);
    return p;
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

static ip_intern_slot *find_slot(const ip_intern *in, const char *s,
                                 size_t len, uint32_t hash, uint64_t prefix)
{
    uint32_t mask = in->n_slots - 1;
    for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
        ip_intern_slot *slot = &in->slots[i];
        if (slot->id == 0)
            return slot;
        if (slot->hash != hash || slot->prefix != prefix)
            continue;
        if (len <= 8)
            return slot;          /* hash, length class and bytes agree */
        const char *t = in->strings[slot->id - 1];
        if (strncmp(t + 8, s + 8, len - 8) == 0 && t[len] == '\0')
            return slot;
    }
}

static int grow_slots(ip_intern *in)
{
    uint32_t n = in->n_slots * 2;
    ip_intern_slot *slots = ip_malloc_big(n * sizeof *slots);
    if (!slots)
        return 0;
    memset(slots, 0, n * sizeof *slots);
    ip_intern_slot *old = in->slots;
    uint32_t n_old = in->n_slots;
    in->slots = slots;
    in->n_slots = n;
    for (uint32_t i = 0; i < n_old; i++) {
        if (!old[i].id)
            continue;
        uint32_t j = old[i].hash & (n - 1);
        while (slots[j].id)
            j = (j + 1) & (n - 1);
        slots[j] = old[i];
    }
    free(old);
    return 1;
}

/* Copy s[0, len) in as string id in->n; false when out of memory. */
static bool store(ip_intern *in, const char *s, size_t len)
{
    if (in->n == in->cap) {
        uint32_t cap = in->cap ? in->cap * 2 : 256;
        char **strings = realloc(in->strings, cap * sizeof *strings);
        if (!strings)
            return false;
        in->strings = strings;
        in->cap = cap;
    }
    char *copy = arena_copy(in, s, len);
    if (!copy)
        return false;
    in->strings[in->n++] = copy;
    return true;
}

uint32_t ip_intern_add(ip_intern *in, const char *s, size_t len)
{
    uint32_t hash = hash_bytes(s, len);
    uint64_t prefix = prefix_of(s, len);
    ip_intern_slot *slot = find_slot(in, s, len, hash, prefix);
    if (slot->id)
        return slot->id - 1;
    if (!store(in, s, len))
        return UINT32_MAX;
    *slot = (ip_intern_slot){.id = in->n, .hash = hash, .prefix = prefix};
    if (++in->n_hashed * 2 > in->n_slots && !grow_slots(in))
        return UINT32_MAX;
    return in->n - 1;
}

uint32_t ip_intern_append(ip_intern *in, const char *s, size_t len)
{
    return store(in, s, len) ? in->n - 1 : UINT32_MAX;
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

ip_string_store *ip_string_store_adopt(ip_intern *in)
{
    ip_string_store *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->strings = in->strings;
    s->arena = in->arena;
    atomic_init(&s->refs, 1);
    in->strings = NULL;
    in->arena = NULL;
    return s;
}

ip_string_store *ip_string_store_hold(ip_string_store *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

void ip_string_store_release(ip_string_store *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refs, 1,
                                        memory_order_acq_rel) != 1)
        return;
    free(s->strings);
    ip_arena_free(s->arena);
    free(s);
}
