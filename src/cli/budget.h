/* budget.h - makes an animation fit a byte budget: fewer colours (or lower
 * WebP quality, or a higher WebM crf), then a lower frame rate, then fewer
 * frames, and finally a smaller canvas, until the encoded file fits. */
#ifndef POYO_BUDGET_H
#define POYO_BUDGET_H

#include "image/anim.h"
#include "image/output.h"
#include "util/bytebuf.h"
#include "util/error.h"

/* Draws the clip again on a canvas scaled by scale (0 < scale <= 1). */
typedef poyo_status (*budget_render_fn)(void *user, double scale, anim *out, poyo_error *err);

typedef struct budget_def {
    long long max_bytes;     /* the budget, bytes (> 0) */
    int max_frames;          /* frames the file may hold at most, 0 = any */
    int min_frames;          /* frames it must hold at least, 0 = any */
    double min_scale;        /* as a last resort the canvas may shrink to this fraction of
                                its size, no further (1: it keeps its size; 0: as far as poyo goes) */
} budget_def;

/* What the search settled on. */
typedef struct budget_report {
    int colors;              /* GIF/APNG palette size, 0 = untouched */
    int quality;             /* WebP lossy quality, -1 = untouched */
    int crf;                 /* WebM VP9 crf, -1 = untouched */
    int stride;              /* every stride-th frame kept */
    double scale;            /* canvas scale */
    int width, height, frames;
    size_t bytes;
    int tries;               /* encodes made */
} budget_report;

/* Encodes a (rendered at full scale by the caller) in format f within the
 * budget, into out. Fails with POYO_ERR_INPUT when even the smallest setting
 * does not fit. */
poyo_status budget_encode(const anim *a, out_format f, const output_def *def, const budget_def *b,
                          budget_render_fn render, void *user, bytebuf *out, budget_report *rep, poyo_error *err);

#endif
