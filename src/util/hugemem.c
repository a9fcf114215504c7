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

#if defined(MADV_HUGEPAGE)
/* bytes (at most SIZE_MAX - HUGE_PAGE) rounded up to whole huge pages, aligned
 * to one and advised for them, or NULL */
static void *huge_block(size_t bytes)
{
    size_t whole = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, whole);
    if (p)
        madvise(p, whole, MADV_HUGEPAGE); /* only a hint: small pages when refused */
    return p;
}
#endif

/* A block of n elements of size bytes on huge pages, or NULL when it is too
 * small for them or the system has none. */
static void *huge_elements(size_t n, size_t size)
{
#if defined(MADV_HUGEPAGE)
    if (size && n <= (SIZE_MAX - HUGE_PAGE) / size && n * size >= HUGEMEM_MIN)
        return huge_block(n * size);
#else
    (void)n;
    (void)size;
#endif
    return NULL;
}

void *hugemem_calloc(size_t n, size_t size)
{
    void *p = huge_elements(n, size);
    if (p) {
        memset(p, 0, n * size);
        return p;
    }
    return calloc(n, size);
}

void *hugemem_alloc(size_t n, size_t size)
{
    void *p = huge_elements(n, size);
    if (p || !size || n > SIZE_MAX / size)
        return p;
    return malloc(n * size);
}

void hugemem_prefer(size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_PAGE && bytes <= SIZE_MAX - HUGE_PAGE)
        free(huge_block(bytes));
#else
    (void)bytes;
#endif
}
