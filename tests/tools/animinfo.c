/* animinfo.c - reads back an animation (GIF, APNG, PNG, WebP, WebM) for the tests.
 *   animinfo FILE                    facts, one "key value" per line (the largest
 *                                    alpha at the four corners of any frame, and
 *                                    anywhere, among them)
 *   animinfo --png N OUT FILE        composited frame N as a PNG
 *   animinfo --diff A B FILE         pixels that differ between frames A and B,
 *                                    and the largest channel difference
 *   animinfo --compare N REF FILE    frame N against a PNG (alpha thresholded at
 *                                    --alpha, default 128): mask mismatches and
 *                                    the largest and mean colour error
 *   animinfo --hash FILE             64-bit FNV-1a of what the file shows: size,
 *                                    then each frame's delay (ms) and RGBA bytes,
 *                                    a fully transparent pixel as 0 0 0 0
 *   animinfo --pixel N X Y FILE      "R G B A" of pixel X,Y of frame N (negative
 *                                    N counts from the last frame)
 *   animinfo --bbox N [C0 C1] FILE   "X0 Y0 X1 Y1", the visible pixels (alpha > 0)
 *                                    of frame N in [X0, X1) x [Y0, Y1), or "none";
 *                                    with C0 C1, of columns [C0, C1) only */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include "image/animread.h"
#include "util/fileio.h"

static int load(const char *path, anim *a, anim_meta *m)
{
    uint8_t *data;
    size_t len;
    poyo_error err;
    if (file_read_all(path, (size_t)1 << 30, &data, &len, &err) != POYO_OK ||
        anim_read(data, len, a, m, &err) != POYO_OK) {
        fprintf(stderr, "animinfo: %s: %s\n", path, err.msg);
        return 0;
    }
    free(data);
    return 1;
}

/* GIF-only facts read with giflib directly: the transparent index of every
 * frame's GCE, and whether a visible pixel ever uses it. */
static void gif_facts(const char *path)
{
    int e;
    GifFileType *g = DGifOpenFileName(path, &e);
    if (!g || DGifSlurp(g) != GIF_OK)
        return;
    int tr_first = -2, tr_same = 1, frames_with_gce = 0;
    for (int i = 0; i < g->ImageCount; i++) {
        GraphicsControlBlock gcb;
        if (DGifSavedExtensionToGCB(g, i, &gcb) != GIF_OK)
            continue;
        frames_with_gce++;
        if (tr_first == -2)
            tr_first = gcb.TransparentColor;
        else if (gcb.TransparentColor != tr_first)
            tr_same = 0;
    }
    printf("gif_transparent_index %d\n", tr_first == -2 ? -1 : tr_first);
    printf("gif_transparent_same %d\n", tr_same);
    printf("gif_frames_with_gce %d\n", frames_with_gce);
    printf("gif_global_colors %d\n", g->SColorMap ? g->SColorMap->ColorCount : 0);
    DGifCloseFile(g, &e);
}

/* FNV-1a, 64 bits, over len bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* The bytes as little-endian 32-bit words, so the hash is the same on any machine. */
static uint64_t fnv1a_u32(uint64_t h, uint32_t v)
{
    unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24) };
    return fnv1a(h, b, 4);
}

/* animinfo --hash FILE: a hash of what every frame shows and for how long (the goldens). */
static int show_hash(int argc, char **argv)
{
    anim a;
    anim_meta m;
    (void)argc;
    if (!load(argv[2], &a, &m))
        return 1;
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv1a_u32(h, (uint32_t)a.width);
    h = fnv1a_u32(h, (uint32_t)a.height);
    h = fnv1a_u32(h, (uint32_t)a.count);
    for (int i = 0; i < a.count; i++) {
        h = fnv1a_u32(h, (uint32_t)m.delay_ms[i]);
        /* the colour under alpha 0 is not shown, and encoders may change it */
        uint8_t *p = anim_frame(&a, i);
        for (size_t k = 0; k < anim_frame_bytes(&a); k += 4)
            if (p[k + 3] == 0)
                memset(p + k, 0, 3);
        h = fnv1a(h, p, anim_frame_bytes(&a));
    }
    printf("%016llx\n", (unsigned long long)h);
    anim_free(&a);
    anim_meta_free(&m);
    return 0;
}

