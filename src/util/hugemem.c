/* hugemem.c - zeroed blocks on transparent huge pages where the system offers
 * them (madvise(2) MADV_HUGEPAGE, a hint), and plain calloc elsewhere. */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#include "hugemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The huge page of x86-64 and of arm64 with 4 KiB pages. */
#define HUGE_PAGE ((size_t)2 << 20)

void *hugemem_calloc(size_t n, size_t size)
{
#if defined(MADV_HUGEPAGE)
    if (size && n <= (SIZE_MAX - HUGE_PAGE) / size && n * size >= HUGEMEM_MIN) {
        size_t bytes = n * size, whole = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        void *p = aligned_alloc(HUGE_PAGE, whole);
        if (p) {
            madvise(p, whole, MADV_HUGEPAGE); /* only a hint: small pages when refused */
            memset(p, 0, bytes);
            return p;
        }
    }
#endif
    return calloc(n, size);
}

void hugemem_prefer(size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    if (bytes < HUGE_PAGE || bytes > (SIZE_MAX - 2 * HUGE_PAGE))
        return;
    uint8_t *p = malloc(bytes + HUGE_PAGE);
    if (!p)
        return;
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    uintptr_t hi = ((uintptr_t)p + bytes + HUGE_PAGE) / HUGE_PAGE * HUGE_PAGE;
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    free(p);
#else
    (void)bytes;
#endif
}
