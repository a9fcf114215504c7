/* gifbench.c - poyo's GIF writer against giflib's and cgif's on the same
 * palette indices, for `make bench`.
 *   gifbench [-n RUNS] [-s SIZE] [-d SECONDS] INPUT.png
 * Draws one clip (the main job's default squash), quantises it once with
 * poyo's quantiser, then writes those indices RUNS times (default 9) with
 * poyo's writer (changed rectangles, unchanged pixels made transparent, its
 * own LZW), with giflib's EGif (whole frames: giflib plans nothing), and with
 * cgif (its own changed window and transparency) when built with it. Prints
 * per writer the median milliseconds, the quartiles, the bytes, both as
 * ratios to poyo's, and whether the file decodes to the frames it was given.
 * The quantiser's own time is printed on its line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#ifdef HAVE_CGIF
#include <cgif.h>
#endif

#include "image/animread.h"
#include "image/gif.h"
#include "image/output.h"
#include "sim/animate.h"
#include "util/bytebuf.h"

#include "toolutil.h"

static double quantile(const double *v, int n, double q)
{
    int k = (int)(q * (n - 1) + 0.5);
    return v[k];
}

/* ---- giflib, whole frames ---------------------------------------------- */

static int giflib_out(GifFileType *gf, const GifByteType *p, int n)
{
    poyo_error err;
    return bytebuf_append(gf->UserData, p, (size_t)n, &err) == POYO_OK ? n : 0;
}