/* animinfo FILE: the file's facts, one "key value" per line. */
static int show_info(int argc, char **argv)
{
    anim a;
    anim_meta m;
    (void)argc;
    if (!load(argv[1], &a, &m))
        return 1;
    long total = 0;
    printf("format %s\nwidth %d\nheight %d\nframes %d\nloop %d\nplays %d\n", m.format, m.width, m.height, m.frames,
           m.loop, a.loop);
    printf("delays");
    for (int i = 0; i < m.frames; i++) {
        printf(" %d", m.delay_ms[i]);
        total += m.delay_ms[i];
    }
    printf("\nduration_ms %ld\nsemi_transparent %d\nbytes %zu\n", total, m.semi_transparent, m.file_bytes);
    int corner = 0, most = 0;
    for (int i = 0; i < a.count; i++) {
        const uint8_t *f = anim_frame(&a, i);
        size_t w = (size_t)a.width, h = (size_t)a.height;
        size_t at[4] = { 0, w - 1, (h - 1) * w, h * w - 1 };
        for (int k = 0; k < 4; k++)
            if (f[at[k] * 4 + 3] > corner)
                corner = f[at[k] * 4 + 3];
        for (size_t k = 0; k < w * h; k++)
            if (f[k * 4 + 3] > most)
                most = f[k * 4 + 3];
    }
    printf("codec %s\nalpha %d\naudio_tracks %d\ncorner_alpha_max %d\nalpha_max %d\n", m.codec, m.alpha,
           m.audio_tracks, corner, most);
    if (strcmp(m.format, "gif") == 0)
        gif_facts(argv[1]);
    anim_free(&a);
    anim_meta_free(&m);
    return 0;
}

/* animinfo --png N OUT FILE: frame N written to OUT as a PNG. */
static int show_png(int argc, char **argv)
{
    anim a;
    anim_meta m;
    (void)argc;
    if (!load(argv[4], &a, &m))
        return 1;
    int n = atoi(argv[2]);
    if (n < 0)
        n += a.count;
    if (n < 0 || n >= a.count) {
        anim_free(&a);
        anim_meta_free(&m);
        return 1;
    }
    int ok = stbi_write_png(argv[3], a.width, a.height, 4, anim_frame(&a, n), a.width * 4);
    anim_free(&a);
    anim_meta_free(&m);
    return ok ? 0 : 1;
}

/* animinfo --diff A B FILE: how many pixels two frames differ in, and by how much. */
static int show_diff(int argc, char **argv)
{
    anim a;
    anim_meta m;
    (void)argc;
    if (!load(argv[4], &a, &m))
        return 1;
    int fa = atoi(argv[2]), fb = atoi(argv[3]);
    if (fa < 0) fa += a.count;
    if (fb < 0) fb += a.count;
    if (fa < 0 || fb < 0 || fa >= a.count || fb >= a.count) {
        anim_free(&a);
        anim_meta_free(&m);
        return 1;
    }
    const uint8_t *p = anim_frame(&a, fa), *q = anim_frame(&a, fb);
    long changed = 0, n = (long)a.width * a.height;
    int maxd = 0;
    for (long i = 0; i < n; i++) {
        int d = 0;
        for (int c = 0; c < 4; c++) {
            int dd = abs(p[4 * i + c] - q[4 * i + c]);
            if ((p[4 * i + 3] == 0 && q[4 * i + 3] == 0))
                dd = 0;
            if (dd > d)
                d = dd;
        }
        if (d) changed++;
        if (d > maxd) maxd = d;
    }
    printf("changed %ld\npixels %ld\nmax_delta %d\n", changed, n, maxd);
    anim_free(&a);
    anim_meta_free(&m);
    return 0;
}

/* animinfo --compare [--alpha T] N REF FILE: frame N against the PNG REF, where their masks differ
 * and the colour error inside them. */
