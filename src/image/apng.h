/* apng.h - writes an anim as an animated PNG (APNG 1.0) with full 8-bit alpha;
 * the first frame is also the default image that non-animating viewers show. */
#ifndef POYO_APNG_H
#define POYO_APNG_H

#include "anim.h"
#include "util/bytebuf.h"
#include "util/error.h"

typedef struct apng_options {
    int level;   /* libdeflate compression level, 0 (store) to 12 (smallest, slowest) */
    int threads; /* frames compressed side by side, 1 to 8 (the bytes are the same) */
} apng_options;

/* The default options: the only place their values live. */
apng_options apng_default_def(void);
/* Appends the whole APNG file for a to out (which the caller owns and frees
 * with bytebuf_free); opt NULL means the defaults. On failure out may hold a
 * partial file, which the caller discards. */
poyo_status apng_encode(const anim *a, const apng_options *opt, bytebuf *out, poyo_error *err);

#endif
