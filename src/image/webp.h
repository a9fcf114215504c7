/* webp.h - writes an anim as an animated WebP, its frames encoded by libwebp
 * side by side: lossless by default (pixel exact where alpha > 0), or lossy
 * with a quality. */
#ifndef POYO_WEBP_H
#define POYO_WEBP_H

#include "anim.h"
#include "util/bytebuf.h"
#include "util/error.h"

#define WEBP_EFFORT_MAX 6   /* libwebp's method: 0 fastest to 6 smallest files */

typedef struct webp_options {
    int lossy;     /* 0 = lossless, 1 = lossy (VP8 with an alpha plane) */
    int quality;   /* lossy quality 0 (smallest) to 100 (best) */
    int method;    /* lossy effort 0 (fastest) to 6 (smallest files) */
    int lossless_method; /* lossless effort, 0 to 6 as well */
    int alpha_quality; /* lossy: the alpha plane's quality, 0 to 100 (100: lossless alpha) */
    int threads;   /* frames encoded side by side, 1 to 8 (the bytes are the same) */
} webp_options;

/* The default options: the only place their values live. */
webp_options webp_default_def(void);
/* Appends the whole WebP file for a to out (owned by the caller, freed with
 * bytebuf_free); opt NULL means the defaults. Canvas at most 16383x16383. */
poyo_status webp_encode(const anim *a, const webp_options *opt, bytebuf *out, poyo_error *err);

#endif