static int show_compare(int argc, char **argv)
{
    anim a;
    anim_meta m;
    int thr = 128;
    int k = 2;
    if (argc == 7 && strcmp(argv[2], "--alpha") == 0) {
        thr = atoi(argv[3]);
        k = 4;
    }
    if (!load(argv[k + 2], &a, &m))
        return 1;
    int n = atoi(argv[k]);
    int rw, rh, rc;
    uint8_t *ref = stbi_load(argv[k + 1], &rw, &rh, &rc, 4);
    if (!ref || rw != a.width || rh != a.height || n < 0 || n >= a.count) {
        fprintf(stderr, "animinfo: reference does not match\n");
        stbi_image_free(ref);
        anim_free(&a);
        anim_meta_free(&m);
        return 1;
    }
    const uint8_t *p = anim_frame(&a, n);
    long mism = 0, vis = 0, np = (long)rw * rh;
    int maxe = 0;
    double sum = 0;
    for (long i = 0; i < np; i++) {
        int rv = ref[4 * i + 3] >= thr, pv = p[4 * i + 3] >= 128;
        if (rv != pv) {
            mism++;
            continue;
        }
        if (!rv)
            continue;
        vis++;
        for (int c = 0; c < 3; c++) {
            int e = abs(ref[4 * i + c] - p[4 * i + c]);
            sum += e;
            if (e > maxe)
                maxe = e;
        }
    }
    printf("mask_mismatch %ld\nvisible %ld\nmax_error %d\nmean_error %.3f\n", mism, vis, maxe,
           vis ? sum / (3.0 * vis) : 0.0);
    stbi_image_free(ref);
    anim_free(&a);
    anim_meta_free(&m);
    return 0;
}

/* animinfo --pixel N X Y FILE: one pixel of frame N. */
static int show_pixel(int argc, char **argv)
{
    anim a;
    anim_meta m;
    (void)argc;
    if (!load(argv[5], &a, &m))
        return 1;
    int n = atoi(argv[2]), x = atoi(argv[3]), y = atoi(argv[4]);
    if (n < 0)
        n += a.count;
    int ok = n >= 0 && n < a.count && x >= 0 && y >= 0 && x < a.width && y < a.height;
    if (ok) {
        const uint8_t *p = anim_frame(&a, n) + ((size_t)y * (size_t)a.width + (size_t)x) * 4;
        printf("%d %d %d %d\n", p[0], p[1], p[2], p[3]);
    } else {
        fprintf(stderr, "animinfo: no pixel %d,%d in frame %d of %s\n", x, y, n, argv[5]);
    }
    anim_free(&a);
    anim_meta_free(&m);
    return ok ? 0 : 1;
}

/* animinfo --bbox N [C0 C1] FILE: the box of frame N's pixels that are not clear (in columns [C0, C1)). */
static int show_bbox(int argc, char **argv)
{
    anim a;
    anim_meta m;
    const char *file = argv[argc - 1];
    if (!load(file, &a, &m))
        return 1;
    int n = atoi(argv[2]);
    if (n < 0)
        n += a.count;
    int c0 = argc == 6 ? atoi(argv[3]) : 0, c1 = argc == 6 ? atoi(argv[4]) : a.width;
    if (c0 < 0)
        c0 = 0;
    if (c1 > a.width)
        c1 = a.width;
    if (n < 0 || n >= a.count) {
        fprintf(stderr, "animinfo: no frame %d in %s\n", n, file);
        anim_free(&a);
        anim_meta_free(&m);
        return 1;
    }
    int x0 = a.width, y0 = a.height, x1 = 0, y1 = 0;
    const uint8_t *p = anim_frame(&a, n);
    for (int y = 0; y < a.height; y++)
        for (int x = c0; x < c1; x++)
            if (p[((size_t)y * (size_t)a.width + (size_t)x) * 4 + 3]) {
                if (x < x0) x0 = x;
                if (y < y0) y0 = y;
                if (x + 1 > x1) x1 = x + 1;
                if (y + 1 > y1) y1 = y + 1;
            }
    if (x1 > x0)
        printf("%d %d %d %d\n", x0, y0, x1, y1);
    else
        printf("none\n");
    anim_free(&a);
    anim_meta_free(&m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--hash") == 0)
        return show_hash(argc, argv);
    if (argc == 2)
        return show_info(argc, argv);
    if (argc == 5 && strcmp(argv[1], "--png") == 0)
        return show_png(argc, argv);
    if (argc == 5 && strcmp(argv[1], "--diff") == 0)
        return show_diff(argc, argv);
    if ((argc == 5 || argc == 7) && strcmp(argv[1], "--compare") == 0)
        return show_compare(argc, argv);
    if (argc == 6 && strcmp(argv[1], "--pixel") == 0)
        return show_pixel(argc, argv);
    if ((argc == 4 || argc == 6) && strcmp(argv[1], "--bbox") == 0)
        return show_bbox(argc, argv);
    fprintf(stderr, "usage: animinfo FILE | --png N OUT FILE | --diff A B FILE | --compare [--alpha T] N REF FILE"
                    " | --pixel N X Y FILE | --bbox N [C0 C1] FILE\n");
    return 2;
}
