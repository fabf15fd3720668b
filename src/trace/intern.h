/*
 * intern.h - string interning for the trace builder (internal).
 *
 * Strings live in an arena of large blocks so that a million distinct
 * values cost a handful of allocations; ids are dense, in first-seen
 * order.  The table hands its arena and string array over to the trace.
 */
#ifndef ISOPREDICT_INTERN_H
#define ISOPREDICT_INTERN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ip_arena_block {
    struct ip_arena_block *next;
    size_t used, size;
    char data[];
} ip_arena_block;

typedef struct ip_intern_slot {
    uint32_t id;              /* id + 1, 0 = empty */
    uint32_t hash;            /* top bit: longer than 8 bytes */
    uint64_t prefix;          /* first 8 bytes, zero-padded */
} ip_intern_slot;

typedef struct ip_intern {
    char **strings;           /* id -> string */
    uint32_t n, cap;
    ip_intern_slot *slots;    /* open addressing */
    uint32_t n_slots;         /* power of two */
    uint32_t n_hashed;        /* strings with a slot */
    ip_arena_block *arena;
} ip_intern;

/* All return false / UINT32_MAX (trace.h's IP_NONE) only when out of
 * memory. */
int ip_intern_init(ip_intern *in);
/* The id of s[0, len), found by hashing, added when new. */
uint32_t ip_intern_add(ip_intern *in, const char *s, size_t len);
/* A new id for s[0, len), not entered in the hash table: for strings the
 * caller never looks up with ip_intern_add, so that they stay unique. */
uint32_t ip_intern_append(ip_intern *in, const char *s, size_t len);
void ip_intern_free(ip_intern *in);
void ip_arena_free(ip_arena_block *a);

/* The strings of a finished trace, which the traces derived from it share
 * (trace.h, ip_trace_derive).  Counted atomically: a derived trace may be
 * freed on another thread than its parent. */
typedef struct ip_string_store {
    char **strings;
    ip_arena_block *arena;
    atomic_uint refs;
} ip_string_store;

/* A store of one reference taking in's strings and arena (in keeps its
 * hash table and count for ip_intern_free); NULL when out of memory, in
 * unchanged. */
ip_string_store *ip_string_store_adopt(ip_intern *in);
/* One more reference to s; s. */
ip_string_store *ip_string_store_hold(ip_string_store *s);
/* One reference fewer; the last frees s (NULL: nothing). */
void ip_string_store_release(ip_string_store *s);

#endif
