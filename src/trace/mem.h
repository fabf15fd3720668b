/*
 * mem.h - the memory helpers of the trace model: growing arrays and large
 * arrays backed by huge pages.  The model's files use them, and so do the
 * layers above (through trace.h, which includes this header).  Nothing
 * here knows a trace: intern.c uses it without trace.h.
 */
#ifndef ISOPREDICT_MEM_H
#define ISOPREDICT_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Make room for more elements of size elem in *arr: the capacity doubles
 * (64 at first), so appends are amortized O(1).  False when out of
 * memory (*arr and *cap unchanged). */
bool ip_grow(void **arr, uint32_t *cap, size_t elem);

/* Large arrays: ask the kernel to back [p, p + bytes) with transparent
 * huge pages where it can.  Filling a fresh array costs a page fault per
 * 4 KiB page otherwise - a third of reading a 10^6-event file went there.
 * A hint only (arrays under 4 MiB, or THP off: nothing happens);
 * ip_malloc_big is malloc (never NULL for 0 bytes) with the hint, and
 * ip_grow gives it to what it grows. */
void ip_hint_huge(void *p, size_t bytes);
void *ip_malloc_big(size_t bytes);

#endif
