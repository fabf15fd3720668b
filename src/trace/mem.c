/* mem.c - the memory helpers of mem.h: arrays that double as they grow
 * and large arrays backed by transparent huge pages. */
#define _DEFAULT_SOURCE       /* MADV_HUGEPAGE */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 << 20, HUGE_FROM = 4 << 20 };

void ip_hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (!p || bytes < HUGE_FROM)
        return;
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* a hint: no errors */
#else
    (void)p, (void)bytes;
#endif
}

void *ip_malloc_big(size_t bytes)
{
    if (bytes < HUGE_FROM)
        return malloc(bytes ? bytes : 1);
    /* aligned and rounded up to whole huge pages, so that none of it is
     * left to 4 KiB faults at either end */
    size_t n = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    void *p = NULL;
    if (n < bytes || posix_memalign(&p, HUGE_PAGE, n))
        return NULL;
    ip_hint_huge(p, n);
    return p;
}

bool ip_grow(void **arr, uint32_t *cap, size_t elem)
{
    uint32_t ncap = *cap ? *cap * 2 : 64;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return false;
    ip_hint_huge(p, (size_t)ncap * elem);
    *arr = p;
    *cap = ncap;
    return true;
}
