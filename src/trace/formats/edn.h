/*
 * edn.h - a small EDN parser for the Elle reader (read_elle.c).  Internal
 * to src/trace/formats.
 *
 * It reads one top-level value at a time into a flat array of nodes in
 * pre-order: a container's children follow it, and node.end is the index
 * just past its subtree, so that a child list is walked with
 * `for (i = c + 1; i < nodes[c].end; i = nodes[i].end)`.  The subset read:
 * nil, true, false, integers (64-bit, optional sign, an `N` suffix),
 * floats (kept as text), strings (JSON-like escapes), characters
 * (`\a`, kept as text), keywords, symbols, lists, vectors, maps, sets
 * (`#{...}`), tagged values (`#tag value`: the tag is dropped) and `#_`
 * discards; `;` comments and commas are whitespace.  Nesting deeper than
 * EDN_MAX_DEPTH is refused (so that no input exhausts the stack).
 *
 * Ownership: the parser borrows the input (it need not be NUL-terminated;
 * nodes point into it) and owns its node array, freed by edn_free.
 * Errors: edn_next returns EDN_ERROR with err, err_line and err_col set
 * (1-based), or with oom set when an allocation failed.  No global state.
 */
#ifndef ISOPREDICT_EDN_H
#define ISOPREDICT_EDN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { EDN_MAX_DEPTH = 64 };

typedef enum {
    EDN_NIL, EDN_TRUE, EDN_FALSE, EDN_INT, EDN_FLOAT, EDN_STRING, EDN_CHAR,
    EDN_KEYWORD, EDN_SYMBOL, EDN_LIST, EDN_VECTOR, EDN_MAP, EDN_SET
} edn_type;

typedef struct edn_node {
    uint8_t type;             /* edn_type */
    uint32_t end;             /* index past this node's subtree */
    uint32_t count;           /* containers: number of children */
    uint32_t line, col;       /* where it starts, 1-based */
    const char *s;            /* its text: a string's between the quotes
                                 (escapes as written), a keyword's with
                                 its ':' */
    uint32_t len;
    int64_t i;                /* EDN_INT: the value */
} edn_node;

typedef struct edn_parser {
    const char *p, *end, *line_start;
    uint32_t line;
    edn_node *nodes;          /* the last value read: nodes[0 .. n) */
    uint32_t n, cap;
    char err[160];
    uint32_t err_line, err_col;
    bool oom;
} edn_parser;

typedef enum { EDN_ERROR = -1, EDN_END = 0, EDN_VALUE = 1 } edn_result;

void edn_init(edn_parser *p, const char *data, size_t len);
void edn_free(edn_parser *p);

/* The next top-level value into p->nodes (its root is nodes[0]); EDN_END
 * when only whitespace and comments are left. */
edn_result edn_next(edn_parser *p);

/* The value of keyword `kw` (with its ':') in map node m, or UINT32_MAX. */
uint32_t edn_map_get(const edn_parser *p, uint32_t m, const char *kw);

/* Does node i hold the keyword kw (with its ':')? */
bool edn_is_keyword(const edn_node *n, const char *kw);

/* The string node's text with its escapes decoded into buf (room for
 * n->len + 1 bytes: decoding never lengthens it), NUL-terminated; returns
 * its length.  \uXXXX is written in UTF-8 (a lone surrogate as U+FFFD).
 * Embedded NULs are kept (the length counts them). */
size_t edn_unescape(const edn_node *n, char *buf);

#endif
