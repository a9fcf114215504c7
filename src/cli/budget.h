/* budget.h - makes an animation fit a byte budget at the least loss of
 * quality: fewer colours or lossy LZW (GIF, APNG colours), a lower quality
 * (WebP) or a higher crf (WebM), a lower frame rate, fewer frames and a
 * smaller canvas, each candidate that fits decoded and measured against the
 * unbounded clip; the one with the highest PSNR is kept. */
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

/* PSNR is capped here: a lossless file scores this, not infinity. */
#define BUDGET_PSNR_MAX 60.0
/* The PSNR above which a file no longer looks any different from the clip:
 * psnr_lost counts both PSNRs up to it, so the loss against a lossless file is
 * not measured from the arbitrary BUDGET_PSNR_MAX. */
#define BUDGET_PSNR_SEEN 45.0

/* One setting the search encoded. */
typedef struct budget_try {
    int colors;              /* palette size (GIF, APNG), 0 = untouched */
    int lossy;               /* GIF lossy LZW distance */
    int quality;             /* WebP lossy quality, -1 = untouched */
    int crf;                 /* WebM crf, -1 = untouched */
    int stride;              /* every stride-th frame kept */
    double scale;            /* canvas scale */
    size_t bytes;
    int fits;                /* 1 when bytes <= the budget */
    double psnr;             /* dB against the unbounded clip; measured only when it fits, else 0 */
} budget_try;

#define BUDGET_TRIES_MAX 64

/* What the search settled on. */
typedef struct budget_report {
    int colors;              /* GIF/APNG palette size, 0 = untouched */
    int lossy;               /* GIF lossy LZW distance of the file (the option's when untouched) */
    int quality;             /* WebP lossy quality, -1 = untouched */
    int crf;                 /* WebM VP9 crf, -1 = untouched */
    int stride;              /* every stride-th frame kept */
    double scale;            /* canvas scale */
    int width, height, frames;
    size_t bytes;
    int untouched;           /* 1 when the file fit as the options make it (psnr_lost 0) */
    double psnr;             /* dB, the file against the unbounded clip (BUDGET_PSNR_MAX at most) */
    double psnr_full;        /* dB, the file the options make without a budget, the same way */
    double psnr_lost;        /* budget_psnr_lost(psnr_full, psnr), 0 when untouched */
    int tries;               /* encodes made */
    int ntried;              /* entries in tried (the first BUDGET_TRIES_MAX encodes of settings) */
    budget_try tried[BUDGET_TRIES_MAX];
} budget_report;

/* Encodes a (rendered at full scale by the caller) in format f within the
 * budget, into out. The file the options make is returned as it is when it
 * fits. Otherwise groups of (frame stride, canvas scale) are visited from the
 * gentlest; in each, the richest colour level (and for a GIF, the least lossy
 * LZW) that fits is found, every fitting candidate is decoded (an APNG is
 * measured on the frames it was made from) and its PSNR measured
 * (budget_psnr against a); the group after the first that fits is
 * searched too, and the fitting candidate with the highest PSNR wins. Fails
 * with POYO_ERR_INPUT, naming the smallest size reached, when nothing fits. */
poyo_status budget_encode(const anim *a, out_format f, const output_def *def, const budget_def *b,
                          budget_render_fn render, void *user, bytebuf *out, budget_report *rep, poyo_error *err);

/* The quality a budget cost, dB: full and got each counted up to
 * BUDGET_PSNR_SEEN, the first less the second, never below 0. */
double budget_psnr_lost(double full, double got);

/* Colour PSNR (dB, capped at BUDGET_PSNR_MAX) of `shown` against the
 * reference clip ref, over premultiplied RGBA: every frame of ref, weighted by
 * its hold, against the frame shown plays at the middle of that frame's time.
 * A smaller shown canvas is scaled up bilinearly to ref's size first (so the
 * detail a smaller canvas loses counts). */
poyo_status budget_psnr(const anim *ref, const anim *shown, double *psnr, poyo_error *err);

#endif
