/* gif.c - writes the indexed frames as GIF89a with an LZW encoder of its own
 * (the bytes giflib's encoder writes, GIF89a appendix F). For each frame the
 * previous frame's disposal is chosen (keep, or restore to background when a
 * pixel must turn transparent) so that only the changed rectangle is stored
 * and unchanged pixels inside it become the transparent index. */
#include "gif.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>


/* the LZW table: open addressing, at most 4093 entries in 8192 slots */
#define LZW_BITS 13
#define LZW_SLOTS (1u << LZW_BITS)
#define LZW_EMPTY 0xffffffffu

/* GIF disposal methods (GIF89a, 23.c.iv) */
#define DISPOSE_DO_NOT 1
#define DISPOSE_BACKGROUND 2

/* The bytes written so far and the LZW state of the image being written:
 * GIF's variable-length-code LZW (GIF89a, appendix F), codes packed from the
 * low bit up into sub-blocks of 255 bytes. */
typedef struct gif_writer {
    bytebuf *out;
    int failed;
    uint8_t block[256];   /* block[0] = bytes held in block[1..] */
    uint32_t acc;         /* bits not yet written, low bits first */
    int nacc;
    int min_bits, clear, next, bits, limit; /* codes: clear, next free, width, 1 << width */
    int prefix;           /* code of the string matched so far, -1 before the first pixel */
    uint32_t slot[LZW_SLOTS]; /* (prefix << 8 | pixel) << 12 | code, or LZW_EMPTY */
} gif_writer;

static void gif_start(gif_writer *g, bytebuf *out)
{
    g->out = out;
    g->failed = 0;
}

static void gif_put(gif_writer *g, const uint8_t *p, size_t n)
{
    if (!g->failed && bytebuf_append(g->out, p, n, NULL) != POYO_OK)
        g->failed = 1;
}

static inline void lzw_byte(gif_writer *g, uint8_t v)
{
    if (g->block[0] == 255) {
        gif_put(g, g->block, 256);
        g->block[0] = 0;
    }
    g->block[++g->block[0]] = v;
}

/* Writes code at the current width; the width grows once the next code to
 * be made needs it (as giflib does, so the bytes match its encoder's). */
static inline void lzw_code(gif_writer *g, int code)
{
    g->acc |= (uint32_t)code << g->nacc;
    g->nacc += g->bits;
    while (g->nacc >= 8) {
        lzw_byte(g, (uint8_t)g->acc);
        g->acc >>= 8;
        g->nacc -= 8;
    }
    if (g->next >= g->limit && g->bits < 12)
        g->limit = 1 << ++g->bits;
}

static void lzw_reset(gif_writer *g)
{
    g->next = g->clear + 2;
    g->bits = g->min_bits + 1;
    g->limit = 1 << g->bits;
    memset(g->slot, 0xff, sizeof g->slot);
}

/* Starts an image's data: the minimum code size, then a clear code. */
static void lzw_start(gif_writer *g, int min_bits)
{
    uint8_t b = (uint8_t)min_bits;
    gif_put(g, &b, 1);
    g->min_bits = min_bits;
    g->clear = 1 << min_bits;
    g->block[0] = 0;
    g->acc = 0;
    g->nacc = 0;
    g->prefix = -1;
    lzw_reset(g);
    lzw_code(g, g->clear);
}

static inline size_t lzw_hash(uint32_t key) { return (key * 2654435761u) >> (32 - LZW_BITS); }

/* Adds n pixels to the image's data. */
static void lzw_pixels(gif_writer *g, const uint8_t *px, int n)
{
    int i = 0, prefix = g->prefix;
    if (prefix < 0 && n > 0)
        prefix = px[i++];
    for (; i < n; i++) {
        uint32_t key = (uint32_t)prefix << 8 | px[i];
        size_t h = lzw_hash(key);
        uint32_t e;
        while ((e = g->slot[h]) != LZW_EMPTY && e >> 12 != key)
            h = (h + 1) & (LZW_SLOTS - 1);
        if (e != LZW_EMPTY) {
            prefix = (int)(e & 0xfff);
            continue;
        }
        lzw_code(g, prefix);
        prefix = px[i];
        if (g->next >= 4095) { /* the table is full: start afresh */
            lzw_code(g, g->clear);
            lzw_reset(g);
        } else {
            g->slot[h] = key << 12 | (uint32_t)g->next++;
        }
    }
    g->prefix = prefix;
}