static int giflib_write(const indexed *ix, const int *delays, bytebuf *out)
{
    int e = 0, bits = 1;
    while ((1 << bits) < ix->ncolors)
        bits++;
    GifFileType *gf = EGifOpen(out, giflib_out, &e);
    if (!gf)
        return -1;
    ColorMapObject *cm = GifMakeMapObject(1 << bits, NULL);
    int ok = cm != NULL;
    for (int i = 0; ok && i < (1 << bits); i++) {
        int c = i < ix->ncolors ? i : 0;
        cm->Colors[i] = (GifColorType){ ix->palette[c][0], ix->palette[c][1], ix->palette[c][2] };
    }
    EGifSetGifVersion(gf, true);
    ok = ok && EGifPutScreenDesc(gf, ix->width, ix->height, bits, 0, cm) == GIF_OK;
    static const GifByteType app[] = "NETSCAPE2.0", loop[] = { 1, 0, 0 };
    ok = ok && EGifPutExtensionLeader(gf, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
         EGifPutExtensionBlock(gf, 11, app) == GIF_OK && EGifPutExtensionBlock(gf, 3, loop) == GIF_OK &&
         EGifPutExtensionTrailer(gf) == GIF_OK;
    size_t npx = (size_t)ix->width * ix->height;
    for (int f = 0; ok && f < ix->count; f++) {
        GraphicsControlBlock gcb = { DISPOSE_BACKGROUND, false, delays[f], ix->transparent };
        GifByteType ext[4];
        EGifGCBToExtension(&gcb, ext);
        ok = EGifPutExtension(gf, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_OK &&
             EGifPutImageDesc(gf, 0, 0, ix->width, ix->height, false, NULL) == GIF_OK;
        for (int y = 0; ok && y < ix->height; y++)
            ok = EGifPutLine(gf, ix->index + npx * (size_t)f + (size_t)y * ix->width, ix->width) == GIF_OK;
    }
    GifFreeMapObject(cm);
    if (EGifCloseFile(gf, &e) != GIF_OK)
        ok = 0;
    return ok ? 0 : -1;
}

/* ---- cgif, its own changed window and transparency ---------------------- */

#ifdef HAVE_CGIF
static int cgif_out(void *ctx, const uint8_t *p, const size_t n)
{
    poyo_error err;
    return bytebuf_append(ctx, p, n, &err) == POYO_OK ? 0 : -1;
}

static int cgif_write(const indexed *ix, const int *delays, bytebuf *out)
{
    uint8_t pal[256 * 3];
    memcpy(pal, ix->palette, (size_t)ix->ncolors * 3);
    CGIF_Config gc = { 0 };
    gc.pGlobalPalette = pal;
    gc.attrFlags = CGIF_ATTR_IS_ANIMATED;
    gc.width = (uint16_t)ix->width;
    gc.height = (uint16_t)ix->height;
    gc.numGlobalPaletteEntries = (uint16_t)ix->ncolors;
    gc.numLoops = CGIF_INFINITE_LOOP;
    gc.pWriteFn = cgif_out;
    gc.pContext = out;
    CGIF *g = cgif_newgif(&gc);
    if (!g)
        return -1;
    size_t npx = (size_t)ix->width * ix->height;
    int ok = 1;
    for (int f = 0; ok && f < ix->count; f++) {
        CGIF_FrameConfig fc = { 0 };
        fc.pImageData = ix->index + npx * (size_t)f;
        fc.attrFlags = CGIF_FRAME_ATTR_HAS_ALPHA;
        fc.genFlags = CGIF_FRAME_GEN_USE_TRANSPARENCY | CGIF_FRAME_GEN_USE_DIFF_WINDOW;
        fc.delay = (uint16_t)delays[f];
        fc.transIndex = (uint8_t)ix->transparent;
        ok = cgif_addframe(g, &fc) == CGIF_OK;
    }
    return cgif_close(g) == CGIF_OK && ok ? 0 : -1;
}
#endif

/* 1 when the file shows, frame by frame, the colours the indices name
 * (transparent where the index is the transparent one). */
static int decodes_to(const bytebuf *file, const indexed *ix)
{
    anim d;
    poyo_error err;
    if (anim_read(file->data, file->len, &d, NULL, &err) != POYO_OK)
        return 0;
    size_t npx = (size_t)ix->width * ix->height;
    int same = d.count == ix->count && d.width == ix->width && d.height == ix->height;
    for (int f = 0; same && f < ix->count; f++)
        for (size_t i = 0; same && i < npx; i++) {
            int c = ix->index[npx * (size_t)f + i];
            const uint8_t *p = d.rgba + (npx * (size_t)f + i) * 4;
            if (c == ix->transparent)
                same = p[3] == 0;
            else
                same = p[3] == 255 && !memcmp(p, ix->palette[c], 3);
        }
    anim_free(&d);
    return same;
}

int main(int argc, char **argv)
{
    int runs = 9, size = 128;
    double dur = 2.0;
    const char *in = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc)
            dur = atof(argv[++i]);
        else
            in = argv[i];
    }
    if (!in || runs < 1 || runs > 1000 || size < 1 || size > 4096) {
        fprintf(stderr, "usage: gifbench [-n RUNS] [-s SIZE] [-d SECONDS] INPUT.png\n");
        return 2;
    }
    poyo_error err;
    image im;
    if (image_load(in, 1 << 24, &im, &err) != POYO_OK) {
        fprintf(stderr, "gifbench: %s: %s\n", in, err.msg);
        return 1;
    }
    animate_def d = animate_default_def();
    output_def od = output_default_def();
    d.width = d.height = size;
    d.duration = dur;
    motion m;
    anim a;
    indexed ix;
    if (animate_simulate(&im, &d, &m, &err) != POYO_OK || animate_render(&im, &m, &d, &a, &err) != POYO_OK ||
        quantize_anim(&a, &od.quant, &ix, &err) != POYO_OK) {
        fprintf(stderr, "gifbench: %s: %s\n", in, err.msg);
        return 1;
    }
    int *delays = malloc((size_t)a.count * sizeof *delays);
    double *t = calloc((size_t)runs, sizeof *t), *tq = calloc((size_t)runs, sizeof *tq);
    if (!delays || !t || !tq) {
        fprintf(stderr, "gifbench: out of memory\n");
        return 1;
    }
    anim_delays(&a, 100, 2, delays);
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    printf("%s: %dx%d, %d frames, %d colours\n", base, a.width, a.height, a.count, ix.ncolors);

    enum { POYO, GIFLIB, CGIF, NW };
    static const char *name[NW] = { "poyo", "giflib", "cgif" };
    double ms0 = 0.0;
    size_t bytes0 = 0;
    for (int w = 0; w < NW; w++) {
#ifndef HAVE_CGIF
        if (w == CGIF) {
            printf("  %-7s not built in: install libcgif-dev and build again\n", name[w]);
            continue;
        }
#endif
        bytebuf b = { NULL, 0, 0 };
        int ok = 1;
        for (int r = 0; r < runs && ok; r++) {
            bytebuf_free(&b);
            double t0 = now_ms();
            if (w == POYO) {
                gif_stats gs;
                ok = gif_encode(&a, &od.quant, &b, &gs, &err) == POYO_OK;
                t[r] = gs.encode_ms; /* the writer, not the quantiser it runs first */
                tq[r] = gs.quantize_ms;
                continue;
            }
#ifdef HAVE_CGIF
            ok = (w == GIFLIB ? giflib_write(&ix, delays, &b) : cgif_write(&ix, delays, &b)) == 0;
#else
            ok = giflib_write(&ix, delays, &b) == 0;
#endif
            t[r] = now_ms() - t0;
        }
        if (!ok) {
            fprintf(stderr, "gifbench: the %s writer failed\n", name[w]);
            return 1;
        }
        qsort(t, (size_t)runs, sizeof *t, cmp_d);
        double med = quantile(t, runs, 0.5);
        if (w == POYO) {
            ms0 = med, bytes0 = b.len;
            qsort(tq, (size_t)runs, sizeof *tq, cmp_d);
        }
        /* poyo's file merges identical frames and carries their delays, so
         * it is checked by its own tests, not frame by frame here */
        printf("  %-7s %7.2f ms (%.2f-%.2f) %8zu bytes  x%.2f time  x%.3f bytes%s", name[w], med,
               quantile(t, runs, 0.25), quantile(t, runs, 0.75), b.len, med / ms0, (double)b.len / bytes0,
               w == POYO ? "" : decodes_to(&b, &ix) ? "  frames exact" : "  FRAMES DIFFER");
        if (w == POYO)
            printf("  (quantiser %.2f ms)", quantile(tq, runs, 0.5));
        printf("\n");
        bytebuf_free(&b);
    }
    free(t);
    free(tq);
    free(delays);
    indexed_free(&ix);
    anim_free(&a);
    motion_free(&m);
    image_free(&im);
    return 0;
}
