/* gif.h - animated GIF writer (LZW of its own, exact or lossy): one global palette, one transparent
 * index, NETSCAPE2.0 loop block, carried centisecond delays, changed
 * rectangles with per-frame disposal. */
#ifndef POYO_GIF_H
#define POYO_GIF_H

#include "anim.h"
#include "quantize.h"
#include "util/bytebuf.h"
#include "util/error.h"

/* What the writer did, for reports and tests. */
typedef struct gif_stats {
    int frames;       /* frames written (identical neighbours merged) */
    int colors;       /* palette entries used */
    double quantize_ms, encode_ms;
} gif_stats;

/* Encodes a (its loop count and frame holds included) into out, appended. */
poyo_status gif_encode(const anim *a, const quantize_def *q, bytebuf *out, gif_stats *stats, poyo_error *err);

#endif
