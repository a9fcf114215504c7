/* memclip.h - what a clip holds at its peak (the stamp, its frames, the
 * renderer, the encoder, the --max-bytes search, a sprite sheet), checked
 * against the run's memory bound (memlimit.h) before the clip is drawn. */
#ifndef POYO_MEMCLIP_H
#define POYO_MEMCLIP_H

#include "image.h"
#include "output.h"
#include "util/error.h"

/* What a clip costs: the stamp, its frames and what is made of them. */
typedef struct memlimit_clip {
    int src_w, src_h;        /* the decoded stamp (0: none) */
    int count, w, h;         /* frames kept, canvas pixels */
    int stamp;               /* 1: the frames are drawn from the stamp (the renderer's source copy) */
    out_format format;       /* the encoder (FORMAT_AUTO: none, e.g. only --frames) */
    const output_def *out;   /* its settings (dithering); may be NULL */
    int budget;              /* 1: the --max-bytes search runs */
    int budget_max_frames;   /* its frame limit (0: none) */
    int budget_resize;       /* 1: it may draw the clip again at smaller sizes */
    int sheet;               /* 1: a sprite sheet of every frame is written */
    double extra;            /* bytes held besides, throughout (poyo text's glyphs) */
} memlimit_clip;

/* Bytes a clip holds at its peak: the stamp and the extra throughout, and the frames with
 * the largest of the renderer, the encoder, the budget search's copies and
 * the sheet. */
double memlimit_clip_bytes(const memlimit_clip *c);
/* A clip of count frames of w x h drawn from stamp (NULL: none; its pixels are
 * counted as held) and, when output is not NULL, encoded as out->format or
 * else as output's name asks (GIF when it says nothing); no budget, no sheet. */
memlimit_clip memlimit_clip_for(const image *stamp, int count, int w, int h, const output_def *out, const char *output);
/* Checks a clip against the bound before it is drawn: "COUNT frames of WxH
 * would take about N, ...; lower LOWER, or raise --max-memory". */
poyo_status memlimit_check_clip(const memlimit_clip *c, const char *lower, poyo_error *err);

#endif
