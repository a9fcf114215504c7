/* test_animread.c - the GIF/APNG/PNG/WebP reader: GIFs written here with giflib
 * (disposal, transparency, interlace, loop blocks, colour tables), hand-built
 * PNGs checked against stb_image, hand-built APNG dispose/blend, and hostile input. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <stb_image.h>
#include <zlib.h>

#include "image/animread.h"
#include "image/apng.h"
#include "image/webp.h"
#include "util/bytebuf.h"

/* ---- writing GIFs with giflib ------------------------------------------------ */

static int gif_out(GifFileType *g, const GifByteType *p, int n)
{
    bytebuf *b = g->UserData;
    return bytebuf_append(b, p, (size_t)n, NULL) == POYO_OK ? n : 0;
}

typedef struct gframe {
    int x, y, w, h;
    int disposal, delay_cs, transparent;   /* transparent: index or -1 */
    int interlace;
    int no_gcb;
    const ColorMapObject *local;
    const uint8_t *idx;                    /* w * h indices, row-major */
} gframe;

/* Writes a GIF; loop < 0 leaves out the NETSCAPE2.0 block. Returns 1 on success. */
static int write_gif(bytebuf *out, int W, int H, const ColorMapObject *global, int loop, const gframe *fr, int n)
{
    int e = 0;
    GifFileType *g = EGifOpen(out, gif_out, &e);
    if (!g)
        return 0;
    EGifSetGifVersion(g, true);
    int ok = EGifPutScreenDesc(g, W, H, 8, 0, global) == GIF_OK;
    if (ok && loop >= 0) {
        uint8_t sub[3] = { 1, (uint8_t)(loop & 255), (uint8_t)(loop >> 8) };
        ok = EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
             EGifPutExtensionBlock(g, 11, "NETSCAPE2.0") == GIF_OK && EGifPutExtensionBlock(g, 3, sub) == GIF_OK &&
             EGifPutExtensionTrailer(g) == GIF_OK;
    }
    static const int start[4] = { 0, 4, 2, 1 }, step[4] = { 8, 8, 4, 2 };
    for (int i = 0; ok && i < n; i++) {
        const gframe *f = &fr[i];
        if (!f->no_gcb) {
            GraphicsControlBlock gcb = { f->disposal, false, f->delay_cs, f->transparent };
            uint8_t ext[4];
            size_t len = EGifGCBToExtension(&gcb, ext);
            ok = EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, (int)len, ext) == GIF_OK;
        }
        ok = ok && EGifPutImageDesc(g, f->x, f->y, f->w, f->h, f->interlace, f->local) == GIF_OK;
        for (int p = 0; ok && p < (f->interlace ? 4 : 1); p++)
            for (int r = f->interlace ? start[p] : 0; ok && r < f->h; r += f->interlace ? step[p] : 1)
                ok = EGifPutLine(g, (GifPixelType *)(f->idx + (size_t)r * (size_t)f->w), f->w) == GIF_OK;
    }
    if (EGifCloseFile(g, &e) != GIF_OK)
        ok = 0;
    return ok;
}

/* 0 black, 1 red, 2 green, 3 blue */
static ColorMapObject *rgb_map(void)
{
    GifColorType c[4] = { { 0, 0, 0 }, { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 } };
    return GifMakeMapObject(4, c);
}

static const uint8_t *px(const anim *a, int f, int x, int y)
{
    return anim_frame(a, f) + ((size_t)y * (size_t)a->width + (size_t)x) * 4u;
}

static int is_rgba(const uint8_t *p, int r, int g, int b, int al)
{
    return p[0] == r && p[1] == g && p[2] == b && p[3] == al;
}

static int is_clear(const uint8_t *p) { return p[3] == 0; }

static void fill(uint8_t *v, size_t n, uint8_t c) { memset(v, c, n); }

/* ---- GIF tests ------------------------------------------------------------ */

