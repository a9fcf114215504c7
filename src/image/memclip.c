/* memclip.c - a clip's peak memory: the estimates follow the allocations of
 * the modules they describe (renderer, quantiser, encoders, the budget
 * search) and round up, so a clip they let through stays under the bound. */
#include "memclip.h"

#include <math.h>
#include <stdio.h>

#include "render.h"
#include "util/memlimit.h"

/* Bytes an encoder holds beside the frames for count frames of w x h: GIF
 * the quantised indices (one byte a pixel), the binarised frames when
 * dithering (four) and its output (LZW, at most about a byte a pixel with the
 * buffer grown); APNG its output and the frames' deflated rows beside it
 * (about a byte a pixel each), and on each thread a compressor with four
 * frames of work (the first frame's two filters take two when there are two
 * threads or more, which the later frames then use);
 * WebP libwebp's lossless encoder (about 35 bytes a canvas pixel, measured)
 * on each thread encoding a frame, and its output; WebM libvpx's VP9 encoders for colour and alpha (about 165
 * bytes a canvas pixel, measured, whatever the frame count) and libav itself. */
static double encode_bytes(out_format f, const output_def *def, double count, double w, double h)
{
    double px = w * h, all = count * px;
    switch (f) {
    case FORMAT_GIF: {
        double dither = def && def->quant.dither > 0.0 ? 4.0 : 0.0;
        /* each thread past the first: a colour table and its list of colours,
         * an LZW writer and its canvas and codes */
        double threads = def && def->quant.threads > 1 ? def->quant.threads : 1.0;
        return all * (2.0 + dither) + px * 8.0 + (threads - 1.0) * (px * 8.0 + 262144.0);
    }
    case FORMAT_APNG: {
        double threads = def && def->apng.threads > 1 ? def->apng.threads : 1.0;
        return all * 2.0 + px * 8.0 + threads * (px * 16.0 + 1048576.0);
    }
    case FORMAT_WEBP: {
        double threads = def && def->webp.threads > 1 ? def->webp.threads : 1.0;
        return all * 0.5 + px * 48.0 * threads;
    }
    case FORMAT_WEBM: return all * 0.25 + px * 176.0 + 64.0 * 1048576.0;
    case FORMAT_AUTO: break;
    }
    return 0.0;
}

/* The budget search's peak beside the frames: for each frame stride it tries a
 * subsampled copy and its encodes (an APNG with fewer colours is a further
 * copy), keeping the best and the latest output, and decodes each that fits
 * to measure it (its frames and a float canvas); allowed to resize, it draws
 * the clip again at 0.9 of the canvas with every third frame at least. */
static double budget_bytes(const memlimit_clip *c)
{
    double n = c->count, px = (double)c->w * c->h;
    int stride = 1;
    if (c->budget_max_frames > 0 && c->count > c->budget_max_frames)
        stride = (c->count + c->budget_max_frames - 1) / c->budget_max_frames;
    double apng = c->format == FORMAT_APNG ? 1.0 : 0.0;
    double peak = 0.0;
    for (int s = stride; s <= stride + 2; s++) {
        double sub = ceil(n / s);
        double copy = (s > 1 ? 1.0 : 0.0) + apng;
        double b = memlimit_frames((int)sub, c->w, c->h) * (copy + 1.0) +
                   encode_bytes(c->format, c->out, sub, c->w, c->h) + sub * px * 2.0 + px * 16.0;
        peak = fmax(peak, b);
    }
    if (c->budget_resize) {
        int w = (int)(c->w * 0.9 + 0.5), h = (int)(c->h * 0.9 + 0.5);
        double scaled = memlimit_frames(c->count, w, h);
        double sub = ceil(n / (stride + 2));
        double draw = c->stamp ? renderer_bytes(w, h) : 0.0;
        double enc = memlimit_frames((int)sub, w, h) * (2.0 + apng) + encode_bytes(c->format, c->out, sub, w, h) +
                     sub * (double)w * h * 2.0 + px * 16.0;
        peak = fmax(peak, scaled + fmax(draw, enc));
    }
    return peak;
}

double memlimit_clip_bytes(const memlimit_clip *c)
{
    double stamp = (double)c->src_w * c->src_h * 4.0;
    double frames = memlimit_frames(c->count, c->w, c->h);
    double extra = c->stamp ? renderer_bytes(c->w, c->h) : 0.0;
    if (c->format != FORMAT_AUTO)
        extra = fmax(extra, c->budget ? budget_bytes(c) : encode_bytes(c->format, c->out, c->count, c->w, c->h));
    if (c->sheet)
        extra = fmax(extra, frames * 2.0); /* the sheet and its PNG encoding */
    return stamp + c->extra + frames + extra;
}

memlimit_clip memlimit_clip_for(const image *stamp, int count, int w, int h, const output_def *out, const char *output)
{
    memlimit_clip c = { 0, 0, count, w, h, stamp != NULL, FORMAT_AUTO, out, 0, 0, 0, 0, 0.0 };
    if (stamp) {
        c.src_w = stamp->w;
        c.src_h = stamp->h;
    }
    if (output) {
        c.format = out && out->format != FORMAT_AUTO ? out->format : output_format_of(output);
        if (c.format == FORMAT_AUTO)
            c.format = FORMAT_GIF;
    }
    return c;
}

poyo_status memlimit_check_clip(const memlimit_clip *c, const char *lower, poyo_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "%d frames of %dx%d", c->count, c->w, c->h);
    return memlimit_check(memlimit_clip_bytes(c), what, lower, POYO_ERR_USAGE, err);
}
