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
/* The same block with its bytes as they come, for one that is written in
 * full before it is read: its pages are then first touched, and faulted in,
 * by whoever writes them (the threads that draw a clip's frames). */
void *hugemem_alloc(size_t n, size_t size);

/* Asks that the next bytes this thread's heap hands out come from huge pages
 * where the system offers them: a block that size is taken from the heap,
 * advised (MADV_HUGEPAGE) and given back, and later allocations reuse its
 * pages while the heap keeps them. A library's own buffers (stb_image's for a
 * large PNG) are then faulted in 2 MiB at a time, not 4 KiB. */
void hugemem_prefer(size_t bytes);

#endif
