/* memlimit.c - the one memory bound of a run and the estimates checked against
 * it. The estimates follow the allocations of the modules they describe
 * (decoders, renderer, quantiser, encoders, the budget search) and round up:
 * a clip they let through stays under the bound. */
#include "memlimit.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

static long long memory_bound = MEMLIMIT_DEFAULT_MEMORY;

void memlimit_set(long long bytes)
{
    memory_bound = bytes < MEMLIMIT_MIN_MEMORY   ? MEMLIMIT_MIN_MEMORY
                   : bytes > MEMLIMIT_MAX_MEMORY ? MEMLIMIT_MAX_MEMORY
                                                 : bytes;
}

long long memlimit_get(void)
{
    return memory_bound;
}

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_freed = PTHREAD_COND_INITIALIZER;
static double held; /* bytes reserved by work running now */

void memlimit_reserve(double bytes)
{
    pthread_mutex_lock(&held_lock);
    /* alone it always fits: the check before let it through */
    while (held > 0.0 && held + bytes > (double)memory_bound)
        pthread_cond_wait(&held_freed, &held_lock);
    held += bytes;
    pthread_mutex_unlock(&held_lock);
}

void memlimit_release(double bytes)
{
    pthread_mutex_lock(&held_lock);
    held -= bytes;
    if (held < 0.5)
        held = 0.0;
    pthread_cond_broadcast(&held_freed);
    pthread_mutex_unlock(&held_lock);
}

void memlimit_format(double bytes, char *buf, size_t cap)
{
    static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        u++;
    }
    if (u == 0 || bytes >= 100.0 || fabs(bytes - round(bytes)) < 0.005)
        snprintf(buf, cap, "%.0f %s", round(bytes), units[u]);
    else
        snprintf(buf, cap, "%.*f %s", bytes < 10.0 && fabs(bytes * 10.0 - round(bytes * 10.0)) >= 0.05 ? 2 : 1,
                 bytes, units[u]);
}

poyo_status memlimit_check(double bytes, const char *what, const char *lower, poyo_status st, poyo_error *err)
{
    if (!(bytes > (double)memory_bound) && isfinite(bytes))
        return POYO_OK;
    char need[32], have[32];
    memlimit_format(bytes, need, sizeof need);
    memlimit_format((double)memory_bound, have, sizeof have);
    if (strcmp(need, have) == 0) /* just over: as many digits as tell them apart */
        snprintf(need, sizeof need, "%.3f %s", bytes / (double)memory_bound * atof(have), strchr(have, ' ') + 1);
    return poyo_fail(err, st, "%s would take about %s, more than the %s memory limit; %s%s%sraise --max-memory", what,
                     need, have, lower ? "lower " : "", lower ? lower : "", lower ? ", or " : "");
}

double memlimit_frames(int count, int w, int h)
{
    return (double)count * ((double)w * h * 4.0 + sizeof(int));
}

/* stb_image holds a PNG's inflated rows beside the pixels it returns (16-bit
 * samples twice over) and a JPEG's planes; libwebp and giflib one canvas and
 * rows; librsvg a cairo surface beside the copy. Four bytes a pixel for the
 * pixels and eight for the decoder's work cover each. */
double memlimit_decode(double w, double h)
{
    return w * h * 12.0;
}

/* Bytes an encoder holds beside the frames for count frames of w x h: GIF
 * the quantised indices (one byte a pixel), the binarised frames when
 * dithering (four) and its output (LZW, at most about a byte a pixel with the
 * buffer grown); APNG its output (deflated rows) and a few frames of work;
 * WebP libwebp's lossless encoder (about 35 bytes a canvas pixel, measured)
 * and its output; WebM libvpx's VP9 encoders for colour and alpha (about 165
 * bytes a canvas pixel, measured, whatever the frame count) and libav itself. */
static double encode_bytes(out_format f, const output_def *def, double count, double w, double h)
{
    double px = w * h, all = count * px;
    switch (f) {
    case FORMAT_GIF: {
        double dither = def && def->quant.dither > 0.0 ? 4.0 : 0.0;
        return all * (2.0 + dither) + px * 8.0;
    }
    case FORMAT_APNG: return all * 1.0 + px * 24.0;
    case FORMAT_WEBP: return all * 0.5 + px * 48.0;
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
