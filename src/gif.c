/* gif.c - writes the indexed frames as GIF89a with giflib. For each frame the
 * previous frame's disposal is chosen (keep, or restore to background when a
 * pixel must turn transparent) so that only the changed rectangle is stored
 * and unchanged pixels inside it become the transparent index. */
#include "gif.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gif_lib.h>

static int write_cb(GifFileType *gif, const GifByteType *data, int len)
{
    bytebuf *b = gif->UserData;
    if (len < 0 || bytebuf_append(b, data, (size_t)len, NULL) != POYO_OK)
        return 0;
    return len;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct rect { int x0, y0, x1, y1; } rect; /* [x0, x1) x [y0, y1) */

static int rect_area(rect r) { return r.x1 > r.x0 && r.y1 > r.y0 ? (r.x1 - r.x0) * (r.y1 - r.y0) : 0; }

#define ONES 0x0101010101010101ull
#define LOW7 0x7f7f7f7f7f7f7f7full

/* 0x80 in each byte of v that is zero, 0 in the others. */
static inline uint64_t zero_bytes(uint64_t v) { return ~(((v & LOW7) + LOW7) | v | LOW7); }

/* Whether pixel x of rows b, t counts: they differ (clear 0), or t is
 * transparent where b is not (clear 1). */
static inline int hit(const uint8_t *b, const uint8_t *t, int x, uint8_t tr, int clear)
{
    return clear ? t[x] == tr && b[x] != tr : b[x] != t[x];
}

/* The same for eight pixels at once: nonzero when any counts. */
static inline uint64_t hit8(const uint8_t *b, const uint8_t *t, int x, uint64_t trs, int clear)
{
    uint64_t vb, vt;
    memcpy(&vb, b + x, 8);
    memcpy(&vt, t + x, 8);
    return clear ? zero_bytes(vt ^ trs) & ~zero_bytes(vb ^ trs) : vb ^ vt;
}

/* Bounding box of the pixels that count (see hit). */
static inline rect hit_rect(const uint8_t *base, const uint8_t *target, int w, int h, int tr, int clear)
{
    rect r = { w, h, 0, 0 };
    uint8_t t8 = (uint8_t)tr;
    uint64_t trs = ONES * t8;
    for (int y = 0; y < h; y++) {
        const uint8_t *b = base + (size_t)y * w, *t = target + (size_t)y * w;
        int x = 0;
        while (x + 8 <= w && !hit8(b, t, x, trs, clear))
            x += 8;
        while (x < w && !hit(b, t, x, t8, clear))
            x++;
        if (x >= w)
            continue;
        int first = x;
        x = w;
        while (x - 8 > first && !hit8(b, t, x - 8, trs, clear))
            x -= 8;
        do
            x--;
        while (!hit(b, t, x, t8, clear));
        if (first < r.x0) r.x0 = first;
        if (x >= r.x1) r.x1 = x + 1;
        if (y < r.y0) r.y0 = y;
        if (y >= r.y1) r.y1 = y + 1;
    }
    return r;
}

/* Bounding box of the pixels where target differs from base. */
static rect diff_rect(const uint8_t *base, const uint8_t *target, int w, int h)
{
    return hit_rect(base, target, w, h, 0, 0);
}

/* Bounding box of the pixels that are transparent in target but not in base:
 * a frame drawn over base cannot clear them, only a disposal can. */
static rect clear_rect(const uint8_t *base, const uint8_t *target, int w, int h, int tr)
{
    return hit_rect(base, target, w, h, tr, 1);
}

static rect rect_union(rect a, rect b)
{
    if (rect_area(a) == 0)
        return b;
    if (rect_area(b) == 0)
        return a;
    rect r = { a.x0 < b.x0 ? a.x0 : b.x0, a.y0 < b.y0 ? a.y0 : b.y0, a.x1 > b.x1 ? a.x1 : b.x1,
               a.y1 > b.y1 ? a.y1 : b.y1 };
    return r;
}

typedef struct frame_plan {
    rect r;
    int disposal; /* of this frame, applied before the next one */
} frame_plan;

poyo_status gif_encode(const anim *a, const quantize_def *q, bytebuf *out, gif_stats *stats, poyo_error *err)
{
    double t0 = now_ms();
    indexed ix;
    poyo_status st = quantize_anim(a, q, &ix, err);
    if (st != POYO_OK)
        return st;
    double t1 = now_ms();
    int w = a->width, h = a->height, tr = ix.transparent;
    size_t npx = (size_t)w * h;
    frame_plan *plan = calloc((size_t)a->count, sizeof *plan);
    uint8_t *canvas = malloc(npx), *cleared = malloc(npx), *line = malloc((size_t)w);
    int *delays = malloc((size_t)a->count * sizeof *delays);
    int *src = malloc((size_t)a->count * sizeof *src), *hold = malloc((size_t)a->count * sizeof *hold);
    GifFileType *gif = NULL;
    ColorMapObject *cmap = NULL;
    if (!plan || !canvas || !cleared || !line || !delays || !src || !hold) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while writing the GIF");
        goto done;
    }
    /* frames that came out identical after quantising become one longer frame */
    int count = 0;
    for (int f = 0; f < a->count; f++) {
        if (count > 0 && memcmp(ix.index + npx * (size_t)src[count - 1], ix.index + npx * (size_t)f, npx) == 0) {
            hold[count - 1] += a->hold[f];
            continue;
        }
        src[count] = f;
        hold[count] = a->hold[f];
        count++;
    }
    /* plan rectangles and disposals against the canvas a decoder will show */
    memset(canvas, tr, npx);
    for (int f = 0; f < count; f++) {
        const uint8_t *target = ix.index + npx * (size_t)src[f];
        if (f == 0) {
            plan[0].r = diff_rect(canvas, target, w, h);
        } else {
            /* either keep the previous frame, or restore its rectangle to the
             * background, grown to cover every pixel that must turn clear */
            rect must = clear_rect(canvas, target, w, h, tr);
            rect pr = rect_union(plan[f - 1].r, must);
            memcpy(cleared, canvas, npx);
            for (int y = pr.y0; y < pr.y1; y++)
                memset(cleared + (size_t)y * w + pr.x0, tr, (size_t)(pr.x1 - pr.x0));
            rect keep = diff_rect(canvas, target, w, h);
            rect clear = diff_rect(cleared, target, w, h);
            int grow = rect_area(pr) - rect_area(plan[f - 1].r);
            if (rect_area(must) == 0 && rect_area(keep) <= rect_area(clear) + grow) {
                plan[f - 1].disposal = DISPOSE_DO_NOT;
                plan[f].r = keep;
            } else {
                plan[f - 1].disposal = DISPOSE_BACKGROUND;
                plan[f - 1].r = pr;
                plan[f].r = clear;
                memcpy(canvas, cleared, npx);
            }
        }
        if (rect_area(plan[f].r) == 0) { /* nothing changed: store one pixel */
            plan[f].r.x0 = plan[f].r.y0 = 0;
            plan[f].r.x1 = plan[f].r.y1 = 1;
        }
        /* the canvas after this frame equals the target inside its rectangle */
        rect r = plan[f].r;
        for (int y = r.y0; y < r.y1; y++)
            memcpy(canvas + (size_t)y * w + r.x0, target + (size_t)y * w + r.x0, (size_t)(r.x1 - r.x0));
    }
    plan[count - 1].disposal = DISPOSE_DO_NOT;
    anim merged = *a;
    merged.count = count;
    merged.hold = hold;
    anim_delays(&merged, 100, 2, delays);

    int gerr = 0;
    gif = EGifOpen(out, write_cb, &gerr);
    if (!gif) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "cannot start the GIF (%s)", GifErrorString(gerr));
        goto done;
    }
    EGifSetGifVersion(gif, true);
    int mapsize = 2;
    while (mapsize < ix.ncolors)
        mapsize *= 2;
    GifColorType colors[256];
    memset(colors, 0, sizeof colors);
    for (int i = 0; i < ix.ncolors; i++) {
        colors[i].Red = ix.palette[i][0];
        colors[i].Green = ix.palette[i][1];
        colors[i].Blue = ix.palette[i][2];
    }
    cmap = GifMakeMapObject(mapsize, colors);
    if (!cmap || EGifPutScreenDesc(gif, w, h, 8, tr, cmap) == GIF_ERROR)
        goto gif_fail;
    if (a->loop != 1) {
        int reps = a->loop == 0 ? 0 : a->loop - 1;
        unsigned char nab[3] = { 1, (unsigned char)(reps & 0xff), (unsigned char)(reps >> 8) };
        if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
            EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
            EGifPutExtensionBlock(gif, 3, nab) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
            goto gif_fail;
    }
    memset(canvas, tr, npx);
    for (int f = 0; f < count; f++) {
        const uint8_t *target = ix.index + npx * (size_t)src[f];
        rect r = plan[f].r;
        if (f > 0 && plan[f - 1].disposal == DISPOSE_BACKGROUND) {
            rect pr = plan[f - 1].r;
            for (int y = pr.y0; y < pr.y1; y++)
                memset(canvas + (size_t)y * w + pr.x0, tr, (size_t)(pr.x1 - pr.x0));
        }
        GraphicsControlBlock gcb;
        gcb.DisposalMode = plan[f].disposal;
        gcb.UserInputFlag = false;
        gcb.DelayTime = delays[f];
        gcb.TransparentColor = tr;
        GifByteType ext[4];
        EGifGCBToExtension(&gcb, ext);
        if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_ERROR ||
            EGifPutImageDesc(gif, r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0, false, NULL) == GIF_ERROR)
            goto gif_fail;
        for (int y = r.y0; y < r.y1; y++) {
            const uint8_t *t = target + (size_t)y * w, *c = canvas + (size_t)y * w;
            for (int x = r.x0; x < r.x1; x++)
                line[x - r.x0] = (uint8_t)(t[x] == c[x] ? tr : t[x]); /* unchanged shows through */
            if (EGifPutLine(gif, line, r.x1 - r.x0) == GIF_ERROR)
                goto gif_fail;
            memcpy(canvas + (size_t)y * w + r.x0, t + r.x0, (size_t)(r.x1 - r.x0));
        }
    }
    if (EGifCloseFile(gif, &gerr) == GIF_ERROR) {
        gif = NULL;
        st = poyo_fail(err, POYO_ERR_NOMEM, "cannot finish the GIF (%s)", GifErrorString(gerr));
        goto done;
    }
    gif = NULL;
    if (stats) {
        stats->frames = count;
        stats->colors = ix.ncolors;
        stats->quantize_ms = t1 - t0;
        stats->encode_ms = now_ms() - t1;
    }
    st = POYO_OK;
    goto done;
gif_fail:
    st = poyo_fail(err, POYO_ERR_NOMEM, "cannot write the GIF (%s)", GifErrorString(gif ? gif->Error : gerr));
done:
    if (gif)
        EGifCloseFile(gif, &gerr);
    GifFreeMapObject(cmap);
    free(plan);
    free(canvas);
    free(cleared);
    free(line);
    free(delays);
    free(src);
    free(hold);
    indexed_free(&ix);
    return st;
}
