/* quantize.h - one palette for a whole animation (libimagequant), with a
 * transparent index that no visible colour shares. */
#ifndef POYO_QUANTIZE_H
#define POYO_QUANTIZE_H

#include <stdint.h>

#include "anim.h"
#include "util/error.h"
#include "util/workers.h"

/* The ranges of quantize_def's options (each from 0 unless a _MIN says otherwise). */
#define QUANTIZE_COLORS_MIN 2
#define QUANTIZE_COLORS_MAX 256
#define QUANTIZE_DITHER_MAX 1.0
#define QUANTIZE_ALPHA_MIN 1
#define QUANTIZE_ALPHA_MAX 255
#define QUANTIZE_QUALITY_MAX 100
#define QUANTIZE_LOSSY_MAX 255

typedef struct quantize_def {
    int colors;           /* palette entries at most, transparent one included (QUANTIZE_COLORS_MIN to _MAX) */
    double dither;        /* Floyd-Steinberg dithering level (0 to QUANTIZE_DITHER_MAX) */
    int alpha_threshold;  /* alpha below this is transparent, at or above it opaque (QUANTIZE_ALPHA_MIN to _MAX) */
    int quality_min;      /* libimagequant quality floor (0 to 100); fewer colours when the image allows */
    int quality_max;      /* libimagequant quality target (0 to QUANTIZE_QUALITY_MAX) */
    int speed;            /* libimagequant speed (1 slow/best to 10 fast) */
    int matte;            /* 0xRRGGBB to blend partly transparent edges onto, or -1 for none */
    int lossy;            /* GIF's LZW may write a pixel as a colour up to this RGB distance away to make
                             its strings longer (0 exact, to 255) */
    int threads;          /* threads that count, remap and write the frames (1 to WORKERS_MAX); the
                             bytes made do not depend on it */
} quantize_def;

/* The defaults, the only place they live. */
quantize_def quantize_default_def(void);
/* Checks every field; names the first one out of range. */
poyo_status quantize_check_def(const quantize_def *def, poyo_error *err);

/* Indexed frames sharing one palette. */
typedef struct indexed {
    int width, height, count;
    uint8_t *index;          /* count * width * height */
    uint8_t palette[256][3]; /* RGB of each entry */
    int ncolors;             /* entries used, QUANTIZE_COLORS_MIN to _MAX */
    int transparent;         /* index of the transparent entry */
} indexed;

/* Quantises every frame of a with one shared palette. */
poyo_status quantize_anim(const anim *a, const quantize_def *def, indexed *out, poyo_error *err);
/* Frees the indices; safe on a zeroed struct. */
void indexed_free(indexed *ix);
/* Reduces the frames of a to at most colors colours (QUANTIZE_COLORS_MIN to _MAX)
 * in place, alpha included, with one palette for all frames (for smaller APNG
 * files), made from an exact histogram of every frame; without dithering each pixel takes
 * its nearest entry in premultiplied RGBA. A fully transparent pixel stays
 * fully transparent and a visible one visible, at any colour count: the
 * background gets no colour of its own. */
poyo_status quantize_reduce(anim *a, int colors, double dither, poyo_error *err);

#endif