/* Ends the image's data: the last string, the end code, the last bits and
 * an empty sub-block. */
static void lzw_finish(gif_writer *g)
{
    if (g->prefix >= 0)
        lzw_code(g, g->prefix);
    lzw_code(g, g->clear + 1);
    while (g->nacc > 0) {
        lzw_byte(g, (uint8_t)g->acc);
        g->acc >>= 8;
        g->nacc -= 8;
    }
    g->acc = 0;
    g->nacc = 0;
    if (g->block[0])
        gif_put(g, g->block, (size_t)g->block[0] + 1);
    uint8_t end = 0;
    gif_put(g, &end, 1);
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

    gif_writer g;
    gif_start(&g, out);
    int bits = 1;
    while ((1 << bits) < ix.ncolors)
        bits++;
    /* header, logical screen (a global table of 2^bits entries, 8 bits per
     * primary, the transparent index as background, square pixels) */
    uint8_t head[13] = { 'G', 'I', 'F', '8', '9', 'a', (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)h, (uint8_t)(h >> 8),
                         (uint8_t)(0x80 | 7 << 4 | (bits - 1)), (uint8_t)tr, 0 };
    gif_put(&g, head, sizeof head);
    uint8_t table[256 * 3];
    memset(table, 0, sizeof table);
    memcpy(table, ix.palette, (size_t)ix.ncolors * 3);
    gif_put(&g, table, (size_t)3 << bits);
    if (a->loop != 1) {
        int reps = a->loop == 0 ? 0 : a->loop - 1;
        uint8_t nab[19] = { 0x21, 0xff, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0',
                            3, 1, (uint8_t)(reps & 0xff), (uint8_t)(reps >> 8), 0 };
        gif_put(&g, nab, sizeof nab);
    }
    memset(canvas, tr, npx);
    for (int f = 0; f < count; f++) {
        const uint8_t *target = ix.index + npx * (size_t)src[f];
        rect r = plan[f].r;
        int rw = r.x1 - r.x0, rh = r.y1 - r.y0;
        if (f > 0 && plan[f - 1].disposal == DISPOSE_BACKGROUND) {
            rect pr = plan[f - 1].r;
            for (int y = pr.y0; y < pr.y1; y++)
                memset(canvas + (size_t)y * w + pr.x0, tr, (size_t)(pr.x1 - pr.x0));
        }
        /* graphic control (disposal, delay, transparent index), image descriptor */
        uint8_t gce[18] = { 0x21, 0xf9, 4, (uint8_t)(plan[f].disposal << 2 | 1), (uint8_t)delays[f],
                            (uint8_t)(delays[f] >> 8), (uint8_t)tr, 0,
                            0x2c, (uint8_t)r.x0, (uint8_t)(r.x0 >> 8), (uint8_t)r.y0, (uint8_t)(r.y0 >> 8),
                            (uint8_t)rw, (uint8_t)(rw >> 8), (uint8_t)rh, (uint8_t)(rh >> 8), 0 };
        gif_put(&g, gce, sizeof gce);
        lzw_start(&g, bits < 2 ? 2 : bits);
        for (int y = r.y0; y < r.y1; y++) {
            const uint8_t *t = target + (size_t)y * w, *c = canvas + (size_t)y * w;
            for (int x = r.x0; x < r.x1; x++)
                line[x - r.x0] = (uint8_t)(t[x] == c[x] ? tr : t[x]); /* unchanged shows through */
            lzw_pixels(&g, line, rw);
            memcpy(canvas + (size_t)y * w + r.x0, t + r.x0, (size_t)rw);
        }
        lzw_finish(&g);
    }
    gif_put(&g, (const uint8_t *)";", 1);
    if (g.failed) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while writing the GIF");
        goto done;
    }
    if (stats) {
        stats->frames = count;
        stats->colors = ix.ncolors;
        stats->quantize_ms = t1 - t0;
        stats->encode_ms = now_ms() - t1;
    }
    st = POYO_OK;
done:
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
