/* memlimit.h - the resource contract every command keeps: one memory bound for
 * the run (1 GiB unless --max-memory sets another), estimates of the memory a
 * piece of work holds at its peak, and the check made before that work
 * starts, which refuses it with one sentence giving the estimate, the bound
 * and the options that change them. */
#ifndef POYO_MEMLIMIT_H
#define POYO_MEMLIMIT_H

#include "error.h"
#include "image.h"
#include "output.h"

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
