/* memlimit.h - the resource contract every command keeps: one memory bound for
 * the run (1 GiB unless --max-memory sets another), estimates of the memory
 * frames and decoding hold at their peak, and the check made before that work
 * starts, which refuses it with one sentence giving the estimate, the bound
 * and the options that change them. A whole clip's estimate is memclip.h's. */
#ifndef POYO_MEMLIMIT_H
#define POYO_MEMLIMIT_H

#include <stddef.h>

#include "error.h"

/* The bound unless --max-memory says otherwise: 1 GiB. */
#define MEMLIMIT_DEFAULT_MEMORY 1073741824LL
/* The smallest and largest bound --max-memory accepts: 16 MiB and 1 TiB. */
#define MEMLIMIT_MIN_MEMORY 16777216LL
#define MEMLIMIT_MAX_MEMORY 1099511627776LL

/* Sets the bound for the rest of the run (bytes, clamped to the range above).
 * A command calls it once, after reading its options and before any work. */
void memlimit_set(long long bytes);
/* The bound now in force, bytes. */
long long memlimit_get(void);

/* Holds `bytes` of the bound for a piece of work running beside others (the
 * files of a batch on several workers) until memlimit_release: waits while the
 * others hold too much for it to fit beside them. Work that does not fit alone
 * must have been refused by a check first; then the wait always ends. */
void memlimit_reserve(double bytes);
/* Gives back what memlimit_reserve held. */
void memlimit_release(double bytes);

/* Fails with status st when `bytes` exceed the bound: "WHAT would take about
 * N, more than the M memory limit; lower LOWER, or raise --max-memory" (LOWER
 * may be NULL: only --max-memory is named). */
poyo_status memlimit_check(double bytes, const char *what, const char *lower, poyo_status st, poyo_error *err);
/* Writes a byte count as people read it ("512 MiB", "4.1 GiB") into buf. */
void memlimit_format(double bytes, char *buf, size_t cap);

/* Bytes count RGBA frames of w x h pixels take, with their hold times. */
double memlimit_frames(int count, int w, int h);
/* Bytes decoding a w x h image takes at its peak: the decoder's own rows and
 * planes and the RGBA pixels it hands back. */
double memlimit_decode(double w, double h);

#endif
