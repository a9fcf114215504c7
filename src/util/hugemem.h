/* hugemem.h - large zeroed blocks the kernel may map with huge pages (Linux's
 * transparent huge pages, asked for with madvise): a clip's frames are then
 * mapped in a few page faults instead of one per 4 KiB page. */
#ifndef POYO_HUGEMEM_H
#define POYO_HUGEMEM_H

#include <stddef.h>

/* Blocks of at least this many bytes are asked for on huge pages. */
#define HUGEMEM_MIN ((size_t)1 << 19)

/* Like calloc: n zeroed elements of size bytes, or NULL; freed with free().
 * A block of HUGEMEM_MIN bytes or more is aligned to a huge page and rounded
 * up to whole ones, so it may hold up to a huge page (2 MiB) more. */
void *hugemem_calloc(size_t n, size_t size);

#endif