static void test_gif_disposal_methods(void)
{
    uint8_t red[64], green[16], blue[4], dot[1];
    fill(red, 64, 1);
    fill(green, 16, 2);
    fill(blue, 4, 3);
    fill(dot, 1, 2);
    ColorMapObject *cm = rgb_map();
    gframe fr[4] = {
        { 0, 0, 8, 8, DISPOSE_DO_NOT, 5, -1, 0, 0, NULL, red },
        { 2, 2, 4, 4, DISPOSE_BACKGROUND, 0, -1, 0, 0, NULL, green },
        { 0, 0, 2, 2, DISPOSE_PREVIOUS, 1, -1, 0, 0, NULL, blue },
        { 7, 7, 1, 1, DISPOSAL_UNSPECIFIED, 7, -1, 0, 0, NULL, dot },
    };
    bytebuf b = { 0 };
    int ok = write_gif(&b, 8, 8, cm, 0, fr, 4);
    GifFreeMapObject(cm);
    ENSURE(ok);
    anim a;
    anim_meta m;
    poyo_error err;
    ENSURE_MSG(anim_read(b.data, b.len, &a, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE(strcmp(m.format, "gif") == 0 && m.frames == 4 && a.count == 4);
    ENSURE(m.width == 8 && m.height == 8 && m.palette_size == 4 && !m.semi_transparent);
    /* frame 0: all red */
    ENSURE(is_rgba(px(&a, 0, 0, 0), 255, 0, 0, 255) && is_rgba(px(&a, 0, 7, 7), 255, 0, 0, 255));
    /* frame 1: green square over red */
    ENSURE(is_rgba(px(&a, 1, 2, 2), 0, 255, 0, 255) && is_rgba(px(&a, 1, 5, 5), 0, 255, 0, 255));
    ENSURE(is_rgba(px(&a, 1, 1, 1), 255, 0, 0, 255) && is_rgba(px(&a, 1, 6, 6), 255, 0, 0, 255));
    /* frame 2: the square was restored to background (transparent), blue corner drawn */
    ENSURE(is_clear(px(&a, 2, 2, 2)) && is_clear(px(&a, 2, 5, 5)));
    ENSURE(is_rgba(px(&a, 2, 0, 0), 0, 0, 255, 255) && is_rgba(px(&a, 2, 1, 1), 0, 0, 255, 255));
    ENSURE(is_rgba(px(&a, 2, 6, 6), 255, 0, 0, 255));
    /* frame 3: blue corner restored to previous (red), hole still clear, green dot */
    ENSURE(is_rgba(px(&a, 3, 0, 0), 255, 0, 0, 255) && is_rgba(px(&a, 3, 1, 1), 255, 0, 0, 255));
    ENSURE(is_clear(px(&a, 3, 3, 3)));
    ENSURE(is_rgba(px(&a, 3, 7, 7), 0, 255, 0, 255));
    /* delays as stored, holds at least 1 ms */
    ENSURE(m.delay_ms[0] == 50 && m.delay_ms[1] == 0 && m.delay_ms[2] == 10 && m.delay_ms[3] == 70);
    ENSURE(a.hold[1] == 1 && a.hold[0] == 50 && a.fps == 1000.0);
    ENSURE(m.loop == 0 && a.loop == 0 && m.file_bytes == b.len);
    anim_free(&a);
    anim_meta_free(&m);
    bytebuf_free(&b);
}

static void test_gif_transparent_index(void)
{
    uint8_t first[16], second[16];
    for (int i = 0; i < 16; i++) {
        first[i] = i < 8 ? 1 : 0;         /* top half red, bottom half transparent */
        second[i] = (i + i / 4) % 2 ? 3 : 0;   /* blue checker over transparent */
    }
    ColorMapObject *cm = rgb_map();
    gframe fr[2] = {
        { 0, 0, 4, 4, DISPOSE_DO_NOT, 10, 0, 0, 0, NULL, first },
        { 0, 0, 4, 4, DISPOSE_DO_NOT, 10, 0, 0, 0, NULL, second },
    };
    bytebuf b = { 0 };
    int ok = write_gif(&b, 4, 4, cm, -1, fr, 2);
    GifFreeMapObject(cm);
    ENSURE(ok);
    anim a;
    anim_meta m;
    poyo_error err;
    ENSURE_MSG(anim_read(b.data, b.len, &a, &m, &err) == POYO_OK, "%s", err.msg);
    for (int i = 0; i < 16; i++) {
        int x = i % 4, y = i / 4;
        ENSURE(first[i] ? is_rgba(px(&a, 0, x, y), 255, 0, 0, 255) : is_clear(px(&a, 0, x, y)));
        if (second[i])
            ENSURE(is_rgba(px(&a, 1, x, y), 0, 0, 255, 255));
        else
            ENSURE(memcmp(px(&a, 1, x, y), px(&a, 0, x, y), 4) == 0);
    }
    ENSURE(m.loop == -1 && a.loop == 1);
    anim_free(&a);
    anim_meta_free(&m);
    bytebuf_free(&b);
}

static void test_gif_interlaced_equals_progressive(void)
{
    enum { W = 5, H = 13 };
    uint8_t idx[W * H];
    for (int i = 0; i < W * H; i++)
        idx[i] = (uint8_t)((i / W) % 4);   /* row y has colour y % 4 */
    ColorMapObject *cm = rgb_map();
    gframe fr = { 0, 0, W, H, DISPOSE_DO_NOT, 4, -1, 1, 0, NULL, idx };
    bytebuf bi = { 0 }, bp = { 0 };
    int ok = write_gif(&bi, W, H, cm, 0, &fr, 1);
    fr.interlace = 0;
    ok = ok && write_gif(&bp, W, H, cm, 0, &fr, 1);
    GifFreeMapObject(cm);
    ENSURE(ok);
    anim ai, ap;
    poyo_error err;
    ENSURE_MSG(anim_read(bi.data, bi.len, &ai, NULL, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(anim_read(bp.data, bp.len, &ap, NULL, &err) == POYO_OK, "%s", err.msg);
    static const int rgb[4][3] = { { 0, 0, 0 }, { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 } };
    for (int y = 0; y < H; y++) {
        const int *c = rgb[y % 4];
        ENSURE_MSG(is_rgba(px(&ai, 0, 2, y), c[0], c[1], c[2], 255), "interlaced row %d", y);
    }
    ENSURE(memcmp(ai.rgba, ap.rgba, anim_frame_bytes(&ai)) == 0);
    anim_free(&ai);
    anim_free(&ap);
    bytebuf_free(&bi);
    bytebuf_free(&bp);
}

static void test_gif_loop_counts(void)
{
    uint8_t one = 1;
    ColorMapObject *cm = rgb_map();
    gframe fr = { 0, 0, 1, 1, DISPOSE_DO_NOT, 10, -1, 0, 0, NULL, &one };
    static const int loops[3] = { -1, 0, 5 };
    for (int k = 0; k < 3; k++) {
        bytebuf b = { 0 };
        int ok = write_gif(&b, 1, 1, cm, loops[k], &fr, 1);
        anim a;
        anim_meta m;
        poyo_error err;
        poyo_status st = ok ? anim_read(b.data, b.len, &a, &m, &err) : POYO_ERR_IO;
        bytebuf_free(&b);
        if (st != POYO_OK)
            GifFreeMapObject(cm);
        ENSURE(st == POYO_OK);
        int got = m.loop, plays = a.loop;
        anim_free(&a);
        anim_meta_free(&m);
        ENSURE_MSG(got == loops[k], "loop %d read as %d", loops[k], got);
        ENSURE(plays == (loops[k] < 0 ? 1 : loops[k] == 0 ? 0 : loops[k] + 1));
    }
    GifFreeMapObject(cm);
}

static void test_gif_local_colour_maps_and_clipping(void)
{
    GifColorType yc[2] = { { 9, 9, 9 }, { 255, 255, 0 } };
    ColorMapObject *global = rgb_map(), *local = GifMakeMapObject(2, yc);
    uint8_t all1[16];
    fill(all1, 16, 1);
    gframe fr[2] = {
        { 0, 0, 4, 4, DISPOSE_DO_NOT, 3, -1, 0, 0, NULL, all1 },    /* red from the global map */
        { 2, 2, 4, 4, DISPOSE_DO_NOT, 3, -1, 0, 0, local, all1 },   /* yellow, half outside */
    };
    bytebuf b = { 0 };
    int ok = write_gif(&b, 4, 4, global, 0, fr, 2);
    GifFreeMapObject(global);
    GifFreeMapObject(local);
    ENSURE(ok);
    anim a;
    anim_meta m;
    poyo_error err;
    ENSURE_MSG(anim_read(b.data, b.len, &a, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE(is_rgba(px(&a, 0, 3, 3), 255, 0, 0, 255));
    ENSURE(is_rgba(px(&a, 1, 1, 1), 255, 0, 0, 255));
    ENSURE(is_rgba(px(&a, 1, 2, 2), 255, 255, 0, 255) && is_rgba(px(&a, 1, 3, 3), 255, 255, 0, 255));
    ENSURE(m.palette_size == 4);
    anim_free(&a);
    anim_meta_free(&m);
    bytebuf_free(&b);
}

/* Frames wholly off the canvas count as frames but leave it unchanged; rows
 * below the canvas are passed over. */
static void test_gif_frames_off_canvas(void)
{
    ColorMapObject *global = rgb_map();
    uint8_t all1[64], all2[64];
    fill(all1, 64, 1);
    fill(all2, 64, 2);
    gframe fr[3] = {
        { 0, 0, 4, 4, DISPOSE_DO_NOT, 3, -1, 0, 0, NULL, all1 },     /* red everywhere */
        { 100, 100, 8, 8, DISPOSE_DO_NOT, 3, -1, 0, 0, NULL, all2 }, /* off the canvas */
        { 0, 2, 2, 8, DISPOSE_DO_NOT, 3, -1, 0, 0, NULL, all2 },     /* 6 of its rows below it */
    };
    bytebuf b = { 0 };
    int ok = write_gif(&b, 4, 4, global, 0, fr, 3);
    GifFreeMapObject(global);
    ENSURE(ok);
    anim a;
    poyo_error err;
    ENSURE_MSG(anim_read(b.data, b.len, &a, NULL, &err) == POYO_OK, "%s", err.msg);
    bytebuf_free(&b);
    ENSURE(a.count == 3);
    ENSURE(memcmp(anim_frame(&a, 0), anim_frame(&a, 1), anim_frame_bytes(&a)) == 0);
    ENSURE(is_rgba(px(&a, 2, 0, 0), 255, 0, 0, 255) && is_rgba(px(&a, 2, 3, 3), 255, 0, 0, 255));
    ENSURE(!is_rgba(px(&a, 2, 0, 2), 255, 0, 0, 255) && !is_rgba(px(&a, 2, 1, 3), 255, 0, 0, 255));
    ENSURE(is_rgba(px(&a, 2, 2, 2), 255, 0, 0, 255));
    anim_free(&a);
}

/* Frame counts and declared frame areas are checked against the memory bound
 * (1 GiB by default) before anything is decoded. */
static void test_gif_budget_checked_first(void)
{
    bytebuf b = { 0 };
    /* a 4096 x 4096 screen, 65 frames of 1 x 1: 65 x 64 MiB of composited frames */
    static const uint8_t head[] = { 'G', 'I', 'F', '8', '9', 'a', 0x00, 0x10, 0x00, 0x10, 0x80, 0, 0, 0, 0, 0, 255, 255, 255 };
    static const uint8_t tiny[] = { 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4c, 0x01, 0 };
    bytebuf_append(&b, head, sizeof head, NULL);
    for (int i = 0; i < 65; i++)
        bytebuf_append(&b, tiny, sizeof tiny, NULL);
    bytebuf_append(&b, ";", 1, NULL);
    anim a;
    poyo_error err;
    ENSURE(anim_read(b.data, b.len, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strcmp(err.msg, "65 frames of 4096x4096 would take about 4.19 GiB, more than the 1 GiB memory limit; "
                               "raise --max-memory") == 0,
               "%s", err.msg);
    bytebuf_free(&b);
    /* a 1 x 1 screen, 17 frames declared 4096 x 4096 (their data cut short) */
    uint8_t head1[sizeof head];
    memcpy(head1, head, sizeof head);
    head1[6] = head1[8] = 1;
    head1[7] = head1[9] = 0;
    static const uint8_t big[] = { 0x2c, 0, 0, 0, 0, 0x00, 0x10, 0x00, 0x10, 0, 2, 2, 0x4c, 0x01, 0 };
    bytebuf_append(&b, head1, sizeof head1, NULL);
    for (int i = 0; i < 17; i++)
        bytebuf_append(&b, big, sizeof big, NULL);
    bytebuf_append(&b, ";", 1, NULL);
    ENSURE(anim_read(b.data, b.len, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strcmp(err.msg, "GIF frames hold 285212672 pixels in all, more than the limit of 268435456") == 0,
               "%s", err.msg);
    bytebuf_free(&b);
}

static void test_gif_without_colour_map_fails(void)
{
    uint8_t one = 1;
    gframe fr = { 0, 0, 1, 1, DISPOSE_DO_NOT, 10, -1, 0, 1, NULL, &one };
    bytebuf b = { 0 };
    ColorMapObject *cm = rgb_map();
    int ok = write_gif(&b, 1, 1, cm, -1, &fr, 1);
    GifFreeMapObject(cm);
    ENSURE(ok && b.len > 25 && (b.data[10] & 0x87) == 0x81);
    /* drop the global table (4 entries, 12 bytes) and its flag */
    b.data[10] &= 0x7f;
    memmove(b.data + 13, b.data + 25, b.len - 25);
    b.len -= 12;
    anim a;
    poyo_error err;
    poyo_status st = anim_read(b.data, b.len, &a, NULL, &err);
    bytebuf_free(&b);
    ENSURE(st == POYO_ERR_INPUT);
    ENSURE_MSG(strstr(err.msg, "colour table") != NULL, "%s", err.msg);
    ENSURE(a.rgba == NULL && a.count == 0);
}

/* ---- PNG written here, checked against stb_image --------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void chunk(bytebuf *o, const char *type, const uint8_t *p, size_t n)
{
    uint8_t h[8], c[4];
    put32(h, (uint32_t)n);
    memcpy(h + 4, type, 4);
    uLong crc = crc32(0L, h + 4, 4);
    if (n)
        crc = crc32(crc, p, (uInt)n);
    put32(c, (uint32_t)crc);
    bytebuf_append(o, h, 8, NULL);
    bytebuf_append(o, p, n, NULL);
    bytebuf_append(o, c, 4, NULL);
}

typedef struct pngspec {
    int w, h, depth, ctype, interlace;
    const uint16_t *s;           /* w * h * channels samples */
    const uint8_t *plte; int nplte;
    const uint8_t *trns; int ntrns;
} pngspec;

static int channels_of(int ctype) { return ctype == 0 || ctype == 3 ? 1 : ctype == 2 ? 3 : ctype == 4 ? 2 : 4; }

/* Packs and filters (filter = row number mod 5) the rows of one sub-image. */
static void put_rows(bytebuf *raw, const pngspec *p, int x0, int y0, int dx, int dy)
{
    int c = channels_of(p->ctype);
    int pw = p->w > x0 ? (p->w - x0 + dx - 1) / dx : 0, ph = p->h > y0 ? (p->h - y0 + dy - 1) / dy : 0;
    if (!pw || !ph)
        return;
    size_t rb = ((size_t)pw * (size_t)c * (size_t)p->depth + 7) / 8, bpp = ((size_t)c * (size_t)p->depth + 7) / 8;
    uint8_t *prev = calloc(rb, 1), *cur = calloc(rb, 1), *outrow = malloc(rb + 1);
    for (int j = 0; j < ph; j++) {
        memset(cur, 0, rb);
        for (int i = 0; i < pw; i++)
            for (int k = 0; k < c; k++) {
                unsigned v = p->s[((size_t)(y0 + j * dy) * (size_t)p->w + (size_t)(x0 + i * dx)) * (size_t)c + (size_t)k];
                size_t sidx = (size_t)i * (size_t)c + (size_t)k;
                if (p->depth == 16) {
                    cur[2 * sidx] = (uint8_t)(v >> 8);
                    cur[2 * sidx + 1] = (uint8_t)v;
                } else if (p->depth == 8) {
                    cur[sidx] = (uint8_t)v;
                } else {
                    size_t bit = sidx * (size_t)p->depth;
                    cur[bit / 8] |= (uint8_t)(v << (8 - p->depth - (int)(bit % 8)));
                }
            }
        int f = j % 5;
        outrow[0] = (uint8_t)f;
        for (size_t i = 0; i < rb; i++) {
            int a = i >= bpp ? cur[i - bpp] : 0, b = j ? prev[i] : 0, cc = (j && i >= bpp) ? prev[i - bpp] : 0;
            int pa = abs(b - cc), pb = abs(a - cc), pc = abs(a + b - 2 * cc);
            int pae = (pa <= pb && pa <= pc) ? a : pb <= pc ? b : cc;
            int pred = f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : f == 4 ? pae : 0;
            outrow[i + 1] = (uint8_t)(cur[i] - pred);
        }
        bytebuf_append(raw, outrow, rb + 1, NULL);
        uint8_t *t = prev;
        prev = cur;
        cur = t;
    }
    free(prev);
    free(cur);
    free(outrow);
}

static void write_png(bytebuf *o, const pngspec *p)
{
    static const uint8_t sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    static const int a7[7][4] = { { 0, 0, 8, 8 }, { 4, 0, 8, 8 }, { 0, 4, 4, 8 }, { 2, 0, 4, 4 },
                                  { 0, 2, 2, 4 }, { 1, 0, 2, 2 }, { 0, 1, 1, 2 } };
    bytebuf raw = { 0 };
    if (p->interlace)
        for (int k = 0; k < 7; k++)
            put_rows(&raw, p, a7[k][0], a7[k][1], a7[k][2], a7[k][3]);
    else
        put_rows(&raw, p, 0, 0, 1, 1);
    uLongf zn = compressBound((uLong)raw.len);
    uint8_t *z = malloc(zn);
    compress2(z, &zn, raw.data, (uLong)raw.len, 6);
    uint8_t ihdr[13];
    put32(ihdr, (uint32_t)p->w);
    put32(ihdr + 4, (uint32_t)p->h);
    ihdr[8] = (uint8_t)p->depth;
    ihdr[9] = (uint8_t)p->ctype;
    ihdr[10] = ihdr[11] = 0;
    ihdr[12] = (uint8_t)p->interlace;
    bytebuf_append(o, sig, 8, NULL);
    chunk(o, "IHDR", ihdr, 13);
    if (p->plte)
        chunk(o, "PLTE", p->plte, (size_t)p->nplte * 3u);
    if (p->trns)
        chunk(o, "tRNS", p->trns, (size_t)p->ntrns);
    size_t half = zn / 2;   /* two IDAT chunks */
    chunk(o, "IDAT", z, half);
    chunk(o, "IDAT", z + half, zn - half);
    chunk(o, "IEND", NULL, 0);
    free(z);
    bytebuf_free(&raw);
}

/* Decodes p with anim_read and stb_image and compares within tol per channel. */
static int png_matches_stb(const pngspec *p, int tol, char *why, size_t whyn)
{
    bytebuf b = { 0 };
    write_png(&b, p);
    anim a;
    anim_meta m;
    poyo_error err;
    int ok = 0, w = 0, h = 0, c = 0;
    uint8_t *ref = stbi_load_from_memory(b.data, (int)b.len, &w, &h, &c, 4);
    if (anim_read(b.data, b.len, &a, &m, &err) != POYO_OK) {
        snprintf(why, whyn, "anim_read: %s", err.msg);
    } else if (!ref || w != p->w || h != p->h) {
        snprintf(why, whyn, "stb_image cannot read it");
    } else if (strcmp(m.format, "png") || m.frames != 1 || m.loop != -1) {
        snprintf(why, whyn, "meta %s frames %d loop %d", m.format, m.frames, m.loop);
    } else {
        ok = 1;
        for (size_t i = 0; ok && i < (size_t)w * (size_t)h * 4u; i++)
            if (abs(a.rgba[i] - ref[i]) > tol) {
                snprintf(why, whyn, "byte %zu: %d vs stb %d", i, a.rgba[i], ref[i]);
                ok = 0;
            }
    }
    if (ok && p->ctype == 3 && m.palette_size != p->nplte) {
        snprintf(why, whyn, "palette size %d", m.palette_size);
        ok = 0;
    }
    stbi_image_free(ref);
    anim_free(&a);
    anim_meta_free(&m);
    bytebuf_free(&b);
    return ok;
}

static void test_png_colour_types_match_stb(void)
{
    enum { W = 13, H = 11 };
    static uint16_t s[W * H * 4];
    uint8_t plte[16 * 3], trns[5] = { 0, 60, 128, 200, 255 };
    for (int i = 0; i < 16; i++) {
        plte[3 * i] = (uint8_t)(i * 16);
        plte[3 * i + 1] = (uint8_t)(255 - i * 10);
        plte[3 * i + 2] = (uint8_t)(i * 7);
    }
    uint8_t gray_key[2] = { 0, 5 }, rgb_key[6] = { 0, 7, 0, 8, 0, 9 };
    struct { int depth, ctype, interlace; const uint8_t *trns; int ntrns; int tol; } cases[] = {
        { 8, 6, 0, NULL, 0, 0 },  { 8, 6, 1, NULL, 0, 0 },   { 16, 6, 0, NULL, 0, 1 }, { 8, 2, 0, NULL, 0, 0 },
        { 8, 2, 0, rgb_key, 6, 0 }, { 16, 2, 1, NULL, 0, 1 }, { 8, 0, 0, NULL, 0, 0 },  { 8, 0, 0, gray_key, 2, 0 },
        { 1, 0, 0, NULL, 0, 0 },  { 2, 0, 1, NULL, 0, 0 },   { 4, 0, 0, NULL, 0, 0 },  { 16, 0, 0, NULL, 0, 1 },
        { 8, 4, 0, NULL, 0, 0 },  { 16, 4, 1, NULL, 0, 1 },  { 8, 3, 0, trns, 5, 0 },  { 4, 3, 1, trns, 5, 0 },
        { 2, 3, 0, NULL, 0, 0 },  { 1, 3, 0, trns, 2, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int depth = cases[k].depth, ctype = cases[k].ctype, c = channels_of(ctype);
        unsigned maxv = (1u << depth) - 1u;
        if (ctype == 3 && maxv > 15)
            maxv = 15;
        for (int i = 0; i < W * H; i++)
            for (int j = 0; j < c; j++)
                s[i * c + j] = (uint16_t)(((unsigned)i * 2654435761u >> (5 + 3 * j)) % (maxv + 1u));
        if (cases[k].ntrns == 6 || cases[k].ntrns == 2)
            for (int j = 0; j < c; j++)
                s[3 * c + j] = (uint16_t)(cases[k].ntrns == 6 ? 7 + j : 5);   /* a pixel equal to the key */
        pngspec p = { W, H, depth, ctype, cases[k].interlace, s, ctype == 3 ? plte : NULL, 16, cases[k].trns,
                      cases[k].ntrns };
        char why[400] = "";
        ENSURE_MSG(png_matches_stb(&p, cases[k].tol, why, sizeof why), "depth %d type %d interlace %d: %s", depth,
                   ctype, cases[k].interlace, why);
    }
}

/* ---- APNG built by hand: dispose and blend operations ------------------------ */

typedef struct aframe {
    int x, y, w, h, dispose, blend;
    uint8_t rgba[4];   /* solid colour */
} aframe;

static void write_apng(bytebuf *o, int W, int H, const aframe *f, int n, int plays)
{
    static const uint8_t sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    uint8_t ihdr[13] = { 0 }, actl[8], fctl[26];
    put32(ihdr, (uint32_t)W);
    put32(ihdr + 4, (uint32_t)H);
    ihdr[8] = 8;
    ihdr[9] = 6;
    put32(actl, (uint32_t)n);
    put32(actl + 4, (uint32_t)plays);
    bytebuf_append(o, sig, 8, NULL);
    chunk(o, "IHDR", ihdr, 13);
    chunk(o, "acTL", actl, 8);
    uint32_t seq = 0;
    for (int i = 0; i < n; i++) {
        size_t rn = (size_t)f[i].h * (1u + 4u * (size_t)f[i].w);
        uint8_t *raw = calloc(rn, 1);
        for (int y = 0; y < f[i].h; y++)
            for (int x = 0; x < f[i].w; x++)
                memcpy(raw + (size_t)y * (1u + 4u * (size_t)f[i].w) + 1u + 4u * (size_t)x, f[i].rgba, 4);
        uLongf zn = compressBound((uLong)rn);
        uint8_t *z = malloc(zn + 4);
        compress2(z + 4, &zn, raw, (uLong)rn, 6);
        put32(fctl, seq++);
        put32(fctl + 4, (uint32_t)f[i].w);
        put32(fctl + 8, (uint32_t)f[i].h);
        put32(fctl + 12, (uint32_t)f[i].x);
        put32(fctl + 16, (uint32_t)f[i].y);
        fctl[20] = 0;
        fctl[21] = (uint8_t)(i + 1);   /* (i + 1) / 20 s */
        fctl[22] = 0;
        fctl[23] = 20;
        fctl[24] = (uint8_t)f[i].dispose;
        fctl[25] = (uint8_t)f[i].blend;
        chunk(o, "fcTL", fctl, 26);
        if (i == 0) {
            chunk(o, "IDAT", z + 4, zn);
        } else {
            put32(z, seq++);
            chunk(o, "fdAT", z, zn + 4);
        }
        free(raw);
        free(z);
    }
    chunk(o, "IEND", NULL, 0);
}

static void test_apng_dispose_and_blend(void)
{
    const aframe f[6] = {
        { 0, 0, 4, 4, 0, 0, { 255, 0, 0, 255 } },   /* red, keep */
        { 1, 1, 2, 2, 2, 1, { 0, 0, 255, 128 } },   /* half blue OVER red, then restore previous */
        { 0, 0, 1, 1, 1, 0, { 0, 255, 0, 255 } },   /* green corner, then clear to background */
        { 3, 3, 1, 1, 0, 0, { 0, 0, 0, 0 } },       /* SOURCE transparent pixel */
        { 0, 0, 1, 1, 0, 1, { 0, 255, 0, 100 } },   /* OVER a cleared pixel */
        { 0, 0, 1, 1, 0, 1, { 255, 0, 0, 128 } },   /* translucent OVER translucent */
    };
    bytebuf b = { 0 };
    write_apng(&b, 4, 4, f, 6, 7);
    anim a;
    anim_meta m;
    poyo_error err;
    ENSURE_MSG(anim_read(b.data, b.len, &a, &m, &err) == POYO_OK, "%s", err.msg);
    bytebuf_free(&b);
    ENSURE(strcmp(m.format, "apng") == 0 && m.frames == 6 && m.loop == 7 && a.loop == 7);
    for (int i = 0; i < 6; i++)
        ENSURE(m.delay_ms[i] == (i + 1) * 50);
    ENSURE(m.semi_transparent);
    const uint8_t *p = px(&a, 1, 1, 1);   /* exact: blue 128/255 over opaque red */
    ENSURE(abs(p[0] - 127) <= 1 && p[1] == 0 && abs(p[2] - 128) <= 1 && p[3] == 255);
    ENSURE(is_rgba(px(&a, 1, 0, 0), 255, 0, 0, 255));
    ENSURE(is_rgba(px(&a, 2, 1, 1), 255, 0, 0, 255));   /* frame 1 disposed to previous */
    ENSURE(is_rgba(px(&a, 2, 0, 0), 0, 255, 0, 255));
    ENSURE(is_clear(px(&a, 3, 0, 0)) && is_clear(px(&a, 3, 3, 3)));
    ENSURE(is_rgba(px(&a, 3, 2, 2), 255, 0, 0, 255));
    ENSURE(is_rgba(px(&a, 4, 0, 0), 0, 255, 0, 100));
    /* Porter-Duff over: alpha 128 + 100 (1 - 128/255) = 177.8, red 255 * 128 / 177.8 = 183.6,
     * green 255 * 100 (1 - 128/255) / 177.8 = 71.4 */
    p = px(&a, 5, 0, 0);
    ENSURE_MSG(abs(p[0] - 184) <= 1 && abs(p[1] - 71) <= 1 && p[2] == 0 && abs(p[3] - 178) <= 1, "%d %d %d %d",
               p[0], p[1], p[2], p[3]);
    anim_free(&a);
    anim_meta_free(&m);
}

/* ---- hostile input ---------------------------------------------------------- */

/* Finds the n-th chunk of the given type; returns its offset or 0. */
static size_t find_chunk(const bytebuf *b, const char *type, int n)
{
    size_t pos = 8;
    while (pos + 12 <= b->len) {
        uint32_t len = (uint32_t)b->data[pos] << 24 | (uint32_t)b->data[pos + 1] << 16 |
                       (uint32_t)b->data[pos + 2] << 8 | b->data[pos + 3];
        if (memcmp(b->data + pos + 4, type, 4) == 0 && n-- == 0)
            return pos;
        pos += 12u + len;
    }
    return 0;
}

static void fix_crc(bytebuf *b, size_t pos)
{
    uint32_t len = (uint32_t)b->data[pos] << 24 | (uint32_t)b->data[pos + 1] << 16 |
                   (uint32_t)b->data[pos + 2] << 8 | b->data[pos + 3];
    put32(b->data + pos + 8 + len, (uint32_t)crc32(0L, b->data + pos + 4, len + 4));
}

static int make_sample_anim(anim *a)
{
    poyo_error err;
    if (anim_init(a, 12, 10, 3, 10.0, &err) != POYO_OK)
        return 0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 120; k++) {
            uint8_t *p = anim_frame(a, i) + 4 * k;
            p[0] = (uint8_t)(k * 3 + i * 50);
            p[1] = (uint8_t)(k * 7);
            p[2] = (uint8_t)(i * 90);
            p[3] = (uint8_t)(k % 3 ? 255 : 100 + i);
        }
    return 1;
}

static void test_apng_malformed_rejected(void)
{
    anim a;
    ENSURE(make_sample_anim(&a));
    bytebuf good = { 0 };
    poyo_error err;
    ENSURE(apng_encode(&a, NULL, &good, &err) == POYO_OK);
    anim_free(&a);
    struct { const char *chunk; int nth, offset; uint8_t value; const char *expect; } cases[] = {
        { "fcTL", 1, 3, 9, "sequence" },      /* frame 2's sequence number */
        { "fdAT", 0, 3, 0, "sequence" },
        { "fcTL", 2, 15, 200, "outside" },    /* x offset */
        { "fcTL", 1, 7, 0, "outside" },       /* width 0 */
        { "acTL", 0, 3, 2, "frames" },        /* declares 2, has 3 */
        { "acTL", 0, 3, 9, "frames" },        /* declares 9, has 3 */
        { "fcTL", 1, 24, 3, "dispose" },
        { "IHDR", 0, 9, 5, "colour type" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bytebuf b = { 0 };
        bytebuf_append(&b, good.data, good.len, NULL);
        size_t pos = find_chunk(&b, cases[k].chunk, cases[k].nth);
        ENSURE(pos > 0);
        b.data[pos + 8 + (size_t)cases[k].offset] = cases[k].value;
        fix_crc(&b, pos);
        anim r;
        poyo_status st = anim_read(b.data, b.len, &r, NULL, &err);
        bytebuf_free(&b);
        ENSURE_MSG(st == POYO_ERR_INPUT, "case %zu was accepted", k);
        ENSURE_MSG(strstr(err.msg, cases[k].expect) != NULL, "case %zu: %s", k, err.msg);
    }
    /* a complete file whose zlib stream stops half way */
    {
        static const uint8_t sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
        uint8_t ihdr[13] = { 0 }, raw[4 * 17], z[128];
        put32(ihdr, 4);
        put32(ihdr + 4, 4);
        ihdr[8] = 8;
        ihdr[9] = 6;
        for (size_t i = 0; i < sizeof raw; i++)
            raw[i] = (uint8_t)(i % 17 ? i * 37 : 0);
        uLongf zn = sizeof z;
        ENSURE(compress2(z, &zn, raw, sizeof raw, 9) == Z_OK);
        bytebuf b = { 0 };
        bytebuf_append(&b, sig, 8, NULL);
        chunk(&b, "IHDR", ihdr, 13);
        chunk(&b, "IDAT", z, zn / 2);
        chunk(&b, "IEND", NULL, 0);
        anim r;
        poyo_status st = anim_read(b.data, b.len, &r, NULL, &err);
        bytebuf_free(&b);
        ENSURE(st == POYO_ERR_INPUT);
        ENSURE_MSG(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
    }
    /* a flipped bit without a fixed checksum */
    good.data[find_chunk(&good, "IDAT", 0) + 10] ^= 1;
    anim r;
    ENSURE(anim_read(good.data, good.len, &r, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strstr(err.msg, "checksum") != NULL, "%s", err.msg);
    bytebuf_free(&good);
}

/* Every proper prefix of a valid file fails cleanly; the whole file reads. */
static int prefixes_fail(const bytebuf *b, char *why, size_t whyn)
{
    anim a;
    poyo_error err;
    if (anim_read(b->data, b->len, &a, NULL, &err) != POYO_OK) {
        snprintf(why, whyn, "whole file: %s", err.msg);
        return 0;
    }
    anim_free(&a);
    for (size_t n = 0; n < b->len; n++) {
        uint8_t *copy = malloc(n ? n : 1);   /* exact size so ASan sees any overread */
        memcpy(copy, b->data, n);
        poyo_status st = anim_read(copy, n, &a, NULL, &err);
        free(copy);
        if (st != POYO_ERR_INPUT) {
            anim_free(&a);
            snprintf(why, whyn, "prefix of %zu bytes gave status %d", n, (int)st);
            return 0;
        }
        if (a.rgba || a.count) {
            snprintf(why, whyn, "prefix of %zu bytes left frames behind", n);
            return 0;
        }
    }
    return 1;
}

static void test_truncated_inputs_fail(void)
{
    anim a;
    ENSURE(make_sample_anim(&a));
    bytebuf png = { 0 }, webp = { 0 }, gif = { 0 };
    poyo_error err;
    ENSURE(apng_encode(&a, NULL, &png, &err) == POYO_OK);
    ENSURE(webp_encode(&a, NULL, &webp, &err) == POYO_OK);
    anim_free(&a);
    uint8_t idx[30];
    for (int i = 0; i < 30; i++)
        idx[i] = (uint8_t)(i % 4);
    ColorMapObject *cm = rgb_map();
    gframe fr[2] = {
        { 0, 0, 6, 5, DISPOSE_DO_NOT, 10, 0, 0, 0, NULL, idx },
        { 1, 1, 5, 4, DISPOSE_PREVIOUS, 10, -1, 1, 0, NULL, idx },
    };
    int ok = write_gif(&gif, 6, 5, cm, 0, fr, 2);
    GifFreeMapObject(cm);
    ENSURE(ok);
    char why[400] = "";
    ENSURE_MSG(prefixes_fail(&gif, why, sizeof why), "GIF: %s", why);
    ENSURE_MSG(prefixes_fail(&png, why, sizeof why), "APNG: %s", why);
    ENSURE_MSG(prefixes_fail(&webp, why, sizeof why), "WebP: %s", why);
    bytebuf_free(&png);
    bytebuf_free(&webp);
    bytebuf_free(&gif);
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Random bytes behind each signature, and random corruption of valid files:
 * every outcome is success or POYO_ERR_INPUT, and nothing crashes (ASan build). */
static void test_garbage_and_corruption(void)
{
    static const char *heads[4] = { "GIF89a", "\x89PNG\r\n\x1a\n", "RIFF\x40\0\0\0WEBPVP8X", "hello" };
    static const size_t head_len[4] = { 6, 8, 16, 5 };
    uint32_t seed = 12345;
    uint8_t buf[300];
    poyo_error err;
    for (int t = 0; t < 400; t++) {
        int h = t % 4;
        memcpy(buf, heads[h], head_len[h]);
        for (size_t i = head_len[h]; i < sizeof buf; i++)
            buf[i] = (uint8_t)lcg(&seed);
        size_t n = head_len[h] + lcg(&seed) % (sizeof buf - head_len[h]);
        anim a;
        poyo_status st = anim_read(buf, n, &a, NULL, &err);
        anim_free(&a);
        ENSURE_MSG(st == POYO_OK || st == POYO_ERR_INPUT, "garbage %d gave %d", t, (int)st);
    }
    anim a;
    ENSURE(make_sample_anim(&a));
    bytebuf files[2] = { { 0 }, { 0 } };
    ENSURE(apng_encode(&a, NULL, &files[0], &err) == POYO_OK);
    ENSURE(webp_encode(&a, NULL, &files[1], &err) == POYO_OK);
    anim_free(&a);
    for (int f = 0; f < 2; f++) {
        for (int t = 0; t < 300; t++) {
            bytebuf b = { 0 };
            bytebuf_append(&b, files[f].data, files[f].len, NULL);
            for (int k = 0; k < 3; k++)
                b.data[8 + lcg(&seed) % (b.len - 8)] = (uint8_t)lcg(&seed);
            if (f == 0)   /* keep checksums valid so the decoder proper is exercised */
                for (size_t pos = 8; pos + 12 <= b.len;) {
                    uint32_t len = (uint32_t)b.data[pos] << 24 | (uint32_t)b.data[pos + 1] << 16 |
                                   (uint32_t)b.data[pos + 2] << 8 | b.data[pos + 3];
                    if (len > b.len - pos - 12)
                        break;
                    fix_crc(&b, pos);
                    pos += 12u + len;
                }
            poyo_status st = anim_read(b.data, b.len, &a, NULL, &err);
            anim_free(&a);
            bytebuf_free(&b);
            ENSURE_MSG(st == POYO_OK || st == POYO_ERR_INPUT, "corruption %d/%d gave %d", f, t, (int)st);
        }
    }
    bytebuf_free(&files[0]);
    bytebuf_free(&files[1]);
    ENSURE(anim_read(NULL, 0, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE(anim_read((const uint8_t *)"x", 1, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strstr(err.msg, "not a GIF") != NULL, "%s", err.msg);
}

static void test_huge_canvas_rejected(void)
{
    poyo_error err;
    anim a;
    /* GIF: 65535 x 65535 screen, global table of 2, nothing else */
    uint8_t gif[] = { 'G', 'I', 'F', '8', '9', 'a', 0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 255, 255, 255,
                      0x2c, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 2, 2, 0x4c, 0x01, 0, 0x3b };
    ENSURE(anim_read(gif, sizeof gif, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strstr(err.msg, "limit") != NULL, "%s", err.msg);
    /* GIF: small screen, huge frame */
    gif[6] = gif[8] = 4;
    gif[7] = gif[9] = 0;
    ENSURE(anim_read(gif, sizeof gif, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strstr(err.msg, "limit") != NULL, "%s", err.msg);
    /* PNG: 100000 x 100000 */
    bytebuf b = { 0 };
    static const uint8_t sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    uint8_t ihdr[13] = { 0 };
    put32(ihdr, 100000);
    put32(ihdr + 4, 100000);
    ihdr[8] = 8;
    ihdr[9] = 6;
    bytebuf_append(&b, sig, 8, NULL);
    chunk(&b, "IHDR", ihdr, 13);
    uint8_t zero[64] = { 0 };
    chunk(&b, "IDAT", zero, sizeof zero);
    chunk(&b, "IEND", NULL, 0);
    ENSURE(anim_read(b.data, b.len, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strstr(err.msg, "limit") != NULL, "%s", err.msg);
    /* APNG: small canvas but a billion frames declared */
    bytebuf_free(&b);
    put32(ihdr, 64);
    put32(ihdr + 4, 64);
    uint8_t actl[8];
    put32(actl, 1000000000u);
    put32(actl + 4, 0);
    bytebuf_append(&b, sig, 8, NULL);
    chunk(&b, "IHDR", ihdr, 13);
    chunk(&b, "acTL", actl, 8);
    chunk(&b, "IEND", NULL, 0);
    ENSURE(anim_read(b.data, b.len, &a, NULL, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strstr(err.msg, "limit") != NULL, "%s", err.msg);
    bytebuf_free(&b);
    /* WebP: VP8X canvas of 16384 x 16384 */
    uint8_t webp[30] = { 'R', 'I', 'F', 'F', 22, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'X', 10, 0, 0, 0,
                         0x02, 0, 0, 0, 0xff, 0x3f, 0, 0xff, 0x3f, 0 };
    ENSURE(anim_read(webp, sizeof webp, &a, NULL, &err) == POYO_ERR_INPUT);
}

const struct test_case test_cases[] = {
    { "gif_disposal_methods", test_gif_disposal_methods },
    { "gif_transparent_index", test_gif_transparent_index },
    { "gif_interlaced_equals_progressive", test_gif_interlaced_equals_progressive },
    { "gif_loop_counts", test_gif_loop_counts },
    { "gif_local_colour_maps_and_clipping", test_gif_local_colour_maps_and_clipping },
    { "gif_without_colour_map_fails", test_gif_without_colour_map_fails },
    { "gif_frames_off_canvas", test_gif_frames_off_canvas },
    { "gif_budget_checked_first", test_gif_budget_checked_first },
    { "png_colour_types_match_stb", test_png_colour_types_match_stb },
    { "apng_dispose_and_blend", test_apng_dispose_and_blend },
    { "apng_malformed_rejected", test_apng_malformed_rejected },
    { "truncated_inputs_fail", test_truncated_inputs_fail },
    { "garbage_and_corruption", test_garbage_and_corruption },
    { "huge_canvas_rejected", test_huge_canvas_rejected },
    { NULL, NULL },
};
